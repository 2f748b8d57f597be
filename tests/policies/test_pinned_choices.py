"""Choices of the sharing policies that only a golden table used to notice (docs/model.md §5, §6).

Each test puts hosts where it wants them with :mod:```tests/policies/probe.py``` and checks one rule
against numbers derived from the state by the documented formula (``pair_benefit`` on the
view's exclusive times and the interference model's slowdowns), not against a recorded run:

* SJF-BSBF takes positive-benefit hosts best first, ties to the lowest host id (§6 "Plan");
* it takes the best-scoring accumulation option, not the first (or last) feasible one;
* a host's T_b is its remaining exclusive time at its *current* accumulation (§6);
* the wait-aware estimate waits for the G-th GPU to free, not the first (§6 "Wait-aware");
* sjf-ffs takes idle GPUs before GPUs it must share (§5);
* attained service is GPU-seconds, also after a mid-run settle (§4, §5 tiresias).
"""

from __future__ import annotations

import math

import pytest
from probe import ONE_GPU, THREE_GPUS, TWO_GPUS, expected_benefit, look_at, vgg16

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import SjfBsbf, SjfFfs, Tiresias, make_policy
from sjfbsbf.policies.board import Board
from sjfbsbf.policies.plans import HostOption, SharePlan, better_plan, build_plan
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


def only_option(s: int) -> SjfBsbf:
    """SJF-BSBF restricted to accumulation option s (to score one option at a time)."""
    policy = SjfBsbf()
    policy._options = lambda view, job_id: [s]  # type: ignore[method-assign]
    return policy


# -- the pure rules -----------------------------------------------------------------------------
def test_build_plan_takes_hosts_best_first_whatever_their_order() -> None:
    options = [
        HostOption(1, 1.0, (1,)),
        HostOption(2, 3.0, (2,)),
        HostOption(3, 2.0, (3,)),
        HostOption(4, -5.0, (4,)),
    ]
    for ordered in (options, options[::-1]):
        plan = build_plan(9, 1, [], ordered, gpus_needed=2)
        assert plan is not None
        assert plan.hosts == (2, 3) and plan.gpus == (2, 3) and plan.score == 5.0
        one = build_plan(9, 1, [], ordered, gpus_needed=2, max_partners=1)
        assert one is None  # the best host alone has one GPU: not enough
        wide = build_plan(9, 1, [0], ordered, gpus_needed=2, max_partners=1)
        assert wide is not None and wide.hosts == (2,) and wide.gpus == (0, 2)


def test_build_plan_takes_every_positive_host_and_no_other() -> None:
    """Any positive benefit counts, however small; zero and negative never do."""
    small = build_plan(9, 1, [], [HostOption(1, 0.5, (1,))], gpus_needed=1)
    assert small is not None and small.hosts == (1,) and small.score == 0.5
    assert build_plan(9, 1, [], [HostOption(1, 0.0, (1,))], gpus_needed=1) is None
    assert build_plan(9, 1, [], [HostOption(1, -0.5, (1,))], gpus_needed=1) is None
    # Idle GPUs alone need no host: score 0, every idle GPU taken in id order.
    idle = build_plan(9, 1, [4, 6, 7], [HostOption(1, 0.0, (1,))], gpus_needed=2)
    assert idle is not None and idle.hosts == () and idle.gpus == (4, 6) and idle.idle_used == 2


def test_build_plan_ties_go_to_the_lowest_host_id() -> None:
    options = [HostOption(7, 2.0, (0,)), HostOption(3, 2.0, (5,)), HostOption(5, 2.0, (1,))]
    for ordered in (options, options[::-1]):
        plan = build_plan(9, 1, [], ordered, gpus_needed=1)
        assert plan is not None and plan.hosts == (3,) and plan.gpus == (5,)


def test_better_plan_keeps_the_strictly_better_score() -> None:
    low = SharePlan(9, 1, (0,), (1,), 1.0)
    high = SharePlan(9, 2, (0,), (1,), 2.0)
    tie = SharePlan(9, 4, (0,), (1,), 1.0)
    assert better_plan(None, low) is low
    assert better_plan(low, None) is low
    assert better_plan(low, high) is high
    assert better_plan(high, low) is high
    assert better_plan(low, tie) is low  # a tie keeps the earlier (larger micro-batch) option


