"""The compiled loops of :mod:`sjfbsbf.policies.benefit_kernel` (numba; imported on first use).

Every benefit is :func:`~sjfbsbf.policies.benefit.pair_benefit` under a
:class:`~sjfbsbf.core.interference.ContentionModel`, with the same floating-point operations in
the same order; numba compiles without fast-math, so the floats are numpy's.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def pair(
    t_full: float,
    t_sub: float,
    wait: float,
    has_wait: bool,
    retune: bool,
    grow: float,
    ka: float,
    kappa: float,
    press_a: float,
    t_b: float,
    sens_b: float,
    press_b: float,
) -> float:
    """Benefit of a pending job beside one host: ``grow = 1 + ε`` and ``ka = κ · sens_a``."""
    xi_a = grow * (1.0 + ka * press_b)
    xi_b = grow * (1.0 + kappa * sens_b * press_a)
    b_end = xi_b * t_b
    a_end = xi_a * t_sub
    if b_end <= a_end:  # the host ends first
        tail = t_sub - b_end / xi_a
        if retune:
            tail = tail * (t_full / t_sub)
        shared = (b_end + tail) + b_end
    else:
        shared = a_end + ((a_end + t_b) - a_end / xi_b)
    waited = ((wait if has_wait else t_b) + t_full) + t_b
    return waited - shared


@njit(cache=True, error_model="numpy")
def host_loop(
    job: np.ndarray,
    flags: np.ndarray,
    model: np.ndarray,
    room: np.ndarray,
    remaining: np.ndarray,
    sens_h: np.ndarray,
    press_h: np.ndarray,
    gpu_count: np.ndarray,
    benefit: np.ndarray,
    positive: np.ndarray,
) -> tuple[int, int, int]:
    """One option of one job against every host (see ``benefit_kernel.host_benefits``)."""
    t_full, t_sub, wait, memory, sens_a, press_a = job[0], job[1], job[2], job[3], job[4], job[5]
    has_wait, retune = flags[0], flags[1]
    kappa, eps, tolerance = model[0], model[1], model[2]
    grow = 1.0 + eps
    ka = kappa * sens_a
    fit_hosts = 0
    fit_gpus = 0
    positive_gpus = 0
    for k in range(room.shape[0]):
        value = pair(
            t_full, t_sub, wait, has_wait, retune, grow, ka, kappa, press_a,
            remaining[k], sens_h[k], press_h[k],
        )  # fmt: skip
        benefit[k] = value
        fits = room[k] + tolerance >= memory
        positive[k] = fits and value > 0.0
        if fits:
            fit_hosts += 1
            fit_gpus += gpu_count[k]
            if value > 0.0:
                positive_gpus += gpu_count[k]
    return fit_hosts, fit_gpus, positive_gpus


@njit(cache=True, error_model="numpy")
def greedy(
    first: int,
    gpus: np.ndarray,
    row_start: np.ndarray,
    rows: np.ndarray,
    settings: np.ndarray,
    flags: np.ndarray,
    idle_count: int,
    room: np.ndarray,
    remaining: np.ndarray,
    sens_h: np.ndarray,
    press_h: np.ndarray,
    gpu_count: np.ndarray,
    plans: np.ndarray,
    plan_scores: np.ndarray,
    plan_hosts: np.ndarray,
    waits: np.ndarray,
) -> tuple[int, int]:
    """SJF-BSBF's greedy from job ``first`` on (see ``benefit_kernel.greedy``)."""
    kappa, eps, tolerance, threshold = settings[0], settings[1], settings[2], settings[3]
    most = int(settings[4])
    retune, largest, mix_idle = flags[0], flags[1], flags[2]
    grow = 1.0 + eps
    n_hosts = room.shape[0]
    alive = np.ones(n_hosts, dtype=np.bool_)
    n_alive = n_hosts
    benefit = np.empty(n_hosts)
    positive = np.zeros(n_hosts, dtype=np.bool_)
    taken = np.zeros(n_hosts, dtype=np.bool_)
    picked = np.empty(n_hosts, dtype=np.int64)
    best_hosts = np.empty(n_hosts, dtype=np.int64)
    n_plans = 0
    n_used = 0
    for j in range(first, gpus.shape[0]):
        need = gpus[j]
        if need <= idle_count:  # it starts alone: the caller places it
            return j, n_plans
        if n_alive == 0:
            waits[0] += 1
            continue
        idle = idle_count if mix_idle else 0
        any_fit = False
        best_row = -1
        best_score = 0.0
        best_n = 0
        for r in range(row_start[j], row_start[j + 1]):
            t_full, t_sub, memory, sens_a, press_a = (
                rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3], rows[r, 4]
            )  # fmt: skip
            ka = kappa * sens_a
            fit_hosts = 0
            fit_gpus = 0
            positive_gpus = 0
            for k in range(n_hosts):
                positive[k] = False
                if alive[k] and room[k] + tolerance >= memory:
                    fit_hosts += 1
                    fit_gpus += gpu_count[k]
                    value = pair(
                        t_full, t_sub, 0.0, False, retune, grow, ka, kappa, press_a,
                        remaining[k], sens_h[k], press_h[k],
                    )  # fmt: skip
                    benefit[k] = value
                    if value > 0.0:
                        positive[k] = True
                        positive_gpus += gpu_count[k]
            if fit_hosts == 0:
                continue
            any_fit = True
            ok = False
            score = 0.0
            count = 0
            if idle + fit_gpus >= need and idle + positive_gpus >= need:
                # build_plan: idle GPUs first, then the best hosts (ties: lowest row = id).
                chosen = idle  # fewer than it needs (else it fits alone)
                for k in range(n_hosts):
                    taken[k] = False
                while chosen < need and (most < 0 or count < most):
                    pick = -1
                    for k in range(n_hosts):
                        if (
                            positive[k]
                            and not taken[k]
                            and (pick < 0 or benefit[k] > benefit[pick])
                        ):
                            pick = k
                    if pick < 0:
                        break
                    taken[pick] = True
                    picked[count] = pick
                    count += 1
                    chosen += min(gpu_count[pick], need - chosen)
                    score += benefit[pick]
                ok = chosen >= need
            if largest:  # only the largest micro-batch that fits beside a host
                if ok:
                    best_row, best_score, best_n = r, score, count
                    for c in range(count):
                        best_hosts[c] = picked[c]
                break
            if ok and (best_row < 0 or score > best_score):
                best_row, best_score, best_n = r, score, count
                for c in range(count):
                    best_hosts[c] = picked[c]
        if best_row >= 0 and best_score > threshold:
            used_idle = idle  # all of them: it did not fit on the idle GPUs alone
            plans[n_plans, 0] = j
            plans[n_plans, 1] = best_row
            plans[n_plans, 2] = used_idle
            plans[n_plans, 3] = n_used
            plans[n_plans, 4] = n_used + best_n
            plan_scores[n_plans] = best_score
            for c in range(best_n):
                plan_hosts[n_used + c] = best_hosts[c]
                alive[best_hosts[c]] = False
            n_used += best_n
            n_alive -= best_n
            n_plans += 1
            idle_count -= used_idle
        elif any_fit:
            waits[1] += 1
        else:
            waits[2] += 1
    return gpus.shape[0], n_plans


@njit(cache=True, error_model="numpy")
def best_hosts(
    benefit: np.ndarray, positive: np.ndarray, gpu_count: np.ndarray, needed: int, most: int
) -> np.ndarray:
    """Indices of the hosts a plan takes: the best benefit first (ties: the lowest index, i.e.
    host id, the table being sorted by id) among ``positive``, until their GPUs reach
    ``needed`` or ``most`` hosts are taken (``most`` < 0: no limit)."""
    taken = np.zeros(benefit.shape[0], dtype=np.bool_)
    chosen = np.empty(benefit.shape[0], dtype=np.int64)
    count = 0
    gpus = 0
    while gpus < needed and (most < 0 or count < most):
        best = -1
        for k in range(benefit.shape[0]):
            if positive[k] and not taken[k] and (best < 0 or benefit[k] > benefit[best]):
                best = k
        if best < 0:
            break
        taken[best] = True
        chosen[count] = best
        count += 1
        gpus += gpu_count[best]
    return chosen[:count]
