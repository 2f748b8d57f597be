"""The offline MILP's constraints: one function per family of
:data:`formulations.offline.families.FAMILIES`, plus the no-good cuts (docs/formulations.md §2.4,
§2.9).

Each ``add_<family>(prob, data, v)`` adds one family's rows, named after it; the same families
as :mod:`formulations.offline.cpsat.constraints`, linearised (big-M where CP-SAT uses
enforcement literals).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pulp

from formulations.offline.backend import JobPlan, decision_keys
from formulations.offline.data import OfflineData
from formulations.offline.milp.objective import total_finish
from formulations.offline.milp.variables import MilpVars, Var
from formulations.offline.pairs import sharing_progress, slowing_options


def add_start_end(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """One start, one last slot; r[t] = started by t and not ended before t; e ≤ r."""
    for i, job in enumerate(data.jobs):
        prob += pulp.lpSum(v.y[i, t] for t in job.start_slots) == 1, f"one_start_{i}"
        prob += pulp.lpSum(v.e[i, t] for t in job.end_slots) == 1, f"one_end_{i}"
        for t in job.slots:
            started = pulp.lpSum(v.y[i, u] for u in job.start_slots if u <= t)
            ended = pulp.lpSum(v.e[i, u] for u in job.end_slots if u < t)
            prob += v.r[i, t] == started - ended, f"run_{i}_{t}"
            if (i, t) in v.e:
                prob += v.e[i, t] <= v.r[i, t], f"end_runs_{i}_{t}"


def add_options(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Exactly one option per job."""
    for i, job in enumerate(data.jobs):
        prob += pulp.lpSum(v.z[i, o] for o in range(len(job.options))) == 1, f"one_option_{i}"


