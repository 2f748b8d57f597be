"""The ``planned`` policy (docs/formulations.md §2.9): replays a given schedule, is reachable but
not listed, and fails loudly on a schedule the simulator cannot run.
"""

from __future__ import annotations

import math

import pytest
from offline_cases import DT, catalog_job

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import make_policy, needs_options, policy_names
from sjfbsbf.policies.planned import (
    TIME_TOLERANCE_S,
    PlanError,
    Planned,
    PlannedStart,
    as_schedule,
)
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import FINISHED, FUTURE, PENDING, RUNNING, SimState
from sjfbsbf.sim.view import ClusterView


# -- the planned policy -------------------------------------------------------------------------
def _two_jobs() -> Instance:
    one = Cluster(1, 1, 12.0)
    return Instance(one, (Job(0, 0.0, 1, duration=120.0), Job(1, 60.0, 1, duration=60.0)))


def test_planned_replays_a_schedule() -> None:
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 120.0, (0,))]
    jobs = simulate(_two_jobs(), Planned(plan), dt=DT).jobs.set_index("job_id")
    assert list(jobs["start"]) == [0.0, 120.0]
    assert list(jobs["finish"]) == [120.0, 180.0]


def test_planned_is_reachable_but_not_listed() -> None:
    # `planned` cannot run on an instance alone, so no "every policy" loop may pick it up.
    assert "planned" not in policy_names()
    assert "planned" not in policy_names(defaults_only=True)
    assert needs_options("planned")
    policy = make_policy("planned", schedule=[PlannedStart(0, 0.0, (0,))])
    assert policy.name == "planned" and not policy.preemptive


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))], "not arrived"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 30.0, (0,))], "not asked"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0, (0,), 2)], "not an option"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0, (1,))], "unknown GPU"),
        ([PlannedStart(0, 0.0, (0,))], "missing: \\[1\\]"),
    ],
)
def test_planned_fails_loudly(plan: list[PlannedStart], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        simulate(_two_jobs(), Planned(plan), dt=DT)


def test_planned_fails_on_a_busy_gpu() -> None:
    """A third job on a GPU that holds two: the tick, the job and the GPU are named."""
    one = Cluster(1, 1, 12.0)
    instance = Instance(one, tuple(Job(i, 0.0, 1, duration=60.0) for i in range(3)))
    plan = [PlannedStart(i, 0.0, (0,)) for i in range(3)]
    with pytest.raises(PlanError, match=r"t=0: planned start of job 2 .* GPU 0 already holds"):
        simulate(instance, Planned(plan), dt=DT)


def test_planned_fails_on_memory_overflow() -> None:
    one = Cluster(1, 1, 12.0)
    instance = Instance(
        one, (catalog_job(0, 0, 1, "gpt2", 2, one), catalog_job(1, 0, 1, "bert", 1, one))
    )
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))]
    with pytest.raises(PlanError, match="memory overflow"):
        simulate(instance, Planned(plan), dt=DT)


def test_planned_rejects_a_malformed_plan() -> None:
    with pytest.raises(PlanError, match="planned twice"):
        Planned([PlannedStart(0, 0.0, (0,)), PlannedStart(0, 60.0, (0,))])


# -- each rule of a plan, with its whole message (docs/model.md §5, planned) -------------------
def _view(
    jobs: tuple[Job, ...], *, gpus: int = 1, mem: float = 12.0
) -> tuple[SimState, ClusterView]:
    """A state at t = 0 where every job has arrived and waits, and a view of it."""
    state = SimState(Instance(Cluster(1, gpus, mem), jobs), time_slicing(), 0.0)
    for i in range(len(jobs)):
        state.status[i] = PENDING
        state.pending.add(i)
    return state, ClusterView(state, time=0.0, clairvoyant=True)


def test_a_plan_given_as_a_mapping_is_sorted_by_job_id_and_replayed() -> None:
    plan = {1: PlannedStart(1, 120.0, (0,)), 0: PlannedStart(0, 0.0, (0,))}
    policy = Planned(plan)
    assert [e.job_id for e in policy.schedule] == [0, 1]
    jobs = simulate(_two_jobs(), policy, dt=DT).jobs.set_index("job_id")
    assert list(jobs["start"]) == [0.0, 120.0]


def test_a_plan_keeps_sorted_gpu_ids_and_integer_values() -> None:
    (entry,) = as_schedule([PlannedStart(0, 1, (3, 1, 2), 2)])
    assert entry == PlannedStart(0, 1.0, (1, 2, 3), 2)
    assert isinstance(entry.start, float)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (PlannedStart(0, -1.0, (0,)), r"^job 0: start -1.0 is not a time >= 0$"),
        (PlannedStart(0, math.nan, (0,)), r"^job 0: start nan is not a time >= 0$"),
        (PlannedStart(0, math.inf, (0,)), r"^job 0: start inf is not a time >= 0$"),
        (PlannedStart(0, 0.0, (1, 0, 1)), r"^job 0: GPU ids repeat in \(1, 0, 1\)$"),
    ],
)
def test_a_malformed_plan_is_refused_with_the_job_and_the_field(
    entry: PlannedStart, message: str
) -> None:
    with pytest.raises(PlanError, match=message):
        Planned([entry])


