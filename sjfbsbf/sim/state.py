"""Mutable simulator state and the read-only view policies get of it (docs/model.md §4).

Per-job quantities live in numpy arrays indexed by the job's position in ``instance.jobs``;
progress is kept lazily: a job's progress at time t is its progress at ``last`` plus the time
since then (after any restart overhead) divided by its current step time × slowdown, so nothing is
rebuilt per tick. Only the simulator mutates :class:`SimState`; policies see it through
:class:`~sjfbsbf.sim.view.ClusterView` (``sjfbsbf.sim.view``).
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping

import numpy as np

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Interference, Occupant, occupant
from sjfbsbf.core.model import Instance
from sjfbsbf.core.perf import exclusive_duration, work
from sjfbsbf.core.perf import step_time as solo_step_time
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.ticks import tick_ceil as tick_ceil  # re-exported for older imports

FUTURE, PENDING, RUNNING, FINISHED = 0, 1, 2, 3


class SimState:
    """Everything the simulator tracks. Mutated only by :mod:`sjfbsbf.sim.simulator`."""

    def __init__(
        self, instance: Instance, interference: Interference, restart_overhead: float
    ) -> None:
        self.instance = instance
        self.cluster = instance.cluster
        self.interference = interference
        #: Overhead (s) a preempted job pays when it resumes, as charged: rounded up to ticks.
        self.restart_overhead = restart_overhead
        catalog = get_catalog(instance.catalog)
        generic = generic_profile(catalog)
        self.profiles: list[ModelProfile] = [
            generic if j.model is None else catalog[j.model] for j in instance.jobs
        ]
        n = instance.num_jobs
        self.ids = np.array([j.id for j in instance.jobs], dtype=np.int64)
        self.id_list: list[int] = [j.id for j in instance.jobs]
        self.index: Mapping[int, int] = {j.id: i for i, j in enumerate(instance.jobs)}
        #: Whether job ids are the indices 0..n-1 (then the id -> index map is the identity).
        self.ids_are_indices = self.id_list == list(range(n))
        self.arrival = np.array([j.arrival for j in instance.jobs], dtype=float)
        self.gpus = np.array([j.gpus for j in instance.jobs], dtype=np.int64)
        self.work = np.array([work(j) for j in instance.jobs], dtype=float)
        self.exclusive = np.array(
            [
                exclusive_duration(j, p, self.cluster)
                for j, p in zip(instance.jobs, self.profiles, strict=True)
            ]
        )
        self.status = np.zeros(n, dtype=np.int8)
        self.done = np.zeros(n)  # steps done at time `last`
        self.last = np.zeros(n)  # time progress/attained/shared were last settled
        self.resume_at = np.zeros(n)  # progress resumes here (restart overhead)
        self.step = np.full(n, np.nan)  # solo step time at current placement
        self.xi = np.ones(n)  # current slowdown
        self.accumulation = np.ones(n, dtype=np.int64)
        self.first_start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.attained = np.zeros(n)  # GPU-seconds held
        self.shared_s = np.zeros(n)  # seconds with at least one shared GPU
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.version = np.zeros(n, dtype=np.int64)  # bumps whenever a job's rate changes
        self.placement: list[tuple[int, ...] | None] = [None] * n
        self.partners: list[set[int]] = [set() for _ in range(n)]
        self.occupants: list[Occupant | None] = [None] * n
        self.gpu_jobs: list[list[int]] = [[] for _ in range(self.cluster.num_gpus)]
        self.gpu_mem = np.zeros(self.cluster.num_gpus)
        # Kept incrementally by place/remove, so that a decision does not rescan every GPU:
        # idle GPU ids per node (ascending) and the running jobs alone on all their GPUs.
        per = self.cluster.gpus_per_node
        self.idle_by_node: list[list[int]] = [
            list(range(n * per, (n + 1) * per)) for n in range(self.cluster.nodes)
        ]
        self.idle_count = self.cluster.num_gpus
        self.single: set[int] = set()  # GPUs holding exactly one job
        self.hosts: set[int] = set()
        self.pending: set[int] = set()
        self.running: set[int] = set()
        self.busy_gpus = 0
        self.shared_gpus = 0
        self.finished_count = 0
        #: Jobs admitted so far by the simulator, in index order (jobs are sorted by arrival):
        #: a job of a lower index has arrived. A fast path of the policies' view; a state built
        #: by hand leaves it at 0 and the view then reads ``status``.
        self.admitted = 0
        #: Internal indices of finished jobs in the order they were released (what an online
        #: duration predictor learns from, docs/model.md §4.1).
        self.finished_order: list[int] = []
        #: Bumped whenever the set of waiting or running jobs, a placement or an accumulation
        #: changes (arrival, release, applied decision); equal epochs mean only time moved.
        self.epoch = 0
        #: Constant-rate progress segments (job index, start, end, seconds per step), if kept.
        self.segments: list[tuple[int, float, float, float]] | None = []
        #: Closed holdings of GPUs (job index, GPUs, start, end, accumulation), if kept (with
        #: the segments); ``held`` maps a running job to the start and accumulation of its open
        #: one. A holding ends when the job leaves its GPUs or changes its accumulation.
        self.holdings: list[tuple[int, tuple[int, ...], float, float, int]] | None = []
        self.held: dict[int, tuple[float, int]] = {}

    # -- lazily kept quantities -------------------------------------------------------------
    def progress_at(self, i: int, t: float) -> float:
        """Steps done by job ``i`` at time ``t`` (>= its last settle)."""
        if self.status[i] != RUNNING:
            return float(self.done[i])
        start = max(self.last[i], self.resume_at[i])
        if t <= start:
            return float(self.done[i])
        return float(self.done[i] + (t - start) / (self.step[i] * self.xi[i]))

    def predicted_finish(self, i: int) -> float:
        """Finish time of running job ``i`` if its rate stays as it is now."""
        start = max(self.last[i], self.resume_at[i])
        return float(start + (self.work[i] - self.done[i]) * self.step[i] * self.xi[i])

    def is_shared(self, i: int) -> bool:
        """Whether running job ``i`` shares at least one of its GPUs."""
        placement = self.placement[i]
        return placement is not None and any(len(self.gpu_jobs[g]) > 1 for g in placement)

    def settle(self, i: int, t: float) -> None:
        """Bring job ``i``'s progress, attained service and shared time up to time ``t``."""
        if self.status[i] == RUNNING and t > self.last[i]:
            if self.segments is not None:
                start = max(self.last[i], self.resume_at[i])
                if t > start:
                    self.segments.append(
                        (i, float(start), float(t), float(self.step[i] * self.xi[i]))
                    )
            self.done[i] = min(self.progress_at(i, t), self.work[i])
            elapsed = t - self.last[i]
            self.attained[i] += elapsed * self.gpus[i]
            if self.is_shared(i):
                self.shared_s[i] += elapsed
        self.last[i] = t

    # -- placement -----------------------------------------------------------------------------
    def slowdown_of(self, i: int) -> float:
        """Slowdown of job ``i``: max over its GPUs of the co-resident's interference."""
        placement = self.placement[i]
        occ = self.occupants[i]
        assert placement is not None and occ is not None
        xi = 1.0
        seen: set[int] = set()
        for g in placement:
            for k in self.gpu_jobs[g]:
                if k != i and k not in seen:
                    seen.add(k)
                    other = self.occupants[k]
                    assert other is not None
                    xi = max(xi, self.interference.slowdown(occ, other))
        return xi

    def place(self, i: int, gpus: tuple[int, ...], accumulation: int, t: float) -> set[int]:
        """Put job ``i`` on ``gpus``; returns the co-residents whose rate must be refreshed."""
        job = self.instance.jobs[i]
        profile = self.profiles[i]
        self.placement[i] = tuple(sorted(gpus))
        self.accumulation[i] = accumulation
        if self.holdings is not None:
            self.held[i] = (t, accumulation)
        self.occupants[i] = occupant(job, profile, accumulation)
        self.step[i] = solo_step_time(
            job, profile, accumulation, self.cluster.spans_nodes(gpus), self.cluster
        )
        mem = self.occupants[i].memory_gb  # type: ignore[union-attr]
        touched = {k for g in gpus for k in self.gpu_jobs[g]}
        for k in touched:  # settle at the old rates before the sharing changes
            self.settle(k, t)
        self.settle(i, t)
        per = self.cluster.gpus_per_node
        for g in gpus:
            residents = self.gpu_jobs[g]
            if not residents:
                self.busy_gpus += 1
                self.idle_by_node[g // per].remove(g)
                self.idle_count -= 1
                self.single.add(g)
            elif len(residents) == 1:
                self.shared_gpus += 1
                self.single.discard(g)
            for k in residents:
                self.partners[i].add(k)
                self.partners[k].add(i)
            residents.append(i)
            self.gpu_mem[g] += mem
        self.hosts -= touched
        if not touched:
            self.hosts.add(i)
        return touched

    def remove(self, i: int, t: float) -> set[int]:
        """Take job ``i`` off its GPUs; returns the co-residents whose rate must be refreshed."""
        placement = self.placement[i]
        assert placement is not None
        occ = self.occupants[i]
        assert occ is not None
        touched = {k for g in placement for k in self.gpu_jobs[g] if k != i}
        for k in touched:  # settle at the old rates before the sharing changes
            self.settle(k, t)
        per = self.cluster.gpus_per_node
        for g in placement:
            residents = self.gpu_jobs[g]
            residents.remove(i)
            if not residents:
                self.busy_gpus -= 1
                self.gpu_mem[g] = 0.0
                insort(self.idle_by_node[g // per], g)
                self.idle_count += 1
                self.single.discard(g)
            else:
                self.gpu_mem[g] -= occ.memory_gb
                self.shared_gpus -= 1
                self.single.add(g)
        self._close_holding(i, placement, t)
        self.placement[i] = None
        self.hosts.discard(i)
        for k in touched:
            if self._alone(k):
                self.hosts.add(k)
        return touched

    def _alone(self, i: int) -> bool:
        """Whether job ``i`` is the only job on every one of its GPUs."""
        placement = self.placement[i]
        return placement is not None and all(len(self.gpu_jobs[g]) == 1 for g in placement)

    def retune(self, i: int, accumulation: int, t: float) -> set[int]:
        """Change running job ``i``'s accumulation factor in place (same GPUs).

        Returns the co-residents whose rate must be refreshed.
        """
        placement = self.placement[i]
        old = self.occupants[i]
        assert placement is not None and old is not None
        touched = {k for g in placement for k in self.gpu_jobs[g] if k != i}
        for k in touched:
            self.settle(k, t)
        self.settle(i, t)
        job = self.instance.jobs[i]
        profile = self.profiles[i]
        new = occupant(job, profile, accumulation)
        self.occupants[i] = new
        self._close_holding(i, placement, t)
        if self.holdings is not None:
            self.held[i] = (t, accumulation)
        self.accumulation[i] = accumulation
        self.step[i] = solo_step_time(
            job, profile, accumulation, self.cluster.spans_nodes(placement), self.cluster
        )
        for g in placement:
            self.gpu_mem[g] += new.memory_gb - old.memory_gb
        return touched

    def _close_holding(self, i: int, placement: tuple[int, ...], t: float) -> None:
        """Record job ``i``'s open holding of ``placement`` as ending at ``t`` (if kept)."""
        if self.holdings is not None:
            start, accumulation = self.held.pop(i)
            self.holdings.append((i, placement, start, t, accumulation))

    def memory_used(self) -> float:
        """Total GPU memory in use (GB)."""
        return float(self.gpu_mem.sum())
