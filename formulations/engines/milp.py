"""Run a PuLP model on HiGHS (``pulp.HiGHS``, highspy) or CBC: limits, seed, start, quiet output.

The status is read from HiGHS's model status and PuLP's ``sol_status``, never from PuLP's
``prob.status`` alone: PuLP 3.3.2 says "Optimal" also for a time-limited incumbent
(docs/formulations.md §3).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from typing import Any

import pulp

from formulations.engines.quiet import stdout_to_stderr
from formulations.engines.run import NODE_LIMIT, WALL_CLOCK, EngineOptions, EngineRun
from formulations.engines.status import status_of
from formulations.result import SolveStatus

#: MILP backends by name.
MILP_BACKENDS = ("highs", "cbc")
#: Least time a MILP is given before a deadline (s).
MIN_WALL_S = 1e-2
#: HiGHS reports an unknown bound as ±inf; anything this large is no bound either.
_NO_BOUND = 1e30


class _Highs(pulp.HiGHS):
    """``pulp.HiGHS`` that hands HiGHS a (partial) start solution before solving."""

    def __init__(self, start: Mapping[str, float] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._start = dict(start or {})

    def findSolutionValues(self, lp: pulp.LpProblem) -> tuple[int, int]:
        """PuLP's reading of the solution, plus HiGHS's node limit (``mip_max_nodes``), which
        PuLP does not map: read like the time limit (a solution if HiGHS has one)."""
        try:
            return super().findSolutionValues(lp)
        except KeyError:  # kSolutionLimit: the values are assigned before PuLP's lookup fails
            value = lp.solverModel.getInfo().objective_function_value
            if value is None or not abs(value) < _NO_BOUND:
                return pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound
            return pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible

    def callSolver(self, lp: pulp.LpProblem) -> None:
        if self._start:
            index = [var.index for var in lp.variables() if var.name in self._start]
            values = [self._start[var.name] for var in lp.variables() if var.name in self._start]
            lp.solverModel.setSolution(len(index), index, values)
        super().callSolver(lp)


def solve(
    prob: pulp.LpProblem,
    options: EngineOptions,
    *,
    backend: str,
    gap_rel: float | None = None,
    gap_abs: float | None = None,
    start: Mapping[pulp.LpVariable, float] | None = None,
    max_nodes: int | None = None,
) -> EngineRun:
    """Solve ``prob`` with ``backend``.

    Parameters
    ----------
    prob
        The built model.
    options
        Limits, seed, workers, log (:class:`~formulations.engines.run.EngineOptions`).
    backend
        ``"highs"`` or ``"cbc"``.
    gap_rel, gap_abs
        Relative and absolute optimality gaps (``None``: the solver's default).
    start
        Variable values to start from: HiGHS gets them with ``setSolution`` (a partial start it
        completes), CBC as a warm start (``setInitialValue``, ``warmStart``).
    max_nodes
        HiGHS only: stop after this many branch-and-bound nodes (``mip_max_nodes``), a
        deterministic limit (a run stopped by it is reproducible, unlike the wall-clock one).

    Raises
    ------
    ValueError
        For an unknown backend.
    """
    if backend not in MILP_BACKENDS:
        raise ValueError(f"unknown MILP backend {backend!r}; choose one of {MILP_BACKENDS}")
    time_limit = options.time_limit
    if options.deadline is not None:
        left = max(MIN_WALL_S, options.deadline - time.monotonic())
        time_limit = left if time_limit is None else min(time_limit, left)
    solver: pulp.LpSolver
    if backend == "highs":
        solver = _Highs(
            start={var.name: value for var, value in (start or {}).items()},
            msg=options.log,
            timeLimit=time_limit,
            gapRel=gap_rel,
            gapAbs=gap_abs,
            random_seed=options.seed,
            **({} if max_nodes is None else {"mip_max_nodes": max_nodes}),
        )
    else:
        for var, value in (start or {}).items():
            var.setInitialValue(value)
        # PuLP 3.3 warns that the bundled CBC goes away in PuLP 4; the project pins PuLP < 4.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "PULP_CBC_CMD is deprecated", DeprecationWarning)
            solver = pulp.PULP_CBC_CMD(
                msg=options.log,
                timeLimit=time_limit,
                gapRel=gap_rel,
                gapAbs=gap_abs,
                # "-threads 1" runs CBC's threaded code, which can hang on a lock until the time
                # limit (coin-or/Cbc#640; here 1 of 80 tiny solves took 10 s): serial unless asked.
                threads=options.workers if options.workers > 1 else None,
                warmStart=bool(start),
                options=[f"randomCbcSeed {options.seed + 1}"],
            )
    started = time.perf_counter()
    with stdout_to_stderr(keep=options.log):
        prob.solve(solver)
    wall = time.perf_counter() - started
    info: dict[str, Any] = {
        "backend": backend,
        "variables": len(prob.variables()),
        "constraints": prob.numConstraints(),
        "sol_status": pulp.LpSolution[prob.sol_status],
    }
    solution = prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
    bound: float | None = None
    if backend == "highs":
        status, bound = _highs_status(prob, solution, info)
        runtime = float(prob.solverModel.getRunTime())  # PuLP's transfer to highspy excluded
    else:
        info["solver_status"] = pulp.LpStatus[prob.status]
        status = status_of(
            optimal=prob.sol_status == pulp.LpSolutionOptimal,
            infeasible=prob.sol_status == pulp.LpSolutionInfeasible
            or prob.status == pulp.LpStatusInfeasible,
            solution=solution,
            stopped=prob.status == pulp.LpStatusNotSolved and time_limit is not None,
        )
        runtime = wall
    limited = time_limit is not None or max_nodes is not None
    stopped = limited and status in (SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT)
    limit = (NODE_LIMIT if info.pop("node_limit", False) else WALL_CLOCK) if stopped else None
    return EngineRun(
        status=status,
        objective=pulp.value(prob.objective) if status.has_solution else None,
        bound=bound,
        runtime_s=runtime,
        wall_s=wall,
        limit=limit,
        value=_value,
        info=info,
    )


def _highs_status(
    prob: pulp.LpProblem, solution: bool, info: dict[str, Any]
) -> tuple[SolveStatus, float | None]:
    """Status from HiGHS's model status, and its bound on PuLP's objective."""
    import highspy

    model = prob.solverModel
    code = model.getModelStatus()
    info["solver_status"] = model.modelStatusToString(code)
    statuses = highspy.HighsModelStatus
    info["node_limit"] = code == statuses.kSolutionLimit
    status = status_of(
        optimal=code == statuses.kOptimal,
        infeasible=code in (statuses.kInfeasible, statuses.kUnboundedOrInfeasible),
        solution=solution,
        stopped=code in (statuses.kTimeLimit, statuses.kSolutionLimit),
    )
    if status is SolveStatus.INFEASIBLE:
        return status, None
    dual = model.getInfo().mip_dual_bound
    if dual is None or not abs(dual) < _NO_BOUND:
        return status, None
    # PuLP hands HiGHS the negated objective of a maximization, and not its constant.
    sign = -1.0 if prob.sense == pulp.LpMaximize else 1.0
    return status, sign * float(dual) + float(prob.objective.constant)


def _value(var: pulp.LpVariable) -> float:
    return var.value() or 0.0
