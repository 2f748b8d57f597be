"""Shared preprocessing of the offline model (DESIGN §4.2): everything both backends need, once.

Per job: its options (accumulation factor s and, on several nodes, whether the placement spans
nodes), each option's exclusive duration and memory, its work in integer *work units*, the
progress one full slot brings alone and beside every possible partner (integers, rounded down),
its start and end windows (from arrival and a safe per-job deadline), and the pairs of jobs that
may co-run with their memory conflicts and slowdowns. The integer coefficients are computed here,
so the MILP and CP-SAT solve the same numbers (docs/formulations.md §2.5).

Resolution. A job's work is ``W = floor(L · D / dt)`` units, ``D`` its exclusive duration at the
full batch and ``L`` = :data:`WORK_UNITS_PER_SLOT`; a full slot at option o slowed by ξ brings
``ceil(W · dt / (D_o · ξ))`` units. Required work rounded down and progress rounded up make the
model never slower than the simulator (up to the last slot's time unit below), so every schedule
the simulator runs is feasible in the model at no more than its simulated JCTs: the model is a
relaxation and its optimum a lower bound. The time used in a job's last slot is an integer number
of ``dt / F`` units (``F`` = dt / :data:`TIME_RESOLUTION_S`) in CP-SAT, rounded up.
:attr:`OfflineData.tolerance_s` bounds the difference between the model's average JCT and the
simulator's for one schedule as long as both release every job at the same tick; whether they
do is decided by replaying the schedule (``solve_offline``).

Horizon. With an upper bound ``UB`` on the total JCT (from the best non-preemptive heuristic's
simulated schedule) and a lower bound ``LB_k`` on every job's JCT, any schedule at least as good
as the heuristic finishes job j by ``a_j + UB − Σ_{k≠j} LB_k``: that per-job deadline bounds its
slots, which excludes only schedules worse than a known one (the optimum is kept).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations, pairwise

from formulations.offline.heuristic import HeuristicRun, best_heuristic
from formulations.offline.size import MAX_MODEL_CELLS, ModelSize, check_size
from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Interference, Occupant, can_share, occupant
from sjfbsbf.core.model import Instance, Job
from sjfbsbf.core.perf import exclusive_duration, memory_gb, micro_batch_options
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.policies.planned import PlannedStart, Schedule
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.ticks import tick_ceil

#: Work units one full slot brings a job alone at its full batch (L).
WORK_UNITS_PER_SLOT = 100_000
#: Resolution of the time a job uses in its last slot, in CP-SAT (s).
TIME_RESOLUTION_S = 0.01
#: Jobs (first in (arrival, id) order) whose rows order the GPU columns lexicographically.
LEX_ROWS = 16
#: Relative slack absorbing float noise when rounding an exact integer ratio.
_FLOOR_SLACK = 1e-9


@dataclass(frozen=True, slots=True)
class OptionData:
    """One way of running a job: accumulation factor and whether its placement spans nodes.

    Attributes
    ----------
    accumulation
        Accumulation factor s (micro-batch B / s).
    spans
        Whether the placement spans nodes (slower all-reduce).
    duration_s
        Exclusive duration of the whole job with this option (s).
    memory_gb
        Memory per GPU (GB).
    alone
        Work units one full slot brings alone.
    """

    accumulation: int
    spans: bool
    duration_s: float
    memory_gb: float
    alone: int


@dataclass(frozen=True, slots=True)
class PairOption:
    """Two jobs' options side by side on a GPU.

    Attributes
    ----------
    first_option, second_option
        Option indices of the pair's first and second job.
    fits
        Whether their memory fits in one GPU and the interference model lets them share.
    first_progress, second_progress
        Work units one full slot brings each while they co-run (each job's ``alone`` if they
        do not fit: they never co-run then).
    first_slowdown, second_slowdown
        ξ of each beside the other (``inf`` for a pair the interference model forbids).
    """

    first_option: int
    second_option: int
    fits: bool
    first_progress: int
    second_progress: int
    first_slowdown: float
    second_slowdown: float

    def progress(self, first: bool) -> int:
        """Full-slot progress of the first (or second) job."""
        return self.first_progress if first else self.second_progress

    def option(self, first: bool) -> int:
        """Option index of the first (or second) job."""
        return self.first_option if first else self.second_option


@dataclass(frozen=True)
class JobData:
    """Everything the model needs about one job (positions follow ``instance.jobs``).

    Attributes
    ----------
    job_id, arrival, gpus
        From the instance.
    work
        Work units of the whole job.
    options
        Its options.
    link_spans
        Whether the model must tie the option's ``spans`` to the placement (the job has options
        with and without spanning).
    min_jct_s
        Lower bound on its JCT in the model (s).
    first_start, last_start, first_end, last_end
        Slot windows of its start and of its last occupied slot.
    """

    job_id: int
    arrival: float
    gpus: int
    work: int
    options: tuple[OptionData, ...]
    link_spans: bool
    min_jct_s: float
    first_start: int
    last_start: int
    first_end: int
    last_end: int

    @property
    def max_progress(self) -> int:
        """Most work units one slot can bring (alone, fastest option)."""
        return max(o.alone for o in self.options)

    @property
    def slots(self) -> range:
        """Slots in which the job may hold GPUs."""
        return range(self.first_start, self.last_end + 1)

    @property
    def start_slots(self) -> range:
        """Slots in which the job may start."""
        return range(self.first_start, self.last_start + 1)

    @property
    def end_slots(self) -> range:
        """Slots that may be its last occupied one."""
        return range(self.first_end, self.last_end + 1)

    @property
    def accumulations(self) -> tuple[int, ...]:
        """Its distinct accumulation factors, ascending."""
        return tuple(sorted({o.accumulation for o in self.options}))

    def options_with(self, accumulation: int) -> tuple[int, ...]:
        """Indices of the options with accumulation factor ``accumulation``."""
        return tuple(i for i, o in enumerate(self.options) if o.accumulation == accumulation)


@dataclass(frozen=True)
class PairData:
    """Two jobs whose windows overlap, so they might share a GPU.

    Attributes
    ----------
    first, second
        Job positions, ``first < second``.
    overlap
        Slots in which both may hold GPUs (empty if their windows only touch).
    options
        Every combination of their options (first-major order).
    """

    first: int
    second: int
    overlap: range
    options: tuple[PairOption, ...]

    @property
    def any_fit(self) -> bool:
        """Whether some option pair fits in memory (otherwise they never co-run on a GPU)."""
        return bool(self.overlap) and any(c.fits for c in self.options)

    @property
    def conflicts(self) -> tuple[int, ...]:
        """Indices of the option pairs that do not fit."""
        return tuple(n for n, c in enumerate(self.options) if not c.fits)

    def other(self, position: int) -> int:
        """The pair's job that is not ``position``."""
        return self.second if position == self.first else self.first


