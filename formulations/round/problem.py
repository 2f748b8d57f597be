"""The round problem's immutable data (docs/formulations.md §1.2): what a decision leaves to pair.

After the SJF pass has started alone every pending job that fits on idle GPUs, the round problem
holds the pending jobs that did not fit (in SJF order), the host candidates (running jobs that
hold all their GPUs alone; each may take one sharer), the number of idle GPUs left and the pair
benefit estimate ``benefit[(job, s, host)]`` of every memory-feasible (job, option, host) pair,
computed once by :func:`sjfbsbf.policies.benefit.pair_benefit`. Every algorithm (the two exact
backends, brute force and the greedy comparator) reads this one object.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB

#: (job id, accumulation factor s, host id): a key of the benefit table.
PairKey = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class RoundJob:
    """A pending job of the round.

    Attributes
    ----------
    id
        Job id.
    gpus
        GPU count G_a (must be met exactly).
    options
        Accumulation factors s it may run with, strictly increasing (so the greedy's tie rule,
        "the larger micro-batch wins", is "the first option wins").
    memory
        Memory per GPU (GB) at each option, aligned with ``options``.
    """

    id: int
    gpus: int
    options: tuple[int, ...]
    memory: tuple[float, ...]

    def memory_at(self, s: int) -> float:
        """Memory per GPU at accumulation ``s`` (GB)."""
        return self.memory[self.options.index(s)]


@dataclass(frozen=True, slots=True)
class RoundHost:
    """A host candidate: a running job alone on all of its GPUs.

    Attributes
    ----------
    id
        Job id of the host.
    gpus
        Number of GPUs it holds (a sharer may take 1 to ``gpus`` of them).
    room
        Smallest free memory over its GPUs (GB).
    """

    id: int
    gpus: int
    room: float


def fits(room: float, memory: float) -> bool:
    """Whether a job needing ``memory`` GB fits beside a host with ``room`` GB free.

    The same test, with the feasibility checker's tolerance, as the sjf-bsbf greedy.
    """
    return room + MEMORY_TOLERANCE_GB >= memory


@dataclass(frozen=True)
class RoundProblem:
    """One decision's pairing and sub-batch problem.

    Attributes
    ----------
    jobs
        Pending jobs that did not get idle GPUs, in SJF order (the greedy's order).
    hosts
        Host candidates.
    idle
        Idle GPUs left after the SJF pass (each job in the round needs more than this).
    benefit
        ``(job id, s, host id) -> pair benefit (s)``, given for exactly the memory-feasible
        triples (``host.room + tolerance >= job memory at s``) not in ``forbidden``.
    forbidden
        Memory-feasible triples the interference model's sharing rule forbids (docs/model.md
        §3, e.g. a pair measured out of memory): never shared, so no benefit is given.
        Most hosts one job may take GPUs from (``None``: no limit).
    threshold
        A sharing job's score (the sum of its pair benefits) must exceed this (s).

    Raises
    ------
    ValueError
        If the data are malformed: a negative idle count, duplicate ids, a job that fits on the
        idle GPUs (it belongs to the SJF pass), options not strictly increasing, a benefit for an
        unknown, memory-infeasible or forbidden triple, a missing benefit for a feasible one,
        non-finite numbers.
    """

    jobs: tuple[RoundJob, ...]
    hosts: tuple[RoundHost, ...]
    idle: int
    benefit: Mapping[PairKey, float] = field(default_factory=dict)
    max_partners: int | None = None
    threshold: float = 0.0
    forbidden: frozenset[PairKey] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "forbidden", frozenset(self.forbidden))
        object.__setattr__(self, "jobs", tuple(self.jobs))
        object.__setattr__(self, "hosts", tuple(self.hosts))
        object.__setattr__(self, "benefit", MappingProxyType(dict(self.benefit)))
        _validate(self)

    def job(self, job_id: int) -> RoundJob:
        """The job with id ``job_id``."""
        for job in self.jobs:
            if job.id == job_id:
                return job
        raise KeyError(job_id)

    def host(self, host_id: int) -> RoundHost:
        """The host with id ``host_id``."""
        for host in self.hosts:
            if host.id == host_id:
                return host
        raise KeyError(host_id)

    @property
    def size(self) -> tuple[int, int]:
        """(pending jobs, hosts)."""
        return len(self.jobs), len(self.hosts)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _validate(problem: RoundProblem) -> None:
    if not _is_int(problem.idle) or problem.idle < 0:
        raise ValueError(
            f"round problem: idle must be a non-negative integer, got {problem.idle!r}"
        )
    if problem.max_partners is not None and (
        not _is_int(problem.max_partners) or problem.max_partners < 1
    ):
        raise ValueError(
            f"round problem: max_partners must be None or >= 1, got {problem.max_partners!r}"
        )
    if not math.isfinite(problem.threshold):
        raise ValueError(f"round problem: threshold must be finite, got {problem.threshold!r}")
    job_ids = [j.id for j in problem.jobs]
    host_ids = [h.id for h in problem.hosts]
    if len(set(job_ids)) != len(job_ids):
        raise ValueError("round problem: duplicate job ids")
    if len(set(host_ids)) != len(host_ids):
        raise ValueError("round problem: duplicate host ids")
    if set(job_ids) & set(host_ids):
        raise ValueError("round problem: a job cannot be both pending and a host")
    for job in problem.jobs:
        _validate_job(job, problem.idle)
    for host in problem.hosts:
        if not _is_int(host.gpus) or host.gpus < 1:
            raise ValueError(f"round problem: host {host.id} must hold >= 1 GPU, got {host.gpus!r}")
        if not math.isfinite(host.room):
            raise ValueError(f"round problem: host {host.id} has non-finite room {host.room!r}")
    _validate_benefit(problem)


def _validate_job(job: RoundJob, idle: int) -> None:
    if not _is_int(job.gpus) or job.gpus < 1:
        raise ValueError(f"round problem: job {job.id} must need >= 1 GPU, got {job.gpus!r}")
    if job.gpus <= idle:
        raise ValueError(
            f"round problem: job {job.id} needs {job.gpus} GPUs but {idle} are idle: it fits "
            "alone and belongs to the SJF pass, not to the round"
        )
    if not job.options:
        raise ValueError(f"round problem: job {job.id} has no accumulation option")
    if any(not _is_int(s) or s < 1 for s in job.options) or list(job.options) != sorted(
        set(job.options)
    ):
        raise ValueError(
            f"round problem: job {job.id} options must be strictly increasing integers >= 1, "
            f"got {job.options!r}"
        )
    if len(job.memory) != len(job.options):
        raise ValueError(f"round problem: job {job.id} needs one memory value per option")
    if any(not math.isfinite(m) or m < 0 for m in job.memory):
        raise ValueError(f"round problem: job {job.id} has invalid memory {job.memory!r}")


def _validate_benefit(problem: RoundProblem) -> None:
    jobs = {j.id: j for j in problem.jobs}
    hosts = {h.id: h for h in problem.hosts}
    for key, value in problem.benefit.items():
        if not (isinstance(key, tuple) and len(key) == 3):
            raise ValueError(f"round problem: benefit key {key!r} is not (job, s, host)")
        job_id, s, host_id = key
        job = jobs.get(job_id)
        host = hosts.get(host_id)
        if job is None or host is None or s not in job.options:
            raise ValueError(f"round problem: benefit given for unknown triple {key!r}")
        if key in problem.forbidden:
            raise ValueError(f"round problem: benefit given for forbidden triple {key!r}")
        if not fits(host.room, job.memory_at(s)):
            raise ValueError(
                f"round problem: benefit given for {key!r}, but job {job_id} at s={s} "
                f"({job.memory_at(s):.3f} GB) does not fit beside host {host_id} "
                f"({host.room:.3f} GB free)"
            )
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"round problem: benefit of {key!r} must be finite, got {value!r}")
    for job in problem.jobs:
        for s, mem in zip(job.options, job.memory, strict=True):
            for host in problem.hosts:
                key = (job.id, s, host.id)
                known = key in problem.benefit or key in problem.forbidden
                if fits(host.room, mem) and not known:
                    raise ValueError(
                        f"round problem: no benefit for memory-feasible triple "
                        f"({job.id}, {s}, {host.id})"
                    )
