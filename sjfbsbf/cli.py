"""The ``sjfbsbf`` command line: ``simulate``, ``compare``, ``policies`` (``sweep``, ``solve`` and
``gap`` are in :mod:`sjfbsbf.cli_research`).

Every expected failure (a missing or malformed instance file, an unknown policy, a bad option
value, an unwritable output path) ends as exactly one line on stderr and a non-zero exit code:
2 for usage errors, 1 for bad data or files. One wrapper, :class:`_Cli`, does that for every
command. Unexpected exceptions (bugs) keep their traceback.

Start-up stays light: the simulator, pandas and matplotlib are imported inside the commands that
need them, and solver packages (``formulations``: PuLP, OR-Tools) only inside solver commands.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import typer
from typer.core import TyperGroup

from sjfbsbf.cli_interference import (
    InterferenceOption,
    ThroughputsOption,
    interference_options,
    print_fallbacks,
)
from sjfbsbf.errors import InstanceError, Interrupted, SweepError, SweepRunsFailed, escape

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from sjfbsbf.compare import PolicyProgress
    from sjfbsbf.model import Instance
    from sjfbsbf.result import SimResult

#: Exit code for bad data or files (usage errors exit with 2, as in click).
EXIT_DATA_ERROR = 1
#: Console width when output is not a terminal (so tables are never cropped in files and logs).
_PIPE_WIDTH = 160


class _Cli(TyperGroup):
    """The command group; turns every expected failure into one line on stderr.

    Typer's own handling prints usage errors as a multi-line panel; here the group runs
    non-standalone and reports each failure itself. Both the console script and
    :class:`typer.testing.CliRunner` go through :meth:`main`.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the command line; on an expected failure print one line and exit non-zero."""
        try:
            value = super().main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except typer.TyperException as exc:  # click's errors: typer 0.29 vendors click on it
            context = getattr(exc, "ctx", None)  # set on usage errors
            if context is not None:
                where = context.command_path
                line = f"{where}: error: {exc.format_message()} (see '{where} --help')"
            else:
                line = f"sjfbsbf: error: {exc.format_message()}"
            _fail(line, exc.exit_code)
        except (InstanceError, SweepError, SweepRunsFailed) as exc:
            _fail(f"sjfbsbf: error: {exc}", EXIT_DATA_ERROR)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename is not None else ""
            _fail(f"sjfbsbf: error: {where}{exc.strerror or exc}", EXIT_DATA_ERROR)
        except (typer.Abort, KeyboardInterrupt):
            _fail("sjfbsbf: interrupted", 130)
        except Interrupted as exc:  # SIGTERM during a sweep, after its workers were stopped
            _fail(f"sjfbsbf: interrupted (signal {exc.signum})", 128 + exc.signum)
        if not standalone_mode:
            return value
        sys.exit(value if isinstance(value, int) else 0)


def _fail(message: str, code: int) -> NoReturn:
    """Print ``message`` as one line on stderr (non-printables escaped); exit with ``code``."""
    line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    sys.stderr.write(escape(line) + "\n")
    sys.stderr.flush()
    sys.exit(code)


app = typer.Typer(
    cls=_Cli,
    name="sjfbsbf",
    help="Simulate and compare schedulers of deep-learning training jobs on shared GPU clusters.",
    add_completion=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"sjfbsbf {version('sjfbsbf')}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Simulate and compare schedulers of deep-learning training jobs on shared GPU clusters."""


# -- shared options ------------------------------------------------------------------------------
DtOption = Annotated[
    float | None,
    typer.Option("--dt", metavar="S", help="Tick length in seconds.", show_default="1"),
]
IntervalOption = Annotated[
    float | None,
    typer.Option(
        "--interval",
        metavar="S",
        help="The policy is also asked every S seconds while jobs wait.",
        show_default="60",
    ),
]
RestartOption = Annotated[
    float | None,
    typer.Option(
        "--restart-overhead",
        metavar="S",
        help="Seconds without progress after a preempted job resumes.",
        show_default="30",
    ),
]


