"""``fifo``: strict arrival order, exclusive, non-preemptive."""

from __future__ import annotations

from typing import Any

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


class Fifo:
    """Strict FIFO: jobs start in (arrival, id) order; a job that does not fit blocks the rest."""

    name = "fifo"
    preemptive = False
    sharing = False

    def decide(self, view: ClusterView) -> Decision:
        """Start the head of the queue while it fits."""
        free = view.free_by_node()
        per_node = view.cluster.gpus_per_node
        starts = []
        for job_id in view.pending():
            placement = place_on_free(free, view.job(job_id).gpus)
            if placement is None:
                break
            take(free, placement, per_node)
            starts.append(Start(job_id, placement))
        return Decision(tuple(starts))

    def stats(self) -> dict[str, Any]:
        """No statistics."""
        return {}
