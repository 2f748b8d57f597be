"""Hand-made round problems shared by tests/formulations (the round model's matching tests)."""

from __future__ import annotations

from itertools import combinations

from formulations.round import SCALE, RoundHost, RoundJob, RoundProblem
from formulations.round.preprocess import coefficient, threshold_coefficient


def job(
    job_id: int, gpus: int, options: tuple[int, ...] = (1,), memory: tuple[float, ...] = ()
) -> RoundJob:
    return RoundJob(job_id, gpus, options, memory or tuple(4.0 for _ in options))


def host(host_id: int, gpus: int, room: float = 8.0) -> RoundHost:
    return RoundHost(host_id, gpus, room)


def one_job(
    gpus: int, hosts: dict[int, int], benefit: dict[int, float], **kw: object
) -> RoundProblem:
    """Job 1 (``gpus`` GPUs, option s = 1), hosts ``{id: GPUs}``, benefits ``{host id: sec}``."""
    return RoundProblem(
        (job(1, gpus),),
        tuple(host(h, g) for h, g in hosts.items()),
        benefit={(1, 1, h): b for h, b in benefit.items()},
        **{"idle": 0, **kw},  # type: ignore[arg-type]
    )


def non_assignment_share(problem: RoundProblem) -> bool:
    """Whether some job, alone in the round, can share with an idle GPU or two or more hosts.

    Enumerates every (option, set of positive-benefit hosts, idle count) of every job with the
    round model's rules (GPU count exact, 1..g_b GPUs per host, at most min(I, G_a − 1) idle
    GPUs, at most ``max_partners`` hosts, integer score reaching the threshold).
    """
    need = threshold_coefficient(problem.threshold, SCALE)
    for pending in problem.jobs:
        for s in pending.options:
            cands = [
                (candidate, coefficient(b))
                for candidate in problem.hosts
                if (b := problem.benefit.get((pending.id, s, candidate.id))) is not None and b > 0
            ]
            limit = problem.max_partners or len(cands)
            for size in range(1, min(limit, len(cands)) + 1):
                for subset in combinations(cands, size):
                    if need is not None and sum(c for _, c in subset) < need:
                        continue
                    gpus = sum(candidate.gpus for candidate, _ in subset)
                    for idle in range(min(problem.idle, pending.gpus - 1) + 1):
                        fits = size <= pending.gpus - idle <= gpus
                        if fits and (size >= 2 or idle >= 1):
                            return True
    return False


#: Two 1-GPU jobs and two hosts (4 and 1 GPUs), each job with a benefit beside each host.
ONE_GPU_JOBS = RoundProblem(
    (job(1, 1), job(2, 1)),
    (host(10, 4), host(11, 1)),
    idle=0,
    benefit={(1, 1, 10): 5.0, (1, 1, 11): 3.0, (2, 1, 10): 2.0, (2, 1, 11): 7.0},
)
