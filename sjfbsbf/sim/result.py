"""The result of one simulation: per-job, per-tick and per-segment tables plus metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sjfbsbf.sim.fairness import contention, finish_time_fairness, stretch
from sjfbsbf.sim.metrics import compute_metrics
from sjfbsbf.sim.state import SimState

#: Columns of :attr:`SimResult.placements`.
PLACEMENT_COLUMNS = ("job_id", "start", "end", "gpus", "accumulation", "sub_batch")

#: Columns of the per-job table, in order (columns are added at the end, never renamed).

JOB_COLUMNS = (
    "job_id",
    "arrival",
    "start",
    "finish",
    "jct",
    "queueing_delay",
    "gpus",
    "model",
    "exclusive_s",
    "shared_s",
    "partners",
    "sub_batch",
    "accumulation",
    "preemptions",
    "vc",
    "user",
    "stretch",
    "contention",
    "ftf",
)


@dataclass(frozen=True)
class SimResult:
    """Everything one simulation produced.

    Attributes
    ----------
    policy
        Name of the policy simulated.
    jobs
        One row per job (columns :data:`JOB_COLUMNS`), ordered by job id.
    ticks
        One row per processed tick: ``time, duration`` (until the next processed tick),
        ``busy_gpus, shared_gpus, mem_used_gb, running, pending``. State is constant over
        ``duration``, so skipped ticks are represented exactly.
    segments
        Constant-rate progress segments: ``job_id, start, end, s_per_step`` (``None`` if not kept).
    placements
        Holdings of GPUs (columns :data:`PLACEMENT_COLUMNS`), one row per job and stretch of time
        it held the same GPUs at the same accumulation, by start then job id: ``gpus`` the GPU
        ids joined by ";", ``end`` the tick the job left them (a job that finishes inside a tick
        holds its GPUs to the tick's end), ``sub_batch`` empty for duration-only jobs (``None``
        if not kept).
    metrics
        See :func:`sjfbsbf.sim.metrics.compute_metrics`.
    stats
        The policy's own decision statistics.
    params
        Simulation parameters and counters.
    """

    policy: str
    jobs: pd.DataFrame
    ticks: pd.DataFrame
    segments: pd.DataFrame | None
    metrics: dict[str, float]
    stats: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    placements: pd.DataFrame | None = None

    @property
    def avg_jct(self) -> float:
        """Average job completion time (s)."""
        return self.metrics["avg_jct"]


def build_result(
    state: SimState,
    *,
    policy_name: str,
    ticks: list[tuple[float, int, int, float, int, int]],
    segments: list[tuple[int, float, float, float]] | None,
    stats: dict[str, Any],
    holdings: list[tuple[int, tuple[int, ...], float, float, int]] | None = None,
    params: dict[str, Any],
) -> SimResult:
    """Assemble a :class:`SimResult` from a finished simulation state."""
    instance = state.instance
    sub_batch: list[int | None] = []
    for i, job in enumerate(instance.jobs):
        if job.batch is None or state.profiles[i].generic:
            sub_batch.append(None)
        else:
            sub_batch.append(job.batch // int(state.accumulation[i]))
    jct = state.finish - state.arrival
    present = contention(state.arrival, state.finish)
    jobs = pd.DataFrame(
        {
            "job_id": state.ids,
            "arrival": state.arrival,
            "start": state.first_start,
            "finish": state.finish,
            "jct": jct,
            "queueing_delay": state.first_start - state.arrival,
            "gpus": state.gpus,
            "model": [j.model if j.model is not None else "" for j in instance.jobs],
            "exclusive_s": state.exclusive,
            "shared_s": state.shared_s,
            "partners": [
                ";".join(str(int(state.ids[k])) for k in sorted(p, key=lambda k: state.ids[k]))
                for p in state.partners
            ],
            "sub_batch": pd.array(sub_batch, dtype="Int64"),
            "accumulation": state.accumulation,
            "preemptions": state.preemptions,
            "vc": [j.vc if j.vc is not None else "" for j in instance.jobs],
            "user": [j.user if j.user is not None else "" for j in instance.jobs],
            "stretch": stretch(jct, state.exclusive),
            "contention": present,
            "ftf": finish_time_fairness(jct, state.exclusive, present),
        },
        columns=list(JOB_COLUMNS),
    )
    jobs = jobs.sort_values("job_id", kind="stable").reset_index(drop=True)
    tick_frame = pd.DataFrame(
        ticks, columns=["time", "busy_gpus", "shared_gpus", "mem_used_gb", "running", "pending"]
    )
    times = tick_frame["time"].to_numpy()
    durations = np.diff(times, append=times[-1])  # the last row is the final release tick
    tick_frame.insert(1, "duration", durations)
    segment_frame = None
    if segments is not None:
        segment_frame = pd.DataFrame(segments, columns=["job", "start", "end", "s_per_step"])
        segment_frame.insert(0, "job_id", state.ids[segment_frame.pop("job").to_numpy(int)])
    metrics = compute_metrics(jobs, tick_frame, state.cluster.num_gpus)
    placements = None if holdings is None else _placements(state, holdings)
    return SimResult(
        policy=policy_name,
        jobs=jobs,
        ticks=tick_frame,
        segments=segment_frame,
        metrics=metrics,
        stats=stats,
        params=params,
        placements=placements,
    )


def _placements(
    state: SimState, holdings: list[tuple[int, tuple[int, ...], float, float, int]]
) -> pd.DataFrame:
    """The placements table of closed holdings (every job has left its GPUs at the end)."""
    ids, starts, ends, gpu_texts, factors = [], [], [], [], []
    sub_batch: list[int | None] = []
    for i, gpus, start, end, accumulation in holdings:
        job = state.instance.jobs[i]
        generic = job.batch is None or state.profiles[i].generic
        ids.append(int(state.ids[i]))
        starts.append(start)
        ends.append(end)
        gpu_texts.append(";".join(str(g) for g in gpus))
        factors.append(accumulation)
        sub_batch.append(None if generic or job.batch is None else job.batch // accumulation)
    frame = pd.DataFrame(
        {
            "job_id": ids,
            "start": starts,
            "end": ends,
            "gpus": gpu_texts,
            "accumulation": factors,
            "sub_batch": pd.array(sub_batch, dtype="Int64"),
        },
        columns=list(PLACEMENT_COLUMNS),
    )
    return frame.sort_values(["start", "job_id"], kind="stable").reset_index(drop=True)
