"""The figures of docs/results.md: average JCT normalised to a baseline per workload group, and
average JCT against the arrival-rate factor. Drawn from a sweep's results table alone by
``sjfbsbf figs`` and by the thin scripts of ``paper_figs/``."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.experiments.tables import mean_jct, ordered


def _write(fig: object, path: str | os.PathLike[str]) -> None:
    import matplotlib.pyplot as plt

    suffix = str(path).rsplit(".", 1)[-1].lower()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=suffix, dpi=120)  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]


def plot_normalized_jct(
    table: pd.DataFrame, path: str | os.PathLike[str], *, baseline: str = "tiresias"
) -> None:
    """Bars: each policy's mean average JCT over seeds ÷ the baseline's, one bar per group of
    the workload / simulator columns that vary (PNG or PDF by the suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    means = mean_jct(table)
    norm = means / means.loc[baseline]
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
    ax.set_ylabel(f"average JCT ÷ {baseline}")
    seeds = sorted(int(s) for s in table["seed"].unique())
    ax.set_title(f"{table['sweep'].iloc[0]}: mean over seeds {seeds}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # never over a bar
    fig.tight_layout()
    _write(fig, path)


def plot_load_sweep(table: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Lines: mean average JCT over seeds (minutes, log scale) against ``wl_rate_factor``, one
    panel per configuration of the other workload / simulator columns that vary."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sjfbsbf.experiments.figure_common import configurations

    parts = configurations(table)
    fig, axes = plt.subplots(
        1, len(parts), squeeze=False, figsize=(max(7.0, 5.0 * len(parts)), 4.5), sharey=True
    )
    for ax, (title, rows) in zip(axes[0], parts, strict=True):
        means = rows.groupby(["label", "wl_rate_factor"])["avg_jct"].mean().unstack(0)
        for label in ordered(list(means.columns)):
            style = "-" if "/" not in label else ":"
            ax.plot(means.index, means[label] / 60.0, style, marker="o", label=label)
        ax.set_xlabel("arrival rate × default (offered load 0.8 at ×1)")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        if title:
            ax.set_title(title, fontsize=9)
    axes[0, 0].set_ylabel("average JCT (min)")
    axes[0, 0].legend(fontsize=8, ncol=2)
    fig.suptitle(f"{table['sweep'].iloc[0]}: average JCT against the arrival rate")
    fig.tight_layout()
    _write(fig, path)
