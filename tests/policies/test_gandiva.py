"""Gandiva's packing and introspection, by hand (docs/model.md §5, "gandiva").

One GPU of 12 GB, the default (time-slicing contention) world: two DQN jobs at their testbed batch
slow each other to 1/ξ = 0.877 each (combined 1.75 ≥ 1: packing pays), two VGG-16 jobs to
0.486 each (0.97 < 1: packing hurts). ξ is read from the interference model, the finishes follow
from the model's rates (a job works at 1/ξ of its solo rate while packed).
"""

from __future__ import annotations

from typing import Any

import pytest

from sjfbsbf.core.catalog import DEFAULT_BATCH
from sjfbsbf.core.interference import occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.gandiva import Gandiva
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView

ONE_GPU = Cluster(nodes=1, gpus_per_node=1)


def _job(i: int, arrival: float, model: str, seconds: float, cluster: Cluster = ONE_GPU) -> Job:
    """A catalog job that runs ``seconds`` alone (a whole number of iterations)."""
    from sjfbsbf.core.catalog import get_catalog
    from sjfbsbf.core.perf import step_time

    probe = Job(i, arrival, 1, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    step = step_time(probe, get_catalog("default")[model], 1, False, cluster)
    return Job(
        i, arrival, 1, model=model, batch=DEFAULT_BATCH[model], iterations=round(seconds / step)
    )


def _xi(model: str) -> float:
    from sjfbsbf.core.catalog import get_catalog

    job = Job(0, 0.0, 1, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    occ = occupant(job, get_catalog("default")[model], 1)
    return time_slicing().slowdown(occ, occ)


def test_a_pack_that_pays_is_kept() -> None:
    """DQN 0 (1,000 s alone) at 0, DQN 1 (1,000 s) at 10: no idle GPU, so 1 is packed onto 0's
    GPU at 10; at 70 the observed rates sum to 2/ξ ≥ 1 and the pack is kept. Both then work at
    1/ξ until 0 finishes at 10 + 990·ξ; 1 has done (990·ξ)/ξ = 990 s of work by then and ends its
    last 10 s alone."""
    xi = _xi("dqn")
    assert 2 / xi > 1
    jobs = (_job(0, 0.0, "dqn", 1000.0), _job(1, 10.0, "dqn", 1000.0))
    policy = Gandiva()
    result = simulate(Instance(ONE_GPU, jobs), policy)
    table = result.jobs.set_index("job_id")
    work = [float(table.loc[j, "exclusive_s"]) for j in (0, 1)]
    finish0 = 10 + (work[0] - 10) * xi
    assert table.loc[0, "finish"] == pytest.approx(finish0)
    assert table.loc[1, "start"] == 10.0
    release = float(-(-finish0 // 1))  # the tick that frees the GPU and speeds job 1 up
    done1 = (release - 10) / xi
    assert table.loc[1, "finish"] == pytest.approx(release + work[1] - done1)
    assert table["preemptions"].tolist() == [0, 0]
    stats = policy.stats()
    assert (stats["packed"], stats["kept"], stats["unpacked"]) == (1, 1, 0)
    assert stats["bad_pairs"] == []


def test_a_pack_that_hurts_is_unpacked_after_its_period_and_never_repeated() -> None:
    """VGG-16 0 (1,000 s) at 0, VGG-16 1 (1,000 s) at 10, VGG-16 2 (500 s) at 1,500: 1 is packed
    at 10, observed for 60 s (combined rate 2/ξ < 1) and unpacked at 70 (preempted, back to the
    queue); 0 then runs alone and finishes at 70 + (1,000 − 10 − 60/ξ); 1 resumes then (paying the
    30 s restart overhead) with 60/ξ s of work done. Job 2 arrives while 1 runs alone: the pair
    VGG-16 + VGG-16 is known to hurt, so it waits for the GPU instead of packing."""
    xi = _xi("vgg16")
    assert 2 / xi < 1
    jobs = (
        _job(0, 0.0, "vgg16", 1000.0),
        _job(1, 10.0, "vgg16", 1000.0),
        _job(2, 1500.0, "vgg16", 500.0),
    )
    policy = Gandiva()
    result = simulate(Instance(ONE_GPU, jobs), policy, restart_overhead=30.0)
    table = result.jobs.set_index("job_id")
    work = [float(table.loc[j, "exclusive_s"]) for j in (0, 1, 2)]
    finish0 = 70 + (work[0] - 10 - 60 / xi)
    assert table.loc[0, "finish"] == pytest.approx(finish0)
    resume = float(-(-finish0 // 1))
    finish1 = resume + 30 + work[1] - 60 / xi
    assert table.loc[1, "finish"] == pytest.approx(finish1)
    assert table.loc[1, "shared_s"] == pytest.approx(60.0)
    assert table["preemptions"].tolist() == [0, 1, 0]
    assert table.loc[2, "partners"] == ""
    assert table.loc[2, "start"] == float(-(-finish1 // 1))
    stats = policy.stats()
    assert (stats["packed"], stats["kept"], stats["unpacked"]) == (1, 0, 1)
    assert stats["bad_pairs"] == ["vgg16+vgg16"]


def test_the_observation_period_is_an_option() -> None:
    """With a 300 s period the hurting pack shares 300 s before it is unpacked."""
    jobs = (_job(0, 0.0, "vgg16", 1000.0), _job(1, 10.0, "vgg16", 1000.0))
    result = simulate(Instance(ONE_GPU, jobs), make_policy("gandiva", period=300.0))
    assert result.jobs["shared_s"].tolist() == pytest.approx([300.0, 300.0])


def test_the_lowest_utilisation_host_with_the_same_gpu_count_is_chosen() -> None:
    """Three GPUs, busy with VGG-16 (util 0.80), DQN (0.24) and BERT (0.76): a DQN arriving at
    10 is packed with the DQN host (lowest utilisation). A 2-GPU job waiting since 5 has no host
    (none holds two GPUs), and strict FIFO keeps the DQN behind it waiting too: it starts no
    earlier than the 2-GPU job, when GPUs free up."""
    cluster = Cluster(nodes=1, gpus_per_node=3)
    jobs = (
        _job(0, 0.0, "vgg16", 900.0, cluster),
        _job(1, 0.0, "dqn", 900.0, cluster),
        _job(2, 0.0, "bert", 900.0, cluster),
        _job(3, 10.0, "dqn", 300.0, cluster),
    )
    result = simulate(Instance(cluster, jobs), make_policy("gandiva"))
    table = result.jobs.set_index("job_id")
    assert table.loc[3, "partners"] == "1"
    assert table.loc[3, "start"] == 10.0
    blocked = (*jobs, Job(4, 5.0, 2, duration=100.0), _job(5, 20.0, "dqn", 300.0, cluster))
    result = simulate(Instance(cluster, blocked), make_policy("gandiva"))
    table = result.jobs.set_index("job_id")
    assert table.loc[3, "start"] > 10.0 and table.loc[5, "start"] > 20.0
    assert table.loc[4, "start"] <= table.loc[3, "start"]


def test_memory_and_the_sharing_rule_bound_what_is_packed() -> None:
    """GPT-2 (10.5 GB) fills a 12 GB GPU: a DQN (2.2 GB) arriving later is not packed there and
    waits for it."""
    jobs = (_job(0, 0.0, "gpt2", 500.0), _job(1, 10.0, "dqn", 100.0))
    result = simulate(Instance(ONE_GPU, jobs), make_policy("gandiva"))
    table = result.jobs.set_index("job_id")
    assert table.loc[1, "start"] == float(-(-table.loc[0, "finish"] // 1))
    assert result.metrics["shared_gpu_time_share"] == 0.0


def test_gandiva_never_reads_a_predicted_slowdown(monkeypatch: pytest.MonkeyPatch) -> None:
    """It learns only by observing: the belief's slowdowns and predicted finishes are off
    limits (each raises here) and the two hand cases still run."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("gandiva read a prediction")

    monkeypatch.setattr(ClusterView, "slowdown", forbidden)
    monkeypatch.setattr(ClusterView, "predicted_finish", forbidden)
    monkeypatch.setattr(ClusterView, "interference", property(forbidden))
    for model in ("dqn", "vgg16"):
        jobs = (_job(0, 0.0, model, 1000.0), _job(1, 10.0, model, 1000.0))
        result = simulate(Instance(ONE_GPU, jobs), make_policy("gandiva"))
        assert result.jobs["partners"].tolist() == ["1", "0"]


def test_a_bad_period_is_refused() -> None:
    for period in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="period must be positive and finite"):
            Gandiva(period=period)
