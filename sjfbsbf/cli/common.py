"""The ``sjfbsbf`` command group and what its commands share: options, one-line failures, output.

The commands are in :mod:`sjfbsbf.cli.run` (``simulate``, ``compare``),
:mod:`sjfbsbf.cli.policies` and :mod:`sjfbsbf.cli.research` (``sweep``, ``solve``, ``gap``), and
others; importing :mod:`sjfbsbf.cli`
registers them all on :data:`app`.

Every expected failure (a missing or malformed instance file, an unknown policy, a bad option
value, an unwritable output path) ends as exactly one line on stderr and a non-zero exit code:
2 for usage errors, 1 for bad data or files. One wrapper, :class:`_Cli`, does that for every
command. Unexpected exceptions (bugs) keep their traceback.

Start-up stays light: the simulator, pandas and matplotlib are imported inside the commands that
need them, and solver packages (``formulations``: PuLP, OR-Tools) only inside solver commands.
"""

from __future__ import annotations

import inspect
import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from sjfbsbf.core.errors import (
    BudgetSpent,
    InstanceError,
    Interrupted,
    SweepError,
    SweepRunsFailed,
    escape,
)

if TYPE_CHECKING:
    from rich.console import Console

    from sjfbsbf.core.model import Instance
    from sjfbsbf.experiments.compare import PolicyProgress

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
        import signal
        import threading
        import warnings

        warnings.showwarning = _one_line_warning  # e.g. an unverified dataset, on every use
        if threading.current_thread() is threading.main_thread():
            # SIGINT and SIGTERM become Interrupted (not KeyboardInterrupt, which click would
            # turn into a silent exit code): one line, exit 128 + the signal.
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, _interrupt)
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
            fail(line, exc.exit_code)
        except (InstanceError, SweepError, SweepRunsFailed) as exc:
            fail(f"sjfbsbf: error: {exc}", EXIT_DATA_ERROR)
        except BudgetSpent as exc:
            fail(f"sjfbsbf: error: {escape(str(exc))}", EXIT_DATA_ERROR)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename is not None else ""
            fail(f"sjfbsbf: error: {where}{exc.strerror or exc}", EXIT_DATA_ERROR)
        except (typer.Abort, KeyboardInterrupt):
            fail("sjfbsbf: interrupted", 130)
        except Interrupted as exc:  # after a sweep's workers were stopped
            detail = f": {exc.detail}" if exc.detail else ""
            fail(f"sjfbsbf: interrupted (signal {exc.signum}){detail}", 128 + exc.signum)
        if not standalone_mode:
            return value
        sys.exit(value if isinstance(value, int) else 0)


def _interrupt(signum: int, frame: object) -> None:
    """The command line's SIGINT and SIGTERM handler."""
    raise Interrupted(signum)


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Show a warning as one line on stderr: ``sjfbsbf: warning: MESSAGE``."""
    del category, filename, lineno, file, line
    text = " ".join(str(message).split())
    sys.stderr.write(f"sjfbsbf: warning: {escape(text)}\n")


def fail(message: str, code: int) -> NoReturn:
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


def sim_options(
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
    from sjfbsbf.sim.ticks import DEFAULT_INTERVAL

    limit = DEFAULT_INTERVAL if interval is None else interval
    if dt is not None and dt > limit:
        raise typer.BadParameter(
            f"must be at most the decision interval ({limit:g} s), got {dt:g}",
            param_hint="'--dt'",
        )
    return options


OptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-o",
        metavar="KEY=VALUE",
        help="A policy option, parsed by its type (e.g. -o wait_aware=true -o threshold=0.05); "
        "repeat for several. With several policies, POLICY:KEY=VALUE targets one; KEY=VALUE "
        "applies to every policy that has the option.",
    ),
]


def policy_options(
    names: list[str], texts: list[str] | None, notes: list[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Options per policy from ``-o`` texts (:data:`OptionsOption`); usage errors in one line.

    With several policies, each ``KEY=VALUE`` without a ``POLICY:`` prefix appends to ``notes``
    the policies it was applied to (those that have the option).
    """
    from sjfbsbf.policies import policy_factory
    from sjfbsbf.policies.options import OptionError, parse_options

    given: dict[str, list[str]] = {name: [] for name in names}
    for text in texts or []:
        target, sep, rest = text.partition(":")
        if sep and target in given and "=" not in target:
            given[target].append(rest)
            continue
        key = text.partition("=")[0].strip()
        takers = [n for n in names if key in inspect.signature(policy_factory(n)).parameters]
        for name in takers or names[:1]:  # no taker: the first policy reports the unknown key
            given[name].append(text)
        if notes is not None and takers and len(names) > 1:
            others = [n for n in names if n not in takers]
            rest = f" (not {', '.join(others)}: no such option)" if others else ""
            notes.append(f"-o {text} applies to {', '.join(takers)}{rest}")
    out: dict[str, dict[str, Any]] = {}
    for name, option_texts in given.items():
        try:
            out[name] = parse_options(name, option_texts)
        except OptionError as exc:
            raise typer.BadParameter(f"policy {name!r}: {exc}", param_hint="'-o'") from None
    return out


