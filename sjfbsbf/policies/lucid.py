"""``lucid``: Lucid's packing of compatible jobs (Hu et al., ASPLOS 2023), in this model.

A reconstruction of the public simulator of Lucid (``S-Lab-System-Group/Lucid``, ``simulation/``
at 63685a3, ``policy/lucid.py``; docs/model.md §5, "lucid"): jobs are ordered by estimated
duration × GPUs; each job in turn is first offered to a running job it may pack with (same GPU
count, alone on its GPUs, memory fits, sharing scores summing to at most 2, not more than twice
that job's priority), else placed alone on idle GPUs, else skipped (no head-of-line blocking). A
packed job is never unpacked or moved: when its partner finishes it runs alone on its GPUs.

The sharing score (0, 1, 2) of a job is Lucid's labelling rule applied to the interference
*belief*: the mean speed of the job (1/ξ) co-located with each reference model — the default
catalog's models at their testbed batch — below 0.85 gives 2, below 0.95 gives 1, else 0.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.interference import Occupant, occupant
from sjfbsbf.core.model import Job
from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView

#: Lucid's labelling thresholds on the mean co-located speed (``analyzer.py``): below the first
#: the score is 2, below the second 1, else 0.
SCORE_THRESHOLDS = (0.85, 0.95)
#: Largest sum of two jobs' sharing scores that may pack (``policy/lucid.py``).
MAX_SCORE_SUM = 2
#: A queued job packs only with a running job whose priority is at least half its own.
PRIORITY_RATIO = 2.0
#: Jobs with more GPUs are never packed (``policy/lucid.py``).
MAX_PACK_GPUS = 8


def reference_occupants() -> tuple[Occupant, ...]:
    """The reference co-runners of the sharing score: the default catalog's models at their
    testbed batch, full batch (Lucid labels a job by its speed next to a fixed benchmark set)."""
    catalog = get_catalog("default")
    return tuple(
        occupant(Job(0, 0.0, 1, model=name, batch=DEFAULT_BATCH[name], iterations=1), p, 1)
        for name, p in catalog.items()
    )


def sharing_score(speed: float) -> int:
    """Lucid's label of a mean co-located speed: 2 below 0.85, 1 below 0.95, else 0."""
    low, high = SCORE_THRESHOLDS
    return 2 if speed < low else 1 if speed < high else 0


@dataclass(slots=True)
class _Host:
    """A running job alone on its GPUs: its GPUs, the least free memory over them (GB), its
    priority, occupant and sharing score, and its place in the host order."""

    job_id: int
    placement: tuple[int, ...]
    free_gb: float
    priority: float
    occupant: Occupant
    score: int
    order: int = 0


class _HostTable:
    """Hosts by (GPU count, sharing score), each list in host order: (arrival, id), then the
    order started in this decision. The running hosts of a score are read the first time a job
    asks for that score (most decisions need few of them, or none)."""

    def __init__(self, policy: Lucid, view: ClusterView) -> None:
        ids = view.hosts()
        if ids:
            small = (view.gpu_counts(ids) <= MAX_PACK_GPUS).tolist()
            ids = [j for j, keep in zip(ids, small, strict=True) if keep]
        self._ids = ids
        self._policy = policy
        self._view = view
        self._levels: set[int] = set()
        self._added: list[_Host] = []
        self.lists: dict[tuple[int, int], list[_Host]] = {}
        self.count = len(ids)  # hosts not taken yet

    def candidates(self, gpus: int, score: int) -> list[_Host]:
        """The hosts with this GPU count and sharing score not taken yet, in host order."""
        if score not in self._levels:
            self._read(score)
        return self.lists.get((gpus, score), [])

    def _read(self, score: int) -> None:
        self._levels.add(score)
        view, policy = self._view, self._policy
        chosen = [(k, j) for k, j in enumerate(self._ids) if policy.score(view, j) == score]
        if chosen:
            ids = [j for _, j in chosen]
            priority = view.exclusive_durations(ids) * view.gpu_counts(ids)
            free_gb = view.least_free_memory(ids).tolist()
            occupants = view.running_occupants(ids)
            for n, (k, j) in enumerate(chosen):
                placement = view.placement(j)
                assert placement is not None
                host = _Host(j, placement, free_gb[n], float(priority[n]), occupants[n], score, k)
                self.lists.setdefault((len(placement), score), []).append(host)
        for host in self._added:
            if host.score == score:
                self.lists.setdefault((len(host.placement), score), []).append(host)

    def add(self, host: _Host) -> None:
        """A job started alone in this decision: a host for the jobs after it."""
        host.order = len(self._ids) + len(self._added)
        self._added.append(host)
        if host.score in self._levels:
            self.lists.setdefault((len(host.placement), host.score), []).append(host)
        self.count += 1

    def take(self, host: _Host) -> None:
        self.lists[(len(host.placement), host.score)].remove(host)
        self.count -= 1


