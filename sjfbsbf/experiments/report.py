"""Tables and figures that compare simulation results (no simulation, no CLI here).

>>> table = compare_table(results)                       # doctest: +SKIP
>>> plot_comparison(table, "out/compare.png", instance="default-seed0")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.sim.metrics import METRIC_LABELS
from sjfbsbf.sim.result import SimResult

#: Metrics that are fractions in [0, 1] (shown as percentages).
FRACTION_METRICS = frozenset({"gpu_utilization", "shared_gpu_time_share", "ftf_above_1"})
#: Metrics where higher is better (every other metric but the fractions: lower is better).
HIGHER_IS_BETTER = frozenset({"jain_stretch"})


def compare_table(results: Sequence[SimResult]) -> pd.DataFrame:
    """One row per simulated policy, one column per metric.

    Parameters
    ----------
    results
        Results to compare, in the order the rows should appear.

    Returns
    -------
    pandas.DataFrame
        Index ``policy`` (the result's policy name); columns the metric keys of
        :data:`sjfbsbf.sim.metrics.METRIC_LABELS` in that order (avg / p50 / p95 / p99 JCT,
        makespan,
        average queueing delay in seconds; GPU utilisation and shared GPU-time share as
        fractions), followed by any further metric a result carries.

    Raises
    ------
    ValueError
        If ``results`` is empty.
    """
    if not results:
        raise ValueError("no results to compare")
    columns = list(METRIC_LABELS)
    for result in results:
        columns.extend(key for key in result.metrics if key not in columns)
    rows = [[result.metrics.get(key, math.nan) for key in columns] for result in results]
    index = pd.Index([result.policy for result in results], name="policy")
    return pd.DataFrame(rows, index=index, columns=columns, dtype=float)


def metric_label(key: str) -> str:
    """Display label of a metric key (the key itself if it has none)."""
    return METRIC_LABELS.get(key, key)


def format_metric(key: str, value: float) -> str:
    """Format a metric value for display: whole seconds, fractions as percentages.

    Examples
    --------
    >>> format_metric("avg_jct", 1358.54)
    '1,359'
    >>> format_metric("gpu_utilization", 0.6783)
    '67.8%'
    >>> format_metric("p99_stretch", 39.8)
    '39.80'
    """
    if math.isnan(value):
        return "-"
    if key in FRACTION_METRICS:
        return f"{value:.1%}"
    if metric_label(key).endswith("(s)"):
        return f"{value:,.0f}"
    if key == "jain_stretch":
        return f"{value:.3f}"
    if key in {"avg_stretch", "p99_stretch", "max_ftf"}:
        return f"{value:,.2f}"
    return f"{value:.4g}"


def plot_comparison(
    table: pd.DataFrame, path: str | os.PathLike[str], *, instance: str = ""
) -> None:
    """Write a PNG comparing policies: completion and queueing times, utilisation and sharing.

    The left panel shows average JCT, p99 JCT and average queueing delay per policy (seconds,
    average JCT labelled on its bar); the middle panel GPU utilisation and the share of busy
    GPU-time spent shared (percent); the right panel, when the table has them, average and p99
    stretch and the largest finish-time fairness ρ (docs/model.md §4.2). The file is written
    atomically.

    Parameters
    ----------
    table
        A table from :func:`compare_table`.
    path
        Output file (PNG); parent directories are created.
    instance
        Instance name, shown in the title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import StrMethodFormatter

    policies = [str(p) for p in table.index]
    times = [k for k in ("avg_jct", "p99_jct", "avg_queueing_delay") if k in table.columns]
    fractions = [k for k in ("gpu_utilization", "shared_gpu_time_share") if k in table.columns]

    stretches = [k for k in ("avg_stretch", "p99_stretch", "max_ftf") if k in table.columns]

    width_in = min(30.0, max(9.0, 2.0 + 2.0 * len(policies))) * (1.4 if stretches else 1.0)
    ratios = [3, 2, 2] if stretches else [3, 2]
    fig, axes = plt.subplots(
        1,
        len(ratios),
        figsize=(width_in, 5.0),
        gridspec_kw={"width_ratios": ratios},
        layout="constrained",
    )
    ax_time, ax_frac = axes[0], axes[1]
    _bars(ax_time, table, times, ["#4C72B0", "#C44E52", "#8C8C8C"], labelled={"avg_jct": "{:,.0f}"})
    ax_time.set_ylabel("time (s)")
    ax_time.set_title("Completion and queueing time (lower is better)")
    ax_time.legend(frameon=False, fontsize=9)
    ax_time.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax_time.margins(y=0.1)

    labelled = dict.fromkeys(fractions, "{:.0f}")
    _bars(ax_frac, table, fractions, ["#55A868", "#DD8452"], scale=100.0, labelled=labelled)
    ax_frac.set_ylabel("percent")
    ax_frac.set_ylim(0, 110)
    ax_frac.set_title("GPU utilisation and shared GPU-time")
    ax_frac.legend(frameon=False, fontsize=9, loc="upper right", ncols=2)

    if stretches:
        ax_str = axes[2]
        colors = ["#8172B3", "#937860", "#DA8BC3"]
        _bars(ax_str, table, stretches, colors, labelled={"avg_stretch": "{:.2f}"})
        ax_str.axhline(1.0, color="black", linewidth=0.8, alpha=0.5)
        ax_str.set_ylabel("ratio")
        ax_str.set_title("Stretch and finish-time fairness ρ (lower is better)")
        ax_str.legend(frameon=False, fontsize=9)

    for ax in axes:
        ax.set_xlabel("policy")
        if len(policies) > 6 or max(len(p) for p in policies) > 12:
            ax.tick_params(axis="x", labelrotation=30)
    title = "Policy comparison"
    fig.suptitle(f"{title}: {instance}" if instance else title, fontsize=13)
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", dpi=120)
    finally:
        plt.close(fig)


def _bars(
    ax: Any,
    table: pd.DataFrame,
    keys: list[str],
    colors: list[str],
    *,
    scale: float = 1.0,
    labelled: dict[str, str],
) -> None:
    """One group of bars per policy, one bar per metric of ``keys`` (values × ``scale``), the
    metrics of ``labelled`` labelled on their bars with that format; y grid behind."""
    import numpy as np

    x = np.arange(len(table.index))
    width = 0.8 / max(1, len(keys))
    for i, key in enumerate(keys):
        bars = ax.bar(
            x + (i - (len(keys) - 1) / 2) * width,
            scale * table[key].to_numpy(dtype=float),
            width,
            label=metric_label(key).removesuffix(" (s)"),
            color=colors[i % len(colors)],
        )
        if key in labelled:
            ax.bar_label(bars, fmt=labelled[key], fontsize=8, padding=2)
    ax.set_xticks(x, [str(p) for p in table.index])
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
