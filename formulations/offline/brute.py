"""Brute force for tiny offline instances: starts × placements × options, scored by simulation.

Independent of the models on purpose: it shares no preprocessing with them. Every combination
of a start tick (from the job's arrival tick to a deadline), a GPU set and an accumulation factor
per job is replayed by the ``planned`` policy in the simulator; combinations the policy or the
feasibility checker reject are skipped; the lowest simulated average JCT wins (ties: first found).

Reductions, all exact: (1) GPU sets equal up to permuting the GPUs of a node are enumerated once;
(2) a combination where three jobs, or two jobs whose memory does not fit, would surely share a
GPU at some tick (each job surely holds its GPUs for its shortest exclusive duration) is skipped
without simulating; (3) a job starts no later than ``a_j + UB − Σ_k LB_k`` (UB: sjf's total JCT,
LB_k: shortest exclusive duration), since any later start is worse than sjf's schedule.
"""

from __future__ import annotations

import math
import time
from itertools import combinations, product

from formulations.offline.replay import interval_for
from formulations.offline.result import OfflineResult
from formulations.result import SolveStatus
from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.perf import exclusive_duration, memory_gb, micro_batch_options
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.planned import PlanError, Planned, PlannedStart, Schedule
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.simulator import SchedulingError, simulate
from sjfbsbf.sim.ticks import tick_ceil

#: Refuse to enumerate more combinations than this.
MAX_COMBINATIONS = 200_000


def _canonical(
    placements: tuple[tuple[int, ...], ...], nodes: int, per_node: int
) -> tuple[object, ...]:
    """The assignment up to permutations of GPUs inside a node (sorted column patterns)."""
    out = []
    for node in range(nodes):
        columns = sorted(
            tuple(int(g in p) for p in placements)
            for g in range(node * per_node, (node + 1) * per_node)
        )
        out.append(tuple(columns))
    return tuple(out)


def solve_brute(
    instance: Instance,
    dt: float = 60.0,
    *,
    interference: Interference | None = None,
    max_combinations: int = MAX_COMBINATIONS,
) -> OfflineResult:
    """Enumerate every schedule of a tiny instance and return the best by simulated average JCT.

    Brute force's model is the simulator: the result's ``objective``, ``replayed_avg_jct`` and
    ``bound`` are the same number.

    Raises
    ------
    ValueError
        If the enumeration would exceed ``max_combinations``.
    """
    model = interference or time_slicing()
    cluster = instance.cluster
    catalog = get_catalog(instance.catalog)
    generic = generic_profile(catalog)
    profiles = [generic if j.model is None else catalog[j.model] for j in instance.jobs]
    started = time.perf_counter()

    sjf = simulate(
        instance,
        make_policy("sjf"),
        dt=dt,
        interval=interval_for(dt),
        interference=model,
        record_segments=False,
    )
    upper = float(sjf.jobs["jct"].sum()) + 1e-6
    shortest = [
        min(
            exclusive_duration(j, p, cluster, s, spans)
            for s in micro_batch_options(j, p)
            for spans in (False, True)
        )
        for j, p in zip(instance.jobs, profiles, strict=True)
    ]
    total_lb = sum(shortest)
    min_slots = [max(1, math.ceil(d / dt - 1e-9)) for d in shortest]

    per_job: list[list[PlannedStart]] = []
    for i, (job, profile) in enumerate(zip(instance.jobs, profiles, strict=True)):
        first = tick_ceil(job.arrival, dt)
        latest_finish = job.arrival + upper - (total_lb - shortest[i])
        last = max(first, math.floor((latest_finish - shortest[i]) / dt))
        choices = [
            PlannedStart(job.id, t * dt, gpus, s)
            for t in range(first, last + 1)
            for gpus in combinations(range(cluster.num_gpus), job.gpus)
            for s in sorted(micro_batch_options(job, profile))
        ]
        per_job.append(choices)
    count = math.prod(len(c) for c in per_job)
    if count > max_combinations:
        raise ValueError(
            f"brute force would enumerate {count} combinations (limit {max_combinations})"
        )
    mem = {
        (i, s): memory_gb(job, profiles[i], s)
        for i, job in enumerate(instance.jobs)
        for s in micro_batch_options(job, profiles[i])
    }
    cap = cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB

    best: tuple[float, Schedule] | None = None
    seen: set[tuple[object, ...]] = set()
    simulated = 0
    for combo in product(*per_job):
        key = (
            tuple((e.start, e.accumulation) for e in combo),
            _canonical(tuple(e.gpus for e in combo), cluster.nodes, cluster.gpus_per_node),
        )
        if key in seen:
            continue
        seen.add(key)
        if _surely_infeasible(combo, min_slots, mem, cap, dt):
            continue
        simulated += 1
        try:
            result = simulate(
                instance,
                Planned(combo),
                dt=dt,
                interval=interval_for(dt),
                interference=model,
                record_segments=False,
            )
        except (PlanError, FeasibilityError, SchedulingError):
            continue
        avg = float(result.jobs["jct"].mean())
        if best is None or avg < best[0] - 1e-9:
            best = (avg, tuple(sorted(combo, key=lambda e: e.job_id)))
    runtime = time.perf_counter() - started
    info = {"combinations": count, "simulated": simulated, "sjf_avg_jct": upper / len(per_job)}
    value, schedule = (None, None) if best is None else best
    return OfflineResult(
        SolveStatus.INFEASIBLE if best is None else SolveStatus.OPTIMAL,
        schedule,
        objective=value,
        replayed_avg_jct=value,
        bound=value,
        runtime_s=runtime,
        solver="brute",
        dt=dt,
        info=info,
        instance=instance,
        interference=model,
    )


def _surely_infeasible(
    combo: tuple[PlannedStart, ...],
    min_slots: list[int],
    mem: dict[tuple[int, int], float],
    cap: float,
    dt: float,
) -> bool:
    """Three jobs, or two that do not fit in memory, surely on one GPU at one tick."""
    spans = [
        (round(e.start / dt), round(e.start / dt) + min_slots[i] - 1) for i, e in enumerate(combo)
    ]
    n = len(combo)
    for i in range(n):
        for k in range(i + 1, n):
            if spans[i][0] > spans[k][1] or spans[k][0] > spans[i][1]:
                continue
            if not set(combo[i].gpus) & set(combo[k].gpus):
                continue
            if mem[i, combo[i].accumulation] + mem[k, combo[k].accumulation] > cap:
                return True
            for m in range(k + 1, n):
                common = set(combo[i].gpus) & set(combo[k].gpus) & set(combo[m].gpus)
                if not common:
                    continue
                lo = max(spans[i][0], spans[k][0], spans[m][0])
                hi = min(spans[i][1], spans[k][1], spans[m][1])
                if lo <= hi:
                    return True
    return False
