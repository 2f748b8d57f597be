"""A sharing plan of SJF-BSBF: which hosts' GPUs a pending job takes, at which accumulation.

Pure data and two pure rules (docs/model.md §6): :func:`build_plan` (idle GPUs first, then the
positive-benefit hosts, best first) and :func:`better_plan` (the strictly better score wins). The
round model's comparator (``formulations.round.greedy``) uses the same two rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostOption:
    """One host candidate for a pending job at one accumulation option."""

    host: int
    benefit: float
    gpus: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SharePlan:
    """A pending job's plan: accumulation, GPUs, hosts used and the summed pair benefit."""

    job_id: int
    accumulation: int
    gpus: tuple[int, ...]
    hosts: tuple[int, ...]
    score: float
    idle_used: int = 0


def build_plan(
    job_id: int,
    s: int,
    idle: list[int],
    options: list[HostOption],
    gpus_needed: int,
    max_partners: int | None = None,
) -> SharePlan | None:
    """A pending job's plan at accumulation ``s``: idle GPUs first, then the best hosts.

    Pure: the greedy's rule for one option, also used by the round model's comparator
    (``formulations.round.greedy``). Hosts with positive pair benefit are taken best first (ties
    by host id), each giving as many of its GPUs as are still needed, up to ``max_partners``
    hosts.

    Parameters
    ----------
    job_id
        The pending job.
    s
        Accumulation factor tried.
    idle
        Idle GPU ids, ascending (the first ``gpus_needed`` are taken).
    options
        Memory-feasible hosts with their pair benefit at ``s``.
    gpus_needed
        The job's GPU count.
    max_partners
        Most hosts used (``None``: no limit).

    Returns
    -------
    SharePlan or None
        ``None`` if the idle GPUs and the positive-benefit hosts cannot reach ``gpus_needed``.
    """
    chosen = list(idle[:gpus_needed])
    used: list[int] = []
    score = 0.0
    for option in sorted(options, key=lambda o: (-o.benefit, o.host)):
        if len(chosen) >= gpus_needed:
            break
        if option.benefit <= 0:
            break
        if max_partners is not None and len(used) >= max_partners:
            break
        chosen.extend(option.gpus[: gpus_needed - len(chosen)])
        used.append(option.host)
        score += option.benefit
    if len(chosen) < gpus_needed:
        return None
    idle_used = min(len(idle), gpus_needed)
    return SharePlan(job_id, s, tuple(sorted(chosen)), tuple(used), score, idle_used)


def better_plan(best: SharePlan | None, plan: SharePlan | None) -> SharePlan | None:
    """The better of two plans: the strictly higher score wins, so ties keep ``best``.

    Options are tried in increasing accumulation, so a tie goes to the larger micro-batch.
    """
    if plan is not None and (best is None or plan.score > best.score):
        return plan
    return best
