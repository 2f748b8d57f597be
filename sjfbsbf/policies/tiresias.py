"""``tiresias``: discretised two-dimensional least-attained-service (2D-LAS), preemptive.

Defaults follow the public Tiresias simulator (``dlas-gpu``): queues split at 3,250 and 7,200
GPU-seconds of attained service, FIFO inside a queue, preemption only across queues, starvation
promotion off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sjfbsbf.policies.priority import ranked_decision
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.view import ClusterView, JobIds


class Tiresias:
    """Discretised two-dimensional least-attained-service (2D-LAS): queues by attained
    GPU-service, FIFO inside a queue, preempting across queues (preemptive).

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
        self._bounds = np.asarray(self.thresholds, dtype=float)  # for searchsorted, made once
        self.starvation_limit = starvation_limit
        self._baseline: dict[int, float] = {}  # service not counted by the queues (promotion)
        self._stopped_at: dict[int, float] = {}
        self._promotions = 0
        self._preemptions = 0

    def queue(self, view: ClusterView, job_id: int) -> int:
        """Queue index of a job (0 = highest priority)."""
        return int(self._queues(self._services(view, [job_id]))[0])

    def _queues(self, services: np.ndarray) -> np.ndarray:
        """Queue index of each counted service: the number of thresholds at or below it."""
        return np.searchsorted(self._bounds, services, side="right")

    def _services(self, view: ClusterView, job_ids: JobIds) -> np.ndarray:
        """Attained service the queues count (since promotion), per job."""
        services = view.attained_services(job_ids)
        if self._baseline:
            baseline = self._baseline
            services = services - np.array([baseline.get(int(j), 0.0) for j in job_ids])
        return services

    def decide(self, view: ClusterView) -> Decision:
        """Rank by (queue, running before waiting, arrival, id) and run the best that fit."""
        if self.starvation_limit is not None:
            self._promote(view)
        running = view.running()
        ids = np.array(running + view.pending(), dtype=np.int64)
        waiting = np.arange(len(ids)) >= len(running)
        services = self._services(view, ids)
        queues = self._queues(services)
        gpus = view.gpu_counts(ids)
        order = np.lexsort((ids, view.arrivals(ids), waiting, queues))
        decision, kept = ranked_decision(view, ids[order], ~waiting[order], gpus[order])
        for job_id in decision.preempts:
            self._stopped_at[job_id] = view.time
        self._preemptions += len(decision.preempts)
        # The kept jobs are the ones running after the decision.
        after = order[kept]
        wake = self._crossing(view.time, services[after], gpus[after], queues[after])
        return Decision(decision.starts, decision.preempts, wake)

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

    def _crossing(
        self, now: float, services: np.ndarray, gpus: np.ndarray, queues: np.ndarray
    ) -> float | None:
        """Earliest time one of the jobs with these counted services, GPU counts and queues
        crosses its next threshold (``None`` if all are in the last queue)."""
        below = queues < len(self.thresholds)
        if not below.any():
            return None
        thresholds = self._bounds[queues[below]]
        return float((now + (thresholds - services[below]) / gpus[below]).min())

    def stats(self) -> dict[str, Any]:
        """Preemption and promotion counts."""
        return {"preemptions": self._preemptions, "promotions": self._promotions}
