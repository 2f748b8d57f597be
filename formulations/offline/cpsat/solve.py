"""Build the offline CP-SAT model (variables, families, objective), solve it through the engine
layer, decode the schedule (docs/formulations.md §2.6, §3)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ortools.sat.python import cp_model

from formulations.engines import EngineOptions
from formulations.engines import cpsat as engine
from formulations.families import apply
from formulations.offline.backend import (
    JobPlan,
    RawSolve,
    avg_jct_from_total,
    schedule_values,
)
from formulations.offline.cpsat import constraints
from formulations.offline.cpsat.constraints import add_exclusions
from formulations.offline.cpsat.objective import set_objective
from formulations.offline.cpsat.variables import CpVars, Lit, add_variables
from formulations.offline.data import OfflineData
from formulations.offline.families import FAMILIES
from formulations.offline.symmetry import canonical_hint
from formulations.result import SolveStatus
from sjfbsbf.policies.planned import Schedule


def build(
    data: OfflineData,
    *,
    reductions: bool = True,
    excluded: Sequence[dict[int, JobPlan]] = (),
) -> tuple[cp_model.CpModel, CpVars]:
    """The whole CP-SAT model: variables, constraint families, objective.

    ``reductions=False`` leaves out the dominance rules, the symmetry breaking and the upper
    bound (the decision space then holds every schedule, e.g. to check a policy's).
    """
    model = cp_model.CpModel()
    v = add_variables(model, data)
    apply(constraints, FAMILIES, model, data, v, reductions=reductions)
    add_exclusions(model, data, v, excluded)
    set_objective(model, data, v)
    return model, v


def _literals(v: CpVars, values: dict[tuple[str, int, int], int]) -> list[tuple[Lit, int]]:
    table = {"y": v.y, "e": v.e, "x": v.x, "z": v.z}
    return [(table[name][i, k], value) for (name, i, k), value in values.items()]


def hints(data: OfflineData, v: CpVars) -> list[tuple[Lit, int]]:
    """Hints for y, e, x, z from the (canonicalised) heuristic schedule (none without one)."""
    hint = canonical_hint(data)
    if hint is None or data.heuristic is None:
        return []
    values = schedule_values(data, hint, data.heuristic.finish)
    return _literals(v, values or {})


def fix_schedule(
    model: cp_model.CpModel,
    data: OfflineData,
    v: CpVars,
    schedule: Schedule,
    finish: dict[int, float],
) -> bool:
    """Fix y, e, x, z to a schedule (finish times from its simulation); False if outside."""
    values = schedule_values(data, schedule, finish)
    if values is None:
        return False
    for lit, value in _literals(v, values):
        model.add(lit == value)
    return True


def solve_cpsat(
    data: OfflineData,
    *,
    time_limit: float | None,
    seed: int = 0,
    num_workers: int = 1,
    hint: bool = True,
    log: bool = False,
    exclude: Sequence[dict[int, JobPlan]] = (),
    deadline: float | None = None,
    deterministic: bool = True,
    observer: Callable[[str, float], None] | None = None,
) -> RawSolve:
    """Build the CP-SAT model and solve it through :mod:`formulations.engines.cpsat`.

    ``time_limit`` is CP-SAT's *deterministic* time (``max_deterministic_time``, calibrated to
    be close to seconds), so a time-limited run is reproducible for a given seed with one worker
    (docs/formulations.md §2.6). ``deadline`` (a ``time.monotonic()`` value, default: none) is
    a wall-clock guard, model building included, for a machine much slower than the calibration
    (``info["limit"]`` then says ``"wall-clock guard"``). ``deterministic=False``:
    ``time_limit`` is wall-clock seconds instead (not reproducible). ``exclude``: schedules cut
    off by no-good constraints. ``log``: CP-SAT's search log on stderr. ``observer``: called with
    ``("incumbent", avg JCT)`` for each solution and ``("bound", avg JCT)`` for each better
    bound while CP-SAT runs (s; progress display).
    """
    model, v = build(data, excluded=exclude)
    scale = data.dt / data.time_units_per_slot
    on_incumbent = on_bound = None
    if observer is not None:
        report = observer

        def on_incumbent(units: float) -> None:
            report("incumbent", avg_jct_from_total(data, units * scale))

        def on_bound(units: float) -> None:
            report("bound", avg_jct_from_total(data, units * scale))

    run = engine.solve(
        model,
        EngineOptions(
            time_limit=time_limit,
            deterministic=deterministic,
            deadline=deadline,
            seed=seed,
            workers=num_workers,
            log=log,
            on_incumbent=on_incumbent,
            on_bound=on_bound,
        ),
        hints=hints(data, v) if hint else (),
    )
    info: dict[str, Any] = dict(
        run.info,
        num_workers=num_workers,
        seed=seed,
        budget_used=run.info["deterministic_time"] if deterministic else run.runtime_s,
    )
    if run.limit is not None:
        info["limit"] = run.limit
    plans: dict[int, JobPlan] = {}
    objective = bound = None
    if run.status.has_solution:
        assert run.objective is not None and run.bound is not None
        plans = decode(data, v, run.value)
        objective = avg_jct_from_total(data, run.objective * scale)
        bound = avg_jct_from_total(data, run.bound * scale)
        info["objective_units"] = round(run.objective)
    elif run.status is SolveStatus.TIME_LIMIT:
        assert run.bound is not None
        bound = avg_jct_from_total(data, run.bound * scale)
    return RawSolve(run.status, plans, objective, bound, run.runtime_s, info)


def decode(data: OfflineData, v: CpVars, value: Callable[[Any], float]) -> dict[int, JobPlan]:
    """Job plans from the solver's values."""
    plans = {}
    units = data.time_units_per_slot
    for i, job in enumerate(data.jobs):
        start = next(t for t in job.start_slots if value(v.y[i, t]) == 1)
        end = next(t for t in job.end_slots if value(v.e[i, t]) == 1)
        gpus = tuple(g for g in data.gpus if value(v.x[i, g]) == 1)
        option = next(o for o in range(len(job.options)) if value(v.z[i, o]) == 1)
        plans[i] = JobPlan(start, end, gpus, option, value(v.frac[i]) / units)
    return plans
