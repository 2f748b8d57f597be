"""Metrics computed by hand on a coarse tick."""

from __future__ import annotations

import pandas as pd
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.metrics import METRIC_LABELS, compute_metrics
from sjfbsbf.sim.simulator import simulate


def test_utilization_counts_release_ticks_and_stays_at_most_one() -> None:
    """One GPU, dt = 4, fifo: job 0 (0.5 s) runs 0–0.5 and holds the GPU until tick 4; job 1
    (5 s) runs 4–9 and holds it until tick 12. Busy GPU-time = 4 + 8 = 12 over a span of 12:
    utilisation 1 (a denominator of the makespan, 9 s, would give 1.33). JCTs 0.5 and 9."""
    instance = Instance(
        Cluster(nodes=1, gpus_per_node=1),
        (Job(0, 0.0, 1, duration=0.5), Job(1, 0.0, 1, duration=5.0)),
    )
    result = simulate(instance, make_policy("fifo"), dt=4.0)
    assert result.metrics["gpu_utilization"] == pytest.approx(1.0)
    assert result.metrics["makespan"] == pytest.approx(9.0)
    assert result.metrics["avg_jct"] == pytest.approx((0.5 + 9.0) / 2)
    assert result.metrics["avg_queueing_delay"] == pytest.approx(2.0)
    assert result.metrics["shared_gpu_time_share"] == 0.0


def test_utilization_of_a_half_idle_cluster() -> None:
    """Two GPUs, one 100 s job, dt = 1: busy 100 GPU-s over 2 × 100: utilisation 0.5."""
    instance = Instance(Cluster(nodes=1, gpus_per_node=2), (Job(0, 0.0, 1, duration=100.0),))
    result = simulate(instance, make_policy("sjf"))
    assert result.metrics["gpu_utilization"] == pytest.approx(0.5)


def _jobs(
    jcts: list[float],
    arrivals: list[float],
    stretch: list[float] | None = None,
    ftf: list[float] | None = None,
) -> pd.DataFrame:
    finish = [a + j for a, j in zip(arrivals, jcts, strict=True)]
    queue = [j / 10 for j in jcts]
    ones = [1.0] * len(jcts)
    return pd.DataFrame(
        {
            "arrival": arrivals,
            "finish": finish,
            "jct": jcts,
            "queueing_delay": queue,
            "stretch": ones if stretch is None else stretch,
            "ftf": ones if ftf is None else ftf,
        }
    )


def _ticks(durations: list[float], busy: list[int], shared: list[int]) -> pd.DataFrame:
    times = [sum(durations[:i]) for i in range(len(durations))]
    return pd.DataFrame(
        {"time": times, "duration": durations, "busy_gpus": busy, "shared_gpus": shared}
    )


def test_every_metric_of_a_table_by_hand() -> None:
    """JCTs 0, 1, …, 100 (percentiles land on values: p50 = 50, p95 = 95, p99 = 99) arriving
    from 5 s on; ticks of 2 s and 3 s with 4 and 2 busy GPUs of 8, 3 and 1 of them shared:
    busy 4·2 + 2·3 = 14 GPU-s over 8 × 5; shared 3·2 + 1·3 = 9 of the 14."""
    jcts = [float(j) for j in range(101)]
    arrivals = [5.0 + 0.5 * i for i in range(101)]
    metrics = compute_metrics(_jobs(jcts, arrivals), _ticks([2.0, 3.0], [4, 2], [3, 1]), 8)
    assert list(metrics) == list(METRIC_LABELS)
    assert metrics["avg_jct"] == pytest.approx(50.0)
    assert (metrics["p50_jct"], metrics["p95_jct"], metrics["p99_jct"]) == (50.0, 95.0, 99.0)
    assert metrics["makespan"] == pytest.approx(5.0 + 50.0 + 100.0 - 5.0)
    assert metrics["avg_queueing_delay"] == pytest.approx(5.0)
    assert metrics["gpu_utilization"] == pytest.approx(14 / 40)
    assert metrics["shared_gpu_time_share"] == pytest.approx(9 / 14)


def test_a_table_with_no_busy_time_has_zero_utilization_and_sharing() -> None:
    metrics = compute_metrics(_jobs([0.0], [3.0]), _ticks([], [], []), 4)
    assert metrics["gpu_utilization"] == 0.0
    assert metrics["shared_gpu_time_share"] == 0.0
    assert metrics["makespan"] == 0.0


def test_a_run_shorter_than_a_second_is_still_measured() -> None:
    """One tick of 0.5 s on one GPU, busy and shared: utilisation 1, all of it shared (busy
    GPU-time and span below 1 are not zero)."""
    metrics = compute_metrics(_jobs([0.5], [0.0]), _ticks([0.5], [1], [1]), 1)
    assert metrics["gpu_utilization"] == 1.0
    assert metrics["shared_gpu_time_share"] == 1.0


def test_the_fairness_metrics_of_a_table_by_hand() -> None:
    """Stretches 1, 1, 2, 4 (mean 2; Jain = 8² ÷ (4 · 22) = 64/88; numpy's p99 interpolates
    between 2 and 4 at 0.97: 3.94) and ρ 0.5, 1, 1.0000001, 3: the largest is 3 and two of four
    exceed 1 (exactly 1 does not)."""
    jobs = _jobs([1.0] * 4, [0.0] * 4, [1.0, 1.0, 2.0, 4.0], [0.5, 1.0, 1.0000001, 3.0])
    metrics = compute_metrics(jobs, _ticks([1.0], [1], [0]), 1)
    assert metrics["avg_stretch"] == pytest.approx(2.0)
    assert metrics["p99_stretch"] == pytest.approx(2.0 + 0.97 * 2.0)
    assert metrics["jain_stretch"] == pytest.approx(64 / 88)
    assert metrics["max_ftf"] == 3.0
    assert metrics["ftf_above_1"] == 0.5
