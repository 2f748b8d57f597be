"""The options every public-trace loader shares, from parsed trace jobs to an instance.

A loader (Philly, Helios, Alibaba PAI) parses its file into :class:`TraceJob` records (the
jobs it could use, on the trace's own clock) and counts the records it skipped by reason; then
:func:`build_instance` applies :class:`TraceOptions` in this order (docs/model.md §8):

1. **time window** ``[start, end)``, in seconds after the first usable submission of the trace;
2. **random window** of ``window_jobs`` consecutive jobs (by submission), its first job drawn
   uniformly;
3. **sample** of ``sample`` jobs (an ``int``) or of the fraction ``sample`` (a ``float`` in
   (0, 1], ``round(fraction × n)`` jobs, at least one), drawn without replacement;
4. **oversize**: a job asking for more GPUs than the cluster is capped to the cluster (its
   duration kept), dropped, or refused;
5. arrivals **rebased** so that the first kept job arrives at 0;
6. **target load**: arrivals multiplied by one factor so that the offered load (exclusive GPU-time
   ÷ (cluster GPUs × arrival span), :func:`sjfbsbf.workloads.generators.offered_load`) equals
   ``target_load``.

Steps 2 and 3 draw from the :class:`numpy.random.Generator` given, and only from it. Every step
keeps a job's optional ``estimate``, ``vc`` and ``user``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.workloads.generators import offered_load

#: How a job asking for more GPUs than the cluster has is treated.
Oversize = Literal["cap", "drop", "refuse"]


@dataclass(frozen=True, slots=True)
class TraceJob:
    """One usable job of a trace: id, submission (s, on the trace's clock), GPUs, and either a
    duration (s) or a catalog job's ``model``, ``batch`` and ``iterations`` (trace tables); and
    the optional ``estimate`` (s), ``vc`` and ``user`` the job keeps (:class:`~sjfbsbf.core.
    model.Job`)."""

    id: int
    submit: float
    gpus: int
    duration: float | None = None
    model: str | None = None
    batch: int | None = None
    iterations: int | None = None
    estimate: float | None = None
    vc: str | None = None
    user: str | None = None


@dataclass(frozen=True, slots=True)
class TraceOptions:
    """Which part of a trace to keep and how (the steps of the module docstring).

    Parameters
    ----------
    start, end
        Time window in seconds after the trace's first usable submission (``None``: unbounded).
    window_jobs
        Keep a random window of this many consecutive jobs (all of them if there are fewer).
    sample
        Keep a random sample: a number of jobs (``int`` ≥ 1) or a fraction (``float`` in (0, 1]).
    target_load
        Rescale arrivals so that the offered load on the cluster equals this (> 0).
    oversize
        ``"cap"`` (default), ``"drop"`` or ``"refuse"`` jobs larger than the cluster.
    """

    start: float | None = None
    end: float | None = None
    window_jobs: int | None = None
    sample: int | float | None = None
    target_load: float | None = None
    oversize: Oversize = "cap"

    def __post_init__(self) -> None:
        for name in ("start", "end", "target_load"):
            value = getattr(self, name)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError(f"need start < end, got [{self.start}, {self.end})")
        if self.target_load is not None and self.target_load == 0:
            raise ValueError("target_load must be > 0")
        if self.window_jobs is not None and (
            isinstance(self.window_jobs, bool) or self.window_jobs < 1
        ):
            raise ValueError(f"window_jobs must be an integer ≥ 1, got {self.window_jobs!r}")
        sample = self.sample
        if sample is not None and (
            isinstance(sample, bool)
            or (isinstance(sample, int) and sample < 1)
            or (isinstance(sample, float) and not 0 < sample <= 1)
        ):
            raise ValueError(
                f"sample must be a number of jobs ≥ 1 or a fraction in (0, 1], got {sample!r}"
            )
        if self.oversize not in ("cap", "drop", "refuse"):
            raise ValueError(f"oversize must be 'cap', 'drop' or 'refuse', got {self.oversize!r}")

    @property
    def random(self) -> bool:
        """Whether the options draw random numbers (a window of jobs or a sample)."""
        return self.window_jobs is not None or self.sample is not None


@dataclass(frozen=True, slots=True)
class TraceReport:
    """What loading a trace did, job ids being the loader's (its record index in the file).

    Attributes
    ----------
    source
        The file (``archive:member`` for a file read inside an archive).
    records
        Job records in the file.
    skipped
        Reason -> ids of the records the loader could not use (docs/model.md §8 lists the rules).
    usable
        Records turned into trace jobs.
    outside_window, not_sampled
        Usable jobs left out by the time window / random window and by the sample.
    capped, dropped
        Ids of the jobs larger than the cluster, capped or dropped.
    jobs
        Jobs in the instance.
    time_scale
        Factor the rebased arrivals were multiplied by (1 without ``target_load``).
    offered_load
        Offered load of the instance on its cluster (``inf`` if every job arrives at once).
    """

    source: str
    records: int
    skipped: Mapping[str, tuple[int, ...]]
    usable: int
    outside_window: int
    not_sampled: int
    capped: tuple[int, ...]
    dropped: tuple[int, ...]
    jobs: int
    time_scale: float = 1.0
    offered_load: float = field(default=math.inf)

    @property
    def skipped_count(self) -> int:
        """Records skipped by the loader, all reasons together."""
        return sum(len(ids) for ids in self.skipped.values())


def build_instance(
    trace: Sequence[TraceJob],
    cluster: Cluster,
    *,
    source: str,
    name: str,
    records: int,
    skipped: Mapping[str, Sequence[int]],
    options: TraceOptions | None = None,
    rng: np.random.Generator | None = None,
    catalog: str = "default",
    row_of: Callable[[int], int | str] | None = None,
    gpus_field: str = "gpus",
) -> tuple[Instance, TraceReport]:
    """Apply ``options`` to the parsed jobs of a trace and build the instance (module docstring).

    Parameters
    ----------
    trace
        The usable jobs, in any order (sorted here by submission, then id).
    cluster
        The cluster to schedule on.
    source, name
        The file (for messages and the report) and the instance's name.
    records, skipped
        Records in the file and, per reason, the ids the loader skipped (for the report).
    options
        What to keep (default: everything, oversize jobs capped).
    rng
        The generator of every random choice; required if ``options.random``.
    catalog
        The instance's model catalog (for catalog jobs).
    row_of, gpus_field
        How messages name a job's record (default: ``job ID``) and its GPU field.

    Raises
    ------
    InstanceError
        One line naming ``source``: no job left, a job larger than the cluster with
        ``oversize="refuse"``, or a target load that cannot be reached (every job at once).
    ValueError
        If the options draw random numbers and ``rng`` is ``None``.
    """
    options = options or TraceOptions()
    if options.random and rng is None:
        raise ValueError("window_jobs and sample draw random jobs: pass rng (a numpy Generator)")
    jobs = sorted(trace, key=lambda j: (j.submit, j.id))
    usable = len(jobs)
    if jobs and (options.start is not None or options.end is not None):
        origin = jobs[0].submit
        low = -math.inf if options.start is None else options.start
        high = math.inf if options.end is None else options.end
        jobs = [j for j in jobs if low <= j.submit - origin < high]
    if options.window_jobs is not None and options.window_jobs < len(jobs):
        assert rng is not None
        first = int(rng.integers(0, len(jobs) - options.window_jobs + 1))
        jobs = jobs[first : first + options.window_jobs]
    outside = usable - len(jobs)
    windowed = len(jobs)
    if options.sample is not None:
        assert rng is not None
        count = options.sample
        if isinstance(count, float):
            count = max(1, round(count * len(jobs)))
        if count < len(jobs):
            keep = np.sort(rng.choice(len(jobs), size=count, replace=False))
            jobs = [jobs[int(i)] for i in keep]
    capped: list[int] = []
    dropped: list[int] = []
    fitting: list[TraceJob] = []
    for job in jobs:
        if job.gpus > cluster.num_gpus:
            if options.oversize == "refuse":
                raise InstanceError(
                    f"{job.gpus} GPUs, more than the cluster's {cluster.num_gpus} (load with "
                    "oversize='cap' or 'drop')",
                    source=source,
                    row=job.id if row_of is None else row_of(job.id),
                    field=gpus_field,
                )
            if options.oversize == "drop":
                dropped.append(job.id)
                continue
            capped.append(job.id)
            job = replace(job, gpus=cluster.num_gpus)
        fitting.append(job)
    if not fitting:
        raise InstanceError(
            "no job left (every record skipped, outside the window, or dropped)", source=source
        )
    origin = fitting[0].submit
    built = []
    for j in fitting:
        try:
            built.append(
                Job(
                    j.id,
                    float(j.submit - origin),
                    j.gpus,
                    j.model,
                    j.batch,
                    j.iterations,
                    None if j.duration is None else float(j.duration),
                    None if j.estimate is None else float(j.estimate),
                    j.vc,
                    j.user,
                )
            )
        except InstanceError as exc:  # e.g. an arrival over 10 years after the first job's
            where = j.id if row_of is None else row_of(j.id)
            message = exc.message
            if exc.field == "arrival":
                message += " (its submit time less the first kept job's)"
            raise InstanceError(message, source=source, row=where, field=exc.field) from None
    try:
        instance = Instance(cluster, tuple(built), catalog=catalog, name=name)
    except InstanceError as exc:
        raise exc.with_source(source) from None
    scale = 1.0
    if options.target_load is not None:
        instance, scale = _rescale(instance, options.target_load, source)
    report = TraceReport(
        source=source,
        records=records,
        skipped={reason: tuple(ids) for reason, ids in skipped.items() if ids},
        usable=usable,
        outside_window=outside,
        not_sampled=windowed - len(jobs),
        capped=tuple(capped),
        dropped=tuple(dropped),
        jobs=len(fitting),
        time_scale=scale,
        offered_load=offered_load(instance),
    )
    return instance, report


def _rescale(instance: Instance, target: float, source: str) -> tuple[Instance, float]:
    """Multiply arrivals by the factor that makes the offered load ``target``."""
    load = offered_load(instance)
    if not math.isfinite(load):
        raise InstanceError(
            "cannot rescale to a target load: every kept job arrives at the same time",
            source=source,
        )
    scale = load / target
    try:
        jobs = tuple(replace(j, arrival=j.arrival * scale) for j in instance.jobs)
        return replace(instance, jobs=jobs), scale
    except InstanceError as exc:
        raise exc.with_source(source) from None
