"""Preemption and restart overheads (docs/model.md §4, §5): hand-computed cases.

Shared conventions: duration-only jobs on one GPU (1 node × 1 GPU, 12 GB), dt = 1 s, decision
interval 60 s, restart overhead 30 s unless stated. A preempted job keeps its progress and, when
it resumes, holds its GPU for the overhead (rounded up to whole ticks) without progress.

Policies are wrapped in :class:`Recorder` (it records every decision time) and, for runs that
used to loop forever, in a call budget far above what the run needs, so that a regression fails
the test instead of hanging it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sjfbsbf.core.errors import SchedulingError
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.planned import Planned, PlannedStart
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate


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


def by_id(result: Any) -> Any:
    return result.jobs.set_index("job_id")


# -- versioned restart events ------------------------------------------------------------------


def test_stale_restart_event_triggers_no_decision(one_gpu: Callable[..., Instance]) -> None:
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


def test_a_stale_restart_event_behind_a_current_one_triggers_nothing() -> None:
    """An interrupted overhead's end stays stale after its job resumes, and so does an old
    completion: neither is a tick the simulator processes.

    srtf, 2 GPUs (1 node), 1-GPU jobs, overhead 30 s. A and B (1000 s) start at 0. C1 (99 s)
    arrives at 10 and preempts B (A and B tie at 990 s: the lower id stays); C2 (100 s) arrives
    at 11 and preempts A (989 s). C1 runs 10 → 109, C2 11 → 111. At 109 A resumes (989 + 30 s
    before B's 990 + 30 s), overhead until 139; at 111 B resumes, overhead until 141. D (5 s)
    arrives at 120 and preempts B inside its overhead (B 990 + 21 s left, A 989 + 19 s); B's
    overhead end at 141 is stale, and it sits behind A's current one at 139, so it is still in
    the queue when B resumes at 125 (D done), overhead until 155. At 139 A's overhead ends (a
    decision); 141 is no event (B runs again, but in a new stint); 155 is. A's first completion
    (1000) and B's are stale too. A finishes at 139 + 989 = 1128, B at 155 + 990 = 1145.
    The boundary at 60 is a decision (B waits). Every processed tick is a decision."""
    jobs = (
        Job(0, 0, 1, duration=1000),
        Job(1, 0, 1, duration=1000),
        Job(2, 10, 1, duration=99),
        Job(3, 11, 1, duration=100),
        Job(4, 120, 1, duration=5),
    )
    recorder = Recorder(make_policy("srtf"))
    res = simulate(Instance(Cluster(1, 2, 12.0), jobs), recorder, restart_overhead=30.0)
    expected = [0, 10, 11, 60, 109, 111, 120, 125, 139, 155, 1128, 1145]
    assert recorder.times == expected
    assert list(res.ticks.time) == expected
    finishes = by_id(res).finish
    assert list(finishes) == [1128.0, 1145.0, 109.0, 111.0, 125.0]
    assert list(res.jobs.preemptions) == [1, 2, 0, 0, 0]


class WakeEverySecond:
    """srtf that also asks to be woken a second after every decision."""

    def __init__(self) -> None:
        self.inner = make_policy("srtf")
        self.name, self.preemptive, self.sharing = "srtf-awake", True, False

    def decide(self, view: Any) -> Decision:
        decision = self.inner.decide(view)
        return Decision(decision.starts, decision.preempts, wake_at=view.time + 1.0)

    def stats(self) -> dict[str, Any]:
        return {}


def test_the_watchdog_sees_a_resumed_job_work_once_its_overhead_ends(
    one_gpu: Callable[..., Instance],
) -> None:
    """A policy woken every second (each wake-up a decision it is responsible for) beside a job
    that resumed: the job sits in its overhead 15 → 45 (30 counted decisions, far below the
    limit 100 + 10 × 2) and then works, which ends the stall at every tick until it finishes.

    Job 0 (1000 s) at 0; job 1 (10 s) at 5 preempts it and runs 5 → 15; job 0 resumes at 15,
    works from 45 and needs its 995 s: finish 1040. Were the end of its overhead not noticed,
    the watchdog would count every wake-up from 15 on and stop the run at about 136."""
    res = simulate(one_gpu((0, 1000), (5, 10)), WakeEverySecond(), restart_overhead=30.0)
    assert list(by_id(res).finish) == [1040.0, 15.0]
    assert res.params["decisions"] >= 1040


# -- remaining time includes the restart overhead still to pay ---------------------------------


class Probe(Recorder):
    """Also records, at every decision, each active job's remaining time as the view gives it."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.remaining: list[tuple[float, dict[int, float]]] = []
        self.overhead: float | None = None

    def decide(self, view: Any) -> Any:
        active = view.running() + view.pending()
        self.remaining.append((view.time, {j: view.remaining_exclusive(j) for j in active}))
        self.overhead = view.restart_overhead
        return super().decide(view)


