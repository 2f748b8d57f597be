"""SJF-BSBF's public decision steps, which round solvers use (sjfbsbf/policies/rounds.py).

``exact-round`` (formulations) builds its rounds from ``host_options`` and counts outcomes with
``note``; these tests pin both against the greedy's own vectorised path and the documented
estimate (docs/model.md §6), without the solver.
"""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import assume, given, settings
from probe import THREE_GPUS, expected_benefit, look_at, vgg16

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import SjfBsbf
from sjfbsbf.policies.benefit import pair_benefit
from sjfbsbf.policies.board import Board, HostInfo, HostTable
from sjfbsbf.policies.plans import HostOption, SharePlan, build_plan
from sjfbsbf.policies.rounds import GreedyRound
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView


class Flat:
    """A non-contention interference model (no sensitivity/pressure): every pair slows by 1.15."""

    def slowdown(self, victim: object, other: object) -> float:
        return 1.15


@pytest.mark.parametrize("interference", [None, Flat()], ids=["contention", "flat"])
@pytest.mark.parametrize("retune", [False, True])
@pytest.mark.parametrize("wait", [None, 30.0])
def test_host_options_agree_with_the_estimate_and_the_greedys_vector_path(
    retune: bool, wait: float | None, interference: Flat | None
) -> None:
    """Three vgg16 hosts (150, 3000, 2500 iterations) and a 300-iteration vgg16 at s = 4: host 0
    ends first (so retune matters for it), the others end after the pending job."""
    jobs = (vgg16(0, 0.0, 150), vgg16(1, 0.0, 3000), vgg16(2, 0.0, 2500), vgg16(3, 10.0, 300))
    plan = {j: ((j,), 1) for j in (0, 1, 2)}

    def look(
        view: ClusterView,
    ) -> tuple[list[tuple[int, float, tuple[int, ...]]], list[float], float]:
        policy = SjfBsbf(retune=retune)
        board = Board.from_view(view)
        hosts = board.hosts()
        t_full = view.remaining_exclusive(3, 1)
        found = policy.host_options(view, 3, 4, hosts, t_full, wait)
        occ = view.occupant(3, 4)
        by_hand = [expected_benefit(view, 3, 4, h, 1, wait=wait, retune=retune) for h in (0, 1, 2)]
        vector = policy._benefits(
            view, occ, board.host_table(), t_full, view.remaining_exclusive(3, 4), wait
        )
        assert list(vector) == pytest.approx(by_hand, rel=1e-12)
        plain = expected_benefit(view, 3, 4, 0, 1, wait=wait)  # host 0 without retune
        return [(o.host, o.benefit, o.gpus) for o in found], by_hand, plain

    instance = Instance(THREE_GPUS, jobs)
    found, by_hand, plain = look_at(instance, plan, 10.0, look, interference=interference)  # type: ignore[arg-type]
    assert (by_hand[0] != plain) is retune  # the option matters for the host that ends first
    assert [(h, g) for h, _, g in found] == [(0, (0,)), (1, (1,)), (2, (2,))]
    assert [b for _, b, _ in found] == pytest.approx(by_hand, rel=1e-12)


def test_with_wait_and_retune_the_estimates_differ() -> None:
    """The options the test above varies do change the numbers (else it would prove nothing)."""
    base = pair_benefit(100.0, 150.0, 500.0, 1.2, 1.3)
    assert pair_benefit(100.0, 150.0, 500.0, 1.2, 1.3, wait=30.0) != base
    assert pair_benefit(100.0, 150.0, 50.0, 1.2, 1.3, retune=True) != pair_benefit(
        100.0, 150.0, 50.0, 1.2, 1.3
    )


def test_note_counts_outcomes_once_by_default() -> None:
    policy = SjfBsbf()
    policy.note("wait_no_benefit")
    policy.note("wait_no_benefit", 3)
    policy.note("wait_no_host")
    assert policy.stats()["outcomes"] == {"wait_no_benefit": 4, "wait_no_host": 1}


def test_with_round_solver_names_the_policy_and_keeps_the_options() -> None:
    solver = GreedyRound()
    policy = SjfBsbf.with_round_solver(solver, "my-round", threshold=5.0, max_partners=2)
    assert policy.name == "my-round" and policy.round_solver is solver
    assert policy.threshold == 5.0 and policy.max_partners == 2
    assert SjfBsbf().name == "sjf-bsbf"


