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
        free = view.free_by_node()
        per_node = view.cluster.gpus_per_node
        hosts = self._hosts(view, set(preempts))
        starts: list[Start] = []
        for job_id in view.pending():
            gpus = view.job(job_id).gpus
            placement = place_on_free(free, gpus)
            if placement is not None:
                take(free, placement, per_node)
                starts.append(Start(job_id, placement))
                self._counts["alone"] += 1
                continue
            host = self._pick_host(view, job_id, hosts)
            if host is None:
                break  # strict FIFO: the head waits, and so do the jobs behind it
            hosts.remove(host)
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

    @staticmethod
    def _hosts(view: ClusterView, leaving: set[int]) -> list[int]:
        """Running jobs alone on all their GPUs (not being unpacked), by (arrival, id)."""
        return [j for j in view.running() if j not in leaving and not view.is_shared(j)]

    def _pick_host(self, view: ClusterView, job_id: int, hosts: list[int]) -> int | None:
        """The host with the lowest utilisation among those with the job's GPU count, room in
        memory on every GPU, a pair the sharing rule allows and not known to hurt; ties by id."""
        info = view.job(job_id)
        mem = view.memory_gb(job_id, 1)
        capacity = view.cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB
        rule = view.sharing_rule
        mine = view.occupant(job_id, 1)
        best: tuple[float, int] | None = None
        for host in hosts:
            if view.job(host).gpus != info.gpus:
                continue
            if self._pair_key(view, job_id, host) in self._bad_pairs:
                continue
            placement = view.placement(host)
            assert placement is not None
            if any(view.gpu_memory_used(g) + mem > capacity for g in placement):
                continue
            theirs = view.occupant(host, view.accumulation(host))
            if rule is not None and not rule(mine, theirs):
                continue
            # Utilisation stand-in: the host's profiled GPU utilisation at its micro-batch
            # (the occupant's util(b), docs/model.md §3), not a measured one.
            key = (theirs.sensitivity, host)
            if best is None or key < best:
                best = key
        return None if best is None else best[1]

    def stats(self) -> dict[str, Any]:
        """Starts alone, packs, packs kept / unpacked after observation, packs that ended
        before their check, and the model pairs learnt to hurt."""
        return {**self._counts, "bad_pairs": sorted("+".join(p) for p in self._bad_pairs)}
