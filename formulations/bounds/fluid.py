"""The fluid bound: a linear program that scales to 50 jobs (docs/formulations.md §2.10).

The placement-free relaxation (:mod:`formulations.bounds.relaxation`) keeps integer starts and
is not solved above 1,500 binaries (about 12 jobs on 8 GPUs). The fluid bound drops integrality:
each job's work (in fastest-alone slots, w_j = W_j / top_j) is spread over the slots of its
window at a rate of at most one; a job holds its GPUs for a share f_jt of a slot, over a
convex combination of whole intervals of m_j..n_j slots; a GPU is charged one per job holding
it, less one per GPU two jobs share (each GPU holds at most two jobs); the GPUs j and k share
are split over the vertices n of the pair's pace hull (the paces the two can have *together*,
one option combination at a time, :func:`formulations.bounds.relaxation.pace_hull`), and j
loses (1 − its pace at vertex n) · h_jktn / G_j of its slot's work. The
objective takes the larger of two completion bounds: the mean-busy-time bound (a job whose work
runs at a rate ≤ 1 completes ≥ w_j / 2 after the mean time of its work, and work x in slot t
has its mean ≥ t + x / 2, a convex term bounded by tangents) and the intervals' (an interval
from slot s of T slots ends after s + max(T − 1, w_j)).

Every simulated schedule at least as good as the heuristic's (the windows of §2.2) maps to a
solution of the LP of equal or smaller objective, so the LP's optimum bounds every schedule's
simulated average JCT from below, up to the tolerance of §2.5.
"""

from __future__ import annotations

import math
from typing import Any

import pulp

from formulations.bounds.relaxation import RelaxationBound, pace_hull
from formulations.engines import EngineOptions
from formulations.engines import milp as engine
from formulations.offline.data import OfflineData
from formulations.result import SolveStatus

#: Points of tangency of the within-slot term x² / 2 (x ∈ [0, 1]); between two points the
#: tangents lie at most (spacing / 2)² / 2 ≈ 0.008 slots below it.
TANGENTS = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Wall-clock guard of the LP (s); the LP of 50 jobs on 8 GPUs solves in seconds.
WALL_GUARD_S = 120.0
#: Largest LP solved, in estimated variables (50 jobs on 8 GPUs: about 400,000–700,000).
MAX_VARIABLES = 800_000
#: Seconds per LP variable to build the fluid LP and hand it to HiGHS, before HiGHS starts
#: (measured on the reference 2-core machine: 18 s for the 297,620 variables of n50-g8-all-a,
#: HiGHS's 4.7 s included). ``solve_offline``'s wall-clock mode runs the LP only when this
#: estimate is at most half of the time left, since building it cannot be stopped.
SECONDS_PER_VARIABLE = 6e-5
#: ``RelaxationBound.limit`` of an LP too large to solve (:data:`MAX_VARIABLES`).
SIZE_LIMIT = "size"


