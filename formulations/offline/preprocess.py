"""Shared preprocessing of the offline model (docs/formulations.md §2.2): everything both backends
need, computed once by :func:`preprocess` into an :class:`~formulations.offline.data.OfflineData`.

Per job: its options (accumulation factor s and, on several nodes, whether the placement spans
nodes), each option's exclusive duration and memory, its work in integer *work units*, the
progress one full slot brings alone and beside every possible partner (integers, rounded up),
its start and end windows (from arrival and a safe per-job deadline), and the pairs of jobs that
may co-run with their memory conflicts and slowdowns. The integer coefficients are computed here,
so the MILP and CP-SAT solve the same numbers (§2.5). The pieces live in
:mod:`~formulations.offline.progress` (work units, options, tolerances, θ),
:mod:`~formulations.offline.horizon` (windows and lower bounds), :mod:`~formulations.offline.pairs`
(co-running pairs) and :mod:`~formulations.offline.symmetry` (identical jobs, GPU order).

Resolution. Required work rounded down and progress rounded up make the model never slower than
the simulator (up to the last slot's time unit), so every schedule the simulator runs is feasible
in the model at no more than its simulated JCTs: the model is a relaxation and its optimum a lower
bound. The time used in a job's last slot is an integer number of ``dt / F`` units (``F`` = dt /
:data:`~formulations.offline.progress.TIME_RESOLUTION_S`) in CP-SAT, rounded up.
:attr:`OfflineData.tolerance_s` bounds the difference between the model's average JCT and the
simulator's for one schedule as long as both release every job at the same tick; whether they
do is decided by replaying the schedule (``solve_offline``, §2.9).
"""

from __future__ import annotations

import math

from formulations.offline.data import JobData, OfflineData, OptionData
from formulations.offline.heuristic import HeuristicRun, best_heuristic
from formulations.offline.horizon import last_end_slots, size_estimate, srpt_total
from formulations.offline.pairs import job_pairs
from formulations.offline.progress import (
    TIME_RESOLUTION_S,
    WORK_UNITS_PER_SLOT,
    floor_units,
    job_options,
    job_tolerances,
    largest_slowdowns,
    occupants,
    profiles,
    throughput,
)
from formulations.offline.search import search_incumbent
from formulations.offline.size import MAX_MODEL_CELLS, check_size, confirmed
from formulations.offline.symmetry import LEX_ROWS, identical_pairs
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.ticks import tick_ceil


