"""The feasibility checker (docs/model.md §4) fires on every kind of bad decision.

Each case runs the real simulator with a test-only scripted policy that returns one bad decision
at some tick; the simulator must raise :class:`~sjfbsbf.core.errors.FeasibilityError` from
:func:`sjfbsbf.sim.feasibility.check_decision`. A matching good decision is run too, so each test
would fail if the checker rejected valid decisions or the script never reached the bad one.

Memory used below: a duration-only job holds the generic 4.778 GB; ResNet-18 at its full batch
holds 6.432 GB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.feasibility import check_decision
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import SimState
from sjfbsbf.sim.view import ClusterView

Script = Callable[[ClusterView], Decision]


class Scripted:
    """Test-only policy: ``script(view)`` decides; afterwards it behaves like plain FIFO."""

    name = "test-scripted"

    def __init__(self, script: Script, *, preemptive: bool = False, sharing: bool = False):
        self.script = script
        self.preemptive = preemptive
        self.sharing = sharing

    def decide(self, view: ClusterView) -> Decision:
        return self.script(view)

    def stats(self) -> dict[str, Any]:
        return {}


def fifo_on_free(view: ClusterView) -> Decision:
    """Start pending jobs in order on idle GPUs (the well-behaved fallback)."""
    free = view.free_gpus()
    starts = []
    for j in view.pending():
        g = view.job(j).gpus
        if g > len(free):
            break
        starts.append(Start(j, tuple(free[:g])))
        free = free[g:]
    return Decision(tuple(starts))


def at_time(when: float, bad: Script) -> Script:
    """``bad`` at time ``when``, fifo_on_free otherwise."""

    def script(view: ClusterView) -> Decision:
        return bad(view) if view.time == when else fifo_on_free(view)

    return script


def duration_jobs(*specs: tuple[float, int, float], mem: float = 48.0, gpus: int = 2) -> Instance:
    """Duration-only jobs (arrival, GPUs, duration) on one node of ``gpus`` GPUs."""
    cluster = Cluster(nodes=1, gpus_per_node=gpus, gpu_mem_gb=mem)
    jobs = tuple(Job(i, float(a), g, duration=float(d)) for i, (a, g, d) in enumerate(specs))
    return Instance(cluster, jobs)


def raises(inst: Instance, policy: Scripted, match: str) -> None:
    with pytest.raises(FeasibilityError, match=match):
        simulate(inst, policy)


def test_three_jobs_on_one_gpu() -> None:
    """A GPU holds at most two jobs (memory is ample: 3 × 4.778 ≤ 48 GB)."""
    inst = duration_jobs((0, 1, 10), (0, 1, 10), (0, 1, 10))
    all_on_0 = Decision(tuple(Start(j, (0,)) for j in range(3)))
    raises(inst, Scripted(lambda v: all_on_0, sharing=True), "more than two")
    two_on_0 = Decision((Start(0, (0,)), Start(1, (0,)), Start(2, (1,))))
    simulate(inst, Scripted(at_time(0.0, lambda v: two_on_0), sharing=True))


def test_third_job_on_a_gpu_already_shared() -> None:
    """Over-subscription is also caught against jobs already running (not only within one call)."""
    inst = duration_jobs((0, 1, 100), (0, 1, 100), (5, 1, 10))
    pair = Decision((Start(0, (0,)), Start(1, (0,))))
    third = Decision((Start(2, (0,)),))

    def script(view: ClusterView) -> Decision:
        return pair if view.time == 0 else third

    raises(inst, Scripted(script, sharing=True), "t=5.*more than two")


def test_memory_overflow() -> None:
    """Two duration-only jobs (2 × 4.778 = 9.556 GB) do not fit an 8 GB GPU; 12 GB is fine."""
    both = Decision((Start(0, (0,)), Start(1, (0,))))
    tight = duration_jobs((0, 1, 10), (0, 1, 10), mem=8.0)
    raises(tight, Scripted(lambda v: both, sharing=True), "memory overflow")
    roomy = duration_jobs((0, 1, 10), (0, 1, 10), mem=12.0)
    simulate(roomy, Scripted(at_time(0.0, lambda v: both), sharing=True))


def test_memory_overflow_catalog_job_with_sub_batch() -> None:
    """ResNet-18 (6.432 GB at B = 128) + generic (4.778) = 11.21 > 11 GB overflows; with s = 2
    ResNet-18 holds 0.4 · 6.432 + 0.6 · 6.432 / 2 = 4.5024 GB, total 9.28 ≤ 11: fits."""
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=11.0)
    inst = Instance(cluster, (Job(0, 0.0, 1, "resnet18", 128, 10), Job(1, 0.0, 1, duration=5.0)))
    full = Decision((Start(0, (0,), 1), Start(1, (0,))))
    raises(inst, Scripted(lambda v: full, sharing=True), "memory overflow")
    half = Decision((Start(0, (0,), 2), Start(1, (0,))))
    simulate(inst, Scripted(at_time(0.0, lambda v: half), sharing=True))


def test_wrong_gpu_count() -> None:
    """A 2-GPU job given one GPU (or three) is rejected."""
    inst = duration_jobs((0, 2, 10), gpus=4)
    raises(inst, Scripted(lambda v: Decision((Start(0, (0,)),))), "needs 2 GPUs, decision gives 1")
    raises(inst, Scripted(lambda v: Decision((Start(0, (0, 1, 2)),))), "gives 3")


def test_duplicate_gpu() -> None:
    """A job given the same GPU twice is rejected."""
    inst = duration_jobs((0, 2, 10))
    raises(inst, Scripted(lambda v: Decision((Start(0, (1, 1)),))), "GPU twice")


def test_unknown_gpu() -> None:
    """GPU ids outside the cluster are rejected."""
    inst = duration_jobs((0, 1, 10))
    raises(inst, Scripted(lambda v: Decision((Start(0, (2,)),))), "unknown GPU 2")


@pytest.mark.parametrize("accumulation", [3, 16, 0])
def test_accumulation_changing_global_batch(accumulation: int) -> None:
    """ResNet-18 (B = 128) allows s ∈ {1, 2, 4, 8}; s = 3 (b not an integer), 16 (not offered)
    and 0 would change the global batch and are rejected; s = 8 (b = 16) is accepted."""
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
    inst = Instance(cluster, (Job(0, 0.0, 1, "resnet18", 128, 10),))
    bad = Decision((Start(0, (0,), accumulation),))
    raises(inst, Scripted(lambda v: bad), "global batch")
    good = Decision((Start(0, (0,), 8),))
    simulate(inst, Scripted(at_time(0.0, lambda v: good)))


def test_accumulation_for_duration_only_job() -> None:
    """A duration-only job has no sub-batch options: only s = 1."""
    inst = duration_jobs((0, 1, 10))
    raises(inst, Scripted(lambda v: Decision((Start(0, (0,), 2),))), "global batch")


def test_preemption_by_non_preemptive_policy() -> None:
    """Job 0 runs from 0; at 5 (job 1's arrival) a non-preemptive policy preempts it."""
    inst = duration_jobs((0, 1, 100), (5, 1, 10), gpus=1)
    bad = at_time(5.0, lambda v: Decision(preempts=(0,)))
    raises(inst, Scripted(bad), "non-preemptive policy preempts job 0")
    # The same decision from a preemptive policy is fine (job 1 then starts on the freed GPU).
    swap = at_time(5.0, lambda v: Decision((Start(1, (0,)),), preempts=(0,)))
    res = simulate(inst, Scripted(swap, preemptive=True))
    assert list(res.jobs.preemptions) == [1, 0]


def test_preempting_a_job_that_is_not_running() -> None:
    """A preemptive policy may only preempt running jobs (job 1 is pending at 5)."""
    inst = duration_jobs((0, 1, 100), (5, 1, 10), gpus=1)
    bad = at_time(5.0, lambda v: Decision(preempts=(1,)))
    raises(inst, Scripted(bad, preemptive=True), "not running")


def test_starting_a_job_not_yet_arrived() -> None:
    """At 0, job 1 (arriving at 50) is not pending."""
    inst = duration_jobs((0, 1, 10), (50, 1, 10))
    raises(inst, Scripted(lambda v: Decision((Start(1, (0,)),))), "starts job 1, which is not")


def test_starting_a_running_job() -> None:
    """At 5, job 0 is running (started at 0 for 100 s): starting it again is rejected."""
    inst = duration_jobs((0, 1, 100), (5, 1, 10))
    bad = at_time(5.0, lambda v: Decision((Start(0, (1,)),)))
    raises(inst, Scripted(bad), "t=5.*starts job 0, which is not pending")


def test_starting_a_finished_job() -> None:
    """Job 0 (1 s) finished at 1; at 5 it cannot start again."""
    inst = duration_jobs((0, 1, 1), (5, 1, 10))
    bad = at_time(5.0, lambda v: Decision((Start(0, (0,)),)))
    raises(inst, Scripted(bad), "t=5.*starts job 0, which is not pending")


def test_starting_a_job_twice_in_one_decision() -> None:
    inst = duration_jobs((0, 1, 10))
    twice = Decision((Start(0, (0,)), Start(0, (1,))))
    raises(inst, Scripted(lambda v: twice, sharing=True), "starts job 0 twice")


def test_exclusive_policy_sharing() -> None:
    """An exclusive policy (sharing = False) may not put a job on a busy GPU."""
    inst = duration_jobs((0, 1, 100), (5, 1, 10))
    bad = at_time(5.0, lambda v: Decision((Start(1, (0,)),)))
    raises(inst, Scripted(bad), "exclusive policy puts job 1 on busy GPU 0")
    together = duration_jobs((0, 1, 100), (0, 1, 10))
    both = Decision((Start(0, (0,)), Start(1, (0,))))
    raises(together, Scripted(lambda v: both), "exclusive policy puts job 1 on busy GPU 0")
    simulate(inst, Scripted(bad, sharing=True))


def test_preempt_frees_gpu_within_the_same_decision() -> None:
    """Preemptions apply before starts: preempt job 0 and start job 1 on its GPU (exclusive)."""
    inst = duration_jobs((0, 1, 100), (5, 1, 10), gpus=1)
    swap = at_time(5.0, lambda v: Decision((Start(1, (0,)),), preempts=(0,)))
    res = simulate(inst, Scripted(swap, preemptive=True), restart_overhead=0.0)
    jobs = res.jobs.set_index("job_id")
    # Job 1 runs 5 → 15; job 0 resumes at 15 with 95 s left: finish 110.
    assert (jobs.loc[1].start, jobs.loc[1].finish, jobs.loc[0].finish) == (5.0, 15.0, 110.0)


def test_check_decision_directly_on_a_fresh_state() -> None:
    """Without the simulator: in a fresh SimState nothing has arrived, so nothing is pending."""
    inst = duration_jobs((0, 1, 10))
    view = ClusterView(SimState(inst, time_slicing(), 0.0))
    check_decision(view, Decision(), preemptive=False, sharing=False)
    with pytest.raises(FeasibilityError, match="not pending"):
        check_decision(view, Decision((Start(0, (0,)),)), preemptive=False, sharing=False)