def test_view_remaining_time_counts_restart_overhead(one_gpu: Callable[..., Instance]) -> None:
    """remaining_exclusive = work left + overhead still to pay, as the simulator charges it.

    srtf, dt = 2, restart overhead 5 s: charged as ceil(5 / 2) = 3 ticks = 6 s. Job 0 (100 s)
    starts at 0; job 1 (20 s) arrives at 10: job 0 has 90 s left (no overhead: never
    preempted) and is preempted. Job 1 runs 10 → 30. At 30 job 0 is pending and was preempted:
    90 + 6 = 96; it resumes, overhead until 36. Job 2 (500 s) arrives at 32: job 0 has 90 + 4 s
    of overhead left = 94 (kept). At 36 (end of the overhead): 90. Job 0 finishes at 126, job 2
    runs 126 → 626.
    """
    probe = Probe(make_policy("srtf"))
    res = simulate(one_gpu((0, 100), (10, 20), (32, 500)), probe, dt=2.0, restart_overhead=5.0)
    assert probe.overhead == 6.0
    seen = dict(probe.remaining)
    assert seen[10.0] == {0: 90.0, 1: 20.0}
    assert seen[30.0] == {0: 96.0}
    assert seen[32.0] == {0: 94.0, 2: 500.0}
    assert seen[36.0] == {0: 90.0, 2: 500.0}
    jobs = by_id(res)
    assert jobs.loc[0].finish == 126.0
    assert (jobs.loc[2].start, jobs.loc[2].finish) == (126.0, 626.0)


def test_srtf_does_not_swap_preempted_jobs_forever(one_gpu: Callable[..., Instance]) -> None:
    """The review's livelock: srtf must not trade two preempted jobs back and forth.

    Jobs (arrival, duration): 0 (0, 1000), 1 (5, 990), 2 (10, 30). At 5 job 1 (990) beats job 0
    (995 left) and preempts it; at 10 job 2 (30) preempts job 1 (985 left) and runs 10 → 40. At
    40 the pending, preempted jobs count their overhead: job 1 985 + 30 = 1015, job 0
    995 + 30 = 1025, so job 1 resumes (overhead until 70). At 60 (interval, job 0 waits) job 1
    has 985 + 10 left < 1025: kept; and so on. Job 1 finishes at 70 + 985 = 1055; job 0 resumes
    there and finishes at 1055 + 30 + 995 = 2080. One preemption each for jobs 0 and 1.
    Before, a waiting preempted job counted no overhead while the resuming one counted what was
    left of its own, so at 60 they tied (995 each, job 0 wins by id), job 0 resumed, and the two
    kept swapping: the run never ended.
    """
    recorder = Recorder(make_policy("srtf"))
    res = simulate(one_gpu((0, 1000), (5, 990), (10, 30)), recorder)
    jobs = by_id(res)
    assert list(jobs.start) == [0.0, 5.0, 10.0]
    assert list(jobs.finish) == [2080.0, 1055.0, 40.0]
    assert list(jobs.preemptions) == [1, 1, 0]
    assert res.metrics["avg_jct"] == (2080.0 + 1050.0 + 30.0) / 3