class Lucid:
    """Estimated-duration × GPUs order; packing of compatible pairs first, else alone
    (non-preemptive, sharing).

    Parameters
    ----------
    pack_first
        ``True`` (default, Lucid's setting on every cluster but one): a job is offered to a
        compatible running job even when idle GPUs could hold it alone. ``False``: packing only
        for a job that does not fit on idle GPUs (the setting Lucid's simulator switches to on
        Venus when its workload predictor expects a quiet cluster).
    """

    name = "lucid"
    preemptive = False
    sharing = True

    def __init__(self, pack_first: bool = True) -> None:
        if not isinstance(pack_first, bool):
            raise ValueError("pack_first must be true or false")
        self.pack_first = pack_first
        self._references: tuple[Occupant, ...] | None = None
        self._scores: dict[Occupant, int] = {}
        self._job_scores: dict[int, int] = {}
        self._outcomes: Counter[str] = Counter()

    def score(self, view: ClusterView, job_id: int) -> int:
        """The job's sharing score at its full batch, from the interference belief."""
        known = self._job_scores.get(job_id)
        if known is None:
            occ = view.occupant(job_id, 1)
            known = self._scores.get(occ)
            if known is None:
                if self._references is None:
                    self._references = reference_occupants()
                belief = view.interference
                speeds = [1.0 / belief.slowdown(occ, ref) for ref in self._references]
                known = self._scores[occ] = sharing_score(float(np.mean(speeds)))
            self._job_scores[job_id] = known
        return known

    def decide(self, view: ClusterView) -> Decision:
        """Each waiting job by priority: pack it with the first compatible host, else start it
        alone on idle GPUs, else let it wait (the jobs behind it are still considered)."""
        pending = view.pending()
        idle = view.free_count
        if not pending:
            return Decision()
        hosts = _HostTable(self, view)
        if idle == 0 and not hosts.count:
            return Decision()
        gpus = view.gpu_counts(pending)
        priority = view.exclusive_durations(pending) * gpus
        order = np.lexsort((np.arange(len(pending)), priority))  # then (arrival, id)
        free = view.free_by_node()
        per_node = view.cluster.gpus_per_node
        starts: list[Start] = []
        for k in order.tolist():
            if idle == 0 and not hosts.count:
                break  # nothing left to start on: every other job waits
            job_id, need, prio = pending[k], int(gpus[k]), float(priority[k])
            host = None
            if need <= MAX_PACK_GPUS and hosts.count and (self.pack_first or need > idle):
                host = self._pick(view, job_id, need, prio, hosts)
            if host is not None:
                starts.append(Start(job_id, host))
                self._outcomes["packed"] += 1
                continue
            placement = place_on_free(free, need) if need <= idle else None
            if placement is None:
                self._outcomes["wait"] += 1
                continue
            take(free, placement, per_node)
            idle -= need
            starts.append(Start(job_id, placement))
            self._outcomes["alone"] += 1
            if need <= MAX_PACK_GPUS:  # it runs alone from now: a host for the jobs after it
                mem = view.memory_gb(job_id, 1)
                free_gb = view.cluster.gpu_mem_gb - mem
                occ = view.occupant(job_id, 1)
                hosts.add(_Host(job_id, placement, free_gb, prio, occ, self.score(view, job_id)))
        return Decision(tuple(starts))

    def _pick(
        self, view: ClusterView, job_id: int, need: int, prio: float, hosts: _HostTable
    ) -> tuple[int, ...] | None:
        """The first host in host order that may pack with the job — Lucid's
        ``job_pair_picker_time_aware`` — taken from the table; its GPUs, or ``None``."""
        mine = self.score(view, job_id)
        lists = [hosts.candidates(need, s) for s in range(MAX_SCORE_SUM - mine + 1)]
        if not any(lists):
            return None
        mem = view.memory_gb(job_id, 1)
        rule = view.sharing_rule
        occ = view.occupant(job_id, 1)
        best: _Host | None = None
        for candidates in lists:  # the first that qualifies in each list; the earliest wins
            for host in candidates:
                if best is not None and host.order > best.order:
                    break
                if (
                    mem > host.free_gb + MEMORY_TOLERANCE_GB
                    or prio > PRIORITY_RATIO * host.priority
                ):
                    continue
                if rule is not None and not rule(occ, host.occupant):
                    continue
                best = host
                break
        if best is None:
            return None
        hosts.take(best)
        return best.placement

    def stats(self) -> dict[str, Any]:
        """How often a considered job was packed, started alone or waited; the scores seen."""
        return {
            "outcomes": dict(self._outcomes),
            "scores": dict(Counter(sorted(self._scores.values()))),
        }
