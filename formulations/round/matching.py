"""The round problem as a maximum-weight bipartite matching, where it reduces to one.

A round **reduces to an assignment** when every feasible solution of the round model
(docs/formulations.md §1.4) is a set of (job, option, host) shares in which each sharing job takes
all G_a of its GPUs from one host and no idle GPU, every other job waiting. The model already
gives the rest of an assignment: a host takes at most one sharer (``host_capacity``), a job at
most one option (``one_option``), memory, the interference model's sharing rule and a positive
benefit are in the candidate set (:mod:`.preprocess`), and the score Σ c·y is a sum over used
(job, host) pairs. Two things are not implied and are checked, exactly, on each kept (job,
option) pair of the preprocessed data, the job alone in the round:

1. **no idle GPU**: no share of the job takes an idle GPU. It could iff the round has I ≥ 1 idle
   GPUs and a candidate host b has g_b ≥ G_a − I and c_akb ≥ θ' (1 to min(I, G_a − 1) idle
   GPUs, the rest from b). So a round with idle GPUs reduces only when nobody can share at all;
2. **one host**: no share of the job takes GPUs from two or more hosts. It could iff some set H
   of candidate hosts with 2 ≤ |H| ≤ min(P, G_a) has Σ_H g_b ≥ G_a − I and Σ_H c_akb ≥ θ'. Both
   sums grow with H, so it is enough to look at sets of size L = min(P, G_a, candidates): a
   small knapsack over the candidates (:func:`_several_hosts`). Always true with
   ``max_partners`` = 1, with G_a = 1, or with at most one candidate host.

A share that is feasible in a solution is feasible alone, and one alone is a solution, so these
per-job checks are exactly "every feasible solution is an assignment". Then a job a can share
with host b iff some option k has a candidate (a, k, b) with g_b ≥ G_a and c_akb ≥ θ' (the
**edge** (a, b)); it takes all G_a GPUs from b and no idle GPU. Its weight is the best option's
integer coefficient, the same number the MILP and CP-SAT optimize (**best option per edge**: the
largest c_akb, then the largest float benefit, then the first, i.e. smallest, s). Every edge
weighs at least 1 (candidates have a positive benefit and c ≥ 1) and waiting weighs 0, so the
weight matrix (jobs × hosts) holds 0 where there is no edge, and an assignment of
:func:`scipy.optimize.linear_sum_assignment` (``maximize=True``) restricted to its edges is a
maximum-weight matching: the round's integer optimum.

**Ties** between matchings of equal integer weight are broken by one rule: jobs in the
problem's order (the SJF order), each takes the host of lowest id it can take in some optimal
matching given the choices of the jobs before it, and waits only if none can
(:func:`_canonical`, one extra solve per host tried).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from formulations.result import SolveStatus
from formulations.round.backend import RawSolve, decode
from formulations.round.preprocess import Candidate, RoundData, preprocess
from formulations.round.problem import RoundProblem


@dataclass(frozen=True, slots=True)
class Edge:
    """A (job, host) pair the job can share with on its own, with its best option.

    Attributes
    ----------
    job, host
        Job id and host id.
    option
        Accumulation factor s of the best option for this host.
    coef
        Integer weight: the best option's coefficient c_akb (1/SCALE s).
    benefit
        That option's float pair benefit (s).
    candidate
        Index of (job, option, host) in :attr:`RoundData.candidates`.
    """

    job: int
    host: int
    option: int
    coef: int
    benefit: float
    candidate: int


def _data(problem: RoundProblem | RoundData) -> RoundData:
    return problem if isinstance(problem, RoundData) else preprocess(problem)


def _idle_host(data: RoundData, cands: list[Candidate], gpus: int) -> Candidate | None:
    """A candidate host beside which the job can take idle GPUs, or ``None``."""
    idle = data.problem.idle
    if idle < 1:
        return None
    need = data.threshold_coef
    for cand in cands:
        if cand.host_gpus >= gpus - idle and (need is None or cand.coef >= need):
            return cand
    return None


def _several_hosts(data: RoundData, cands: list[Candidate], gpus: int) -> tuple[int, ...] | None:
    """Host ids of a set of two or more hosts the job can share with, or ``None``.

    Looks for L = min(P, G_a, candidates) hosts with Σ g ≥ G_a − I and Σ c ≥ θ': a knapsack over
    (hosts taken, GPUs capped at G_a − I) keeping the largest Σ c of each state.
    """
    limit = min(len(cands), gpus)
    if data.problem.max_partners is not None:
        limit = min(limit, data.problem.max_partners)
    if limit < 2:
        return None
    reach = gpus - data.problem.idle
    # (hosts taken, capped GPUs) -> (largest Σ c, host ids)
    states: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {(0, 0): (0, ())}
    for cand in cands:
        for (count, got), (score, hosts) in list(states.items()):
            if count == limit:
                continue
            key = (count + 1, min(reach, got + cand.host_gpus))
            value = (score + cand.coef, (*hosts, cand.host))
            if key not in states or value[0] > states[key][0]:
                states[key] = value
    best = states.get((limit, reach))
    need = data.threshold_coef
    if best is None or (need is not None and best[0] < need):
        return None
    return best[1]


def reduction_failure(problem: RoundProblem | RoundData) -> str | None:
    """Why ``problem`` does not reduce to an assignment, or ``None`` if it does.

    Parameters
    ----------
    problem
        The round problem, or its preprocessed data.

    Returns
    -------
    str or None
        ``None`` if every feasible solution is a set of disjoint single-host, no-idle shares
        (module docstring); else one line naming the first job and option that breaks it.
    """
    data = _data(problem)
    for pair in data.pairs:
        cands = [data.candidates[c] for c in pair.candidates]
        host = _idle_host(data, cands, pair.gpus)
        if host is not None:
            return (
                f"job {pair.job} at s={pair.option} can take idle GPUs beside host "
                f"{host.host} ({data.problem.idle} idle)"
            )
        several = _several_hosts(data, cands, pair.gpus)
        if several is not None:
            listed = ", ".join(str(h) for h in several)
            return f"job {pair.job} at s={pair.option} can take GPUs from several hosts ({listed})"
    return None


def reduces(problem: RoundProblem | RoundData) -> bool:
    """Whether ``problem`` reduces to an assignment (:func:`reduction_failure` is ``None``)."""
    return reduction_failure(problem) is None


def edges(data: RoundData) -> dict[tuple[int, int], Edge]:
    """The (job, host) edges of a reducible round with their best option.

    An edge needs a candidate (a, k, b) with g_b ≥ G_a and, if the threshold binds,
    c_akb ≥ θ'. Best option per edge: largest c, then largest float benefit, then smallest s.
    """
    need = data.threshold_coef
    out: dict[tuple[int, int], Edge] = {}
    for pair in data.pairs:
        for c in pair.candidates:
            cand = data.candidates[c]
            if cand.host_gpus < pair.gpus or (need is not None and cand.coef < need):
                continue
            edge = Edge(cand.job, cand.host, cand.option, cand.coef, cand.benefit, c)
            old = out.get((cand.job, cand.host))
            if old is None or (edge.coef, edge.benefit, -edge.option) > (
                old.coef,
                old.benefit,
                -old.option,
            ):
                out[(cand.job, cand.host)] = edge
    return out


class _Matcher:
    """Maximum-weight matchings of sub-matrices of one integer weight matrix (0: no edge)."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights
        self.calls = 0

    def value(self, rows: list[int], cols: list[int]) -> tuple[int, list[tuple[int, int]]]:
        """Largest total weight of a matching of ``rows`` to ``cols``, and its edges."""
        from scipy.optimize import linear_sum_assignment

        if not rows or not cols:
            return 0, []
        self.calls += 1
        sub = self.weights[np.ix_(rows, cols)]
        r, c = linear_sum_assignment(sub.astype(float), maximize=True)
        chosen = [(rows[i], cols[j]) for i, j in zip(r, c, strict=True) if sub[i, j] > 0]
        return sum(int(self.weights[i, j]) for i, j in chosen), chosen


