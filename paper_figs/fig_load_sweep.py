"""Figure: average JCT against the arrival-rate factor, one line per policy.

Usage: ``python paper_figs/fig_load_sweep.py results/load --out out/fig_load_sweep.png``
"""

from __future__ import annotations

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from common import ordered, read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory of experiments/load.toml")
    parser.add_argument("--out", default="out/fig_load_sweep.png")
    args = parser.parse_args()
    table = read_results(args.results)
    means = table.groupby(["label", "wl_rate_factor"])["avg_jct"].mean().unstack(0)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label in ordered(list(means.columns)):
        style = "-" if "/" not in label else ":"
        ax.plot(means.index, means[label] / 60.0, style, marker="o", label=label)
    ax.set_xlabel("arrival rate × default (offered load 0.8 at ×1)")
    ax.set_ylabel("average JCT (min)")
    ax.set_yscale("log")
    ax.set_title("Load sweep, default workload (200 jobs, 4×8 GPUs)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
