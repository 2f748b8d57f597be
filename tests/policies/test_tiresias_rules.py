"""Tiresias' rules one at a time (docs/model.md §5): thresholds, starvation promotion, wake-ups.

A stub view gives exactly the facts the rules read (time, pending and running jobs, GPU counts,
attained service), so each rule is checked at and next to its boundary without a simulation.
The wake-up of a whole decision is read on a real view set up by ``probe.look_at``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from probe import TWO_GPUS, look_at

from sjfbsbf.core.model import Instance, Job
from sjfbsbf.policies import Tiresias
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.view import ClusterView


@dataclass
class StubView:
    """The part of ``ClusterView`` that Tiresias' promotion and wake-up rules read."""

    time: float
    gpus: dict[int, int]
    service: dict[int, float]
    pending_ids: list[int] = field(default_factory=list)
    running_ids: list[int] = field(default_factory=list)

    def pending(self) -> list[int]:
        return list(self.pending_ids)

    def running(self) -> list[int]:
        return list(self.running_ids)

    def attained_service(self, job_id: int) -> float:
        return self.service[job_id]

    def job(self, job_id: int) -> Job:
        return Job(job_id, 0.0, self.gpus[job_id], duration=1000.0)

    def attained_services(self, job_ids: list[int]) -> np.ndarray:
        return np.array([self.service[j] for j in job_ids], dtype=float)

    def gpu_counts(self, job_ids: list[int]) -> np.ndarray:
        return np.array([self.gpus[j] for j in job_ids], dtype=np.int64)


@pytest.mark.parametrize("thresholds", [(-1.0, 5.0), (0.0,), (2.0, 1.0), (3.0, 3.0, 2.0)])
def test_thresholds_must_be_positive_and_increasing(thresholds: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match=r"^thresholds must be positive and increasing$"):
        Tiresias(thresholds=thresholds)


def test_small_positive_thresholds_are_accepted() -> None:
    assert Tiresias(thresholds=(0.5, 0.7)).thresholds == (0.5, 0.7)


def promotion_case(time: float) -> tuple[Tiresias, StubView]:
    """Job 0 never ran (no stop time); job 1, on 2 GPUs, holds 400 GPU-s (200 s of wall time)
    and was preempted at 100 s. With starvation_limit 0.5 it is due at 100 + 0.5·200 = 200 s."""
    policy = Tiresias(thresholds=(100.0, 300.0), starvation_limit=0.5)
    policy._stopped_at[1] = 100.0
    view = StubView(time, {0: 1, 1: 2}, {0: 0.0, 1: 400.0}, pending_ids=[0, 1])
    return policy, view


def test_promotion_is_due_exactly_at_the_limit() -> None:
    policy, view = promotion_case(200.0)
    assert policy.queue(view, 1) == 2  # type: ignore[arg-type]
    policy._promote(view)  # type: ignore[arg-type]
    assert policy.queue(view, 1) == 0  # type: ignore[arg-type]
    assert policy._baseline == {1: 400.0} and policy.stats()["promotions"] == 1


def test_promotion_is_not_due_just_before_the_limit() -> None:
    policy, view = promotion_case(199.999)
    policy._promote(view)  # type: ignore[arg-type]
    assert policy.queue(view, 1) == 2  # type: ignore[arg-type]
    assert policy._baseline == {} and policy.stats()["promotions"] == 0


def test_a_job_already_in_queue_0_is_not_promoted_again() -> None:
    policy, view = promotion_case(500.0)
    view.service[1] = 50.0  # below the first threshold: queue 0
    policy._promote(view)  # type: ignore[arg-type]
    assert policy._baseline == {}


def crossing(policy: Tiresias, view: StubView) -> float | None:
    """The wake-up Tiresias asks for: the next queue crossing of the jobs running in ``view``."""
    running = view.running()
    services = policy._services(view, running)  # type: ignore[arg-type]
    queues = policy._queues(services)
    return policy._crossing(view.time, services, view.gpu_counts(running), queues)


def test_the_wake_up_counts_service_since_promotion() -> None:
    """Job 1 was promoted with 400 GPU-s counted apart; at 225 s it holds 450 GPU-s, so the
    queues see 50 and it crosses 100 after (100 − 50) / 2 GPUs = 25 s, at 250 s."""
    policy, view = promotion_case(200.0)
    policy._promote(view)  # type: ignore[arg-type]
    running = StubView(225.0, view.gpus, {0: 0.0, 1: 450.0}, running_ids=[1])
    assert crossing(policy, running) == pytest.approx(250.0, rel=1e-12)
    # A job in the last queue has no crossing left; none running, no wake-up.
    running.service[1] = 400.0 + 300.0
    assert crossing(policy, running) is None


def test_the_wake_up_is_the_crossing_of_a_job_that_runs_after_the_decision() -> None:
    """Thresholds (100,) on 2 GPUs: job 0 (1 GPU) runs from 0 s, job 1 (2 GPUs) arrives at 10 s.

    Both are in queue 0 (10 and 0 GPU-s); running before waiting keeps job 0, and job 1 does
    not fit the GPU left, so nothing changes. Job 0 crosses 100 GPU-s at 10 + (100 − 10) / 1 =
    100 s: the wake-up. Job 1 would cross at 10 + 100 / 2 = 60 s if it ran, but it waits, so it
    gains no service and must not bring the wake-up forward.
    """
    jobs = (Job(0, 0.0, 1, duration=1000.0), Job(1, 10.0, 2, duration=100.0))

    def look(view: ClusterView) -> Decision:
        return Tiresias(thresholds=(100.0,)).decide(view)

    decision = look_at(Instance(TWO_GPUS, jobs), {0: ((0,), 1)}, 10.0, look)
    assert decision.starts == () and decision.preempts == ()
    assert decision.wake_at == pytest.approx(100.0, rel=1e-12)


@pytest.mark.parametrize("limit", [0.0, -1.0])
def test_starvation_limit_must_be_positive(limit: float) -> None:
    with pytest.raises(ValueError, match=r"^starvation_limit must be positive$"):
        Tiresias(starvation_limit=limit)
    assert Tiresias(starvation_limit=1e-3).starvation_limit == 1e-3
