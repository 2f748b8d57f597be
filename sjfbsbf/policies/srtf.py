"""``srtf``: shortest remaining (exclusive) time first, exclusive, preemptive."""

from __future__ import annotations

from typing import Any

import numpy as np

from sjfbsbf.policies.priority import preemptive_decision
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.view import ClusterView


class Srtf:
    """Preemptive SRTF: rank running and pending jobs by remaining exclusive time, then id.

    Remaining time is :meth:`~sjfbsbf.sim.state.ClusterView.remaining_exclusive` at the full batch
    on the fewest nodes (a property of the job, not of where it runs now, as sjf's order), plus
    the restart overhead still to pay: what is left of it for a running job, the whole of it (as
    the simulator charges it) for a preempted waiting job (docs/model.md §5).
    """

    name = "srtf"
    preemptive = True
    sharing = False

    def decide(self, view: ClusterView) -> Decision:
        """Run the jobs with the least remaining time that fit."""
        active = view.running() + view.pending()
        ids = np.array(active, dtype=np.int64)
        order = np.lexsort((ids, view.remaining_exclusives(active)))  # by (remaining, id)
        return preemptive_decision(view, ids[order])

    def stats(self) -> dict[str, Any]:
        """No statistics."""
        return {}
