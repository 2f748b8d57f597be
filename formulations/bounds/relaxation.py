"""The placement-free relaxation of the offline model (docs/formulations.md §2.10).

The offline model (§2.3–2.4) without GPU ids, pairs or options: each job keeps an integer start
slot and last slot (non-preemptive, windows of §2.2), progresses in a slot at most its fastest
alone pace, and the cluster caps, per slot, the GPUs held (each GPU holds at most two jobs; a job
that fits beside nobody holds its GPUs alone) and the work done (a GPU alone does at most one
fastest-alone slot of work, a shared one at most θ_t, the best pair present). Every schedule of
the model maps to a solution of the relaxation of equal or smaller objective, so its optimum —
and HiGHS's bound on it when stopped — bounds the model's optimum, hence every schedule's
simulated average JCT up to the tolerance of §2.5, from below.

Variables (MILP, PuLP on HiGHS through :mod:`formulations.engines.milp`): y_jt, e_jt binary
(start, last slot); r_jt = Σ_{τ≤t} y_jτ − Σ_{τ<t} e_jτ; u_jt ∈ [0, 1] (work of a non-last slot,
in fastest-alone slots); ρ_j ∈ [0, 1] (work of the last slot); f_j ∈ [0, 1] (share of the last
slot used).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulp

from formulations.engines import EngineOptions
from formulations.engines import milp as engine
from formulations.offline.data import OfflineData, PairData
from formulations.offline.pairs import capped_progress, sharing_progress
from formulations.result import SolveStatus

#: Whether "j shares a GPU in slot t" is binary (else in [0, 1]).
SHARE_BINARY = True
#: HiGHS's node limit for the relaxation (deterministic; the suite's instances need < 100).
MAX_NODES = 200
#: Wall-clock guard of the relaxation (s): only a machine far slower than expected meets it.
WALL_GUARD_S = 120.0
#: Largest relaxation solved by default, in binaries (12 jobs on 8 GPUs: about 700).
MAX_BINARIES = 1500
#: ``RelaxationBound.limit`` of a relaxation too large to solve (:data:`MAX_BINARIES`).
SIZE_LIMIT = "size"


@dataclass(frozen=True, slots=True)
class RelaxationBound:
    """The relaxation's outcome.

    Attributes
    ----------
    status
        The solve's status (OPTIMAL: ``bound`` is the relaxation's optimum).
    bound
        Lower bound on the model's average JCT (s), or ``None`` if the solve gave none.
    runtime_s
        Solve time (s), building excluded.
    limit
        What stopped the solve before a proof (``"node limit"``: reproducible; ``"wall-clock"``:
        the guard, not reproducible), ``None`` if nothing did.
    """

    status: SolveStatus
    bound: float | None
    runtime_s: float
    limit: str | None = None

    def as_info(self) -> dict[str, Any]:
        """The record ``solve_offline`` keeps in its ``info`` (status as its value)."""
        return {
            "status": self.status.value,
            "bound": self.bound,
            "runtime_s": self.runtime_s,
            "limit": self.limit,
        }


def pair_throughput(data: OfflineData, pair: PairData) -> float:
    """Best per-GPU work of ``pair`` side by side, in fastest-alone slots (0 if it never fits)."""
    first, second = data.jobs[pair.first], data.jobs[pair.second]
    return max(
        (
            capped_progress(data, pair, combo, True) / first.max_progress
            + capped_progress(data, pair, combo, False) / second.max_progress
            for combo in pair.options
            if combo.fits
        ),
        default=0.0,
    )


def sharing_paces(data: OfflineData) -> list[float]:
    """ψ_j: the best pace of job j while it shares a GPU, in fastest-alone slots per slot
    (:func:`formulations.offline.pairs.sharing_progress` ÷ top_j; 0 for a job that fits beside
    nobody)."""
    return [
        units / job.max_progress
        for units, job in zip(sharing_progress(data), data.jobs, strict=True)
    ]


def pace_hull(data: OfflineData, pair: PairData) -> list[tuple[float, float]]:
    """The Pareto vertices (pace of first, pace of second) of ``pair``'s fitting option
    combinations, from the first's slowest to its fastest (the upper-right convex hull)."""
    first, second = data.jobs[pair.first], data.jobs[pair.second]
    points = sorted(
        {
            (
                capped_progress(data, pair, combo, True) / first.max_progress,
                capped_progress(data, pair, combo, False) / second.max_progress,
            )
            for combo in pair.options
            if combo.fits
        }
    )
    hull: list[tuple[float, float]] = []
    for point in sorted(points, key=lambda q: (q[0], -q[1])):
        while hull and hull[-1][1] <= point[1]:
            hull.pop()  # dominated by the point
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            # drop the middle vertex when it lies on or below the chord
            if (x2 - x1) * (point[1] - y1) - (y2 - y1) * (point[0] - x1) >= 0:
                hull.pop()
            else:
                break
        hull.append(point)
    return hull


