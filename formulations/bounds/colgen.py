"""The column-generation bound: a time-indexed Dantzig–Wolfe master whose columns are whole
non-preemptive job schedules (docs/formulations.md §2.10 item 7).

A **column** of job j is a start slot s in its window, an option o for life, a last occupied
slot e ≤ s + n_j − 1 and a mode per slot of s..e: *alone* (a full slot brings at most P_jo work
units) or *shared* (j shares at least one of its GPUs; at most ψ_jo, the best capped progress any
partner that fits beside j at option o allows it). Its cost is its earliest finish at those paces
minus its arrival: dt · (e + max(0, W_j − work before e) / pace in e) − a_j, and it must be able
to finish in e. The **master** takes a convex combination of columns per job under two kinds of
rows per slot t: *half-GPUs* (an alone job holds 2·G_j, a shared one G_j, at most 2·|Γ| in all;
the last slot counts in full) and *a partner exists* (per job j and option o: the weight of j's
columns with option o shared in t is at most that of the columns shared in t of the jobs, at
the options, that fit beside j at o).

**Pricing is exact** over every column: for each start, option, last slot, number k of shared
slots before the last and the last slot's mode, the work done and so the cost follow from k, and
the cheapest column shares in the k slots with the largest sharing benefit under the duals
(:func:`price`; :func:`enumerate_columns` is the brute force it is tested against). So the
Lagrangian bound of every iteration is valid, and when no column prices out it equals the
master's LP optimum.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from formulations.bounds.fluid import longest_slots
from formulations.bounds.relaxation import RelaxationBound
from formulations.engines.columns import ColumnLP
from formulations.offline.data import OfflineData
from formulations.offline.pairs import capped_progress
from formulations.result import SolveStatus

#: Cost of one unit of the half-GPU rows' slack, in slots of JCT: the first masters are kept
#: feasible by it; a master that still uses it at the end would mean an infeasible window.
SLACK_SLOTS = 1000.0
#: Wall-clock guard (s): a run it stops is not reproducible; the masters of the suite's 50-job
#: instances reach their optimum in 27–47 s on the reference 2-core machine.
WALL_GUARD_S = 120.0
#: Most pricing rounds (each adds columns; the suite's 20–50-job instances need under 12).
MAX_ITERATIONS = 500
#: A column enters when its reduced cost is below −(this) × max(1, |convexity dual|).
PRICING_TOLERANCE = 1e-7
#: Most columns :func:`full_master` enumerates before refusing.
MAX_ENUMERATED = 400_000

Key = tuple[int, int]  # (job, option); option −1 when the partner rows ignore options


@dataclass(frozen=True, slots=True)
class Column:
    """One job's schedule in the master.

    Attributes
    ----------
    job, option
        Job position and option index (for life).
    start
        First slot held; it holds slots ``start .. start + len(shared) − 1``.
    shared
        Per slot held, whether the job shares a GPU in it.
    cost
        Its finish minus its arrival (s).
    """

    job: int
    option: int
    start: int
    shared: tuple[bool, ...]
    cost: float

    @property
    def end(self) -> int:
        """Last slot held."""
        return self.start + len(self.shared) - 1


@dataclass(frozen=True)
class ColumnSpace:
    """What the columns of ``data`` may be: per job and option the shared pace ψ_jo (work units
    per full slot; 0: nobody fits beside it there), per job n_j (most slots held), and per
    (job, option) key the keys of the partner rows a shared column of it supports."""

    data: OfflineData
    shared_pace: tuple[tuple[int, ...], ...]
    longest: tuple[int, ...]
    by_option: bool
    support: dict[Key, tuple[Key, ...]]

    def key(self, job: int, option: int) -> Key:
        """The partner rows' key of a column of ``job`` at ``option``."""
        return (job, option if self.by_option else -1)


