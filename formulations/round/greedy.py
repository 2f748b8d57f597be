"""The sjf-bsbf greedy applied to a round problem: the comparator of the exact round model.

It reuses the greedy's own per-option rule (:func:`sjfbsbf.policies.sjf_bsbf.build_plan`) and
its choice over options (:func:`~sjfbsbf.policies.sjf_bsbf.better_plan`) on the same benefit
table the exact model reads: jobs in the round's (SJF) order; for each option, the hosts still
free that fit; idle GPUs first, then positive-benefit hosts best first; the best-scoring option
if it exceeds the threshold; the hosts and idle GPUs it takes are gone for later jobs. Its
solution is feasible for the round model (a test checks it), so the exact optimum is at least
its score.
"""

from __future__ import annotations

from formulations.round.assignment import RoundAssignment, RoundShare, make_assignment
from formulations.round.problem import RoundProblem
from sjfbsbf.policies.sjf_bsbf import HostOption, SharePlan, better_plan, build_plan


def greedy_round(problem: RoundProblem) -> RoundAssignment:
    """The sjf-bsbf greedy's assignment on ``problem``."""
    # Synthetic GPU ids: 0..idle-1 are the idle GPUs, then each host's GPUs in a block.
    gpu_ids: dict[int, tuple[int, ...]] = {}
    offset = problem.idle
    for host in problem.hosts:
        gpu_ids[host.id] = tuple(range(offset, offset + host.gpus))
        offset += host.gpus
    idle = list(range(problem.idle))
    free = [h.id for h in problem.hosts]
    shares: list[RoundShare] = []
    for job in problem.jobs:
        if not free:
            break
        best: SharePlan | None = None
        for s in job.options:
            fitting = [h for h in free if (job.id, s, h) in problem.benefit]
            if not fitting:
                continue
            plan = None
            if len(idle) + sum(len(gpu_ids[h]) for h in fitting) >= job.gpus:
                options = [
                    HostOption(h, problem.benefit[(job.id, s, h)], gpu_ids[h]) for h in fitting
                ]
                plan = build_plan(job.id, s, idle, options, job.gpus, problem.max_partners)
            best = better_plan(best, plan)
        if best is None or best.score <= problem.threshold:
            continue
        chosen = set(best.gpus)
        used_idle = [g for g in idle if g in chosen]
        hosts = tuple((h, len(chosen.intersection(gpu_ids[h]))) for h in best.hosts)
        shares.append(RoundShare(job.id, best.accumulation, len(used_idle), hosts))
        idle = [g for g in idle if g not in chosen]
        free = [h for h in free if h not in best.hosts]
    return make_assignment(problem, shares)
