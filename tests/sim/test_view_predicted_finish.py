"""Believed finish times and remaining times under beliefs, on a hand-built state (docs/model.md
§4.1): when its overhead ends, plus the believed remaining work at the job's step time now times
its believed slowdown."""

from __future__ import annotations

import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.state import PENDING, RUNNING, SimState
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.world import WorldView

NOW = 30.0
#: 0 (vgg16) and 1 (gpt2) share GPU 0, 0 in a restart overhead until 40 s; 2 (resnet18,
#: 2 GPUs) spans the two nodes on GPUs 1 and 2; 4 (duration-only, 100 s) is on GPU 3; 3 waits.
#: Estimates far above the truth.
JOBS = (
    Job(0, 0.0, 1, "vgg16", 16, 100, estimate=9000.0),
    Job(1, 0.0, 1, "gpt2", 4, 100, estimate=8000.0),
    Job(2, 0.0, 2, "resnet18", 128, 100, estimate=7000.0),
    Job(3, 0.0, 1, "resnet18", 128, 100, estimate=6000.0),
    Job(4, 0.0, 1, duration=100.0, estimate=500.0),
)


def _state() -> SimState:
    state = SimState(Instance(Cluster(nodes=2, gpus_per_node=2), JOBS), time_slicing(), 0.0)
    for i in range(len(JOBS)):
        state.status[i] = PENDING
        state.pending.add(i)
    for i, gpus in ((0, (0,)), (1, (0,)), (2, (1, 2)), (4, (3,))):
        state.place(i, gpus, 1, 0.0)
        state.pending.discard(i)
        state.running.add(i)
        state.status[i] = RUNNING
    state.resume_at[0] = 40.0
    return state


def test_under_a_wrong_interference_belief_the_true_work_is_slowed_by_the_believed_slowdown() -> (
    None
):
    state = _state()
    view = ClusterView(state, Beliefs(interference="gavel-fitted"), NOW)
    world = WorldView(state, NOW)
    assert view.slowdown(0) != world.slowdown(0)  # the belief is not the world's
    # Job 0 owes 10 s of overhead (in remaining_exclusive): its work starts at 40 s.
    assert view.predicted_finish(0) == pytest.approx(
        40.0 + (world.remaining_exclusive(0) - 10.0) * view.slowdown(0), rel=1e-12
    )
    # Job 1 owes none: its work goes on from now.
    assert view.predicted_finish(1) == pytest.approx(
        NOW + world.remaining_exclusive(1) * view.slowdown(1), rel=1e-12
    )


def _believed_finish(view: ClusterView, state: SimState, job: int, spans: bool) -> float:
    """max(now, end of overhead) + (W' − progress) × step at this placement × believed ξ."""
    left = view.believed_work(job) - view.progress(job)
    start = max(NOW, float(state.resume_at[job]))
    return start + left * view.step_time(job, 1, spans) * view.slowdown(job)


def test_under_an_estimator_the_believed_work_left_runs_at_the_step_of_the_placement() -> None:
    state = _state()
    view = ClusterView(state, Beliefs("user", "gavel-fitted"), NOW)
    assert view.progress(1) > 0 and view.progress(2) > 0 and view.slowdown(1) > 1.0
    for job, spans in ((0, False), (1, False), (2, True)):
        assert view.predicted_finish(job) == pytest.approx(
            _believed_finish(view, state, job, spans), rel=1e-12
        )


def test_under_an_estimator_the_remaining_time_arrays_equal_the_one_job_values() -> None:
    view = ClusterView(_state(), Beliefs("user"), NOW)
    ids = [0, 1, 2, 3, 4]
    one = [view.remaining_exclusive(j, 1, fewest_nodes=True) for j in ids]
    assert view.remaining_exclusives(ids).tolist() == pytest.approx(one, rel=1e-12)
    running = [view.remaining_exclusive(j) for j in (0, 1, 2, 4)]
    assert view.running_remaining_exclusives([0, 1, 2, 4]).tolist() == pytest.approx(
        running, rel=1e-12
    )
    # The duration-only job: 500 s believed, 30 s done, alone: 470 s left, by hand.
    assert view.remaining_exclusive(4) == pytest.approx(470.0, rel=1e-12)
    # Job 2 spans the nodes now; on the fewest nodes (one) it would be faster.
    assert view.remaining_exclusive(2) > view.remaining_exclusive(2, fewest_nodes=True)


def test_under_oracle_the_remaining_time_is_the_worlds_on_the_nodes_asked_for() -> None:
    state = _state()
    view, world = ClusterView(state, time=NOW), WorldView(state, NOW)
    assert view.remaining_exclusive(2) == world.remaining_exclusive(2)
    fewest = view.remaining_exclusive(2, fewest_nodes=True)
    assert fewest == world.remaining_exclusive(2, fewest_nodes=True)
    assert fewest < world.remaining_exclusive(2)


def test_under_an_estimator_a_waiting_jobs_finish_is_refused_as_running_jobs_only() -> None:
    view = ClusterView(_state(), Beliefs("user"), NOW)
    with pytest.raises(AssertionError) as info:
        view.predicted_finish(3)
    assert str(info.value) == "running jobs only"


def test_under_an_estimator_the_running_only_array_refuses_a_waiting_job() -> None:
    view = ClusterView(_state(), Beliefs("user"), NOW)
    with pytest.raises(AssertionError) as info:
        view.running_remaining_exclusives([1, 3])
    assert str(info.value) == "running jobs only"


def test_under_an_estimator_the_default_accumulation_is_the_running_one_else_one() -> None:
    state = _state()
    state.retune(0, 2, 0.0)  # job 0 runs at s = 2 since t = 0
    state.accumulation[3] = 2  # job 3 waits; it last ran at s = 2
    view = ClusterView(state, Beliefs("user"), NOW)
    assert view.remaining_exclusive(0) == view.remaining_exclusive(0, 2)
    assert view.remaining_exclusive(0) != view.remaining_exclusive(0, 1)
    assert view.remaining_exclusive(3) == view.remaining_exclusive(3, 1)
    assert view.remaining_exclusive(3) != view.remaining_exclusive(3, 2)


def test_under_the_user_estimator_a_jobs_believed_exclusive_duration_is_its_estimate() -> None:
    view = ClusterView(_state(), Beliefs("user"), NOW)
    # Every job is below its estimate (no overrun): the estimates, whatever the step.
    assert view.exclusive_durations([0, 1, 2, 3, 4]).tolist() == pytest.approx(
        [job.estimate for job in JOBS], rel=1e-12
    )
