"""Pairs of jobs that may co-run, with every option combination (docs/formulations.md §2.2).

For each pair whose windows overlap or touch, :func:`job_pairs` lists the combinations of their
options: whether they fit together (memory and the interference model's sharing rule) and each
job's full-slot progress beside the other (rounded up, :func:`~.progress.slot_progress`).
"""

from __future__ import annotations

import math
from itertools import combinations

from formulations.offline.data import JobData, OfflineData, PairData, PairOption
from formulations.offline.progress import slot_progress
from sjfbsbf.core.interference import Interference, Occupant, can_share
from sjfbsbf.core.model import Instance
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB


def job_pairs(
    instance: Instance,
    jobs: list[JobData],
    occupants: list[dict[int, Occupant]],
    works: list[int],
    model: Interference,
    dt: float,
) -> list[PairData]:
    """Every pair of jobs whose windows overlap or touch, in position order."""
    cluster = instance.cluster
    n = instance.num_jobs
    pairs = []
    mem_cap = cluster.gpu_mem_gb + MEMORY_TOLERANCE_GB
    for i, k in combinations(range(n), 2):
        lo = max(jobs[i].first_start, jobs[k].first_start)
        hi = min(jobs[i].last_end, jobs[k].last_end)
        if lo > hi + 1:  # adjacent windows are kept for the no-idle-wait rule
            continue
        combos = []
        for oi, opt_i in enumerate(jobs[i].options):
            for ok, opt_k in enumerate(jobs[k].options):
                occ_i = occupants[i][opt_i.accumulation]
                occ_k = occupants[k][opt_k.accumulation]
                # A pair the interference model forbids (docs/model.md §3) never fits.
                allowed = can_share(model, occ_i, occ_k)
                fits = allowed and occ_i.memory_gb + occ_k.memory_gb <= mem_cap
                xi_i = model.slowdown(occ_i, occ_k) if allowed else math.inf
                xi_k = model.slowdown(occ_k, occ_i) if allowed else math.inf
                # A pair that does not fit never co-runs: each keeps its progress alone.
                prog_i, prog_k = opt_i.alone, opt_k.alone
                if fits:
                    prog_i = min(slot_progress(works[i], dt, opt_i.duration_s, xi_i), prog_i)
                    prog_k = min(slot_progress(works[k], dt, opt_k.duration_s, xi_k), prog_k)
                combos.append(
                    PairOption(
                        first_option=oi,
                        second_option=ok,
                        fits=fits,
                        first_progress=prog_i,
                        second_progress=prog_k,
                        first_slowdown=xi_i,
                        second_slowdown=xi_k,
                    )
                )
        pairs.append(PairData(i, k, range(lo, hi + 1), tuple(combos)))
    return pairs


def slowing_options(data: OfflineData, pair: PairData, position: int) -> tuple[int, ...]:
    """Indices of a pair's option combinations that fit and slow job ``position`` down."""
    if not pair.any_fit:
        return ()
    first = position == pair.first
    job = data.jobs[position]
    return tuple(
        n
        for n, c in enumerate(pair.options)
        if c.fits and c.progress(first) < job.options[c.option(first)].alone
    )


def capped_progress(data: OfflineData, pair: PairData, combo: PairOption, first: bool) -> int:
    """Work units one full slot brings the pair's first (or second) job beside the other in
    ``combo``, capped by its option's alone progress (as θ of §2.4)."""
    i = pair.first if first else pair.second
    return min(combo.progress(first), data.jobs[i].options[combo.option(first)].alone)


def sharing_progress(data: OfflineData) -> list[int]:
    """Per job, the most work units one full slot brings it while it shares a GPU: the best
    :func:`capped_progress` over its partners and their fitting option combinations (0 for a job
    that fits beside nobody). ψ_j · top_j of §2.10."""
    best = [0] * len(data.jobs)
    for pair in data.pairs:
        for combo in pair.options:
            if combo.fits:
                for first, i in ((True, pair.first), (False, pair.second)):
                    best[i] = max(best[i], capped_progress(data, pair, combo, first))
    return best
