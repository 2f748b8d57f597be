"""What ``sjfbsbf solve`` and ``sjfbsbf gap`` print: their gap tables, the line saying what the
solver ran, and the check of ``--out`` (docs/formulations.md §2.8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

#: Said above the preemptive policies' gaps (``solve``, ``gap``).
PREEMPTIVE_NOTE = (
    "preemptive policies, reported apart: the optimum is over non-preemptive schedules, so "
    "their gap can be negative:"
)


def check_out(out: Path | None) -> None:
    """Refuse an ``--out`` path that is not ``.csv`` / ``.json`` or is a directory (usage)."""
    if out is None:
        return
    from sjfbsbf.experiments.gap import check_out_path

    try:
        check_out_path(out)
    except ValueError:
        raise typer.BadParameter(
            f"{out}: must end in .csv or .json", param_hint="'--out'"
        ) from None
    if out.is_dir():
        raise typer.BadParameter(f"{out} is a directory", param_hint="'--out'")


def bound_part(name: str, value: float) -> str:
    """One lower bound of ``solve``'s "best of" line; one at or below zero (a CP-SAT model bound
    stopped early, e.g. -1,118.40 s) is true but says nothing, and is shown as such."""
    if value <= 0:
        return f"{name} ≤ 0 (no information yet)"
    return f"{name} {value:,.2f} s"


def solve_gap_table(rows: list[dict[str, Any]]) -> Any:
    """The table of ``solve``: policy, average JCT and both ends of its gap."""
    from rich.table import Table

    from sjfbsbf.experiments.gap_report import format_gap, format_low

    believed = any(row.get("beliefs", "oracle") != "oracle" for row in rows)
    table = Table(show_edge=False)
    headers = ("policy", "beliefs", "avg JCT (s)", "gap low", "gap high")
    for header in headers if believed else (h for h in headers if h != "beliefs"):
        table.add_column(header, justify="left" if header in ("policy", "beliefs") else "right")
    for row in rows:
        cells = [
            row["policy"],
            f"{row['avg_jct']:,.2f}",
            format_low(row["gap_low"], row["avg_jct"], row["best_avg_jct"], row["tolerance_s"]),
            format_gap(row["gap_high"]),
        ]
        if believed:
            label = str(row["beliefs"])
            shown = ", ".join(p for p in label.split(", ") if not p.endswith("=oracle"))
            cells.insert(1, shown or "oracle")
        table.add_row(*cells)
    return table


def solver_line(solver: str, info: dict[str, Any], time_limit: float) -> str:
    """What ran and what a time-limited result depends on (docs/formulations.md §2.6)."""
    limit = info.get("limit")
    if solver == "bounds":
        return (
            f"no model: the best non-preemptive heuristic after {info.get('search', 0)} search "
            "simulations, and the lower bounds (deterministic)"
        )
    wall = info.get("clock") == "wall"
    skipped = "; fluid LP skipped (no time for it)" if "fluid_skipped" in info else ""
    if solver == "cpsat":
        workers = info.get("num_workers", 1)
        line = f"CP-SAT, {workers} worker{'s' if workers != 1 else ''}, seed {info.get('seed')}, "
        if wall:
            line += f"wall-clock limit {time_limit:g} s for the whole solve"
            if limit is not None:
                line += " (reached: not reproducible; --deterministic for a reproducible run)"
            return line + skipped
        line += f"deterministic time limit {time_limit:g}"
        if limit == "wall-clock guard":
            line += " (stopped by the wall-clock guard: not reproducible)"
        elif limit is not None:
            line += (
                " (reached: reproducible)"
                if workers == 1
                else " (reached: with several workers a stopped run may differ from run to run)"
            )
        return line
    scope = "for the whole solve" if wall else "(model building included)"
    line = f"MILP ({info.get('backend', 'highs')}), wall-clock time limit {time_limit:g} s {scope}"
    if limit is not None:
        line += " (reached: a stopped run is not reproducible)"
    return line + skipped


def suite_gap_table(
    table: Any, summary: Any, policies: list[str], suite: Path, preemptive: bool
) -> Any:
    """The table of ``gap``: per instance U, L and each policy's interval, then the summary."""
    from rich.markup import escape
    from rich.table import Table

    from sjfbsbf.experiments.gap_report import SUITE_HEADERS, suite_rows, summary_rows

    kind = "preemptive" if preemptive else "non-preemptive"
    out = Table(
        title=f"Gap to the offline optimum ({kind} policies): {escape(str(suite))}",
        caption=(
            "[J/(U + tol) − 1, J/(L − tol) − 1] at the recorded dt: U best replayed schedule, "
            "L lower bound, tol replay tolerance; a low end of 0.00% (no sign): J within tol of U"
        ),
        show_edge=False,
    )
    for header in (*SUITE_HEADERS, *policies):
        out.add_column(header, justify="left" if header in ("instance", "status") else "right")
    for cells in suite_rows(table, policies):
        out.add_row(*cells)
    out.add_section()
    blank = [""] * (len(SUITE_HEADERS) - 1)
    for label, *cells in summary_rows(summary, policies):
        out.add_row(label, *blank, *cells)
    return out
