"""Exhaustive search of the round problem, for cross-checking the exact backends on tiny rounds.

Independent of the model code: it enumerates, job by job in the problem's order, every choice
(wait, or an option, a non-empty set of positive-benefit hosts that fit, and the number of idle
GPUs), memoized on (job position, hosts already taken, idle GPUs left), and maximizes the float
score. Only the threshold uses the shared integer semantics (:mod:`.preprocess`).
"""

from __future__ import annotations

import time
from functools import cache
from itertools import combinations

from formulations.result import SolveStatus
from formulations.round.assignment import RoundShare, make_assignment
from formulations.round.backend import RawSolve
from formulations.round.preprocess import SCALE, coefficient, threshold_coefficient
from formulations.round.problem import RoundJob, RoundProblem

#: Largest round brute force accepts (hosts; the search is exponential in them).
MAX_HOSTS = 14

_Choice = tuple[int, int, tuple[tuple[int, int], ...]]  # (s, idle, ((host idx, taken), ...))


def _split(gpus_needed: int, sizes: list[int]) -> list[int]:
    """GPUs taken per host: one each, then fill in order up to each host's size."""
    taken = [1] * len(sizes)
    extra = gpus_needed - len(sizes)
    for k, size in enumerate(sizes):
        more = min(extra, size - 1)
        taken[k] += more
        extra -= more
    assert extra == 0
    return taken


def _choices(
    problem: RoundProblem, job: RoundJob, free_mask: int, idle_left: int, need: int | None
) -> list[tuple[float, int, int, _Choice]]:
    """(score, hosts mask, idle used, choice) of every way ``job`` can share."""
    out = []
    limit = problem.max_partners or len(problem.hosts)
    for s in job.options:
        cands = [
            (k, b)
            for k, host in enumerate(problem.hosts)
            if free_mask >> k & 1
            and (b := problem.benefit.get((job.id, s, host.id))) is not None
            and b > 0
        ]
        for size in range(1, min(limit, len(cands)) + 1):
            for subset in combinations(cands, size):
                if need is not None and sum(coefficient(b) for _, b in subset) < need:
                    continue
                sizes = [problem.hosts[k].gpus for k, _ in subset]
                low = max(0, job.gpus - sum(sizes))
                high = min(idle_left, job.gpus - size)
                mask = sum(1 << k for k, _ in subset)
                score = sum(b for _, b in subset)
                for idle in range(low, high + 1):
                    taken = _split(job.gpus - idle, sizes)
                    hosts = tuple((k, t) for (k, _), t in zip(subset, taken, strict=True))
                    out.append((score, mask, idle, (s, idle, hosts)))
    return out


def solve_brute(problem: RoundProblem) -> RawSolve:
    """The optimum of ``problem`` by exhaustive search (float scores).

    Raises
    ------
    ValueError
        If the round has more than :data:`MAX_HOSTS` hosts.
    """
    if len(problem.hosts) > MAX_HOSTS:
        raise ValueError(
            f"brute force is for tiny rounds: {len(problem.hosts)} hosts > {MAX_HOSTS}"
        )
    need = threshold_coefficient(problem.threshold, SCALE)
    jobs = problem.jobs

    @cache
    def best(k: int, free_mask: int, idle_left: int) -> tuple[float, tuple[_Choice | None, ...]]:
        if k == len(jobs):
            return 0.0, ()
        value, plan = best(k + 1, free_mask, idle_left)
        top: tuple[float, tuple[_Choice | None, ...]] = (value, (None, *plan))
        for score, mask, idle, choice in _choices(problem, jobs[k], free_mask, idle_left, need):
            rest, rest_plan = best(k + 1, free_mask & ~mask, idle_left - idle)
            if score + rest > top[0]:
                top = (score + rest, (choice, *rest_plan))
        return top

    start = time.perf_counter()
    value, plan = best(0, (1 << len(problem.hosts)) - 1, problem.idle)
    runtime = time.perf_counter() - start
    shares = [
        RoundShare(job.id, c[0], c[1], tuple((problem.hosts[k].id, t) for k, t in c[2]))
        for job, c in zip(jobs, plan, strict=True)
        if c is not None
    ]
    info = {"states": best.cache_info().currsize}
    return RawSolve(
        SolveStatus.OPTIMAL, make_assignment(problem, shares), value * SCALE, runtime, info
    )