# -- SJF-BSBF on a probed state -----------------------------------------------------------------
def _sjf_bsbf_full(compiled: bool) -> SjfBsbf:
    """SJF-BSBF at the full batch only, estimating compiled or with numpy (the same plans)."""
    policy = SjfBsbf(sub_batch="full")
    policy.compiled = compiled
    return policy


@pytest.mark.parametrize("compiled", [False, True])
def test_sjf_bsbf_takes_the_best_hosts_first_by_their_benefit(compiled: bool) -> None:
    """Three vgg16 hosts of different lengths on three GPUs; a 2-GPU vgg16 arrives at 10 s.

    All three pair benefits are positive and distinct; the plan takes the best two, best first.
    """
    instance = Instance(
        THREE_GPUS,
        (vgg16(0, 0.0, 2000), vgg16(1, 0.0, 3000), vgg16(2, 0.0, 2500), vgg16(3, 10.0, 300, 2)),
    )

    def look(view: ClusterView) -> tuple[SharePlan | None, dict[int, float]]:
        plan = _sjf_bsbf_full(compiled).best_plan(view, Board.from_view(view), 3)
        return plan, {h: expected_benefit(view, 3, 1, h, 1) for h in (0, 1, 2)}

    plan, benefit = look_at(instance, {j: ((j,), 1) for j in (0, 1, 2)}, 10.0, look)
    ranked = sorted(benefit, key=lambda h: -benefit[h])
    assert min(benefit.values()) > 0 and len(set(benefit.values())) == 3
    assert ranked[:2] != [0, 1] and ranked[:2] != [1, 0]  # not the host-id order
    assert plan is not None and plan.accumulation == 1
    assert plan.hosts == tuple(ranked[:2])
    assert plan.score == pytest.approx(benefit[ranked[0]] + benefit[ranked[1]], rel=1e-12)


@pytest.mark.parametrize("compiled", [False, True])
def test_sjf_bsbf_ties_between_equal_hosts_go_to_the_lowest_id(compiled: bool) -> None:
    """Two identical hosts, job 0 on GPU 1 and job 1 on GPU 0: the sharer joins job 0's GPU."""
    instance = Instance(TWO_GPUS, (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 10.0, 300)))

    def look(view: ClusterView) -> tuple[SharePlan | None, float, float]:
        plan = _sjf_bsbf_full(compiled).best_plan(view, Board.from_view(view), 2)
        return plan, expected_benefit(view, 2, 1, 0, 1), expected_benefit(view, 2, 1, 1, 1)

    plan, b0, b1 = look_at(instance, {0: ((1,), 1), 1: ((0,), 1)}, 10.0, look)
    assert b0 == b1 > 0
    assert plan is not None and plan.hosts == (0,) and plan.gpus == (1,)


def test_sjf_bsbf_takes_the_best_option_not_the_first_nor_the_last() -> None:
    """A 300-iteration vgg16 arrives beside a 1000-iteration vgg16 host on one GPU.

    Every option shares with positive benefit; the scores are not monotone in s, and the
    policy takes the best one (s = 4 with the default catalog).
    """
    instance = Instance(ONE_GPU, (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 300)))

    def look(view: ClusterView) -> tuple[SharePlan | None, dict[int, float], dict[int, float]]:
        plan = SjfBsbf().best_plan(view, Board.from_view(view), 1)
        options = sorted(view.accumulation_options(1))
        by_hand = {s: expected_benefit(view, 1, s, 0, 1) for s in options}
        one_at_a_time = {}
        for s in options:
            single = only_option(s).best_plan(view, Board.from_view(view), 1)
            assert single is not None
            one_at_a_time[s] = single.score
        return plan, by_hand, one_at_a_time

    plan, by_hand, one_at_a_time = look_at(instance, {0: ((0,), 1)}, 10.0, look)
    assert one_at_a_time == pytest.approx(by_hand, rel=1e-12)
    best = max(by_hand, key=lambda s: (by_hand[s], -s))
    assert min(by_hand.values()) > 0
    assert best not in (min(by_hand), max(by_hand))  # neither the first nor the last option
    assert plan is not None and plan.accumulation == best
    assert plan.score == pytest.approx(by_hand[best], rel=1e-12)


