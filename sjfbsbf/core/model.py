"""Immutable problem data: the cluster, the jobs and an instance (docs/model.md §1).

The constructors validate every value against the limits below (one place, so instance files,
trace loaders and instances built in Python are held to the same rules). The limits are generous
for real traces (jobs that run for months) and keep every quantity far from overflow and from
float rounding at 1 s ticks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from operator import attrgetter

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.errors import InstanceError

#: Version tag of the instance JSON contract.
SCHEMA = "sjfbsbf.instance/1"

#: Largest arrival time and duration, in seconds: 10 years of 365.25 days.
MAX_TIME_S = 10 * 365.25 * 86400.0
#: Most iterations (optimizer steps) of a job.
MAX_ITERATIONS = 10**12
#: Largest per-GPU batch size B.
MAX_BATCH = 10**6
#: Largest job id: 2**53 - 1, the largest integer every JSON reader holds exactly.
MAX_JOB_ID = 2**53 - 1
#: Most nodes of a cluster.
MAX_NODES = 100_000
#: Most GPUs per node.
MAX_GPUS_PER_NODE = 1024
#: Most GPUs of a cluster (nodes × GPUs per node): 2^22 = 4,194,304. The simulator keeps
#: per-GPU state; at this size one run of the default workload peaks at 588 MiB (docs/model.md
#: §1; 100,000 × 1,024 GPUs, the earlier limit, ran out of memory).
MAX_GPUS = 2**22
#: Largest GPU memory, in GB.
MAX_GPU_MEM_GB = 100_000.0
#: Largest all-reduce bandwidth, in GB/s.
MAX_BANDWIDTH_GBPS = 1_000_000.0
#: Most characters of a job's ``vc`` and ``user`` labels.
MAX_LABEL_CHARS = 128


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
        for name, top in (("nodes", MAX_NODES), ("gpus_per_node", MAX_GPUS_PER_NODE)):
            _check_int(getattr(self, name), 1, top, None, name)
        if self.nodes * self.gpus_per_node > MAX_GPUS:
            raise InstanceError(
                f"{self.nodes:,} nodes × {self.gpus_per_node:,} GPUs per node = "
                f"{self.nodes * self.gpus_per_node:,} GPUs; a cluster has at most {MAX_GPUS:,}",
                field="nodes",
            )
        for name, limit, unit in (
            ("gpu_mem_gb", MAX_GPU_MEM_GB, "GB"),
            ("intra_bw_gbps", MAX_BANDWIDTH_GBPS, "GB/s"),
            ("inter_bw_gbps", MAX_BANDWIDTH_GBPS, "GB/s"),
        ):
            _check_number(getattr(self, name), limit, unit, None, name, positive=True)

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
    estimate
        Optional user-supplied estimate of the exclusive run time in seconds (like a Slurm time
        limit; what the ``user`` duration estimator reads); any job may give one.
    vc
        Optional virtual cluster (queue) the job was submitted to, as a trace names it: 1 to
        :data:`MAX_LABEL_CHARS` printable characters.
    user
        Optional user who submitted the job, as a trace names it (same rule as ``vc``).
    """

    id: int
    arrival: float
    gpus: int
    model: str | None = None
    batch: int | None = None
    iterations: int | None = None
    duration: float | None = None
    estimate: float | None = None
    vc: str | None = None
    user: str | None = None

    def __post_init__(self) -> None:
        if (
            self.duration is not None
            and self.model is None
            and self.batch is None
            and self.iterations is None
            and type(self.id) is int
            and 0 <= self.id <= MAX_JOB_ID
            and type(self.gpus) is int
            and self.gpus >= 1
            and type(self.arrival) in _NUMBER_TYPES
            and 0 <= self.arrival <= MAX_TIME_S
            and type(self.duration) in _NUMBER_TYPES
            and 0 < self.duration <= MAX_TIME_S
            and (
                self.estimate is None
                or (type(self.estimate) in _NUMBER_TYPES and 0 < self.estimate <= MAX_TIME_S)
            )
            and (
                self.vc is None
                or (
                    type(self.vc) is str
                    and 0 < len(self.vc) <= MAX_LABEL_CHARS
                    and self.vc.isprintable()
                )
            )
            and (
                self.user is None
                or (
                    type(self.user) is str
                    and 0 < len(self.user) <= MAX_LABEL_CHARS
                    and self.user.isprintable()
                )
            )
        ):
            return  # a well-formed duration-only job: every check of _validate passes
        self._validate()

    def _validate(self) -> None:
        """Every check of the job's fields, raising :class:`InstanceError` on the first."""
        _check_int(self.id, 0, MAX_JOB_ID, None, "id")
        row = self.id
        _check_number(self.arrival, MAX_TIME_S, "s (10 years)", row, "arrival", positive=False)
        # The cluster's size bounds the GPU count (checked by Instance).
        _check_int(self.gpus, 1, None, row, "gpus")
        if self.duration is not None:
            if self.model is not None or self.batch is not None or self.iterations is not None:
                raise InstanceError(
                    "give either 'duration' or 'model'+'batch'+'iterations', not both",
                    row=row,
                    field="duration",
                )
            _check_number(self.duration, MAX_TIME_S, "s (10 years)", row, "duration", positive=True)
            if self.estimate is not None or self.vc is not None or self.user is not None:
                self._validate_optional(row)
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
        _check_int(self.batch, 1, MAX_BATCH, row, "batch")
        _check_int(self.iterations, 1, MAX_ITERATIONS, row, "iterations")
        if self.estimate is not None or self.vc is not None or self.user is not None:
            self._validate_optional(row)

    def _validate_optional(self, row: int) -> None:
        """The checks of the optional fields ``estimate``, ``vc`` and ``user``, if given."""
        if self.estimate is not None:
            _check_number(self.estimate, MAX_TIME_S, "s (10 years)", row, "estimate", positive=True)
        if self.vc is not None:
            _check_label(self.vc, row, "vc")
        if self.user is not None:
            _check_label(self.user, row, "user")

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
        Name of the performance catalog (see :mod:`sjfbsbf.core.catalog`).
    name
        Optional human-readable name.
    """

    cluster: Cluster
    jobs: tuple[Job, ...]
    catalog: str = "default"
    name: str = ""
    _by_id: dict[int, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        jobs = tuple(sorted(self.jobs, key=_ARRIVAL_ID))
        object.__setattr__(self, "jobs", jobs)
        if not jobs:
            raise InstanceError("an instance needs at least one job", field="jobs")
        try:
            catalog = get_catalog(self.catalog)
        except KeyError as exc:
            raise InstanceError(str(exc.args[0]), field="catalog") from None
        generic_gb = generic_profile(catalog).mem_fixed_gb if catalog else 0.0
        num_gpus = self.cluster.num_gpus
        generic_fits = generic_gb <= self.cluster.gpu_mem_gb
        by_id: dict[int, int] = {}
        for index, job in enumerate(jobs):
            if job.id in by_id:
                raise InstanceError("duplicate job id", row=job.id, field="id")
            by_id[job.id] = index
            if job.gpus > num_gpus:
                raise InstanceError(
                    f"asks for {job.gpus} GPUs but the cluster has {num_gpus}",
                    row=job.id,
                    field="gpus",
                )
            if job.model is None and not generic_fits:
                raise InstanceError(
                    f"a duration-only job needs {generic_gb:.2f} GB per GPU (the generic profile "
                    f"of catalog '{self.catalog}'), more than the cluster's "
                    f"{self.cluster.gpu_mem_gb:g} GB",
                    row=job.id,
                    field="duration",
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
                assert job.iterations is not None
                spans = job.gpus > self.cluster.gpus_per_node
                step = profile.step_time(job.batch, 1, job.gpus, spans, self.cluster)
                if job.iterations * step > MAX_TIME_S:
                    raise InstanceError(
                        f"{job.iterations:,} iterations of {step:.3g} s run "
                        f"{job.iterations * step:,.0f} s alone, more than {MAX_TIME_S:,.0f} s "
                        "(10 years)",
                        row=job.id,
                        field="iterations",
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


#: The order of an instance's jobs: by arrival, ties by id.
_ARRIVAL_ID = attrgetter("arrival", "id")

#: Exact types the fast path of :class:`Job` accepts as numbers (not bool, not subclasses).
_NUMBER_TYPES = (int, float)


def label_problem(value: object) -> str | None:
    """Why ``value`` is not a valid ``vc`` or ``user`` label, or ``None`` if it is one.

    A label is a string of 1 to :data:`MAX_LABEL_CHARS` printable characters (no control
    characters, line or paragraph separators; ``str.isprintable``).
    """
    if not isinstance(value, str):
        return f"must be a string, got {value!r}"
    if not value:
        return "must be a non-empty string, got ''"
    if len(value) > MAX_LABEL_CHARS:
        return f"must be at most {MAX_LABEL_CHARS} characters, got {len(value):,}"
    if not value.isprintable():
        return f"must be printable text (no control characters), got {value!r}"
    return None


def _check_label(value: object, row: int | None, name: str) -> None:
    """Raise unless ``value`` is a valid ``vc`` or ``user`` label (:func:`label_problem`)."""
    problem = label_problem(value)
    if problem is not None:
        raise InstanceError(problem, row=row, field=name)


def _finite_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _check_int(value: object, low: int, high: int | None, row: int | None, name: str) -> None:
    """Raise unless ``value`` is an integer in ``[low, high]`` (``high=None``: no upper limit)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        kind = "positive" if low == 1 else "non-negative"
        raise InstanceError(f"must be a {kind} integer, got {value!r}", row=row, field=name)
    if high is not None and value > high:
        raise InstanceError(f"must be at most {high:,}, got {value:,}", row=row, field=name)


def _check_number(
    value: object, high: float, unit: str, row: int | None, name: str, *, positive: bool
) -> None:
    """Raise unless ``value`` is a finite number, > 0 (``positive``) or >= 0, and <= ``high``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (positive and value == 0)
    ):
        kind = "positive" if positive else "non-negative"
        raise InstanceError(f"must be a {kind} number, got {value!r}", row=row, field=name)
    if value > high:
        raise InstanceError(
            f"must be at most {high:,.0f} {unit}, got {value!r}", row=row, field=name
        )
