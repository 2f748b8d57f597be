"""The ``--interference`` and ``--throughputs`` options of ``sjfbsbf simulate`` and ``compare``.

A preset name of :data:`sjfbsbf.core.presets.INTERFERENCE_PRESETS` (docs/model.md §3, §8);
without ``--interference`` the simulator's default (time slicing) is used, unchanged.
"""

from __future__ import annotations

from pathlib import Path
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
    Path | None,
    typer.Option(
        "--throughputs",
        metavar="FILE",
        help="Gavel's simulation_throughputs.json, for --interference gavel-measured.",
        show_default="../shared/data/gavel/simulation_throughputs.json",
    ),
]


def interference_options(name: str | None, throughputs: Path | None) -> dict[str, Any]:
    """``{"interference": model}`` for a preset name given (empty: the simulator's default)."""
    from sjfbsbf.core.presets import DATA_PRESETS, INTERFERENCE_PRESETS, make_interference

    if name is None:
        if throughputs is not None:
            raise typer.BadParameter(
                "only applies to --interference gavel-measured", param_hint="'--throughputs'"
            )
        return {}
    if name not in INTERFERENCE_PRESETS:
        raise typer.BadParameter(
            f"unknown interference model {name!r} (choose from {', '.join(INTERFERENCE_PRESETS)})",
            param_hint="'--interference'",
        )
    if throughputs is not None and name not in DATA_PRESETS:
        raise typer.BadParameter(
            f"only applies to --interference {', '.join(sorted(DATA_PRESETS))}, not {name}",
            param_hint="'--throughputs'",
        )
    return {"interference": make_interference(name, throughputs=throughputs)}


def print_fallbacks(console: Console, options: dict[str, Any]) -> None:
    """State the measured model's fallback slowdown, if any pair used it."""
    summary = getattr(options.get("interference"), "fallback_summary", None)
    line = summary() if summary is not None else None
    if line:
        console.print(line, markup=False, soft_wrap=True)
