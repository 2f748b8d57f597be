"""Preemption and restart overheads (docs/model.md §4, §5): hand-computed cases.

Shared conventions: duration-only jobs on one GPU (1 node × 1 GPU, 12 GB), dt = 1 s, decision
interval 60 s, restart overhead 30 s unless stated. A preempted job keeps its progress and, when
it resumes, holds its GPU for the overhead (rounded up to whole ticks) without progress.

Policies are wrapped in :class:`Recorder` (it records every decision time) and, for runs that
used to loop forever, in a call budget far above what the run needs, so that a regression fails
the test instead of hanging it.
"""

from __future__ import annotations

from typing import Any

from sjfbsbf.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.simulator import simulate


class BudgetExceeded(AssertionError):
    """The simulator asked the policy far more often than the run needs: it is spinning."""


class Recorder:
    """Wraps a policy; records decision times and fails after ``budget`` decisions."""

    def __init__(self, inner: Any, budget: int = 10_000) -> None:
        self.inner = inner
        self.name = inner.name
        self.preemptive = inner.preemptive
        self.sharing = inner.sharing
        self.budget = budget
        self.times: list[float] = []

    def decide(self, view: Any) -> Any:
        self.times.append(view.time)
        if len(self.times) > self.budget:
            raise BudgetExceeded(f"{len(self.times)} decisions, last at t={view.time}")
        return self.inner.decide(view)

    def stats(self) -> dict[str, Any]:
        return dict(self.inner.stats())


def one_gpu(*jobs: tuple[float, float]) -> Instance:
    """Duration-only 1-GPU jobs ``(arrival, duration)`` with ids 0, 1, … on one GPU."""
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
    return Instance(cluster, tuple(Job(i, a, 1, duration=d) for i, (a, d) in enumerate(jobs)))


def by_id(result: Any) -> Any:
    return result.jobs.set_index("job_id")


# -- versioned restart events ------------------------------------------------------------------


def test_stale_restart_event_triggers_no_decision() -> None:
    """A job preempted inside its overhead: the end of that overhead is no longer an event.

    srtf. Job 0 (100 s) starts at 0; job 1 (20 s) arrives at 10 and preempts it (90 > 20), runs
    10 → 30. At 30 job 0 resumes: overhead until 60. Job 2 (5 s) arrives at 40: job 0's remaining
    time is 90 + 20 s of overhead left = 110 > 5, so it is preempted again and job 2 runs
    40 → 45. At 45 job 0 resumes (its only competitor is gone), overhead until 75, then 90 s of
    work: finish 165. The overhead that would have ended at 60 was cut short: nothing happens at
    60 (nothing waits either, so no interval decision). Decisions: 0, 10, 30, 40, 45, 75, 165.
    """
    recorder = Recorder(make_policy("srtf"))
    res = simulate(one_gpu((0, 100), (10, 20), (40, 5)), recorder, restart_overhead=30.0)
    assert recorder.times == [0, 10, 30, 40, 45, 75, 165]
    jobs = by_id(res)
    assert jobs.loc[0].finish == 165.0
    assert (jobs.loc[1].start, jobs.loc[1].finish) == (10.0, 30.0)
    assert (jobs.loc[2].start, jobs.loc[2].finish) == (40.0, 45.0)
    assert list(jobs.preemptions) == [2, 0, 0]
