"""``solve``: the round problem by CP-SAT, MILP (HiGHS or CBC), brute force or, for a round that
reduces to an assignment, a maximum-weight bipartite matching; one result type."""

from __future__ import annotations

import math

from formulations.result import SolveResult, SolveStatus
from formulations.round.assignment import RoundAssignment, violations
from formulations.round.backend import RawSolve
from formulations.round.preprocess import SCALE, preprocess
from formulations.round.problem import RoundProblem

SOLVERS = ("cpsat", "milp", "brute", "matching")


def solve(
    problem: RoundProblem,
    solver: str = "cpsat",
    *,
    time_limit: float | None = 10.0,
    seed: int = 0,
    num_workers: int = 1,
    milp_backend: str = "highs",
    hint: RoundAssignment | None = None,
) -> SolveResult:
    """Solve a round problem exactly.

    Parameters
    ----------
    problem
        The round problem.
    solver
        ``"cpsat"`` (OR-Tools CP-SAT), ``"milp"`` (PuLP), ``"brute"`` (exhaustive, tiny
        rounds only) or ``"matching"`` (maximum-weight bipartite matching, for rounds that
        reduce to an assignment: :mod:`formulations.round.matching`).
    time_limit
        Seconds per solve (``None``: none; ignored by brute force and the matching).
    seed
        Random seed of the backend.
    num_workers
        CP-SAT search workers.
    milp_backend
        ``"highs"`` (``pulp.HiGHS`` via highspy) or ``"cbc"`` (``pulp.PULP_CBC_CMD``).
    hint
        A known feasible assignment (e.g. the greedy's) to start from (CP-SAT hint, CBC warm
        start).

    Returns
    -------
    SolveResult
        ``solution`` is a :class:`~formulations.round.assignment.RoundAssignment`;
        ``objective`` is its score re-computed from the float benefits (s); ``bound`` is the
        backend's bound on the integer objective, in seconds; ``info["objective_int"]`` is the
        integer objective of the solution.

    Raises
    ------
    ValueError
        For a malformed problem or argument, or, with ``solver="matching"``, a round that does
        not reduce to an assignment (the message names the reason in one line).
    RuntimeError
        If a backend returns an assignment that breaks the model (a bug).
    """
    if not isinstance(problem, RoundProblem):
        raise ValueError(f"solve needs a RoundProblem, got {type(problem).__name__}")
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {', '.join(SOLVERS)}")
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise ValueError(f"time_limit must be positive, got {time_limit!r}")
    if num_workers < 1:
        raise ValueError("num_workers must be at least 1")
    data = preprocess(problem)
    raw: RawSolve
    if data.empty:
        raw = RawSolve(SolveStatus.OPTIMAL, RoundAssignment(), 0.0, 0.0, {"trivial": True})
    elif solver == "brute":
        from formulations.round.brute import solve_brute

        raw = solve_brute(problem)
    elif solver == "matching":
        from formulations.round.matching import solve_matching

        raw = solve_matching(data)
    elif solver == "milp":
        from formulations.round.milp import solve_milp

        raw = solve_milp(data, time_limit=time_limit, seed=seed, backend=milp_backend, hint=hint)
    else:
        from formulations.round.cpsat import solve_cpsat

        raw = solve_cpsat(
            data, time_limit=time_limit, seed=seed, num_workers=num_workers, hint=hint
        )
    return _result(problem, solver, raw, len(data.pairs), len(data.candidates))


def _result(
    problem: RoundProblem, solver: str, raw: RawSolve, pairs: int, candidates: int
) -> SolveResult:
    info = dict(raw.info, pairs=pairs, candidates=candidates, scale=SCALE)
    objective = None
    if raw.assignment is not None:
        broken = violations(problem, raw.assignment)
        if broken:
            raise RuntimeError(f"{solver} returned an infeasible assignment: {broken}")
        objective = raw.assignment.score(problem)
        info["objective_int"] = raw.assignment.integer_score(problem)
    bound = None if raw.bound is None else raw.bound / SCALE
    return SolveResult(
        status=raw.status,
        objective=objective,
        bound=bound,
        runtime_s=raw.runtime_s,
        solver=solver,
        solution=raw.assignment,
        info=info,
    )