def test_start_share_counts_every_share() -> None:
    """Two plans started on one board (each using an idle GPU, both at s = 4) count twice."""
    jobs = (vgg16(0, 0.0, 2000), vgg16(1, 10.0, 300, 2), vgg16(2, 10.0, 300))

    def look(view: ClusterView) -> dict[str, object]:
        policy = SjfBsbf()
        board = Board.from_view(view)
        policy.start_share(board, SharePlan(1, 4, (0, 1), (0,), 1.0, idle_used=1))
        policy.start_share(board, SharePlan(2, 4, (2,), (), 0.5, idle_used=1))
        return policy.stats()

    stats = look_at(Instance(THREE_GPUS, jobs), {0: ((0,), 1)}, 10.0, look)
    assert stats["outcomes"] == {"share": 2, "share_with_idle_gpus": 2}
    assert stats["share_accumulation"] == {4: 2}


def outcomes_of_best_plan(
    instance: Instance, plan: dict[int, tuple[tuple[int, ...], int]]
) -> object:
    """best_plan of the last job of ``instance`` (arriving at 10 s), asked twice, and the
    outcome counts it leaves."""
    pending = instance.jobs[-1].id

    def look(view: ClusterView) -> tuple[object, dict[str, int]]:
        policy = SjfBsbf()
        plans = [policy.best_plan(view, Board.from_view(view), pending) for _ in range(2)]
        return plans, policy.stats()["outcomes"]

    return look_at(instance, plan, 10.0, look)


def test_best_plan_says_why_a_job_waits() -> None:
    """No host (GPU 0 holds two jobs); a host without room (8 GB GPU, 4.8 GB each); a host whose
    pair benefit is negative for every option (the heavy vgg16/vgg19 pair)."""
    one = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
    small = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=8.0)
    generic = (Job(0, 0.0, 1, duration=1000.0), Job(1, 0.0, 1, duration=1000.0))
    cases = [
        (
            Instance(one, (*generic, Job(2, 10.0, 1, duration=50.0))),
            {0: ((0,), 1), 1: ((0,), 1)},
            "wait_no_host",
        ),
        (
            Instance(small, (generic[0], Job(1, 10.0, 1, duration=50.0))),
            {0: ((0,), 1)},
            "wait_no_memory",
        ),
        (
            Instance(one, (Job(0, 0.0, 1, "vgg16", 16, 935), Job(1, 10.0, 1, "vgg19", 16, 825))),
            {0: ((0,), 1)},
            "wait_no_benefit",
        ),
    ]
    for instance, plan, why in cases:
        plans, outcomes = outcomes_of_best_plan(instance, plan)  # type: ignore[misc]
        assert plans == [None, None]
        assert outcomes == {why: 2}


class Picky(Flat):
    """A model with a sharing rule: the pending job may join host 1 only (by memory footprint:
    host 1 is the vgg19, the others are vgg16)."""

    def __init__(self, allowed_memory: float) -> None:
        self.allowed_memory = allowed_memory

    def can_share(self, a: object, b: object) -> bool:
        return bool(getattr(b, "memory_gb", None) == self.allowed_memory)


def test_the_sharing_rule_limits_hosts_and_allows_the_others() -> None:
    """Hosts vgg16 (GPU 0) and vgg19 (GPU 1); the rule allows only the vgg19: the plan takes it,
    although the vgg16 host is the longer one."""
    jobs = (
        vgg16(0, 0.0, 3000),
        Job(1, 0.0, 1, "vgg19", 16, 1000),
        vgg16(2, 10.0, 300),
    )
    two = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)

    def look(view: ClusterView) -> tuple[object, object]:
        rule = Picky(view.occupant(1, 1).memory_gb)
        free = SjfBsbf().best_plan(view, Board.from_view(view), 2)
        return free, rule

    free, rule = look_at(Instance(two, jobs), {0: ((0,), 1), 1: ((1,), 1)}, 10.0, look, Flat())  # type: ignore[arg-type]
    assert free is not None and free.hosts == (0,)  # without a rule: the longer host

    def look_rule(view: ClusterView) -> object:
        return SjfBsbf().best_plan(view, Board.from_view(view), 2)

    ruled = look_at(Instance(two, jobs), {0: ((0,), 1), 1: ((1,), 1)}, 10.0, look_rule, rule)  # type: ignore[arg-type]
    assert ruled is not None and ruled.hosts == (1,)


