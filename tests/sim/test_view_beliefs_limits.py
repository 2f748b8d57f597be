"""The policies' view under beliefs, method by method on a hand-built state (docs/model.md §4.1):
the believed slowdown of a pair, of a job alone, waiting or preempted, a duration-only job's
work under ``oracle``, and the placement a step time is asked for."""

from __future__ import annotations

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import make_interference, time_slicing
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.state import PENDING, RUNNING, SimState
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.world import WorldView

#: 0 (vgg16) and 1 (gpt2) share GPU 0; 2 (resnet18) is alone on GPU 1; 3 (2 GPUs) and 4
#: (duration-only, 50 s) wait.
JOBS = (
    Job(0, 0.0, 1, "vgg16", 16, 100),
    Job(1, 0.0, 1, "gpt2", 4, 100),
    Job(2, 0.0, 1, "resnet18", 128, 100),
    Job(3, 0.0, 2, "resnet18", 128, 100),
    Job(4, 0.0, 1, duration=50.0),
)


def _state() -> SimState:
    state = SimState(Instance(Cluster(nodes=2, gpus_per_node=2), JOBS), time_slicing(), 0.0)
    for i in range(len(JOBS)):
        state.status[i] = PENDING
        state.pending.add(i)
    for i, gpu in ((0, 0), (1, 0), (2, 1)):
        state.place(i, (gpu,), 1, 0.0)
        state.pending.discard(i)
        state.running.add(i)
        state.status[i] = RUNNING
    return state


def test_the_believed_slowdown_of_a_pair_is_the_beliefs_own_and_one_when_not_sharing() -> None:
    state = _state()
    view = ClusterView(state, Beliefs(interference="gavel-fitted"))
    fitted = make_interference("gavel-fitted")
    a, b = state.occupants[0], state.occupants[1]
    assert a is not None and b is not None
    assert view.slowdown(0) == fitted.slowdown(a, b)
    assert view.slowdown(1) == fitted.slowdown(b, a)
    # The belief is not the world's, nor a job's slowdown beside itself.
    assert view.slowdown(0) not in (time_slicing().slowdown(a, b), fitted.slowdown(a, a))
    assert view.slowdown(2) == 1.0  # alone on its GPU
    assert view.slowdown(3) == 1.0  # waiting
    # Preempted: it has no placement but keeps its last occupant.
    state.remove(2, 0.0)
    state.running.discard(2)
    state.status[2] = PENDING
    state.pending.add(2)
    assert state.occupants[2] is not None
    assert view.slowdown(2) == 1.0


def test_under_oracle_a_duration_only_jobs_believed_work_is_its_seconds() -> None:
    view = ClusterView(_state())
    assert view.believed_work(4) == 50.0
    assert view.believed_work(3) == _state().work[3]


def test_a_step_time_is_the_one_of_the_placement_asked_for() -> None:
    state = _state()
    view, world = ClusterView(state), WorldView(state)
    across, within = view.step_time(3, 1, True), view.step_time(3, 1, False)
    assert (across, within) == (world.step_time(3, 1, True), world.step_time(3, 1, False))
    assert across > within  # spanning nodes is slower