def test_srtf_rank_does_not_depend_on_where_a_job_runs() -> None:
    """srtf ranks a running job by its remaining time on the fewest nodes, like a waiting one.

    2 nodes × 2 GPUs, dt 1, overhead 30. Duration-only 1-GPU jobs C (0 s, 2000 s), Q (1 s,
    100 s), D (2 s, 2000 s) land on GPUs 0, 1 (best fit on node 0) and 2 (node 1); Q ends at 101,
    so GPUs 1 and 3 are idle, one per node. Two 2-GPU ResNet-18 jobs of 3000 iterations arrive:
    A at 105, B at 110. A step takes 0.881 s inside a node and 0.983 s across nodes (the
    all-reduce at 8 instead of 16 GB/s; test_simulator_hand). C and D (< 2000 s left) rank first
    and keep 2 GPUs, so only one of A, B runs, on GPUs 1 and 3: across nodes.

    Ranked on the fewest nodes, A (started at 105, 2,995 iterations left at 110: 2,638.5 s)
    stays ahead of B (3000 × 0.881 = 2,643 s): no preemption. A runs 105 → 105 + 3000 × 0.983 =
    3054; C ends at 2000, D at 2002, where B starts on GPUs 0 and 2 (across nodes again) and
    runs to 2002 + 2949 = 4951. Ranking a running job on its actual placement instead made the
    started job look 11.6% longer than the waiting one, so A and B were swapped at every interval
    and every end of a restart overhead until D ended: the same livelock, without the overhead.
    """
    cluster = Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=12.0)
    jobs = (
        Job(0, 0.0, 1, duration=2000.0),  # C
        Job(1, 1.0, 1, duration=100.0),  # Q
        Job(2, 2.0, 1, duration=2000.0),  # D
        Job(3, 105.0, 2, "resnet18", 128, 3000),  # A
        Job(4, 110.0, 2, "resnet18", 128, 3000),  # B
    )
    res = simulate(Instance(cluster, jobs), Recorder(make_policy("srtf")))
    got = by_id(res)
    assert list(got.preemptions) == [0, 0, 0, 0, 0]
    assert (got.loc[3].start, got.loc[4].start) == (105.0, 2002.0)
    assert got.loc[3].finish == pytest.approx(105.0 + 3000 * 0.983, rel=1e-12)
    assert got.loc[4].finish == pytest.approx(2002.0 + 3000 * 0.983, rel=1e-12)


# -- the progress watchdog ---------------------------------------------------------------------


class Flip:
    """A bad preemptive policy: at every decision, preempt the running job and start another."""

    name = "flip"
    preemptive = True
    sharing = False

    def decide(self, view: Any) -> Decision:
        running, pending = view.running(), view.pending()
        if not pending:
            return Decision()
        if not running:
            return Decision((Start(pending[0], tuple(view.free_gpus()[:1])),))
        victim = running[0]
        gpus = view.placement(victim)
        return Decision((Start(pending[0], gpus),), (victim,))

    def stats(self) -> dict[str, Any]:
        return {}


class WakeOnly:
    """A bad policy: never starts anything, always asks to be woken a second later."""

    name = "wake-only"
    preemptive = False
    sharing = False

    def decide(self, view: Any) -> Decision:
        return Decision(wake_at=view.time + 1.0)

    def stats(self) -> dict[str, Any]:
        return {}


class Idle:
    """A bad policy: never starts anything and asks for nothing."""

    name = "idle"
    preemptive = False
    sharing = False

    def decide(self, view: Any) -> Decision:
        return Decision()

    def stats(self) -> dict[str, Any]:
        return {}


def test_a_policy_that_leaves_the_cluster_idle_is_stopped_after_the_last_arrival(
    one_gpu: Callable[..., Instance],
) -> None:
    """Jobs arrive at 0 and 100 on one idle GPU and the policy starts neither. At 0 a job is
    still to arrive (it may be what the policy waits for); at 100 nothing else can happen: the
    run stops there, in one line naming the time, the waiting jobs and the policy."""
    recorder = Recorder(Idle())
    with pytest.raises(SchedulingError) as error:
        simulate(one_gpu((0, 10), (100, 10)), recorder)
    assert str(error.value) == (
        "t=100.0: 2 jobs wait on an idle cluster and policy 'idle' starts none of them"
    )
    assert recorder.times == [0.0, 60.0, 100.0]


