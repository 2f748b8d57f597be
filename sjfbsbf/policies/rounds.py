"""How SJF-BSBF fills one decision: the :class:`RoundSolver` protocol and the greedy default.

At every decision SJF-BSBF hands its round solver the board (running jobs, idle GPUs) and the
pending jobs in SJF order; the solver starts some of them, alone or sharing, through the
policy's public methods (:class:`RoundPolicy`). The default, :class:`GreedyRound`, is the paper's
rule (docs/model.md §6): each job in turn starts alone if it fits on idle GPUs, else takes its
best sharing plan if that plan's benefit clears the threshold. ``exact-round``
(``formulations.policy``) is SJF-BSBF with a round solver that solves the round exactly
(docs/formulations.md §1.6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sjfbsbf.policies.board import Board
from sjfbsbf.policies.plans import SharePlan
from sjfbsbf.sim.view import ClusterView


class RoundPolicy(Protocol):
    """What a round solver may use of the policy (SJF-BSBF's public decision steps)."""

    def start_alone(self, view: ClusterView, board: Board, job_id: int) -> bool:
        """Start ``job_id`` alone on idle GPUs (sjf's placement) if it fits; whether it did."""
        ...

    def best_plan(self, view: ClusterView, board: Board, job_id: int) -> SharePlan | None:
        """The job's best sharing plan on ``board`` above the threshold, or ``None``."""
        ...

    def start_share(self, board: Board, plan: SharePlan) -> None:
        """Start a sharing plan on ``board`` and count it."""
        ...

    def note(self, outcome: str, count: int = 1) -> None:
        """Count ``count`` jobs with ``outcome`` (e.g. ``"wait_no_host"``) in the statistics."""
        ...

    def greedy_batch(
        self, view: ClusterView, board: Board, pending: Sequence[int], first: int
    ) -> tuple[int, list[float]]:
        """Decide jobs of ``pending[first:]`` at once as the greedy below would, if it can.

        Returns the index of the next job to look at step by step and the scores of the shares
        it started, in order. Returning ``(first, [])`` is always right."""
        ...


class RoundSolver(Protocol):
    """Fills one decision of SJF-BSBF.

    Attributes
    ----------
    skip_unchanged
        Whether a decision that started nothing stays empty while only time passes (no arrival,
        completion or other event since: same ``view.epoch``), so the policy may skip it. True
        for the greedy (every pair benefit is non-increasing then, docs/model.md §6).
    """

    skip_unchanged: bool

    def fill(
        self, view: ClusterView, board: Board, pending: Sequence[int], policy: RoundPolicy
    ) -> float | None:
        """Start jobs of ``pending`` (SJF order) on ``board`` through ``policy``.

        Returns the summed pair benefit of the shares started, or ``None`` if none was.
        """
        ...

    def stats(self) -> dict[str, Any]:
        """The solver's own statistics (merged into the policy's)."""
        ...


class GreedyRound:
    """The paper's greedy: alone if the job fits on idle GPUs, else its best plan, job by job."""

    skip_unchanged = True

    def fill(
        self, view: ClusterView, board: Board, pending: Sequence[int], policy: RoundPolicy
    ) -> float | None:
        score = 0.0
        shared = False
        at = 0
        while at < len(pending):
            at, scores = policy.greedy_batch(view, board, pending, at)
            for one in scores:  # one by one: the same float sum as step by step
                score += one
                shared = True
            if at == len(pending):
                break
            job_id = pending[at]
            at += 1
            if policy.start_alone(view, board, job_id):
                continue
            plan = policy.best_plan(view, board, job_id)
            if plan is None:
                continue
            policy.start_share(board, plan)
            score += plan.score
            shared = True
        return score if shared else None

    def stats(self) -> dict[str, Any]:
        """No statistics of its own (the policy counts outcomes)."""
        return {}