@dataclass(frozen=True)
class OfflineData:
    """The preprocessed offline problem, read by both backends.

    Attributes
    ----------
    instance, dt, interference
        The problem, its slot length (the simulator's tick) and interference model.
    jobs
        Per-job data, by position in ``instance.jobs``.
    pairs
        Pairs of jobs that may co-run.
    nodes
        GPU ids per node.
    horizon
        Number of slots modelled (every job's ``last_end`` < horizon).
    work_units_per_slot, time_units_per_slot
        L and F of the module docstring.
    upper_bound_total
        Upper bound on the model's total JCT used for the deadlines (``None`` if none).
    heuristic
        The best heuristic run (its schedule is the solvers' hint), if one was used.
    identical
        Position pairs ``(i, k)``, ``i < k``, of identical jobs: ``start_i <= start_k`` is imposed.
    lex_rows
        Job positions whose rows order the GPU columns of each node lexicographically.
    tolerance_s
        Bound on |model average JCT − simulated average JCT| for one schedule (s).
    throughput
        θ ≥ 1: most work one GPU does in a slot, in fastest-alone slots of its residents (a pair
        that fits may exceed 1: sharing gains throughput when 1/ξ_a + 1/ξ_b > 1).
    lower_bound_total
        A lower bound on the total JCT (s): the larger of Σ_j LB_j and the SRPT bound.
    infeasible
        Why the model has no solution, when that is known before solving (else ``None``).
    """

    instance: Instance
    dt: float
    interference: Interference
    jobs: tuple[JobData, ...]
    pairs: tuple[PairData, ...]
    nodes: tuple[tuple[int, ...], ...]
    horizon: int
    work_units_per_slot: int
    time_units_per_slot: int
    upper_bound_total: float | None
    heuristic: HeuristicRun | None
    identical: tuple[tuple[int, int], ...]
    lex_rows: tuple[int, ...]
    tolerance_s: float
    infeasible: str | None = None
    job_tolerance_s: tuple[float, ...] = field(default=())
    throughput: float = 1.0
    lower_bound_total: float = 0.0

    def present(self, t: int) -> list[int]:
        """Positions of the jobs that may hold GPUs in slot ``t``."""
        return [i for i, job in enumerate(self.jobs) if t in job.slots]

    @property
    def gpus(self) -> tuple[int, ...]:
        """All GPU ids."""
        return tuple(g for node in self.nodes for g in node)

    @property
    def arrival_total(self) -> float:
        """Sum of the arrival times (s)."""
        return sum(j.arrival for j in self.jobs)

    def position(self, job_id: int) -> int:
        """Position of job ``job_id``."""
        return self.instance.index_of(job_id)

    def hint(self) -> Schedule | None:
        """The heuristic schedule, permuted to satisfy the symmetry breaking (or ``None``)."""
        if self.heuristic is None:
            return None
        return canonical_schedule(self, self.heuristic.schedule)


