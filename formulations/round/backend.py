"""What the exact backends hand back before re-scoring, and the decoding they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from formulations.result import SolveStatus
from formulations.round.assignment import RoundAssignment, RoundShare, make_assignment
from formulations.round.preprocess import RoundData


@dataclass(frozen=True)
class RawSolve:
    """A backend's outcome, in the integer units of the model.

    Attributes
    ----------
    status
        Mapped status.
    assignment
        Decoded solution (``None`` without one).
    bound
        Best proven bound on the integer objective (``None`` if unknown).
    runtime_s
        Solve time (model building excluded).
    info
        Backend details.
    """

    status: SolveStatus
    assignment: RoundAssignment | None
    bound: float | None
    runtime_s: float
    info: dict[str, Any] = field(default_factory=dict)


def decode(
    data: RoundData,
    chosen: Callable[[int], bool],
    used: Callable[[int], bool],
    taken: Callable[[int], int],
    idle: Callable[[int], int],
) -> RoundAssignment:
    """Build the assignment from a backend's values.

    Parameters
    ----------
    data
        The preprocessed problem.
    chosen
        Pair index -> whether x (the job shares with this option) is 1.
    used
        Candidate index -> whether y (the job uses this host) is 1.
    taken
        Candidate index -> GPUs taken from the host.
    idle
        Pair index -> idle GPUs used.
    """
    shares = []
    for p, pair in enumerate(data.pairs):
        if not chosen(p):
            continue
        hosts = tuple((data.candidates[c].host, taken(c)) for c in pair.candidates if used(c))
        shares.append(RoundShare(pair.job, pair.option, idle(p), hosts))
    return make_assignment(data.problem, shares)


def hint_values(
    data: RoundData, hint: RoundAssignment
) -> tuple[dict[int, int], dict[int, int], dict[int, int], dict[int, int]]:
    """Variable values (x, y, n, i by pair / candidate index) of a known assignment.

    Shares the model cannot express (e.g. a pruned pair) are dropped, so the hint may be partial.
    """
    x = {p: 0 for p in range(len(data.pairs))}
    y = {c: 0 for c in range(len(data.candidates))}
    n = {c: 0 for c in range(len(data.candidates))}
    i = {p: 0 for p in range(len(data.pairs))}
    index = {(pair.job, pair.option): p for p, pair in enumerate(data.pairs)}
    for share in hint.shares:
        p = index.get((share.job, share.accumulation))
        if p is None:
            continue
        by_host = {data.candidates[c].host: c for c in data.pairs[p].candidates}
        if any(h not in by_host for h, _ in share.hosts):
            continue
        x[p] = 1
        i[p] = share.idle
        for h, taken in share.hosts:
            y[by_host[h]] = 1
            n[by_host[h]] = taken
    return x, y, n, i