def _canonical(matcher: _Matcher, host_ids: list[int]) -> tuple[int, dict[int, int]]:
    """The optimum and the tie-broken optimal matching (job row -> host column).

    Jobs (rows) in order; each tries its hosts (columns) by increasing id and keeps the first
    with which the rest can still reach the optimum; a job none can keep waits.
    """
    rows = list(range(matcher.weights.shape[0]))
    optimum, _ = matcher.value(rows, list(range(len(host_ids))))
    free = sorted(range(len(host_ids)), key=lambda j: host_ids[j])
    taken: dict[int, int] = {}
    fixed = 0
    for row in rows:
        later = [r for r in rows if r > row]
        for col in [j for j in free if matcher.weights[row, j] > 0]:
            weight = int(matcher.weights[row, col])
            rest, _ = matcher.value(later, [j for j in free if j != col])
            if fixed + weight + rest == optimum:
                taken[row] = col
                fixed += weight
                free.remove(col)
                break
    return optimum, taken


def solve_matching(data: RoundData) -> RawSolve:
    """Solve a reducible round as a maximum-weight bipartite matching.

    Parameters
    ----------
    data
        Preprocessed round problem.

    Returns
    -------
    RawSolve
        OPTIMAL, the tie-broken assignment (module docstring), bound = the integer optimum.

    Raises
    ------
    ValueError
        If the round does not reduce to an assignment (one line: the reason).
    """
    reason = reduction_failure(data)
    if reason is not None:
        raise ValueError(f"matching: the round does not reduce to an assignment: {reason}")
    start = time.perf_counter()
    problem = data.problem
    job_ids = [j.id for j in problem.jobs]
    host_ids = [h.id for h in problem.hosts]
    found = edges(data)
    weights = np.zeros((len(job_ids), len(host_ids)), dtype=np.int64)
    for a, job in enumerate(job_ids):
        for b, host in enumerate(host_ids):
            if (job, host) in found:
                weights[a, b] = found[(job, host)].coef
    matcher = _Matcher(weights)
    optimum, taken = _canonical(matcher, host_ids)
    runtime = time.perf_counter() - start
    used = {found[(job_ids[a], host_ids[b])] for a, b in taken.items()}
    by_candidate = {e.candidate: e for e in used}
    by_pair = {(e.job, e.option) for e in used}
    gpus = {j.id: j.gpus for j in problem.jobs}
    assignment = decode(
        data,
        chosen=lambda p: (data.pairs[p].job, data.pairs[p].option) in by_pair,
        used=lambda c: c in by_candidate,
        taken=lambda c: gpus[data.candidates[c].job],
        idle=lambda p: 0,
    )
    info = {"edges": len(found), "matched": len(used), "assignment_solves": matcher.calls}
    return RawSolve(SolveStatus.OPTIMAL, assignment, float(optimum), runtime, info)
