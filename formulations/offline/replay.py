"""Re-score a schedule: replay it with the ``planned`` policy in the simulator.

The offline model never trusts its own objective: every schedule it returns is replayed here, at
the model's slot length as the tick (docs/formulations.md §2.1, §2.9).
"""

from __future__ import annotations

from sjfbsbf.core.errors import FeasibilityError
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.policies.planned import PlanError, Planned, Schedule
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import SchedulingError, simulate

#: Decision interval of the simulator's default (s); offline runs use max(this, dt).
POLICY_INTERVAL_S = 60.0


def interval_for(dt: float) -> float:
    """Decision interval for simulations at tick ``dt`` (s): the default 60 s, or dt if coarser.

    The simulator asks the policy at the first tick at or after every interval boundary; an
    interval shorter than the tick is refused, so slots coarser than 60 s use the slot itself
    (docs/formulations.md §2.1).
    """
    return max(POLICY_INTERVAL_S, dt)


def replay(
    instance: Instance,
    schedule: Schedule,
    dt: float,
    interference: Interference | None = None,
    *,
    record_segments: bool = False,
) -> SimResult:
    """Simulate ``schedule`` (one planned start per job) at tick ``dt``.

    Raises
    ------
    sjfbsbf.policies.planned.PlanError
        If a planned start is infeasible at its tick.
    sjfbsbf.core.errors.FeasibilityError
        If the feasibility checker rejects a decision.
    """
    return simulate(
        instance,
        Planned(schedule),
        dt=dt,
        interval=interval_for(dt),
        interference=interference,
        record_segments=record_segments,
    )


def replay_value(
    instance: Instance, schedule: Schedule, dt: float, model: Interference
) -> tuple[float | None, dict[int, float]]:
    """Simulated average JCT and finish times of a schedule; ``None`` if it cannot run."""
    try:
        result = replay(instance, schedule, dt, model)
    except (PlanError, FeasibilityError, SchedulingError):
        return None, {}
    jobs = result.jobs
    finish = {int(j): float(f) for j, f in zip(jobs["job_id"], jobs["finish"], strict=True)}
    return float(jobs["jct"].mean()), finish