def test_host_remaining_time_is_taken_at_its_current_accumulation() -> None:
    """A vgg16 host runs alone at s = 2 (micro-batch 8): T_b is at s = 2, not at the full batch."""
    instance = Instance(ONE_GPU, (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 300)))

    def look(
        view: ClusterView,
    ) -> tuple[tuple[float, float, float, float, SharePlan | None], float]:
        board = Board.from_view(view)
        info = board.hosts()[0]
        table = board.host_table()
        plan = only_option(1).best_plan(view, board, 1)
        return (
            info.remaining,
            float(table.remaining[0]),
            view.remaining_exclusive(0, 2),
            view.remaining_exclusive(0, 1),
            plan,
        ), expected_benefit(view, 1, 1, 0, 2)

    (info_t, table_t, at_2, at_1, plan), benefit = look_at(instance, {0: ((0,), 2)}, 10.0, look)
    assert at_2 > at_1 * 1.05  # the two readings differ clearly
    assert info_t == table_t == at_2
    assert plan is not None and plan.score == pytest.approx(benefit, rel=1e-12)


def test_wait_aware_waits_for_the_gth_gpu_to_free() -> None:
    """Three duration-only jobs of 100, 300 and 200 s on three GPUs; at 10 s they free at 90,
    290 and 190 s from now. A 2-GPU job's wait-aware W is 190 s (the 2nd GPU), a 1-GPU job's
    90 s and a 3-GPU job's 290 s."""
    jobs = (
        Job(0, 0.0, 1, duration=100.0),
        Job(1, 0.0, 1, duration=300.0),
        Job(2, 0.0, 1, duration=200.0),
        Job(3, 10.0, 2, duration=50.0),
    )

    def look(view: ClusterView) -> tuple[list[float], list[float]]:
        board = Board.from_view(view)
        return board.free_times(), [SjfBsbf.waiting_time(view, board, g) for g in (1, 2, 3)]

    plan = {j: ((j,), 1) for j in (0, 1, 2)}
    free, wait = look_at(Instance(THREE_GPUS, jobs), plan, 10.0, look)
    assert free == pytest.approx([90.0, 190.0, 290.0], rel=1e-12)
    assert wait == pytest.approx([90.0, 190.0, 290.0], rel=1e-12)


# -- sjf-ffs ------------------------------------------------------------------------------------
def test_sjf_ffs_takes_idle_gpus_before_shared_ones() -> None:
    """GPU 0 and GPU 2 hold one job each, GPU 1 is idle; a 2-GPU job arrives.

    It takes the idle GPU 1 and then the lowest shareable GPU 0: (0, 1), not (0, 2).
    """
    jobs = (
        Job(0, 0.0, 1, duration=1000.0),
        Job(1, 0.0, 1, duration=1000.0),
        Job(2, 10.0, 2, duration=50.0),
    )

    def look(view: ClusterView) -> tuple[tuple[int, ...], int]:
        decision = SjfFfs().decide(view)
        (start,) = decision.starts
        return start.gpus, start.accumulation

    gpus, s = look_at(Instance(THREE_GPUS, jobs), {0: ((0,), 1), 1: ((2,), 1)}, 10.0, look)
    assert gpus == (0, 1) and s == 1


def test_sjf_ffs_counts_its_outcomes() -> None:
    """Two 1-GPU jobs fill two GPUs alone; a third arrives and shares GPU 0; a 2-GPU job finds
    only one GPU with a single job and waits, then shares both GPUs once job 0 has left GPU 0."""
    jobs = (
        Job(0, 0.0, 1, duration=100.0),
        Job(1, 0.0, 1, duration=200.0),
        Job(2, 10.0, 1, duration=300.0),
        Job(3, 20.0, 2, duration=50.0),
    )
    result = simulate(Instance(TWO_GPUS, jobs), SjfFfs())
    table = result.jobs.set_index("job_id")
    assert table.loc[2, "start"] == 10.0 and table.loc[2, "shared_s"] > 0
    assert table.loc[3, "start"] == math.ceil(table.loc[0, "finish"])  # released at the tick
    assert table.loc[3, "shared_s"] > 0
    assert result.stats["share_accumulation"] == {1: 2}
    # Job 3 waits at its arrival (20 s) and at the interval decisions of 60 s and 120 s.
    assert result.stats["outcomes"] == {"alone": 2, "share": 2, "wait": 3}


