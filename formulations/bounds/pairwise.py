"""The pairwise relaxation: the placement-free relaxation with persistent pairs and options
(docs/formulations.md §2.10, item 5).

The placement-free relaxation (:mod:`formulations.bounds.relaxation`) lets a job share in some
slots and not in others and lets each job of a pair run at its best pace beside the other as if
each had picked the option combination best for itself. In a schedule neither holds: a job's
GPUs are fixed for life, so two jobs that share a GPU share it in every slot both hold their
GPUs; and a job's option (its sub-batch) is fixed for life, so a pair runs at the paces of *one*
option combination, and the job alone runs at its option's alone pace. This model adds both on
top of the relaxation, still without GPU ids:

* p_jkt ∈ {0, 1}: j and k share a GPU in slot t (for pairs that fit, both possibly present);
  p_jkt ≤ sh_jt, sh_kt; sh_jt ≤ Σ_k p_jkt; h_jkt ∈ [0, min(G_j, G_k) p_jkt] the GPUs they share,
  1 · sh_jt ≤ Σ_k h_jkt ≤ G_j r_jt, and per slot Σ_j G_j r_jt − Σ h_jkt ≤ |Γ|;
* persistence: p_jkt ≤ p_jk,t−1 + y_jt + y_kt (a pair forms only when one of them starts) and
  p_jk,t−1 ≤ p_jkt + e_j,t−1 + e_k,t−1 (it parts only after one of them ends);
* options: w_ja ∈ {0, 1}, Σ_a w_ja = 1; u_jt ≤ Σ_a (alone_ja / top_j) w_ja; the last slot's
  alone work takes ρ_j · top_j / alone_ja of it when w_ja;
* the pace hull: while they share, (u_jt, u_kt) lies under the upper-right convex hull of the
  pair's (pace of j, pace of k) over its fitting combinations (each facet a·u_j + b·u_k ≤ c
  holds when p_jkt, relaxed by a + b − c otherwise);
* combinations: per pair c_jko ∈ [0, 1] for each fitting combination o = (a, b),
  Σ_{o ∋ a} c_jko ≤ w_ja, Σ_{o ∋ b} c_jko ≤ w_kb, Σ_o c_jko ≥ p_jkt; in a slot they share,
  u_jt ≤ Σ_o π_jo c_jko + (1 − p_jkt) (π_jo the capped pace of j in combination o), and in j's
  last slot f_j ≥ ρ_j + ρ'_j / π_jo when p_jkt, e_jt and c_jko are all one.

Every schedule of the model maps to a solution (p where the pair shares a GPU, w its options,
c = 1 on the combination the pair's options make), so the optimum — and HiGHS's bound when
stopped — bounds every schedule at least as good as the heuristic's from below, like the
relaxation. On the proven suite instances it meets the optimum where the relaxation sits 2–10%
below, but it is a MILP as hard as the model at 8–10 jobs: not run by ``solve_offline``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pulp

from formulations.bounds.relaxation import (
    MAX_NODES,
    WALL_GUARD_S,
    RelaxationBound,
    build_relaxation,
    pace_hull,
    sharing_paces,
    solve_mip_bound,
)
from formulations.offline.data import OfflineData
from formulations.offline.pairs import capped_progress
from formulations.result import SolveStatus

#: Largest pairwise relaxation solved by default, in binaries.
MAX_BINARIES = 3000


def build_pairwise(data: OfflineData) -> tuple[pulp.LpProblem, dict[str, dict[Any, Any]]]:
    """The pairwise relaxation as a PuLP model (objective: average JCT, s) and its variables
    (the relaxation's, plus ``p``, ``h``, ``w`` and ``c``)."""
    prob, var = build_relaxation(data)
    y, e, r, u = var["y"], var["e"], var["r"], var["u"]
    rho, frac, sh, rho_shared = var["rho"], var["frac"], var["sh"], var["rho_shared"]
    new = prob.add_variable
    psi = sharing_paces(data)
    binary, cont = pulp.LpBinary, pulp.LpContinuous
    # options for life
    w: dict[tuple[int, int], Any] = {}
    for i, job in enumerate(data.jobs):
        top = job.max_progress
        for a in range(len(job.options)):
            w[i, a] = new(f"w_{i}_{a}", cat=binary)
        prob += pulp.lpSum(w[i, a] for a in range(len(job.options))) == 1, f"option_{i}"
        alone = pulp.lpSum(o.alone / top * w[i, a] for a, o in enumerate(job.options))
        for t in job.slots:
            prob += u[i, t] <= alone, f"option_pace_{i}_{t}"
        shared_last = rho_shared[i] * (1 / psi[i]) if i in rho_shared else 0
        for a, o in enumerate(job.options):
            inv = top / o.alone
            prob += (
                frac[i] >= rho[i] * inv + shared_last - inv * (1 - w[i, a]),
                f"option_last_{i}_{a}",
            )
    # pairs for life
    p: dict[tuple[int, int, int], Any] = {}
    h: dict[tuple[int, int, int], Any] = {}
    of_job: dict[tuple[int, int], list[tuple[Any, Any]]] = {}  # (j, t) -> [(p, h)]
    c: dict[tuple[int, int, int], Any] = {}
    for pair in data.pairs:
        if not pair.any_fit:
            continue
        j, k = pair.first, pair.second
        both = min(data.jobs[j].gpus, data.jobs[k].gpus)
        slots = [t for t in pair.overlap if (j, t) in sh and (k, t) in sh]
        if not slots:
            continue
        combos = [combo for combo in pair.options if combo.fits]
        hull = pace_hull(data, pair)
        facets = [
            (y1 - y2, x2 - x1, (y1 - y2) * x1 + (x2 - x1) * y1)
            for (x1, y1), (x2, y2) in itertools.pairwise(hull)
        ]
        for n in range(len(combos)):
            c[j, k, n] = new(f"c_{j}_{k}_{n}", 0, 1, cont)
        for a in range(len(data.jobs[j].options)):
            mine = [c[j, k, n] for n, combo in enumerate(combos) if combo.first_option == a]
            prob += pulp.lpSum(mine) <= w[j, a], f"combo_first_{j}_{k}_{a}"
        for b in range(len(data.jobs[k].options)):
            mine = [c[j, k, n] for n, combo in enumerate(combos) if combo.second_option == b]
            prob += pulp.lpSum(mine) <= w[k, b], f"combo_second_{j}_{k}_{b}"
        chosen = pulp.lpSum(c[j, k, n] for n in range(len(combos)))
        for t in slots:
            pv = p[j, k, t] = new(f"p_{j}_{k}_{t}", cat=binary)
            hv = h[j, k, t] = new(f"h_{j}_{k}_{t}", 0, both, cont)
            prob += hv <= both * pv, f"pair_gpus_{j}_{k}_{t}"
            prob += pv <= sh[j, t], f"pair_first_shares_{j}_{k}_{t}"
            prob += pv <= sh[k, t], f"pair_second_shares_{j}_{k}_{t}"
            prob += chosen >= pv, f"pair_combo_{j}_{k}_{t}"
            for n, (fa, fb, fc) in enumerate(facets):  # the pair's pace hull, while they share
                prob += (
                    fa * u[j, t] + fb * u[k, t] <= fc + (fa + fb - fc) * (1 - pv),
                    f"pair_hull_{j}_{k}_{t}_{n}",
                )
            for first, i in ((True, j), (False, k)):
                of_job.setdefault((i, t), []).append((pv, hv))
                paces = [
                    capped_progress(data, pair, combo, first) / data.jobs[i].max_progress
                    for combo in combos
                ]
                prob += (
                    u[i, t] <= pulp.lpSum(v * c[j, k, n] for n, v in enumerate(paces)) + 1 - pv,
                    f"pair_pace_{i}_{j}_{k}_{t}",
                )
                if (i, t) in e and i in rho_shared:
                    for n, v in enumerate(paces):
                        big = 1 / v
                        prob += (
                            frac[i]
                            >= rho[i] + rho_shared[i] * big - big * (3 - pv - e[i, t] - c[j, k, n]),
                            f"pair_last_{i}_{j}_{k}_{t}_{n}",
                        )
            before = p.get((j, k, t - 1))
            if before is not None:
                joined = y.get((j, t), 0) + y.get((k, t), 0)
                prob += pv <= before + joined, f"pair_forms_{j}_{k}_{t}"
                parted = e.get((j, t - 1), 0) + e.get((k, t - 1), 0)
                prob += before <= pv + parted, f"pair_parts_{j}_{k}_{t}"
    for (i, t), share in sh.items():
        pairs_here = of_job.get((i, t), [])
        prob += share <= pulp.lpSum(pv for pv, _ in pairs_here), f"shares_with_{i}_{t}"
        gpus = pulp.lpSum(hv for _, hv in pairs_here)
        prob += gpus <= data.jobs[i].gpus * r[i, t], f"shared_gpus_{i}_{t}"
        prob += gpus >= share, f"shares_a_gpu_{i}_{t}"
    by_slot: dict[int, list[Any]] = {}
    for (_, _, t), hv in h.items():
        by_slot.setdefault(t, []).append(hv)
    for t, shared in by_slot.items():
        held = pulp.lpSum(data.jobs[i].gpus * r[i, t] for i in data.present(t))
        prob += held - pulp.lpSum(shared) <= len(data.gpus), f"gpus_{t}"
    return prob, {**var, "p": p, "h": h, "w": w, "c": c}


def pairwise_bound(
    data: OfflineData,
    *,
    max_nodes: int | None = MAX_NODES,
    time_limit: float | None = WALL_GUARD_S,
    max_binaries: int | None = MAX_BINARIES,
    seed: int = 0,
) -> RelaxationBound:
    """Solve the pairwise relaxation on HiGHS; its optimum (or HiGHS's bound when stopped by
    ``max_nodes`` or ``time_limit``) bounds the model's average JCT from below.

    Parameters are those of :func:`formulations.bounds.relaxation.relaxation_bound`; a model of
    more than ``max_binaries`` binaries comes back UNKNOWN without a bound, ``limit`` ``"size"``.
    """
    if data.infeasible is not None:
        return RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0)
    prob, _ = build_pairwise(data)
    return solve_mip_bound(prob, max_nodes, time_limit, max_binaries, seed)
