"""The view's per-job facts and remaining times, by hand, on one small state (docs/model.md §4, §5).

The state at t = 30 s (dt = 1 s, restart overhead 30 s, time slicing) of a 2 × 3-GPU cluster,
set up by the simulator itself under a scripted preemptive policy:

* job 0: resnet18 (B = 128), 2 GPUs, 1,000 steps, on GPUs 0 and 3 (two nodes) at s = 2, alone;
* jobs 1 and 2: duration-only, 1,000 s each, sharing GPU 1 from t = 0;
* job 3: resnet18, 1 GPU, 500 steps, on GPU 2 at s = 2 from 0, preempted at 10, waiting;
* job 4: duration-only, 100 s, on GPU 4 from 0, preempted at 10, resumed at 20: inside its
  restart overhead until 20 + 30 = 50;
* job 5: resnet18, 4 GPUs, 200 steps, waiting, never started (4 > 3 GPUs per node, so its
  fewest placement spans two nodes).

Step times (docs/model.md §2): step(s) = s · (α + β · B/s) + allreduce = s·α + 128·β + allreduce,
allreduce = 2(G − 1)/G · grad_gb / bandwidth (16 GB/s in a node, 8 across), 0 for G = 1 and for
duration-only jobs, whose one step is their duration. Two duration-only jobs on a GPU run at
ξ = XI_GENERIC (hand_cases.py). Remaining time (§5) = work left × solo step time at the given
accumulation (default: current if running, else 1) on the current placement if running, else
on the fewest nodes, plus the overhead still owed: what is left of it for a running job, the
whole (rounded) overhead for a preempted waiting job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hand_cases import REL, XI_GENERIC

from sjfbsbf.core.catalog import get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import PENDING, SimState
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.sim.world import WorldView

R18 = get_catalog("default")["resnet18"]
ALPHA, BETA, GRAD = R18.alpha_s, R18.beta_s, R18.grad_gb
#: resnet18's step alone at s = 1 and s = 2 on one GPU (no all-reduce).
COMPUTE_1 = ALPHA + 128 * BETA
COMPUTE_2 = 2 * ALPHA + 128 * BETA
#: Job 0 (2 GPUs) at s = 2 across two nodes: all-reduce 2 · 1/2 · grad / 8.
STEP_0 = COMPUTE_2 + GRAD / 8
#: Job 0 at s = 1 on the fewest nodes (one node): all-reduce grad / 16.
STEP_0_FEWEST = COMPUTE_1 + GRAD / 16
#: Job 5 (4 GPUs) at s = 1 across two nodes: all-reduce 2 · 3/4 · grad / 8.
STEP_5 = COMPUTE_1 + 2 * 3 / 4 * GRAD / 8

LOOK_AT = 30.0
OVERHEAD = 30.0


class Script:
    """Test-only preemptive sharing policy: the decision ``script[t]`` at each scripted time t.

    At ``at`` it calls ``look(view)`` and keeps the result in :attr:`seen`; from then on it
    starts waiting jobs, in id order, alone on the lowest idle GPUs, so the run ends.
    """

    name = "test-script"
    preemptive = True
    sharing = True
    clairvoyant = True  # it looks at the world (the truth) through view.world

    def __init__(
        self, script: dict[float, Decision], at: float, look: Callable[[WorldView], Any]
    ) -> None:
        self.script = script
        self.at = at
        self.look = look
        self.seen: Any = None
        self.looked = False

    def decide(self, view: ClusterView) -> Decision:
        if view.time == self.at:
            assert view.world is not None
            self.seen = self.look(view.world)
            self.looked = True
        if view.time in self.script:
            return self.script[view.time]
        if not self.looked:
            return Decision()
        idle = view.free_gpus()
        starts = []
        for j in view.pending():
            gpus = view.job(j).gpus
            if gpus <= len(idle):
                starts.append(Start(j, tuple(idle[:gpus])))
                idle = idle[gpus:]
        return Decision(tuple(starts))

    def stats(self) -> dict[str, Any]:
        return {}


def look_at_the_state(look: Callable[[WorldView], Any]) -> Any:
    """Simulate the module's scenario and return what ``look`` saw at t = 30 s."""
    jobs = (
        Job(0, 0.0, 2, "resnet18", 128, 1_000),
        Job(1, 0.0, 1, duration=1_000.0),
        Job(2, 0.0, 1, duration=1_000.0),
        Job(3, 0.0, 1, "resnet18", 128, 500),
        Job(4, 0.0, 1, duration=100.0),
        Job(5, 0.0, 4, "resnet18", 128, 200),
    )
    script = {
        0.0: Decision(
            (
                Start(0, (0, 3), 2),
                Start(1, (1,)),
                Start(2, (1,)),
                Start(3, (2,), 2),
                Start(4, (4,)),
            ),
            wake_at=10.0,
        ),
        10.0: Decision(preempts=(3, 4), wake_at=20.0),
        20.0: Decision((Start(4, (4,)),), wake_at=LOOK_AT),
    }
    policy = Script(script, LOOK_AT, look)
    cluster = Cluster(nodes=2, gpus_per_node=3, gpu_mem_gb=12.0)
    simulate(Instance(cluster, jobs), policy, dt=1.0, restart_overhead=OVERHEAD)
    assert policy.looked
    return policy.seen


