"""The policies' view shows what a scheduler could know, and believes the rest (docs/model.md §4.1).

* Its whole public surface is walked: every method called with every arrived job, and with every
  job that has not arrived (refused, as an unknown id); nothing it returns is a true length, a
  ``Job``, the instance or the world view.
* Under ``oracle`` every estimate equals the world's to the last bit (golden tables unchanged).
* Under an estimator, believed times are (W' − progress) × the true step, by hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import SimState
from sjfbsbf.sim.view import ClusterView, JobInfo
from sjfbsbf.sim.world import WorldView

#: Every public name of the policies' view, with how the walk calls it: "j" a job id, "r" a
#: running job id, "ids" a list of arrived ids, "rids" running ids, "g" a GPU id, "" no
#: argument (a property or a method without one). A new public name must be added here, after
#: checking that it reveals no truth.
SURFACE: dict[str, str] = {
    "accumulation": "j",
    "accumulation_options": "j",
    "arrivals": "ids",
    "attained_service": "j",
    "attained_services": "ids",
    "belief_version": "",
    "beliefs": "",
    "believed_work": "j",
    "cluster": "",
    "epoch": "",
    "exclusive_duration": "j",
    "exclusive_durations": "ids",
    "free_by_node": "",
    "free_count": "",
    "free_gpus": "",
    "gpu_counts": "ids",
    "gpu_jobs": "g",
    "gpu_memory_used": "g",
    "hosts": "",
    "interference": "",
    "is_finished": "j",
    "is_pending": "j",
    "is_running": "j",
    "is_shared": "j",
    "job": "j",
    "least_free_memory": "rids",
    "memory_by_gpu": "",
    "memory_gb": "j1",
    "occupant": "j1",
    "pending": "",
    "placement": "j",
    "predicted_finish": "r",
    "preemptions": "j",
    "progress": "j",
    "remaining_exclusive": "j",
    "remaining_exclusives": "ids",
    "remaining_work_share": "j",
    "residents": "",
    "restart_overhead": "",
    "running": "",
    "running_mask": "ids",
    "running_occupants": "rids",
    "running_remaining_exclusives": "rids",
    "sharing_rule": "",
    "single_gpus": "",
    "slowdown": "r",
    "step_time": "j1s",
    "time": "",
    "world": "",
}
#: Methods that answer for any id, arrived or not, without revealing it (False, like an
#: unknown id).
ANY_ID = {"is_pending", "is_running", "is_finished"}

JOBS = (
    Job(0, 0.0, 2, "resnet18", 128, 3_000),
    Job(1, 0.0, 1, duration=2_000.0, estimate=500.0, vc="a"),
    Job(2, 5.0, 1, "vgg16", 16, 10_000),
    Job(3, 5.0, 1, duration=40.0, user="u"),
    Job(4, 10.0, 1, duration=700.0),
    Job(5, 400.0, 1, duration=300.0),  # not arrived when the view is walked
    Job(6, 500.0, 2, "gpt2", 4, 2_000),  # not arrived either
)
CLUSTER = Cluster(nodes=1, gpus_per_node=3, gpu_mem_gb=24.0)
WALK_AT = 120.0


class Walker:
    """Shares jobs 1 and 2 on GPU 2, runs job 0 on GPUs 0–1, starts the rest when GPUs free;
    at ``WALK_AT`` hands the view to ``look``."""

    name = "test-walker"
    preemptive = False
    sharing = True

    def __init__(self, look: Callable[[ClusterView], Any]) -> None:
        self.look = look
        self.seen: Any = None

    def decide(self, view: ClusterView) -> Decision:
        if view.time == WALK_AT:
            self.seen = self.look(view)
        if view.time == 0.0:
            return Decision((Start(0, (0, 1)), Start(1, (2,))), wake_at=5.0)
        if view.time == 5.0:
            return Decision((Start(2, (2,)),), wake_at=WALK_AT)
        starts = []
        idle = view.free_gpus()
        for j in view.pending():
            if view.job(j).gpus <= len(idle):
                starts.append(Start(j, tuple(idle[: view.job(j).gpus])))
                idle = idle[view.job(j).gpus :]
        return Decision(tuple(starts), wake_at=WALK_AT if view.time < WALK_AT else None)

    def stats(self) -> dict[str, Any]:
        return {}


def walk(beliefs: Beliefs) -> tuple[Any, Instance]:
    instance = Instance(CLUSTER, JOBS)
    walker = Walker(lambda view: view_facts(view))
    simulate(instance, walker, beliefs=beliefs, restart_overhead=0.0)
    assert walker.seen is not None
    return walker.seen, instance


def _call(view: ClusterView, name: str, how: str, job: int, running: list[int]) -> Any:
    attr = getattr(view, name)
    if how == "":
        return attr() if callable(attr) else attr
    if how in ("j", "r"):
        return attr(job)
    if how == "j1":
        return attr(job, 1)
    if how == "j1s":
        return attr(job, 1, False)
    if how == "ids":
        return attr([job])
    if how == "rids":
        return attr([job])
    assert how == "g"
    return attr(job % view.cluster.num_gpus)


def view_facts(view: ClusterView) -> dict[str, Any]:
    """Everything the walk sees: per name, the answers for arrived jobs and the refusals."""
    # (names with "ǁ" are mutmut's trampolines, present only in its copy of the code)
    public = {n for n in dir(view) if not n.startswith("_") and "ǁ" not in n}
    assert public == set(SURFACE), f"unlisted names: {sorted(public ^ set(SURFACE))}"
    running = view.running()
    arrived = sorted(view.pending() + running + [j for j in range(7) if view.is_finished(j)])
    seen: dict[str, Any] = {"arrived": arrived, "running": running, "answers": {}}
    for name, how in SURFACE.items():
        targets = running if how in ("r", "rids") else arrived
        answers = [_call(view, name, how, j, running) for j in (targets if how else [0])]
        seen["answers"][name] = answers
        if how in ("", "g"):
            continue
        for late in (5, 6, 99):  # not arrived, not arrived, no such job
            if name in ANY_ID:
                assert _call(view, name, how, late, running) is False
                continue
            with pytest.raises(KeyError, match="no arrived job"):
                _call(view, name, how, late, running)
    return seen


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list | tuple | set):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, np.ndarray):
        yield from value.ravel().tolist()
    else:
        yield value


def true_lengths(instance: Instance) -> set[float]:
    """Every true length of the instance's jobs: exclusive durations, iterations, durations."""
    state = SimState(instance, time_slicing(), 0.0)
    values = {float(x) for x in state.exclusive} | {float(x) for x in state.work}
    values |= {float(j.duration) for j in instance.jobs if j.duration is not None}
    return values - {1.0}  # a duration-only job's world work is 1 step


