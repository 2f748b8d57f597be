"""Metrics computed by hand on a coarse tick."""

from __future__ import annotations

import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
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