ALL = [0, 1, 2, 3, 4, 5]
RUNNING = [0, 1, 2, 4]
#: The documented remaining time of each job at s = 1 on the fewest nodes, at t = 30:
#: job 0 did 30 / STEP_0 steps; jobs 1, 2 did 30 / (1000 ξ) of their one step; job 3 did
#: 10 / COMPUTE_2 steps before its preemption and owes the whole 30 s overhead; job 4 did
#: 10 / 100 of its step and has 50 − 30 = 20 s of overhead left; job 5 did nothing.
FEWEST = [
    (1_000 - 30 / STEP_0) * STEP_0_FEWEST,
    1_000 - 30 / XI_GENERIC,
    1_000 - 30 / XI_GENERIC,
    (500 - 10 / COMPUTE_2) * COMPUTE_1 + OVERHEAD,
    90.0 + 20.0,
    200 * STEP_5,
]
#: ... and of each running job as it runs (job 0 at s = 2 across nodes: 1000·STEP_0 − 30).
NOW = [1_000 * STEP_0 - 30, 1_000 - 30 / XI_GENERIC, 1_000 - 30 / XI_GENERIC, 110.0]


def test_remaining_times_follow_the_documented_rule_for_every_job() -> None:
    """Per-job ``remaining_exclusive`` against the hand values above, in each of its modes.

    Defaults: job 0 at its s = 2 on its two nodes (1000·STEP_0 − 30); job 3, waiting, at s = 1
    although it last ran at s = 2; job 5, never run, at s = 1 on two nodes (200·STEP_5). With
    ``fewest_nodes`` job 0 is timed on one node. At an explicit s = 2 job 3 takes
    (500 − 10/COMPUTE_2)·COMPUTE_2 + 30 = 500·COMPUTE_2 + 20.
    """

    def look(view: WorldView) -> dict[str, Any]:
        return {
            "default": [view.remaining_exclusive(j) for j in ALL],
            "fewest": [view.remaining_exclusive(j, 1, fewest_nodes=True) for j in ALL],
            "job 0 at s=1 where it runs": view.remaining_exclusive(0, 1),
            "job 3 at s=2": view.remaining_exclusive(3, 2),
            "job 3 last ran at": view.accumulation(3),
            "overhead": view.restart_overhead,
        }

    seen = look_at_the_state(look)
    default = [NOW[0], NOW[1], NOW[2], FEWEST[3], NOW[3], FEWEST[5]]
    assert seen["default"] == pytest.approx(default, rel=REL)
    assert seen["fewest"] == pytest.approx(FEWEST, rel=REL)
    across = (1_000 - 30 / STEP_0) * (COMPUTE_1 + GRAD / 8)
    assert seen["job 0 at s=1 where it runs"] == pytest.approx(across, rel=REL)
    assert seen["job 3 at s=2"] == pytest.approx(500 * COMPUTE_2 + 20, rel=REL)
    assert seen["job 3 last ran at"] == 2
    assert seen["overhead"] == OVERHEAD


def test_the_remaining_time_arrays_equal_the_per_job_values_and_the_hand_values() -> None:
    """``remaining_exclusives`` (every job) and ``running_remaining_exclusives`` (running jobs):
    the per-job floats exactly, and the hand values. Job 4 inside its overhead counts the 20 s
    left of it (110 s, not 90 − 20 = 70 s)."""

    def look(view: WorldView) -> dict[str, Any]:
        order = [5, 3, 0, 4, 2, 1]  # any order: the arrays follow the ids asked for
        return {
            "array": view.remaining_exclusives(ALL).tolist(),
            "array, reordered": view.remaining_exclusives(np.array(order)).tolist(),
            "per job": [view.remaining_exclusive(j, 1, fewest_nodes=True) for j in ALL],
            "running array": view.running_remaining_exclusives(RUNNING).tolist(),
            "running per job": [view.remaining_exclusive(j) for j in RUNNING],
            "order": order,
        }

    seen = look_at_the_state(look)
    assert seen["array"] == seen["per job"]
    assert seen["array, reordered"] == [seen["per job"][j] for j in seen["order"]]
    assert seen["array"] == pytest.approx(FEWEST, rel=REL)
    assert seen["running array"] == seen["running per job"]
    assert seen["running array"] == pytest.approx(NOW, rel=REL)


