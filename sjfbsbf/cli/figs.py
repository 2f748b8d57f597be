"""``sjfbsbf figs``: every figure of results folders and gap tables, from those files alone."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sjfbsbf.cli.common import app, fail, stdout


@app.command()
def figs(
    results: Annotated[
        list[Path] | None,
        typer.Option("--results", metavar="DIR", help="A sweep's output folder (repeatable)."),
    ] = None,
    gaps: Annotated[
        list[Path] | None,
        typer.Option(
            "--gaps",
            metavar="FILE",
            help="A gap table written by 'sjfbsbf gap --out' or 'solve --out' (repeatable).",
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="Where the figures go.")] = Path(
        "out/figs"
    ),
) -> None:
    """Draw every figure of the results folders and gap tables (PNG + PDF, headless)."""
    if not results and not gaps:
        raise typer.BadParameter("give at least one --results DIR or --gaps FILE")
    for directory in results or []:
        if not (directory / "results.parquet").is_file():
            fail(
                f"sjfbsbf: error: {directory / 'results.parquet'}: no results table "
                "(run 'sjfbsbf sweep' first)",
                1,
            )
    for table in gaps or []:
        if table.suffix not in (".csv", ".json") or not table.is_file():
            fail(
                f"sjfbsbf: error: {table}: no gap table "
                "(.csv or .json written by 'sjfbsbf gap --out')",
                1,
            )
    from sjfbsbf.experiments.figures import make_figures

    written = make_figures(results or [], out, gaps=gaps or [])
    console = stdout()
    for path in written:
        console.print(f"wrote {path}", markup=False, soft_wrap=True)
