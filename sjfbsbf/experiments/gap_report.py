"""Gap intervals as text: the cells of the tables ``sjfbsbf solve`` and ``sjfbsbf gap`` print
(docs/formulations.md §2.8). No simulation and no console here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

#: Headers of the per-instance columns before the policies' in :func:`suite_rows`.
SUITE_HEADERS = ("instance", "status", "U (s)", "L (s)")


def format_gap(value: float) -> str:
    """One end of a gap as a signed percentage with two decimals.

    ``-`` for NaN (an unknown end), ``+inf%`` for an infinite one.

    Examples
    --------
    >>> format_gap(0.0531), format_gap(-0.002), format_gap(float("nan"))
    ('+5.31%', '-0.20%', '-')
    """
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "+inf%" if value > 0 else "-inf%"
    return f"{value:+.2%}"


#: Said under a gap table where a low end is shown as :data:`WITHIN_TOLERANCE`.
WITHIN_NOTE = (
    "0.00%: the policy's average JCT is within the replay tolerance (tol) of the best "
    "schedule's, so the low end's sign is the tolerance's, not the policy's"
)
#: How such a low end is shown.
WITHIN_TOLERANCE = "0.00%"


def within_tolerance(low: float, avg_jct: float, best: float, tolerance: float) -> bool:
    """Whether a low end is negative only by the tolerance: J within tol of U."""
    return low < 0 and math.isfinite(best) and abs(avg_jct - best) <= tolerance


def format_low(low: float, avg_jct: float, best: float, tolerance: float) -> str:
    """The low end of a gap: :data:`WITHIN_TOLERANCE` when it is negative only by the tolerance
    (|J − U| ≤ tol), else :func:`format_gap`.

    Examples
    --------
    >>> format_low(-0.0001, 100.0, 100.01, 0.032), format_low(-0.05, 95.0, 100.0, 0.032)
    ('0.00%', '-5.00%')
    """
    if within_tolerance(low, avg_jct, best, tolerance):
        return WITHIN_TOLERANCE
    return format_gap(low)


def format_interval(low: float, high: float) -> str:
    """A gap interval as ``[low, high]``.

    Examples
    --------
    >>> format_interval(0.0531, 0.0533)
    '[+5.31%, +5.33%]'
    """
    return f"[{format_gap(low)}, {format_gap(high)}]"


def format_seconds(value: float | None) -> str:
    """Seconds with one decimal and thousands separators (``-`` for None or NaN)."""
    if value is None or math.isnan(value):
        return "-"
    return f"{value:,.1f}"


def suite_rows(table: pd.DataFrame, policies: Sequence[str]) -> list[list[str]]:
    """Per instance of a gap table: :data:`SUITE_HEADERS` cells, then each policy's interval.

    Parameters
    ----------
    table
        A :func:`sjfbsbf.experiments.gap.gap_table` holding every policy of ``policies``.
    policies
        The policy columns, in order.
    """
    rows: dict[str, list[str]] = {}
    ends: dict[tuple[str, str], str] = {}
    for record in table.to_dict("records"):
        name = str(record["instance"])
        if name not in rows:
            rows[name] = [
                name,
                str(record["status"]),
                format_seconds(float(record["best_avg_jct"])),
                format_seconds(float(record["bound"])),
            ]
        low = format_low(
            float(record["gap_low"]),
            float(record["avg_jct"]),
            float(record["best_avg_jct"]),
            float(record["tolerance_s"]),
        )
        ends[name, str(record["policy"])] = f"[{low}, {format_gap(float(record['gap_high']))}]"
    return [[*cells, *(ends[name, p] for p in policies)] for name, cells in rows.items()]


def summary_rows(summary: pd.DataFrame, policies: Sequence[str]) -> list[list[str]]:
    """The rows ``mean``, ``max`` (intervals of each end) and ``below 5%`` (``n of N``) of a
    :func:`sjfbsbf.experiments.gap.gap_summary`, one cell per policy after the row label.
    """
    by_policy = {str(r["policy"]): r for r in summary.to_dict("records")}
    means, maxima, below = ["mean"], ["max"], ["below 5%"]
    for name in policies:
        row = by_policy[name]
        means.append(format_interval(float(row["mean_low"]), float(row["mean_high"])))
        maxima.append(format_interval(float(row["max_low"]), float(row["max_high"])))
        below.append(f"{int(row['below_5pct'])} of {int(row['instances'])}")
    return [means, maxima, below]