def _sim_options(
    dt: float | None, interval: float | None, restart_overhead: float | None
) -> dict[str, float]:
    """Check the simulation options; keep those given (the simulator has the defaults).

    ``--dt`` must also be at most ``--interval`` (60 s unless given; docs/model.md §4).
    """
    options: dict[str, float] = {}
    for name, value, positive in (
        ("dt", dt, True),
        ("interval", interval, True),
        ("restart-overhead", restart_overhead, False),
    ):
        if value is None:
            continue
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            bound = "positive" if positive else "non-negative"
            raise typer.BadParameter(
                f"must be a {bound} number of seconds, got {value}", param_hint=f"'--{name}'"
            )
        options[name.replace("-", "_")] = value
    from sjfbsbf.ticks import DEFAULT_INTERVAL

    limit = DEFAULT_INTERVAL if interval is None else interval
    if dt is not None and dt > limit:
        raise typer.BadParameter(
            f"must be at most the decision interval ({limit:g} s), got {dt:g}",
            param_hint="'--dt'",
        )
    return options


def _check_policies(names: list[str], option: str) -> list[str]:
    """Fail unless every name is a registered policy."""
    from sjfbsbf.policies import needs_options, policy_names

    registered = policy_names()
    for name in names:
        if needs_options(name):
            raise typer.BadParameter(
                f"policy {name!r} replays a given schedule and cannot run on an instance alone "
                "(from Python: make_policy('planned', schedule=...); `sjfbsbf solve` replays "
                "its optimum)",
                param_hint=f"'{option}'",
            )
        if name not in registered:
            raise typer.BadParameter(
                f"unknown policy {name!r} (registered: {', '.join(registered)})",
                param_hint=f"'{option}'",
            )
    return names


def _stdout() -> Console:
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, _PIPE_WIDTH)
    return console


