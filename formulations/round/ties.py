"""Deterministic tie-breaking of the round model, shared by CP-SAT and the MILP.

Among the assignments of largest integer score Σ coef·y (the primary objective), the backends
return the one that is lexicographically least in the **tie key**:

1. ``Σ n`` — the GPUs taken from hosts over all sharing jobs (fewer shared GPUs);
2. then, candidate by candidate in the order (job id, option s, host id) — lower job ids first —
   ``g_b − n_akb``: each job, lowest id first, takes as many GPUs as it can from its first
   candidate (smallest s, lowest host id), then its next one, and so on. So a lower-id job shares
   rather than waits when the two tie, prefers the smaller s and the lower host ids.

The tie key is injective on the feasible assignments: the GPUs taken ``n`` over all candidates
determine the whole solution (``y = [n ≥ 1]``, ``x_ak = 1`` iff some y of (a, k) is 1 since a
sharing job always uses a host, and ``i_ak = G_a·x_ak − Σ n``), and part 2 lists every ``n``.
So the order is total and the least element is unique.

One weighted sum encoding the whole key would need coefficients up to Π (g_b + 1) over all
candidates, far beyond 2^53 (HiGHS's doubles) and 2^63 (CP-SAT). The key is therefore applied
as a **sequence of solves** after the primary solve: the digits are packed in order into stages
whose mixed-radix weights stay below :data:`STAGE_LIMIT` (2^24); each stage minimizes its
weighted sum with the primary fixed at its optimum and the previous stages fixed at theirs.
Within a stage the weighted sum is injective on its digits (mixed radix), so minimizing it is
minimizing the digits lexicographically, and every value is an integer far below 2^53: exact in
floating point, and one unit apart, so the MILP's absolute gap of 0.5 proves each stage optimal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from formulations.result import SolveStatus
from formulations.round.assignment import RoundAssignment
from formulations.round.backend import RawSolve
from formulations.round.preprocess import RoundData

#: Largest product of digit ranges in one tie stage (its objective stays below this).
STAGE_LIMIT = 2**24


@dataclass(frozen=True)
class Digit:
    """One component of the tie key: ``const + Σ coef[c]·n_c``, in ``[0, size)``.

    Attributes
    ----------
    const
        Constant part.
    coef
        Candidate index -> coefficient on ``n``.
    size
        Number of values the digit can take.
    """

    const: int
    coef: dict[int, int]
    size: int


@dataclass(frozen=True)
class Stage:
    """One tie solve: minimize ``Σ coef[c]·n_c`` (the digits' mixed-radix weighted sum).

    Attributes
    ----------
    coef
        Candidate index -> integer coefficient on ``n``.
    digits
        How many digits of the key the stage settles.
    """

    coef: dict[int, int]
    digits: int

    def value(self, n: dict[int, int]) -> int:
        """The stage objective at GPU counts ``n`` (candidate index -> GPUs taken)."""
        return sum(w * n.get(c, 0) for c, w in self.coef.items())


def candidate_order(data: RoundData) -> list[int]:
    """Candidate indices in (job id, option s, host id) order."""
    cands = data.candidates
    return sorted(range(len(cands)), key=lambda c: (cands[c].job, cands[c].option, cands[c].host))


def digits(data: RoundData) -> list[Digit]:
    """The tie key's components, most significant first (see the module docstring)."""
    hosts = {h.id: h.gpus for h in data.problem.hosts}
    total = Digit(0, {c: 1 for c in range(len(data.candidates))}, sum(hosts.values()) + 1)
    per = [
        Digit(data.candidates[c].host_gpus, {c: -1}, data.candidates[c].host_gpus + 1)
        for c in candidate_order(data)
    ]
    return [total, *per]


def stages(data: RoundData, limit: int = STAGE_LIMIT) -> list[Stage]:
    """The digits packed, in order, into stages whose range product stays at most ``limit``."""
    groups: list[list[Digit]] = []
    product = limit + 1
    for digit in digits(data):
        if digit.size > limit:
            raise ValueError(f"a tie digit has {digit.size} values > {limit}")
        if product * digit.size > limit:
            groups.append([])
            product = 1
        groups[-1].append(digit)
        product *= digit.size
    out = []
    for group in groups:
        coef: dict[int, int] = {}
        weight = 1
        for digit in reversed(group):  # last digit least significant
            for c, a in digit.coef.items():
                coef[c] = coef.get(c, 0) + weight * a
            weight *= digit.size
        out.append(Stage({c: w for c, w in coef.items() if w != 0}, len(group)))
    return out


def gpus_taken(data: RoundData, assignment: RoundAssignment) -> dict[int, int]:
    """Candidate index -> GPUs the assignment takes there (0 if unused)."""
    index = {(c.job, c.option, c.host): k for k, c in enumerate(data.candidates)}
    n = {k: 0 for k in range(len(data.candidates))}
    for share in assignment.shares:
        for host, taken in share.hosts:
            n[index[(share.job, share.accumulation, host)]] = taken
    return n


def tie_key(data: RoundData, assignment: RoundAssignment) -> tuple[int, ...]:
    """The assignment's tie key (smaller is preferred among equal primary scores)."""
    n = gpus_taken(data, assignment)
    return tuple(d.const + sum(a * n[c] for c, a in d.coef.items()) for d in digits(data))


#: A backend's tie solve: (primary optimum, stages fixed with their values, the stage to
#: minimize, the best assignment so far as a hint, deadline or ``None``) -> its outcome.
StageSolver = Callable[
    [int, list[tuple[Stage, int]], Stage, RoundAssignment, float | None], RawSolve
]


def deadline_of(time_limit: float | None) -> float | None:
    """The ``time.monotonic()`` value a solve with ``time_limit`` (primary and ties) must end by."""
    return None if time_limit is None else time.monotonic() + time_limit


def break_ties(
    data: RoundData, first: RawSolve, solve_stage: StageSolver, deadline: float | None
) -> RawSolve:
    """Apply the tie key to a proven primary optimum by the stage solves (module docstring).

    Parameters
    ----------
    data
        Preprocessed round problem.
    first
        The primary solve. Ties are broken only when it is OPTIMAL (a time-limited incumbent is
        returned unchanged).
    solve_stage
        The backend's tie solve.
    deadline
        ``time.monotonic()`` value shared with the primary solve (``None``: none).

    Returns
    -------
    RawSolve
        The primary's status and bound (primary units), the tie-broken assignment, the summed
        solve time; ``info`` gains ``tie_stages`` (stages) and ``tie_solved`` (stages proven).
        If a stage is not proven optimal (time limit) its assignment, still primary-optimal, is
        kept and the later stages are skipped.
    """
    if first.status is not SolveStatus.OPTIMAL or first.assignment is None or data.empty:
        return first
    plan = stages(data)
    primary = first.assignment.integer_score(data.problem, data.scale)
    best = first.assignment
    runtime = first.runtime_s
    fixed: list[tuple[Stage, int]] = []
    solved = 0
    for stage in plan:
        raw = solve_stage(primary, fixed, stage, best, deadline)
        runtime += raw.runtime_s
        if raw.assignment is not None:
            best = raw.assignment
        if raw.status is not SolveStatus.OPTIMAL or raw.assignment is None:
            break
        solved += 1
        fixed.append((stage, stage.value(gpus_taken(data, best))))
    info = dict(first.info, tie_stages=len(plan), tie_solved=solved)
    return RawSolve(first.status, best, first.bound, runtime, info)