def floor_units(value: float) -> int:
    """``floor`` that treats values within float noise below an integer as that integer."""
    return math.floor(value * (1.0 + _FLOOR_SLACK))


def ceil_units(value: float) -> int:
    """``ceil`` that treats values within float noise above an integer as that integer."""
    return math.ceil(value * (1.0 - _FLOOR_SLACK))


def slot_progress(work: int, dt: float, duration_s: float, slowdown: float = 1.0) -> int:
    """Work units one full slot brings a job of ``work`` units, rounded up (at least 1).

    The job takes ``duration_s`` alone at this option, ``duration_s · slowdown`` beside its
    partner; rounding up keeps the model never slower than the simulator (§2.5).
    """
    return max(1, ceil_units(work * dt / (duration_s * slowdown)))


def _profiles(instance: Instance) -> list[ModelProfile]:
    catalog = get_catalog(instance.catalog)
    generic = generic_profile(catalog)
    return [generic if j.model is None else catalog[j.model] for j in instance.jobs]


def _spans_values(instance: Instance, job: Job, profile: ModelProfile) -> tuple[bool, ...]:
    cluster = instance.cluster
    if job.gpus > cluster.gpus_per_node:
        return (True,)
    if cluster.nodes == 1 or job.gpus == 1 or profile.generic or job.batch is None:
        return (False,)
    return (False, True)


