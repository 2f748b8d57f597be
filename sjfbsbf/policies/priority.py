"""Shared mechanism of the preemptive baselines: run the best-ranked jobs that fit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


def preemptive_decision(view: ClusterView, ranked: Sequence[int] | np.ndarray) -> Decision:
    """Run the best-ranked active jobs that fit; preempt the running jobs that fall out.

    Walking ``ranked`` (all running and pending jobs, best first), a job is kept if its GPU count
    fits in what is left of the cluster, else skipped (backfilling). Running jobs not kept are
    preempted; kept pending jobs start on the GPUs idle after the preemptions, placed on the
    fewest nodes.
    """
    return ranked_decision(view, np.asarray(ranked, dtype=np.int64))[0]


def ranked_decision(
    view: ClusterView,
    ids: np.ndarray,
    is_running: np.ndarray | None = None,
    gpus: np.ndarray | None = None,
) -> tuple[Decision, np.ndarray]:
    """:func:`preemptive_decision` of the ranking ``ids``, and which of them run after it
    (a boolean mask over ``ids``: the kept jobs). ``is_running`` and ``gpus``: the view's
    ``running_mask(ids)`` and ``gpu_counts(ids)`` if the caller has them."""
    if is_running is None:
        is_running = view.running_mask(ids)
    if gpus is None:
        gpus = view.gpu_counts(ids)
    budget = view.cluster.num_gpus
    kept = np.zeros(len(ids), dtype=bool)
    # Every job up to the first that overflows the cluster is kept ...
    total = gpus.cumsum()
    pos = int(total.searchsorted(budget, side="right"))
    kept[:pos] = True
    if pos:
        budget -= int(total[pos - 1])
    # ... then, in rank order, each later job that fits in what is left (backfilling).
    while budget > 0 and pos < len(ids):
        fitting = np.flatnonzero(gpus[pos:] <= budget)
        if not len(fitting):
            break
        pos += int(fitting[0])
        kept[pos] = True
        budget -= int(gpus[pos])
        pos += 1
    preempted = is_running & ~kept
    started = kept & ~is_running
    if not preempted.any() and not started.any():
        return Decision(), kept
    preempts = tuple(sorted(ids[preempted].tolist()))
    free = view.free_by_node()
    per_node = view.cluster.gpus_per_node
    # A GPU is idle after the preemptions once every job on it is preempted (one job, or both
    # jobs of a shared GPU: each such GPU is handed back once).
    gone = set(preempts)
    freed: set[int] = set()
    for job_id in preempts:
        placement = view.placement(job_id)
        assert placement is not None
        freed.update(g for g in placement if gone.issuperset(view.gpu_jobs(g)))
    refilled: set[int] = set()
    for g in sorted(freed):
        free[g // per_node].append(g)
        refilled.add(g // per_node)
    for node in refilled:
        free[node].sort()
    starts = []
    for job_id in ids[started].tolist():
        placement = place_on_free(free, view.job(job_id).gpus)
        assert placement is not None, "GPU budget guarantees a placement"
        take(free, placement, per_node)
        starts.append(Start(job_id, placement))
    return Decision(tuple(starts), preempts), kept