def registered_policies() -> list[str]:
    """:func:`~sjfbsbf.policies.policy_names`, failing in one line on a broken plugin set."""
    from sjfbsbf.policies import policy_names

    try:
        return policy_names()
    except ValueError as exc:  # two plugins, or a plugin and a policy, share a name
        fail(str(exc), EXIT_DATA_ERROR)


def check_policies(names: list[str], option: str) -> list[str]:
    """Fail unless every name is a registered policy that loads."""
    from sjfbsbf.policies import needs_options, policy_factory
    from sjfbsbf.policies.registry import unknown_policy

    registered = registered_policies()
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
                unknown_policy(name, list(registered)), param_hint=f"'{option}'"
            )
        try:
            policy_factory(name)  # a plugin's module is imported here
        except ValueError as exc:
            fail(str(exc), EXIT_DATA_ERROR)
    return names


def policy_list(text: str, option: str = "--policies") -> list[str]:
    """The policy names of a comma-separated option value (repeats dropped, order kept), each
    checked by :func:`check_policies`; fails on an empty list."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise typer.BadParameter("no policy name given", param_hint=f"'{option}'")
    return check_policies(names, option)


def check_out_dir(out: Path, option: str = "--out") -> None:
    """Refuse, before anything runs, an output folder that cannot be made or written, without
    making it (an interrupted or failed command leaves no empty folder behind)."""
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} exists and is not a directory", param_hint=f"'{option}'")
    ancestor = out
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise typer.BadParameter(f"{ancestor} is not a directory", param_hint=f"'{option}'")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise typer.BadParameter(f"{ancestor} is not writable", param_hint=f"'{option}'")


def check_outputs(
    outputs: Sequence[tuple[str, Path | None]], inputs: Sequence[str | os.PathLike[str] | None]
) -> None:
    """Before anything runs: refuse an output that is not ours to replace (a link, a device, a
    FIFO, a directory, a file with other hard links: :func:`~sjfbsbf.core.atomic.check_output`)
    or that is one of the command's inputs (docs/security.md), or that another output of the
    command also names, each in one line.

    Parameters
    ----------
    outputs
        ``(option, path)`` pairs, e.g. ``("--jobs-csv", Path("x.csv"))``; ``None`` paths skipped.
    inputs
        The files the command reads (instance, throughput table, ...); ``None`` skipped.
    """
    from sjfbsbf.core.atomic import check_output

    readable = [Path(p) for p in inputs if p is not None and Path(p).exists()]
    taken: dict[str, str] = {}  # resolved path -> the option that writes it
    for option, path in outputs:
        if path is None:
            continue
        check_output(path)
        resolved = os.path.realpath(path)
        if resolved in taken:  # the second write would replace the first
            raise typer.BadParameter(
                f"{path} is also the file of {taken[resolved]}; give each output its own file",
                param_hint=f"'{option}'",
            )
        taken[resolved] = option
        if not path.exists():
            continue
        for given in readable:
            if os.path.samefile(path, given):
                raise typer.BadParameter(
                    f"{path} is also an input of this command ({given}); refusing to replace it",
                    param_hint=f"'{option}'",
                )


def stdout() -> Console:
    from rich.console import Console

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, _PIPE_WIDTH)
    return console


@contextmanager
def progress_bar() -> Iterator[PolicyProgress | None]:
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


def describe(instance: Instance, source: str) -> str:
    from rich.markup import escape

    cluster = instance.cluster
    name = escape(instance.name or source)
    return (
        f"[bold]{name}[/bold]: {instance.num_jobs} jobs on {cluster.nodes} × "
        f"{cluster.gpus_per_node} GPUs ({cluster.gpu_mem_gb:g} GB each)"
    )


# -- commands ------------------------------------------------------------------------------------


#: ``--out`` of ``solve`` and ``gap``.
OUT_OPTION = typer.Option(
    "--out",
    metavar="OUT.csv|OUT.json",
    help="Also write the gap table (one row per instance and policy) as CSV or JSON.",
    show_default=False,
)
#: ``--search`` of ``solve``: the offline incumbent search (docs/formulations.md §2.2).
SEARCH_OPTION = typer.Option(
    "--search",
    min=0,
    metavar="N",
    help="Simulations of the incumbent search (policy variants, priority orders) before the "
    "model [default: 300 for bounds, 0 for the model].",
    show_default=False,
)