def add_placement(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Exactly G GPUs; a placement on two nodes forces a spanning option."""
    for i, job in enumerate(data.jobs):
        prob += pulp.lpSum(v.x[i, g] for g in data.gpus) == job.gpus, f"gpu_count_{i}"
        if not job.link_spans:
            continue
        spanning = pulp.lpSum(v.z[i, o] for o, opt in enumerate(job.options) if opt.spans)
        for n, gpus in enumerate(data.nodes):
            for g in gpus:
                prob += v.node[i, n] >= v.x[i, g], f"node_{i}_{n}_{g}"
        for a in range(len(data.nodes)):
            for b in range(a + 1, len(data.nodes)):
                prob += spanning >= v.node[i, a] + v.node[i, b] - 1, f"spans_{i}_{a}_{b}"


def add_capacity(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """At most two jobs per GPU and slot; aggregate: Σ G·r ≤ 2 × GPUs."""
    for (i, g, t), var in v.occ.items():
        prob += var >= v.x[i, g] + v.r[i, t] - 1, f"occ_{i}_{g}_{t}"
    slots: dict[int, list[int]] = {}
    for i, _, t in v.occ:
        slots.setdefault(t, [])
        if i not in slots[t]:
            slots[t].append(i)
    for t, present in slots.items():
        for g in data.gpus:
            prob += pulp.lpSum(v.occ[i, g, t] for i in present) <= 2, f"cap_{g}_{t}"
    n_gpus = len(data.gpus)
    for t in range(data.horizon):
        present = [i for i, job in enumerate(data.jobs) if t in job.slots]
        if sum(data.jobs[i].gpus for i in present) > 2 * n_gpus:
            prob += (
                pulp.lpSum(data.jobs[i].gpus * v.r[i, t] for i in present) <= 2 * n_gpus,
                f"cap_total_{t}",
            )


def add_corun(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """p ≥ x_ig + x_kg − 1; v_t ≥ p + r_it + r_kt − 2; pairs that never fit never co-run."""
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        for g in data.gpus:
            prob += v.p[q] >= v.x[i, g] + v.x[k, g] - 1, f"pair_{q}_{g}"
        for t in pair.overlap:
            if not pair.any_fit:
                prob += v.p[q] + v.r[i, t] + v.r[k, t] <= 2, f"no_corun_{q}_{t}"
            elif (q, t) in v.v:
                prob += v.v[q, t] >= v.p[q] + v.r[i, t] + v.r[k, t] - 2, f"corun_{q}_{t}"


def add_no_idle_wait(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """A job starts at its arrival slot, or some job held one of its GPUs in the slot before.

    See :func:`formulations.offline.cpsat.constraints.add_no_idle_wait` for the dominance
    argument. Needs p bounded from above: p ≤ Σ_g common_g, common_g ≤ x_ig, x_kg.
    """
    partners: dict[int, list[tuple[int, int]]] = {i: [] for i in range(len(data.jobs))}
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        for g in data.gpus:
            prob += v.common[q, g] <= v.x[i, g], f"common_{q}_{g}_a"
            prob += v.common[q, g] <= v.x[k, g], f"common_{q}_{g}_b"
        prob += v.p[q] <= pulp.lpSum(v.common[q, g] for g in data.gpus), f"p_upper_{q}"
        partners[i].append((q, k))
        partners[k].append((q, i))
    for j, job in enumerate(data.jobs):
        for t in job.start_slots:
            if t == job.first_start:
                continue
            reasons = []
            for q, i in partners[j]:
                if t - 1 in data.jobs[i].slots:
                    held = prob.add_variable(f"held_{j}_{i}_{t}", 0, 1, pulp.LpContinuous)
                    prob += held <= v.p[q], f"held_p_{j}_{i}_{t}"
                    prob += held <= v.r[i, t - 1], f"held_r_{j}_{i}_{t}"
                    reasons.append(held)
            prob += v.y[j, t] <= pulp.lpSum(reasons), f"no_idle_wait_{j}_{t}"


def add_fastest_when_alone(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """A job that never co-runs with anyone uses its fastest option (for its spanning).

    See :func:`formulations.offline.cpsat.constraints.add_fastest_when_alone`. Needs v bounded
    from above: v_t ≤ p, r_it, r_kt.
    """
    runs_with: dict[int, list[Var]] = {i: [] for i in range(len(data.jobs))}
    for q, pair in enumerate(data.pairs):
        if not pair.any_fit:
            continue
        i, k = pair.first, pair.second
        for t in pair.overlap:
            prob += v.v[q, t] <= v.p[q], f"v_p_{q}_{t}"
            prob += v.v[q, t] <= v.r[i, t], f"v_ri_{q}_{t}"
            prob += v.v[q, t] <= v.r[k, t], f"v_rk_{q}_{t}"
            runs_with[i].append(v.v[q, t])
            runs_with[k].append(v.v[q, t])
    for i, job in enumerate(data.jobs):
        for o, opt in enumerate(job.options):
            if any(other.spans == opt.spans and other.alone > opt.alone for other in job.options):
                prob += v.z[i, o] <= pulp.lpSum(runs_with[i]), f"fastest_{i}_{o}"


def add_pair_options(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """w is the product of the two jobs' option indicators (its marginals are z)."""
    for q, pair in enumerate(data.pairs):
        if not pair.any_fit:
            continue
        for first, job in ((True, pair.first), (False, pair.second)):
            for o in range(len(data.jobs[job].options)):
                prob += (
                    pulp.lpSum(
                        v.w[q, c]
                        for c, combo in enumerate(pair.options)
                        if combo.option(first) == o
                    )
                    == v.z[job, o],
                    f"w_marginal_{q}_{int(first)}_{o}",
                )


def add_memory(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Two jobs that ever co-run on a GPU use options that fit together in memory."""
    for q, pair in enumerate(data.pairs):
        if q not in v.ever:
            continue
        for t in pair.overlap:
            prob += v.ever[q] >= v.v[q, t], f"ever_{q}_{t}"
        prob += (
            v.ever[q] + pulp.lpSum(v.w[q, c] for c in pair.conflicts) <= 1,
            f"mem_{q}",
        )


def add_progress(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Work in a non-last slot ≤ full-slot progress alone, and beside every co-running partner.

    Beside partner k in slot t: prog ≤ Σ_c progress_c · w_c + (top − min_c progress_c)(1 − v_t).
    """
    scale = data.work_units_per_slot
    for i, job in enumerate(data.jobs):
        alone = pulp.lpSum(opt.alone / scale * v.z[i, o] for o, opt in enumerate(job.options))
        top = job.max_progress / scale
        for t in job.slots:
            not_last = v.r[i, t] - v.e.get((i, t), 0)
            prob += v.prog[i, t] <= top * not_last, f"prog_run_{i}_{t}"
            prob += v.prog[i, t] <= alone, f"prog_alone_{i}_{t}"
    for q, pair in enumerate(data.pairs):
        for i in (pair.first, pair.second):
            if not slowing_options(data, pair, i):
                continue
            first = i == pair.first
            top = data.jobs[i].max_progress / scale
            rate = pulp.lpSum(
                c.progress(first) / scale * v.w[q, n] for n, c in enumerate(pair.options)
            )
            slack = top - min(c.progress(first) for c in pair.options) / scale
            for t in pair.overlap:
                prob += (
                    v.prog[i, t] <= rate + slack * (1 - v.v[q, t]),
                    f"prog_pair_{q}_{int(first)}_{t}",
                )


def add_last_slot(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Time used in the last slot ≥ remaining work ÷ progress rate at the worst partner there."""
    scale = data.work_units_per_slot
    for i, job in enumerate(data.jobs):
        top = job.max_progress / scale
        for o, opt in enumerate(job.options):
            rate = opt.alone / scale
            prob += (
                v.frac[i] >= v.rest[i] / rate - top / rate * (1 - v.z[i, o]),
                f"frac_alone_{i}_{o}",
            )
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
                    prob += last >= v.v[q, t] + v.e[i, t] - 1, f"last_{i}_{k}_{t}"
            top = data.jobs[i].max_progress / scale
            for n in combos:
                rate = pair.options[n].progress(first) / scale
                prob += (
                    v.frac[i] >= v.rest[i] / rate - top / rate * (2 - last - v.w[q, n]),
                    f"frac_pair_{q}_{int(first)}_{n}",
                )


def add_work(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """All work is done: Σ_t prog + rest = W."""
    scale = data.work_units_per_slot
    for i, job in enumerate(data.jobs):
        prob += (
            pulp.lpSum(v.prog[i, t] for t in job.slots) + v.rest[i] == job.work / scale,
            f"work_{i}",
        )


def add_valid_cuts(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Redundant inequalities that tighten the LP relaxation (each holds for every schedule).

    Per slot with more GPU demand than GPUs: (a) GPUs holding two jobs ≥ Σ_j G_j r_jt − |Γ|, and
    each co-running pair shares at most min(G_i, G_k) of them; (b) throughput:
    Σ_j G_j · prog_jt / top_j ≤ (θ − 1) · Σ_j G_j r_jt + (2 − θ) · |Γ| (a GPU alone does at
    most 1, a shared one at most θ, and at least Σ_j G_j r_jt − |Γ| GPUs are shared; at full
    occupancy this is θ · |Γ|). Per pair with G_i + G_k > |Γ|: running together means sharing
    (v ≥ r_i + r_k − 1), or never both if they never fit.
    """
    scale = data.work_units_per_slot
    n_gpus = len(data.gpus)
    theta = data.throughput
    index = {(pair.first, pair.second): q for q, pair in enumerate(data.pairs)}
    for t in range(data.horizon):
        present = data.present(t)
        if sum(data.jobs[i].gpus for i in present) <= n_gpus:
            continue
        shared = pulp.lpSum(
            min(data.jobs[i].gpus, data.jobs[k].gpus) * v.v[index[i, k], t]
            for a, i in enumerate(present)
            for k in present[a + 1 :]
            if (i, k) in index and (index[i, k], t) in v.v
        )
        demand = pulp.lpSum(data.jobs[i].gpus * v.r[i, t] for i in present)
        prob += shared >= demand - n_gpus, f"shared_gpus_{t}"
        prob += (
            pulp.lpSum(
                data.jobs[i].gpus * scale / data.jobs[i].max_progress * v.prog[i, t]
                for i in present
            )
            <= (theta - 1) * demand + (2 - theta) * n_gpus,
            f"throughput_{t}",
        )
    for q, pair in enumerate(data.pairs):
        i, k = pair.first, pair.second
        if data.jobs[i].gpus + data.jobs[k].gpus <= n_gpus:
            continue
        for t in pair.overlap:
            if pair.any_fit:
                prob += v.v[q, t] >= v.r[i, t] + v.r[k, t] - 1, f"must_share_{q}_{t}"
            else:
                prob += v.r[i, t] + v.r[k, t] <= 1, f"never_both_{q}_{t}"


def add_finish_cuts(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """A job runs at most its fastest alone pace (each holds for every schedule).

    With m_j = ⌈W_j / top_j⌉ slots of work at least: the last slot is at least m_j − 1 slots
    after the start (Σ_{τ≤t} e_jτ ≤ Σ_{τ≤t−m_j+1} y_jτ for every t), and the finish is at least
    W_j / top_j slots after the start (Σ_t t·e_jt + f_j ≥ Σ_t t·y_jt + W_j / top_j): full slots
    bring at most top_j and the last slot's share f_j is at least R_j / top_j.
    """
    for i, job in enumerate(data.jobs):
        least = -(-job.work // job.max_progress)
        for t in job.end_slots:
            started = [v.y[i, s] for s in job.start_slots if s <= t - least + 1]
            ended = [v.e[i, s] for s in job.end_slots if s <= t]
            prob += pulp.lpSum(ended) <= pulp.lpSum(started), f"least_slots_{i}_{t}"
        prob += (
            pulp.lpSum(t * v.e[i, t] for t in job.end_slots)
            + v.frac[i]
            - pulp.lpSum(t * v.y[i, t] for t in job.start_slots)
            >= job.work / job.max_progress,
            f"finish_after_start_{i}",
        )


def add_sharing_cuts(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """A sharing job runs at its sharing pace (each holds for every schedule; §2.10).

    Per slot with more GPU demand than GPUs, sh_jt ∈ {0, 1} (j shares a GPU in slot t; only for
    jobs that fit beside someone): sh_jt ≤ r_jt; Σ_j G_j sh_jt ≥ 2 (Σ_j G_j r_jt − |Γ|) (that
    many job-GPU incidences lie on shared GPUs); prog_jt ≤ top_j (r_jt − e_jt) −
    (top_j − S_j)(sh_jt − e_jt), S_j = ψ_j · top_j the most a full slot brings j while it
    shares (:func:`formulations.offline.pairs.sharing_progress`). In the last slot, with
    λ_j ≥ sh_jt + e_jt − 1: f_j ≥ R_j / S_j − (top_j / S_j)(1 − λ_j). The auxiliary sh and λ
    are made here: no other family reads them.
    """
    n_gpus = len(data.gpus)
    scale = data.work_units_per_slot
    pace = sharing_progress(data)
    shared: dict[int, list[tuple[Var, Var]]] = {}
    for t in range(data.horizon):
        present = data.present(t)
        if sum(data.jobs[i].gpus for i in present) <= n_gpus:
            continue
        incidences = []
        for i in present:
            job = data.jobs[i]
            if pace[i] == 0:
                continue
            sh = prob.add_variable(f"sh_{i}_{t}", cat=pulp.LpBinary)
            prob += sh <= v.r[i, t], f"sh_runs_{i}_{t}"
            last = v.e.get((i, t), 0)
            top = job.max_progress / scale
            prob += (
                v.prog[i, t] <= top * (v.r[i, t] - last) - (top - pace[i] / scale) * (sh - last),
                f"sh_pace_{i}_{t}",
            )
            incidences.append(job.gpus * sh)
            if (i, t) in v.e:
                shared.setdefault(i, []).append((sh, v.e[i, t]))
        demand = pulp.lpSum(data.jobs[i].gpus * v.r[i, t] for i in present)
        prob += pulp.lpSum(incidences) >= 2 * (demand - n_gpus), f"sh_incidences_{t}"
    for i, pairs in shared.items():
        last_shared = prob.add_variable(f"last_shared_{i}", 0, 1, pulp.LpContinuous)
        for n, (sh, end) in enumerate(pairs):
            prob += last_shared >= sh + end - 1, f"last_shared_{i}_{n}"
        top = data.jobs[i].max_progress
        prob += (
            v.frac[i] >= v.rest[i] * scale / pace[i] - top / pace[i] * (1 - last_shared),
            f"last_pace_{i}",
        )


def add_symmetry(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """GPU columns of a node in non-increasing lex order; identical jobs start in order."""
    rows = data.lex_rows
    weights = {i: 2 ** (len(rows) - 1 - n) for n, i in enumerate(rows)}
    for node in data.nodes:
        for g, h in pairwise(node):
            prob += (
                pulp.lpSum(weights[i] * v.x[i, g] for i in rows)
                >= pulp.lpSum(weights[i] * v.x[i, h] for i in rows),
                f"lex_{g}",
            )
    for i, k in data.identical:
        prob += (
            pulp.lpSum(t * v.y[i, t] for t in data.jobs[i].start_slots)
            <= pulp.lpSum(t * v.y[k, t] for t in data.jobs[k].start_slots),
            f"ident_{i}_{k}",
        )


def add_upper_bound(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Σ finish ≤ the heuristic's bound (keeps every schedule at least as good)."""
    if data.upper_bound_total is not None:
        prob += total_finish(data, v) <= data.upper_bound_total + data.arrival_total, "ub"


def add_lower_bound(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Σ JCT ≥ the preprocessing's lower bound (Σ LB_j, SRPT, the relaxation of §2.10), less a
    margin of 10⁻⁶ relative + 10⁻³ s for the bound's own float error."""
    if data.lower_bound_total > 0:
        floor = data.lower_bound_total * (1 - 1e-6) - 1e-3
        prob += total_finish(data, v) - data.arrival_total >= floor, "lb"


def add_exclusions(
    prob: pulp.LpProblem, data: OfflineData, v: MilpVars, excluded: Sequence[dict[int, JobPlan]]
) -> None:
    """No-good cuts: each excluded schedule (start slots, options, GPU sets) is infeasible."""
    table = {"y": v.y, "x": v.x, "z": v.z}
    for n, plans in enumerate(excluded):
        keys = decision_keys(plans)
        prob += (
            pulp.lpSum(table[name][i, k] for name, i, k in keys) <= len(keys) - 1,
            f"exclude_{n}",
        )