def column_space(data: OfflineData, *, by_option: bool = True) -> ColumnSpace:
    """The column space of ``data`` (``by_option``: partner rows per job and option)."""
    best = [[0] * len(job.options) for job in data.jobs]
    support: dict[Key, set[Key]] = {}
    for j, job in enumerate(data.jobs):
        for o in range(len(job.options)) if by_option else (-1,):
            support[j, o] = set()
    for pair in data.pairs:
        if not pair.any_fit:
            continue
        for combo in pair.options:
            if not combo.fits:
                continue
            for first, i in ((True, pair.first), (False, pair.second)):
                o = combo.option(first)
                best[i][o] = max(best[i][o], capped_progress(data, pair, combo, first))
            a = (pair.first, combo.first_option if by_option else -1)
            b = (pair.second, combo.second_option if by_option else -1)
            support[a].add(b)
            support[b].add(a)
    return ColumnSpace(
        data,
        tuple(tuple(row) for row in best),
        tuple(longest_slots(data)),
        by_option,
        {key: tuple(sorted(value)) for key, value in support.items()},
    )


def column_cost(space: ColumnSpace, job: int, option: int, start: int,
                shared: tuple[bool, ...]) -> float | None:  # fmt: skip
    """The cost (s) of the column, ``None`` if it is not one: it cannot finish in its last
    slot, shares where nobody fits, or leaves the job's windows."""
    data = space.data
    j = data.jobs[job]
    if start not in j.start_slots or start + len(shared) - 1 > j.last_end:
        return None
    if not shared or len(shared) > space.longest[job]:
        return None
    alone, together = j.options[option].alone, space.shared_pace[job][option]
    if any(shared) and together == 0:
        return None
    paces = [together if mode else alone for mode in shared]
    before = sum(paces[:-1])
    if before + paces[-1] < j.work:
        return None
    end = start + len(shared) - 1
    return data.dt * (end + max(0, j.work - before) / paces[-1]) - j.arrival


def enumerate_columns(space: ColumnSpace, job: int) -> Iterator[Column]:
    """Every column of ``job`` (brute force: every start, option, length and mode pattern)."""
    j = space.data.jobs[job]
    for option in range(len(j.options)):
        for start in j.start_slots:
            for length in range(1, min(space.longest[job], j.last_end - start + 1) + 1):
                for shared in itertools.product((False, True), repeat=length):
                    cost = column_cost(space, job, option, start, shared)
                    if cost is not None:
                        yield Column(job, option, start, shared, cost)


def price(
    space: ColumnSpace, job: int, alone_cost: np.ndarray, benefit: np.ndarray
) -> list[tuple[float, Column]]:
    """The cheapest column of ``job`` per (option, start) that has one, with its value: cost +
    Σ_t (``alone_cost[t]`` − ``benefit[option, t]`` if shared in t) over the slots it holds.

    For a start s, last slot e and k shared slots before e, the work done before e is
    (e − s − k)·P + k·ψ whichever k slots they are, so the cheapest such column shares in the
    k slots of s..e−1 with the largest benefit (ties: the earlier slot); every (e, k, last
    mode) is tried. O(|O_j| · |S_j| · n_j² log n_j).
    """
    data = space.data
    j = data.jobs[job]
    cum = np.concatenate([[0.0], np.cumsum(alone_cost)])
    out: list[tuple[float, Column]] = []
    for option, opt in enumerate(j.options):
        alone, together = opt.alone, space.shared_pace[job][option]
        gain = benefit[option]
        for start in j.start_slots:
            best: tuple[float, Column] | None = None
            for end in range(start, min(j.last_end, start + space.longest[job] - 1) + 1):
                held = end - start
                ks = np.arange(held + 1) if together > 0 else np.zeros(1, dtype=np.int64)
                order = np.argsort(-gain[start:end], kind="stable")
                prefix = np.concatenate([[0.0], np.cumsum(gain[start:end][order])])[ks]
                done = (held - ks) * alone + ks * together
                base = cum[end + 1] - cum[start] - j.arrival + data.dt * end
                for last_shared, pace in ((False, alone), (True, together)):
                    if pace <= 0:
                        continue
                    rest = np.maximum(j.work - done, 0) / pace
                    value = base + data.dt * rest - prefix - (gain[end] if last_shared else 0.0)
                    value = np.where(done + pace >= j.work, value, math.inf)
                    k = int(np.argmin(value))
                    if value[k] == math.inf or (best is not None and value[k] >= best[0]):
                        continue
                    shared = [False] * (held + 1)
                    for q in order[:k]:
                        shared[int(q)] = True
                    shared[held] = last_shared
                    cost = data.dt * (end + float(rest[k])) - j.arrival
                    best = (float(value[k]), Column(job, option, start, tuple(shared), cost))
            if best is not None:
                out.append(best)
    return out


