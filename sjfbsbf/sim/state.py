"""Mutable simulator state and the read-only view policies get of it (docs/model.md §4).

Per-job quantities live in numpy arrays indexed by the job's position in ``instance.jobs``;
progress is kept lazily: a job's progress at time t is its progress at ``last`` plus the time
since then (after any restart overhead) divided by its current step time × slowdown, so nothing is
rebuilt per tick. Only the simulator mutates :class:`SimState`; policies see :class:`ClusterView`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Interference, Occupant, occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import exclusive_duration, memory_gb, micro_batch_options, work
from sjfbsbf.core.perf import step_time as solo_step_time
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.ticks import tick_ceil as tick_ceil  # re-exported for older imports

FUTURE, PENDING, RUNNING, FINISHED = 0, 1, 2, 3


class SimState:
    """Everything the simulator tracks. Mutated only by :mod:`sjfbsbf.sim.simulator`."""

    def __init__(
        self, instance: Instance, interference: Interference, restart_overhead: float = 0.0
    ) -> None:
        self.instance = instance
        self.cluster = instance.cluster
        self.interference = interference
        #: Overhead (s) a preempted job pays when it resumes, as charged: rounded up to ticks.
        self.restart_overhead = restart_overhead
        catalog = get_catalog(instance.catalog)
        generic = generic_profile(catalog)
        self.profiles: list[ModelProfile] = [
            generic if j.model is None else catalog[j.model] for j in instance.jobs
        ]
        n = instance.num_jobs
        self.ids = np.array([j.id for j in instance.jobs], dtype=np.int64)
        self.id_list: list[int] = [j.id for j in instance.jobs]
        self.index: Mapping[int, int] = {j.id: i for i, j in enumerate(instance.jobs)}
        self.arrival = np.array([j.arrival for j in instance.jobs], dtype=float)
        self.gpus = np.array([j.gpus for j in instance.jobs], dtype=np.int64)
        self.work = np.array([work(j) for j in instance.jobs], dtype=float)
        self.exclusive = np.array(
            [
                exclusive_duration(j, p, self.cluster)
                for j, p in zip(instance.jobs, self.profiles, strict=True)
            ]
        )
        self.status = np.zeros(n, dtype=np.int8)
        self.done = np.zeros(n)  # steps done at time `last`
        self.last = np.zeros(n)  # time progress/attained/shared were last settled
        self.resume_at = np.zeros(n)  # progress resumes here (restart overhead)
        self.step = np.full(n, np.nan)  # solo step time at current placement
        self.xi = np.ones(n)  # current slowdown
        self.accumulation = np.ones(n, dtype=np.int64)
        self.first_start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.attained = np.zeros(n)  # GPU-seconds held
        self.shared_s = np.zeros(n)  # seconds with at least one shared GPU
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.version = np.zeros(n, dtype=np.int64)  # bumps whenever a job's rate changes
        self.placement: list[tuple[int, ...] | None] = [None] * n
        self.partners: list[set[int]] = [set() for _ in range(n)]
        self.occupants: list[Occupant | None] = [None] * n
        self.gpu_jobs: list[list[int]] = [[] for _ in range(self.cluster.num_gpus)]
        self.gpu_mem = np.zeros(self.cluster.num_gpus)
        self.pending: set[int] = set()
        self.running: set[int] = set()
        self.busy_gpus = 0
        self.shared_gpus = 0
        self.finished_count = 0
        #: Bumped whenever the set of waiting or running jobs, a placement or an accumulation
        #: changes (arrival, release, applied decision); equal epochs mean only time moved.
        self.epoch = 0
        #: Constant-rate progress segments (job index, start, end, seconds per step), if kept.
        self.segments: list[tuple[int, float, float, float]] | None = []

    # -- lazily kept quantities -------------------------------------------------------------
    def progress_at(self, i: int, t: float) -> float:
        """Steps done by job ``i`` at time ``t`` (>= its last settle)."""
        if self.status[i] != RUNNING:
            return float(self.done[i])
        start = max(self.last[i], self.resume_at[i])
        if t <= start:
            return float(self.done[i])
        return float(self.done[i] + (t - start) / (self.step[i] * self.xi[i]))

    def predicted_finish(self, i: int) -> float:
        """Finish time of running job ``i`` if its rate stays as it is now."""
        start = max(self.last[i], self.resume_at[i])
        return float(start + (self.work[i] - self.done[i]) * self.step[i] * self.xi[i])

    def is_shared(self, i: int) -> bool:
        """Whether running job ``i`` shares at least one of its GPUs."""
        placement = self.placement[i]
        return placement is not None and any(len(self.gpu_jobs[g]) > 1 for g in placement)

    def settle(self, i: int, t: float) -> None:
        """Bring job ``i``'s progress, attained service and shared time up to time ``t``."""
        if self.status[i] == RUNNING and t > self.last[i]:
            if self.segments is not None:
                start = max(self.last[i], self.resume_at[i])
                if t > start:
                    self.segments.append(
                        (i, float(start), float(t), float(self.step[i] * self.xi[i]))
                    )
            self.done[i] = min(self.progress_at(i, t), self.work[i])
            elapsed = t - self.last[i]
            self.attained[i] += elapsed * self.gpus[i]
            if self.is_shared(i):
                self.shared_s[i] += elapsed
        self.last[i] = t

    # -- placement -----------------------------------------------------------------------------
    def slowdown_of(self, i: int) -> float:
        """Slowdown of job ``i``: max over its GPUs of the co-resident's interference."""
        placement = self.placement[i]
        occ = self.occupants[i]
        assert placement is not None and occ is not None
        xi = 1.0
        seen: set[int] = set()
        for g in placement:
            for k in self.gpu_jobs[g]:
                if k != i and k not in seen:
                    seen.add(k)
                    other = self.occupants[k]
                    assert other is not None
                    xi = max(xi, self.interference.slowdown(occ, other))
        return xi

    def place(self, i: int, gpus: tuple[int, ...], accumulation: int, t: float) -> set[int]:
        """Put job ``i`` on ``gpus``; returns the co-residents whose rate must be refreshed."""
        job = self.instance.jobs[i]
        profile = self.profiles[i]
        self.placement[i] = tuple(sorted(gpus))
        self.accumulation[i] = accumulation
        self.occupants[i] = occupant(job, profile, accumulation)
        self.step[i] = solo_step_time(
            job, profile, accumulation, self.cluster.spans_nodes(gpus), self.cluster
        )
        mem = self.occupants[i].memory_gb  # type: ignore[union-attr]
        touched = {k for g in gpus for k in self.gpu_jobs[g]}
        for k in touched:  # settle at the old rates before the sharing changes
            self.settle(k, t)
        self.settle(i, t)
        for g in gpus:
            residents = self.gpu_jobs[g]
            if not residents:
                self.busy_gpus += 1
            elif len(residents) == 1:
                self.shared_gpus += 1
            for k in residents:
                self.partners[i].add(k)
                self.partners[k].add(i)
            residents.append(i)
            self.gpu_mem[g] += mem
        return touched

    def remove(self, i: int, t: float) -> set[int]:
        """Take job ``i`` off its GPUs; returns the co-residents whose rate must be refreshed."""
        placement = self.placement[i]
        assert placement is not None
        occ = self.occupants[i]
        assert occ is not None
        touched = {k for g in placement for k in self.gpu_jobs[g] if k != i}
        for k in touched:  # settle at the old rates before the sharing changes
            self.settle(k, t)
        for g in placement:
            residents = self.gpu_jobs[g]
            residents.remove(i)
            if not residents:
                self.busy_gpus -= 1
                self.gpu_mem[g] = 0.0
            else:
                self.gpu_mem[g] -= occ.memory_gb
                self.shared_gpus -= 1
        self.placement[i] = None
        return touched

    def retune(self, i: int, accumulation: int, t: float) -> set[int]:
        """Change running job ``i``'s accumulation factor in place (same GPUs).

        Returns the co-residents whose rate must be refreshed.
        """
        placement = self.placement[i]
        old = self.occupants[i]
        assert placement is not None and old is not None
        touched = {k for g in placement for k in self.gpu_jobs[g] if k != i}
        for k in touched:
            self.settle(k, t)
        self.settle(i, t)
        job = self.instance.jobs[i]
        profile = self.profiles[i]
        new = occupant(job, profile, accumulation)
        self.occupants[i] = new
        self.accumulation[i] = accumulation
        self.step[i] = solo_step_time(
            job, profile, accumulation, self.cluster.spans_nodes(placement), self.cluster
        )
        for g in placement:
            self.gpu_mem[g] += new.memory_gb - old.memory_gb
        return touched

    def memory_used(self) -> float:
        """Total GPU memory in use (GB)."""
        return float(self.gpu_mem.sum())


