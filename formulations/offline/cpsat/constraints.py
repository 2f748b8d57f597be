"""The offline CP-SAT model's constraints: one function per family of
:data:`formulations.offline.families.FAMILIES`, plus the no-good cuts (docs/formulations.md
§2.4, §2.9).

Each ``add_<family>(model, data, v)`` adds one family; the same families as
:mod:`formulations.offline.milp.constraints`, with enforcement literals (``only_enforce_if``) and
Boolean clauses where the MILP uses big-M rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from ortools.sat.python import cp_model

from formulations.offline.backend import (
    JobPlan,
    decision_keys,
)
from formulations.offline.cpsat.objective import total_units
from formulations.offline.cpsat.variables import CpVars, Lit
from formulations.offline.data import OfflineData
from formulations.offline.pairs import sharing_progress, slowing_options


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


def add_work(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """All work is done: Σ_t prog + rest = W."""
    for i, job in enumerate(data.jobs):
        model.add(sum(v.prog[i, t] for t in job.slots) + v.rest[i] == job.work)


def add_valid_cuts(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Redundant inequalities (see :func:`formulations.offline.milp.constraints.add_valid_cuts`).

    The throughput cut's coefficients G_j · K / top_j are rounded down and its right-hand side's
    up (K = 10^9), which keeps it valid.
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
            <= sum(math.ceil((theta - 1) * scale) * data.jobs[i].gpus * v.r[i, t] for i in present)
            + math.ceil((2 - theta) * n_gpus * scale)
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


def add_finish_cuts(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """A job runs at most its fastest alone pace (see
    :func:`formulations.offline.milp.constraints.add_finish_cuts`); the finish cut in units of
    dt / F, its right-hand side F · W_j / top_j rounded up (the left-hand side is an integer)."""
    units = data.time_units_per_slot
    for i, job in enumerate(data.jobs):
        least = -(-job.work // job.max_progress)
        for t in job.end_slots:
            started = [v.y[i, s] for s in job.start_slots if s <= t - least + 1]
            ended = [v.e[i, s] for s in job.end_slots if s <= t]
            model.add(sum(ended) <= sum(started))
        model.add(
            units * sum(t * v.e[i, t] for t in job.end_slots)
            + v.frac[i]
            - units * sum(t * v.y[i, t] for t in job.start_slots)
            >= -(-units * job.work // job.max_progress)
        )


def add_sharing_cuts(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """A sharing job runs at its sharing pace (see
    :func:`formulations.offline.milp.constraints.add_sharing_cuts`); in integers: the progress
    cap top_j − (top_j − S_j)(sh − e) and, in the last slot, F · R_j ≤ S_j · f_j when λ_j,
    S_j = ψ_j · top_j (an integer)."""
    n_gpus = len(data.gpus)
    units = data.time_units_per_slot
    pace = sharing_progress(data)
    shared: dict[int, list[Any]] = {}
    for t in range(data.horizon):
        present = data.present(t)
        if sum(data.jobs[i].gpus for i in present) <= n_gpus:
            continue
        incidences = []
        for i in present:
            job = data.jobs[i]
            if pace[i] == 0:
                continue
            sh = model.new_bool_var(f"sh_{i}_{t}")
            model.add_implication(sh, v.r[i, t])
            last = v.e.get((i, t), 0)
            model.add(
                v.prog[i, t]
                <= job.max_progress * (v.r[i, t] - last)
                - (job.max_progress - pace[i]) * (sh - last)
            )
            incidences.append(job.gpus * sh)
            if (i, t) in v.e:
                shared.setdefault(i, []).append((sh, v.e[i, t]))
        demand = sum(data.jobs[i].gpus * v.r[i, t] for i in present)
        model.add(sum(incidences) >= 2 * (demand - n_gpus))
    for i, pairs in shared.items():
        last_shared = model.new_bool_var(f"last_shared_{i}")
        for sh, end in pairs:
            model.add_bool_or([sh.Not(), end.Not(), last_shared])
        model.add(units * v.rest[i] <= pace[i] * v.frac[i]).only_enforce_if(last_shared)


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


def add_upper_bound(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Σ finish ≤ the heuristic's bound (keeps every schedule at least as good)."""
    if data.upper_bound_total is not None:
        limit = (data.upper_bound_total + data.arrival_total) / data.dt * data.time_units_per_slot
        model.add(total_units(data, v) <= int(limit) + 1)


def add_lower_bound(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Σ JCT ≥ the preprocessing's lower bound (see
    :func:`formulations.offline.milp.constraints.add_lower_bound`), in units of dt / F rounded
    down."""
    if data.lower_bound_total > 0:
        floor = data.lower_bound_total * (1 - 1e-6) - 1e-3
        limit = (floor + data.arrival_total) / data.dt * data.time_units_per_slot
        model.add(total_units(data, v) >= math.floor(limit))


def add_exclusions(
    model: cp_model.CpModel, data: OfflineData, v: CpVars, excluded: Sequence[dict[int, JobPlan]]
) -> None:
    """No-good cuts: each excluded schedule (start slots, options, GPU sets) is infeasible."""
    table = {"y": v.y, "x": v.x, "z": v.z}
    for plans in excluded:
        keys = decision_keys(plans)
        model.add_bool_or([table[name][i, k].Not() for name, i, k in keys])
