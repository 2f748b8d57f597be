"""The tables of a simulation result (sjfbsbf/sim/result.py): their columns, in order, and the
values a small run puts in them by hand."""

from __future__ import annotations

import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.result import JOB_COLUMNS, SimResult
from sjfbsbf.sim.simulator import simulate

TICK_COLUMNS = ["time", "duration", "busy_gpus", "shared_gpus", "mem_used_gb", "running", "pending"]


def _run(record_segments: bool = True) -> SimResult:
    """One GPU, fifo, dt = 10: a duration-only job of 30 s (id 7) at 0, then a vgg16 job (id 3)
    arriving at 5, which waits for the GPU until 30."""
    instance = Instance(
        Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0),
        (Job(7, 0.0, 1, duration=30.0), Job(3, 5.0, 1, "vgg16", 16, 10)),
    )
    return simulate(instance, make_policy("fifo"), dt=10.0, record_segments=record_segments)


def test_the_result_names_its_policy() -> None:
    assert _run().policy == "fifo"


def test_the_per_job_table_is_in_job_id_order_with_its_documented_columns() -> None:
    jobs = _run().jobs
    assert list(jobs.columns) == list(JOB_COLUMNS)
    assert list(jobs.job_id) == [3, 7]
    assert list(jobs.model) == ["vgg16", ""]  # a duration-only job has no model name
    assert jobs.sub_batch.iloc[0] == 16 and jobs.sub_batch.isna().iloc[1]


def test_the_per_tick_table_has_its_documented_columns_and_counts() -> None:
    """Ticks 0 (job 7 runs), 10 (job 3 waits since 5), 30 (job 7 released, job 3 starts) …"""
    ticks = _run().ticks
    assert list(ticks.columns) == TICK_COLUMNS
    first = ticks.iloc[0]
    assert (first.time, first.busy_gpus, first.running, first.pending) == (0.0, 1, 1, 0)
    at_10 = ticks[ticks.time == 10.0].iloc[0]
    assert (at_10.running, at_10.pending) == (1, 1)
    assert at_10.duration == pytest.approx(20.0)  # nothing changes until 30
    assert ticks.duration.iloc[-1] == 0.0  # the final release tick


def test_the_segment_table_names_jobs_by_id_first() -> None:
    result = _run()
    assert result.segments is not None
    assert list(result.segments.columns) == ["job_id", "start", "end", "s_per_step"]
    assert sorted(set(result.segments.job_id)) == [3, 7]
    assert _run(record_segments=False).segments is None
