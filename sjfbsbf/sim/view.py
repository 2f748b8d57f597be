"""The read-only view of the simulator state, the only thing a policy sees (docs/model.md §4).

Job ids (not internal indices) are used throughout. Besides per-job facts the view hands out the
occupancy the simulator keeps incrementally (idle GPUs per node, GPUs holding one job, jobs alone
on their GPUs), so a decision need not rescan every GPU.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sjfbsbf.core.interference import Interference, Occupant, occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import memory_gb, micro_batch_options
from sjfbsbf.core.perf import step_time as solo_step_time
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.state import FINISHED, PENDING, RUNNING, SimState

#: Job ids for the array methods: a list, or an integer numpy array.
JobIds = Sequence[int] | np.ndarray


class ClusterView:
    """Read-only view of the simulator state, the only thing a policy sees.

    Job ids (not internal indices) are used throughout. The view reads the live state; it has no
    mutators, and arrays it hands out are read-only copies or views.
    """

    def __init__(self, state: SimState, time: float = 0.0) -> None:
        self._s = state
        self._time = time
        self._fewest_step: np.ndarray | None = None  # solo step at s = 1 on the fewest nodes

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
        return self._ids(sorted(self._s.pending))

    def running(self) -> list[int]:
        """Jobs holding GPUs (including those in restart overhead), by (arrival, id)."""
        return self._ids(sorted(self._s.running))

    def _ids(self, indices: list[int]) -> list[int]:
        """Job ids of internal indices (a fresh list)."""
        if self._s.ids_are_indices:
            return indices
        ids = self._s.id_list
        return [ids[i] for i in indices]

    def is_pending(self, job_id: int) -> bool:
        """Whether ``job_id`` is a job of the instance that waits (arrived, not running)."""
        i = self._s.index.get(job_id)
        return i is not None and self._s.status[i] == PENDING

    def is_running(self, job_id: int) -> bool:
        """Whether ``job_id`` is a job of the instance that holds GPUs."""
        i = self._s.index.get(job_id)
        return i is not None and self._s.status[i] == RUNNING

    def is_finished(self, job_id: int) -> bool:
        """Whether ``job_id`` is a job of the instance that has completed."""
        i = self._s.index.get(job_id)
        return i is not None and self._s.status[i] == FINISHED

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
        return [g for node in self._s.idle_by_node for g in node]

    @property
    def free_count(self) -> int:
        """Number of idle GPUs."""
        return self._s.idle_count

    def single_gpus(self) -> list[int]:
        """Ids of GPUs holding exactly one job, ascending."""
        return sorted(self._s.single)

    def hosts(self) -> list[int]:
        """Running jobs that are alone on every one of their GPUs, by (arrival, id)."""
        ids = self._s.id_list
        return [ids[i] for i in sorted(self._s.hosts)]

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
        preempted pending job, none for a finished one; preemptive policies rank by this with
        ``fewest_nodes`` (§5).
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
        elif s.status[i] == PENDING and s.preemptions[i] > 0:
            restart = s.restart_overhead
        else:
            restart = 0.0
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
        """Idle GPU ids grouped by node (ascending within a node; fresh lists)."""
        return [list(node) for node in self._s.idle_by_node]

    # -- per-job facts for many jobs at once (numpy; equal to the one-job methods) --------------
    def _indices(self, job_ids: JobIds) -> np.ndarray:
        if self._s.ids_are_indices:  # ids 0..n-1 in order (every generated workload)
            return np.asarray(job_ids, dtype=np.int64)
        index = self._s.index
        return np.fromiter((index[j] for j in job_ids), dtype=np.int64, count=len(job_ids))

    def exclusive_durations(self, job_ids: JobIds) -> np.ndarray:
        """:meth:`exclusive_duration` of each job, as an array."""
        return self._s.exclusive[self._indices(job_ids)]

    def gpu_counts(self, job_ids: JobIds) -> np.ndarray:
        """The GPU count of each job, as an array."""
        return self._s.gpus[self._indices(job_ids)]

    def arrivals(self, job_ids: JobIds) -> np.ndarray:
        """The arrival time of each job, as an array."""
        return self._s.arrival[self._indices(job_ids)]

    def running_mask(self, job_ids: JobIds) -> np.ndarray:
        """:meth:`is_running` of each job (of the instance), as a boolean array."""
        return self._s.status[self._indices(job_ids)] == RUNNING

    def attained_services(self, job_ids: JobIds) -> np.ndarray:
        """:meth:`attained_service` of each job, as an array (the same floats)."""
        s = self._s
        i = self._indices(job_ids)
        running = s.status[i] == RUNNING
        extra = (self._time - s.last[i]) * s.gpus[i]
        return np.where(running, s.attained[i] + extra, s.attained[i])

    def remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j, 1, fewest_nodes=True)`` of each job, as an array (the same
        floats): what preemptive policies rank by (docs/model.md §5)."""
        s = self._s
        i = self._indices(job_ids)
        t = self._time
        running = s.status[i] == RUNNING
        done = s.done[i]
        start = np.maximum(s.last[i], s.resume_at[i])
        moving = done + (t - start) / (s.step[i] * s.xi[i])  # NaN for a job that never ran
        progress = np.where(running & (t > start), moving, done)
        remaining = s.work[i] - progress
        restart = np.where(
            running,
            np.maximum(0.0, s.resume_at[i] - t),
            np.where((s.status[i] == PENDING) & (s.preemptions[i] > 0), s.restart_overhead, 0.0),
        )
        return remaining * self._fewest_steps()[i] + restart

    def running_remaining_exclusives(self, job_ids: JobIds) -> np.ndarray:
        """``remaining_exclusive(j)`` of each running job (its accumulation and placement now),
        as an array (the same floats): what SJF-BSBF weighs a host by (docs/model.md §6)."""
        s = self._s
        i = self._indices(job_ids)
        assert np.all(s.status[i] == RUNNING), "running jobs only"
        t = self._time
        done = s.done[i]
        start = np.maximum(s.last[i], s.resume_at[i])
        step = s.step[i]
        progress = np.where(t > start, done + (t - start) / (step * s.xi[i]), done)
        return (s.work[i] - progress) * step + np.maximum(0.0, s.resume_at[i] - t)

    def least_free_memory(self, job_ids: JobIds) -> np.ndarray:
        """The least free memory (GB) over each running job's GPUs, as an array."""
        s = self._s
        placements = [s.placement[k] for k in self._indices(job_ids).tolist()]
        gpus = np.fromiter((g for p in placements for g in p), dtype=np.int64)
        free = s.cluster.gpu_mem_gb - s.gpu_mem[gpus]
        starts = np.cumsum([0] + [len(p) for p in placements[:-1]])
        return np.minimum.reduceat(free, starts) if len(placements) else np.zeros(0)

    def running_occupants(self, job_ids: JobIds) -> list[Occupant]:
        """Each running job's occupant now: ``occupant(j, accumulation(j))``."""
        s = self._s
        found = [s.occupants[k] for k in self._indices(job_ids).tolist()]
        assert all(o is not None for o in found), "running jobs only"
        return found

    def _fewest_steps(self) -> np.ndarray:
        """Solo step time of every job at s = 1 on the fewest nodes (computed once)."""
        if self._fewest_step is None:
            s = self._s
            per = s.cluster.gpus_per_node
            self._fewest_step = np.array(
                [
                    solo_step_time(job, profile, 1, job.gpus > per, s.cluster)
                    for job, profile in zip(s.instance.jobs, s.profiles, strict=True)
                ],
                dtype=float,
            )
        return self._fewest_step
