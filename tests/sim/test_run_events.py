"""The simulator's event loop by hand (docs/model.md §4): time only moves forward, the state
epoch a policy reads, and the progress callback."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hand_cases import REL, XI_GENERIC

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


def test_the_epoch_read_after_an_arrival_differs_from_the_one_before_the_last_start() -> None:
    """Three GPUs, jobs arriving at 0, 30 and 90: each decision starts the new job, so every
    decision reads a different epoch (an arrival and a start in between each two)."""
    jobs = tuple(Job(i, a, 1, duration=1000.0) for i, a in enumerate((0.0, 30.0, 90.0)))
    policy = OnePerDecision()
    simulate(Instance(Cluster(nodes=1, gpus_per_node=3), jobs), policy)
    first = policy.seen[:3]  # then the completions at 1000, 1030 and 1090
    assert [t for t, _ in first] == [0.0, 30.0, 90.0]
    assert len({e for _, e in first}) == 3


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


class Script:
    """A preemptive, sharing policy that follows a script of decisions by time; at any other
    decision it starts waiting jobs on free GPUs (one GPU each)."""

    name = "script"
    preemptive = True
    sharing = True

    def __init__(self, script: dict[float, Decision]) -> None:
        self.script = script
        self.times: list[float] = []

    def decide(self, view: ClusterView) -> Decision:
        t = view.time
        self.times.append(t)
        if t in self.script:
            return self.script[t]
        free = [g for gpus in view.free_by_node() for g in gpus]
        starts = tuple(Start(j, (g,)) for j, g in zip(view.pending(), free, strict=False))
        return Decision(starts)

    def stats(self) -> dict[str, Any]:
        return {}


def test_preempting_one_of_two_sharing_jobs_speeds_the_other_up_from_that_moment() -> None:
    """Two 100 s duration-only jobs share one GPU from 0 (each slowed by ξ = 1.86648); job 0 is
    preempted at 10, having done 10/ξ s of work, as has job 1, which runs alone from then on:
    it finishes at 10 + 100 − 10/ξ. Job 0 resumes when the GPU frees (tick 105; no overhead)
    and finishes 100 − 10/ξ s later."""
    jobs = (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=100.0))
    instance = Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0), jobs)
    script = {
        0.0: Decision((Start(0, (0,)), Start(1, (0,))), wake_at=10.0),
        10.0: Decision(preempts=(0,)),
    }
    policy = Script(script)
    result = simulate(instance, policy, restart_overhead=0.0)
    left = 100.0 - 10.0 / XI_GENERIC
    # asked at 0, at its wake-up (10), at the boundary 60 (job 0 waits), at job 1's release
    # (105) and job 0's (200); with no overhead a resumed job has no overhead end to be asked at
    assert policy.times == [0.0, 10.0, 60.0, 105.0, 200.0]
    assert result.jobs.finish[1] == pytest.approx(10.0 + left, rel=REL)
    assert result.jobs.start[0] == 0.0
    assert result.jobs.finish[0] == pytest.approx(105.0 + left, rel=REL)


def test_a_job_preempted_inside_its_restart_overhead_leaves_it() -> None:
    """Two GPUs, overhead 30 s: job 0 starts at 0, is preempted at 1, resumes at 2 (inside its
    overhead until 32) and is preempted again at 3; job 1 starts then on the other GPU and works
    alone until 503 while the policy asks to be woken every second. Job 1's work is progress,
    so the watchdog (limit 120 decisions) never fires; job 0 resumes at 600 with 999 s left
    after its 30 s overhead."""
    jobs = (Job(0, 0.0, 1, duration=1000.0), Job(1, 0.0, 1, duration=500.0))
    instance = Instance(Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=16.0), jobs)
    script = {
        0.0: Decision((Start(0, (0,)),), wake_at=1.0),
        1.0: Decision(preempts=(0,), wake_at=2.0),
        2.0: Decision((Start(0, (0,)),), wake_at=3.0),
        3.0: Decision((Start(1, (1,)),), preempts=(0,), wake_at=4.0),
        **{float(t): Decision(wake_at=t + 1.0) for t in range(4, 600)},
    }
    result = simulate(instance, Script(script), restart_overhead=30.0)
    assert result.jobs.finish[1] == 503.0
    assert result.jobs.finish[0] == 600.0 + 30.0 + 999.0


@pytest.mark.parametrize("overhead", [-1.0, math.inf, math.nan])
def test_a_restart_overhead_that_is_negative_or_not_finite_is_refused(overhead: float) -> None:
    instance = Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=5.0),))
    with pytest.raises(ValueError, match=r"^restart_overhead must be a non-negative, finite"):
        simulate(instance, make_policy("fifo"), restart_overhead=overhead)


def test_the_result_records_the_run_parameters_and_counts() -> None:
    """dt 2, interval 10, overhead 3: one 5 s job at 0, asked at 0 and at its release (6)."""
    instance = Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=5.0),))
    result = simulate(instance, make_policy("fifo"), dt=2.0, interval=10.0, restart_overhead=3.0)
    assert result.params == {
        "dt": 2.0,
        "interval": 10.0,
        "restart_overhead": 3.0,
        "decisions": 2,
        "ticks_processed": 2,
        "gpus_per_node": 1,
        "num_gpus": 1,
    }
    assert result.policy == "fifo"
    wide = Instance(Cluster(nodes=2, gpus_per_node=3), instance.jobs)  # the shape, for figures
    params = simulate(wide, make_policy("fifo"), dt=2.0).params
    assert (params["gpus_per_node"], params["num_gpus"]) == (3, 6)


def test_an_interference_that_is_not_a_model_is_refused() -> None:
    """A preset's name is not a model: refused before the run, not when two jobs first share."""
    instance = Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=5.0),))
    with pytest.raises(
        TypeError, match="interference must be an interference model, not str 'mps'"
    ):
        simulate(instance, make_policy("fifo"), interference="mps")  # type: ignore[arg-type]
