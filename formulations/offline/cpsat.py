"""The offline model in OR-Tools CP-SAT (snake_case API): the same model as :mod:`.milp`.

Built as variables, one function per constraint family, objective. Integer data: progress in
work units, the last slot's used time in ``dt / F`` units (F = ``time_units_per_slot``), so the
objective Σ_j (F · last slot + used units) is an integer; conditional bounds use enforcement
literals (``only_enforce_if``) where the MILP uses their big-M linearisation. Reproducible: a
fixed ``random_seed`` and ``num_workers``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, TypeAlias

from ortools.sat.python import cp_model

from formulations.engines import EngineOptions
from formulations.engines import cpsat as engine
from formulations.families import apply
from formulations.offline.backend import (
    JobPlan,
    RawSolve,
    avg_jct_from_total,
    decision_keys,
    schedule_values,
)
from formulations.offline.families import FAMILIES
from formulations.offline.preprocess import OfflineData, slowing_options
from formulations.result import SolveStatus
from sjfbsbf.policies.planned import Schedule

Lit: TypeAlias = cp_model.IntVar


@dataclass
class CpVars:
    """The model's variables (names and keys as in :class:`formulations.offline.milp.MilpVars`).

    ``frac`` counts ``dt / F`` units of the last slot; ``prog`` and ``rest`` count work units.
    """

    y: dict[tuple[int, int], Lit]
    e: dict[tuple[int, int], Lit]
    r: dict[tuple[int, int], Lit]
    x: dict[tuple[int, int], Lit]
    z: dict[tuple[int, int], Lit]
    node: dict[tuple[int, int], Lit]
    occ: dict[tuple[int, int, int], Lit]
    p: dict[int, Lit]
    v: dict[tuple[int, int], Lit]
    ever: dict[int, Lit]
    common: dict[tuple[int, int], Lit]
    w: dict[tuple[int, int], Lit]
    last: dict[tuple[int, int], Lit]
    prog: dict[tuple[int, int], cp_model.IntVar]
    rest: dict[int, cp_model.IntVar]
    frac: dict[int, cp_model.IntVar]


def add_variables(model: cp_model.CpModel, data: OfflineData) -> CpVars:
    """All variables with their domains."""
    y, e, r, x, z, node, prog, rest, frac = {}, {}, {}, {}, {}, {}, {}, {}, {}
    units = data.time_units_per_slot
    for i, job in enumerate(data.jobs):
        for t in job.start_slots:
            y[i, t] = model.new_bool_var(f"y_{i}_{t}")
        for t in job.end_slots:
            e[i, t] = model.new_bool_var(f"e_{i}_{t}")
        for t in job.slots:
            r[i, t] = model.new_bool_var(f"r_{i}_{t}")
            prog[i, t] = model.new_int_var(0, job.max_progress, f"prog_{i}_{t}")
        rest[i] = model.new_int_var(0, job.max_progress, f"rest_{i}")
        frac[i] = model.new_int_var(0, units, f"frac_{i}")
        for g in data.gpus:
            x[i, g] = model.new_bool_var(f"x_{i}_{g}")
        for o in range(len(job.options)):
            z[i, o] = model.new_bool_var(f"z_{i}_{o}")
        if job.link_spans:
            for n in range(len(data.nodes)):
                node[i, n] = model.new_bool_var(f"node_{i}_{n}")
    occ = {}
    for t in range(data.horizon):
        present = [i for i, job in enumerate(data.jobs) if t in job.slots]
        if len(present) > 2:
            for i in present:
                for g in data.gpus:
                    occ[i, g, t] = model.new_bool_var(f"occ_{i}_{g}_{t}")
    p, v, ever, common, w, last = {}, {}, {}, {}, {}, {}
    for q, pair in enumerate(data.pairs):
        p[q] = model.new_bool_var(f"p_{q}")
        for g in data.gpus:
            common[q, g] = model.new_bool_var(f"common_{q}_{g}")
        if not pair.any_fit:
            continue
        for t in pair.overlap:
            v[q, t] = model.new_bool_var(f"v_{q}_{t}")
        for c in range(len(pair.options)):
            w[q, c] = model.new_bool_var(f"w_{q}_{c}")
        if pair.conflicts:
            ever[q] = model.new_bool_var(f"ever_{q}")
        for a in (pair.first, pair.second):
            if slowing_options(data, pair, a):
                last[a, pair.other(a)] = model.new_bool_var(f"last_{a}_{pair.other(a)}")
    return CpVars(y, e, r, x, z, node, occ, p, v, ever, common, w, last, prog, rest, frac)


def add_start_end(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """One start, one last slot; r[t] = started by t and not ended before t; e ⇒ r."""
    for i, job in enumerate(data.jobs):
        model.add_exactly_one(v.y[i, t] for t in job.start_slots)
        model.add_exactly_one(v.e[i, t] for t in job.end_slots)
        for t in job.slots:
            started = sum(v.y[i, u] for u in job.start_slots if u <= t)
            ended = sum(v.e[i, u] for u in job.end_slots if u < t)
            model.add(v.r[i, t] == started - ended)
            if (i, t) in v.e:
                model.add_implication(v.e[i, t], v.r[i, t])


def add_options(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Exactly one option per job."""
    for i, job in enumerate(data.jobs):
        model.add_exactly_one(v.z[i, o] for o in range(len(job.options)))


