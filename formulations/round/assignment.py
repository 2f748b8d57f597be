"""A round solution (which jobs share, with which option, hosts and idle GPUs), its score and
its feasibility check. Every backend decodes into this; nothing trusts a solver's objective.
"""

from __future__ import annotations

from dataclasses import dataclass

from formulations.round.preprocess import SCALE, coefficient, threshold_coefficient
from formulations.round.problem import RoundProblem


@dataclass(frozen=True, slots=True)
class RoundShare:
    """One sharing job of a round solution.

    Attributes
    ----------
    job
        Job id.
    accumulation
        Accumulation factor s it runs with.
    idle
        Idle GPUs it takes.
    hosts
        ``(host id, GPUs taken from it)``, by host id.
    """

    job: int
    accumulation: int
    idle: int
    hosts: tuple[tuple[int, int], ...]

    @property
    def gpus(self) -> int:
        """GPUs it gets in total."""
        return self.idle + sum(n for _, n in self.hosts)


@dataclass(frozen=True, slots=True)
class RoundAssignment:
    """A round solution: the sharing jobs (every other job waits), in the problem's job order."""

    shares: tuple[RoundShare, ...] = ()

    def score(self, problem: RoundProblem) -> float:
        """Total estimated benefit (s): the sum of the float pair benefits of every used pair."""
        return sum(share_score(problem, share) for share in self.shares)

    def integer_score(self, problem: RoundProblem, scale: float = SCALE) -> int:
        """Total in the integer units the exact backends optimize."""
        return sum(
            coefficient(problem.benefit[(s.job, s.accumulation, h)], scale)
            for s in self.shares
            for h, _ in s.hosts
        )

    @property
    def sharing_jobs(self) -> tuple[int, ...]:
        """Ids of the jobs that share."""
        return tuple(s.job for s in self.shares)


def share_score(problem: RoundProblem, share: RoundShare) -> float:
    """Score of one sharing job: the sum of its pair benefits."""
    return sum(problem.benefit[(share.job, share.accumulation, h)] for h, _ in share.hosts)


def make_assignment(problem: RoundProblem, shares: list[RoundShare]) -> RoundAssignment:
    """An assignment with shares in the problem's job order and hosts sorted by id."""
    order = {j.id: i for i, j in enumerate(problem.jobs)}
    ordered = sorted(shares, key=lambda s: order[s.job])
    return RoundAssignment(
        tuple(RoundShare(s.job, s.accumulation, s.idle, tuple(sorted(s.hosts))) for s in ordered)
    )


def violations(
    problem: RoundProblem, assignment: RoundAssignment, scale: float = SCALE
) -> list[str]:
    """Every constraint of the round model ``assignment`` breaks (empty: feasible).

    Checked: known job, once; option of that job; GPU count exact; hosts known, memory-feasible
    with positive benefit, each used by one job at most, 1 to all of its GPUs taken; idle GPUs not
    over-used; at most ``max_partners`` hosts; integer score above the threshold.
    """
    out: list[str] = []
    jobs = {j.id: j for j in problem.jobs}
    hosts = {h.id: h for h in problem.hosts}
    need = threshold_coefficient(problem.threshold, scale)
    seen_jobs: set[int] = set()
    seen_hosts: set[int] = set()
    idle_used = 0
    for share in assignment.shares:
        job = jobs.get(share.job)
        if job is None:
            out.append(f"job {share.job}: not in the round")
            continue
        if share.job in seen_jobs:
            out.append(f"job {share.job}: shares twice")
        seen_jobs.add(share.job)
        if share.accumulation not in job.options:
            out.append(f"job {share.job}: unknown option s={share.accumulation}")
            continue
        if share.idle < 0:
            out.append(f"job {share.job}: negative idle GPUs")
        idle_used += share.idle
        if share.gpus != job.gpus:
            out.append(f"job {share.job}: gets {share.gpus} GPUs, needs {job.gpus}")
        if problem.max_partners is not None and len(share.hosts) > problem.max_partners:
            out.append(f"job {share.job}: {len(share.hosts)} hosts > max_partners")
        for host_id, n in share.hosts:
            host = hosts.get(host_id)
            key = (share.job, share.accumulation, host_id)
            if host is None:
                out.append(f"job {share.job}: unknown host {host_id}")
                continue
            if host_id in seen_hosts:
                out.append(f"host {host_id}: more than one sharer")
            seen_hosts.add(host_id)
            if not 1 <= n <= host.gpus:
                out.append(f"job {share.job}: takes {n} GPUs of host {host_id} ({host.gpus})")
            benefit = problem.benefit.get(key)
            if benefit is None:
                out.append(f"job {share.job}: does not fit beside host {host_id} at s")
            elif benefit <= 0:
                out.append(f"job {share.job}: non-positive benefit with host {host_id}")
        if need is not None and all(
            problem.benefit.get((share.job, share.accumulation, h)) is not None
            for h, _ in share.hosts
        ):
            total = sum(
                coefficient(problem.benefit[(share.job, share.accumulation, h)], scale)
                for h, _ in share.hosts
            )
            if total < need:
                out.append(f"job {share.job}: score does not exceed the threshold")
    if idle_used > problem.idle:
        out.append(f"idle GPUs over-used: {idle_used} > {problem.idle}")
    return out
