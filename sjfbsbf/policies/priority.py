"""Shared mechanism of the preemptive baselines: run the best-ranked jobs that fit."""

from __future__ import annotations

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
    running = set(view.running())
    budget = view.cluster.num_gpus
    keep: list[int] = []
    for job_id, gpus in zip(ranked, view.gpu_counts(ranked).tolist(), strict=True):
        if budget == 0:  # nothing fits any more
            break
        if gpus <= budget:
            keep.append(job_id)
            budget -= gpus
    kept = set(keep)
    preempts = tuple(j for j in sorted(running) if j not in kept)
    free = view.free_by_node()
    per_node = view.cluster.gpus_per_node
    for job_id in preempts:
        placement = view.placement(job_id)
        assert placement is not None
        for g in placement:
            if len(view.gpu_jobs(g)) == 1:
                free[g // per_node].append(g)
    for node_free in free:
        node_free.sort()
    starts = []
    for job_id in keep:
        if job_id in running:
            continue
        placement = place_on_free(free, view.job(job_id).gpus)
        assert placement is not None, "GPU budget guarantees a placement"
        take(free, placement)
        starts.append(Start(job_id, placement))
    return Decision(tuple(starts), preempts)