def _options(
    instance: Instance, job: Job, profile: ModelProfile, work: int, dt: float
) -> tuple[OptionData, ...]:
    out = []
    for s in sorted(micro_batch_options(job, profile)):
        for spans in _spans_values(instance, job, profile):
            duration = exclusive_duration(job, profile, instance.cluster, s, spans)
            out.append(
                OptionData(
                    accumulation=s,
                    spans=spans,
                    duration_s=duration,
                    memory_gb=memory_gb(job, profile, s),
                    alone=slot_progress(work, dt, duration),
                )
            )
    return tuple(out)


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
    if work_units_per_slot < 1 or not time_resolution_s > 0:
        raise ValueError("resolutions must be positive")
    model = interference or time_slicing()
    cluster = instance.cluster
    profiles = _profiles(instance)
    time_units = max(1, round(dt / time_resolution_s))
    n = instance.num_jobs

    works: list[int] = []
    options: list[tuple[OptionData, ...]] = []
    for job, profile in zip(instance.jobs, profiles, strict=True):
        base = exclusive_duration(job, profile, cluster)
        work = max(1, floor_units(work_units_per_slot * base / dt))
        works.append(work)
        options.append(_options(instance, job, profile, work, dt))

    # Refuse an oversized model first from a bound that needs no simulation (a year-long job
    # would keep the heuristics busy with decisions), then from the heuristics' schedule.
    check_size(_size_estimate(instance, dt, options, None, horizon, least=True), max_cells)
    heuristic: HeuristicRun | None = None
    if use_heuristic_bound:
        heuristic = best_heuristic(instance, dt, model)
    check_size(_size_estimate(instance, dt, options, heuristic, horizon), max_cells)

    occupants = [
        {s: occupant(job, p, s) for s in micro_batch_options(job, p)}
        for job, p in zip(instance.jobs, profiles, strict=True)
    ]
    xi_max = []
    for i in range(n):
        worst = 1.0
        for k in range(n):
            if k != i:
                for occ_i in occupants[i].values():
                    for occ_k in occupants[k].values():
                        if can_share(model, occ_i, occ_k):
                            worst = max(worst, model.slowdown(occ_i, occ_k))
        xi_max.append(worst)

    # Per-job tolerance (§2.5): while both release at the same ticks, the model is faster than
    # the simulator by < 1 work unit per slot (progress rounded up against work rounded down)
    # and slower by < one time unit in the last slot (CP-SAT rounds its used time up).
    job_tol = []
    for i in range(n):
        longest = max(o.duration_s for o in options[i]) * xi_max[i]
        slots_run = math.ceil(longest / dt) + 1
        per_unit = longest / works[i]
        job_tol.append(dt / time_units + slots_run * per_unit)
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
    theta = _throughput(instance, options, occupants, works, tops, model, dt)
    releases = [arrival_slot[i] * dt for i in range(n)]
    sizes = [instance.jobs[i].gpus * dt * works[i] / tops[i] for i in range(n)]
    capacity = cluster.num_gpus * theta
    total_lb = max(
        sum(min_jct), srpt_total(releases, sizes, capacity) - sum(j.arrival for j in instance.jobs)
    )
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

    pairs = []
    mem_cap = cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB
    for i, k in combinations(range(n), 2):
        lo = max(jobs[i].first_start, jobs[k].first_start)
        hi = min(jobs[i].last_end, jobs[k].last_end)
        if lo > hi + 1:  # adjacent windows are kept for the no-idle-wait rule
            continue
        combos = []
        for oi, opt_i in enumerate(jobs[i].options):
            for ok, opt_k in enumerate(jobs[k].options):
                occ_i = occupants[i][opt_i.accumulation]
                occ_k = occupants[k][opt_k.accumulation]
                # A pair the interference model forbids (docs/model.md §3) never fits.
                allowed = can_share(model, occ_i, occ_k)
                fits = allowed and occ_i.memory_gb + occ_k.memory_gb <= mem_cap
                xi_i = model.slowdown(occ_i, occ_k) if allowed else math.inf
                xi_k = model.slowdown(occ_k, occ_i) if allowed else math.inf
                prog_i = slot_progress(works[i], dt, opt_i.duration_s, xi_i) if fits else 0
                prog_k = slot_progress(works[k], dt, opt_k.duration_s, xi_k) if fits else 0
                combos.append(
                    PairOption(
                        first_option=oi,
                        second_option=ok,
                        fits=fits,
                        first_progress=min(prog_i, opt_i.alone) if fits else opt_i.alone,
                        second_progress=min(prog_k, opt_k.alone) if fits else opt_k.alone,
                        first_slowdown=xi_i,
                        second_slowdown=xi_k,
                    )
                )
        pairs.append(PairData(i, k, range(lo, hi + 1), tuple(combos)))

    per = cluster.gpus_per_node
    nodes = tuple(tuple(range(v * per, (v + 1) * per)) for v in range(cluster.nodes))
    identical = _identical_pairs(instance)
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


