"""A test-only policy that sets up a cluster state by hand and lets a test look at it.

:class:`Probe` starts the jobs of its ``plan`` on fixed GPUs and accumulation factors as soon as
they are pending (like ``tests/sim/hand_cases.PlannedSharing``), and at the first decision at or
after ``at`` calls ``look(view)`` and keeps what it returns in :attr:`Probe.seen`. Jobs outside
the plan then run alone on the lowest idle GPUs, in id order, so the run ends. Tests use it to
put hosts exactly where they want them and then ask a policy's building blocks (its board, its
plan, its waiting time) what they make of that state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import ClusterView


class Probe:
    """Start ``plan`` (job id -> (GPU ids, accumulation)); call ``look`` once at time ``at``."""

    name = "test-probe"
    preemptive = False
    sharing = True

    def __init__(
        self,
        plan: dict[int, tuple[tuple[int, ...], int]],
        at: float,
        look: Callable[[ClusterView], Any],
    ) -> None:
        self.plan = plan
        self.at = at
        self.look = look
        self.seen: Any = None
        self.looked_at: float | None = None

    def decide(self, view: ClusterView) -> Decision:
        if self.looked_at is None and view.time >= self.at:
            self.looked_at = view.time
            self.seen = self.look(view)
        starts = [
            Start(j, self.plan[j][0], self.plan[j][1]) for j in view.pending() if j in self.plan
        ]
        if self.looked_at is not None:
            busy = {g for start in starts for g in start.gpus}
            idle = [g for g, r in enumerate(view.residents()) if not r and g not in busy]
            for j in sorted(view.pending()):
                gpus = view.job(j).gpus
                if j not in self.plan and gpus <= len(idle):
                    starts.append(Start(j, tuple(idle[:gpus]), 1))
                    idle = idle[gpus:]
        return Decision(tuple(starts))

    def stats(self) -> dict[str, Any]:
        return {}


def look_at(
    instance: Instance,
    plan: dict[int, tuple[tuple[int, ...], int]],
    at: float,
    look: Callable[[ClusterView], Any],
    interference: Interference | None = None,
) -> Any:
    """Simulate ``instance`` under a :class:`Probe` and return what ``look`` saw at ``at``.

    The probe must be asked at ``at`` exactly (make a job arrive then): the test's hand numbers
    are for that time.
    """
    probe = Probe(plan, at, look)
    simulate(instance, probe, interference=interference)
    assert probe.looked_at == at, f"probe looked at {probe.looked_at}, not {at}"
    return probe.seen