def add_placement(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Exactly G GPUs; a placement on two nodes forces a spanning option."""
    for i, job in enumerate(data.jobs):
        model.add(sum(v.x[i, g] for g in data.gpus) == job.gpus)
        if not job.link_spans:
            continue
        spanning = [v.z[i, o] for o, opt in enumerate(job.options) if opt.spans]
        for n, gpus in enumerate(data.nodes):
            for g in gpus:
                model.add_implication(v.x[i, g], v.node[i, n])
        for a in range(len(data.nodes)):
            for b in range(a + 1, len(data.nodes)):
                model.add_bool_or([v.node[i, a].Not(), v.node[i, b].Not(), *spanning])


def add_capacity(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """At most two jobs per GPU and slot; aggregate: Σ G·r ≤ 2 × GPUs."""
    slots: dict[int, list[int]] = {}
    for (i, g, t), lit in v.occ.items():
        model.add_bool_or([v.x[i, g].Not(), v.r[i, t].Not(), lit])
        slots.setdefault(t, [])
        if i not in slots[t]:
            slots[t].append(i)
    for t, present in slots.items():
        for g in data.gpus:
            model.add(sum(v.occ[i, g, t] for i in present) <= 2)
    n_gpus = len(data.gpus)
    for t in range(data.horizon):
        present = [i for i, job in enumerate(data.jobs) if t in job.slots]
        if sum(data.jobs[i].gpus for i in present) > 2 * n_gpus:
            model.add(sum(data.jobs[i].gpus * v.r[i, t] for i in present) <= 2 * n_gpus)


def add_corun(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """x_ig ∧ x_kg ⇒ p; p ∧ r_it ∧ r_kt ⇒ v_t; pairs that never fit never co-run."""
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        for g in data.gpus:
            model.add_bool_or([v.x[i, g].Not(), v.x[k, g].Not(), v.p[q]])
        for t in pair.overlap:
            if not pair.any_fit:
                model.add_bool_or([v.p[q].Not(), v.r[i, t].Not(), v.r[k, t].Not()])
            else:
                model.add_bool_or([v.p[q].Not(), v.r[i, t].Not(), v.r[k, t].Not(), v.v[q, t]])


def add_no_idle_wait(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """A job starts at its arrival slot, or some job held one of its GPUs in the slot before.

    Dominance: if all of j's GPUs were idle in slot t − 1, starting j there instead makes j
    progress alone in t − 1 and nobody slower afterwards (occupancy only shrinks), so every
    completion is no later and j's is earlier; no optimal schedule waits on idle GPUs.
    Needs p exact from above: p ⇒ ∃g common_g, common_g ⇒ x_ig ∧ x_kg.
    """
    partners: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(data.jobs))}
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        for g in data.gpus:
            model.add_implication(v.common[q, g], v.x[i, g])
            model.add_implication(v.common[q, g], v.x[k, g])
        model.add_bool_or([v.p[q].Not(), *(v.common[q, g] for g in data.gpus)])
        partners[i].append((q, k))
        partners[k].append((q, i))
    for j, job in enumerate(data.jobs):
        for t in job.start_slots:
            if t == job.first_start:
                continue
            reasons = []
            for q, i in partners[j]:
                if t - 1 in data.jobs[i].slots:
                    held = model.new_bool_var(f"held_{j}_{i}_{t}")
                    model.add_implication(held, v.p[q])
                    model.add_implication(held, v.r[i, t - 1])
                    reasons.append(held)
            model.add_bool_or([v.y[j, t].Not(), *reasons])


def add_fastest_when_alone(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """A job that never co-runs with anyone uses its fastest option (for its spanning).

    Dominance: switching such a job to the fastest option makes it progress faster in every
    slot and touches nobody else (it shares no GPU), so no completion gets later. Needs v exact
    from above: v_t ⇒ p ∧ r_it ∧ r_kt.
    """
    runs_with: dict[int, list[Lit]] = {i: [] for i in range(len(data.jobs))}
    for q, pair in enumerate(data.pairs):
        if not pair.any_fit:
            continue
        i, k = pair.first, pair.second
        for t in pair.overlap:
            lit = v.v[q, t]
            model.add_implication(lit, v.p[q])
            model.add_implication(lit, v.r[i, t])
            model.add_implication(lit, v.r[k, t])
            runs_with[i].append(lit)
            runs_with[k].append(lit)
    for i, job in enumerate(data.jobs):
        slower = [
            o
            for o, opt in enumerate(job.options)
            if any(other.spans == opt.spans and other.alone > opt.alone for other in job.options)
        ]
        for o in slower:
            model.add_bool_or([v.z[i, o].Not(), *runs_with[i]])


def add_pair_options(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """w_c ⇔ both jobs run the options of combination c (marginals of w are z)."""
    for q, pair in enumerate(data.pairs):
        if not pair.any_fit:
            continue
        model.add_exactly_one(v.w[q, c] for c in range(len(pair.options)))
        for first, job in ((True, pair.first), (False, pair.second)):
            for o in range(len(data.jobs[job].options)):
                model.add(
                    sum(
                        v.w[q, c]
                        for c, combo in enumerate(pair.options)
                        if combo.option(first) == o
                    )
                    == v.z[job, o]
                )


def add_memory(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Two jobs that ever co-run on a GPU use options that fit together in memory."""
    for q, pair in enumerate(data.pairs):
        if q not in v.ever:
            continue
        for t in pair.overlap:
            model.add_implication(v.v[q, t], v.ever[q])
        for c in pair.conflicts:
            model.add_implication(v.w[q, c], v.ever[q].Not())


def add_progress(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Work in a non-last slot = the least of: alone at its option, beside each partner.

    Beside partner k the bound is rate_ik + slack · (1 − v_t), with rate_ik = Σ_c progress_c ·
    w_c (an integer variable) and the slack making the bound ≥ the top rate when they do not
    co-run. Equality (``add_min_equality``) leaves no slack to search through: the work done,
    hence the last slot's time, follows from the Booleans.
    """
    bounds: dict[tuple[int, int], list[Any]] = {}
    for i, job in enumerate(data.jobs):
        top = job.max_progress
        alone = model.new_int_var_from_domain(
            cp_model.Domain.from_values(sorted({o.alone for o in job.options})), f"alone_{i}"
        )
        model.add(alone == sum(opt.alone * v.z[i, o] for o, opt in enumerate(job.options)))
        for t in job.slots:
            not_last = v.r[i, t] - v.e.get((i, t), 0)
            bounds[i, t] = [top * not_last, alone]
    for q, pair in enumerate(data.pairs):
        for i in (pair.first, pair.second):
            if not slowing_options(data, pair, i):
                continue
            first = i == pair.first
            top = data.jobs[i].max_progress
            values = sorted({c.progress(first) for c in pair.options})
            rate = model.new_int_var_from_domain(
                cp_model.Domain.from_values(values), f"rate_{q}_{int(first)}"
            )
            model.add(
                rate == sum(c.progress(first) * v.w[q, n] for n, c in enumerate(pair.options))
            )
            slack = top - values[0]
            for t in pair.overlap:
                bounds[i, t].append(rate + slack * (1 - v.v[q, t]))
    for (i, t), exprs in bounds.items():
        model.add_min_equality(v.prog[i, t], exprs)


def add_last_slot(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """F · remaining work ≤ progress rate at the worst partner there × used time units."""
    units = data.time_units_per_slot
    for i, job in enumerate(data.jobs):
        for o, opt in enumerate(job.options):
            model.add(units * v.rest[i] <= opt.alone * v.frac[i]).only_enforce_if(v.z[i, o])
    for q, pair in enumerate(data.pairs):
        for i in (pair.first, pair.second):
            combos = slowing_options(data, pair, i)
            if not combos:
                continue
            k = pair.other(i)
            first = i == pair.first
            last = v.last[i, k]
            for t in pair.overlap:
                if (i, t) in v.e:
                    model.add_bool_or([v.v[q, t].Not(), v.e[i, t].Not(), last])
            for n in combos:
                rate = pair.options[n].progress(first)
                model.add(units * v.rest[i] <= rate * v.frac[i]).only_enforce_if([last, v.w[q, n]])


def add_valid_cuts(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Redundant inequalities (see :func:`formulations.offline.milp.add_valid_cuts`).

    The throughput cut's coefficients G_j · K / top_j are rounded down (K = 10^9), which keeps
    it valid.
    """
    n_gpus = len(data.gpus)
    theta = data.throughput
    scale = 10**9
    index = {(pair.first, pair.second): q for q, pair in enumerate(data.pairs)}
    for t in range(data.horizon):
        present = data.present(t)
        if sum(data.jobs[i].gpus for i in present) <= n_gpus:
            continue
        shared = sum(
            min(data.jobs[i].gpus, data.jobs[k].gpus) * v.v[index[i, k], t]
            for a, i in enumerate(present)
            for k in present[a + 1 :]
            if (i, k) in index and (index[i, k], t) in v.v
        )
        demand = sum(data.jobs[i].gpus * v.r[i, t] for i in present)
        model.add(shared >= demand - n_gpus)
        model.add(
            sum(
                (data.jobs[i].gpus * scale // data.jobs[i].max_progress) * v.prog[i, t]
                for i in present
            )
            <= math.ceil(theta * n_gpus * scale)
        )
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        if data.jobs[i].gpus + data.jobs[k].gpus <= n_gpus:
            continue
        for t in pair.overlap:
            if pair.any_fit:
                model.add_bool_or([v.r[i, t].Not(), v.r[k, t].Not(), v.v[q, t]])
            else:
                model.add_bool_or([v.r[i, t].Not(), v.r[k, t].Not()])


def add_work(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """All work is done: Σ_t prog + rest = W."""
    for i, job in enumerate(data.jobs):
        model.add(sum(v.prog[i, t] for t in job.slots) + v.rest[i] == job.work)


def add_symmetry(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """GPU columns of a node in non-increasing lex order; identical jobs start in order."""
    rows = data.lex_rows
    weights = {i: 2 ** (len(rows) - 1 - n) for n, i in enumerate(rows)}
    for node in data.nodes:
        for g, h in pairwise(node):
            model.add(
                sum(weights[i] * v.x[i, g] for i in rows)
                >= sum(weights[i] * v.x[i, h] for i in rows)
            )
    for i, k in data.identical:
        model.add(
            sum(t * v.y[i, t] for t in data.jobs[i].start_slots)
            <= sum(t * v.y[k, t] for t in data.jobs[k].start_slots)
        )


def total_units(data: OfflineData, v: CpVars) -> Any:
    """Σ_j finish time in units of dt / F."""
    units = data.time_units_per_slot
    return sum(
        units * sum(t * v.e[i, t] for t in job.end_slots) + v.frac[i]
        for i, job in enumerate(data.jobs)
    )


def add_upper_bound(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Σ finish ≤ the heuristic's bound (keeps every schedule at least as good)."""
    if data.upper_bound_total is not None:
        limit = (data.upper_bound_total + data.arrival_total) / data.dt * data.time_units_per_slot
        model.add(total_units(data, v) <= int(limit) + 1)


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
    apply(__name__, FAMILIES, model, data, v, reductions=reductions)
    add_exclusions(model, data, v, excluded)
    model.minimize(total_units(data, v))
    return model, v


def _literals(v: CpVars, values: dict[tuple[str, int, int], int]) -> list[tuple[Lit, int]]:
    table = {"y": v.y, "e": v.e, "x": v.x, "z": v.z}
    return [(table[name][i, k], value) for (name, i, k), value in values.items()]


def hints(data: OfflineData, v: CpVars) -> list[tuple[Lit, int]]:
    """Hints for y, e, x, z from the (canonicalised) heuristic schedule (none without one)."""
    hint = data.hint()
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


def add_exclusions(
    model: cp_model.CpModel, data: OfflineData, v: CpVars, excluded: Sequence[dict[int, JobPlan]]
) -> None:
    """No-good cuts: each excluded schedule (start slots, options, GPU sets) is infeasible."""
    table = {"y": v.y, "x": v.x, "z": v.z}
    for plans in excluded:
        keys = decision_keys(plans)
        model.add_bool_or([table[name][i, k].Not() for name, i, k in keys])


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
) -> RawSolve:
    """Build the CP-SAT model and solve it through :mod:`formulations.engines.cpsat`.

    ``time_limit`` is CP-SAT's *deterministic* time (``max_deterministic_time``, calibrated to
    be close to seconds), so a time-limited run is reproducible for a given seed with one worker
    (docs/formulations.md §2.6). ``deadline`` (a ``time.monotonic()`` value, default: none) is
    a wall-clock guard, model building included, for a machine much slower than the calibration
    (``info["limit"]`` then says ``"wall-clock guard"``). ``exclude``: schedules cut off by
    no-good constraints. ``log``: CP-SAT's search log on stderr.
    """
    model, v = build(data, excluded=exclude)
    run = engine.solve(
        model,
        EngineOptions(
            time_limit=time_limit,
            deterministic=True,
            deadline=deadline,
            seed=seed,
            workers=num_workers,
            log=log,
        ),
        hints=hints(data, v) if hint else (),
    )
    info: dict[str, Any] = dict(
        run.info,
        num_workers=num_workers,
        seed=seed,
        budget_used=run.info["deterministic_time"],
    )
    if run.limit is not None:
        info["limit"] = run.limit
    scale = data.dt / data.time_units_per_slot
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
