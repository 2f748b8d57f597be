"""``exact-round``: SJF-BSBF whose round solver solves each round exactly
(docs/formulations.md §1.6).

:func:`exact_round` builds a :class:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf` named ``exact-round`` with
:class:`ExactRound` as its round solver (:mod:`sjfbsbf.policies.rounds`). Per decision: the SJF pass
(pending jobs in SJF order; every job that fits on idle GPUs starts alone at the full batch, with
sjf's placement), then the round problem over the pending jobs left, with the hosts (running jobs
and jobs just started, alone on all their GPUs) and idle GPUs the pass leaves, solved to optimality
by CP-SAT or a MILP; the chosen shares start on their idle GPUs (lowest ids, jobs in SJF order) and
the first n GPUs of each host they use.

At every round with at least one pending job and one host, the policy also runs the sjf-bsbf greedy
on the same round problem and records both objectives (``stats()["round_log"]``).

A run has a wall-clock ``budget`` (default :data:`DEFAULT_BUDGET`) over all its rounds; when it is
spent the run stops with :class:`~sjfbsbf.core.errors.BudgetSpent` (no result is changed by the
budget: a round whose solve was cut by it is never applied). :func:`worst_case_seconds` is the
estimate the command line compares with it before running.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from formulations.result import SolveStatus
from formulations.round.assignment import RoundAssignment, violations
from formulations.round.build import round_problem
from formulations.round.greedy import greedy_round
from formulations.round.preprocess import SCALE
from formulations.round.problem import RoundProblem
from formulations.round.solve import SOLVERS, solve
from sjfbsbf.core.errors import BudgetSpent
from sjfbsbf.policies.board import Board
from sjfbsbf.policies.plans import SharePlan
from sjfbsbf.policies.rounds import RoundPolicy
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.sim.view import ClusterView

#: Round solvers ``exact-round`` takes: those that solve every round ("matching" does not).
POLICY_SOLVERS = tuple(name for name in SOLVERS if name != "matching")

#: Default wall-clock budget of one run's rounds (s): an hour.
DEFAULT_BUDGET = 3600.0

#: Rounds per job in :func:`worst_case_seconds`: a job's arrival and its finish can each leave
#: jobs waiting next to running ones (periodic decisions while jobs wait can add more).
ROUNDS_PER_JOB = 2


def worst_case_seconds(n_jobs: int, time_limit: float | None) -> float:
    """Estimated longest solving time of a run: ``ROUNDS_PER_JOB`` rounds per job, each using
    its whole ``time_limit`` (``inf`` without one). An estimate, not a bound: decisions at the
    decision interval while jobs wait can add rounds, and most rounds solve in well under 0.1 s
    (docs/formulations.md §1.6-1.7)."""
    if time_limit is None:
        return math.inf if n_jobs else 0.0
    return ROUNDS_PER_JOB * n_jobs * time_limit


def budget_warning(n_jobs: int, time_limit: float | None, budget: float | None) -> str | None:
    """One line when :func:`worst_case_seconds` exceeds ``budget`` (else ``None``)."""
    worst = worst_case_seconds(n_jobs, time_limit)
    if budget is None or worst <= budget:
        return None
    limit = "no per-round limit" if time_limit is None else f"{time_limit:g} s each"
    return (
        f"exact-round: up to about {ROUNDS_PER_JOB * n_jobs:,} rounds ({limit}) could take "
        f"{worst:,.0f} s, over the run budget of {budget:,.0f} s; the run stops with an error if "
        "the budget is spent (-o budget=S raises it, -o time_limit=S caps each round)"
    )


def _tolerance(problem: RoundProblem) -> float:
    """Largest re-scored difference integer rounding can cause between two solutions (s)."""
    return 2.0 * len(problem.hosts) / SCALE


class ExactRound:
    """Round solver of ``exact-round``: the SJF pass, then the round problem solved exactly.

    Parameters
    ----------
    solver
        ``"cpsat"`` (default), ``"milp"`` or ``"brute"`` (tiny rounds only).
    time_limit
        Seconds per round solve. If a time-limited solve returns a worse assignment than the
        greedy's, the greedy's is applied (counted in ``stats()["greedy_fallbacks"]``).
    seed
        Backend random seed.
    num_workers
        CP-SAT workers.
    milp_backend
        ``"highs"`` or ``"cbc"`` for ``solver="milp"``.
    budget
        Wall-clock seconds for all rounds of one run (the greedy, the model and the solve;
        ``None``: no limit). A round solve is limited to what is left of it; if the budget is
        spent, or a solve was cut short by it, :class:`~sjfbsbf.core.errors.BudgetSpent` is
        raised, so the budget stops a run but never changes a decision.
    """

    #: Always solve (the exact round is not assumed to stay empty while only time passes).
    skip_unchanged = False

    def __init__(
        self,
        solver: str = "cpsat",
        time_limit: float | None = 10.0,
        seed: int = 0,
        num_workers: int = 1,
        milp_backend: str = "highs",
        budget: float | None = DEFAULT_BUDGET,
    ) -> None:
        if solver not in POLICY_SOLVERS:
            raise ValueError(
                f"unknown solver {solver!r} for exact-round; choose one of "
                f"{', '.join(POLICY_SOLVERS)} (matching solves only rounds that reduce to an "
                "assignment)"
            )
        if milp_backend not in ("highs", "cbc"):
            raise ValueError("milp_backend must be 'highs' or 'cbc'")
        if budget is not None and not (math.isfinite(budget) and budget > 0):
            raise ValueError(f"budget must be positive and finite seconds (or None), got {budget}")
        if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
            raise ValueError(f"time_limit must be positive and finite seconds, got {time_limit}")
        self.solver = solver
        self.budget = budget
        #: Wall-clock seconds spent in rounds so far (greedy, model and solve).
        self.spent = 0.0
        self.time_limit = time_limit
        self.seed = seed
        self.num_workers = num_workers
        self.milp_backend = milp_backend
        self._status: Counter[str] = Counter()
        self._fallbacks = 0
        #: One record per round solved: time, size, status, runtime, greedy and applied ("exact")
        #: objectives, the solver's own re-scored objective, gap, tolerance, greedy feasibility.
        self.round_log: list[dict[str, Any]] = []
        #: The round problems, aligned with :attr:`round_log` (to write the rounds where the
        #: greedy loses most as round files, :mod:`formulations.round.io`); not in ``stats()``.
        self.round_problems: list[RoundProblem] = []

    def fill(
        self, view: ClusterView, board: Board, pending: Sequence[int], policy: RoundPolicy
    ) -> float | None:
        """SJF pass on idle GPUs, then the exact sharing round over the jobs left."""
        if not isinstance(policy, SjfBsbf):
            raise TypeError("ExactRound needs SJF-BSBF's benefit estimate (an SjfBsbf policy)")
        left = [job_id for job_id in pending if not policy.start_alone(view, board, job_id)]
        hosts = board.hosts()
        if left and not hosts:
            policy.note("wait_no_host", len(left))
        if not (left and hosts):
            return None
        started = time.perf_counter()
        try:
            problem = round_problem(view, board, left, policy)
            assignment = self._solve_round(view.time, problem, started)
        finally:
            self.spent += time.perf_counter() - started
        idle = board.idle()
        score = 0.0
        for share in assignment.shares:  # shares on the lowest idle ids, jobs in SJF order
            gpus = idle[: share.idle]
            idle = idle[share.idle :]
            for host, taken in share.hosts:
                gpus = gpus + list(hosts[host].gpus[:taken])
            used = tuple(h for h, _ in share.hosts)
            benefit = sum(problem.benefit[(share.job, share.accumulation, h)] for h in used)
            plan = SharePlan(
                share.job,
                share.accumulation,
                tuple(sorted(gpus)),
                used,
                benefit,
                share.idle,
            )
            policy.start_share(board, plan)
            score += benefit
        policy.note("wait", len(left) - len(assignment.shares))
        return score if assignment.shares else None

    def _left(self, now: float, started: float) -> float | None:
        """Seconds of the budget left (``None``: no budget); raises once it is spent."""
        if self.budget is None:
            return None
        left = self.budget - self.spent - (time.perf_counter() - started)
        if left <= 0:
            raise self._spent_error(now)
        return left

    def _spent_error(self, now: float) -> BudgetSpent:
        return BudgetSpent(
            f"exact-round: its run budget of {self.budget:g} s was spent after "
            f"{len(self.round_log)} round(s), at simulated time {now:,.0f} s (-o budget=S "
            "raises it, -o time_limit=S caps each round)"
        )

    def _solve_round(self, now: float, problem: RoundProblem, started: float) -> RoundAssignment:
        greedy = greedy_round(problem)
        greedy_score = greedy.score(problem)
        limit, left = self.time_limit, self._left(now, started)
        cut = left is not None and (limit is None or left < limit)
        if cut:
            limit = left
        result = solve(
            problem,
            self.solver,
            time_limit=limit,
            seed=self.seed,
            num_workers=self.num_workers,
            milp_backend=self.milp_backend,
            hint=greedy,
        )
        if cut and result.status not in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
            raise self._spent_error(now)  # a solve the budget cut short is never applied
        self._status[result.status.value] += 1
        chosen = greedy
        exact_score = greedy_score
        if result.solution is not None and result.objective is not None:
            proven = result.status is SolveStatus.OPTIMAL
            if proven or result.objective >= greedy_score:
                chosen = result.solution
                exact_score = result.objective
        if chosen is greedy and greedy.shares:
            self._fallbacks += 1
        self.round_problems.append(problem)
        self.round_log.append(
            {
                "time": now,
                "jobs": len(problem.jobs),
                "hosts": len(problem.hosts),
                "idle": problem.idle,
                "status": result.status.value,
                "runtime_s": result.runtime_s,
                "greedy": greedy_score,
                "exact": exact_score,
                "solver_objective": result.objective,
                "gap": exact_score - greedy_score,
                "tolerance": _tolerance(problem),
                "greedy_feasible": not violations(problem, greedy),
            }
        )
        return chosen

    def stats(self) -> dict[str, Any]:
        """Solver statuses, exact-vs-greedy gaps and the per-round log."""
        gaps = [r["gap"] for r in self.round_log]
        better = sum(1 for r in self.round_log if r["gap"] > r["tolerance"])
        return {
            "rounds": len(self.round_log),
            "solver_status": dict(self._status),
            "greedy_fallbacks": self._fallbacks,
            "solve_time_s": sum(r["runtime_s"] for r in self.round_log),
            "budget_spent_s": self.spent,
            "gap_mean": sum(gaps) / len(gaps) if gaps else 0.0,
            "gap_max": max(gaps, default=0.0),
            "exact_better": better,
            "round_log": list(self.round_log),
        }


def exact_round(
    solver: str = "cpsat",
    time_limit: float | None = 10.0,
    seed: int = 0,
    num_workers: int = 1,
    milp_backend: str = "highs",
    threshold: float = 0.0,
    max_partners: int | None = None,
    retune: bool = False,
    wait_aware: bool = False,
    mix_idle: bool = True,
    sub_batch: str = "benefit",
    budget: float | None = DEFAULT_BUDGET,
) -> SjfBsbf:
    """SJF-BSBF with each sharing round solved exactly (CP-SAT or a MILP), not greedily.

    Declared under the ``sjfbsbf.policies`` entry-point group (``pyproject.toml``), so the
    registry finds it without importing the solvers until it is used.

    Parameters
    ----------
    solver, time_limit, seed, num_workers, milp_backend, budget
        See :class:`ExactRound`.
    threshold, max_partners, retune, wait_aware, mix_idle
        The estimate options of :class:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf`, same meaning
        (``mix_idle=False``: the round gets no idle GPUs).
    sub_batch
        ``"benefit"`` (every option) or ``"full"`` (only the full batch).
    """
    if sub_batch not in ("benefit", "full"):
        raise ValueError("exact-round supports sub_batch 'benefit' or 'full'")
    solver_ = ExactRound(solver, time_limit, seed, num_workers, milp_backend, budget)
    return SjfBsbf.with_round_solver(
        solver_,
        "exact-round",
        threshold=threshold,
        max_partners=max_partners,
        retune=retune,
        wait_aware=wait_aware,
        sub_batch=sub_batch,
        mix_idle=mix_idle,
    )
