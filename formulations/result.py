"""The status every solve reports, and the round model's result (docs/formulations.md §3, §1.5).

:class:`SolveStatus` is the one status of every backend and model (the engines map each solver's
outcome to it by one rule, §3). :class:`SolveResult` is what a round solve returns; the offline
model returns :class:`formulations.offline.result.OfflineResult` (§2.9).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class SolveStatus(enum.Enum):
    """Outcome of a solve, the same for every backend."""

    OPTIMAL = "optimal"  #: proven optimal
    FEASIBLE = "feasible"  #: a solution, optimality not proven (e.g. stopped at the time limit)
    INFEASIBLE = "infeasible"  #: proven to have no solution
    TIME_LIMIT = "time_limit"  #: stopped at the time limit without any solution
    UNKNOWN = "unknown"  #: anything else (solver error, unbounded, ...)

    @property
    def has_solution(self) -> bool:
        """Whether a schedule / assignment comes with this status."""
        return self in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


@dataclass(frozen=True)
class SolveResult:
    """What ``solve`` returns.

    Attributes
    ----------
    status
        The outcome.
    objective
        Score of the solution found (``None`` without a solution), re-scored from the decoded
        solution, never taken from the solver (the round model: Σ of the float pair benefits).
    bound
        Best proven bound on the objective (``None`` if the backend gives none).
    runtime_s
        Wall-clock solve time (model building excluded).
    solver
        Backend name (``"cpsat"``, ``"milp"``, ``"brute"``, ``"matching"``).
    solution
        The decoded solution (the round model's assignment).
    info
        Backend details (e.g. the solver's own status string, model size).
    """

    status: SolveStatus
    objective: float | None
    bound: float | None
    runtime_s: float
    solver: str
    solution: Any = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """Relative gap between objective and bound, if both are known."""
        if self.objective is None or self.bound is None:
            return None
        scale = max(abs(self.objective), 1e-9)
        return abs(self.objective - self.bound) / scale
