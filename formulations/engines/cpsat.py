"""Run a CP-SAT model: limits, seed, workers, hints, log to stderr, the one status rule."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from ortools.sat.python import cp_model

from formulations.engines.run import (
    DETERMINISTIC,
    WALL_CLOCK,
    WALL_CLOCK_GUARD,
    EngineOptions,
    EngineRun,
)
from formulations.engines.status import status_of
from formulations.result import SolveStatus

#: Least wall-clock time CP-SAT is given before a deadline (s).
MIN_WALL_S = 1e-3


def solve(
    model: cp_model.CpModel,
    options: EngineOptions,
    *,
    hints: Iterable[tuple[Any, int]] = (),
) -> EngineRun:
    """Solve ``model`` with CP-SAT.

    Parameters
    ----------
    model
        The built model (objective set).
    options
        Limits, seed, workers, log (:class:`~formulations.engines.run.EngineOptions`).
    hints
        ``(variable, value)`` pairs given to ``add_hint``, in order (a solution hint: CP-SAT then
        starts from it, and returns at least it when the hint is complete and feasible).
    """
    for var, value in hints:
        model.add_hint(var, value)
    solver = cp_model.CpSolver()
    parameters = solver.parameters
    parameters.random_seed = options.seed
    parameters.num_workers = options.workers
    parameters.log_search_progress = options.log
    if options.log:
        parameters.log_to_stdout = False
        solver.log_callback = _to_stderr
    wall: float | None = None
    if options.time_limit is not None:
        if options.deterministic:
            parameters.max_deterministic_time = float(options.time_limit)
        else:
            wall = options.time_limit
    if options.deadline is not None:
        left = max(MIN_WALL_S, options.deadline - time.monotonic())
        wall = left if wall is None else min(wall, left)
    if wall is not None:
        parameters.max_time_in_seconds = wall
    for name, setting in options.cpsat_parameters:
        _set_parameter(parameters, name, setting)
    if options.on_bound is not None:
        solver.best_bound_callback = options.on_bound
    started = time.perf_counter()
    if options.on_incumbent is not None:
        code = solver.solve(model, _Incumbents(options.on_incumbent))
    else:
        code = solver.solve(model)
    elapsed = time.perf_counter() - started
    status = status_of(
        optimal=code == cp_model.OPTIMAL,
        infeasible=code == cp_model.INFEASIBLE,
        solution=code in (cp_model.OPTIMAL, cp_model.FEASIBLE),
        stopped=code == cp_model.UNKNOWN and options.limited,
    )
    deterministic = float(solver.response_proto.deterministic_time)
    limit = None
    if options.limited and status in (SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT):
        limit = WALL_CLOCK
        if options.deterministic:
            by_work = options.time_limit is not None and deterministic >= options.time_limit * (
                1 - 1e-6
            )
            limit = DETERMINISTIC if by_work else WALL_CLOCK_GUARD
    has_bound = status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT)
    return EngineRun(
        status=status,
        objective=float(solver.objective_value) if status.has_solution else None,
        bound=float(solver.best_objective_bound) if has_bound else None,
        runtime_s=elapsed,
        wall_s=elapsed,
        limit=limit,
        value=solver.value,
        info={
            "solver_status": solver.status_name(code),
            "variables": len(model.proto.variables),
            "constraints": len(model.proto.constraints),
            "deterministic_time": deterministic,
        },
    )


class _Incumbents(cp_model.CpSolverSolutionCallback):
    """Reports each solution's objective (:attr:`EngineOptions.on_incumbent`)."""

    def __init__(self, report: Callable[[float], None]) -> None:
        super().__init__()
        self._report = report

    def on_solution_callback(self) -> None:
        """Called by CP-SAT with each new solution."""
        self._report(float(self.objective_value))


def _set_parameter(parameters: Any, name: str, value: bool | int | float | str) -> None:
    """Set one scalar ``SatParameters`` field, refusing an unknown name or a mistyped value."""
    current = getattr(parameters, name, None) if name.islower() else None
    if not isinstance(current, (bool, int, float, str)):
        raise ValueError(f"CP-SAT has no scalar parameter {name!r}")
    if isinstance(current, bool) or isinstance(value, bool):
        fits = isinstance(current, bool) and isinstance(value, bool)
    elif isinstance(current, float):
        fits = isinstance(value, (int, float))
    else:
        fits = type(value) is type(current)
    if not fits:
        raise ValueError(
            f"CP-SAT parameter {name!r} takes a {type(current).__name__}, not {value!r}"
        )
    setattr(parameters, name, value)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