@contextmanager
def _progress_bar() -> Iterator[PolicyProgress | None]:
    """A per-policy progress bar over finished jobs on stderr (only on a terminal; transient)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    columns = (
        TextColumn("{task.description:>12}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("jobs"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def update(policy: str, finished: int, total: int) -> None:
            if policy not in tasks:
                tasks[policy] = bar.add_task(policy, total=total)
            bar.update(tasks[policy], completed=finished)

        yield update


def _describe(instance: Instance, source: str) -> str:
    from rich.markup import escape

    cluster = instance.cluster
    name = escape(instance.name or source)
    return (
        f"[bold]{name}[/bold]: {instance.num_jobs} jobs on {cluster.nodes} × "
        f"{cluster.gpus_per_node} GPUs ({cluster.gpu_mem_gb:g} GB each)"
    )


# -- commands ------------------------------------------------------------------------------------
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
    jobs_csv: Annotated[
        Path | None,
        typer.Option(
            "--jobs-csv",
            metavar="OUT.csv",
            help="Write the per-job table (job_id, arrival, start, finish, jct, gpus, shared_s, "
            "sub_batch, ...) as CSV.",
        ),
    ] = None,
) -> None:
    """Run one policy on an instance file and print its metrics."""
    options: dict[str, Any] = dict(_sim_options(dt, interval, restart_overhead))
    _check_policies([policy], "--policy")
    from sjfbsbf.compare import run_policies
    from sjfbsbf.instance_io import read_instance

    instance = read_instance(instance_path)
    options.update(interference_options(interference, throughputs))
    if jobs_csv is not None:
        jobs_csv.parent.mkdir(parents=True, exist_ok=True)  # fail early on an unusable path
    console = _stdout()
    console.print(_describe(instance, str(instance_path)) + f"; policy {policy}")
    started = time.perf_counter()
    with _progress_bar() as progress:
        (result,) = run_policies(instance, [policy], progress=progress, **options)
    elapsed = time.perf_counter() - started
    console.print(_metrics_table(result))
    console.print(
        f"[dim]{result.params['decisions']} decisions, {result.params['ticks_processed']} ticks "
        f"processed, {elapsed:.2f} s[/dim]"
    )
    print_fallbacks(console, options)
    if jobs_csv is not None:
        from sjfbsbf.atomic import write_text_atomic

        write_text_atomic(jobs_csv, result.jobs.to_csv(index=False))
        console.print(f"wrote {jobs_csv} ({len(result.jobs)} jobs)", markup=False, soft_wrap=True)


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
    dt: DtOption = None,
    interval: IntervalOption = None,
    restart_overhead: RestartOption = None,
    interference: InterferenceOption = None,
    throughputs: ThroughputsOption = None,
) -> None:
    """Run several policies on one instance; print a table, write DIR/compare.png and .csv."""
    options: dict[str, Any] = dict(_sim_options(dt, interval, restart_overhead))
    from sjfbsbf.policies import policy_names

    if policies is None:
        names = policy_names(defaults_only=True)
    else:
        names = list(dict.fromkeys(n.strip() for n in policies.split(",") if n.strip()))
        if not names:
            raise typer.BadParameter("no policy name given", param_hint="'--policies'")
        _check_policies(names, "--policies")
    if instance_path is not None and seed is not None:
        raise typer.BadParameter(
            "only applies to the default workload, not to an instance file", param_hint="'--seed'"
        )

    from sjfbsbf.atomic import atomic_path
    from sjfbsbf.compare import run_policies
    from sjfbsbf.report import compare_table, plot_comparison

    instance = _load_or_default(instance_path, seed)
    options.update(interference_options(interference, throughputs))
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} exists and is not a directory", param_hint="'--out'")
    out.mkdir(parents=True, exist_ok=True)  # fail on an unusable DIR before simulating
    source = str(instance_path) if instance_path is not None else "default workload"
    console = _stdout()
    console.print(_describe(instance, source))
    started = time.perf_counter()
    with _progress_bar() as progress:
        results = run_policies(instance, names, progress=progress, **options)
    elapsed = time.perf_counter() - started
    table = compare_table(results)
    console.print(_compare_table(table, instance.name or source))
    plural = "policy" if len(names) == 1 else "policies"
    console.print(f"[dim]{len(names)} {plural} simulated in {elapsed:.2f} s[/dim]")
    print_fallbacks(console, options)

    csv_path, png_path = out / "compare.csv", out / "compare.png"
    with atomic_path(csv_path) as tmp:
        table.to_csv(tmp)
    plot_comparison(table, png_path, instance=instance.name or source)
    console.print(f"wrote {csv_path} and {png_path}", markup=False, soft_wrap=True)


@app.command("policies")
def list_policies() -> None:
    """List the registered policies."""
    from rich.markup import escape
    from rich.table import Table

    from sjfbsbf.policies import make_policy, policy_names

    table = Table(box=None, pad_edge=False)
    for header in ("policy", "preemptive", "sharing", "description"):
        table.add_column(header)
    for name in policy_names():  # each runs on an instance alone, with default options
        policy: Any = make_policy(name)
        doc = (type(policy).__doc__ or "").strip().splitlines()
        table.add_row(
            escape(name),
            _yes_no(getattr(policy, "preemptive", None)),
            _yes_no(getattr(policy, "sharing", None)),
            escape(doc[0]) if doc else "",
        )
    console = _stdout()
    console.print(table)
    console.print(
        "[dim]planned (replays a given schedule, e.g. an offline optimum) is used by "
        "`sjfbsbf solve` and from Python; it cannot run on an instance alone.[/dim]"
    )


def _yes_no(flag: object) -> str:
    return "" if flag is None else ("yes" if flag else "no")


# -- helpers of the commands ---------------------------------------------------------------------
def _load_or_default(path: Path | None, seed: int | None) -> Instance:
    if path is not None:
        from sjfbsbf.instance_io import read_instance

        return read_instance(path)
    from sjfbsbf.workloads import default_workload

    return default_workload(0 if seed is None else seed)


def _metrics_table(result: SimResult) -> Table:
    from rich.table import Table

    from sjfbsbf.report import compare_table, format_metric, metric_label

    row = compare_table([result]).iloc[0]
    table = Table(box=None, pad_edge=False, show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in row.items():
        table.add_row(metric_label(str(key)), format_metric(str(key), float(value)))
    return table


def _compare_table(frame: pd.DataFrame, title: str) -> Table:
    """A rich table of :func:`sjfbsbf.report.compare_table`; the best time per column in bold."""
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from sjfbsbf.report import FRACTION_METRICS, format_metric, metric_label

    best = {key: frame[key].min() for key in frame.columns if key not in FRACTION_METRICS}
    rows = []
    for policy, row in frame.iterrows():
        cells = [escape(str(policy))]
        for key in frame.columns:
            text = format_metric(key, float(row[key]))
            if key in best and len(frame) > 1 and row[key] == best[key]:
                text = f"[bold]{text}[/bold]"
            cells.append(text)
        rows.append(cells)
    table = Table(
        title=f"Policy comparison: {escape(title)}",
        caption="times in seconds; lowest time per column in bold",
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


# The sweep and solver commands live in their own module; importing it registers them on ``app``.
from sjfbsbf import cli_research  # noqa: E402, F401
