"""What every engine takes (:class:`EngineOptions`) and gives back (:class:`EngineRun`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formulations.result import SolveStatus

#: Which limit stopped a run (``EngineRun.limit``).
DETERMINISTIC = "deterministic time"
WALL_CLOCK = "wall-clock"
#: HiGHS's branch-and-bound node limit (``max_nodes`` of the MILP engine): deterministic.
NODE_LIMIT = "node limit"
WALL_CLOCK_GUARD = "wall-clock guard"


@dataclass(frozen=True)
class EngineOptions:
    """How to run a solver (docs/formulations.md §3).

    Attributes
    ----------
    time_limit
        Seconds (``None``: none). CP-SAT: wall-clock seconds (``max_time_in_seconds``), or
        deterministic time (``max_deterministic_time``) with ``deterministic``. MILP: the
        solver's wall-clock limit (``timeLimit``).
    deterministic
        CP-SAT only: ``time_limit`` counts CP-SAT's deterministic time, so a stopped run with one
        worker is reproducible.
    deadline
        A ``time.monotonic()`` value the run must not pass (``None``: none). CP-SAT: a wall-clock
        guard, ``max_time_in_seconds`` = the time left (at least 1 ms). MILP: the limit is cut to
        the time left (at least 10 ms), so everything before the solve counts against it.
    seed
        Random seed: CP-SAT ``random_seed``, HiGHS ``random_seed``, CBC ``randomCbcSeed`` =
        seed + 1 (0 means "time of day" to CBC).
    workers
        CP-SAT ``num_workers``, CBC ``threads``; HiGHS keeps its default (its thread pool is
        fixed at the first solve in a process; a later solve asking for another count fails).
    log
        Solver output on stderr (``True``) or nowhere (``False``); never on stdout.
    cpsat_parameters
        CP-SAT only: further ``SatParameters`` fields by name, set after the ones above, e.g.
        ``(("optimize_with_lb_tree_search", True),)``; a name CP-SAT does not know, or a value of
        the wrong type, is refused (``ValueError``) before the solve.
    on_incumbent, on_bound
        CP-SAT only: called with the objective of each new solution and with each new best
        bound, in the model's units, while it solves (progress display; they do not change
        the search). ``None``: not called.
    """

    time_limit: float | None = None
    deterministic: bool = False
    deadline: float | None = None
    seed: int = 0
    workers: int = 1
    log: bool = False
    cpsat_parameters: tuple[tuple[str, bool | int | float | str], ...] = ()
    on_incumbent: Callable[[float], None] | None = field(default=None, compare=False)
    on_bound: Callable[[float], None] | None = field(default=None, compare=False)

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        return self.time_limit is not None or self.deadline is not None


@dataclass(frozen=True)
class EngineRun:
    """One solver run, in the model's own units.

    Attributes
    ----------
    status
        The status by the one rule (:func:`formulations.engines.status.status_of`).
    objective
        The solver's objective value of its solution (``None`` without one).
    bound
        The solver's proven bound on the objective (``None``: none, or proven infeasible).
    runtime_s
        The solver's own time: HiGHS's run clock; CP-SAT and CBC: the solve call's wall time.
    wall_s
        Wall-clock time of the whole solve call (PuLP's transfer of the model included).
    limit
        Which limit stopped the run (:data:`DETERMINISTIC`, :data:`WALL_CLOCK`, :data:`NODE_LIMIT`,
        :data:`WALL_CLOCK_GUARD`), ``None`` if none did.
    value
        A variable's value in the solution (0 for a MILP variable without one).
    info
        ``solver_status`` (the solver's own status name), ``variables``, ``constraints``, and per
        backend ``deterministic_time`` (CP-SAT) or ``backend`` and ``sol_status`` (MILP).
    """

    status: SolveStatus
    objective: float | None
    bound: float | None
    runtime_s: float
    wall_s: float
    limit: str | None
    value: Callable[[Any], float]
    info: dict[str, Any] = field(default_factory=dict)
