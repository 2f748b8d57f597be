"""What both views of the simulator state read alike: time, occupancy and per-job facts that a
real scheduler observes (docs/model.md §4).

:class:`StateReader` is the common base of the world view (:class:`~sjfbsbf.sim.world.WorldView`,
the truth: the simulator and the feasibility checker read it) and the policies' belief view
(:class:`~sjfbsbf.sim.view.ClusterView`). Nothing here reveals a job's length, the true
interference or a job that has not arrived: the belief view narrows :meth:`StateReader._i` and
:meth:`StateReader._indices` to arrived jobs, the world view does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sjfbsbf.core.interference import Occupant, occupant
from sjfbsbf.core.model import Cluster
from sjfbsbf.core.perf import memory_gb, micro_batch_options
from sjfbsbf.sim.state import FINISHED, PENDING, RUNNING, SimState

#: Job ids for the array methods: a list, or an integer numpy array.
JobIds = Sequence[int] | np.ndarray


class StateReader:
    """Read-only access to the live state: time, occupancy and observable per-job facts.

    Job ids (not internal indices) are used throughout. It has no mutators, and arrays it hands
    out are read-only copies or views.
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
    def cluster(self) -> Cluster:
        """The cluster."""
        return self._s.cluster

    @property
    def restart_overhead(self) -> float:
        """Overhead (s) a preempted job pays on resuming, rounded up to ticks (model.md §4)."""
        return self._s.restart_overhead

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
        return i is not None and bool(self._s.status[i] == PENDING)

    def is_running(self, job_id: int) -> bool:
        """Whether ``job_id`` is a job of the instance that holds GPUs."""
        i = self._s.index.get(job_id)
        return i is not None and bool(self._s.status[i] == RUNNING)

    def is_finished(self, job_id: int) -> bool:
        """Whether ``job_id`` is a job of the instance that has completed."""
        i = self._s.index.get(job_id)
        return i is not None and bool(self._s.status[i] == FINISHED)

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

    def free_by_node(self) -> list[list[int]]:
        """Idle GPU ids grouped by node (ascending within a node; fresh lists)."""
        return [list(node) for node in self._s.idle_by_node]

    # -- per-job facts --------------------------------------------------------------------------
    def _i(self, job_id: int) -> int:
        """Internal index of a job (``KeyError`` for an unknown id)."""
        return self._s.index[job_id]

    def placement(self, job_id: int) -> tuple[int, ...] | None:
        """GPU ids a running job holds (``None`` if not running)."""
        return self._s.placement[self._i(job_id)]

    def accumulation(self, job_id: int) -> int:
        """Current (or last used) accumulation factor s of a job."""
        return int(self._s.accumulation[self._i(job_id)])

    def attained_service(self, job_id: int) -> float:
        """GPU-seconds the job has held GPUs so far."""
        s = self._s
        i = self._i(job_id)
        extra = (self._time - s.last[i]) * s.gpus[i] if s.status[i] == RUNNING else 0.0
        return float(s.attained[i] + extra)

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

    # -- per-job facts for many jobs at once (numpy; equal to the one-job methods) --------------
    def _indices(self, job_ids: JobIds) -> np.ndarray:
        """Internal indices of jobs, as an integer array."""
        if self._s.ids_are_indices:  # ids 0..n-1 in order (every generated workload)
            return np.asarray(job_ids, dtype=np.int64)
        index = self._s.index
        return np.fromiter((index[j] for j in job_ids), dtype=np.int64, count=len(job_ids))

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
