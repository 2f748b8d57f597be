"""One result type for every solver and model (DESIGN §4.3)."""

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
        Objective value of the solution found (``None`` without a solution). Never trust it
        alone: callers re-score the solution (the round model with the benefit estimate, the
        offline model with the simulator).
    bound
        Best proven bound on the objective (``None`` if the backend gives none).
    runtime_s
        Wall-clock solve time (model building excluded).
    solver
        Backend name (``"cpsat"``, ``"milp"``, ``"brute"``).
    solution
        The decoded solution: the round model's assignment or the offline model's schedule.
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
