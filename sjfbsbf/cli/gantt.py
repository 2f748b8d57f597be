"""``--gantt OUT.png|OUT.pdf`` of ``simulate`` and ``solve``: the schedule drawn per GPU."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from sjfbsbf.sim.result import SimResult

#: The option both commands take.
GANTT_OPTION = typer.Option(
    "--gantt",
    metavar="OUT.png|OUT.pdf",
    help="Draw the schedule per GPU over time (shared stretches hatched, sub-batches labelled).",
)


def check_gantt(path: Path | None) -> None:
    """Refuse, before anything runs, a Gantt path that is not .png / .pdf or is a directory."""
    if path is None:
        return
    from sjfbsbf.experiments.gantt import FORMATS

    if path.suffix.lower() not in FORMATS or path.is_dir():
        raise typer.BadParameter(f"{path}: must end in .png or .pdf", param_hint="'--gantt'")
    path.parent.mkdir(parents=True, exist_ok=True)  # fail early on an unusable path


def write_gantt(console: Console, result: SimResult, path: Path, num_gpus: int) -> None:
    """Draw ``result``'s schedule to ``path`` and say so."""
    from sjfbsbf.experiments.gantt import plot_gantt

    plot_gantt(result, path, num_gpus=num_gpus)
    console.print(f"wrote {path} (Gantt chart)", markup=False, soft_wrap=True)
