"""The exact side's commands of the ``sjfbsbf`` command line: ``solve`` and ``gap`` (``sweep`` is
in :mod:`sjfbsbf.cli.sweep`).

They register on :data:`sjfbsbf.cli.app` and share its one-line error handling; solver packages
(``formulations``) are imported inside ``solve`` and ``gap`` only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from sjfbsbf.cli.beliefs import BeliefOption, EstimatorOption, beliefs_option, check_beliefs_fit
from sjfbsbf.cli.common import (
    OUT_OPTION,
    SEARCH_OPTION,
    app,
    check_outputs,
    describe,
    fail,
    policy_list,
    sim_options,
    stdout,
)
from sjfbsbf.cli.gantt import GANTT_OPTION, check_gantt, write_gantt
from sjfbsbf.cli.gap_tables import (
    PREEMPTIVE_NOTE,
    bound_part,
    check_out,
    solve_gap_table,
    solver_line,
    suite_gap_table,
)
from sjfbsbf.core.errors import InstanceError


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
        str,
        typer.Option(
            "--solver",
            metavar="cpsat|milp|bounds",
            help="Backend ('bounds': no model, the best heuristic and the lower bounds).",
        ),
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
                "Wall-clock seconds for the whole solve: heuristics, bounds, model and search "
                "(the policies' runs after it add little). With --deterministic: CP-SAT "
                "deterministic time for the model solves (the command stops at 3·S + 30 s)."
            ),
        ),
    ] = 60.0,
    deterministic: Annotated[
        bool,
        typer.Option(
            "--deterministic",
            help="Reproducible limits (with one worker): CP-SAT counts deterministic time, the "
            "incumbent search and the bounds run whole; what make_suite.py and the tests use.",
        ),
    ] = False,
    seed: Annotated[int, typer.Option("--seed", min=0, metavar="N", help="Solver seed.")] = 0,
    workers: Annotated[
        int, typer.Option("--workers", min=1, metavar="N", help="CP-SAT workers.")
    ] = 1,
    force: Annotated[
        bool,
        typer.Option("--force", help="Build the model even if its size estimate is too large."),
    ] = False,
    colgen: Annotated[
        bool | None,
        typer.Option(
            "--colgen/--no-colgen",
            help="Also run the column-generation bound (docs/formulations.md §2.10 item 7; "
            "default: on for --solver bounds, off for the model).",
        ),
    ] = None,
    prove_free: Annotated[
        float | None,
        typer.Option(
            "--prove-free",
            metavar="S",
            help="If unproven, run the placement-free CP-SAT bound for S more (deterministic) s.",
        ),
    ] = None,
    lb_tree: Annotated[
        bool,
        typer.Option(
            "--lb-tree",
            help="With --prove-free: CP-SAT's lb-tree search (higher bound soon, later proofs).",
        ),
    ] = False,
    search: Annotated[int | None, SEARCH_OPTION] = None,
    estimator: EstimatorOption = None,
    interference_belief: BeliefOption = None,
    out: Annotated[Path | None, OUT_OPTION] = None,
    gantt: Annotated[Path | None, GANTT_OPTION] = None,
) -> None:
    """Solve the offline problem exactly; bound each policy's gap to it by an interval.

    With --estimator / --interference-belief the policies also run under those beliefs (the
    optimum stays clairvoyant): the price of not knowing beside the price of the heuristic.
    """
    if solver not in ("cpsat", "milp", "bounds"):
        raise typer.BadParameter("must be 'cpsat', 'milp' or 'bounds'", param_hint="'--solver'")
    check_out(out)
    check_gantt(gantt)
    from formulations.offline.replay import interval_for

    # Slots coarser than the 60 s decision interval are allowed: offline runs decide every
    # max(60 s, dt) (docs/formulations.md §2.1).
    sim_options(dt, interval_for(dt), None)
    for flag, value in (("--time-limit", time_limit), ("--prove-free", prove_free)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise typer.BadParameter("must be a positive number of seconds", param_hint=f"'{flag}'")
    if lb_tree and prove_free is None:
        raise typer.BadParameter("needs --prove-free S", param_hint="'--lb-tree'")
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.experiments.compare import run_policies

    instance = read_instance(instance_path)
    check_outputs([("--out", out), ("--gantt", gantt)], [instance_path])
    beliefs = beliefs_option(estimator, interference_belief, None, seed=0)
    check_beliefs_fit(beliefs, instance, str(instance_path))
    from formulations.offline import solve_offline
    from sjfbsbf.experiments.gap import GAP_POLICIES

    console = stdout()
    console.print(describe(instance, str(instance_path)) + f"; dt {dt:g} s, solver {solver}")
    from formulations.offline.size import MAX_MODEL_CELLS, ModelTooLarge
    from sjfbsbf.cli.solve_progress import solve_status

    try:
        with solve_status() as progress:
            result = solve_offline(
                instance,
                solver,
                dt=dt,
                time_limit=time_limit,
                seed=seed,
                num_workers=workers,
                max_model_cells=None if force else MAX_MODEL_CELLS,
                colgen=colgen,
                placement_free=prove_free,
                placement_free_lb_tree=lb_tree,
                search=search,
                deterministic=deterministic,
                progress=progress,
            )
    except ModelTooLarge as exc:
        raise InstanceError(f"{exc}; --force builds it anyway", source=str(instance_path)) from None
    info = result.info
    replayed = result.replayed_avg_jct  # the simulator's score of the returned schedule
    tolerance = float(info.get("tolerance_s") or 0.0)

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:,.2f}"

    console.print(f"status              {result.status.value}", markup=False)
    console.print(f"avg JCT (simulated) {seconds(replayed)} s", markup=False)
    console.print(f"lower bound         {seconds(result.bound)} s", markup=False)
    bounds = info.get("bounds", {})
    if bounds:
        parts = [bound_part(name, v) for name, v in bounds.items() if v is not None]
        console.print(f"  best of           {', '.join(parts)}", markup=False)
    source = info.get("source")
    if source is not None:
        model_objective = result.objective  # the model's value of the schedule (None: heuristic)
        origin = "the model" if source == "model" else source.replace("heuristic:", "heuristic ")
        if model_objective is not None:
            origin += f" (model objective {model_objective:,.2f} s)"
        console.print(f"schedule from       {origin}", markup=False)
    start = f" from t = {info['origin_s']:,.0f} s" if "origin_s" in info else ""
    console.print(
        f"[dim]{solver_line(solver, info, time_limit)}; {len(info.get('rounds', []))} model "
        f"solve(s), {result.runtime_s:.2f} s; horizon {info.get('horizon')} slots{start}, model "
        f"tolerance {info.get('tolerance_s', 0.0):.3f} s[/dim]"
    )
    if "reason" in info:
        console.print(f"reason: {info['reason']}", markup=False, soft_wrap=True)
    from sjfbsbf.experiments.gap import write_gap_table
    from sjfbsbf.experiments.gap_interval import gap_rows
    from sjfbsbf.experiments.gap_report import WITHIN_NOTE, within_tolerance

    console.print(
        f"non-preemptive policies simulated at dt {dt:g} s; gap to the optimum in "
        f"[J/(U + tol) − 1, J/(L − tol) − 1] (U the schedule above, L the bound, tol "
        f"{tolerance:.3f} s):",
        markup=False,
    )
    rows = []
    for setting in [None] if beliefs is None or beliefs.is_oracle else [None, beliefs]:
        results = run_policies(
            instance, list(GAP_POLICIES), dt=dt, interval=interval_for(dt), beliefs=setting
        )
        rows += gap_rows(
            instance.name or instance_path.stem,
            result.status.value,
            dt,
            results,
            best=replayed,
            bound=result.bound,
            tolerance=tolerance,
            beliefs="oracle" if setting is None else setting.label(),
        )
    for preemptive in (False, True):
        part = [row for row in rows if row["preemptive"] == preemptive]
        if not part:
            continue
        if preemptive:
            console.print(PREEMPTIVE_NOTE, markup=False, soft_wrap=True)
        console.print(solve_gap_table(part))
    ends = ("gap_low", "avg_jct", "best_avg_jct", "tolerance_s")
    if any(within_tolerance(*(row[k] for k in ends)) for row in rows):
        console.print(f"[dim]{WITHIN_NOTE}[/dim]")
    if beliefs is not None and not beliefs.is_oracle:
        console.print(
            f"beliefs: {beliefs.label()}; the optimum knows the truth. Under 'oracle' the gap is "
            "the price of the heuristic; the difference of the rows is the price of not knowing.",
            markup=False,
            soft_wrap=True,
        )
    if result.status.value != "optimal":
        console.print(
            "[dim]not proven optimal: the intervals run from the best schedule found to the "
            "lower bound[/dim]"
        )
    if out is not None:
        import pandas as pd

        from sjfbsbf.experiments.gap_interval import GAP_COLUMNS

        write_gap_table(pd.DataFrame(rows, columns=list(GAP_COLUMNS)), out)
        console.print(f"wrote {out} ({len(rows)} rows)", markup=False, soft_wrap=True)
    if gantt is not None and result.schedule is not None:
        replayed_run = result.replay(record_segments=True)
        write_gantt(console, replayed_run, gantt, instance.cluster.num_gpus)


@app.command()
def gap(
    suite: Annotated[
        Path | None,
        typer.Option(
            "--suite",
            metavar="DIR",
            help="Directory with instances and optima.json [default: the suite of the checkout, "
            "found from any folder: $SJFBSBF_SUITE, else instances/ beside the package or where "
            "pip installed it from].",
            show_default=False,
        ),
    ] = None,
    out: Annotated[Path | None, OUT_OPTION] = None,
    policies: Annotated[
        str | None,
        typer.Option(
            "--policies",
            metavar="A,B,...",
            help="Comma-separated policy names.",
            show_default="the six of the paper's comparison",
        ),
    ] = None,
    estimator: EstimatorOption = None,
    interference_belief: BeliefOption = None,
) -> None:
    """Per instance and policy: the interval holding average JCT ÷ offline optimum − 1.

    With --estimator / --interference-belief the policies also run under those beliefs (the
    optimum stays clairvoyant), in tables of their own.
    """
    check_out(out)
    from formulations.offline.suite import OPTIMA_FILE, load_suite
    from sjfbsbf.experiments.gap import GAP_POLICIES, gap_summary, gap_table, write_gap_table

    names = list(GAP_POLICIES)
    if policies is not None:
        names = policy_list(policies)

    beliefs = beliefs_option(estimator, interference_belief, None, seed=0)
    if beliefs is not None and beliefs.estimator_spec.name == "user":
        raise typer.BadParameter(
            "the suite's instances carry no estimates", param_hint="'--estimator'"
        )
    if suite is None:
        from formulations.offline.suite_files import suite_dir

        try:
            suite = suite_dir()
        except FileNotFoundError as exc:
            fail(f"sjfbsbf: error: {exc} (or give --suite DIR)", 1)
    if not (suite / OPTIMA_FILE).is_file():
        fail(
            f"sjfbsbf: error: {suite / OPTIMA_FILE}: no such file; --suite names a folder of "
            "instances with their optima (the checkout's instances/, rebuilt by its make_suite.py)",
            1,
        )
    check_outputs([("--out", out)], sorted(suite.glob("*.json")))
    try:
        entries = load_suite(suite)
    except ValueError as exc:
        fail(f"sjfbsbf: error: {exc}", 1)
    table = gap_table(entries, names, beliefs)
    summary = gap_summary(table, names)
    console = stdout()
    for label in dict.fromkeys(table["beliefs"]):
        if label != "oracle":
            console.print(
                f"under beliefs {label} (the optimum knows the truth; the oracle tables above "
                "are the price of the heuristic):",
                markup=False,
                soft_wrap=True,
            )
        part, part_summary = table[table["beliefs"] == label], summary[summary["beliefs"] == label]
        for preemptive in (False, True):
            shown = list(part_summary.loc[part_summary["preemptive"] == preemptive, "policy"])
            if not shown:
                continue
            if preemptive:
                console.print(PREEMPTIVE_NOTE, markup=False, soft_wrap=True)
            console.print(suite_gap_table(part, part_summary, shown, suite, preemptive))
    proven = int((table.drop_duplicates("instance")["status"] == "optimal").sum())
    instances = table["instance"].nunique()
    console.print(
        f"[dim]{proven} of {instances} instances with a proven optimum (U = L within tol); the "
        "others' intervals run from the best schedule found to the lower bound[/dim]"
    )
    if out is not None:
        write_gap_table(table, out)
        console.print(f"wrote {out} ({len(table)} rows)", markup=False, soft_wrap=True)