def _size_estimate(
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
    arrival slot plus the job's fastest duration, and the GPU-time at twice the cluster's
    throughput (sharing a GPU never doubles its throughput: ξ > 1).
    """
    if least:
        fastest = [min(o.duration_s for o in opts) for opts in options]
        one = max(
            tick_ceil(job.arrival, dt) + math.ceil(d / dt)
            for job, d in zip(instance.jobs, fastest, strict=True)
        )
        gpu_time = sum(job.gpus * d for job, d in zip(instance.jobs, fastest, strict=True))
        slots = max(one, math.ceil(gpu_time / (2 * instance.cluster.num_gpus * dt)))
        if horizon is not None:
            slots = min(slots, horizon)
    elif horizon is not None:
        slots = horizon
    elif heuristic is not None:
        slots = max(tick_ceil(f, dt) for f in heuristic.finish.values())
    else:
        last = max(tick_ceil(job.arrival, dt) for job in instance.jobs)
        slots = last + sum(math.ceil(max(o.duration_s for o in opts) / dt) for opts in options)
    return ModelSize(instance.num_jobs, slots, instance.cluster.num_gpus, dt)


def _throughput(
    instance: Instance,
    options: list[tuple[OptionData, ...]],
    occupants: list[dict[int, Occupant]],
    works: list[int],
    tops: list[int],
    model: Interference,
    dt: float,
) -> float:
    """θ: the best per-GPU work of any pair that fits, in fastest-alone slots (at least 1)."""
    mem_cap = instance.cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB
    best = 1.0
    for i, k in combinations(range(len(options)), 2):
        for opt_i in options[i]:
            for opt_k in options[k]:
                occ_i = occupants[i][opt_i.accumulation]
                occ_k = occupants[k][opt_k.accumulation]
                if occ_i.memory_gb + occ_k.memory_gb > mem_cap or not can_share(
                    model, occ_i, occ_k
                ):
                    continue
                prog_i = slot_progress(works[i], dt, opt_i.duration_s, model.slowdown(occ_i, occ_k))
                prog_k = slot_progress(works[k], dt, opt_k.duration_s, model.slowdown(occ_k, occ_i))
                best = max(
                    best, min(prog_i, opt_i.alone) / tops[i] + min(prog_k, opt_k.alone) / tops[k]
                )
    return best


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


def _identical_pairs(instance: Instance) -> tuple[tuple[int, int], ...]:
    """Consecutive positions of jobs that are interchangeable (same data but the id)."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, job in enumerate(instance.jobs):
        key = (job.arrival, job.gpus, job.model, job.batch, job.iterations, job.duration)
        groups.setdefault(key, []).append(i)
    out: list[tuple[int, int]] = []
    for members in groups.values():
        out.extend(pairwise(members))
    return tuple(sorted(out))


def canonical_schedule(data: OfflineData, schedule: Schedule) -> Schedule:
    """Permute a schedule so that it satisfies the model's symmetry breaking.

    Identical jobs swap plans so that starts are in position order; then, within each node, GPU
    ids are permuted so that the GPU columns of the assignment matrix (rows :attr:`lex_rows`)
    are in non-increasing lexicographic order. The result is an equivalent schedule (same
    simulated JCTs).
    """
    instance = data.instance
    by_position = {instance.index_of(e.job_id): e for e in schedule}
    # Identical jobs: give the earlier position the earlier start (chains of consecutive pairs).
    changed = True
    while changed:
        changed = False
        for i, k in data.identical:
            if by_position[i].start > by_position[k].start:
                a, b = by_position[i], by_position[k]
                by_position[i] = PlannedStart(a.job_id, b.start, b.gpus, b.accumulation)
                by_position[k] = PlannedStart(b.job_id, a.start, a.gpus, a.accumulation)
                changed = True
    rows = data.lex_rows
    mapping: dict[int, int] = {}
    for node in data.nodes:
        columns = []
        for g in node:
            column = tuple(int(g in by_position[r].gpus) for r in rows)
            columns.append((column, g))
        ordered = sorted(columns, key=lambda c: (tuple(-v for v in c[0]), c[1]))
        for target, (_, g) in zip(node, ordered, strict=True):
            mapping[g] = target
    return tuple(
        PlannedStart(e.job_id, e.start, tuple(sorted(mapping[g] for g in e.gpus)), e.accumulation)
        for e in sorted(by_position.values(), key=lambda e: e.job_id)
    )


def slowing_options(data: OfflineData, pair: PairData, position: int) -> tuple[int, ...]:
    """Indices of a pair's option combinations that fit and slow job ``position`` down."""
    if not pair.any_fit:
        return ()
    first = position == pair.first
    job = data.jobs[position]
    return tuple(
        n
        for n, c in enumerate(pair.options)
        if c.fits and c.progress(first) < job.options[c.option(first)].alone
    )
