"""The one preprocessing step both exact backends (and brute force) read.

From a :class:`~formulations.round.problem.RoundProblem` it builds, once:

* the **candidate triples** (job a, option s, host b): memory-feasible and allowed by the
  interference model's sharing rule (the benefit table lists exactly those) with a *positive*
  pair benefit — the greedy never uses a host whose benefit is not positive, and the round model
  shares its decision space;
* the **pairs** (a, s) worth a variable: those whose candidates, with the idle GPUs, can reach
  G_a GPUs (with ``max_partners`` hosts at most);
* the **integer coefficients** ``coef = max(1, round(benefit · SCALE))`` (benefit in seconds,
  ``SCALE`` = 1000: milliseconds), so CP-SAT and the MILP solve the same numbers;
* the threshold in the same units.

The float benefits stay on every candidate, for re-scoring decoded solutions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from formulations.round.problem import RoundProblem

#: Benefits (s) are turned into integers in units of 1/SCALE s (milliseconds).
SCALE = 1000.0


def coefficient(benefit: float, scale: float = SCALE) -> int:
    """Integer objective coefficient of a positive pair benefit (at least 1)."""
    return max(1, round(benefit * scale))


def threshold_coefficient(threshold: float, scale: float = SCALE) -> int | None:
    """Smallest integer score that exceeds ``threshold``, or ``None`` if it never binds.

    A sharing job's integer score ``Σ coef`` must exceed ``threshold · scale``, i.e. be at least
    ``floor(threshold · scale) + 1``. Every sharing job uses at least one host (it needs more GPUs
    than are idle) and every coefficient is at least 1, so a bound of 1 or less never binds.
    """
    need = math.floor(threshold * scale) + 1
    return need if need > 1 else None


@dataclass(frozen=True, slots=True)
class Candidate:
    """A (job, option, host) triple a job may use.

    Attributes
    ----------
    job, option, host
        Job id, accumulation factor s, host id.
    benefit
        Float pair benefit (s), for re-scoring.
    coef
        Integer objective coefficient (1/SCALE s).
    host_gpus
        GPUs the host holds (the most the job may take from it).
    """

    job: int
    option: int
    host: int
    benefit: float
    coef: int
    host_gpus: int


@dataclass(frozen=True, slots=True)
class Pair:
    """A (job, option) choice with its candidates.

    Attributes
    ----------
    job, option
        Job id and accumulation factor s.
    gpus
        The job's GPU count G_a.
    max_idle
        Most idle GPUs it can use: ``min(idle, G_a − 1)`` (it always takes at least one host).
    candidates
        Indices into :attr:`RoundData.candidates`.
    """

    job: int
    option: int
    gpus: int
    max_idle: int
    candidates: tuple[int, ...]


@dataclass(frozen=True)
class RoundData:
    """Preprocessed round problem: the numbers every backend solves.

    Attributes
    ----------
    problem
        The input.
    scale
        Units per second of the integer coefficients.
    candidates
        All candidate triples (of kept pairs only).
    pairs
        Kept (job, option) pairs, in job order then option order.
    pairs_of_job
        Job id -> indices into ``pairs``.
    candidates_of_host
        Host id -> indices into ``candidates``.
    threshold_coef
        Least integer score of a sharing job, or ``None`` when the threshold never binds.
    """

    problem: RoundProblem
    scale: float
    candidates: tuple[Candidate, ...]
    pairs: tuple[Pair, ...]
    pairs_of_job: dict[int, tuple[int, ...]]
    candidates_of_host: dict[int, tuple[int, ...]]
    threshold_coef: int | None

    @property
    def empty(self) -> bool:
        """Whether no job can share (the optimum is "everyone waits")."""
        return not self.pairs


def _reachable(problem: RoundProblem, gpus: int, host_gpus: list[int]) -> bool:
    """Whether idle GPUs plus (at most ``max_partners`` of) these hosts can give ``gpus``."""
    best = sorted(host_gpus, reverse=True)
    if problem.max_partners is not None:
        best = best[: problem.max_partners]
    return problem.idle + sum(best) >= gpus


def preprocess(problem: RoundProblem, scale: float = SCALE) -> RoundData:
    """Candidate triples, kept pairs and integer coefficients of ``problem``.

    Parameters
    ----------
    problem
        The round problem.
    scale
        Integer units per second of benefit (default: milliseconds).
    """
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be positive and finite, got {scale!r}")
    candidates: list[Candidate] = []
    pairs: list[Pair] = []
    pairs_of_job: dict[int, list[int]] = {j.id: [] for j in problem.jobs}
    for job in problem.jobs:
        for s in job.options:
            found = [
                Candidate(job.id, s, h.id, b, coefficient(b, scale), h.gpus)
                for h in problem.hosts
                if (b := problem.benefit.get((job.id, s, h.id))) is not None and b > 0
            ]
            if not found or not _reachable(problem, job.gpus, [c.host_gpus for c in found]):
                continue
            first = len(candidates)
            candidates.extend(found)
            pairs_of_job[job.id].append(len(pairs))
            pairs.append(
                Pair(
                    job.id,
                    s,
                    job.gpus,
                    min(problem.idle, job.gpus - 1),
                    tuple(range(first, len(candidates))),
                )
            )
    candidates_of_host: dict[int, list[int]] = {h.id: [] for h in problem.hosts}
    for index, cand in enumerate(candidates):
        candidates_of_host[cand.host].append(index)
    return RoundData(
        problem=problem,
        scale=scale,
        candidates=tuple(candidates),
        pairs=tuple(pairs),
        pairs_of_job={k: tuple(v) for k, v in pairs_of_job.items()},
        candidates_of_host={k: tuple(v) for k, v in candidates_of_host.items()},
        threshold_coef=threshold_coefficient(problem.threshold, scale),
    )
