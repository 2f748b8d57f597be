"""Shared mechanism of the preemptive baselines: run the best-ranked jobs that fit."""

from __future__ import annotations

import numpy as np

from sjfbsbf.policies.placement import place_on_free, take
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.view import ClusterView


def preemptive_decision(view: ClusterView, ranked: list[int]) -> Decision:
    """Run the best-ranked active jobs that fit; preempt the running jobs that fall out.

    Walking ``ranked`` (all running and pending jobs, best first), a job is kept if its GPU count
    fits in what is left of the cluster, else skipped (backfilling). Running jobs not kept are
    preempted; kept pending jobs start on the GPUs idle after the preemptions, placed on the
    fewest nodes.
    """
    running = view.running()
    running_set = set(running)
    budget = view.cluster.num_gpus
    gpus = view.gpu_counts(ranked)
    # Every job up to the first that overflows the cluster is kept: walk only the rest.
    fits = int(np.searchsorted(np.cumsum(gpus), budget, side="right"))
    keep = ranked[:fits]
    budget -= int(gpus[:fits].sum())
    for job_id, need in zip(ranked[fits:], gpus[fits:].tolist(), strict=True):
        if budget == 0:  # nothing fits any more
            break
        if need <= budget:
            keep.append(job_id)
            budget -= need
    kept = set(keep)
    preempts = tuple(sorted(j for j in running if j not in kept))
    free = view.free_by_node()
    per_node = view.cluster.gpus_per_node
    refilled: set[int] = set()
    for job_id in preempts:
        placement = view.placement(job_id)
        assert placement is not None
        for g in placement:
            if len(view.gpu_jobs(g)) == 1:
                free[g // per_node].append(g)
                refilled.add(g // per_node)
    for node in refilled:
        free[node].sort()
    starts = []
    for job_id in keep:
        if job_id in running_set:
            continue
        placement = place_on_free(free, view.job(job_id).gpus)
        assert placement is not None, "GPU budget guarantees a placement"
        take(free, placement, per_node)
        starts.append(Start(job_id, placement))
    return Decision(tuple(starts), preempts)