def fluid_size(data: OfflineData) -> int:
    """The LP's variable count, estimated before building it (intervals, slots, pair slots)."""
    least = [-(-job.work // job.max_progress) for job in data.jobs]
    longest = longest_slots(data)
    intervals = sum(
        len(job.start_slots) * max(1, longest[i] - least[i] + 1) for i, job in enumerate(data.jobs)
    )
    pair_slots = sum(
        len(pair.overlap) * len(pace_hull(data, pair)) for pair in data.pairs if pair.any_fit
    )
    return intervals + 3 * sum(len(job.slots) for job in data.jobs) + pair_slots


def longest_slots(data: OfflineData) -> list[int]:
    """Per job, the most slots it can hold its GPUs in a simulation: its slowest option beside
    its most slowing partner, ⌈D^max_j · ξ^max_j / dt⌉ + 1 (the n_j of §2.5, from the pairs
    whose windows meet)."""
    slowest = [1.0] * len(data.jobs)
    for pair in data.pairs:
        for combo in pair.options:
            if combo.fits:
                for first, i in ((True, pair.first), (False, pair.second)):
                    xi = combo.first_slowdown if first else combo.second_slowdown
                    slowest[i] = max(slowest[i], xi)
    return [
        math.ceil(max(o.duration_s for o in job.options) * xi / data.dt) + 1
        for job, xi in zip(data.jobs, slowest, strict=True)
    ]


def build_fluid(
    data: OfflineData, *, intervals: bool = True
) -> tuple[pulp.LpProblem, dict[str, dict[Any, Any]]]:
    """The fluid LP as a PuLP model (objective: average JCT, s) and its variables.

    Variables per job j and slot t of its window: x_jt ∈ [0, 1] work (fastest-alone slots),
    f_jt ∈ [0, 1] the share of the slot j holds its GPUs, per pair that fits and hull vertex n
    h_jktn ≥ 0 the GPUs j and k share at those paces (Σ_n h_jktn ≤ min(G_j, G_k)),
    q_jt ≥ x_jt² / 2 by tangents, and C_j its completion
    (slots). With ``intervals``, also z_jsT ∈ [0, 1]: j holds its GPUs over slots s..s+T−1,
    m_j ≤ T ≤ n_j; then f_jt = Σ_{s ≤ t < s+T} z_jsT and C_j ≥ Σ z_jsT (s + max(T − 1, w_j)).
    """
    prob = pulp.LpProblem("fluid", pulp.LpMinimize)
    n_gpus = len(data.gpus)
    cont = pulp.LpContinuous
    new = prob.add_variable
    longest = longest_slots(data)
    x: dict[tuple[int, int], Any] = {}
    held: dict[tuple[int, int], Any] = {}
    shared: dict[tuple[int, int, int, int], Any] = {}
    spread: dict[tuple[int, int], Any] = {}
    hold: dict[tuple[int, int, int], Any] = {}
    finish: dict[int, Any] = {}
    for i, job in enumerate(data.jobs):
        finish[i] = new(f"C_{i}", 0, None, cont)
        for t in job.slots:
            x[i, t] = new(f"x_{i}_{t}", 0, 1, cont)
            held[i, t] = new(f"f_{i}_{t}", 0, 1, cont)
            spread[i, t] = new(f"q_{i}_{t}", 0, None, cont)
        if intervals:
            least = -(-job.work // job.max_progress)
            for s in job.start_slots:
                for length in range(least, min(longest[i], job.last_end - s + 1) + 1):
                    hold[i, s, length] = new(f"z_{i}_{s}_{length}", 0, 1, cont)
    sharing: dict[tuple[int, int], list[tuple[float, Any]]] = {}  # (j, t) -> [(pace, h_jktn)]
    for pair in data.pairs:
        if not pair.any_fit:
            continue
        i, k = pair.first, pair.second
        both = min(data.jobs[i].gpus, data.jobs[k].gpus)
        hull = pace_hull(data, pair)  # the paces they can have together, option by option
        for t in pair.overlap:
            if (i, t) in x and (k, t) in x:
                parts = []
                for n, (pace_i, pace_k) in enumerate(hull):
                    part = shared[i, k, t, n] = new(f"h_{i}_{k}_{t}_{n}", 0, both, cont)
                    sharing.setdefault((i, t), []).append((pace_i, part))
                    sharing.setdefault((k, t), []).append((pace_k, part))
                    parts.append(part)
                if len(parts) > 1:
                    prob += pulp.lpSum(parts) <= both, f"h_{i}_{k}_{t}"
    intervals_of: dict[int, list[tuple[int, int, Any]]] = {}  # job -> (start, length, z)
    for (i, s, length), var in hold.items():
        intervals_of.setdefault(i, []).append((s, length, var))
    covering: dict[tuple[int, int], list[Any]] = {}
    for (i, s, length), var in hold.items():
        for t in range(s, s + length):
            covering.setdefault((i, t), []).append(var)
    for i, job in enumerate(data.jobs):
        work = job.work / job.max_progress
        prob += pulp.lpSum(x[i, t] for t in job.slots) == work, f"work_{i}"
        for t in job.slots:
            beside_t = sharing.get((i, t), [])
            slowed = pulp.lpSum((1 - pace) / job.gpus * var for pace, var in beside_t)
            prob += x[i, t] <= held[i, t] - slowed, f"pace_{i}_{t}"
            if beside_t:
                prob += (
                    pulp.lpSum(var for _, var in beside_t) <= job.gpus * held[i, t],
                    f"shared_held_{i}_{t}",
                )
            for point in TANGENTS:
                prob += spread[i, t] >= point * x[i, t] - point * point / 2, f"q_{i}_{t}_{point}"
            if intervals:
                prob += held[i, t] == pulp.lpSum(covering.get((i, t), [])), f"holds_{i}_{t}"
        mean = pulp.lpSum(t * x[i, t] + spread[i, t] for t in job.slots) / work
        prob += finish[i] >= mean + work / 2, f"busy_{i}"
        if intervals:
            starts = intervals_of[i]
            prob += pulp.lpSum(v for _, _, v in starts) == 1, f"interval_{i}"
            prob += (
                finish[i] >= pulp.lpSum((s + max(length - 1, work)) * v for s, length, v in starts),
                f"interval_finish_{i}",
            )
    by_slot: dict[int, list[Any]] = {}
    for (_, _, t, _), var in shared.items():
        by_slot.setdefault(t, []).append(var)
    for t in range(data.horizon):
        present = data.present(t)
        if present:
            prob += (
                pulp.lpSum(data.jobs[i].gpus * held[i, t] for i in present)
                - pulp.lpSum(by_slot.get(t, []))
                <= n_gpus,
                f"gpus_{t}",
            )
    prob += (data.dt * pulp.lpSum(finish.values()) - data.arrival_total) / len(data.jobs)
    variables: dict[str, dict[Any, Any]] = {"x": x, "f": held, "h": shared, "q": spread}
    return prob, {**variables, "z": hold, "C": finish}


def fluid_bound(
    data: OfflineData,
    *,
    intervals: bool = True,
    time_limit: float | None = WALL_GUARD_S,
    max_variables: int | None = MAX_VARIABLES,
    seed: int = 0,
    deadline: float | None = None,
) -> RelaxationBound:
    """Solve the fluid LP on HiGHS; its optimum bounds the model's average JCT from below.

    Parameters
    ----------
    data
        The offline model's data (its windows, as for the model).
    intervals
        Add the interval variables z_jsT (non-preemptive holding; off: the preemptive fluid).
    time_limit
        A wall-clock guard (s; ``None``: none). An LP stopped by it gives no bound.
    max_variables
        Solve only an LP of at most this many variables (:func:`fluid_size`; ``None``: any);
        a larger one comes back UNKNOWN without a bound, ``limit`` ``"size"``.
    seed
        HiGHS's random seed.
    deadline
        A ``time.monotonic()`` value HiGHS must not pass (``None``: none); building the LP
        before it is not stopped by it.
    """
    if data.infeasible is not None:
        return RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0)
    if max_variables is not None and fluid_size(data) > max_variables:
        return RelaxationBound(SolveStatus.UNKNOWN, None, 0.0, SIZE_LIMIT)
    prob, _ = build_fluid(data, intervals=intervals)
    run = engine.solve(
        prob,
        EngineOptions(time_limit=time_limit, seed=seed, workers=1, deadline=deadline),
        backend="highs",
    )
    bound = run.objective if run.status is SolveStatus.OPTIMAL else None
    return RelaxationBound(run.status, bound, run.runtime_s, run.limit)
