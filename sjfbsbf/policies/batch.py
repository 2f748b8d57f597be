"""SJF-BSBF's greedy over many waiting jobs in one compiled pass (docs/performance.md).

Under a contention model without a sharing rule and without the wait-aware estimate, the jobs
of a decision up to the next one that fits on idle GPUs alone are decided by
:func:`~sjfbsbf.policies.benefit_kernel.greedy` (compiled; the same plans, scores and wait
reasons as the step-by-step greedy of :mod:`sjfbsbf.policies.rounds`, docs/model.md §6), and
their shares are started here. Each waiting job's numbers (T_a, and per option T_a', memory,
sensitivity and pressure) are kept while it waits, as its facts are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from sjfbsbf.core.interference import ContentionModel, Occupant
from sjfbsbf.policies.benefit_kernel import greedy
from sjfbsbf.policies.board import Board, HostTable
from sjfbsbf.policies.plans import SharePlan
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView

#: One option of a waiting job: accumulation, T_a, T_a', memory, sensitivity, pressure.
Row = tuple[int, float, float, float, float, float]
#: GPU counts, where each job's rows start, the rows' numbers and the rows' accumulations.
Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class BatchPolicy(Protocol):
    """What the compiled pass reads of the policy (``SjfBsbf``'s options and steps)."""

    threshold: float
    max_partners: int | None
    retune: bool
    wait_aware: bool
    sub_batch: str
    mix_idle: bool
    waiting_rows: WaitingRows

    def use_compiled(self, table: HostTable) -> bool: ...

    def facts(
        self, view: ClusterView, job_id: int, t_full: float | None = None
    ) -> tuple[float, list[tuple[int, float, Occupant, float]]]: ...

    def note(self, outcome: str, count: int = 1) -> None: ...

    def start_share(self, board: Board, plan: SharePlan) -> None: ...


class WaitingRows:
    """The rows of the waiting jobs of one SJF-BSBF policy, kept while each job waits."""

    def __init__(self) -> None:
        self._by_job: dict[int, list[Row]] = {}
        self._order: Sequence[int] | None = None  # the pending order of the current decision
        self._rows: Rows | None = None

    def clear(self) -> None:
        """Drop every job's rows (the beliefs changed, docs/model.md §4.1)."""
        self._by_job.clear()
        self._order = None
        self._rows = None

    def forget(self, job_id: int) -> None:
        """Drop a job's rows (it started)."""
        self._by_job.pop(job_id, None)

    def of(
        self,
        policy: BatchPolicy,
        view: ClusterView,
        pending: Sequence[int],
        model: ContentionModel,
    ) -> Rows:
        """The rows of ``pending`` (the decision's order; built once per decision)."""
        if self._order is pending and self._rows is not None:
            return self._rows
        cache = self._by_job
        # T_a of the jobs not seen yet at once: a waiting job's remaining exclusive time at
        # s = 1 on the fewest nodes, as remaining_exclusive(j, 1) gives it.
        new = [j for j in pending if j not in cache]
        fresh = dict(zip(new, view.remaining_exclusives(new).tolist(), strict=True))
        starts = [0]
        rows: list[Row] = []
        for job_id in pending:
            found = cache.get(job_id)
            if found is None:
                t_full, facts = policy.facts(view, job_id, fresh[job_id])
                found = cache[job_id] = [
                    (s, t_full, t_sub, memory, model.sensitivity(occ), model.pressure(occ))
                    for s, memory, occ, t_sub in facts
                ]
            rows.extend(found)
            starts.append(len(rows))
        table = np.array(rows, dtype=float).reshape(-1, 6)
        self._order = pending
        self._rows = (
            view.gpu_counts(pending),
            np.array(starts, dtype=np.int64),
            np.ascontiguousarray(table[:, 1:]),
            table[:, 0].astype(np.int64),
        )
        return self._rows


def greedy_batch(
    policy: BatchPolicy, view: ClusterView, board: Board, pending: Sequence[int], first: int
) -> tuple[int, list[float]]:
    """Start the shares of ``pending[first:]`` up to the next job that fits alone.

    Returns the index of the next job to look at step by step (``first`` when the compiled
    pass does not apply: another interference model, a sharing rule, the wait-aware estimate,
    or few hosts, :attr:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf.compiled`) and the scores of the
    shares started, in order. Jobs that wait are counted in the policy's outcomes.
    """
    if first < len(pending) and view.job(pending[first]).gpus <= board.idle_count:
        return first, []  # it starts alone
    model = view.interference
    if (
        policy.wait_aware
        or not isinstance(model, ContentionModel)
        or view.sharing_rule is not None
        or not policy.use_compiled(board.host_table())
    ):
        return first, []
    gpus, row_start, rows, row_s = policy.waiting_rows.of(policy, view, pending, model)
    table = board.host_table()
    idle = board.idle() if policy.mix_idle else []
    stop, plans, scores, taken, waits = greedy(
        model,
        first,
        (gpus, row_start, rows),
        (
            policy.threshold,
            policy.max_partners,
            policy.retune,
            policy.sub_batch == "largest",
            policy.mix_idle,
        ),
        MEMORY_TOLERANCE_GB,
        board.idle_count,
        table.columns(),
    )
    for outcome, count in zip(
        ("wait_no_host", "wait_no_benefit", "wait_no_memory"), waits, strict=True
    ):
        if count:
            policy.note(outcome, count)
    started = []
    for (j, r, used_idle, begin, end), score in zip(plans.tolist(), scores.tolist(), strict=True):
        need = int(gpus[j])
        # build_plan: idle GPUs first, lowest ids. A plan that takes idle GPUs takes them all
        # (fewer than its job needs, else the job fits alone and ends the pass), so only the
        # first plan can take any, and it takes them from the start of the list.
        chosen = idle[:used_idle]
        hosts = []
        for k in taken[begin:end].tolist():  # then each host's first GPUs, best host first
            chosen = chosen + list(table.infos[k].gpus[: need - len(chosen)])
            hosts.append(int(table.ids[k]))
        plan = SharePlan(
            pending[j], int(row_s[r]), tuple(sorted(chosen)), tuple(hosts), score, used_idle
        )
        policy.start_share(board, plan)
        started.append(score)
    return stop, started
