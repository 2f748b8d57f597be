"""The policies' view, method by method on a hand-built state: mutation gaps of the sim.view
rerun after the truth-vs-belief rewrite (docs/testing.md). What an arrived job's record carries,
array answers equal to the one-job answers under an estimator, the ids a refusal names, the
time a view reads the state at, and how belief changes are counted."""

from __future__ import annotations

import numpy as np
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.state import FINISHED, PENDING, RUNNING, SimState
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.world import WorldView

#: 0 and 1 run on GPUs 0 and 1 from t = 0; 2 waits; 3 has not arrived (FUTURE).
JOBS = (
    Job(0, 0.0, 1, "resnet18", 64, 1000, estimate=400.0, vc="vc-a", user="ann"),
    Job(1, 0.0, 1, "vgg16", 16, 500, estimate=900.0, vc="vc-b", user="bob"),
    Job(2, 0.0, 1, duration=300.0, estimate=250.0),
    Job(3, 500.0, 1, duration=100.0, estimate=100.0),
)


def _state() -> SimState:
    state = SimState(Instance(Cluster(nodes=1, gpus_per_node=2), JOBS), time_slicing(), 0.0)
    for i in range(3):
        state.status[i] = PENDING
        state.pending.add(i)
    for i in (0, 1):
        state.place(i, (i,), 1, 0.0)
        state.pending.discard(i)
        state.running.add(i)
        state.status[i] = RUNNING
    return state


def test_an_arrived_jobs_record_carries_every_field_of_its_request() -> None:
    view = ClusterView(_state())
    for job in JOBS[:3]:
        info = view.job(job.id)
        got = (info.id, info.arrival, info.gpus, info.model, info.batch, info.estimate)
        assert got == (job.id, job.arrival, job.gpus, job.model, job.batch, job.estimate)
        assert (info.vc, info.user) == (job.vc, job.user)


def test_array_exclusive_durations_equal_the_one_job_answers_under_an_estimator() -> None:
    """Believed work × the step time at the fewest nodes: a model job's step is not 1 s."""
    view = ClusterView(_state(), Beliefs(estimator="user"))
    ids = [0, 1, 2]
    each = [view.exclusive_duration(i) for i in ids]
    assert view.exclusive_durations(ids).tolist() == pytest.approx(each, rel=1e-12)
    assert each[0] == pytest.approx(400.0) and each[2] == pytest.approx(250.0)


def test_refusals_name_the_id_that_has_not_arrived_or_does_not_exist() -> None:
    """Job 0 (index 0) beside a job not yet arrived: the refusal names the latter; an unknown
    id is named as given."""
    view = ClusterView(_state())
    with pytest.raises(KeyError, match="no arrived job with id 3"):
        view.exclusive_durations([0, 3])
    with pytest.raises(KeyError, match="no arrived job with id 999"):
        view.exclusive_durations([0, 999])
    with pytest.raises(KeyError, match="no arrived job with id 4"):  # one past the last position
        view.exclusive_durations([0, 4])
    with pytest.raises(KeyError, match="no arrived job with id 3"):
        view.job(3)
    assert view.exclusive_durations([0]).shape == (1,)  # index 0 alone is an arrived job
    # Ids that are not positions: an unknown one is looked up and named as given.
    jobs = (Job(10, 0.0, 1, duration=60.0), Job(11, 0.0, 1, duration=60.0))
    other = SimState(Instance(Cluster(nodes=1, gpus_per_node=2), jobs), time_slicing(), 0.0)
    for i in range(2):
        other.status[i] = PENDING
        other.pending.add(i)
    with pytest.raises(KeyError, match="no arrived job with id 999"):
        ClusterView(other).exclusive_durations([10, 999])


def test_a_view_reads_the_state_at_its_time_zero_by_default() -> None:
    state = _state()
    assert ClusterView(state).time == 0.0
    assert ClusterView(state).progress(0) == 0.0
    later = ClusterView(state, time=30.0)
    world = WorldView(state, 30.0)
    assert later.time == 30.0
    done = world.progress_now(np.array([0, 1], dtype=np.int64))
    assert [later.progress(0), later.progress(1)] == pytest.approx(done.tolist())
    assert later.progress(0) > 0.0


def test_belief_changes_are_counted_once_each() -> None:
    """Under history, each finished job learnt changes the beliefs once: two jobs finishing
    one after the other give belief versions 1 and 2 (not the running sum of versions)."""
    state = _state()
    view = ClusterView(state, Beliefs(estimator="history:prior=1e9"))
    assert view.belief_version == 0
    for number, (i, time) in enumerate(((0, 10.0), (1, 20.0)), start=1):
        state.running.discard(i)
        state.status[i] = FINISHED
        state.finished_order.append(i)
        view._advance(time)
        assert view.belief_version == number


def test_a_model_jobs_observed_progress_is_counted_in_iterations_under_an_estimator() -> None:
    """Believed remaining = the estimate less the iterations done × the step time at the fewest
    nodes (the true exclusive duration ÷ its iterations): a model job's progress is counted in
    iterations, a duration-only job's in seconds."""
    state = _state()
    oracle = ClusterView(state, time=30.0)
    view = ClusterView(state, Beliefs(estimator="user"), time=30.0)
    step = oracle.exclusive_duration(0) / JOBS[0].iterations  # type: ignore[operator]
    done = view.progress(0)
    assert 0 < done < JOBS[0].iterations  # type: ignore[operator]
    assert view.remaining_exclusives([0])[0] == pytest.approx(400.0 - done * step, rel=1e-9)
