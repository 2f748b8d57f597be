"""Figure: average JCT of every policy normalised to Tiresias, per workload group.

Usage: ``python paper_figs/fig_normalized_jct.py results/testbed --out out/fig_testbed.png``
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from common import mean_jct, read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory")
    parser.add_argument("--baseline", default="tiresias")
    parser.add_argument("--out", default="out/fig_normalized_jct.png")
    args = parser.parse_args()
    table = read_results(args.results)
    means = mean_jct(table)
    norm = means / means.loc[args.baseline]
    labels = list(norm.index)
    names = [str(c or "").removeprefix("wl_").removeprefix("sim_") for c in means.columns.names]
    groups = [
        ", ".join(
            f"{n}={v}" for n, v in zip(names, c if isinstance(c, tuple) else (c,), strict=True)
        )
        for c in norm.columns
    ]
    width = 0.8 / max(len(groups), 1)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(len(labels))
    for i, column in enumerate(norm.columns):
        ax.bar(x + i * width, norm[column].to_numpy(), width, label=groups[i])
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_xticks(x + width * (len(groups) - 1) / 2, labels, rotation=30, ha="right")
    ax.set_ylabel(f"average JCT ÷ {args.baseline}")
    seeds = sorted(int(s) for s in table["seed"].unique())
    ax.set_title(f"{table['sweep'].iloc[0]}: mean over seeds {seeds}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
