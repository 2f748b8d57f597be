"""What ``solve_offline`` returns: a schedule, its model value, its replay and a bound.

Each number has one meaning: ``objective`` is the model's average JCT of the schedule,
``replayed_avg_jct`` the simulator's (the number every comparison uses), ``bound`` a lower bound on
every schedule's simulated average JCT. The result re-scores itself: :meth:`OfflineResult.replay`
simulates its schedule again and :meth:`OfflineResult.rescore` gives that simulation's average JCT
(docs/formulations.md §2, §2.9).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from formulations.offline.gap import PolicyGap, gap_interval
from formulations.offline.replay import interval_for, replay
from formulations.result import SolveStatus
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.policies.planned import Schedule
from sjfbsbf.sim.result import SimResult


@dataclass(frozen=True)
class OfflineResult:
    """The outcome of an offline solve (docs/formulations.md §2.9).

    Attributes
    ----------
    status
        ``OPTIMAL`` when the returned schedule is proven optimal (within the model tolerance),
        ``FEASIBLE`` for a schedule without that proof, ``INFEASIBLE`` / ``TIME_LIMIT`` /
        ``UNKNOWN`` without a schedule.
    schedule
        One planned start per job, by job id (``None`` without one): replayed by the ``planned``
        policy.
    objective
        The model's average JCT of ``schedule`` (s): ``None`` when the schedule came from a
        heuristic (``info["source"]``) or there is none. Brute force's model is the simulator,
        so there it equals ``replayed_avg_jct``.
    replayed_avg_jct
        The simulator's average JCT of ``schedule`` (s), the value every comparison uses
        (``None`` without a schedule).
    bound
        A proven lower bound on every schedule's simulated average JCT (s), up to the model
        tolerance (``None`` if unknown).
    runtime_s
        Solver time over all model solves (brute force: the whole enumeration).
    solver
        ``"cpsat"``, ``"milp"`` or ``"brute"``.
    dt
        Slot length = the simulator's tick of the replay (s).
    info
        Details: ``source``, ``rounds``, ``tolerance_s``, ``model_finish``, ``replay_finish``,
        ``limit``, ``horizon``, the backend's sizes and status string (see ``solve_offline``).
    instance, interference
        What the schedule is replayed on (:meth:`replay`).
    """

    status: SolveStatus
    schedule: Schedule | None
    objective: float | None
    replayed_avg_jct: float | None
    bound: float | None
    runtime_s: float
    solver: str
    dt: float
    info: dict[str, Any] = field(default_factory=dict)
    instance: Instance | None = field(default=None, repr=False, compare=False)
    interference: Interference | None = field(default=None, repr=False, compare=False)

    @property
    def gap(self) -> float | None:
        """Relative gap between the replayed average JCT and the bound, if both are known."""
        if self.replayed_avg_jct is None or self.bound is None:
            return None
        scale = max(abs(self.replayed_avg_jct), 1e-9)
        return abs(self.replayed_avg_jct - self.bound) / scale

    def replay(self, *, record_segments: bool = False) -> SimResult:
        """Simulate the schedule again (``planned`` policy, tick ``dt``).

        Raises
        ------
        ValueError
            Without a schedule or an instance to replay it on.
        """
        if self.schedule is None or self.instance is None:
            raise ValueError(f"no schedule to replay (status {self.status.value})")
        return replay(
            self.instance,
            self.schedule,
            self.dt,
            self.interference,
            record_segments=record_segments,
        )

    def rescore(self) -> float:
        """The simulator's average JCT of the schedule, recomputed: equals ``replayed_avg_jct``."""
        return float(self.replay().jobs["jct"].mean())

    def policy_gap(self, policy: str, **options: Any) -> PolicyGap:
        """Simulate ``policy`` (with ``options``) on the result's instance, at its tick and
        decision interval (:func:`~formulations.offline.replay.interval_for`) and interference,
        and bound its gap to the optimum: the interval of :func:`~formulations.offline.gap.
        gap_interval` between this result's schedule, its bound and its tolerance, as
        ``sjfbsbf solve`` prints it.

        Raises
        ------
        ValueError
            Without an instance, or for an unknown policy or option.
        """
        from sjfbsbf.policies import make_policy
        from sjfbsbf.sim.simulator import simulate

        if self.instance is None:
            raise ValueError("no instance to simulate the policy on")
        run = simulate(
            self.instance,
            make_policy(policy, **options),
            dt=self.dt,
            interval=interval_for(self.dt),
            interference=self.interference,
        )
        tolerance = float(self.info.get("tolerance_s") or 0.0)
        low, high = gap_interval(run.avg_jct, self.replayed_avg_jct, self.bound, tolerance)
        return PolicyGap(policy, run.avg_jct, low, high, run)
