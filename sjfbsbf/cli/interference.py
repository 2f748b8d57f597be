"""The ``--interference`` and ``--throughputs`` options of ``sjfbsbf simulate`` and ``compare``.

A preset name of :data:`sjfbsbf.core.presets.INTERFERENCE_PRESETS` (docs/model.md §3, §8);
without ``--interference`` the simulator's default (time slicing) is used, unchanged.
``--throughputs`` takes a path or a dataset reference (default ``data:gavel-throughputs``,
resolved in the per-user cache by :func:`sjfbsbf.workloads.datasets.resolve_data_path`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

InterferenceOption = Annotated[
    str | None,
    typer.Option(
        "--interference",
        metavar="NAME",
        help="Interference model: time-slicing, mps, gavel-fitted (asymmetric, fitted on Gavel's "
        "V100 pairs) or gavel-measured (Gavel's table itself; see --throughputs).",
        show_default="time-slicing",
    ),
]
ThroughputsOption = Annotated[
    str | None,
    typer.Option(
        "--throughputs",
        metavar="FILE",
        help="Gavel's simulation_throughputs.json, for --interference gavel-measured: a path or "
        "a dataset reference (fetched with 'sjfbsbf data fetch gavel-throughputs').",
        show_default="data:gavel-throughputs",
    ),
]


def interference_options(
    name: str | None, throughputs: str | None, *, belief_reads: bool = False
) -> dict[str, Any]:
    """``{"interference": model}`` for a preset name given (empty: the simulator's default).

    ``belief_reads``: ``--interference-belief`` names a preset that reads the table, so
    ``--throughputs`` may be given for it alone.

    Raises
    ------
    typer.BadParameter
        An unknown preset, or ``--throughputs`` with a preset that reads no table.
    InstanceError
        The table's dataset is unknown or not fetched, or its file is missing or malformed.
    """
    from sjfbsbf.core.presets import DATA_PRESETS, INTERFERENCE_PRESETS, make_interference
    from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS, resolve_data_path

    if name is None:
        if throughputs is not None and not belief_reads:
            raise typer.BadParameter(
                "only applies to --interference or --interference-belief gavel-measured",
                param_hint="'--throughputs'",
            )
        return {}
    if name not in INTERFERENCE_PRESETS:
        raise typer.BadParameter(
            f"unknown interference model {name!r} (choose from {', '.join(INTERFERENCE_PRESETS)})",
            param_hint="'--interference'",
        )
    if throughputs is not None and name not in DATA_PRESETS and not belief_reads:
        raise typer.BadParameter(
            f"only applies to --interference {', '.join(sorted(DATA_PRESETS))}, not {name}",
            param_hint="'--throughputs'",
        )
    table = None
    if name in DATA_PRESETS:  # (a belief's table is resolved by sjfbsbf.cli.beliefs)
        table = resolve_data_path(DEFAULT_THROUGHPUTS if throughputs is None else throughputs)
    return {"interference": make_interference(name, throughputs=table)}


def print_fallbacks(console: Console, options: dict[str, Any]) -> None:
    """State the measured model's fallback slowdown, if any pair used it."""
    summary = getattr(options.get("interference"), "fallback_summary", None)
    line = summary() if summary is not None else None
    if line:
        console.print(line, markup=False, soft_wrap=True)
