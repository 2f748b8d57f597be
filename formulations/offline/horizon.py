"""Horizon and windows of the offline model, and the lower bounds (docs/formulations.md §2.2).

With an upper bound ``UB`` on the total JCT (from the best non-preemptive heuristic's simulated
schedule) and lower bounds on the other jobs' JCTs (Σ LB_k, and the SRPT relaxation of
:func:`srpt_total`), any schedule at least as good as the heuristic finishes job j by
``a_j + UB − max(Σ_{k≠j} LB_k, SRPT(J∖{j}) − Σ_{k≠j} a_k)``: :func:`last_end_slots` turns that
per-job deadline into its last slot, which excludes only schedules worse than a known one.
:func:`size_estimate` estimates the slots before the model is built (:mod:`.size`).
"""

from __future__ import annotations

import math

from formulations.offline.data import OptionData
from formulations.offline.heuristic import HeuristicRun
from formulations.offline.size import ModelSize
from sjfbsbf.core.model import Instance
from sjfbsbf.sim.ticks import tick_ceil


def last_end_slots(
    instance: Instance,
    dt: float,
    upper: float | None,
    min_jct: list[float],
    releases: list[float],
    sizes: list[float],
    capacity: float,
    options: list[tuple[OptionData, ...]],
    xi_max: list[float],
    arrival_slot: list[int],
    horizon: int | None,
) -> list[int]:
    """Each job's last possible occupied slot (before the windows' own floor at its first end).

    With ``upper`` (the heuristic's total JCT plus the tolerances) the per-job deadline of the
    module docstring; without it the last arrival plus every job run slowest in turn (a job never
    waits longer). A user ``horizon`` caps both.
    """
    n = instance.num_jobs
    if upper is not None:
        last_end = []
        for i, job in enumerate(instance.jobs):
            others = [k for k in range(n) if k != i]
            rest_lb = max(
                sum(min_jct[k] for k in others),
                srpt_total([releases[k] for k in others], [sizes[k] for k in others], capacity)
                - sum(instance.jobs[k].arrival for k in others),
            )
            last_end.append(math.floor((job.arrival + upper - rest_lb) / dt))
    else:
        # Safe without any bound: a job never waits longer than every job run slowest in turn.
        slowest = sum(
            math.ceil(max(o.duration_s for o in options[i]) * xi_max[i] / dt) + 1 for i in range(n)
        )
        last_end = [max(arrival_slot) + slowest for _ in range(n)]
    if horizon is not None:
        last_end = [min(e, horizon - 1) for e in last_end]
    return last_end


def size_estimate(
    instance: Instance,
    dt: float,
    options: list[tuple[OptionData, ...]],
    heuristic: HeuristicRun | None,
    horizon: int | None,
    *,
    least: bool = False,
) -> ModelSize:
    """Slots the model will span: a user horizon, else the heuristic's schedule, else the sum of
    the jobs' slowest alone durations after the last arrival (the horizon used without a bound).

    With ``least``, a lower bound on the slots any schedule needs, from data alone: the latest
    arrival slot plus the job's fastest duration, the GPU-time at twice the cluster's
    throughput (sharing a GPU never doubles its throughput: ξ > 1), and one slot of each job's
    GPUs at two jobs to a GPU (whatever the dt). The result's ``slots_at`` is the same estimate
    at another dt, from which a refusal's dt hint is computed.
    """
    if horizon is not None and not least:
        return ModelSize(
            instance.num_jobs, horizon, instance.cluster.num_gpus, dt, lambda d: horizon
        )
    if least:
        fastest = [min(o.duration_s for o in opts) for opts in options]
        gpu_time = sum(job.gpus * d for job, d in zip(instance.jobs, fastest, strict=True))
        # Each job holds its GPUs for at least one slot, at most two jobs to a GPU: at any dt.
        least_one = math.ceil(
            sum(job.gpus for job in instance.jobs) / (2 * instance.cluster.num_gpus)
        )

        def at(d: float) -> int:
            one = max(
                tick_ceil(job.arrival, d) + math.ceil(f / d)
                for job, f in zip(instance.jobs, fastest, strict=True)
            )
            slots = max(one, math.ceil(gpu_time / (2 * instance.cluster.num_gpus * d)), least_one)
            return slots if horizon is None else min(slots, horizon)

    elif heuristic is not None:
        finishes = list(heuristic.finish.values())

        def at(d: float) -> int:  # the same finishes rounded to d (a coarser run may differ)
            return max(tick_ceil(f, d) for f in finishes)

    else:
        longest = [max(o.duration_s for o in opts) for opts in options]

        def at(d: float) -> int:
            last = max(tick_ceil(job.arrival, d) for job in instance.jobs)
            return last + sum(math.ceil(x / d) for x in longest)

    return ModelSize(instance.num_jobs, at(dt), instance.cluster.num_gpus, dt, at)


def srpt_total(releases: list[float], sizes: list[float], capacity: float) -> float:
    """Σ completion times of preemptive SRPT on one machine of speed ``capacity``.

    SRPT is optimal for 1 | r_j, pmtn | Σ C_j. With sizes in GPU-seconds of fastest-alone work
    and the cluster's best throughput (GPUs × θ) as speed it bounds every schedule's total
    completion time from below: no GPU does more than θ such work per second.
    """
    order = sorted(range(len(sizes)), key=lambda k: releases[k])
    remaining: dict[int, float] = {}
    time_now = 0.0
    total = 0.0
    position = 0
    while position < len(order) or remaining:
        if not remaining:
            time_now = max(time_now, releases[order[position]])
        while position < len(order) and releases[order[position]] <= time_now + 1e-12:
            remaining[order[position]] = sizes[order[position]]
            position += 1
        job = min(remaining, key=lambda k: (remaining[k], k))
        finish = time_now + remaining[job] / capacity
        next_release = releases[order[position]] if position < len(order) else math.inf
        if finish <= next_release:
            time_now = finish
            total += finish
            del remaining[job]
        else:
            remaining[job] -= (next_release - time_now) * capacity
            time_now = next_release
    return total