def preprocess(
    instance: Instance,
    dt: float,
    *,
    interference: Interference | None = None,
    horizon: int | None = None,
    use_heuristic_bound: bool = True,
    work_units_per_slot: int = WORK_UNITS_PER_SLOT,
    time_resolution_s: float = TIME_RESOLUTION_S,
    max_cells: int | None = MAX_MODEL_CELLS,
    search: int = 0,
    seed: int = 0,
    incumbent: HeuristicRun | None = None,
    deadline: float | None = None,
) -> OfflineData:
    """Compute the offline model's data for ``instance`` with slots of ``dt`` seconds.

    Parameters
    ----------
    instance
        The problem.
    dt
        Slot length (s): the simulator's tick.
    interference
        Interference model (default: time slicing, as the simulator).
    horizon
        Number of slots to model. ``None``: derived from the per-job deadlines (safe). A given
        horizon too short for some job makes the model infeasible (``infeasible`` says why).
    use_heuristic_bound
        Bound the windows with the best non-preemptive heuristic's total JCT (safe); without it
        (and without ``horizon``) the horizon is the sum of the jobs' slowest durations.
    work_units_per_slot
        L: work units per full slot alone at the full batch.
    time_resolution_s
        Resolution of the last slot's used time in CP-SAT (s).
    max_cells
        Refuse a model larger than this (:mod:`formulations.offline.size`), checked after the
        heuristics ran and before anything quadratic is computed; ``None``: no limit.
    search, seed
        Simulations of the incumbent search after the heuristics
        (:mod:`formulations.offline.search`; 0: none) and the seed of its moves.
    incumbent
        A simulated schedule of the decision space to bound the windows with instead of the
        heuristics' (e.g. the model's best so far); not re-simulated.
    deadline
        ``time.monotonic()`` value after which the incumbent search starts no simulation
        (``None``: none; ``solve_offline``'s wall-clock mode).

    Raises
    ------
    ValueError
        For a non-positive ``dt``, ``horizon`` or resolution.
    ModelTooLarge
        If the model would exceed ``max_cells`` (the message says what would fit).
    """
    if not (math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt must be a positive number of seconds, got {dt!r}")
    if horizon is not None and horizon < 1:
        raise ValueError(f"horizon must be at least one slot, got {horizon!r}")
    if search < 0:
        raise ValueError(f"search must be a non-negative number of simulations, got {search}")
    if work_units_per_slot < 1 or not time_resolution_s > 0:
        raise ValueError("resolutions must be positive")
    model = interference or time_slicing()
    cluster = instance.cluster
    tables = profiles(instance)
    time_units = max(1, round(dt / time_resolution_s))
    n = instance.num_jobs

    works: list[int] = []
    options: list[tuple[OptionData, ...]] = []
    for job, profile in zip(instance.jobs, tables, strict=True):
        base = exclusive_duration(job, profile, cluster)
        work = max(1, floor_units(work_units_per_slot * base / dt))
        works.append(work)
        options.append(job_options(instance, job, profile, work, dt))

    # Refuse an oversized model first from a bound that needs no simulation (a year-long job
    # would keep the heuristics busy with decisions), then from the heuristics' schedule.
    def finish_slots(d: float) -> int:  # the heuristic's last finish, run at another dt
        return max(tick_ceil(f, d) for f in best_heuristic(instance, d, model).finish.values())

    hint_run = finish_slots if use_heuristic_bound and horizon is None else None
    check_size(size_estimate(instance, dt, options, None, horizon, least=True), max_cells)
    heuristic: HeuristicRun | None = None
    if use_heuristic_bound:
        if incumbent is not None:
            heuristic = incumbent
        else:
            heuristic = best_heuristic(instance, dt, model)
            if search > 0:
                heuristic = search_incumbent(
                    instance, dt, model, heuristic, search, seed=seed, deadline=deadline
                )
    size = size_estimate(instance, dt, options, heuristic, horizon)
    check_size(size if hint_run is None else confirmed(size, hint_run, max_cells), max_cells)

    occupied = occupants(instance, tables)
    xi_max = largest_slowdowns(occupied, model)
    job_tol = job_tolerances(options, xi_max, works, dt, time_units)  # §2.5
    tolerance = sum(job_tol) / n

    arrival_slot = [tick_ceil(job.arrival, dt) for job in instance.jobs]
    min_jct = [
        arrival_slot[i] * dt - job.arrival + dt * works[i] / max(o.alone for o in options[i])
        for i, job in enumerate(instance.jobs)
    ]
    min_slots = [-(-works[i] // max(o.alone for o in options[i])) for i in range(n)]

    upper: float | None = None
    if heuristic is not None:
        last_heuristic_slot = max(tick_ceil(f, dt) for f in heuristic.finish.values()) - 1
        if horizon is None or last_heuristic_slot < horizon:
            upper = heuristic.total_jct + sum(job_tol) + 1e-6 * heuristic.total_jct + 1e-6
        else:
            heuristic = None

    tops = [max(o.alone for o in options[i]) for i in range(n)]
    theta = throughput(instance, options, occupied, works, tops, model, dt)
    releases = [arrival_slot[i] * dt for i in range(n)]
    sizes = [instance.jobs[i].gpus * dt * works[i] / tops[i] for i in range(n)]
    capacity = cluster.num_gpus * theta
    total_lb = max(
        sum(min_jct), srpt_total(releases, sizes, capacity) - sum(j.arrival for j in instance.jobs)
    )
    last_end = last_end_slots(
        instance,
        dt,
        upper,
        min_jct,
        releases,
        sizes,
        capacity,
        options,
        xi_max,
        arrival_slot,
        horizon,
    )

    jobs = []
    infeasible: str | None = None
    for i, job in enumerate(instance.jobs):
        first_end = arrival_slot[i] + min_slots[i] - 1
        if last_end[i] < first_end and infeasible is None:
            infeasible = (
                f"job {job.id} needs slots {arrival_slot[i]}..{first_end} at least, "
                f"but the horizon ends at slot {last_end[i]}"
            )
        jobs.append(
            JobData(
                job_id=job.id,
                arrival=job.arrival,
                gpus=job.gpus,
                work=works[i],
                options=options[i],
                link_spans=len({o.spans for o in options[i]}) > 1,
                min_jct_s=min_jct[i],
                first_start=arrival_slot[i],
                last_start=max(arrival_slot[i], last_end[i] - min_slots[i] + 1),
                first_end=first_end,
                last_end=max(last_end[i], first_end),
            )
        )

    pairs = job_pairs(instance, jobs, occupied, works, model, dt)

    per = cluster.gpus_per_node
    nodes = tuple(tuple(range(v * per, (v + 1) * per)) for v in range(cluster.nodes))
    identical = identical_pairs(instance)
    data = OfflineData(
        instance=instance,
        dt=dt,
        interference=model,
        jobs=tuple(jobs),
        pairs=tuple(pairs),
        nodes=nodes,
        horizon=max(j.last_end for j in jobs) + 1,
        work_units_per_slot=work_units_per_slot,
        time_units_per_slot=time_units,
        upper_bound_total=upper,
        heuristic=heuristic,
        identical=identical,
        lex_rows=tuple(range(min(n, LEX_ROWS))),
        tolerance_s=tolerance,
        infeasible=infeasible,
        job_tolerance_s=tuple(job_tol),
        throughput=theta,
        lower_bound_total=total_lb,
    )
    return data