def test_sjf_ffs_counts_a_job_no_option_fits_as_waiting() -> None:
    """One GPU with 1e-7 GB too little room for a second job beside the first: the second finds
    a GPU with a single job but no option that fits its memory, and waits at its arrival (10 s)
    and at the interval decision of 60 s, then starts alone when the first finishes at 100 s."""
    jobs = (Job(0, 0.0, 1, duration=100.0), Job(1, 10.0, 1, duration=100.0))
    mem = look_at(Instance(ONE_GPU, jobs), {0: ((0,), 1)}, 10.0, lambda v: v.memory_gb(1, 1))
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=2.0 * mem - 1e-7)
    policy = SjfFfs()
    result = simulate(Instance(cluster, jobs), policy)
    assert list(result.jobs.sort_values("job_id")["start"]) == [0.0, 100.0]
    assert result.stats["outcomes"] == {"alone": 2, "wait": 2}


# -- attained service ---------------------------------------------------------------------------
def test_attained_service_is_gpu_seconds_after_a_mid_run_settle() -> None:
    """A 2-GPU job runs from 0 s; at 50 s a sharer joins one of its GPUs (its progress and
    service are settled then); at 100 s it has held 2 GPUs × 100 s = 200 GPU-s and the sharer
    1 × 50 s. Tiresias with one threshold at 175 GPU-s puts the first in queue 1, the sharer in
    queue 0 (counted in seconds, the first would show 150 and stay in queue 0)."""
    jobs = (
        Job(0, 0.0, 2, duration=1000.0),
        Job(1, 50.0, 1, duration=1000.0),
        Job(2, 100.0, 1, duration=10.0),
    )
    cluster = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)

    def look(view: ClusterView) -> tuple[float, float, int, int]:
        tiresias = Tiresias(thresholds=(175.0,))
        return (
            view.attained_service(0),
            view.attained_service(1),
            tiresias.queue(view, 0),
            tiresias.queue(view, 1),
        )

    seen = look_at(Instance(cluster, jobs), {0: ((0, 1), 1), 1: ((0,), 1)}, 100.0, look)
    assert seen == (pytest.approx(200.0, rel=1e-12), pytest.approx(50.0, rel=1e-12), 1, 0)


def test_sjf_bsbf_records_each_sharing_round_with_its_summed_benefit() -> None:
    """The vgg16 pair above: one round at 10 s whose score is the plan's benefit (s = 4);
    decisions that share nothing record no round."""
    instance = Instance(ONE_GPU, (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 300)))

    def look(view: ClusterView) -> float:
        return expected_benefit(view, 1, 4, 0, 1)

    benefit = look_at(instance, {0: ((0,), 1)}, 10.0, look)
    policy = SjfBsbf()
    result = simulate(instance, policy)
    assert policy.rounds == [(10.0, pytest.approx(benefit, rel=1e-12))]
    assert result.stats["sharing_rounds"] == 1
    assert result.stats["outcomes"]["share"] == 1 and result.stats["share_accumulation"] == {4: 1}