class Master:
    """The restricted master LP (HiGHS through :class:`~formulations.engines.columns.ColumnLP`,
    warm-started as columns are added)."""

    def __init__(self, space: ColumnSpace) -> None:
        data = self.data = space.data
        self.space = space
        self.horizon = horizon = data.horizon
        self.capacity = 2.0 * len(data.gpus)
        self.lp = lp = ColumnLP()
        lp.add_rows([-math.inf] * horizon, [self.capacity] * horizon)  # half-GPUs, per slot
        self.partner_row: dict[tuple[int, int, int], int] = {}
        for (j, o), support in space.support.items():
            if support:
                for t in data.jobs[j].slots:
                    self.partner_row[j, o, t] = horizon + len(self.partner_row)
        count = len(self.partner_row)
        lp.add_rows([-math.inf] * count, [0.0] * count)
        n = len(data.jobs)
        self.convexity = lp.add_rows([1.0] * n, [1.0] * n)
        for t in range(horizon):  # slack: keeps the first masters feasible
            lp.add_column(SLACK_SLOTS * data.dt, [t], [-1.0])
        self.columns: list[Column] = []
        self.duals = np.zeros(lp.rows)

    def add(self, column: Column, integer: bool = False) -> None:
        """Add ``column`` (``integer``: as a binary variable)."""
        space, gpus = self.space, self.data.jobs[column.job].gpus
        entries: dict[int, float] = {self.convexity + column.job: 1.0}
        key = space.key(column.job, column.option)
        for q, shared in enumerate(column.shared):
            t = column.start + q
            entries[t] = gpus if shared else 2.0 * gpus
            if shared:
                own = self.partner_row.get((*key, t))
                if own is not None:
                    entries[own] = 1.0
                for other in space.support[key]:
                    row = self.partner_row.get((*other, t))
                    if row is not None:
                        entries[row] = entries.get(row, 0.0) - 1.0
        rows = sorted(entries)
        self.lp.add_column(column.cost, rows, [entries[r] for r in rows], integer=integer)
        self.columns.append(column)

    def solve(self, time_limit: float | None = None) -> float | None:
        """Solve; returns the objective (total JCT, s), ``None`` if HiGHS did not reach the
        restricted master's optimum (then its duals are not to be read)."""
        if self.lp.solve(time_limit) is not SolveStatus.OPTIMAL:
            return None
        self.duals = self.lp.row_duals()
        return self.lp.objective

    def status(self) -> str:
        """HiGHS's model status, in words."""
        return self.lp.describe()

    def slot_costs(self, job: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Under the last duals, per slot: the cost of holding ``job`` alone, per option the
        benefit of the shared mode, and its convexity row's dual."""
        y = self.duals
        price_ = -np.minimum(y[: self.horizon], 0.0)  # ≤ rows: duals ≤ 0 when minimising
        j = self.data.jobs[job]
        alone = 2.0 * j.gpus * price_
        benefit = np.tile(j.gpus * price_, (len(j.options), 1))
        for option in range(len(j.options)):
            key = self.space.key(job, option)
            for t in j.slots:
                own = self.partner_row.get((*key, t))
                if own is not None:
                    benefit[option, t] += min(y[own], 0.0)  # sharing fills its own row
                for other in self.space.support[key]:
                    row = self.partner_row.get((*other, t))
                    if row is not None:
                        benefit[option, t] -= min(y[row], 0.0)  # and relieves its partners'
        return alone, benefit, float(y[self.convexity + job])

    def capacity_term(self) -> float:
        """Σ_t 2|Γ| · (the half-GPU row's dual), the Lagrangian bound's constant part."""
        return self.capacity * float(np.minimum(self.duals[: self.horizon], 0.0).sum())


@dataclass(frozen=True)
class ColgenRun:
    """The column generation's outcome: ``bound`` (the best Lagrangian bound; the master's LP
    optimum when ``status`` is OPTIMAL), the last master's value, rounds, columns and the
    per-round (seconds, master, Lagrangian) values; averages in s."""

    bound: RelaxationBound
    master: float
    iterations: int
    columns: int
    history: tuple[tuple[float, float, float], ...]


def colgen_bound(
    data: OfflineData,
    *,
    by_option: bool = True,
    time_limit: float | None = WALL_GUARD_S,
    deadline: float | None = None,
    max_iterations: int = MAX_ITERATIONS,
) -> ColgenRun:
    """Generate columns until none prices out (the master's LP optimum) or a limit: the
    wall-clock ``time_limit`` (s), the ``time.monotonic()`` ``deadline`` or ``max_iterations``
    rounds; the bound is the best Lagrangian bound seen, valid at every round."""
    if max_iterations < 1:
        raise ValueError(f"max_iterations must be at least 1, not {max_iterations}")
    began = time.monotonic()
    stops = [
        s for s in (deadline, None if time_limit is None else began + time_limit) if s is not None
    ]
    stop = min(stops) if stops else None
    n = len(data.jobs)
    if data.infeasible is not None:
        return ColgenRun(RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0), math.nan, 0, 0, ())
    space = column_space(data, by_option=by_option)
    master = Master(space)
    flat = np.zeros(data.horizon)
    for j, job in enumerate(data.jobs):
        priced = price(space, j, flat, np.zeros((len(job.options), data.horizon)))
        master.add(min(priced, key=lambda p: p[0])[1])
    best, history, status, limit, value = -math.inf, [], SolveStatus.FEASIBLE, None, math.nan
    rounds = 0
    while True:
        rounds += 1
        solved = master.solve()
        if solved is None:  # the bounds so far stand; this round has no duals to price with
            status, limit = SolveStatus.UNKNOWN, f"HiGHS: {master.status()}"
            break
        value = solved
        lagrangian, added = master.capacity_term(), 0
        for j in range(n):
            alone, benefit, sigma = master.slot_costs(j)
            priced = price(space, j, alone, benefit)
            lagrangian += min(v for v, _ in priced)
            for v, column in priced:
                if v - sigma < -PRICING_TOLERANCE * max(1.0, abs(sigma)):
                    master.add(column)
                    added += 1
        best = max(best, lagrangian)
        history.append((time.monotonic() - began, value / n, lagrangian / n))
        if added == 0:
            status = SolveStatus.OPTIMAL  # this round's Lagrangian bound is the LP optimum
            break
        if stop is not None and time.monotonic() >= stop:
            limit = "wall-clock"
            break
        if rounds >= max_iterations:
            limit = "iterations"
            break
    found = best / n if math.isfinite(best) else None
    bound = RelaxationBound(status, found, time.monotonic() - began, limit)
    return ColgenRun(bound, value / n, rounds, len(master.columns), tuple(history))


