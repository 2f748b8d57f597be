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
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies.benefit import pair_benefit
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


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


ONE_GPU = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
TWO_GPUS = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)
THREE_GPUS = Cluster(nodes=1, gpus_per_node=3, gpu_mem_gb=12.0)


def vgg16(job_id: int, arrival: float, iterations: int, gpus: int = 1) -> Job:
    """A vgg16 job at its full batch of 16."""
    return Job(job_id, arrival, gpus, "vgg16", 16, iterations)


def expected_benefit(
    view: ClusterView,
    pending: int,
    s: int,
    host: int,
    host_s: int,
    *,
    wait: float | None = None,
    retune: bool = False,
) -> float:
    """The documented pair benefit (docs/model.md §6) of ``pending`` at option s beside
    ``host`` at ``host_s``, from the view's exclusive times and the model's slowdowns."""
    model = view.interference
    occ_a, occ_b = view.occupant(pending, s), view.occupant(host, host_s)
    return float(
        pair_benefit(
            view.remaining_exclusive(pending, 1),
            view.remaining_exclusive(pending, s),
            view.remaining_exclusive(host, host_s),
            model.slowdown(occ_a, occ_b),
            model.slowdown(occ_b, occ_a),
            wait=wait,
            retune=retune,
        )
    )