@pytest.mark.parametrize("compiled", [False, True])
def test_a_round_that_starts_two_shares_scores_their_sum(compiled: bool) -> None:
    """Two identical vgg16 hosts on two GPUs; two identical vgg16 jobs arrive at 10 s and each
    shares with one host (s = 4): one round scoring twice the pair benefit. Step by step (two
    hosts are too few for the compiled pass) and in one compiled pass (forced), which returns
    both scores at once (docs/model.md §6)."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 10.0, 300), vgg16(3, 10.0, 300))
    instance = Instance(TWO_GPUS, jobs)
    hosts = {0: ((0,), 1), 1: ((1,), 1)}
    benefit = look_at(instance, hosts, 10.0, lambda view: expected_benefit(view, 2, 4, 0, 1))
    policy = SjfBsbf()
    policy.compiled = compiled
    result = simulate(instance, policy)
    jobs_table = result.jobs.set_index("job_id")
    assert list(jobs_table.loc[[2, 3], "start"]) == [10.0, 10.0]
    assert list(jobs_table.loc[[2, 3], "accumulation"]) == [4, 4]
    assert policy.rounds == [(10.0, pytest.approx(2 * benefit, rel=1e-12))]


# -- memory at and near the boundary ------------------------------------------------------------
def boundary_capacity(mem: float) -> float:
    """A GPU capacity at which a second job of ``mem`` GB fits by exactly the tolerance.

    Room beside the first job plus the tolerance equals ``mem`` to the last bit, and the
    simulator's checker (used ≤ capacity + tolerance) accepts the pair.
    """
    capacity = 2.0 * mem - MEMORY_TOLERANCE_GB
    for _ in range(200):
        room = capacity - mem
        if room + MEMORY_TOLERANCE_GB == mem and mem + mem <= capacity + MEMORY_TOLERANCE_GB:
            return capacity
        direction = math.inf if room + MEMORY_TOLERANCE_GB < mem else -math.inf
        capacity = math.nextafter(capacity, direction)
    raise AssertionError("no exact boundary capacity found")


@pytest.mark.parametrize("policy", ["sjf-ffs", "sjf-bsbf"])
def test_a_sharer_fits_at_the_memory_boundary_and_not_beyond(policy: str) -> None:
    """Two duration-only jobs (the generic profile's memory) on one GPU. With room for the second
    exactly (capacity 2·mem), within the tolerance (room + 1e-9 = mem to the last bit), the
    second shares at its arrival; with 1e-7 GB less it waits for the first to finish."""
    jobs = (Job(0, 0.0, 1, duration=1000.0), Job(1, 10.0, 1, duration=100.0))
    mem = look_at(Instance(ONE_GPU, jobs), {0: ((0,), 1)}, 10.0, lambda v: v.memory_gb(1, 1))
    for capacity, shares in (
        (2.0 * mem, True),
        (boundary_capacity(mem), True),
        (2.0 * mem - 1e-7, False),
    ):
        cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=capacity)
        result = simulate(Instance(cluster, jobs), make_policy(policy))
        start = result.jobs.set_index("job_id").loc[1, "start"]
        assert bool(start == 10.0) is shares, (capacity, start)


def test_sub_batch_largest_takes_the_first_option_that_fits() -> None:
    """The vgg16 pair again: with ``sub_batch="largest"`` the plan is at s = 1 (the largest
    micro-batch; it fits and pays), not at the best-scoring s = 4."""
    instance = Instance(ONE_GPU, (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 300)))

    def look(view: ClusterView) -> tuple[SharePlan | None, float]:
        plan = SjfBsbf(sub_batch="largest").best_plan(view, Board.from_view(view), 1)
        return plan, expected_benefit(view, 1, 1, 0, 1)

    plan, benefit = look_at(instance, {0: ((0,), 1)}, 10.0, look)
    assert plan is not None and plan.accumulation == 1
    assert plan.score == pytest.approx(benefit, rel=1e-12)


def test_a_plan_must_beat_the_threshold_strictly() -> None:
    """The same pair with the threshold at the best plan's score: the job waits; a hair below,
    it shares."""
    instance = Instance(ONE_GPU, (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 300)))

    def look(view: ClusterView) -> tuple[SharePlan | None, SharePlan | None, dict[str, int]]:
        score = expected_benefit(view, 1, 4, 0, 1)
        at = SjfBsbf(threshold=score)
        below = SjfBsbf(threshold=math.nextafter(score, 0.0))
        return (
            at.best_plan(view, Board.from_view(view), 1),
            below.best_plan(view, Board.from_view(view), 1),
            at.stats()["outcomes"],
        )

    at, below, outcomes = look_at(instance, {0: ((0,), 1)}, 10.0, look)
    assert at is None and outcomes == {"wait_no_benefit": 1}
    assert below is not None and below.accumulation == 4
