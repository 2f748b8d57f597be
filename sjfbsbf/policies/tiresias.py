"""``tiresias``: discretised two-dimensional least-attained-service (2D-LAS), preemptive.

Defaults follow the public Tiresias simulator (``dlas-gpu``): queues split at 3,250 and 7,200
GPU-seconds of attained service, FIFO inside a queue, preemption only across queues, starvation
promotion off.
"""

from __future__ import annotations

import bisect
from typing import Any

from sjfbsbf.policies.priority import preemptive_decision
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.view import ClusterView


class Tiresias:
    """Discretised 2D-LAS.

    Parameters
    ----------
    thresholds
        Attained GPU-service (GPU-seconds) at which a job moves to the next queue.
    starvation_limit
        ``None`` (default) disables promotion. Otherwise a waiting job that has run before and
        has waited (since it was last preempted) at least ``starvation_limit`` × its executed
        wall time is promoted to queue 0. Promotion resets the service the queues count (its
        total attained service is kept for reporting), so it must earn the first threshold
        again before it can be demoted: this is what keeps a promoted job from being preempted
        again at once (the thrashing a naive rule shows).
    """

    name = "tiresias"
    preemptive = True
    sharing = False

    def __init__(
        self,
        thresholds: tuple[float, ...] = (3250.0, 7200.0),
        starvation_limit: float | None = None,
    ) -> None:
        if list(thresholds) != sorted(thresholds) or any(x <= 0 for x in thresholds):
            raise ValueError("thresholds must be positive and increasing")
        if starvation_limit is not None and starvation_limit <= 0:
            raise ValueError("starvation_limit must be positive")
        self.thresholds = tuple(thresholds)
        self.starvation_limit = starvation_limit
        self._baseline: dict[int, float] = {}  # service not counted by the queues (promotion)
        self._stopped_at: dict[int, float] = {}
        self._promotions = 0
        self._preemptions = 0

    def queue(self, view: ClusterView, job_id: int) -> int:
        """Queue index of a job (0 = highest priority)."""
        service = view.attained_service(job_id) - self._baseline.get(job_id, 0.0)
        return bisect.bisect_right(self.thresholds, service)

    def decide(self, view: ClusterView) -> Decision:
        """Rank by (queue, running before waiting, arrival, id) and run the best that fit."""
        if self.starvation_limit is not None:
            self._promote(view)
        running = view.running()
        pending = view.pending()
        key = {j: (self.queue(view, j), 0, view.job(j).arrival, j) for j in running}
        key.update({j: (self.queue(view, j), 1, view.job(j).arrival, j) for j in pending})
        decision = preemptive_decision(view, sorted(key, key=key.__getitem__))
        for job_id in decision.preempts:
            self._stopped_at[job_id] = view.time
        self._preemptions += len(decision.preempts)
        return Decision(decision.starts, decision.preempts, self._next_crossing(view, decision))

    def _promote(self, view: ClusterView) -> None:
        assert self.starvation_limit is not None
        for job_id in view.pending():
            stopped = self._stopped_at.get(job_id)
            if stopped is None or self.queue(view, job_id) == 0:
                continue
            executed = view.attained_service(job_id) / view.job(job_id).gpus
            if view.time - stopped >= self.starvation_limit * executed:
                self._baseline[job_id] = view.attained_service(job_id)
                self._promotions += 1

    def _next_crossing(self, view: ClusterView, decision: Decision) -> float | None:
        """Earliest time a running job crosses its next queue threshold."""
        running = (set(view.running()) - set(decision.preempts)) | {
            s.job_id for s in decision.starts
        }
        best: float | None = None
        for job_id in running:
            q = self.queue(view, job_id)
            if q >= len(self.thresholds):
                continue
            service = view.attained_service(job_id) - self._baseline.get(job_id, 0.0)
            at = view.time + (self.thresholds[q] - service) / view.job(job_id).gpus
            best = at if best is None else min(best, at)
        return best

    def stats(self) -> dict[str, Any]:
        """Preemption and promotion counts."""
        return {"preemptions": self._preemptions, "promotions": self._promotions}
