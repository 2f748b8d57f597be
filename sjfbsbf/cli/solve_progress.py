"""``sjfbsbf solve``'s progress line on stderr while it solves: phase, best schedule, bound,
elapsed time (rich; only on a terminal, and gone when the solve ends)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from formulations.offline.observe import SolveProgress


def describe_progress(progress: SolveProgress) -> str:
    """One line: ``model 1 · best 240.87 s · bound 181.75 s (gap ≤ 32.5%) · 12 s``."""
    parts = [progress.phase]
    if progress.incumbent is not None:
        parts.append(f"best {progress.incumbent:,.2f} s")
    if progress.bound is not None:
        bound = f"bound {progress.bound:,.2f} s"
        if progress.incumbent is not None and progress.bound > 0:
            bound += f" (gap ≤ {max(0.0, progress.incumbent / progress.bound - 1):.1%})"
        parts.append(bound)
    parts.append(f"{progress.elapsed_s:,.0f} s")
    return " · ".join(parts)


@contextmanager
def solve_status(
    console: Console | None = None,
) -> Iterator[Callable[[SolveProgress], None] | None]:
    """A callback for ``solve_offline(progress=...)`` that keeps one status line up to date on
    ``console`` (default: stderr), or ``None`` when it is not a terminal (logs get no spinner)."""
    from rich.console import Console
    from rich.text import Text

    errors = console if console is not None else Console(stderr=True)
    if not errors.is_terminal:
        yield None
        return
    with errors.status("solving", spinner="dots") as status:

        def update(progress: SolveProgress) -> None:
            status.update(Text(f"solving: {describe_progress(progress)}"))

        yield update
