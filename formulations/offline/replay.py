"""Re-score a schedule: replay it with the ``planned`` policy in the simulator (DESIGN §4.3)."""

from __future__ import annotations

from sjfbsbf.interference import Interference
from sjfbsbf.model import Instance
from sjfbsbf.policies.planned import Planned, Schedule
from sjfbsbf.result import SimResult
from sjfbsbf.simulator import simulate


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
    sjfbsbf.errors.FeasibilityError
        If the feasibility checker rejects a decision.
    """
    return simulate(
        instance,
        Planned(schedule),
        dt=dt,
        interference=interference,
        record_segments=record_segments,
    )
