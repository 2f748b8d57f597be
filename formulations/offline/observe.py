"""Progress of ``solve_offline`` while it runs (docs/formulations.md §2.6): the phase, the time
spent, the best schedule's average JCT known and the best lower bound, for a display."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SolveProgress:
    """One progress report of :func:`formulations.offline.solve_offline`.

    Attributes
    ----------
    phase
        What runs: ``"heuristics"``, ``"relaxation"``, ``"fluid"``, ``"model 1"`` (2, ... after a
        schedule was cut off), ``"placement-free"``, ``"done"``.
    elapsed_s
        Wall-clock seconds since the solve started.
    incumbent
        Lowest average JCT of a schedule found so far (s): a replayed schedule, or while the
        model solves, its current solution's model value; ``None`` before any.
    bound
        Highest lower bound on the average JCT proven so far (s); ``None`` before any.
    """

    phase: str
    elapsed_s: float
    incumbent: float | None
    bound: float | None


class Tracker:
    """Keeps the best incumbent and bound and reports every change to ``report``."""

    def __init__(self, report: Callable[[SolveProgress], None] | None) -> None:
        self._report = report
        self._started = time.monotonic()
        self.current = "heuristics"
        self.incumbent: float | None = None
        self.bound: float | None = None

    def _send(self) -> None:
        if self._report is not None:
            elapsed = time.monotonic() - self._started
            self._report(SolveProgress(self.current, elapsed, self.incumbent, self.bound))

    def phase(self, name: str) -> None:
        """A new phase starts."""
        self.current = name
        self._send()

    def observe(self, kind: str, value: float | None) -> None:
        """A schedule (``"incumbent"``) or a lower bound (``"bound"``) of ``value`` s was found;
        only an improvement is kept and reported."""
        if value is None:
            return
        if kind == "incumbent" and (self.incumbent is None or value < self.incumbent):
            self.incumbent = value
        elif kind == "bound" and (self.bound is None or value > self.bound):
            self.bound = value
        else:
            return
        self._send()
