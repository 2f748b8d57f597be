"""``sjf``: shortest exclusive duration first, exclusive, non-preemptive, with backfilling."""

from __future__ import annotations

from typing import Any

import numpy as np

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


def sjf_order(view: ClusterView) -> list[int]:
    """Pending jobs by (exclusive duration at the full batch on the fewest nodes, id)."""
    pending = view.pending()
    ids = np.array(pending, dtype=np.int64)
    return ids[np.lexsort((ids, view.exclusive_durations(pending)))].tolist()


def start_exclusive(view: ClusterView, order: list[int], free: list[list[int]]) -> list[Start]:
    """Start, in ``order``, every job that fits on idle GPUs, skipping those that do not.

    ``free`` (idle GPUs per node) is updated in place.
    """
    starts = []
    idle = sum(len(node) for node in free)
    per_node = view.cluster.gpus_per_node
    for job_id in order:
        if idle == 0:  # nothing fits any more
            break
        gpus = view.job(job_id).gpus
        if gpus > idle:
            continue
        placement = place_on_free(free, gpus)
        assert placement is not None  # enough idle GPUs always give a placement
        take(free, placement, per_node)
        starts.append(Start(job_id, placement))
        idle -= gpus
    return starts


class Sjf:
    """Non-preemptive SJF with backfilling (a job that does not fit is skipped, no reservation)."""

    name = "sjf"
    preemptive = False
    sharing = False

    def decide(self, view: ClusterView) -> Decision:
        """Start the shortest pending jobs that fit."""
        return Decision(tuple(start_exclusive(view, self.pending_order(view), view.free_by_node())))

    def pending_order(self, view: ClusterView) -> list[int]:
        """The pending jobs in the order they are started: SJF (a subclass may rank them
        otherwise, e.g. the offline incumbent search)."""
        return sjf_order(view)

    def stats(self) -> dict[str, Any]:
        """No statistics."""
        return {}
