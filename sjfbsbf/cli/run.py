"""``sjfbsbf simulate``, ``compare`` and ``policies``: run policies on one instance and report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sjfbsbf.cli.beliefs import (
    BeliefOption,
    EstimatorOption,
    belief_reads_table,
    beliefs_option,
    check_beliefs_fit,
)
from sjfbsbf.cli.interference import (
    InterferenceOption,
    ThroughputsOption,
    interference_options,
    print_fallbacks,
)

if TYPE_CHECKING:
    from sjfbsbf.core.model import Instance

from sjfbsbf.cli.common import (
    DtOption,
    IntervalOption,
    OptionsOption,
    RestartOption,
    app,
    check_out_dir,
    check_outputs,
    check_policies,
    describe,
    policy_list,
    policy_options,
    progress_bar,
    registered_policies,
    sim_options,
    stdout,
)
from sjfbsbf.cli.compare_seeds import compare_seeds, seed_range
from sjfbsbf.cli.gantt import GANTT_OPTION, check_gantt, write_gantt
from sjfbsbf.cli.run_checks import check_dt, check_vcs, warn_budget
from sjfbsbf.cli.tables import compare_table as rich_compare_table
from sjfbsbf.cli.tables import metrics_table

#: Columns of ``simulate --rounds-csv``: exact-round's per-round log (formulations/policy.py):
#: time (s), pending jobs and hosts of the round, idle GPUs, solver status and solve time (s),
#: greedy and applied ("exact") scores (s), the solver's re-scored objective, exact − greedy,
#: the score tolerance, and whether the greedy's assignment is feasible.
ROUND_COLUMNS = (
    "time",
    "jobs",
    "hosts",
    "idle",
    "status",
    "runtime_s",
    "greedy",
    "exact",
    "solver_objective",
    "gap",
    "tolerance",
    "greedy_feasible",
)


@app.command()
def simulate(
    instance_path: Annotated[
        Path,
        typer.Argument(
            metavar="INSTANCE.json",
            help="Instance file (schema sjfbsbf.instance/1).",
            show_default=False,
        ),
    ],
    policy: Annotated[
        str,
        typer.Option(
            "--policy", "-p", help="Policy name (see 'sjfbsbf policies').", show_default=False
        ),
    ],
    dt: DtOption = None,
    interval: IntervalOption = None,
    restart_overhead: RestartOption = None,
    interference: InterferenceOption = None,
    throughputs: ThroughputsOption = None,
    estimator: EstimatorOption = None,
    interference_belief: BeliefOption = None,
    option: OptionsOption = None,
    jobs_csv: Annotated[
        Path | None,
        typer.Option(
            "--jobs-csv",
            metavar="OUT.csv",
            help="Write the per-job table (job_id, arrival, start, finish, jct, gpus, shared_s, "
            "sub_batch, ...) as CSV.",
        ),
    ] = None,
    rounds_csv: Annotated[
        Path | None,
        typer.Option(
            "--rounds-csv",
            metavar="OUT.csv",
            help="exact-round only: write one row per round (time, jobs, hosts, idle, greedy and "
            "exact score, gap, status, solve time, ...) as CSV.",
        ),
    ] = None,
    ticks_csv: Annotated[
        Path | None,
        typer.Option(
            "--ticks-csv",
            metavar="OUT.csv",
            help="Write one row per processed tick (time, duration, busy_gpus, shared_gpus, "
            "mem_used_gb, running, pending) as CSV.",
        ),
    ] = None,
    placements_csv: Annotated[
        Path | None,
        typer.Option(
            "--placements-csv",
            metavar="OUT.csv",
            help="Write one row per job and stretch on the same GPUs (job_id, start, end, gpus, "
            "accumulation, sub_batch) as CSV.",
        ),
    ] = None,
    vc_csv: Annotated[
        Path | None,
        typer.Option(
            "--vc-csv",
            metavar="OUT.csv",
            help="Write one row per virtual cluster (vc, jobs, avg_jct, avg_stretch, "
            "avg_queueing_delay, max_ftf) as CSV; the instance's jobs must name VCs.",
        ),
    ] = None,
    gantt: Annotated[Path | None, GANTT_OPTION] = None,
) -> None:
    """Run one policy on an instance file and print its metrics."""
    options: dict[str, Any] = dict(sim_options(dt, interval, restart_overhead))
    check_policies([policy], "--policy")
    if rounds_csv is not None and policy != "exact-round":
        raise typer.BadParameter(
            f"only exact-round logs its rounds, not {policy!r}", param_hint="'--rounds-csv'"
        )
    chosen = policy_options([policy], option)
    check_gantt(gantt)
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.experiments.compare import run_policies

    instance = read_instance(instance_path)
    check_dt(instance, options)
    warn_budget([policy], chosen, instance.num_jobs)
    beliefs = beliefs_option(estimator, interference_belief, throughputs, seed=0)
    check_beliefs_fit(beliefs, instance, str(instance_path))
    options.update(
        interference_options(
            interference, throughputs, belief_reads=belief_reads_table(interference_belief)
        )
    )
    if beliefs is not None:
        options["beliefs"] = beliefs
    tables = [("--jobs-csv", jobs_csv), ("--ticks-csv", ticks_csv)]
    tables += [("--placements-csv", placements_csv), ("--vc-csv", vc_csv)]
    if vc_csv is not None:
        check_vcs(instance, str(instance_path))
    check_outputs(
        [*tables, ("--rounds-csv", rounds_csv), ("--gantt", gantt)], [instance_path, throughputs]
    )
    for out in (jobs_csv, ticks_csv, placements_csv, rounds_csv, vc_csv):
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)  # fail early on an unusable path
    console = stdout()
    console.print(describe(instance, str(instance_path)) + f"; policy {policy}")
    if beliefs is not None:
        console.print(f"beliefs: {beliefs.label()}", markup=False, soft_wrap=True)
    started = time.perf_counter()
    with progress_bar() as progress:
        (result,) = run_policies(
            instance, [policy], progress=progress, policy_options=chosen, **options
        )
    elapsed = time.perf_counter() - started
    console.print(metrics_table(result))
    console.print(
        f"[dim]{result.params['decisions']} decisions, {result.params['ticks_processed']} ticks "
        f"processed, {elapsed:.2f} s[/dim]"
    )
    print_fallbacks(console, options)
    from sjfbsbf.core.atomic import write_text_atomic
    from sjfbsbf.experiments.csv_out import csv_text
    from sjfbsbf.sim.fairness import vc_table

    for path, frame, unit in (
        (jobs_csv, result.jobs, "jobs"),
        (ticks_csv, result.ticks, "ticks"),
        (placements_csv, result.placements, "placements"),
        (vc_csv, vc_table(result.jobs), "VCs"),
    ):
        if path is not None and frame is not None:  # placements are always recorded here
            write_text_atomic(path, csv_text(frame))
            console.print(f"wrote {path} ({len(frame)} {unit})", markup=False, soft_wrap=True)
    if rounds_csv is not None:
        import pandas as pd

        rounds = pd.DataFrame(result.stats.get("round_log", []), columns=ROUND_COLUMNS)
        write_text_atomic(rounds_csv, csv_text(rounds))
        console.print(f"wrote {rounds_csv} ({len(rounds)} rounds)", markup=False, soft_wrap=True)
    if gantt is not None:
        write_gantt(console, result, gantt, instance.cluster.num_gpus)


@app.command()
def compare(
    instance_path: Annotated[
        Path | None,
        typer.Argument(
            metavar="INSTANCE.json",
            help="Instance file; without it, the embedded default workload (200 jobs, 32 GPUs).",
            show_default=False,
        ),
    ] = None,
    policies: Annotated[
        str | None,
        typer.Option(
            "--policies",
            metavar="A,B,...",
            help="Comma-separated policy names.",
            show_default="all registered",
        ),
    ] = None,
    out: Annotated[
        Path,
        typer.Option("--out", metavar="DIR", help="Directory for compare.png and compare.csv."),
    ] = Path("out"),
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            metavar="N",
            help="Seed of the default workload (only without INSTANCE.json).",
            show_default="0",
        ),
    ] = None,
    seeds: Annotated[
        str | None,
        typer.Option(
            "--seeds",
            metavar="A-B",
            help="Run the default workload of every seed A…B and print each policy's mean "
            "average JCT with a 95% paired bootstrap interval (only without INSTANCE.json).",
            show_default=False,
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="POLICY",
            help="With --seeds: also print each policy's mean ÷ this policy's, with its 95% "
            "paired bootstrap interval.",
            show_default=False,
        ),
    ] = None,
    dt: DtOption = None,
    interval: IntervalOption = None,
    restart_overhead: RestartOption = None,
    interference: InterferenceOption = None,
    throughputs: ThroughputsOption = None,
    estimator: EstimatorOption = None,
    interference_belief: BeliefOption = None,
    option: OptionsOption = None,
) -> None:
    """Run several policies on one instance; print a table, write DIR/compare.png and .csv.

    With --seeds, on the default workload of each seed; the table gives means over seeds with
    95% paired bootstrap intervals (and ratios to --baseline), DIR/compare-runs.csv every run.
    """
    options: dict[str, Any] = dict(sim_options(dt, interval, restart_overhead))
    from sjfbsbf.policies import policy_names

    if policies is None:
        registered_policies()  # a broken plugin set fails here, in one line
        names = policy_names(defaults_only=True)
    else:
        names = policy_list(policies)
    notes: list[str] = []
    chosen = policy_options(names, option, notes)
    for note in notes:  # which policies an option without a POLICY: prefix went to
        stdout().print(note, markup=False, soft_wrap=True, style="dim")
    if instance_path is not None and seed is not None:
        raise typer.BadParameter(
            "only applies to the default workload, not to an instance file", param_hint="'--seed'"
        )
    seed_list = seed_range(seeds, seed, instance_path, baseline, names)
    beliefs = beliefs_option(estimator, interference_belief, throughputs, seed=seed or 0)
    belief_reads = belief_reads_table(interference_belief)
    if seed_list is not None:
        options.update(interference_options(interference, throughputs, belief_reads=belief_reads))
        compare_seeds(names, seed_list, baseline, out, beliefs, chosen, options)
        return

    from sjfbsbf.core.atomic import write_text_atomic
    from sjfbsbf.experiments.compare import run_policies
    from sjfbsbf.experiments.csv_out import csv_text
    from sjfbsbf.experiments.report import compare_table, plot_comparison
    from sjfbsbf.sim.metrics import FAIRNESS_METRICS

    instance = _load_or_default(instance_path, seed)
    check_dt(instance, options)
    warn_budget(names, chosen, instance.num_jobs)
    check_beliefs_fit(beliefs, instance, str(instance_path or "default workload"))
    options.update(interference_options(interference, throughputs, belief_reads=belief_reads))
    if beliefs is not None:
        options["beliefs"] = beliefs
    check_out_dir(out)  # fail on an unusable DIR before simulating (made when written)
    has_vcs = any(job.vc is not None for job in instance.jobs)
    outputs = ["compare.csv", "compare.png", *(["compare-vc.csv"] if has_vcs else [])]
    check_outputs([("--out", out / name) for name in outputs], [instance_path, throughputs])
    source = str(instance_path) if instance_path is not None else "default workload"
    console = stdout()
    console.print(describe(instance, source))
    if beliefs is not None:
        console.print(f"beliefs: {beliefs.label()}", markup=False, soft_wrap=True)
    started = time.perf_counter()
    with progress_bar() as progress:
        results = run_policies(instance, names, progress=progress, policy_options=chosen, **options)
    elapsed = time.perf_counter() - started
    table = compare_table(results)
    title = instance.name or source
    fairness = [key for key in FAIRNESS_METRICS if key in table.columns]
    console.print(rich_compare_table(table.drop(columns=fairness), f"Policy comparison: {title}"))
    console.print(rich_compare_table(table[fairness], f"Stretch and fairness: {title}"))
    plural = "policy" if len(names) == 1 else "policies"
    console.print(f"[dim]{len(names)} {plural} simulated in {elapsed:.2f} s[/dim]")
    print_fallbacks(console, options)

    csv_path, png_path = out / "compare.csv", out / "compare.png"
    write_text_atomic(csv_path, csv_text(table, index=True))
    plot_comparison(table, png_path, instance=instance.name or source)
    written = [str(csv_path), str(png_path)]
    if has_vcs:
        from sjfbsbf.experiments.compare import vc_comparison

        write_text_atomic(out / "compare-vc.csv", csv_text(vc_comparison(results)))
        written.append(str(out / "compare-vc.csv"))
    console.print(
        f"wrote {', '.join(written[:-1])} and {written[-1]}", markup=False, soft_wrap=True
    )


# -- helpers of the commands ---------------------------------------------------------------------
def _load_or_default(path: Path | None, seed: int | None) -> Instance:
    if path is not None:
        from sjfbsbf.core.instance_io import read_instance

        return read_instance(path)
    from sjfbsbf.workloads import default_workload

    return default_workload(0 if seed is None else seed)
