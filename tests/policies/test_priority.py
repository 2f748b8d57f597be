"""The keep/preempt walk of the preemptive baselines (``sjfbsbf.policies.priority``).

docs/model.md §5 (srtf, tiresias): walking the ranking, a job is kept if its GPU count fits in
what is left; running jobs not kept are preempted. A :class:`probe.Probe` sets the cluster state
by hand and the walk is called directly on the view it sees.
"""

from __future__ import annotations

import pytest
from probe import ONE_GPU, TWO_GPUS, look_at

from sjfbsbf.core.model import Instance, Job
from sjfbsbf.policies.priority import preemptive_decision
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


def test_a_running_job_that_falls_out_is_preempted_even_when_nothing_starts() -> None:
    """Jobs 0 and 1 (duration-only, 4.778 GB each) share the one GPU; job 2 arrives at 10 s.

    Ranked (0, 1, 2) on 1 GPU: job 0 is kept (budget 1 → 0), job 1 (1 GPU) no longer fits and
    is running, so it is preempted; job 2 does not fit either and waits. Nothing starts, and
    the decision is still the preemption of job 1 (GPU 0 is not idle after it: job 0 stays).
    """
    jobs = (
        Job(0, 0.0, 1, duration=1000.0),
        Job(1, 0.0, 1, duration=1000.0),
        Job(2, 10.0, 1, duration=100.0),
    )
    instance = Instance(ONE_GPU, jobs)

    def look(view: ClusterView) -> tuple[list[int], Decision]:
        return view.running(), preemptive_decision(view, [0, 1, 2])

    running, decision = look_at(instance, {0: ((0,), 1), 1: ((0,), 1)}, 10.0, look)
    assert sorted(running) == [0, 1]
    assert decision == Decision(preempts=(1,))


def test_a_ranking_that_leaves_out_a_running_job_trips_the_placement_assertion() -> None:
    """Job 0 holds the one GPU; job 1 arrives at 10 s. A ranking of job 1 alone (a caller's
    bug: the ranking must hold every running job) counts the GPU as free, keeps job 1 and then
    finds no idle GPU for it: the assertion says what the GPU budget should have guaranteed.
    """
    instance = Instance(ONE_GPU, (Job(0, 0.0, 1, duration=1000.0), Job(1, 10.0, 1, duration=50.0)))

    def look(view: ClusterView) -> str:
        with pytest.raises(AssertionError) as info:
            preemptive_decision(view, [1])
        return str(info.value)

    assert look_at(instance, {0: ((0,), 1)}, 10.0, look) == "GPU budget guarantees a placement"


def test_a_gpu_whose_two_jobs_are_both_preempted_is_idle_for_a_start() -> None:
    """Jobs 0 and 1 share GPU 0 of two; GPU 1 is idle; job 2 (2 GPUs) arrives at 10 s.

    Ranked (2, 0, 1) on 2 GPUs: job 2 is kept (budget 2 → 0); jobs 0 and 1 no longer fit and
    are preempted. GPU 0 is then idle (both its jobs leave) and GPU 1 was, so job 2 starts on
    GPUs (0, 1), and GPU 0 is handed back once, not once per preempted sharer.
    """
    jobs = (
        Job(0, 0.0, 1, duration=1000.0),
        Job(1, 0.0, 1, duration=1000.0),
        Job(2, 10.0, 2, duration=100.0),
    )
    instance = Instance(TWO_GPUS, jobs)

    def look(view: ClusterView) -> Decision:
        return preemptive_decision(view, [2, 0, 1])

    decision = look_at(instance, {0: ((0,), 1), 1: ((0,), 1)}, 10.0, look)
    assert decision == Decision(starts=(Start(2, (0, 1)),), preempts=(0, 1))
