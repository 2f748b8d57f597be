"""Immutable problem data: the cluster, the jobs and an instance (DESIGN §1.1, §1.2, §5)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sjfbsbf.errors import InstanceError

#: Version tag of the instance JSON contract.
SCHEMA = "sjfbsbf.instance/1"


@dataclass(frozen=True, slots=True)
class Cluster:
    """A homogeneous GPU cluster.

    Parameters
    ----------
    nodes
        Number of nodes.
    gpus_per_node
        GPUs per node. GPU ids are ``node * gpus_per_node + local index``.
    gpu_mem_gb
        Memory of each GPU in GB.
    intra_bw_gbps
        Effective all-reduce bandwidth inside a node (GB/s).
    inter_bw_gbps
        Effective all-reduce bandwidth across nodes (GB/s).
    """

    nodes: int = 4
    gpus_per_node: int = 8
    gpu_mem_gb: float = 12.0
    intra_bw_gbps: float = 16.0
    inter_bw_gbps: float = 8.0

    def __post_init__(self) -> None:
        for name in ("nodes", "gpus_per_node"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InstanceError(f"must be a positive integer, got {value!r}", field=name)
        for name in ("gpu_mem_gb", "intra_bw_gbps", "inter_bw_gbps"):
            value = getattr(self, name)
            if not _finite_number(value) or value <= 0:
                raise InstanceError(f"must be a positive number, got {value!r}", field=name)

    @property
    def num_gpus(self) -> int:
        """Total number of GPUs."""
        return self.nodes * self.gpus_per_node

    def node_of(self, gpu: int) -> int:
        """Node index of GPU id ``gpu``."""
        return gpu // self.gpus_per_node

    def spans_nodes(self, gpus: tuple[int, ...] | frozenset[int]) -> bool:
        """Whether a placement uses more than one node."""
        return len({g // self.gpus_per_node for g in gpus}) > 1

    def min_nodes(self, gpus: int) -> int:
        """Fewest nodes that can hold a job of ``gpus`` GPUs."""
        return math.ceil(gpus / self.gpus_per_node)


@dataclass(frozen=True, slots=True)
class Job:
    """One training job.

    A job gives either ``model`` + ``batch`` + ``iterations`` (a catalog job), or only
    ``duration`` (exclusive run time in seconds on its GPUs; a generic profile is used).

    Parameters
    ----------
    id
        Unique non-negative integer id; ties between jobs break by id.
    arrival
        Submission time in seconds (>= 0).
    gpus
        Number of GPUs G the job trains on (fixed).
    model
        Key into the performance catalog, or ``None`` for a duration-only job.
    batch
        Per-GPU batch size B (the training setting; the global batch G*B never changes).
    iterations
        Number of optimizer steps.
    duration
        Exclusive duration in seconds, for duration-only jobs.
    """

    id: int
    arrival: float
    gpus: int
    model: str | None = None
    batch: int | None = None
    iterations: int | None = None
    duration: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, int) or isinstance(self.id, bool) or self.id < 0:
            raise InstanceError(f"must be a non-negative integer, got {self.id!r}", field="id")
        row = self.id
        if not _finite_number(self.arrival) or self.arrival < 0:
            raise InstanceError(
                f"must be a non-negative number, got {self.arrival!r}", row=row, field="arrival"
            )
        if not isinstance(self.gpus, int) or isinstance(self.gpus, bool) or self.gpus < 1:
            raise InstanceError(
                f"must be a positive integer, got {self.gpus!r}", row=row, field="gpus"
            )
        if self.duration is not None:
            if self.model is not None or self.batch is not None or self.iterations is not None:
                raise InstanceError(
                    "give either 'duration' or 'model'+'batch'+'iterations', not both",
                    row=row,
                    field="duration",
                )
            if not _finite_number(self.duration) or self.duration <= 0:
                raise InstanceError(
                    f"must be a positive number, got {self.duration!r}", row=row, field="duration"
                )
            return
        for name in ("model", "batch", "iterations"):
            if getattr(self, name) is None:
                raise InstanceError(
                    "missing (a job needs 'duration', or 'model'+'batch'+'iterations')",
                    row=row,
                    field=name,
                )
        if not isinstance(self.model, str) or not self.model:
            raise InstanceError(f"must be a model name, got {self.model!r}", row=row, field="model")
        for name in ("batch", "iterations"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InstanceError(
                    f"must be a positive integer, got {value!r}", row=row, field=name
                )

    @property
    def is_duration_only(self) -> bool:
        """Whether the job only knows its exclusive duration."""
        return self.duration is not None


@dataclass(frozen=True, slots=True)
class Instance:
    """A cluster, the jobs to schedule on it and the performance catalog they refer to.

    Validation happens at construction: unique ids, jobs that fit the cluster, known models.

    Parameters
    ----------
    cluster
        The cluster.
    jobs
        The jobs, stored sorted by (arrival, id).
    catalog
        Name of the performance catalog (see :mod:`sjfbsbf.catalog`).
    name
        Optional human-readable name.
    """

    cluster: Cluster
    jobs: tuple[Job, ...]
    catalog: str = "default"
    name: str = ""
    _by_id: dict[int, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Local import: the catalog module depends on perf, which depends on this module.
        from sjfbsbf.catalog import get_catalog

        jobs = tuple(sorted(self.jobs, key=lambda j: (j.arrival, j.id)))
        object.__setattr__(self, "jobs", jobs)
        if not jobs:
            raise InstanceError("an instance needs at least one job", field="jobs")
        try:
            catalog = get_catalog(self.catalog)
        except KeyError as exc:
            raise InstanceError(str(exc.args[0]), field="catalog") from None
        by_id: dict[int, int] = {}
        for index, job in enumerate(jobs):
            if job.id in by_id:
                raise InstanceError("duplicate job id", row=job.id, field="id")
            by_id[job.id] = index
            if job.gpus > self.cluster.num_gpus:
                raise InstanceError(
                    f"asks for {job.gpus} GPUs but the cluster has {self.cluster.num_gpus}",
                    row=job.id,
                    field="gpus",
                )
            if job.model is not None:
                if job.model not in catalog:
                    raise InstanceError(
                        f"unknown model {job.model!r} (catalog '{self.catalog}' has "
                        f"{', '.join(sorted(catalog))})",
                        row=job.id,
                        field="model",
                    )
                profile = catalog[job.model]
                assert job.batch is not None
                if job.batch < profile.min_micro_batch:
                    raise InstanceError(
                        f"batch {job.batch} is below the model's minimum micro-batch "
                        f"{profile.min_micro_batch}",
                        row=job.id,
                        field="batch",
                    )
                if profile.memory_gb(job.batch) > self.cluster.gpu_mem_gb:
                    raise InstanceError(
                        f"needs {profile.memory_gb(job.batch):.2f} GB per GPU at batch "
                        f"{job.batch}, more than the cluster's {self.cluster.gpu_mem_gb} GB",
                        row=job.id,
                        field="batch",
                    )
        object.__setattr__(self, "_by_id", by_id)

    def job(self, job_id: int) -> Job:
        """The job with id ``job_id``."""
        return self.jobs[self._by_id[job_id]]

    def index_of(self, job_id: int) -> int:
        """Position of job ``job_id`` in :attr:`jobs`."""
        return self._by_id[job_id]

    @property
    def num_jobs(self) -> int:
        """Number of jobs."""
        return len(self.jobs)


def _finite_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
