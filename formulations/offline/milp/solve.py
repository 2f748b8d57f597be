"""Build the offline MILP (variables, families, objective), solve it through the engine layer,
decode the schedule (docs/formulations.md §2.6, §3)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pulp

from formulations.engines import EngineOptions
from formulations.engines import milp as engine
from formulations.engines.milp import MILP_BACKENDS
from formulations.families import apply
from formulations.offline.backend import JobPlan, RawSolve, schedule_values
from formulations.offline.data import OfflineData
from formulations.offline.families import FAMILIES
from formulations.offline.milp import constraints
from formulations.offline.milp.constraints import add_exclusions
from formulations.offline.milp.objective import set_objective
from formulations.offline.milp.variables import MilpVars, Var, add_variables
from formulations.offline.symmetry import canonical_hint
from formulations.result import SolveStatus


def build(
    data: OfflineData,
    *,
    reductions: bool = True,
    excluded: Sequence[dict[int, JobPlan]] = (),
) -> tuple[pulp.LpProblem, MilpVars]:
    """The whole MILP: variables, constraint families, objective (average JCT, s).

    ``reductions=False`` leaves out the dominance rules, the symmetry breaking and the upper
    bound (see :func:`formulations.offline.cpsat.build`).
    """
    prob = pulp.LpProblem("offline", pulp.LpMinimize)
    v = add_variables(prob, data)
    apply(constraints, FAMILIES, prob, data, v, reductions=reductions)
    add_exclusions(prob, data, v, excluded)
    set_objective(prob, data, v)
    return prob, v


def start_values(data: OfflineData, v: MilpVars) -> dict[Var, float]:
    """y, e, x, z of the hint schedule (HiGHS completes the rest); empty without a hint."""
    hint = canonical_hint(data)
    if hint is None or data.heuristic is None:
        return {}
    values = schedule_values(data, hint, data.heuristic.finish) or {}
    table = {"y": v.y, "e": v.e, "x": v.x, "z": v.z}
    return {table[name][i, k]: float(value) for (name, i, k), value in values.items()}


def solve_milp(
    data: OfflineData,
    *,
    time_limit: float | None,
    backend: str = "highs",
    threads: int = 1,
    seed: int = 0,
    hint: bool = True,
    msg: bool = False,
    exclude: Sequence[dict[int, JobPlan]] = (),
    deadline: float | None = None,
) -> RawSolve:
    """Build the MILP and solve it through :mod:`formulations.engines.milp`.

    ``threads`` is passed to CBC only (HiGHS keeps its default thread count, §3).
    ``time_limit`` is wall-clock: a run stopped by it is not reproducible (docs/formulations.md
    §2.6). The solvers' own output goes to stderr with ``msg``, nowhere otherwise, never to
    stdout. ``hint``: the heuristic's schedule as HiGHS's start (CBC gets none). ``exclude``:
    schedules cut off by no-good constraints. ``deadline`` (``time.monotonic()`` value): the
    solver's limit is cut so that building the model counts against it too.
    """
    if backend not in MILP_BACKENDS:
        raise ValueError(f"unknown MILP backend {backend!r}; choose one of {MILP_BACKENDS}")
    prob, v = build(data, excluded=exclude)
    run = engine.solve(
        prob,
        EngineOptions(
            time_limit=time_limit, deadline=deadline, seed=seed, workers=threads, log=msg
        ),
        backend=backend,
        gap_rel=0.0,
        gap_abs=1e-7 if backend == "highs" else None,
        start=start_values(data, v) if hint and backend == "highs" else None,
    )
    info: dict[str, Any] = dict(run.info, wall_s=run.wall_s, budget_used=run.wall_s)
    if run.limit is not None:
        info["limit"] = run.limit
    status, bound = run.status, run.bound
    plans: dict[int, JobPlan] = {}
    objective = None
    if status.has_solution:
        plans = decode(data, v, run.value)
        objective = run.objective
        if bound is None and status is SolveStatus.OPTIMAL:
            bound = objective
    if bound is not None:
        bound = min(bound, objective) if objective is not None else bound
    return RawSolve(status, plans, objective, bound, run.runtime_s, info)


def decode(data: OfflineData, v: MilpVars, value: Callable[[Var], float]) -> dict[int, JobPlan]:
    """Job plans from the variables' values (binaries rounded)."""
    plans = {}
    for i, job in enumerate(data.jobs):
        start = max(job.start_slots, key=lambda t: value(v.y[i, t]))
        end = max(job.end_slots, key=lambda t: value(v.e[i, t]))
        gpus = tuple(g for g in data.gpus if value(v.x[i, g]) > 0.5)
        option = max(range(len(job.options)), key=lambda o: value(v.z[i, o]))
        frac = min(1.0, max(0.0, value(v.frac[i])))
        plans[i] = JobPlan(start, end, gpus, option, frac)
    return plans
