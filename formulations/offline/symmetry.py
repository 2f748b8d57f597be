"""Symmetry of the offline model (docs/formulations.md §2.4, reductions): identical jobs and
the GPUs of a node.

:func:`identical_pairs` finds interchangeable jobs (their starts are ordered), :data:`LEX_ROWS`
says which jobs' rows order the GPU columns of a node, and :func:`canonical_schedule` permutes a
schedule (the heuristic's, used as hint and start) so that it satisfies both rules.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from sjfbsbf.core.model import Instance
from sjfbsbf.policies.planned import PlannedStart, Schedule

if TYPE_CHECKING:
    from formulations.offline.data import OfflineData

#: Jobs (first in (arrival, id) order) whose rows order the GPU columns lexicographically.
LEX_ROWS = 16


def identical_pairs(instance: Instance) -> tuple[tuple[int, int], ...]:
    """Consecutive positions of jobs that are interchangeable (same data but the id)."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, job in enumerate(instance.jobs):
        key = (job.arrival, job.gpus, job.model, job.batch, job.iterations, job.duration)
        groups.setdefault(key, []).append(i)
    out: list[tuple[int, int]] = []
    for members in groups.values():
        out.extend(pairwise(members))
    return tuple(sorted(out))


def canonical_schedule(data: OfflineData, schedule: Schedule) -> Schedule:
    """Permute a schedule so that it satisfies the model's symmetry breaking.

    Identical jobs swap plans so that starts are in position order; then, within each node, GPU
    ids are permuted so that the GPU columns of the assignment matrix (rows :attr:`lex_rows`)
    are in non-increasing lexicographic order. The result is an equivalent schedule (same
    simulated JCTs).
    """
    instance = data.instance
    by_position = {instance.index_of(e.job_id): e for e in schedule}
    # Identical jobs: give the earlier position the earlier start (chains of consecutive pairs).
    changed = True
    while changed:
        changed = False
        for i, k in data.identical:
            if by_position[i].start > by_position[k].start:
                a, b = by_position[i], by_position[k]
                by_position[i] = PlannedStart(a.job_id, b.start, b.gpus, b.accumulation)
                by_position[k] = PlannedStart(b.job_id, a.start, a.gpus, a.accumulation)
                changed = True
    rows = data.lex_rows
    mapping: dict[int, int] = {}
    for node in data.nodes:
        columns = []
        for g in node:
            column = tuple(int(g in by_position[r].gpus) for r in rows)
            columns.append((column, g))
        ordered = sorted(columns, key=lambda c: (tuple(-v for v in c[0]), c[1]))
        for target, (_, g) in zip(node, ordered, strict=True):
            mapping[g] = target
    return tuple(
        PlannedStart(e.job_id, e.start, tuple(sorted(mapping[g] for g in e.gpus)), e.accumulation)
        for e in sorted(by_position.values(), key=lambda e: e.job_id)
    )


def canonical_hint(data: OfflineData) -> Schedule | None:
    """The heuristic schedule of ``data``, permuted to satisfy the symmetry breaking (or
    ``None`` without a heuristic schedule): the backends' hint and start."""
    if data.heuristic is None:
        return None
    return canonical_schedule(data, data.heuristic.schedule)
