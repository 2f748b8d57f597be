"""Gandiva and Lucid under stress: 40 mixed catalog jobs, most arriving at once, on 2 × 4 GPUs of
12 GB, restart overhead 0 and 30 s, memory-tight mixes. Every decision goes through the
feasibility checker (docs/model.md §4), so a run that ends is a run whose every decision was
valid; each run must also finish every job and keep the accounting identities."""

from __future__ import annotations

import numpy as np
import pytest

from sjfbsbf.core.catalog import DEFAULT_BATCH
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import make_interference
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate

CLUSTER = Cluster(nodes=2, gpus_per_node=4, gpu_mem_gb=12.0)
#: Mixes: every catalog model, and one of the heaviest models only (GPT-2 10.5 GB, BERT 8 GB,
#: ResNet-18 6.4 GB: most pairs do not fit in 12 GB).
MIXES = {
    "all": tuple(DEFAULT_BATCH),
    "memory-tight": ("gpt2", "bert", "resnet18", "dqn"),
}


def _instance(seed: int, mix: str) -> Instance:
    rng = np.random.default_rng(seed)
    models = MIXES[mix]
    jobs = []
    for i in range(40):
        model = str(rng.choice(models))
        arrival = 0.0 if i < 30 else float(rng.integers(1, 3000))
        gpus = int(rng.choice([1, 1, 1, 2, 4]))
        jobs.append(
            Job(
                i,
                arrival,
                gpus,
                model=model,
                batch=DEFAULT_BATCH[model],
                iterations=int(rng.integers(200, 4000)),
            )
        )
    return Instance(CLUSTER, tuple(jobs), name=f"stress-{mix}-{seed}")


@pytest.mark.parametrize("policy", ["gandiva", "lucid"])
@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("overhead", [0.0, 30.0])
@pytest.mark.parametrize("interference", ["time-slicing", "mps", "gavel-fitted"])
def test_every_run_finishes_under_the_checker(
    policy: str, mix: str, overhead: float, interference: str
) -> None:
    for seed in range(3):
        instance = _instance(seed, mix)
        chosen = make_policy(policy)
        result = simulate(
            instance,
            chosen,
            restart_overhead=overhead,
            interference=make_interference(interference),
        )
        jobs = result.jobs
        assert len(jobs) == 40 and np.isfinite(jobs["finish"]).all()
        assert (jobs["jct"] >= jobs["exclusive_s"] - 1e-6).all()
        assert (jobs["stretch"] >= 1 - 1e-9).all()
        assert (jobs["shared_s"] <= jobs["jct"] + 1e-6).all()
        if policy == "lucid":
            assert (jobs["preemptions"] == 0).all()


def test_the_stress_mix_exercises_packing_and_unpacking() -> None:
    """The stress instances are not vacuous: over the seeds Gandiva packs, keeps and unpacks,
    and Lucid packs (under MPS, where light models score 1)."""
    counts = {"packed": 0, "kept": 0, "unpacked": 0}
    lucid_packed = 0
    for seed in range(3):
        instance = _instance(seed, "all")
        gandiva = make_policy("gandiva")
        simulate(instance, gandiva, restart_overhead=30.0)
        for key in counts:
            counts[key] += gandiva.stats()[key]
        lucid = make_policy("lucid")
        simulate(instance, lucid, interference=make_interference("mps"))
        lucid_packed += lucid.stats()["outcomes"].get("packed", 0)
    assert min(counts.values()) > 0, counts
    assert lucid_packed > 0
