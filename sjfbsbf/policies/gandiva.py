"""``gandiva``: FIFO with Gandiva's packing and introspection (Xiao et al., OSDI 2018).

A reconstruction in this toolkit's model (docs/model.md §5, "gandiva"): jobs start in FIFO order
on idle GPUs; a job that would wait is packed onto the GPUs of a running job with the same GPU
count that is alone on them, where memory fits, the lowest-utilisation host first. After an
observation period the pair's *observed* progress rates are compared with running alone in turn:
when 1/ξ_a + 1/ξ_b < 1 (packing hurts) the newer job is unpacked (preempted: back to the queue,
paying the restart overhead on its next start) and the pair of models is never packed again.

Gandiva learns only by observing: it reads observed progress (``view.progress``) and solo step
times, never ``view.slowdown``, ``predicted_finish`` or the interference belief.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView

#: Float slack of the introspection test: a pair is unpacked when its observed combined rate is
#: below 1 − this (an exact tie, e.g. time-slicing's ξ = 2 for both, is kept).
RATE_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class _Watch:
    """A pack under observation: the newcomer, its host, when and from what progress."""

    newcomer: int
    host: int
    packed_at: float
    newcomer_from: float  # when the newcomer starts to work (after any restart overhead)
    newcomer_progress: float
    host_progress: float
    check_at: float


class _Hosts:
    """The running jobs alone on all their GPUs (not being unpacked), read once per decision:
    ids, GPU counts, the least free memory over their GPUs, their occupants and utilisation
    (the stand-in: util(b) at their micro-batch, docs/model.md §5), and which were taken."""

    def __init__(self, view: ClusterView, leaving: set[int]) -> None:
        ids = [j for j in view.hosts() if j not in leaving]
        self.ids = np.asarray(ids, dtype=np.int64)
        self.gpus = view.gpu_counts(ids) if ids else np.zeros(0, dtype=np.int64)
        self.free_gb = view.least_free_memory(ids) if ids else np.zeros(0)
        self.occupants = view.running_occupants(ids) if ids else []
        self.util = np.array([o.sensitivity for o in self.occupants], dtype=float)
        self.taken = np.zeros(len(ids), dtype=bool)


class Gandiva:
    """FIFO, exclusive when GPUs are idle, packing with introspection (preemptive, sharing).

    Parameters
    ----------
    period
        Observation period (s) after a pack before its rates are compared: one decision
        interval (60 s) by default. It starts when the newcomer starts to work, i.e. after the
        restart overhead of a resumed job.
    """

    name = "gandiva"
    preemptive = True
    sharing = True

    def __init__(self, period: float = 60.0) -> None:
        if not period > 0 or period == float("inf"):
            raise ValueError("period must be positive and finite")
        self.period = float(period)
        self._watches: dict[int, _Watch] = {}  # by newcomer
        self._bad_pairs: set[tuple[str, str]] = set()
        self._counts = {"alone": 0, "packed": 0, "kept": 0, "unpacked": 0, "dissolved": 0}

    def decide(self, view: ClusterView) -> Decision:
        """Check packs whose observation period ended, then start the FIFO queue's head jobs:
        alone if GPUs are idle, else packed, until one can do neither."""
        preempts = self._introspect(view)
        starts: list[Start] = []
        pending = view.pending()
        if pending:
            free = view.free_by_node()
            idle = view.free_count
            per_node = view.cluster.gpus_per_node
            hosts: _Hosts | None = None  # read once, when the first job does not fit
            for job_id in pending:
                gpus = view.job(job_id).gpus
                placement = place_on_free(free, gpus) if gpus <= idle else None
                if placement is not None:
                    take(free, placement, per_node)
                    idle -= gpus
                    starts.append(Start(job_id, placement))
                    self._counts["alone"] += 1
                    continue
                if hosts is None:
                    hosts = _Hosts(view, set(preempts))
                host = self._pick_host(view, job_id, hosts)
                if host is None:
                    break  # strict FIFO: the head waits, and so do the jobs behind it
                placement = view.placement(host)
                assert placement is not None
                starts.append(Start(job_id, placement))
                self._watch(view, job_id, host)
                self._counts["packed"] += 1
        wake = min((w.check_at for w in self._watches.values()), default=None)
        return Decision(tuple(starts), preempts=tuple(preempts), wake_at=wake)

    # -- introspection ------------------------------------------------------------------------
    def _introspect(self, view: ClusterView) -> list[int]:
        """Judge every pack whose period ended: keep it, or unpack the newcomer."""
        now = view.time
        preempts: list[int] = []
        for newcomer, watch in list(self._watches.items()):
            if not self._still_paired(view, watch):
                del self._watches[newcomer]  # one of them finished (or left): nothing to judge
                self._counts["dissolved"] += 1
                continue
            if now < watch.check_at:
                continue
            del self._watches[newcomer]
            rate = self._observed_rate(view, newcomer, watch.newcomer_progress, watch.newcomer_from)
            rate += self._observed_rate(view, watch.host, watch.host_progress, watch.packed_at)
            if rate < 1.0 - RATE_TOLERANCE:
                preempts.append(newcomer)
                self._bad_pairs.add(self._pair_key(view, newcomer, watch.host))
                self._counts["unpacked"] += 1
            else:
                self._counts["kept"] += 1
        return preempts

    @staticmethod
    def _still_paired(view: ClusterView, watch: _Watch) -> bool:
        """Both jobs still run, on the same GPUs (neither finished nor was preempted since)."""
        if not (view.is_running(watch.newcomer) and view.is_running(watch.host)):
            return False
        return view.placement(watch.newcomer) == view.placement(watch.host)

    @staticmethod
    def _observed_rate(view: ClusterView, job_id: int, progress: float, since: float) -> float:
        """Progress since ``since`` as a share of running alone: the work done × the solo step
        time ÷ the time it took (exactly 1/ξ: the simulator has no measurement noise)."""
        placement = view.placement(job_id)
        assert placement is not None
        step = view.step_time(
            job_id, view.accumulation(job_id), view.cluster.spans_nodes(placement)
        )
        return (view.progress(job_id) - progress) * step / (view.time - since)

    def _watch(self, view: ClusterView, newcomer: int, host: int) -> None:
        now = view.time
        owed = view.restart_overhead if view.preemptions(newcomer) > 0 else 0.0
        self._watches[newcomer] = _Watch(
            newcomer=newcomer,
            host=host,
            packed_at=now,
            newcomer_from=now + owed,
            newcomer_progress=view.progress(newcomer),
            host_progress=view.progress(host),
            check_at=now + owed + self.period,
        )

    # -- packing ------------------------------------------------------------------------------
    @staticmethod
    def _pair_key(view: ClusterView, a: int, b: int) -> tuple[str, str]:
        """The pair of models, in name order (a duration-only job is the model ``""``)."""
        first, second = sorted((view.job(a).model or "", view.job(b).model or ""))
        return first, second

    def _pick_host(self, view: ClusterView, job_id: int, hosts: _Hosts) -> int | None:
        """The host with the lowest utilisation among those with the job's GPU count, room in
        memory on every GPU, a pair the sharing rule allows and not known to hurt; ties by id.
        The host is taken (not offered again in this decision)."""
        need = view.job(job_id).gpus
        mem = view.memory_gb(job_id, 1)
        fits = (hosts.gpus == need) & (hosts.free_gb + MEMORY_TOLERANCE_GB >= mem) & ~hosts.taken
        candidates = np.flatnonzero(fits)
        if candidates.size == 0:
            return None
        rule = view.sharing_rule
        mine = view.occupant(job_id, 1)
        order = candidates[np.lexsort((hosts.ids[candidates], hosts.util[candidates]))]
        for k in order.tolist():
            host = int(hosts.ids[k])
            if self._pair_key(view, job_id, host) in self._bad_pairs:
                continue
            if rule is not None and not rule(mine, hosts.occupants[k]):
                continue
            hosts.taken[k] = True
            return host
        return None

    def stats(self) -> dict[str, Any]:
        """Starts alone, packs, packs kept / unpacked after observation, packs that ended
        before their check, and the model pairs learnt to hurt."""
        return {**self._counts, "bad_pairs": sorted("+".join(p) for p in self._bad_pairs)}
