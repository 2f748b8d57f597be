"""The research commands of the ``sjfbsbf`` command line: ``sweep``, ``solve``, ``gap``.

They register on :data:`sjfbsbf.cli.app` and share its one-line error handling; solver packages
(``formulations``) are imported inside ``solve`` and ``gap`` only.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from sjfbsbf.cli.common import app, describe, fail, sim_options, stdout
from sjfbsbf.core.errors import InstanceError


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
) -> None:
    """Run a sweep (resumable: finished runs are kept and skipped); write results + manifest."""
    from rich.console import Console
    from rich.progress import Progress

    from sjfbsbf.core.errors import SweepRunsFailed, escape
    from sjfbsbf.experiments.sweep import default_out_dir, load_sweep, run_sweep

    if backend not in ("local", "ray"):
        raise typer.BadParameter("must be 'local' or 'ray'", param_hint="'--backend'")
    definition = load_sweep(experiment)
    target = out if out is not None else default_out_dir(definition)
    console = stdout()
    console.print(
        f"sweep {definition.name}: {len(definition.runs)} runs -> {target}",
        markup=False,
        soft_wrap=True,
    )
    errors = Console(stderr=True)
    bar = Progress(console=errors, transient=True, disable=not errors.is_terminal)
    task = bar.add_task(definition.name, total=len(definition.runs))

    def advance(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    def warn(message: str) -> None:
        errors.print(f"sjfbsbf: warning: {escape(message)}", markup=False, soft_wrap=True)

    started = time.perf_counter()
    with bar:
        try:
            table = run_sweep(
                definition, target, workers=workers, backend=backend, progress=advance, warn=warn
            )
        except SweepRunsFailed:
            console.print(f"failed runs are left out of {target / 'results.parquet'}", markup=False)
            raise
    elapsed = time.perf_counter() - started
    console.print(
        f"{len(table)} runs in {target / 'results.parquet'} ({elapsed:.1f} s this time)",
        markup=False,
        soft_wrap=True,
    )


@app.command()
def solve(
    instance_path: Annotated[
        Path,
        typer.Argument(
            metavar="INSTANCE.json",
            help="Instance file (small: the offline model is time-indexed).",
            show_default=False,
        ),
    ],
    solver: Annotated[
        str, typer.Option("--solver", metavar="cpsat|milp", help="Backend.")
    ] = "cpsat",
    dt: Annotated[
        float, typer.Option("--dt", metavar="S", help="Slot length = simulator tick (s).")
    ] = 60.0,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit",
            metavar="S",
            help=(
                "Solver budget: CP-SAT deterministic time (≈ s; reproducible with one worker; "
                "the whole command stops at 3·S + 30 wall-clock s), MILP wall-clock s "
                "(model building included)."
            ),
        ),
    ] = 60.0,
    seed: Annotated[int, typer.Option("--seed", min=0, metavar="N", help="Solver seed.")] = 0,
    workers: Annotated[
        int, typer.Option("--workers", min=1, metavar="N", help="CP-SAT workers.")
    ] = 1,
    force: Annotated[
        bool,
        typer.Option("--force", help="Build the model even if its size estimate is too large."),
    ] = False,
) -> None:
    """Solve the offline problem exactly; compare the heuristics' average JCT with it."""
    if solver not in ("cpsat", "milp"):
        raise typer.BadParameter("must be 'cpsat' or 'milp'", param_hint="'--solver'")
    from formulations.offline.replay import interval_for

    # Slots coarser than the 60 s decision interval are allowed: offline runs decide every
    # max(60 s, dt) (docs/formulations.md §2.1).
    sim_options(dt, interval_for(dt), None)
    if not (math.isfinite(time_limit) and time_limit > 0):
        raise typer.BadParameter(
            "must be a positive number of seconds", param_hint="'--time-limit'"
        )
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.experiments.compare import run_policies

    instance = read_instance(instance_path)
    from formulations.offline import solve_offline
    from sjfbsbf.experiments.gap import GAP_POLICIES

    console = stdout()
    console.print(describe(instance, str(instance_path)) + f"; dt {dt:g} s, solver {solver}")
    from formulations.offline.size import MAX_MODEL_CELLS, ModelTooLarge

    try:
        result = solve_offline(
            instance,
            solver,
            dt=dt,
            time_limit=time_limit,
            seed=seed,
            num_workers=workers,
            max_model_cells=None if force else MAX_MODEL_CELLS,
        )
    except ModelTooLarge as exc:
        raise InstanceError(f"{exc}; --force builds it anyway", source=str(instance_path)) from None
    info = result.info
    replayed = result.replayed_avg_jct  # the simulator's score of the returned schedule

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:,.2f}"

    console.print(f"status              {result.status.value}", markup=False)
    console.print(f"avg JCT (simulated) {seconds(replayed)} s", markup=False)
    console.print(f"lower bound         {seconds(result.bound)} s", markup=False)
    source = info.get("source")
    if source is not None:
        model_objective = result.objective  # the model's value of the schedule (None: heuristic)
        origin = "the model" if source == "model" else source.replace("heuristic:", "heuristic ")
        if model_objective is not None:
            origin += f" (model objective {model_objective:,.2f} s)"
        console.print(f"schedule from       {origin}", markup=False)
    console.print(
        f"[dim]{_solver_line(solver, info, time_limit)}; {len(info.get('rounds', []))} model "
        f"solve(s), {result.runtime_s:.2f} s; horizon {info.get('horizon')} slots, model "
        f"tolerance {info.get('tolerance_s', 0.0):.3f} s[/dim]"
    )
    if "reason" in info:
        console.print(f"reason: {info['reason']}", markup=False, soft_wrap=True)
    if replayed is None:
        return
    from rich.table import Table

    console.print(f"heuristics simulated at dt {dt:g} s, gap to the schedule above:")
    table = Table(show_edge=False)
    for header, justify in (("policy", "left"), ("avg JCT (s)", "right"), ("gap", "right")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for policy_result in run_policies(
        instance, list(GAP_POLICIES), dt=dt, interval=interval_for(dt)
    ):
        gap = policy_result.avg_jct / replayed - 1.0
        table.add_row(policy_result.policy, f"{policy_result.avg_jct:,.2f}", f"{gap:+.2%}")
    console.print(table)
    if result.status.value != "optimal":
        console.print("[dim]not proven optimal: gaps are against the best schedule found[/dim]")


def _solver_line(solver: str, info: dict[str, Any], time_limit: float) -> str:
    """What ran and what a time-limited result depends on (docs/formulations.md §2.6)."""
    limit = info.get("limit")
    if solver == "cpsat":
        workers = info.get("num_workers", 1)
        line = (
            f"CP-SAT, {workers} worker{'s' if workers != 1 else ''}, seed {info.get('seed')}, "
            f"deterministic time limit {time_limit:g}"
        )
        if limit == "wall-clock guard":
            line += " (stopped by the wall-clock guard: not reproducible)"
        elif limit is not None:
            line += (
                " (reached: reproducible)"
                if workers == 1
                else " (reached: with several workers a stopped run may differ from run to run)"
            )
        return line
    line = f"MILP ({info.get('backend', 'highs')}), wall-clock time limit {time_limit:g} s"
    if limit is not None:
        line += " (reached: a stopped run is not reproducible)"
    return line


@app.command()
def gap(
    suite: Annotated[
        Path,
        typer.Option("--suite", metavar="DIR", help="Directory with instances and optima.json."),
    ] = Path("instances"),
) -> None:
    """Per instance and policy: average JCT ÷ recorded offline optimum − 1, with a summary."""
    from formulations.offline.suite import OPTIMA_FILE, load_suite
    from sjfbsbf.experiments.gap import GAP_POLICIES, gap_summary, gap_table

    if not (suite / OPTIMA_FILE).is_file():
        fail(f"{suite / OPTIMA_FILE}: no such file (run instances/make_suite.py)", 1)
    try:
        entries = load_suite(suite)
    except ValueError as exc:
        fail(str(exc), 1)
    table = gap_table(entries)
    summary = gap_summary(table)
    from rich.table import Table

    out = Table(
        title=f"Gap to the offline optimum: {suite}",
        caption="avg JCT ÷ optimum − 1 at the recorded dt; '-' where no optimum was proven",
        show_edge=False,
    )
    out.add_column("instance")
    out.add_column("optimum (s)", justify="right")
    for name in GAP_POLICIES:
        out.add_column(name, justify="right")

    def pct(value: float) -> str:
        return "-" if math.isnan(value) else f"{value:+.1%}"

    for instance_name, row in table.iterrows():
        optimum = row["optimum"]
        label = f"{optimum:,.1f}" if row["status"] == "optimal" else f"({row['status']})"
        out.add_row(str(instance_name), label, *(pct(float(row[p])) for p in GAP_POLICIES))
    out.add_section()
    for stat in summary.index:
        out.add_row(stat, "", *(pct(float(summary.loc[stat, p])) for p in GAP_POLICIES))
    console = stdout()
    console.print(out)
    proven = int((table["status"] == "optimal").sum())
    console.print(f"[dim]{proven} of {len(table)} instances with a proven optimum[/dim]")
