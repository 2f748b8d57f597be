"""SJF-BSBF's compiled greedy pass (sjfbsbf/policies/batch.py) on hand-built boards (model.md §6).

Two vgg16 hosts alone on GPUs 0 (3000 iterations) and 1 (2500), GPU 2 idle, and pending vgg16
jobs of 300 iterations arriving at 10 s: job 2 on two GPUs, jobs 3 and 4 on one. The tests drive
``greedy_batch`` and ``WaitingRows`` directly and check the plans against the rule written out
(idle GPUs first, then the best host; the best option; a job without a host waits) and against
the step-by-step greedy on numpy, and when the compiled pass must leave the jobs to that greedy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from probe import THREE_GPUS, expected_benefit, look_at, vgg16

from sjfbsbf.core.interference import ContentionModel, Occupant
from sjfbsbf.core.model import Instance
from sjfbsbf.policies import SjfBsbf
from sjfbsbf.policies.batch import WaitingRows, greedy_batch
from sjfbsbf.policies.board import Board
from sjfbsbf.policies.plans import SharePlan
from sjfbsbf.policies.rounds import GreedyRound
from sjfbsbf.sim.view import ClusterView

#: The hosts' GPUs and accumulation (the probe starts them).
HOSTS: dict[int, tuple[tuple[int, ...], int]] = {0: ((0,), 1), 1: ((1,), 1)}
PENDING = [2, 3, 4]


def instance(iterations: int = 300) -> Instance:
    """The hosts and the three pending jobs (job 2 with ``iterations``)."""
    jobs = (
        vgg16(0, 0.0, 3000),
        vgg16(1, 0.0, 2500),
        vgg16(2, 10.0, iterations, 2),
        vgg16(3, 10.0, 300),
        vgg16(4, 10.0, 300),
    )
    return Instance(THREE_GPUS, jobs)


class Recording(SjfBsbf):
    """SJF-BSBF that keeps every plan it starts."""

    def __init__(self, compiled: bool | None, **options: Any) -> None:
        super().__init__(**options)
        self.compiled = compiled
        self.plans: list[SharePlan] = []

    def start_share(self, board: Board, plan: SharePlan) -> None:
        self.plans.append(plan)
        super().start_share(board, plan)


class RuledContention(ContentionModel):
    """Time slicing with a sharing rule (one that allows every pair)."""

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        return True


class Flat:
    """A non-contention interference model: every pair slows by 1.15."""

    def slowdown(self, victim: object, other: object) -> float:
        return 1.15


def best_option(view: ClusterView, job_id: int, host: int) -> tuple[int, float]:
    """The option s with the best pair benefit beside ``host`` (every option fits: 4.224 GB
    beside at most 4.224 GB on a 12 GB GPU) and that benefit."""
    scores = {
        s: expected_benefit(view, job_id, s, host, 1) for s in view.accumulation_options(job_id)
    }
    s = max(sorted(scores), key=lambda k: scores[k])
    return s, scores[s]


def test_the_compiled_pass_starts_the_plans_of_the_rule() -> None:
    """Job 2 takes the idle GPU 2 first, then one host: beside host 0 (T_b ≈ 3000 steps) its
    benefit exceeds that beside host 1 (2500 steps) at every option, so it takes host 0's GPU
    at its best option. Job 3 (nothing idle now) takes host 1, the only host left, at its best
    option. Job 4 waits for want of a host. No job fits alone, so the pass runs to the end
    (index 3) and returns the two scores. The plans are those of the step-by-step greedy on
    numpy on a board of its own (the same floats), and so are the outcomes counted."""

    def look(view: ClusterView) -> tuple[Any, ...]:
        policy = Recording(compiled=True)
        board = Board.from_view(view)
        result = greedy_batch(policy, view, board, PENDING, 0)
        numpy_policy = Recording(compiled=False)
        GreedyRound().fill(view, Board.from_view(view), PENDING, numpy_policy)
        beside = {
            (j, h): [expected_benefit(view, j, s, h, 1) for s in view.accumulation_options(j)]
            for j in (2, 3)
            for h in (0, 1)
        }
        by_hand = (best_option(view, 2, 0), best_option(view, 3, 1))
        return (
            result,
            policy.plans,
            policy.stats()["outcomes"],
            numpy_policy.plans,
            numpy_policy.stats()["outcomes"],
            beside,
            by_hand,
        )

    result, plans, outcomes, numpy_plans, numpy_outcomes, beside, by_hand = look_at(
        instance(), HOSTS, 10.0, look
    )
    assert all(a > b > 0 for a, b in zip(beside[2, 0], beside[2, 1], strict=True))
    assert all(b > 0 for b in beside[3, 1])
    (s2, score2), (s3, score3) = by_hand
    stop, scores = result
    assert stop == 3
    assert scores == pytest.approx([score2, score3], rel=1e-12)
    got = [(p.job_id, p.accumulation, p.gpus, p.hosts, p.idle_used) for p in plans]
    assert got == [(2, s2, (0, 2), (0,), 1), (3, s3, (1,), (1,), 0)]
    assert [p.score for p in plans] == scores
    assert outcomes == {"share": 2, "share_with_idle_gpus": 1, "wait_no_host": 1}
    assert (plans, outcomes) == (numpy_plans, numpy_outcomes)


def test_the_compiled_pass_from_past_the_last_job_starts_nothing() -> None:
    """From index len(pending) there is no job left: the pass returns that index and no
    score, and starts nothing."""

    def look(view: ClusterView) -> tuple[Any, ...]:
        policy = Recording(compiled=True)
        board = Board.from_view(view)
        result = greedy_batch(policy, view, board, PENDING, len(PENDING))
        return result, board.starts, policy.stats()["outcomes"]

    assert look_at(instance(), HOSTS, 10.0, look) == ((3, []), [], {})


@pytest.mark.parametrize(
    ("interference", "compiled", "options"),
    [
        (None, False, {}),
        (None, None, {}),  # two host candidates, fewer than COMPILED_FROM_HOSTS
        (None, True, {"wait_aware": True}),
        (RuledContention(kappa=1.5, eps=0.05), True, {}),
        (Flat(), True, {}),
    ],
    ids=["compiled-off", "few-hosts", "wait-aware", "sharing-rule", "not-contention"],
)
def test_the_compiled_pass_leaves_the_jobs_to_the_step_by_step_greedy(
    interference: Any, compiled: bool | None, options: dict[str, Any]
) -> None:
    """Without the compiled estimate, with the wait-aware estimate, under a sharing rule (even a
    contention model with one) or another interference model, the pass does not apply: it
    returns ``first`` and no score, and starts and counts nothing (the test above shows the
    same board shares under plain contention)."""

    def look(view: ClusterView) -> tuple[Any, ...]:
        policy = Recording(compiled=compiled, **options)
        board = Board.from_view(view)
        result = greedy_batch(policy, view, board, PENDING, 0)
        return result, board.starts, policy.stats()["outcomes"]

    assert look_at(instance(), HOSTS, 10.0, look, interference) == ((0, []), [], {})


def test_the_rows_are_each_options_numbers_from_the_view() -> None:
    """For pending [3, 2]: GPU counts [1, 2]; each job's options (sorted accumulations) are
    consecutive rows, starting at 0 and at job 3's option count; a row is (T_a at s = 1,
    T_a' at s, memory at s, sensitivity and pressure of the occupant at s) as the view and the
    contention model give them, and the accumulations are integers."""

    def look(view: ClusterView) -> tuple[Any, ...]:
        model = view.interference
        rows = WaitingRows().of(SjfBsbf(), view, [3, 2], model)
        options = {j: sorted(view.accumulation_options(j)) for j in (3, 2)}
        expected = [
            [
                view.remaining_exclusive(j, 1),
                view.remaining_exclusive(j, s),
                view.memory_gb(j, s),
                model.sensitivity(view.occupant(j, s)),
                model.pressure(view.occupant(j, s)),
            ]
            for j in (3, 2)
            for s in options[j]
        ]
        return rows, options, expected

    (gpus, starts, numbers, accumulations), options, expected = look_at(
        instance(), HOSTS, 10.0, look
    )
    assert gpus.tolist() == [1, 2]
    assert starts.tolist() == [0, len(options[3]), len(options[3]) + len(options[2])]
    assert numbers.tolist() == expected  # the same floats (remaining_exclusives: the same)
    assert accumulations.tolist() == options[3] + options[2]
    assert accumulations.dtype.kind == "i" and starts.dtype.kind == "i"


def test_a_jobs_rows_are_kept_while_it_waits_and_built_anew_once_forgotten() -> None:
    """Job 2's rows are built from a first state (300 iterations); asked again for a new order
    beside a second state where job 2 has 600 iterations, the kept rows are given (a waiting
    job's numbers do not change); after ``forget(2)`` they are built from the second state:
    T_a doubles (twice the iterations at the same step time)."""
    kept = WaitingRows()

    def first(view: ClusterView) -> float:
        kept.of(SjfBsbf(), view, [2], view.interference)
        return view.remaining_exclusive(2, 1)

    def second(view: ClusterView) -> tuple[np.ndarray, np.ndarray, float]:
        before = kept.of(SjfBsbf(), view, [2], view.interference)[2][:, 0].copy()
        kept.forget(2)
        after = kept.of(SjfBsbf(), view, [2], view.interference)[2][:, 0].copy()
        return before, after, view.remaining_exclusive(2, 1)

    t_short = look_at(instance(300), HOSTS, 10.0, first)
    before, after, t_long = look_at(instance(600), HOSTS, 10.0, second)
    assert t_long == pytest.approx(2 * t_short, rel=1e-12)
    assert before.tolist() == [t_short] * len(before)
    assert after.tolist() == [t_long] * len(after)


def test_the_rows_of_one_order_are_built_once_per_decision() -> None:
    """Asked again for the same pending list (the decision's order, the same object) the rows
    are the very arrays built before; for another list, even an equal one (a new decision),
    they are built anew, with equal contents."""

    def look(view: ClusterView) -> tuple[Any, ...]:
        kept, policy, model = WaitingRows(), SjfBsbf(), view.interference
        order = [3, 2]
        first = kept.of(policy, view, order, model)
        again = kept.of(policy, view, order, model)
        other = kept.of(policy, view, list(order), model)
        return first, again, other

    first, again, other = look_at(instance(), HOSTS, 10.0, look)
    assert again is first
    assert other is not first
    for a, b in zip(first, other, strict=True):
        assert a.tolist() == b.tolist()
