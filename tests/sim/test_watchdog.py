"""The progress watchdog on its own (sjfbsbf/sim/watchdog.py, docs/model.md §5): what it counts,
when it raises and which jobs its message names. Whole runs it stops are in test_preemption.py."""

from __future__ import annotations

import pytest

from sjfbsbf.core.errors import SchedulingError
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.watchdog import ProgressWatchdog, stall_limit


def _starts(*job_ids: int) -> Decision:
    return Decision(starts=tuple(Start(j, (0,)) for j in job_ids))


def test_the_limit_grows_by_ten_decisions_per_job_from_a_hundred() -> None:
    assert stall_limit(0) == 100
    assert stall_limit(7) == 170


def test_it_raises_on_the_first_decision_past_the_limit() -> None:
    dog = ProgressWatchdog("p", limit=3)
    for t in (5.0, 6.0, 7.0):
        dog.decided(t, _starts(4), by_policy=False)
    with pytest.raises(SchedulingError) as error:
        dog.decided(8.0, Decision(preempts=(2,)), by_policy=False)
    assert str(error.value) == (
        "t=8: policy 'p' made 4 decisions in a row since t=5 while no job progressed (no work "
        "done, no arrival, no completion); jobs involved: [2, 4]"
    )


def test_an_empty_decision_counts_only_when_the_policy_asked_for_the_tick() -> None:
    dog = ProgressWatchdog("p", limit=1)
    for t in range(10):
        dog.decided(float(t), Decision(), by_policy=False)
    assert dog.count == 0 and dog.since is None
    dog.decided(10.0, Decision(wake_at=11.0), by_policy=True)
    with pytest.raises(SchedulingError, match=r"since t=10 .*jobs involved: none"):
        dog.decided(11.0, Decision(wake_at=12.0), by_policy=True)


def test_progress_ends_the_stall_and_forgets_its_jobs() -> None:
    dog = ProgressWatchdog("p", limit=2)
    dog.decided(1.0, _starts(9), by_policy=False)
    dog.decided(2.0, _starts(9), by_policy=False)
    dog.progressed()
    assert (dog.count, dog.since, dog.jobs) == (0, None, set())
    dog.decided(3.0, _starts(5), by_policy=False)
    dog.decided(4.0, _starts(5), by_policy=False)
    with pytest.raises(SchedulingError, match=r"made 3 decisions in a row since t=3 .*\[5, 6\]$"):
        dog.decided(5.0, _starts(6), by_policy=False)


def test_the_message_names_the_first_twelve_jobs_involved_in_id_order() -> None:
    """Jobs 20–31 are involved first: twelve, so job 1, involved later, is not named (the
    message lists the jobs the stall began with, not the lowest ids)."""
    dog = ProgressWatchdog("p", limit=1)
    dog.decided(0.0, _starts(*range(31, 19, -1)), by_policy=False)
    with pytest.raises(SchedulingError) as error:
        dog.decided(1.0, _starts(1), by_policy=False)
    assert str(error.value).endswith(f"jobs involved: {list(range(20, 32))}")


def test_a_decision_that_brings_many_jobs_at_once_is_named_by_its_twelve_lowest() -> None:
    dog = ProgressWatchdog("p", limit=0)
    with pytest.raises(SchedulingError) as error:
        dog.decided(0.0, _starts(*range(40, 0, -1)), by_policy=False)
    assert str(error.value).endswith(f"jobs involved: {list(range(1, 13))}")