@pytest.mark.parametrize(
    "beliefs",
    [Beliefs(), Beliefs("lognormal:sigma=1", seed=3), Beliefs("history", "noisy:sigma=1")],
    ids=["oracle", "lognormal", "history+noisy"],
)
def test_the_view_lists_its_surface_and_refuses_jobs_that_have_not_arrived(
    beliefs: Beliefs,
) -> None:
    seen, _ = walk(beliefs)
    assert seen["arrived"] == [0, 1, 2, 3, 4]
    assert 5 not in seen["arrived"] and 6 not in seen["arrived"]


def test_nothing_the_view_hands_out_is_a_true_length_or_the_truth_itself() -> None:
    seen, instance = walk(Beliefs("lognormal:sigma=1", seed=3))
    lengths = true_lengths(instance)
    for name, answers in seen["answers"].items():
        for leaf in _leaves(answers):
            assert not isinstance(leaf, Job | Instance | SimState | WorldView), name
            if isinstance(leaf, float) and leaf > 1.0:
                assert all(not math.isclose(leaf, x, rel_tol=1e-9) for x in lengths), (name, leaf)
    assert seen["answers"]["world"] == [None]
    info = seen["answers"]["job"][1]
    assert isinstance(info, JobInfo) and not hasattr(info, "duration")
    assert not hasattr(info, "iterations")
    assert (info.estimate, info.vc) == (500.0, "a")


