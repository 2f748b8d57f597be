"""Gavel's measured throughputs and its Philly-derived job traces (I/O only, docs/model.md §8).

Data (public, MIT): Gavel's ``scheduler/simulation_throughputs.json`` and
``scheduler/traces/msr/seed=0/*.trace``, registered as the datasets ``gavel-throughputs`` and
``gavel-traces`` (:mod:`sjfbsbf.workloads.datasets`; ``sjfbsbf data fetch NAME``).

* :func:`load_throughputs` reads the throughput table into an immutable
  :class:`~sjfbsbf.core.interference_table.GavelThroughputs` (which flags the 80 suspicious V100
  entries; see :mod:`sjfbsbf.core.interference_table`).
* :func:`load_gavel_trace` turns a trace into an :class:`~sjfbsbf.core.model.Instance`;
  :func:`load_gavel_trace_report` also returns a :class:`LoadReport` (capped jobs, GPU counts
  whose throughput was extrapolated, offered load).
* :func:`slice_trace` keeps the first N jobs and/or a window of arrivals, re-based to 0.

**Trace format.** Tab-separated, no header, 7 fields per line: ``job_type, command,
num_steps_arg, needs_data_dir, total_steps, arrival_time_s, num_gpus``. Job ``i`` (0-based, in
file order) is the ``i``-th non-blank line.

**Durations.** The exclusive duration of a job is ``total_steps / solo throughput of (job_type,
num_gpus)`` on ``gpu_type`` (V100 by default, as in Gavel). The table has 1, 2, 4 and 8 GPUs
(A3C, CycleGAN and Recommendation only 1); the traces also ask for 7, 12, 16, 20, 24, 32 and 64.
For a count G that was not measured, the throughput of the largest measured count <= G is used
(weak scaling: the per-GPU batch is fixed, so the time of a step stays roughly constant; see
:meth:`GavelThroughputs.throughput_for`). The duration is computed from the GPU count the trace
asks for; a count above ``max_gpus`` (default: the cluster's size) is then capped to
``max_gpus`` without changing the duration (the job keeps its length, only its width shrinks),
and counted in the report.

**Modes.** ``mode="duration"`` gives duration-only jobs (``Job(id, arrival, gpus,
duration=...)``). ``mode="catalog"`` maps each Gavel family to a model of the default catalog
(:data:`MODEL_MAP`), at the catalog's per-GPU batch (``catalog.DEFAULT_BATCH``), with
``iterations = round(duration / exclusive step time)`` of that model on the job's (capped) GPU
count on the fewest nodes, so its exclusive duration matches the trace's (to one step).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.gavel_table import (
    CATALOG_ALIASES,
    MODEL_MAP,
    MODEL_MAP_REASONS,
    load_throughputs,
    throughputs_from_dict,
)
from sjfbsbf.core.interference_table import GavelThroughputs, split_job_type
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.workloads.gavel_trace import TRACE_FIELDS, GavelTraceRow, read_gavel_trace
from sjfbsbf.workloads.transform import slice_trace

Mode = Literal["duration", "catalog"]

__all__ = [
    "CATALOG_ALIASES",
    "MODEL_MAP",
    "MODEL_MAP_REASONS",
    "TRACE_FIELDS",
    "GavelThroughputs",
    "GavelTraceRow",
    "LoadReport",
    "load_gavel_trace",
    "load_gavel_trace_report",
    "load_throughputs",
    "read_gavel_trace",
    "slice_trace",
    "throughputs_from_dict",
]


@dataclass(frozen=True)
class LoadReport:
    """What :func:`load_gavel_trace_report` did to a trace.

    Parameters
    ----------
    source
        The trace file.
    gpu_type
        GPU type whose solo throughputs set the durations.
    mode
        ``"duration"`` or ``"catalog"``.
    num_jobs
        Number of jobs.
    max_gpus
        GPU cap applied.
    capped_jobs
        Ids of the jobs whose GPU count was above ``max_gpus`` and was capped to it.
    gpu_counts
        GPU count asked for by the trace -> number of jobs (before capping).
    extrapolated
        GPU count asked for -> number of jobs whose (job type, count) was not measured and took
        the throughput of the largest measured count below it.
    job_types
        Gavel job type -> number of jobs.
    models
        Catalog model -> number of jobs (``mode="catalog"`` only, else empty).
    offered_gpu_s
        Sum over jobs of (capped) GPUs × exclusive duration.
    span_s
        Last arrival − first arrival (after ``arrival_scale``).
    """

    source: str
    gpu_type: str
    mode: str
    num_jobs: int
    max_gpus: int
    capped_jobs: tuple[int, ...]
    gpu_counts: Mapping[int, int]
    extrapolated: Mapping[int, int]
    job_types: Mapping[str, int]
    models: Mapping[str, int]
    offered_gpu_s: float
    span_s: float

    @property
    def capped(self) -> int:
        """Number of jobs whose GPU count was capped."""
        return len(self.capped_jobs)

    def load(self, num_gpus: int) -> float:
        """Offered GPU-time ÷ (``num_gpus`` × arrival span); ``inf`` if all arrive at once."""
        return self.offered_gpu_s / (num_gpus * self.span_s) if self.span_s > 0 else math.inf


def load_gavel_trace_report(
    path: str | os.PathLike[str],
    throughputs: GavelThroughputs,
    *,
    cluster: Cluster,
    gpu_type: str = "v100",
    max_gpus: int | None = None,
    arrival_scale: float = 1.0,
    mode: Mode = "duration",
) -> tuple[Instance, LoadReport]:
    """Like :func:`load_gavel_trace`, also returning a :class:`LoadReport`."""
    source = str(path)
    if gpu_type not in throughputs.solo:
        raise ValueError(
            f"unknown GPU type {gpu_type!r}; known: {', '.join(throughputs.gpu_types)}"
        )
    if mode not in ("duration", "catalog"):
        raise ValueError(f"mode must be 'duration' or 'catalog', got {mode!r}")
    cap = cluster.num_gpus if max_gpus is None else max_gpus
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
        raise ValueError(f"max_gpus must be a positive integer, got {max_gpus!r}")
    if not (isinstance(arrival_scale, int | float) and math.isfinite(arrival_scale)) or (
        arrival_scale <= 0
    ):
        raise ValueError(f"arrival_scale must be a positive number, got {arrival_scale!r}")

    rows = read_gavel_trace(path)
    catalog = get_catalog("default")
    known = set(throughputs.job_types(gpu_type))
    line_of: dict[int, int] = {}
    jobs: list[Job] = []
    capped: list[int] = []
    extrapolated: Counter[int] = Counter()
    models: Counter[str] = Counter()
    step_cache: dict[tuple[str, int], float] = {}
    offered = 0.0
    for job_id, row in enumerate(rows):
        line_of[job_id] = row.line
        if row.job_type not in known:
            raise InstanceError(
                f"unknown job type {row.job_type!r} (not measured on {gpu_type})",
                source=source,
                row=f"line {row.line}",
                field="job_type",
            )
        rate, used = throughputs.throughput_for(row.job_type, row.num_gpus, gpu_type)
        if used != row.num_gpus:
            extrapolated[row.num_gpus] += 1
        duration = row.total_steps / rate
        gpus = row.num_gpus
        if gpus > cap:
            capped.append(job_id)
            gpus = cap
        arrival = row.arrival_s * arrival_scale
        offered += gpus * duration
        if mode == "duration":
            jobs.append(_job(source, row, job_id, arrival, gpus, duration=duration))
            continue
        family = split_job_type(row.job_type)[0]
        model = MODEL_MAP.get(family)
        if model is None:
            raise InstanceError(
                f"no catalog model for job family {family!r} (MODEL_MAP has "
                f"{', '.join(sorted(MODEL_MAP))})",
                source=source,
                row=f"line {row.line}",
                field="job_type",
            )
        batch = DEFAULT_BATCH[model]
        if (model, gpus) not in step_cache:
            probe = Job(0, 0.0, gpus, model, batch, 1)
            step_cache[(model, gpus)] = exclusive_duration(probe, catalog[model], cluster)
        iterations = max(1, round(duration / step_cache[(model, gpus)]))
        models[model] += 1
        jobs.append(_job(source, row, job_id, arrival, gpus, model, batch, iterations))

    try:
        instance = Instance(
            cluster, tuple(jobs), catalog="default", name=f"gavel-{Path(path).stem}"
        )
    except InstanceError as exc:
        row_ref: int | str | None = exc.row
        if isinstance(row_ref, int) and row_ref in line_of:
            row_ref = f"line {line_of[row_ref]}"
        raise InstanceError(exc.message, source=source, row=row_ref, field=exc.field) from None
    arrivals = [j.arrival for j in jobs]
    report = LoadReport(
        source=source,
        gpu_type=gpu_type,
        mode=mode,
        num_jobs=len(jobs),
        max_gpus=cap,
        capped_jobs=tuple(capped),
        gpu_counts=MappingProxyType(dict(sorted(Counter(r.num_gpus for r in rows).items()))),
        extrapolated=MappingProxyType(dict(sorted(extrapolated.items()))),
        job_types=MappingProxyType(dict(sorted(Counter(r.job_type for r in rows).items()))),
        models=MappingProxyType(dict(sorted(models.items()))),
        offered_gpu_s=offered,
        span_s=max(arrivals) - min(arrivals),
    )
    return instance, report


#: Job field -> the trace column it comes from (for errors raised by :class:`Job`).
_COLUMN_OF = {
    "arrival": "arrival_time_s",
    "gpus": "num_gpus",
    "duration": "total_steps",
    "iterations": "total_steps",
}


def _job(source: str, row: GavelTraceRow, *args: Any, **kwargs: Any) -> Job:
    """A :class:`Job`; its errors (e.g. a limit of :mod:`sjfbsbf.core.model`) name file, line,
    column."""
    try:
        return Job(*args, **kwargs)
    except InstanceError as exc:
        column = _COLUMN_OF.get(exc.field or "", exc.field)
        derived = exc.field in ("duration", "iterations")
        message = f"gives a job {exc.field} that {exc.message}" if derived else exc.message
        raise InstanceError(message, source=source, row=f"line {row.line}", field=column) from None


def load_gavel_trace(
    path: str | os.PathLike[str],
    throughputs: GavelThroughputs,
    *,
    cluster: Cluster,
    gpu_type: str = "v100",
    max_gpus: int | None = None,
    arrival_scale: float = 1.0,
    mode: Mode = "duration",
) -> Instance:
    """Read a Gavel/Philly trace as an :class:`~sjfbsbf.core.model.Instance`.

    See the module docstring for durations, the GPU-count rule and the two modes; use
    :func:`load_gavel_trace_report` to see how many jobs were capped or extrapolated.

    Parameters
    ----------
    path
        Trace file (tab-separated, 7 fields, no header).
    throughputs
        Gavel's throughput table (:func:`load_throughputs`).
    cluster
        The cluster the instance runs on.
    gpu_type
        GPU type whose solo throughputs give the durations (Gavel's reference: ``"v100"``).
    max_gpus
        Cap on a job's GPU count (default: the cluster's GPU count). A cap above the cluster's
        size makes larger jobs an error.
    arrival_scale
        Arrival times are multiplied by this (< 1 compresses the trace: higher load).
    mode
        ``"duration"`` (duration-only jobs) or ``"catalog"`` (default-catalog models, see
        :data:`MODEL_MAP`).

    Returns
    -------
    Instance
        Jobs with ids 0, 1, ... in file order; name ``gavel-<file stem>``; catalog ``default``.

    Raises
    ------
    InstanceError
        Naming the file, the line (``row="line <n>"``) and the field, for a malformed line, an
        unknown job type, or a job the cluster cannot hold (memory, or more GPUs than the
        cluster has when ``max_gpus`` exceeds it).
    ValueError
        For a bad argument (GPU type, mode, ``max_gpus``, ``arrival_scale``).
    """
    instance, _ = load_gavel_trace_report(
        path,
        throughputs,
        cluster=cluster,
        gpu_type=gpu_type,
        max_gpus=max_gpus,
        arrival_scale=arrival_scale,
        mode=mode,
    )
    return instance
