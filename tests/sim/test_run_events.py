"""The simulator's event loop by hand (docs/model.md §4): time only moves forward, the state
epoch a policy reads, and the progress callback."""

from __future__ import annotations

from typing import Any

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


def test_a_finish_that_rounds_to_the_tick_being_processed_is_released_at_the_next_tick() -> None:
    """One GPU, dt = 1: job 0 (10⁻¹² s of work) and job 1 (3 s) arrive at 5. Job 0 starts at
    tick 5 and finishes at 5 + 10⁻¹², which rounds to tick 5 itself (within the tick tolerance
    5·10⁻¹² s), already processed: it is released at tick 6, where job 1 starts, to finish at
    9. Time never goes back to a tick it has processed."""
    instance = Instance(
        Cluster(nodes=1, gpus_per_node=1),
        (Job(0, 5.0, 1, duration=1e-12), Job(1, 5.0, 1, duration=3.0)),
    )
    result = simulate(instance, make_policy("fifo"), dt=1.0)
    assert list(result.ticks.time) == [5.0, 6.0, 9.0]
    assert list(result.jobs.start) == [5.0, 6.0]
    assert list(result.jobs.finish) == [5.0 + 1e-12, 9.0]


class OnePerDecision:
    """Starts at most one waiting job per decision (on free GPUs) and records the epoch and the
    time of every decision it is asked for."""

    name = "one-per-decision"
    preemptive = False
    sharing = False

    def __init__(self) -> None:
        self.seen: list[tuple[float, int]] = []

    def decide(self, view: ClusterView) -> Decision:
        self.seen.append((view.time, view.epoch))
        free = [g for gpus in view.free_by_node() for g in gpus]
        for job_id in view.pending():
            if view.job(job_id).gpus <= len(free):
                return Decision((Start(job_id, tuple(free[: view.job(job_id).gpus])),))
        return Decision()

    def stats(self) -> dict[str, Any]:
        return {}


def test_the_epoch_changes_with_every_start_and_only_then_between_interval_decisions() -> None:
    """Two GPUs, interval 60, three long jobs at 0: the policy starts one at 0 and one at 60
    (an interval decision, since jobs wait); at 120 nothing is free. The epochs it reads at 0,
    60 and 120 differ after each start (also after two starts in a row), and at 180 (nothing
    happened since 120) it reads the same epoch as at 120."""
    jobs = tuple(Job(i, 0.0, 1, duration=1000.0) for i in range(3))
    policy = OnePerDecision()
    simulate(Instance(Cluster(nodes=1, gpus_per_node=2), jobs), policy, interval=60.0)
    epochs = dict(policy.seen)
    assert len({epochs[0.0], epochs[60.0], epochs[120.0]}) == 3
    assert epochs[180.0] == epochs[120.0]


def test_the_progress_callback_hears_every_completion_with_the_job_count() -> None:
    """Three jobs finish at three different ticks: the callback hears (1, 3), (2, 3), (3, 3)."""
    jobs = (
        Job(0, 0.0, 1, duration=5.0),
        Job(1, 0.0, 1, duration=7.0),
        Job(2, 0.0, 1, duration=9.0),
    )
    heard: list[tuple[int, int]] = []
    instance = Instance(Cluster(nodes=1, gpus_per_node=3), jobs)
    simulate(instance, make_policy("fifo"), progress=lambda done, n: heard.append((done, n)))
    assert heard == [(1, 3), (2, 3), (3, 3)]
