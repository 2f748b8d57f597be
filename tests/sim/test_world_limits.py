"""The state readers made at a time read the state at that time (docs/model.md §4)."""

from __future__ import annotations

import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.occupancy import StateReader
from sjfbsbf.sim.state import PENDING, RUNNING, SimState
from sjfbsbf.sim.world import WorldView


def _one_job_running_since_zero() -> SimState:
    """A duration-only job of 50 s alone on one GPU since t = 0."""
    inst = Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=50.0),))
    state = SimState(inst, time_slicing(), 0.0)
    state.status[0] = PENDING
    state.pending.add(0)
    state.place(0, (0,), 1, 0.0)
    state.pending.discard(0)
    state.running.add(0)
    state.status[0] = RUNNING
    return state


def test_a_world_view_made_at_a_time_reads_the_state_at_that_time() -> None:
    """At t = 20 the job has 30 s left, three fifths of its work, and has held its GPU for
    20 GPU-seconds."""
    view = WorldView(_one_job_running_since_zero(), 20.0)
    assert view.time == 20.0
    assert view.remaining_exclusive(0) == pytest.approx(30.0, rel=1e-12)
    assert view.remaining_work_share(0) == pytest.approx(30.0 / 50.0, rel=1e-12)
    assert view.attained_service(0) == 20.0


def test_a_state_reader_made_without_a_time_is_at_time_zero() -> None:
    reader = StateReader(_one_job_running_since_zero())
    assert reader.time == 0.0
    assert reader.attained_service(0) == 0.0