def pair_paces(data: OfflineData) -> dict[tuple[int, int], float]:
    """``(j, k)`` -> the best pace of j beside k (fastest-alone slots per slot), for pairs that
    fit in some option combination."""
    paces: dict[tuple[int, int], float] = {}
    for pair in data.pairs:
        for combo in pair.options:
            if combo.fits:
                for first, i in ((True, pair.first), (False, pair.second)):
                    value = capped_progress(data, pair, combo, first) / data.jobs[i].max_progress
                    key = (i, pair.other(i))
                    paces[key] = max(paces.get(key, 0.0), value)
    return paces


def slot_throughputs(data: OfflineData) -> list[float]:
    """θ_t per slot: the best pair throughput among pairs both present in slot t (at least 1)."""
    theta = [1.0] * data.horizon
    for pair in data.pairs:
        value = pair_throughput(data, pair)
        for t in pair.overlap:
            if value > theta[t]:
                theta[t] = value
    return theta


def build_relaxation(data: OfflineData) -> tuple[pulp.LpProblem, dict[str, dict[Any, Any]]]:
    """The relaxation as a PuLP model (objective: average JCT, s) and its variables."""
    prob = pulp.LpProblem("placement_free", pulp.LpMinimize)
    n_gpus = len(data.gpus)
    binary, cont = pulp.LpBinary, pulp.LpContinuous
    new = prob.add_variable
    y, e, r, u, rho, frac, sh, rho_shared, last_shared = {}, {}, {}, {}, {}, {}, {}, {}, {}
    pace = sharing_paces(data)
    beside = pair_paces(data)
    partners: dict[tuple[int, int], list[int]] = {}  # (j, t) -> partners present in slot t
    slot_pace: dict[tuple[int, int], float] = {}  # (j, t) -> ψ_jt, its best pace beside them
    for pair in data.pairs:
        if not pair.any_fit:
            continue
        for t in pair.overlap:
            for i, k in ((pair.first, pair.second), (pair.second, pair.first)):
                partners.setdefault((i, t), []).append(k)
                slot_pace[i, t] = max(slot_pace.get((i, t), 0.0), beside[i, k])
    for i, job in enumerate(data.jobs):
        for t in job.start_slots:
            y[i, t] = new(f"y_{i}_{t}", cat=binary)
        for t in job.end_slots:
            e[i, t] = new(f"e_{i}_{t}", cat=binary)
        for t in job.slots:
            r[i, t] = new(f"r_{i}_{t}", 0, 1, cont)
            u[i, t] = new(f"u_{i}_{t}", 0, 1, cont)
            if (i, t) in partners:
                sh[i, t] = new(f"sh_{i}_{t}", cat=binary if SHARE_BINARY else cont)
        rho[i] = new(f"rho_{i}", 0, 1, cont)
        if pace[i] > 0:
            rho_shared[i] = new(f"rho_shared_{i}", 0, 1, cont)
            last_shared[i] = new(f"last_shared_{i}", 0, 1, cont)
        frac[i] = new(f"f_{i}", 0, 1, cont)
    for i, job in enumerate(data.jobs):
        prob += pulp.lpSum(y[i, t] for t in job.start_slots) == 1, f"start_{i}"
        prob += pulp.lpSum(e[i, t] for t in job.end_slots) == 1, f"end_{i}"
        for t in job.slots:
            started = pulp.lpSum(y[i, s] for s in job.start_slots if s <= t)
            ended = pulp.lpSum(e[i, s] for s in job.end_slots if s < t)
            prob += r[i, t] == started - ended, f"run_{i}_{t}"
            last = e.get((i, t), 0)
            if (i, t) in e:
                prob += e[i, t] <= r[i, t], f"end_runs_{i}_{t}"
            prob += u[i, t] <= r[i, t] - last, f"pace_{i}_{t}"
            if (i, t) in sh:
                prob += sh[i, t] <= r[i, t], f"shares_runs_{i}_{t}"
                prob += (
                    u[i, t] <= r[i, t] - last - (1 - slot_pace[i, t]) * (sh[i, t] - last),
                    (f"shared_pace_{i}_{t}"),
                )
                prob += (
                    sh[i, t] <= pulp.lpSum(sh[k, t] for k in partners[i, t] if (k, t) in sh),
                    f"partner_shares_{i}_{t}",
                )
        if i in rho_shared:  # the last slot's work alone (rho) or beside a partner (rho_shared)
            prob += rho[i] + rho_shared[i] / pace[i] <= frac[i], f"last_share_{i}"
            prob += rho[i] <= 1 - last_shared[i], f"last_alone_{i}"
            prob += rho_shared[i] <= pace[i] * last_shared[i], f"last_beside_{i}"
            for t in job.end_slots:
                if (i, t) in sh:
                    prob += last_shared[i] >= sh[i, t] + e[i, t] - 1, f"last_shares_{i}_{t}"
        else:
            prob += rho[i] <= frac[i], f"last_share_{i}"
        prob += (
            pulp.lpSum(u[i, t] for t in job.slots) + rho[i] + rho_shared.get(i, 0)
            >= job.work / job.max_progress,
            f"work_{i}",
        )
        least = -(-job.work // job.max_progress)
        for t in job.end_slots:
            started = pulp.lpSum(y[i, s] for s in job.start_slots if s <= t - least + 1)
            prob += (
                pulp.lpSum(e[i, s] for s in job.end_slots if s <= t) <= started,
                (f"least_{i}_{t}"),
            )
        prob += (
            pulp.lpSum(t * e[i, t] for t in job.end_slots)
            + frac[i]
            - pulp.lpSum(t * y[i, t] for t in job.start_slots)
            >= job.work / job.max_progress,
            f"finish_after_start_{i}",
        )
    theta = slot_throughputs(data)
    for t in range(data.horizon):
        present = data.present(t)
        if not present:
            continue
        demand = pulp.lpSum(data.jobs[i].gpus * r[i, t] for i in present)
        held = pulp.lpSum((1 if (i, t) in sh else 2) * data.jobs[i].gpus * r[i, t] for i in present)
        prob += held <= 2 * n_gpus, f"held_{t}"
        prob += (
            pulp.lpSum(data.jobs[i].gpus * sh[i, t] for i in present if (i, t) in sh)
            >= 2 * (demand - n_gpus),
            f"shared_incidences_{t}",
        )
        prob += (
            pulp.lpSum(data.jobs[i].gpus * u[i, t] for i in present)
            <= (theta[t] - 1) * demand + (2 - theta[t]) * n_gpus,
            f"work_cap_{t}",
        )
    prob += (
        pulp.lpSum(
            data.dt * (pulp.lpSum(t * e[i, t] for t in job.end_slots) + frac[i])
            for i, job in enumerate(data.jobs)
        )
        - data.arrival_total
    ) / len(data.jobs)
    variables: dict[str, dict[Any, Any]] = {"y": y, "e": e, "r": r, "u": u, "rho": rho}
    variables.update(frac=frac, sh=sh, rho_shared=rho_shared, last_shared=last_shared)
    return prob, variables


def relaxation_bound(
    data: OfflineData,
    *,
    max_nodes: int | None = MAX_NODES,
    time_limit: float | None = WALL_GUARD_S,
    max_binaries: int | None = MAX_BINARIES,
    seed: int = 0,
    deadline: float | None = None,
) -> RelaxationBound:
    """Solve the placement-free relaxation; its optimum (or HiGHS's bound) bounds the model's.

    Parameters
    ----------
    data
        The offline model's data (its windows: with the heuristic's bound, the relaxation bounds
        every schedule at least as good as the heuristic's, as the model does).
    max_nodes
        HiGHS's branch-and-bound node limit (deterministic: a run stopped by it gives the same
        bound every time; ``None``: none).
    time_limit
        A wall-clock guard (s) for machines far slower than expected (``None``: none); a run it
        stops is not reproducible (``status`` FEASIBLE/TIME_LIMIT, see ``limit``).
    max_binaries
        Solve only a relaxation of at most this many binaries (``None``: any); a larger one
        comes back UNKNOWN without a bound, ``limit`` ``"size"`` (a deterministic rule: HiGHS's
        root node alone took 32 s at 2,700 binaries and over 120 s at 11,800).
    seed
        HiGHS's random seed.
    deadline
        A ``time.monotonic()`` value the solve must not pass (``None``: none): HiGHS's limit is
        cut to the time left when it starts (``solve_offline``'s wall-clock mode).
    """
    if data.infeasible is not None:
        return RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0)
    prob, _ = build_relaxation(data)
    return solve_mip_bound(prob, max_nodes, time_limit, max_binaries, seed, deadline)


def solve_mip_bound(
    prob: pulp.LpProblem,
    max_nodes: int | None,
    time_limit: float | None,
    max_binaries: int | None,
    seed: int,
    deadline: float | None = None,
) -> RelaxationBound:
    """Solve a relaxation MILP on HiGHS (the arguments of :func:`relaxation_bound`): its optimum,
    or HiGHS's bound when a limit stopped it; UNKNOWN with ``limit`` ``"size"`` above
    ``max_binaries``."""
    binaries = sum(1 for variable in prob.variables() if variable.cat == pulp.LpInteger)
    if max_binaries is not None and binaries > max_binaries:
        return RelaxationBound(SolveStatus.UNKNOWN, None, 0.0, SIZE_LIMIT)
    run = engine.solve(
        prob,
        EngineOptions(time_limit=time_limit, seed=seed, workers=1, deadline=deadline),
        backend="highs",
        gap_rel=0.0,
        gap_abs=1e-7,
        max_nodes=max_nodes,
    )
    bound = run.bound
    if bound is None and run.status is SolveStatus.OPTIMAL:
        bound = run.objective
    return RelaxationBound(run.status, bound, run.runtime_s, run.limit)