def test_under_oracle_every_estimate_is_the_worlds_float() -> None:
    """Each method both views have answers the same float for every arrived job, except the
    step time of a duration-only job (1 s on the policies' view, its duration in the world)."""

    def both(view: ClusterView) -> list[tuple[str, int, Any, Any]]:
        world = view._world  # the test looks behind the curtain on purpose
        rows = []
        for j in view.pending() + view.running():
            for name in ("exclusive_duration", "remaining_exclusive", "remaining_work_share"):
                rows.append((name, j, getattr(view, name)(j), getattr(world, name)(j)))
            rows.append(
                (
                    "remaining_exclusive",
                    j,
                    view.remaining_exclusive(j, 2, fewest_nodes=True),
                    world.remaining_exclusive(j, 2, fewest_nodes=True),
                )
                if view.accumulation_options(j).get(2) is not None
                else ("-", j, 0, 0)
            )
        ids = view.pending() + view.running()
        for name in ("exclusive_durations", "remaining_exclusives"):
            rows.append(
                (name, -1, getattr(view, name)(ids).tolist(), getattr(world, name)(ids).tolist())
            )
        for j in view.running():
            rows.append(("slowdown", j, view.slowdown(j), world.slowdown(j)))
            rows.append(
                ("predicted_finish", j, view.predicted_finish(j), world.predicted_finish(j))
            )
        rows.append(
            (
                "running_remaining_exclusives",
                -1,
                view.running_remaining_exclusives(view.running()).tolist(),
                world.running_remaining_exclusives(view.running()).tolist(),
            )
        )
        return rows

    instance = Instance(CLUSTER, JOBS)
    walker = Walker(both)
    simulate(instance, walker, restart_overhead=0.0)
    assert walker.seen
    for name, j, mine, theirs in walker.seen:
        assert mine == theirs, (name, j)


def test_believed_times_are_believed_work_less_progress_times_the_true_step() -> None:
    """user estimator: job 1 (duration-only, true 2,000 s, estimate 500 s) shares GPU 2 with
    job 2 from t = 5 s; at 120 s its progress is 5 + 115/ξ exclusive seconds, believed work 500:
    remaining 500 − progress at a step of 1 s; the world's remaining is 2,000 − progress."""
    estimates = {0: 900.0, 1: 500.0, 2: 2_000.0, 3: 40.0, 4: 700.0, 5: 300.0, 6: 100.0}
    jobs = tuple(
        Job(j.id, j.arrival, j.gpus, j.model, j.batch, j.iterations, j.duration, estimates[j.id])
        for j in JOBS
    )

    def look(view: ClusterView) -> dict[str, float]:
        world = view._world
        return {
            "progress": view.progress(1),
            "world work left": world.remaining_exclusive(1),
            "mine": view.remaining_exclusive(1),
            "share": view.remaining_work_share(1),
            "xi": world.slowdown(1),
            "believed work": view.believed_work(1),
        }

    walker = Walker(look)
    simulate(Instance(CLUSTER, jobs), walker, beliefs=Beliefs("user"), restart_overhead=0.0)
    seen = walker.seen
    progress = 5.0 + (WALK_AT - 5.0) / seen["xi"]
    assert seen["progress"] == pytest.approx(progress, rel=1e-12)
    assert seen["world work left"] == pytest.approx(2_000.0 - progress, rel=1e-12)
    assert seen["believed work"] == 500.0
    assert seen["mine"] == pytest.approx(500.0 - progress, rel=1e-12)
    assert seen["share"] == pytest.approx(1 - progress / 500.0, rel=1e-12)


def test_a_policy_cannot_reach_the_world_unless_it_is_clairvoyant() -> None:
    state = SimState(Instance(CLUSTER, JOBS), time_slicing(), 0.0)
    assert ClusterView(state).world is None
    assert isinstance(ClusterView(state, clairvoyant=True).world, WorldView)
    assert not hasattr(ClusterView(state), "instance")