def full_master(data: OfflineData, *, by_option: bool = True, integer: bool = False,
                time_limit: float = WALL_GUARD_S) -> RelaxationBound:  # fmt: skip
    """The master over every column (:func:`enumerate_columns`; small instances only, at most
    :data:`MAX_ENUMERATED` columns): its LP optimum, equal to :func:`colgen_bound`'s, or with
    ``integer`` one column per job, the relaxation's integer optimum (also a lower bound)."""
    space = column_space(data, by_option=by_option)
    master = Master(space)
    for j in range(len(data.jobs)):
        for column in enumerate_columns(space, j):
            if len(master.columns) >= MAX_ENUMERATED:
                raise ValueError(f"more than {MAX_ENUMERATED} columns: too large to enumerate")
            master.add(column, integer)
    began = time.monotonic()
    value = master.solve(time_limit)
    seconds = time.monotonic() - began
    n = len(data.jobs)
    if value is not None and not integer:
        return RelaxationBound(SolveStatus.OPTIMAL, value / n, seconds)
    dual = master.lp.bound if integer else None
    found = None if dual is None else dual / n  # a MIP's bound, not its incumbent
    if value is not None:
        return RelaxationBound(SolveStatus.OPTIMAL, found, seconds)
    status = SolveStatus.FEASIBLE if found is not None else SolveStatus.UNKNOWN
    return RelaxationBound(status, found, seconds, f"HiGHS: {master.status()}")
