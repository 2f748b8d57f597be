"""``sjfbsbf sweep EXPERIMENT.toml``: run a sweep definition locally or on Ray, with a progress
bar, one-line warnings and a last line counting new and kept runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from sjfbsbf.cli.common import app, fail, stdout


@app.command()
def sweep(
    experiment: Annotated[
        Path,
        typer.Argument(metavar="EXPERIMENT.toml", help="Sweep definition (see experiments/)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Results directory.", show_default="results/NAME"
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", min=1, metavar="N", help="Parallel runs.")
    ] = 1,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|ray",
            help="Processes on this machine, or Ray (optional extra) for several machines.",
        ),
    ] = "local",
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Write into a directory that holds another sweep's results or other files.",
        ),
    ] = False,
    max_runs: Annotated[
        int | None,
        typer.Option(
            "--max-runs",
            min=1,
            metavar="N",
            help="Refuse a sweep file that expands to more runs than this.",
            show_default="100,000",
        ),
    ] = None,
) -> None:
    """Run a sweep (resumable: finished runs are kept and skipped); write results + manifest."""
    from rich.console import Console
    from rich.progress import Progress

    from sjfbsbf.core.errors import SweepRunsFailed, escape
    from sjfbsbf.experiments.sweep import default_out_dir, load_sweep, run_sweep

    if backend not in ("local", "ray"):
        raise typer.BadParameter("must be 'local' or 'ray'", param_hint="'--backend'")
    import importlib.util

    if backend == "ray" and importlib.util.find_spec("ray") is None:
        # before anything is printed or written; the same line as the backend's own check
        fail(
            "sjfbsbf: error: the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'",
            1,
        )
    definition = load_sweep(experiment, max_runs=max_runs)
    target = out if out is not None else default_out_dir(definition)
    from sjfbsbf.experiments.sweep_run import check_out_dir

    check_out_dir(definition, target, overwrite=overwrite)  # before anything is printed
    console = stdout()
    console.print(
        f"sweep {definition.name}: {len(definition.runs)} runs -> {target}",
        markup=False,
        soft_wrap=True,
    )
    errors = Console(stderr=True)
    bar = Progress(console=errors, transient=True, disable=not errors.is_terminal)
    task = bar.add_task(definition.name, total=len(definition.runs))

    kept: list[int] = []  # runs already done when the sweep started (its first call)

    def advance(done: int, total: int) -> None:
        if not kept:
            kept.append(done)
        bar.update(task, completed=done, total=total)

    def warn(message: str) -> None:
        errors.print(f"sjfbsbf: warning: {escape(message)}", markup=False, soft_wrap=True)

    started = time.perf_counter()
    with bar:
        try:
            table = run_sweep(
                definition,
                target,
                workers=workers,
                backend=backend,
                progress=advance,
                warn=warn,
                overwrite=overwrite,
            )
        except SweepRunsFailed:
            console.print(f"failed runs are left out of {target / 'results.parquet'}", markup=False)
            raise
    elapsed = time.perf_counter() - started
    reused = kept[0] if kept else 0
    console.print(
        f"{len(table)} runs: {len(table) - reused} new, {reused} kept, in "
        f"{target / 'results.parquet'} ({elapsed:.1f} s this time)",
        markup=False,
        soft_wrap=True,
    )
