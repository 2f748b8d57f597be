"""The gap figure of a gap table (``sjfbsbf figs --gaps``): each instance's gap interval per
policy, non-preemptive and preemptive policies in two panels (the optimum bounds only the first
from below), proven instances filled, unproven ones hollow with their interval drawn."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from sjfbsbf.experiments.figure_common import save
from sjfbsbf.experiments.tables import ordered

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Horizontal spread of one policy's instances (x units), so the intervals do not overprint.
SPREAD = 0.6


def gap_stem(path: Path) -> str:
    """The figure's file stem: the table's own name if it says "gap", else ``<name>-gaps``
    (``gaps.csv`` gives ``gaps``, not ``gaps-gaps``)."""
    return path.stem if "gap" in path.stem.lower() else f"{path.stem}-gaps"


def fig_gaps(path: Path, out: Path, written: list[Path]) -> None:
    """Draw the gap figure of the table at ``path`` into ``out``."""
    import matplotlib.pyplot as plt

    table = pd.read_csv(path) if path.suffix == ".csv" else pd.read_json(path)
    preemptive = table["preemptive"].astype(str).str.lower().isin(("true", "1"))
    groups = [
        ("non-preemptive policies", table[~preemptive]),
        ("preemptive (not bounded\nby the optimum)", table[preemptive]),
    ]
    groups = [(title, rows) for title, rows in groups if len(rows)]
    widths = [max(1, rows["policy"].nunique()) for _, rows in groups]
    fig, axes = plt.subplots(
        1,
        len(groups),
        squeeze=False,
        layout="constrained",
        figsize=(max(6.0, 1.4 * sum(widths) + 2.0), 4.8),
        gridspec_kw={"width_ratios": widths},
    )
    for ax, (title, rows) in zip(axes[0], groups, strict=True):
        _panel(ax, rows)
        ax.set_title(title, fontsize=9)
    axes[0, 0].set_ylabel("gap to the optimum (%)")
    proven = int((table.drop_duplicates("instance")["status"] == "optimal").sum())
    count = table["instance"].nunique()
    fig.suptitle(
        f"{path.stem}: each instance's gap interval [low, high]; filled: proven optimum "
        f"({proven} of {count}), hollow: unproven",
        fontsize=9,
    )
    save(fig, out, gap_stem(path), written)


def _panel(ax: Axes, rows: pd.DataFrame) -> None:
    policies = ordered(rows["policy"].tolist())
    instances = sorted(rows["instance"].unique())
    offsets = np.linspace(-SPREAD / 2, SPREAD / 2, len(instances)) if len(instances) > 1 else [0]
    where = dict(zip(instances, offsets, strict=True))
    for x, policy in enumerate(policies):
        part = rows[rows["policy"] == policy]
        for record in part.to_dict("records"):
            low = 100 * float(record["gap_low"])
            high = 100 * float(record["gap_high"])
            proven = record["status"] == "optimal"
            xs = x + where[record["instance"]]
            if np.isfinite(high) and not proven:
                ax.vlines(xs, low, high, color="#C44E52", alpha=0.5, lw=1)
            ax.scatter(
                [xs],
                [low],
                s=14,
                facecolors="#4C72B0" if proven else "none",
                edgecolors="#4C72B0",
                linewidths=0.8,
            )
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xticks(range(len(policies)), policies, rotation=30, ha="right")