def test_a_plan_with_a_job_the_instance_lacks_names_it() -> None:
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0, (0,)), PlannedStart(7, 0.0, (0,))]
    message = (
        r"^the schedule must plan every job of the instance exactly once "
        r"\(missing: \[\], unknown: \[7\]\)$"
    )
    with pytest.raises(PlanError, match=message):
        simulate(_two_jobs(), Planned(plan), dt=DT)


def test_the_number_of_planned_starts_is_counted() -> None:
    policy = Planned([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 120.0, (0,))])
    assert policy.stats() == {"planned_starts": 0}
    simulate(_two_jobs(), policy, dt=DT)
    assert policy.stats() == {"planned_starts": 2}


@pytest.mark.parametrize("offset", [TIME_TOLERANCE_S, -TIME_TOLERANCE_S, 0.0])
def test_a_start_within_the_time_tolerance_of_a_tick_is_that_tick(offset: float) -> None:
    """Job 1 arrives at t = 60 and is planned 1e-6 s either side of it: it starts at 60."""
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0 + offset, (0,))]
    assert plan[1].start != 60.0 or offset == 0.0
    jobs = simulate(_two_jobs(), Planned(plan), dt=DT).jobs.set_index("job_id")
    assert jobs.loc[1, "start"] == 60.0


def test_a_start_beyond_the_time_tolerance_before_a_tick_was_missed() -> None:
    start = math.nextafter(60.0 - TIME_TOLERANCE_S, -math.inf)
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, start, (0,))]
    message = (
        rf"^t=60: job 1 was planned to start at t={start:g}, a tick at which the policy was "
        r"not asked \(is the start a tick of this dt\?\)$"
    )
    with pytest.raises(PlanError, match=message):
        simulate(_two_jobs(), Planned(plan), dt=DT)


def test_a_start_of_a_job_that_runs_finished_or_has_not_arrived_says_which() -> None:
    """A view where job 0 runs, job 1 has finished and job 2 arrives only at t = 30; a plan that
    starts one of them now (the others later) is refused with that job's state."""
    jobs = tuple(Job(i, 30.0 if i == 2 else 0.0, 1, duration=60.0) for i in range(3))
    state, view = _view(jobs, gpus=3)
    state.place(0, (0,), 1, 0.0)
    state.running.add(0)
    for i, status in [(0, RUNNING), (1, FINISHED), (2, FUTURE)]:
        state.pending.discard(i)
        state.status[i] = status
    for job, reason in [
        (0, "the job is already running"),
        (1, "the job has already finished"),
        (2, r"the job has not arrived \(arrival 30 s\)"),
    ]:
        plan = [PlannedStart(j, 0.0 if j == job else 60.0, (j,)) for j in range(3)]
        message = rf"^t=0: planned start of job {job} is infeasible: {reason}$"
        with pytest.raises(PlanError, match=message):
            Planned(plan).decide(view)


def test_a_start_on_the_wrong_number_of_gpus_says_both_counts() -> None:
    _, view = _view((Job(0, 0.0, 1, duration=60.0),), gpus=2)
    message = r"^t=0: planned start of job 0 is infeasible: it needs 1 GPUs, plan gives 2$"
    with pytest.raises(PlanError, match=message):
        Planned([PlannedStart(0, 0.0, (0, 1))]).decide(view)


def test_a_third_job_on_a_gpu_names_the_two_it_holds() -> None:
    jobs = tuple(Job(i, 0.0, 1, duration=60.0) for i in range(3))
    _, view = _view(jobs)
    message = r"^t=0: planned start of job 2 is infeasible: GPU 0 already holds jobs \[0, 1\]$"
    with pytest.raises(PlanError, match=message):
        Planned([PlannedStart(i, 0.0, (0,)) for i in range(3)]).decide(view)


def test_two_starts_fit_a_gpu_up_to_the_memory_tolerance_and_not_beyond() -> None:
    """Two duration-only jobs on one GPU hold ``used`` GB: they fit a GPU of ``used`` GB and one
    of ``used − 1e-9`` GB (to the last bit), and not one a bit smaller."""
    jobs = (Job(0, 0.0, 1, duration=60.0), Job(1, 0.0, 1, duration=60.0))
    _, probe = _view(jobs)
    used = probe.memory_gb(0, 1) + probe.memory_gb(1, 1)
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))]
    edge = _capacity_below(used, MEMORY_TOLERANCE_GB)
    for cap in (used, edge):
        decision = Planned(plan).decide(_view(jobs, mem=cap)[1])
        assert [s.job_id for s in decision.starts] == [0, 1]
    beyond = math.nextafter(edge, -math.inf)
    message = (
        rf"^t=0: planned start of job 1 is infeasible: GPU 0 memory overflow "
        rf"\({used:.3f} GB > {beyond:g} GB\)$"
    )
    with pytest.raises(PlanError, match=message):
        Planned(plan).decide(_view(jobs, mem=beyond)[1])


def _capacity_below(used: float, slack: float) -> float:
    """A capacity c with ``c + slack == used`` in floats."""
    cap = used - slack
    for _ in range(64):
        if cap + slack == used:
            return cap
        cap = math.nextafter(cap, math.inf if cap + slack < used else -math.inf)
    raise AssertionError("no such float")  # pragma: no cover
