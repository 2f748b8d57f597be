"""Rich tables of metrics: one run's (``simulate``), several policies' (``compare``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from sjfbsbf.sim.result import SimResult


def metrics_table(result: SimResult) -> Table:
    from rich.table import Table

    from sjfbsbf.experiments.report import compare_table, format_metric, metric_label

    row = compare_table([result]).iloc[0]
    table = Table(box=None, pad_edge=False, show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in row.items():
        table.add_row(metric_label(str(key)), format_metric(str(key), float(value)))
    return table


def compare_table(frame: pd.DataFrame, title: str) -> Table:
    """A rich table of columns of :func:`sjfbsbf.experiments.report.compare_table`; the best
    value per column in bold (the lowest; the highest for Jain's index; fractions unmarked)."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from sjfbsbf.experiments.report import (
        FRACTION_METRICS,
        HIGHER_IS_BETTER,
        format_metric,
        metric_label,
    )

    best = {
        key: frame[key].max() if key in HIGHER_IS_BETTER else frame[key].min()
        for key in frame.columns
        if key not in FRACTION_METRICS
    }
    rows = []
    for policy, row in frame.iterrows():
        cells = [escape(str(policy))]
        for key in frame.columns:
            text = format_metric(key, float(row[key]))
            if key in best and len(frame) > 1 and row[key] == best[key]:
                text = f"[bold]{text}[/bold]"
            cells.append(text)
        rows.append(cells)
    times = any(metric_label(str(key)).endswith("(s)") for key in frame.columns)
    table = Table(
        title=escape(title),
        caption=("times in seconds; " if times else "") + "best per column in bold",
        show_edge=False,
    )
    # Headers break at spaces and cells never do, so narrow terminals wrap headers, not numbers.
    for position, header in enumerate(["policy", *frame.columns]):
        widest = max(Text.from_markup(cells[position]).cell_len for cells in rows)
        label = metric_label(header).removesuffix(" (s)").replace(" ", "\n")
        justify: Literal["left", "right"] = "left" if position == 0 else "right"
        table.add_column(label, justify=justify, min_width=widest)
    for cells in rows:
        table.add_row(*cells)
    return table
