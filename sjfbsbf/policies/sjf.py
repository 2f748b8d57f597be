"""``sjf``: shortest exclusive duration first, exclusive, non-preemptive, with backfilling."""

from __future__ import annotations

from typing import Any

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


def sjf_order(view: ClusterView) -> list[int]:
    """Pending jobs by (exclusive duration at the full batch on the fewest nodes, id)."""
    return sorted(view.pending(), key=lambda j: (view.exclusive_duration(j), j))


def start_exclusive(view: ClusterView, order: list[int], free: list[list[int]]) -> list[Start]:
    """Start, in ``order``, every job that fits on idle GPUs, skipping those that do not.

    ``free`` (idle GPUs per node) is updated in place.
    """
    starts = []
    for job_id in order:
        placement = place_on_free(free, view.job(job_id).gpus)
        if placement is not None:
            take(free, placement)
            starts.append(Start(job_id, placement))
    return starts


class Sjf:
    """Non-preemptive SJF with backfilling (a job that does not fit is skipped, no reservation)."""

    name = "sjf"
    preemptive = False
    sharing = False

    def decide(self, view: ClusterView) -> Decision:
        """Start the shortest pending jobs that fit."""
        return Decision(tuple(start_exclusive(view, sjf_order(view), view.free_by_node())))

    def stats(self) -> dict[str, Any]:
        """No statistics."""
        return {}