class ClusterView:
    """Read-only view of the simulator state, the only thing a policy sees.

    Job ids (not internal indices) are used throughout. The view reads the live state; it has no
    mutators, and arrays it hands out are read-only copies or views.
    """

    def __init__(self, state: SimState, time: float = 0.0) -> None:
        self._s = state
        self._time = time

    # -- basics ---------------------------------------------------------------------------------
    @property
    def time(self) -> float:
        """Current simulated time (s)."""
        return self._time

    @property
    def epoch(self) -> int:
        """State version: equal at two decisions iff no job arrived, finished, started, stopped or
        changed its accumulation in between (only time moved)."""
        return self._s.epoch

    @property
    def cluster(self) -> Cluster:
        """The cluster."""
        return self._s.cluster

    @property
    def instance(self) -> Instance:
        """The instance being simulated."""
        return self._s.instance

    @property
    def interference(self) -> Interference:
        """The interference model the simulator applies."""
        return self._s.interference

    def job(self, job_id: int) -> Job:
        """The job with id ``job_id``."""
        return self._s.instance.jobs[self._s.index[job_id]]

    def profile(self, job_id: int) -> ModelProfile:
        """Performance profile of a job (the generic one for duration-only jobs)."""
        return self._s.profiles[self._s.index[job_id]]

    # -- sets of jobs ---------------------------------------------------------------------------
    def pending(self) -> list[int]:
        """Arrived, unfinished, not running jobs (including preempted ones), by (arrival, id)."""
        ids = self._s.id_list
        return [ids[i] for i in sorted(self._s.pending)]

    def running(self) -> list[int]:
        """Jobs holding GPUs (including those in restart overhead), by (arrival, id)."""
        ids = self._s.id_list
        return [ids[i] for i in sorted(self._s.running)]

    # -- GPUs -----------------------------------------------------------------------------------
    def gpu_jobs(self, gpu: int) -> tuple[int, ...]:
        """Ids of the jobs on GPU ``gpu`` (at most two)."""
        ids = self._s.id_list
        return tuple(ids[i] for i in self._s.gpu_jobs[gpu])

    def residents(self) -> list[list[int]]:
        """Ids of the jobs on every GPU, indexed by GPU id (a fresh list of lists)."""
        ids = self._s.id_list
        return [[ids[i] for i in r] for r in self._s.gpu_jobs]

    def memory_by_gpu(self) -> list[float]:
        """Memory in use on every GPU (GB), indexed by GPU id."""
        return [float(m) for m in self._s.gpu_mem]

    def free_gpus(self) -> list[int]:
        """Ids of idle GPUs (holding no job), ascending."""
        return [g for g, r in enumerate(self._s.gpu_jobs) if not r]

    def gpu_memory_used(self, gpu: int) -> float:
        """Memory in use on a GPU (GB)."""
        return float(self._s.gpu_mem[gpu])

    # -- per-job facts --------------------------------------------------------------------------
    def _i(self, job_id: int) -> int:
        return self._s.index[job_id]

    def placement(self, job_id: int) -> tuple[int, ...] | None:
        """GPU ids a running job holds (``None`` if not running)."""
        return self._s.placement[self._i(job_id)]

    def accumulation(self, job_id: int) -> int:
        """Current (or last used) accumulation factor s of a job."""
        return int(self._s.accumulation[self._i(job_id)])

    def exclusive_duration(self, job_id: int) -> float:
        """Exclusive duration of the whole job at the full batch on the fewest nodes (s)."""
        return float(self._s.exclusive[self._i(job_id)])

    def remaining_work_share(self, job_id: int) -> float:
        """Share of the job's work still to do, in [0, 1]."""
        i = self._i(job_id)
        return 1.0 - self._s.progress_at(i, self._time) / float(self._s.work[i])

    @property
    def restart_overhead(self) -> float:
        """Overhead (s) a preempted job pays on resuming, rounded up to ticks (model.md §4)."""
        return self._s.restart_overhead

    def remaining_exclusive(
        self, job_id: int, accumulation: int | None = None, *, fewest_nodes: bool = False
    ) -> float:
        """Exclusive time (s) to finish the job alone, plus the restart overhead it still owes.

        At ``accumulation`` (default: the current one if running, else 1), on its current
        placement if running, else (or with ``fewest_nodes``) on the fewest nodes. The overhead
        is what is left of it for a running job, the full :attr:`restart_overhead` for a
        preempted pending job; preemptive policies rank by this with ``fewest_nodes`` (§5).
        """
        s = self._s
        i = self._i(job_id)
        job = s.instance.jobs[i]
        remaining = s.work[i] - s.progress_at(i, self._time)
        if accumulation is None:
            accumulation = int(s.accumulation[i]) if s.status[i] == RUNNING else 1
        placement = None if fewest_nodes else s.placement[i]
        spans = job.gpus > s.cluster.gpus_per_node
        if placement is not None:
            spans = s.cluster.spans_nodes(placement)
        step = solo_step_time(job, s.profiles[i], accumulation, spans, s.cluster)
        if s.status[i] == RUNNING:
            restart = max(0.0, s.resume_at[i] - self._time)
        else:
            restart = s.restart_overhead if s.preemptions[i] > 0 else 0.0
        return float(remaining * step + restart)

    def attained_service(self, job_id: int) -> float:
        """GPU-seconds the job has held GPUs so far."""
        s = self._s
        i = self._i(job_id)
        extra = (self._time - s.last[i]) * s.gpus[i] if s.status[i] == RUNNING else 0.0
        return float(s.attained[i] + extra)

    def slowdown(self, job_id: int) -> float:
        """Current slowdown of a running job (1 when alone)."""
        return float(self._s.xi[self._i(job_id)])

    def predicted_finish(self, job_id: int) -> float:
        """Finish time of a running job if nothing changes."""
        return self._s.predicted_finish(self._i(job_id))

    def is_shared(self, job_id: int) -> bool:
        """Whether a running job shares at least one GPU."""
        return self._s.is_shared(self._i(job_id))

    def preemptions(self, job_id: int) -> int:
        """How often the job was preempted."""
        return int(self._s.preemptions[self._i(job_id)])

    def accumulation_options(self, job_id: int) -> dict[int, int | None]:
        """Valid accumulation factors ``{s: micro-batch}`` of a job."""
        i = self._i(job_id)
        return micro_batch_options(self._s.instance.jobs[i], self._s.profiles[i])

    def memory_gb(self, job_id: int, accumulation: int) -> float:
        """Memory per GPU of a job at accumulation ``accumulation`` (GB)."""
        i = self._i(job_id)
        return memory_gb(self._s.instance.jobs[i], self._s.profiles[i], accumulation)

    def occupant(self, job_id: int, accumulation: int) -> Occupant:
        """The occupant a job would form at accumulation ``accumulation``."""
        i = self._i(job_id)
        return occupant(self._s.instance.jobs[i], self._s.profiles[i], accumulation)

    def step_time(self, job_id: int, accumulation: int, spans_nodes: bool) -> float:
        """Solo time of one unit of work of a job (s)."""
        i = self._i(job_id)
        return solo_step_time(
            self._s.instance.jobs[i], self._s.profiles[i], accumulation, spans_nodes, self.cluster
        )

    def free_by_node(self) -> list[list[int]]:
        """Idle GPU ids grouped by node."""
        per = self.cluster.gpus_per_node
        out: list[list[int]] = [[] for _ in range(self.cluster.nodes)]
        for g, residents in enumerate(self._s.gpu_jobs):
            if not residents:
                out[g // per].append(g)
        return out
