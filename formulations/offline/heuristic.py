"""Feasible schedules from the non-preemptive heuristics: the offline model's upper bound and hint.

Each policy is simulated at the model's ``dt`` through a thin recorder that keeps every start it
decides (job, tick, GPUs, accumulation); the simulated schedule is then a
:data:`~sjfbsbf.policies.planned.Schedule` whose true average JCT is the simulator's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from formulations.offline.replay import interval_for
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.planned import PlannedStart, Schedule, as_schedule
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.policy import Policy
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView

#: The non-preemptive policies whose schedules the offline model's decision space contains.
NON_PREEMPTIVE = ("fifo", "sjf", "sjf-ffs", "sjf-bsbf")


class _Recorder:
    """Wraps a policy and records every start it decides."""

    def __init__(self, policy: Policy) -> None:
        self.inner = policy
        self.name = policy.name
        self.preemptive = policy.preemptive
        self.sharing = policy.sharing
        self.starts: list[PlannedStart] = []

    def decide(self, view: ClusterView) -> Decision:
        decision = self.inner.decide(view)
        for start in decision.starts:
            self.starts.append(
                PlannedStart(start.job_id, view.time, tuple(start.gpus), start.accumulation)
            )
        return decision

    def stats(self) -> dict[str, Any]:
        return self.inner.stats()


@dataclass(frozen=True)
class HeuristicRun:
    """One non-preemptive policy's simulated schedule.

    Attributes
    ----------
    policy
        Registry name.
    schedule
        Its starts (one per job: the policies here never preempt).
    total_jct
        Sum of the simulated JCTs (s).
    finish
        Job id -> simulated finish time (s).
    """

    policy: str
    schedule: Schedule
    total_jct: float
    finish: dict[int, float]

    @property
    def avg_jct(self) -> float:
        """Average JCT (s)."""
        return self.total_jct / len(self.schedule)


def run_heuristic(
    instance: Instance, policy: str, dt: float, interference: Interference
) -> HeuristicRun:
    """Simulate a non-preemptive ``policy`` (default options) and record its schedule."""
    return run_policy(instance, make_policy(policy), policy, dt, interference)


def run_policy(
    instance: Instance, policy: Policy, label: str, dt: float, interference: Interference
) -> HeuristicRun:
    """Simulate ``policy`` (non-preemptive, no retunes) and record its schedule as ``label``."""
    recorder = _Recorder(policy)
    result = simulate(
        instance,
        recorder,
        dt=dt,
        interval=interval_for(dt),
        interference=interference,
        record_segments=False,
    )
    jobs = result.jobs
    finish = {int(j): float(f) for j, f in zip(jobs["job_id"], jobs["finish"], strict=True)}
    return HeuristicRun(
        policy=label,
        schedule=as_schedule(recorder.starts),
        total_jct=float(jobs["jct"].sum()),
        finish=finish,
    )


def best_heuristic(
    instance: Instance,
    dt: float,
    interference: Interference,
    policies: tuple[str, ...] = NON_PREEMPTIVE,
) -> HeuristicRun:
    """The run with the lowest total JCT among ``policies`` (ties: first in the list)."""
    runs = [run_heuristic(instance, name, dt, interference) for name in policies]
    return min(runs, key=lambda run: run.total_jct)
