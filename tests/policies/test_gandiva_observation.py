"""Gandiva's observation window and sharing rule, by hand, in a world whose slowdowns are set per
pair of models (docs/model.md §5, "gandiva"): DQN + DQN slow each other ×3 (1/3 + 1/3 < 1:
packing hurts), DQN + VGG-16 ×1.9 (2/1.9 ≈ 1.05 ≥ 1: it pays, narrowly), any other pair ×2
(1/2 + 1/2 = 1: an exact tie). Two GPUs: a long DQN host on GPU 0 and a long VGG-16 host on
GPU 1 from t = 0; job 2 (DQN) arrives at 10 and is packed with the DQN host (the lower
utilisation), which hurts: it is unpacked at 70 and packed again, with the VGG-16 host, at the
next decision (the interval boundary at 120), now a resumed job that first pays the 30 s restart
overhead."""

from __future__ import annotations

from typing import Any

import pytest

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import step_time
from sjfbsbf.policies.gandiva import Gandiva
from sjfbsbf.sim.simulator import simulate

TWO_GPUS = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=48.0)


class PairTable:
    """Slowdown by the pair of models; ``forbidden`` pairs may not share."""

    def __init__(self, table: dict[frozenset[str], float], forbidden: frozenset[str] = frozenset()):
        self.table, self.forbidden = table, forbidden

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return self.table.get(frozenset((victim.model, other.model)), 2.0)

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        return frozenset((a.model, b.model)) != self.forbidden


def _job(i: int, arrival: float, model: str, seconds: float) -> Job:
    probe = Job(i, arrival, 1, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    step = step_time(probe, get_catalog("default")[model], 1, False, TWO_GPUS)
    return Job(
        i, arrival, 1, model=model, batch=DEFAULT_BATCH[model], iterations=round(seconds / step)
    )


JOBS = (_job(0, 0.0, "dqn", 5000.0), _job(1, 0.0, "vgg16", 5000.0), _job(2, 10.0, "dqn", 2000.0))


def _run(second_pair: float, **kwargs: Any) -> tuple[Any, Gandiva]:
    world = PairTable({frozenset({"dqn"}): 3.0, frozenset({"dqn", "vgg16"}): second_pair})
    policy = Gandiva()
    result = simulate(Instance(TWO_GPUS, JOBS), policy, interference=world, **kwargs)
    return result, policy


def test_a_resumed_newcomer_is_observed_from_the_end_of_its_restart_overhead() -> None:
    """The second pack (at 120) pays: 2/1.9 ≥ 1, measured over [150, 210], after the overhead.
    Measured from 120 instead, job 2 would seem to run at 60/90 of its rate (0.35 + 0.53 < 1)
    and be unpacked."""
    result, policy = _run(1.9, restart_overhead=30.0)
    stats = policy.stats()
    assert (stats["packed"], stats["unpacked"], stats["kept"]) == (2, 1, 1)
    assert result.placements.query("job_id == 2")["start"].tolist() == [10.0, 120.0]
    assert result.jobs.set_index("job_id").loc[2, "preemptions"] == 1


def test_a_resumed_newcomer_is_judged_a_whole_period_after_its_overhead() -> None:
    """When the second pack hurts too (×3), it is unpacked at 120 + 30 + 60 = 210: job 2 shared
    60 s with the DQN host and 90 s with the VGG-16 host."""
    world = PairTable({frozenset({"dqn"}): 3.0, frozenset({"dqn", "vgg16"}): 3.0})
    policy = Gandiva()
    result = simulate(Instance(TWO_GPUS, JOBS), policy, interference=world, restart_overhead=30.0)
    holdings = result.placements.query("job_id == 2")
    assert holdings[["start", "end"]].values.tolist()[:2] == [[10.0, 70.0], [120.0, 210.0]]
    assert policy.stats()["bad_pairs"] == ["dqn+dqn", "dqn+vgg16"]


def test_an_exact_tie_is_kept() -> None:
    """A pair at exactly 1/2 + 1/2 = 1 is as good as running in turn: kept (the rule unpacks
    only below 1 − 10⁻⁹)."""
    world = PairTable({})
    jobs = (_job(0, 0.0, "dqn", 3000.0), _job(1, 10.0, "dqn", 3000.0))
    policy = Gandiva()
    simulate(Instance(Cluster(nodes=1, gpus_per_node=1), jobs), policy, interference=world)
    assert (policy.stats()["kept"], policy.stats()["unpacked"]) == (1, 0)


def test_a_pair_the_sharing_rule_forbids_is_never_packed() -> None:
    """The world forbids DQN + DQN: job 2 skips the (lower-utilisation) DQN host and is packed
    with the VGG-16 host at once."""
    world = PairTable({frozenset({"dqn", "vgg16"}): 1.5}, forbidden=frozenset({"dqn"}))
    result = simulate(Instance(TWO_GPUS, JOBS), Gandiva(), interference=world)
    assert result.jobs.set_index("job_id").loc[2, "partners"] == "1"
    assert result.jobs.set_index("job_id").loc[2, "start"] == 10.0


@pytest.mark.parametrize("overhead", [0.0, 30.0])
def test_the_first_pack_is_unpacked_one_period_after_it_started(overhead: float) -> None:
    """A newcomer that never ran owes no overhead: judged at 10 + 60 = 70 whatever the overhead."""
    result, _ = _run(1.9, restart_overhead=overhead)
    assert result.placements.query("job_id == 2")["end"].tolist()[0] == 70.0