def test_per_job_facts_of_running_sharing_preempted_and_waiting_jobs() -> None:
    """Slowdown, sharing, preemption count, share of work left and step times, by hand.

    Shares of work left: job 0 1 − (30/STEP_0)/1000; jobs 1, 2 1 − 30/(1000 ξ); job 3 (waiting)
    1 − (10/COMPUTE_2)/500; job 4 (in its overhead, no progress since 10) 1 − 10/100 = 0.9;
    job 5 1. Step times: job 0 at s = 2 across nodes STEP_0, at s = 1 in one node
    STEP_0_FEWEST; job 5 at s = 1 across nodes STEP_5; a duration-only job its duration.
    """

    def look(view: WorldView) -> dict[str, Any]:
        return {
            "slowdown": [view.slowdown(j) for j in RUNNING],
            "shared": [view.is_shared(j) for j in ALL],
            "preemptions": [view.preemptions(j) for j in ALL],
            "work left": [view.remaining_work_share(j) for j in ALL],
            "steps": [
                view.step_time(0, 2, True),
                view.step_time(0, 1, False),
                view.step_time(5, 1, True),
                view.step_time(1, 1, False),
            ],
        }

    seen = look_at_the_state(look)
    assert seen["slowdown"] == pytest.approx([1.0, XI_GENERIC, XI_GENERIC, 1.0], rel=REL)
    assert seen["shared"] == [False, True, True, False, False, False]
    assert seen["preemptions"] == [0, 0, 0, 1, 1, 0]
    work_left = [
        1 - 30 / STEP_0 / 1_000,
        1 - 30 / (1_000 * XI_GENERIC),
        1 - 30 / (1_000 * XI_GENERIC),
        1 - 10 / COMPUTE_2 / 500,
        0.9,
        1.0,
    ]
    assert seen["work left"] == pytest.approx(work_left, rel=REL)
    steps = [STEP_0, STEP_0_FEWEST, STEP_5, 1_000.0]
    assert seen["steps"] == pytest.approx(steps, rel=REL)


def test_running_only_arrays_refuse_a_waiting_job_with_their_message() -> None:
    """``running_remaining_exclusives`` and ``running_occupants`` are for running jobs only:
    asked about a waiting job (3: preempted; 5: never run) they stop with "running jobs only"."""

    def look(view: WorldView) -> list[str]:
        messages = []
        for ask, job in ((view.running_remaining_exclusives, 3), (view.running_occupants, 5)):
            with pytest.raises(AssertionError) as refused:
                ask([0, job])
            messages.append(str(refused.value))
        return messages

    assert look_at_the_state(look) == ["running jobs only", "running jobs only"]


def test_a_view_made_without_a_time_is_at_time_zero() -> None:
    """``WorldView(state)`` reads the state at t = 0 (its documented default): a waiting
    duration-only job of 50 s has 50 s left and all of its work."""
    inst = Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=50.0),))
    state = SimState(inst, time_slicing(), 0.0)
    state.status[0] = PENDING
    state.pending.add(0)
    view = WorldView(state)
    assert view.time == 0.0
    assert view.remaining_exclusive(0) == 50.0
    assert view.remaining_work_share(0) == 1.0


def test_a_finished_job_that_was_preempted_owes_no_overhead() -> None:
    """One GPU, overhead 30 s. Job 0 (100 s) starts at 0 and is preempted at 5 for job 1 (10 s,
    arrives at 5, ends at 15); job 0 resumes at 15, pays 30 s and ends at 45 + 95 = 140. At
    job 2's arrival (300 s) job 0 is finished: its remaining time is its work left, 0, with no
    overhead (§5: only a preempted job still waiting owes it), per job and in the array."""
    jobs = (
        Job(0, 0.0, 1, duration=100.0),
        Job(1, 5.0, 1, duration=10.0),
        Job(2, 300.0, 1, duration=10.0),
    )
    script = {
        0.0: Decision((Start(0, (0,)),)),
        5.0: Decision((Start(1, (0,)),), preempts=(0,)),
        15.0: Decision((Start(0, (0,)),)),
    }

    def look(view: WorldView) -> tuple[bool, int, float, list[float]]:
        return (
            view.is_finished(0),
            view.preemptions(0),
            view.remaining_exclusive(0),
            view.remaining_exclusives([0]).tolist(),
        )

    policy = Script(script, 300.0, look)
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
    simulate(Instance(cluster, jobs), policy, dt=1.0, restart_overhead=OVERHEAD)
    assert policy.looked
    finished, preemptions, remaining, remainings = policy.seen
    assert finished and preemptions == 1
    assert remaining == pytest.approx(0.0, abs=1e-9)
    assert remainings == [remaining]
