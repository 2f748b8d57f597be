"""The incumbent search: a better schedule than the four heuristics' (docs/formulations.md §2.2).

The offline model's windows and hint, and the ``"bounds"`` backend's reported schedule U, come
from the best non-preemptive heuristic's simulated schedule; on 20–50 jobs the four policies'
best can lie 10–25% above schedules the same policies reach with other options or another
priority order. The search spends a fixed number of simulations, deterministically:

1. **Variants** (:data:`VARIANTS`): sjf-bsbf with each of the 48 combinations of its
   sub-batch rule, idle GPUs mixed into shares or not, the wait-aware estimate, backfill first
   and at most one partner (docs/model.md §6, §6.1), the defaults first, each simulated once.
2. **Orders**: a first-improvement local search over priority orders, in turn for sjf and for
   the best sjf-bsbf variant of step 1 (a ranking of all jobs replaces SJF order, starting from
   SJF order itself): move one job to another place, drawn from
   ``numpy.random.default_rng(seed)``; keep the new order if the total JCT falls.

Every candidate is a simulated run of a non-preemptive policy that never retunes: one start per
job, its GPUs and accumulation kept for life, so it lies in the model's decision space (§2.9)
and its JCT is the simulator's. The best run wins (ties: the earlier one, the heuristic first).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from formulations.offline.heuristic import HeuristicRun, run_policy
from formulations.offline.progress import profiles
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.policies.sjf import Sjf
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.sim.view import ClusterView

#: sjf-bsbf's options tried in step 1, in this order (the first: the defaults).
VARIANTS: tuple[dict[str, Any], ...] = tuple(
    {
        "sub_batch": sub_batch,
        "mix_idle": mix_idle,
        "wait_aware": wait_aware,
        "backfill_first": backfill_first,
        "max_partners": max_partners,
    }
    for sub_batch, mix_idle, wait_aware, backfill_first, max_partners in itertools.product(
        ("benefit", "largest", "full"), (True, False), (False, True), (False, True), (None, 1)
    )
)


class _Ranked:
    """Makes a policy take pending jobs in the order of ``rank`` (job id -> place, lower first)
    instead of SJF order."""

    rank: Mapping[int, int]

    def pending_order(self, view: ClusterView) -> list[int]:
        """Pending jobs by their place in the ranking."""
        return sorted(view.pending(), key=self.rank.__getitem__)


class RankedSjf(_Ranked, Sjf):
    """sjf starting pending jobs in the order of ``rank``."""

    def __init__(self, rank: Mapping[int, int]) -> None:
        self.rank = rank


class RankedSjfBsbf(_Ranked, SjfBsbf):
    """sjf-bsbf with ``options``, making plans in the order of ``rank``."""

    def __init__(self, rank: Mapping[int, int], **options: Any) -> None:
        super().__init__(**options)
        self.rank = rank


def variant_label(options: Mapping[str, Any]) -> str:
    """``sjf-bsbf(option=value, ...)`` naming the options that differ from the defaults."""
    changed = [f"{k}={v}" for k, v in options.items() if VARIANTS[0][k] != v]
    return f"sjf-bsbf({', '.join(changed)})" if changed else "sjf-bsbf"


def sjf_ranking(instance: Instance) -> list[int]:
    """Job ids in SJF order: (exclusive duration at the full batch on the fewest nodes, id)."""
    cluster = instance.cluster
    key = {
        job.id: (exclusive_duration(job, profile, cluster), job.id)
        for job, profile in zip(instance.jobs, profiles(instance), strict=True)
    }
    return sorted(key, key=key.__getitem__)


def search_incumbent(
    instance: Instance,
    dt: float,
    interference: Interference,
    start: HeuristicRun,
    evaluations: int,
    *,
    seed: int = 0,
    deadline: float | None = None,
) -> HeuristicRun:
    """The best of ``start`` and the runs of the search (module docstring).

    Parameters
    ----------
    instance, dt, interference
        As for the heuristics (:func:`formulations.offline.heuristic.best_heuristic`).
    start
        The heuristics' best run.
    evaluations
        Simulations to spend (the search's only budget, so the result is reproducible).
    seed
        Seed of the moves' generator.
    deadline
        A ``time.monotonic()`` value after which no further simulation starts (``None``: none;
        the wall-clock mode of ``solve_offline``, not reproducible when it stops the search).
    """
    if evaluations < 0:
        raise ValueError(f"evaluations must be non-negative, got {evaluations}")
    best = start
    budget = evaluations

    def better(run: HeuristicRun) -> None:
        nonlocal best
        if run.total_jct < best.total_jct:
            best = run

    tried: list[tuple[float, int]] = []  # (total JCT, variant index)

    def late() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    for index, options in enumerate(VARIANTS[:budget]):
        if late():
            return best
        run = run_policy(instance, SjfBsbf(**options), variant_label(options), dt, interference)
        tried.append((run.total_jct, index))
        better(run)
    budget -= len(tried)
    if budget < 2 or instance.num_jobs < 2:  # each order search starts with one run
        return best
    options = VARIANTS[min(tried)[1]]  # the best variant (ties: the first)
    order = sjf_ranking(instance)
    searches = [OrderSearch(instance, dt, interference, "sjf", {}, order)]
    searches.append(OrderSearch(instance, dt, interference, "sjf-bsbf", options, order))
    budget -= len(searches)  # the starting order of each
    for search in searches:
        better(search.current)
    rng = np.random.default_rng(seed)
    n = instance.num_jobs
    for step in range(max(budget, 0)):
        if late():
            break
        source, target = (int(v) for v in rng.integers(n, size=2))
        if source == target:
            target = (source + 1) % n
        better(searches[step % len(searches)].try_move(source, target))
    return best


class OrderSearch:
    """One first-improvement local search over priority orders of sjf or an sjf-bsbf variant."""

    def __init__(
        self,
        instance: Instance,
        dt: float,
        interference: Interference,
        base: str,
        options: Mapping[str, Any],
        order: Sequence[int],
    ) -> None:
        self.instance = instance
        self.dt = dt
        self.interference = interference
        self.base = base
        self.options = dict(options)
        self.label = (variant_label(options) if base == "sjf-bsbf" else base) + ", searched order"
        self.order = list(order)
        self.current = self.run(self.order)

    def run(self, order: Sequence[int]) -> HeuristicRun:
        """Simulate the base policy ranking jobs in ``order``."""
        rank = {job: place for place, job in enumerate(order)}
        policy = RankedSjf(rank) if self.base == "sjf" else RankedSjfBsbf(rank, **self.options)
        return run_policy(self.instance, policy, self.label, self.dt, self.interference)

    def try_move(self, source: int, target: int) -> HeuristicRun:
        """Move the job at place ``source`` to place ``target``; keep it if the total falls.
        Returns the run of the new order (kept or not)."""
        order = list(self.order)
        order.insert(target, order.pop(source))
        run = self.run(order)
        if run.total_jct < self.current.total_jct:
            self.order, self.current = order, run
        return run