def test_watchdog_stops_a_policy_that_preempts_and_restarts_forever(
    one_gpu: Callable[..., Instance],
) -> None:
    """Flip on one GPU, two 10^6 s jobs arriving at 0, overhead 30 s: no job ever progresses.

    0: job 0 starts. 60 (interval, job 1 waits): job 0 is preempted, job 1 starts (its first
    start: it works until 120). 120: job 1 is preempted, job 0 resumes (overhead until 150):
    the first decision of the stall. From then on every decision, at each end of an overhead
    (150, 180, …), preempts the job that has just finished its overhead and resumes the other:
    nothing works after 120. The limit is 100 + 10 × 2 = 120 counted decisions: the 121st, at
    120 + 120 × 30 = 3720, raises, naming the policy, the times and both jobs.
    """
    recorder = Recorder(Flip())
    with pytest.raises(SchedulingError) as error:
        simulate(one_gpu((0, 1e6), (0, 1e6)), recorder, restart_overhead=30.0)
    message = str(error.value)
    assert message.startswith("t=3720: policy 'flip' made 121 decisions in a row since t=120")
    assert "jobs involved: [0, 1]" in message
    assert recorder.times[-1] == 3720.0


def test_watchdog_stops_a_policy_that_only_asks_for_wake_ups(
    one_gpu: Callable[..., Instance],
) -> None:
    """A policy that never starts the waiting job but always asks to be woken a second later.

    One job arriving at 0 on one GPU. The decision at 0 follows the arrival (progress); the
    wake-ups at 1, 2, … are the policy's doing and count. The limit is 100 + 10 × 1 = 110, so
    the 111th, at t = 111, raises (before, the run never ended: the idle-cluster check waits for
    the pending wake-up).
    """
    recorder = Recorder(WakeOnly())
    with pytest.raises(SchedulingError) as error:
        simulate(one_gpu((0, 100)), recorder)
    message = str(error.value)
    assert message.startswith("t=111: policy 'wake-only' made 111 decisions in a row since t=1")
    assert "jobs involved: none (only wake-ups)" in message
    assert recorder.times[-1] == 111.0


def test_watchdog_lets_planned_wait_on_an_idle_cluster(one_gpu: Callable[..., Instance]) -> None:
    """``planned`` may leave a waiting job on an idle cluster until its planned start.

    One job (100 s) arrives at 0 and is planned to start at 10^6 s. Meanwhile the policy is asked
    at every 60 s boundary (the job waits): 16,666 empty decisions the clock triggers, which
    the watchdog does not count; the wake-up at 10^6 starts the job (one counted decision).
    """
    plan = [PlannedStart(0, 1e6, (0,))]
    res = simulate(one_gpu((0, 100)), Planned(plan))
    assert (res.jobs.start.iloc[0], res.jobs.finish.iloc[0]) == (1e6, 1e6 + 100)
    assert res.params["decisions"] == 1 + 16_666 + 2  # arrival, boundaries, start, completion


@st.composite
def busy_instances(draw: st.DrawFn) -> Instance:
    """Up to 10 duration-only jobs with 1–4 GPUs on 2 × 2 GPUs, arrivals in the first 200 s."""
    jobs = tuple(
        Job(
            i,
            float(draw(st.integers(0, 200))),
            draw(st.integers(1, 4)),
            duration=float(draw(st.integers(1, 3000))),
        )
        for i in range(draw(st.integers(1, 10)))
    )
    return Instance(Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=12.0), jobs)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instance=busy_instances(),
    overhead=st.sampled_from([30.0, 600.0, 5000.0]),
    thresholds=st.sampled_from([(3250.0, 7200.0), (5.0, 10.0, 20.0), (100.0,)]),
)
def test_watchdog_never_stops_the_preemptive_baselines(
    instance: Instance, overhead: float, thresholds: tuple[float, ...]
) -> None:
    """srtf and tiresias end every run, even with restart overheads far above Tiresias' queue
    thresholds (jobs are demoted, and preempted, while still inside their overhead): the
    watchdog never fires on them and every job finishes."""
    for policy in (make_policy("srtf"), make_policy("tiresias", thresholds=thresholds)):
        res = simulate(instance, Recorder(policy), restart_overhead=overhead)
        assert res.jobs.finish.notna().all()