def test_decisions_where_only_time_moved_are_skipped_and_counted() -> None:
    """A vgg16 host (935 iterations, about 100 s) and a vgg19 that arrives at 1 s and waits (no
    option pays: tests/policies/test_sjf_bsbf.py). With decisions every 20 s, the decision at 1 s
    starts nothing; every interval decision before the host ends sees the same epoch and is
    skipped; at the host's end the
    vgg19 starts alone. The wait-aware estimate and a round solver that does not declare
    ``skip_unchanged`` never skip."""
    instance = Instance(
        Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0),
        (vgg16(0, 0.0, 935), Job(1, 1.0, 1, "vgg19", 16, 825)),
    )
    result = simulate(instance, SjfBsbf(), interval=20.0)
    host_end = result.jobs.set_index("job_id").loc[0, "finish"]
    ticks = [t for t in range(20, int(host_end) + 1, 20) if 1.0 < t < host_end]
    assert len(ticks) >= 2
    assert result.stats["skipped_unchanged"] == len(ticks)
    assert result.stats["outcomes"] == {"alone": 2, "wait_no_benefit": 1}

    class NoSkipRound(GreedyRound):
        skip_unchanged = False

    for never in (SjfBsbf(wait_aware=True), SjfBsbf.with_round_solver(NoSkipRound(), "g")):
        other = simulate(instance, never, interval=20.0)
        assert other.stats["skipped_unchanged"] == 0
        assert other.stats["outcomes"]["wait_no_benefit"] == 1 + len(ticks)


def test_bad_options_are_refused_with_the_rule() -> None:
    with pytest.raises(ValueError, match=r"^max_partners must be at least 1$"):
        SjfBsbf(max_partners=0)
    with pytest.raises(ValueError, match=r"^sub_batch must be 'benefit', 'largest' or 'full'$"):
        SjfBsbf(sub_batch="smallest")
    assert SjfBsbf(max_partners=1).max_partners == 1


@settings(max_examples=200, deadline=None)
@given(
    benefits=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=12),
    widths=st.data(),
    idle=st.integers(0, 3),
    need=st.integers(1, 12),
    max_partners=st.sampled_from([None, 1, 2, 3]),
)
def test_only_the_hosts_a_plan_takes_are_made_options(
    benefits: list[float],
    widths: st.DataObject,
    idle: int,
    need: int,
    max_partners: int | None,
) -> None:
    """The plan from the best hosts alone (best benefit first, ties by host id, up to the one
    that completes the job or ``max_partners``) is the plan from every positive host: equal
    benefits included, so the tie-break by host id must match build_plan's."""
    n = len(benefits)
    gpus = widths.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    ids = widths.draw(st.lists(st.integers(0, 99), min_size=n, max_size=n, unique=True))
    ids.sort()
    gpu_sets, first = [], 100
    for g in gpus:
        gpu_sets.append(tuple(range(first, first + g)))
        first += g
    table = HostTable(
        ids=np.array(ids, dtype=np.int64),
        infos=tuple(HostInfo(s, 10.0, None, 1.0) for s in gpu_sets),  # type: ignore[arg-type]
        gpu_count=np.array(gpus, dtype=np.int64),
        room=np.full(n, 10.0),
        remaining=np.ones(n),
        sensitivity=np.full(n, np.nan),
        pressure=np.full(n, np.nan),
    )
    benefit = np.array(benefits)
    positive = np.flatnonzero(benefit > 0)
    idle_gpus = list(range(idle))
    assume(idle + int(table.gpu_count[positive].sum()) >= need)
    every = [HostOption(ids[k], benefits[k], gpu_sets[k]) for k in positive]
    chosen = SjfBsbf(max_partners=max_partners)._best_hosts(table, benefit, positive, need - idle)
    assert build_plan(9, 1, idle_gpus, chosen, need, max_partners) == build_plan(
        9, 1, idle_gpus, every, need, max_partners
    )
