"""Gavel/Philly traces with the options every trace loader shares (docs/model.md §8).

:func:`load_gavel_trace_with` reads a trace as :func:`~sjfbsbf.workloads.gavel.load_gavel_trace`
does (durations from the throughput table, ``duration`` or ``catalog`` mode), then applies a
:class:`~sjfbsbf.workloads.trace_window.TraceOptions`: a time window, a random window of jobs or
a sample drawn from an explicit :class:`numpy.random.Generator`, jobs larger than the cluster
capped (the Gavel loader's own rule, so a catalog job's iterations are computed at the capped
GPU count), dropped or refused, and arrivals rescaled to an exact target offered load.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from sjfbsbf.core.model import MAX_GPUS, MAX_NODES, Cluster, Instance
from sjfbsbf.workloads.gavel import GavelThroughputs, Mode, load_gavel_trace_report
from sjfbsbf.workloads.gavel_trace import read_gavel_trace
from sjfbsbf.workloads.trace_window import TraceJob, TraceOptions, TraceReport, build_instance


def load_gavel_trace_with(
    path: str | os.PathLike[str],
    throughputs: GavelThroughputs,
    *,
    cluster: Cluster,
    options: TraceOptions,
    rng: np.random.Generator | None = None,
    gpu_type: str = "v100",
    mode: Mode = "duration",
) -> tuple[Instance, TraceReport]:
    """A Gavel/Philly trace with :class:`TraceOptions` applied.

    Jobs keep their ids (0-based index of the trace's non-blank lines), so they can be traced
    back; messages name the file's line.

    Parameters
    ----------
    path, throughputs, gpu_type, mode
        As for :func:`~sjfbsbf.workloads.gavel.load_gavel_trace`.
    cluster
        The cluster the instance runs on.
    options
        What to keep (``options.oversize``: ``"cap"`` caps as the Gavel loader does, to the
        cluster's size; ``"drop"`` and ``"refuse"`` see the trace's own GPU counts).
    rng
        The generator of every random choice; required if ``options`` draws a window or a
        sample.

    Raises
    ------
    InstanceError
        One line naming the file (and line and field where there is one): a malformed trace,
        no job left, a job larger than the cluster with ``oversize="refuse"``, a target load
        that cannot be reached.
    ValueError
        A bad argument, or random options without ``rng``.
    """
    if options.random and rng is None:  # before reading anything
        raise ValueError("window_jobs and sample draw random jobs: pass rng (a numpy Generator)")
    # "cap": the Gavel loader caps; else room for every job at its trace GPU count, which the
    # options then drop or refuse.
    widest = min(MAX_NODES, MAX_GPUS // cluster.gpus_per_node)
    read_on = cluster if options.oversize == "cap" else replace(cluster, nodes=widest)
    full, loaded = load_gavel_trace_report(
        path, throughputs, cluster=read_on, gpu_type=gpu_type, mode=mode
    )
    trace = [
        TraceJob(
            j.id,
            j.arrival,
            j.gpus,
            j.duration,
            j.model,
            j.batch,
            j.iterations,
            j.estimate,
            j.vc,
            j.user,
        )
        for j in full.jobs
    ]
    instance, report = build_instance(
        trace,
        cluster,
        source=str(path),
        name=full.name or "gavel",
        records=len(full.jobs),
        skipped={},
        options=options,
        rng=rng,
        catalog=full.catalog,
        # Only a refusal names a line: the trace is parsed again then, not on every load.
        row_of=lambda job_id: f"line {read_gavel_trace(path)[job_id].line}",
        gpus_field="num_gpus",
    )
    kept = {j.id for j in instance.jobs}  # capped by the Gavel loader (oversize "cap")
    capped = sorted(set(report.capped) | {i for i in loaded.capped_jobs if i in kept})
    return instance, replace(report, capped=tuple(capped))
