"""``sjf-bsbf``: shortest job first, best sharing benefit first (Luo et al., IWQoS 2024).

Non-preemptive. Per decision, pending jobs are taken in SJF order. A job that fits on idle GPUs
runs alone (``sjf``'s placement). Otherwise each running job that holds all its GPUs alone is a
host candidate; for every memory-feasible accumulation option of the pending job the pairwise
benefit of sharing now versus waiting (:func:`~sjfbsbf.policies.benefit.pair_benefit`) is
estimated per host, and the job's plan for that option is: idle GPUs first, then hosts with
positive benefit, best first, until it has its GPUs. The plan with the best summed benefit over
the options is taken if it exceeds the threshold; otherwise the job waits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sjfbsbf.core.interference import ContentionModel, Occupant
from sjfbsbf.policies.batch import WaitingRows, greedy_batch
from sjfbsbf.policies.benefit import pair_benefit
from sjfbsbf.policies.benefit_kernel import best_hosts, host_benefits
from sjfbsbf.policies.board import Board, HostInfo, HostTable
from sjfbsbf.policies.plans import HostOption, SharePlan, better_plan, build_plan
from sjfbsbf.policies.rounds import GreedyRound, RoundSolver
from sjfbsbf.policies.sjf import sjf_order
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView

#: With ``SjfBsbf.compiled`` None, the compiled estimate is used from this many host candidates.
COMPILED_FROM_HOSTS = 64


class SjfBsbf:
    """Shortest job first; a job that does not fit on idle GPUs shares running jobs' GPUs, at the
    sub-batch whose plan has the best estimated benefit over waiting, or waits (non-preemptive).

    Parameters
    ----------
    threshold
        A plan is taken only if its summed benefit (s) exceeds this (paper: 0).
    max_partners
        Most hosts a job may take GPUs from (``None``: no limit, as in the authors' code).
    retune
        A job that runs on with a reduced micro-batch after its partners left returns to its
        full batch at the next decision (default off: the sub-batch is kept for life).
    wait_aware
        Estimate waiting as "until any G_a GPUs free up" (from the running jobs' predicted
        ends) instead of "until this host ends" (beyond the paper).
    sub_batch
        ``"benefit"`` (default): the option with the best plan; ``"largest"``: only the
        largest micro-batch that fits beside the hosts (ablation); ``"full"``: only the full
        batch, no sub-batch mechanism (ablation).
    mix_idle
        Whether a sharing plan may also take idle GPUs (default, as in the paper's plan:
        "idle GPUs first, then hosts"). ``False`` (beyond the paper, an ablation): a job that
        does not fit on idle GPUs shares only on hosts' GPUs, leaving idle GPUs to the jobs
        behind it.
    backfill_first
        Start every pending job that fits on idle GPUs alone, in SJF order, before any sharing
        plan is made (beyond the paper: what ``sjf-bsbf-plus`` fixes on; default off).

    Attributes
    ----------
    round_solver
        How each decision is filled (:mod:`sjfbsbf.policies.rounds`): the greedy, unless made
        by :meth:`with_round_solver`.
    name
        The policy's name in results (``exact-round`` is this class with another round
        solver).
    """

    name: str
    preemptive = False
    sharing = True
    #: Under a contention model without a sharing rule, estimate with the compiled loops of
    #: :mod:`sjfbsbf.policies.benefit_kernel` (the same floats, so the same decisions): True
    #: always, False never (numpy only; the tests run both and compare), None (default) when
    #: there are at least ``COMPILED_FROM_HOSTS`` host candidates, so that small clusters do
    #: not pay for importing numba.
    compiled: bool | None = None

    def __init__(
        self,
        threshold: float = 0.0,
        max_partners: int | None = None,
        retune: bool = False,
        wait_aware: bool = False,
        sub_batch: str = "benefit",
        mix_idle: bool = True,
        backfill_first: bool = False,
    ) -> None:
        if max_partners is not None and max_partners < 1:
            raise ValueError("max_partners must be at least 1")
        if sub_batch not in ("benefit", "largest", "full"):
            raise ValueError("sub_batch must be 'benefit', 'largest' or 'full'")
        self.threshold = threshold
        self.max_partners = max_partners
        self.retune = retune
        self.wait_aware = wait_aware
        self.sub_batch = sub_batch
        self.mix_idle = mix_idle
        self.backfill_first = backfill_first
        self.round_solver: RoundSolver = GreedyRound()
        self.name = "sjf-bsbf"
        self._outcomes: Counter[str] = Counter()
        self._accumulation: Counter[int] = Counter()
        self._retunes = 0
        self._quiet_epoch: int | None = None  # epoch of the last decision that changed nothing
        self._belief_version = 0  # the view's belief version the caches below were made at
        self._skipped = 0
        # job id -> (T_a, [(s, memory, occupant, T_a')]): a waiting job has not progressed
        # (the policy never preempts), so these stay valid while it waits.
        self._pending_facts: dict[int, tuple[float, list[tuple[int, float, Occupant, float]]]] = {}
        # A waiting job's rows for the compiled greedy, kept while it waits.
        self.waiting_rows = WaitingRows()
        #: (time, summed benefit of the shares started) of every decision that shared.
        self.rounds: list[tuple[float, float]] = []

    @classmethod
    def with_round_solver(cls, round_solver: RoundSolver, name: str, **options: Any) -> SjfBsbf:
        """SJF-BSBF named ``name`` whose decisions ``round_solver`` fills; ``options`` as for
        the constructor (how ``exact-round`` is made)."""
        policy = cls(**options)
        policy.round_solver = round_solver
        policy.name = name
        return policy

    # -- the decision ---------------------------------------------------------------------------
    def decide(self, view: ClusterView) -> Decision:
        """Start alone what fits on idle GPUs; share where the estimated benefit is positive.

        If the last decision changed nothing and only time has passed since (same epoch), the
        answer is again "nothing" and is returned at once: every pair benefit is non-increasing
        while the host runs alone and the pending job waits (docs/model.md §6). This does not
        hold for the wait-aware estimate, which is always recomputed.

        A waiting job's T_a and T_a' are kept while it waits, and dropped when a belief changes
        (``view.belief_version``: an estimator learnt from a finished job, or a running job
        overran its estimate; docs/model.md §4.1).
        """
        if view.belief_version != self._belief_version:
            self._pending_facts.clear()
            self.waiting_rows.clear()
            self._belief_version = view.belief_version
        skip = self.round_solver.skip_unchanged and not self.wait_aware
        if skip and view.epoch == self._quiet_epoch:
            self._skipped += 1
            return Decision()
        decision = self._decide(view)
        self._quiet_epoch = view.epoch if decision.empty else None
        return decision

    def _decide(self, view: ClusterView) -> Decision:
        board = Board.from_view(view)
        retunes = self.retunes_now(view, board) if self.retune else ()
        order = self.pending_order(view)
        if self.backfill_first:
            order = [j for j in order if not self.start_alone(view, board, j)]
        score = self.round_solver.fill(view, board, order, self)
        if score is not None:
            self.rounds.append((view.time, score))
        return Decision(tuple(board.starts), retunes=retunes)

    def pending_order(self, view: ClusterView) -> list[int]:
        """The pending jobs in the order their plans are made: SJF (a subclass may rank them
        otherwise, e.g. the offline incumbent search)."""
        return sjf_order(view)

    # -- the steps a round solver uses (sjfbsbf.policies.rounds.RoundPolicy) ----------------------
    def start_alone(self, view: ClusterView, board: Board, job_id: int) -> bool:
        """Start ``job_id`` alone on idle GPUs at the full batch (sjf's placement) if it fits."""
        placement = board.place_alone(view.job(job_id).gpus)
        if placement is None:
            return False
        board.start(job_id, placement, 1)
        self._pending_facts.pop(job_id, None)
        self.waiting_rows.forget(job_id)
        self._outcomes["alone"] += 1
        return True

    def start_share(self, board: Board, plan: SharePlan) -> None:
        """Start a sharing plan on ``board`` and count it."""
        board.start(plan.job_id, plan.gpus, plan.accumulation)
        self._pending_facts.pop(plan.job_id, None)
        self.waiting_rows.forget(plan.job_id)
        self._outcomes["share"] += 1
        if plan.idle_used:
            self._outcomes["share_with_idle_gpus"] += 1
        self._accumulation[plan.accumulation] += 1

    def note(self, outcome: str, count: int = 1) -> None:
        """Count ``count`` jobs with ``outcome`` in :meth:`stats`' ``outcomes``."""
        self._outcomes[outcome] += count

    def best_plan(self, view: ClusterView, board: Board, job_id: int) -> SharePlan | None:
        """The best sharing plan of a pending job on ``board``, or ``None`` (it waits).

        Records why a job waits: no host at all, no option that fits beside a host (memory, or
        the interference model's sharing rule), or no plan whose benefit clears the threshold.
        """
        table = board.host_table()
        if not len(table.ids):
            self._outcomes["wait_no_host"] += 1
            return None
        gpus_needed = view.job(job_id).gpus
        idle = board.idle() if self.mix_idle else []
        wait: float | None = None
        if self.wait_aware:
            wait = self.waiting_time(view, board, gpus_needed)
        t_full, facts = self.facts(view, job_id)
        best: SharePlan | None = None
        any_fit = False
        rule = view.sharing_rule  # the world's: not a belief (docs/model.md §4.1)
        for s, memory, occ_a, t_sub in facts:
            fit, plan = self._plan_at(
                view,
                table,
                (job_id, gpus_needed, idle),
                s,
                memory,
                occ_a,
                (t_full, t_sub),
                wait,
                rule,
            )
            if not fit:
                continue
            any_fit = True
            if self.sub_batch == "largest":
                best = plan
                break
            best = better_plan(best, plan)
        if best is not None and best.score > self.threshold:
            return best
        self._outcomes["wait_no_benefit" if any_fit else "wait_no_memory"] += 1
        return None

    def _plan_at(
        self,
        view: ClusterView,
        table: HostTable,
        job: tuple[int, int, list[int]],
        s: int,
        memory: float,
        occ_a: Occupant,
        times: tuple[float, float],
        wait: float | None,
        rule: Callable[[Occupant, Occupant], bool] | None,
    ) -> tuple[bool, SharePlan | None]:
        """Whether a job (id, GPUs, idle GPUs it may take) fits beside any host at option ``s``,
        and its plan there (or None).

        Under a contention model without a sharing rule (every preset) the benefits, the memory
        test and the GPU sums come from one compiled loop over the hosts
        (:mod:`sjfbsbf.policies.benefit_kernel`, the same floats); otherwise from numpy.
        """
        t_full, t_sub = times
        job_id, gpus_needed, idle = job
        model = view.interference
        if rule is None and isinstance(model, ContentionModel) and self.use_compiled(table):
            benefit, positive_mask, fit_hosts, _, positive_gpus = host_benefits(
                model,
                (t_full, t_sub, wait, memory, model.sensitivity(occ_a), model.pressure(occ_a)),
                self.retune,
                MEMORY_TOLERANCE_GB,
                table.columns(),
            )
            if not fit_hosts:
                return False, None
            if len(idle) + positive_gpus < gpus_needed:
                return True, None
            chosen = best_hosts(
                benefit, positive_mask, table.gpu_count, gpus_needed - len(idle), self.max_partners
            )
            options = [
                HostOption(int(table.ids[k]), float(benefit[k]), table.infos[k].gpus)
                for k in chosen.tolist()
            ]
            return True, build_plan(job_id, s, idle, options, gpus_needed, self.max_partners)
        else:
            fits = table.room + MEMORY_TOLERANCE_GB >= memory
            if rule is not None:  # pairs the interference model forbids (docs/model.md §3)
                fits &= np.array([rule(occ_a, i.occupant) for i in table.infos], dtype=bool)
            if not fits.any():
                return False, None
            # Enough GPUs beside the hosts that fit at all? (Else no benefit can help.)
            if len(idle) + int(table.gpu_count[fits].sum()) < gpus_needed:
                return True, None
            benefit = self._benefits(view, occ_a, table, t_full, t_sub, wait)
            positive = np.flatnonzero(fits & (benefit > 0))
            if len(idle) + int(table.gpu_count[positive].sum()) < gpus_needed:
                return True, None
        options = self._best_hosts(table, benefit, positive, gpus_needed - len(idle))
        return True, build_plan(job_id, s, idle, options, gpus_needed, self.max_partners)

    def use_compiled(self, table: HostTable) -> bool:
        """Whether to estimate with the compiled loops beside the hosts of ``table``
        (:attr:`compiled`)."""
        if self.compiled is None:
            return len(table.ids) >= COMPILED_FROM_HOSTS
        return self.compiled

    def greedy_batch(
        self, view: ClusterView, board: Board, pending: Sequence[int], first: int
    ) -> tuple[int, list[float]]:
        """Start the shares of ``pending[first:]`` up to the next job that fits alone, in one
        compiled pass where it applies (:func:`~sjfbsbf.policies.batch.greedy_batch`)."""
        return greedy_batch(self, view, board, pending, first)

    def _best_hosts(
        self, table: HostTable, benefit: np.ndarray, positive: np.ndarray, needed: int
    ) -> list[HostOption]:
        """The hosts :func:`build_plan` takes from ``positive``: best benefit first (ties by
        host id), up to the first that brings the GPUs ``needed`` beside the idle ones (and at
        most ``max_partners``). Only these are made options; the plan is the same."""
        order = positive[np.lexsort((table.ids[positive], -benefit[positive]))]
        count = int(np.searchsorted(np.cumsum(table.gpu_count[order]), needed)) + 1
        if self.max_partners is not None:
            count = min(count, self.max_partners)
        return [
            HostOption(int(table.ids[k]), float(benefit[k]), table.infos[k].gpus)
            for k in order[:count]
        ]

    def _options(self, view: ClusterView, job_id: int) -> list[int]:
        options = sorted(view.accumulation_options(job_id))
        return options[:1] if self.sub_batch == "full" else options

    def facts(
        self, view: ClusterView, job_id: int, t_full: float | None = None
    ) -> tuple[float, list[tuple[int, float, Occupant, float]]]:
        """T_a and, per option s: memory, occupant and T_a' of a waiting job (cached).

        ``t_full``: T_a if the caller has it (``view.remaining_exclusives``, the same float).
        """
        facts = self._pending_facts.get(job_id)
        if facts is None:
            if t_full is None:
                t_full = view.remaining_exclusive(job_id, 1)
            facts = (
                t_full,
                [
                    (
                        s,
                        view.memory_gb(job_id, s),
                        view.occupant(job_id, s),
                        t_full if s == 1 else view.remaining_exclusive(job_id, s),
                    )
                    for s in self._options(view, job_id)
                ],
            )
            self._pending_facts[job_id] = facts
        return facts

    def _benefits(
        self,
        view: ClusterView,
        occ_a: Occupant,
        table: HostTable,
        t_full: float,
        t_sub: float,
        wait: float | None,
    ) -> np.ndarray:
        """Pair benefit of a waiting job (as ``occ_a``) beside every host of ``table``."""
        model = view.interference
        if isinstance(model, ContentionModel):
            xi_a = model.slowdowns(model.sensitivity(occ_a), table.pressure)
            xi_b = model.slowdowns(table.sensitivity, model.pressure(occ_a))
        else:
            xi_a = np.array([model.slowdown(occ_a, i.occupant) for i in table.infos])
            xi_b = np.array([model.slowdown(i.occupant, occ_a) for i in table.infos])
        return np.asarray(
            pair_benefit(t_full, t_sub, table.remaining, xi_a, xi_b, wait=wait, retune=self.retune)
        )

    def host_options(
        self,
        view: ClusterView,
        job_id: int,
        s: int,
        hosts: dict[int, HostInfo],
        t_full: float,
        wait: float | None,
    ) -> list[HostOption]:
        """Pair benefit of sharing with each host in ``hosts`` at option s.

        The caller passes only hosts beside which the job fits (memory and sharing rule).
        """
        occ_a = view.occupant(job_id, s)
        t_sub = view.remaining_exclusive(job_id, s)
        model = view.interference
        found: list[HostOption] = []
        for host, info in hosts.items():
            xi_a = model.slowdown(occ_a, info.occupant)
            xi_b = model.slowdown(info.occupant, occ_a)
            benefit = pair_benefit(
                t_full, t_sub, info.remaining, xi_a, xi_b, wait=wait, retune=self.retune
            )
            found.append(HostOption(host, float(benefit), info.gpus))
        return found

    @staticmethod
    def waiting_time(view: ClusterView, board: Board, gpus_needed: int) -> float:
        """Time until ``gpus_needed`` GPUs are idle, from the predicted ends of their jobs."""
        del view
        return board.free_times()[gpus_needed - 1]

    def retunes_now(self, view: ClusterView, board: Board) -> tuple[tuple[int, int], ...]:
        """Return hosts running with a reduced micro-batch to the full batch (``retune``)."""
        out = []
        for job_id in view.running():
            if board.accumulation(job_id) > 1 and board.is_host(job_id):
                out.append((job_id, 1))
                board.retune(job_id, 1)
        self._retunes += len(out)
        return tuple(out)

    def stats(self) -> dict[str, Any]:
        """Outcome counts per considered job, accumulation of shares, retunes, rounds, and the
        round solver's own statistics."""
        return self.round_solver.stats() | {
            "outcomes": dict(self._outcomes),
            "share_accumulation": dict(sorted(self._accumulation.items())),
            "retunes": self._retunes,
            "sharing_rounds": len(self.rounds),
            "skipped_unchanged": self._skipped,
        }
