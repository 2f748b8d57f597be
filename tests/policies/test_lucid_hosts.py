"""Lucid's choice of host, order and memory, by hand, in a world whose slowdowns are set per
victim model (docs/model.md §5, "lucid"): DQN is slowed ×1.01 by anyone (mean speed 0.99: score
0), A2C ×1.08 (0.926: score 1), every other model ×2 (score 2). The scores follow from Lucid's
labels (below 0.85 → 2, below 0.95 → 1, else 0)."""

from __future__ import annotations

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import step_time
from sjfbsbf.policies.lucid import Lucid
from sjfbsbf.sim.simulator import simulate

SLOWDOWN = {"dqn": 1.01, "a2c": 1.08}


class ByVictim:
    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return SLOWDOWN.get(victim.model, 2.0)


WORLD = ByVictim()


def _job(
    i: int, arrival: float, model: str, seconds: float, cluster: Cluster, gpus: int = 1
) -> Job:
    probe = Job(i, arrival, gpus, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    step = step_time(probe, get_catalog("default")[model], 1, False, cluster)
    return Job(
        i, arrival, gpus, model=model, batch=DEFAULT_BATCH[model], iterations=round(seconds / step)
    )


def test_the_earliest_host_wins_across_scores() -> None:
    """Hosts A2C (score 1, arrived at 0) and DQN (score 0, arrived at 1; its priority is over
    twice A2C's, so it did not pack with it and runs alone on GPU 1). A DQN at 10 may pack with
    either (0 + 1 ≤ 2, 0 + 0 ≤ 2) and takes the earlier host, the A2C, though the DQN host is in
    the lower score's list."""
    cluster = Cluster(nodes=1, gpus_per_node=2)
    jobs = (
        _job(0, 0.0, "a2c", 1000.0, cluster),
        _job(1, 1.0, "dqn", 3000.0, cluster),
        _job(2, 10.0, "dqn", 500.0, cluster),
    )
    result = simulate(Instance(cluster, jobs), Lucid(), interference=WORLD)
    assert result.jobs["partners"].tolist() == ["2", "", "0"]


def test_a_job_started_in_a_decision_hosts_the_next_job_of_that_decision() -> None:
    """Two DQNs at 0 (score 0 each): the first starts alone on GPU 0 and, packing first, the
    second joins it there though GPU 1 is idle."""
    cluster = Cluster(nodes=1, gpus_per_node=2)
    jobs = (_job(0, 0.0, "dqn", 600.0, cluster), _job(1, 0.0, "dqn", 600.0, cluster))
    result = simulate(Instance(cluster, jobs), Lucid(), interference=WORLD)
    assert result.placements["gpus"].tolist() == ["0", "0"]


def test_memory_bounds_a_pack() -> None:
    """Two GPT-2s (10.5 GB each) never share a 12 GB GPU, whatever their scores: the second waits
    for the first."""
    cluster = Cluster(nodes=1, gpus_per_node=1)
    SLOWDOWN["gpt2"] = 1.0
    try:
        jobs = (_job(0, 0.0, "gpt2", 300.0, cluster), _job(1, 10.0, "gpt2", 300.0, cluster))
        result = simulate(Instance(cluster, jobs), Lucid(), interference=WORLD)
    finally:
        del SLOWDOWN["gpt2"]
    table = result.jobs.set_index("job_id")
    assert table.loc[1, "start"] == float(-(-table.loc[0, "finish"] // 1))
    assert table["partners"].tolist() == ["", ""]


def test_priority_counts_gpus() -> None:
    """A 2-GPU job of 300 s (priority 600 GPU-s) and a 1-GPU job of 400 s (400) wait behind a
    2-GPU VGG-16 (score 2: nothing packs). When it ends the 1-GPU job starts first, and the
    2-GPU job, which no longer fits, waits for it; ordered by time alone it would start first."""
    cluster = Cluster(nodes=1, gpus_per_node=2)
    jobs = (
        _job(0, 0.0, "vgg16", 500.0, cluster, gpus=2),
        Job(1, 5.0, 2, duration=300.0),
        Job(2, 6.0, 1, duration=400.0),
    )
    result = simulate(Instance(cluster, jobs), Lucid(), interference=WORLD)
    table = result.jobs.set_index("job_id")
    assert table.loc[2, "start"] < table.loc[1, "start"]
    assert table.loc[1, "start"] >= table.loc[2, "finish"]
