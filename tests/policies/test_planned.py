"""The ``planned`` policy (docs/formulations.md §2.9): replays a given schedule, is reachable but
not listed, and fails loudly on a schedule the simulator cannot run.
"""

from __future__ import annotations

import pytest
from offline_cases import DT, catalog_job

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy, needs_options, policy_names
from sjfbsbf.policies.planned import PlanError, Planned, PlannedStart
from sjfbsbf.sim.simulator import simulate


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
