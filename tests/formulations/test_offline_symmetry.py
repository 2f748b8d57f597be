"""The offline model's symmetry breaking (formulations/offline/symmetry.py, docs/formulations.md
§2.4) by hand: which jobs are interchangeable, and how a schedule is permuted to satisfy both
rules (identical jobs start in position order; GPU columns of a node in non-increasing
lexicographic order over the first jobs' rows, ties by GPU id)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import cast

from formulations.offline.data import OfflineData
from formulations.offline.symmetry import canonical_hint, canonical_schedule, identical_pairs
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies.planned import PlannedStart


def _instance(*jobs: Job, nodes: int = 1, gpus_per_node: int = 4) -> Instance:
    return Instance(Cluster(nodes=nodes, gpus_per_node=gpus_per_node, gpu_mem_gb=16.0), jobs)


def _data(
    instance: Instance,
    identical: tuple[tuple[int, int], ...] = (),
    lex_rows: tuple[int, ...] = (),
    heuristic: object = None,
) -> OfflineData:
    cluster = instance.cluster
    per = cluster.gpus_per_node
    nodes = tuple(tuple(range(n * per, (n + 1) * per)) for n in range(cluster.nodes))
    data = SimpleNamespace(
        instance=instance, identical=identical, lex_rows=lex_rows, nodes=nodes, heuristic=heuristic
    )
    return cast(OfflineData, data)


# -- identical jobs ------------------------------------------------------------------------------
def test_jobs_with_the_same_data_but_the_id_are_identical_in_consecutive_pairs() -> None:
    """Ids 10, 12 and 13 are the same vgg16 job; 11 differs in its arrival only."""
    job = Job(10, 0.0, 1, "vgg16", 16, 100)
    instance = _instance(
        job, replace(job, id=11, arrival=5.0), replace(job, id=12), replace(job, id=13)
    )
    a, b, c = (instance.index_of(i) for i in (10, 12, 13))
    assert identical_pairs(instance) == ((a, b), (b, c))


def test_each_field_but_the_id_tells_two_jobs_apart() -> None:
    job = Job(0, 0.0, 1, "vgg16", 16, 100)
    for other in (
        replace(job, arrival=1.0),
        replace(job, gpus=2),
        replace(job, model="vgg19"),
        replace(job, batch=32),
        replace(job, iterations=101),
    ):
        assert identical_pairs(_instance(job, replace(other, id=1))) == (), other
    assert identical_pairs(_instance(job, replace(job, id=1))) == ((0, 1),)
    timed = Job(0, 0.0, 1, duration=60.0)
    assert identical_pairs(_instance(timed, replace(timed, id=1, duration=61.0))) == ()
    assert identical_pairs(_instance(timed, replace(timed, id=1))) == ((0, 1),)


def test_pairs_of_several_groups_are_sorted() -> None:
    """Two groups, interleaved: (0, 2), (1, 3), (2, 4) in position order."""
    a = Job(0, 0.0, 1, duration=60.0)
    b = Job(1, 0.0, 2, duration=60.0)
    instance = _instance(a, b, replace(a, id=2), replace(b, id=3), replace(a, id=4))
    assert identical_pairs(instance) == ((0, 2), (1, 3), (2, 4))


# -- identical jobs start in position order ------------------------------------------------------
def _three_identical() -> Instance:
    return _instance(*(Job(i, 0.0, 1, duration=60.0) for i in range(3)))


def test_identical_jobs_exchange_their_plans_so_that_starts_follow_positions() -> None:
    """Three identical jobs planned in reverse (starts 120, 60, 0): one pass of swaps is not
    enough; each job keeps its id and takes the start, GPUs and accumulation of the plan."""
    instance = _three_identical()
    plan = (
        PlannedStart(0, 120.0, (2,), 3),
        PlannedStart(1, 60.0, (1,), 2),
        PlannedStart(2, 0.0, (0,), 1),
    )
    data = _data(instance, identical=identical_pairs(instance))
    assert canonical_schedule(data, plan) == (
        PlannedStart(0, 0.0, (0,), 1),
        PlannedStart(1, 60.0, (1,), 2),
        PlannedStart(2, 120.0, (2,), 3),
    )


def test_identical_jobs_already_in_order_or_tied_keep_their_plans() -> None:
    instance = _three_identical()
    plan = (
        PlannedStart(0, 0.0, (2,), 1),
        PlannedStart(1, 0.0, (1,), 2),
        PlannedStart(2, 60.0, (0,), 3),
    )
    data = _data(instance, identical=identical_pairs(instance))
    assert canonical_schedule(data, plan) == plan


def test_jobs_that_are_not_identical_keep_their_plans_whatever_their_starts() -> None:
    instance = _three_identical()
    plan = (
        PlannedStart(0, 120.0, (2,), 1),
        PlannedStart(1, 60.0, (1,), 1),
        PlannedStart(2, 0.0, (0,), 1),
    )
    assert canonical_schedule(_data(instance), plan) == plan


# -- GPU columns in lexicographic order ----------------------------------------------------------
def _four_jobs(nodes: int = 1) -> Instance:
    return _instance(*(Job(i, float(i), 1, duration=60.0) for i in range(4)), nodes=nodes)


def test_gpu_columns_are_ordered_by_the_rows_of_the_first_jobs_then_by_gpu_id() -> None:
    """Rows (0, 1) on GPUs 0–3: job 0 holds GPUs 2 and 3 → columns (1, 0); job 1 holds GPU 1 →
    (0, 1); GPU 0 is (0, 0) though job 2 (not a row) holds it. Non-increasing order: 2, 3 (a tie,
    by id), 1, 0 → renamed 0, 1, 2, 3."""
    instance = _four_jobs()
    plan = (
        PlannedStart(0, 0.0, (2, 3)),
        PlannedStart(1, 1.0, (1,)),
        PlannedStart(2, 2.0, (0,)),
        PlannedStart(3, 3.0, (3, 0)),
    )
    assert canonical_schedule(_data(instance, lex_rows=(0, 1)), plan) == (
        PlannedStart(0, 0.0, (0, 1)),
        PlannedStart(1, 1.0, (2,)),
        PlannedStart(2, 2.0, (3,)),
        PlannedStart(3, 3.0, (1, 3)),
    )


def test_a_later_row_breaks_ties_of_the_earlier_ones() -> None:
    """Job 0 holds GPUs 1 and 3 (a tie in row 0); job 1 holds GPU 3: 3 comes first, then 1."""
    instance = _four_jobs()
    plan = (
        PlannedStart(0, 0.0, (1, 3)),
        PlannedStart(1, 1.0, (3,)),
        PlannedStart(2, 2.0, (0,)),
        PlannedStart(3, 3.0, (2,)),
    )
    assert canonical_schedule(_data(instance, lex_rows=(0, 1)), plan) == (
        PlannedStart(0, 0.0, (0, 1)),
        PlannedStart(1, 1.0, (0,)),
        PlannedStart(2, 2.0, (2,)),
        PlannedStart(3, 3.0, (3,)),
    )


def test_without_rows_every_column_ties_and_gpus_keep_their_ids() -> None:
    instance = _four_jobs()
    plan = tuple(PlannedStart(i, float(i), (3 - i,)) for i in range(4))
    assert canonical_schedule(_data(instance), plan) == plan


def test_gpus_are_renamed_within_their_own_node() -> None:
    """Two nodes of 4, rows (0, 1): job 0 on GPUs 3 (node 0) and 7 (node 1) moves to 0 and 4;
    job 1 on GPU 5 to 5 (node 1's second column); the idle columns follow by id (0 → 1, 6 → 7)."""
    instance = _four_jobs(nodes=2)
    plan = (
        PlannedStart(0, 0.0, (3, 7)),
        PlannedStart(1, 1.0, (5,)),
        PlannedStart(2, 2.0, (0,)),
        PlannedStart(3, 3.0, (6,)),
    )
    assert canonical_schedule(_data(instance, lex_rows=(0, 1)), plan) == (
        PlannedStart(0, 0.0, (0, 4)),
        PlannedStart(1, 1.0, (5,)),
        PlannedStart(2, 2.0, (1,)),
        PlannedStart(3, 3.0, (7,)),
    )


def test_the_schedule_comes_back_in_job_id_order_from_any_order() -> None:
    instance = _four_jobs()
    plan = tuple(PlannedStart(i, float(i), (i,)) for i in (3, 1, 0, 2))
    result = canonical_schedule(_data(instance), plan)
    assert [e.job_id for e in result] == [0, 1, 2, 3]
    assert result == tuple(PlannedStart(i, float(i), (i,)) for i in range(4))


def test_both_rules_together_swap_identical_jobs_before_ordering_columns() -> None:
    """Identical jobs 0 and 1 planned in reverse: after the swap job 0 starts first on GPU 2,
    job 1 on GPU 0; columns over rows (0, 1): GPU 2 (1, 0) becomes 0, GPU 0 (0, 1) becomes 1."""
    instance = _instance(Job(0, 0.0, 1, duration=60.0), Job(1, 0.0, 1, duration=60.0))
    plan = (PlannedStart(0, 60.0, (0,), 2), PlannedStart(1, 0.0, (2,), 1))
    data = _data(instance, identical=((0, 1),), lex_rows=(0, 1))
    assert canonical_schedule(data, plan) == (
        PlannedStart(0, 0.0, (0,), 1),
        PlannedStart(1, 60.0, (1,), 2),
    )


# -- the hint ------------------------------------------------------------------------------------
def test_the_hint_is_the_heuristic_schedule_made_canonical_or_none_without_one() -> None:
    instance = _three_identical()
    plan = (
        PlannedStart(0, 120.0, (2,)),
        PlannedStart(1, 60.0, (1,)),
        PlannedStart(2, 0.0, (0,)),
    )
    run = SimpleNamespace(schedule=plan)
    data = _data(instance, identical=identical_pairs(instance), lex_rows=(0, 1, 2), heuristic=run)
    assert canonical_hint(data) == canonical_schedule(data, plan)
    assert canonical_hint(data) == tuple(PlannedStart(i, 60.0 * i, (i,)) for i in range(3))
    assert canonical_hint(_data(instance)) is None
