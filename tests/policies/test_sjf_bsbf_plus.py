"""``sjf-bsbf-plus`` (docs/model.md §6.1): exactly SJF-BSBF with host-only sharing and the
wait-aware estimate, registered under its own name, never taking idle GPUs into a share."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.core.model import Cluster
from sjfbsbf.policies import SjfBsbf, SjfBsbfPlus, make_policy, policy_names
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.generators import WorkloadSpec, generate


def workload(seed: int, n_jobs: int = 40, load: float = 1.6):
    spec = WorkloadSpec(n_jobs=n_jobs, cluster=Cluster(nodes=1, gpus_per_node=8), load=load)
    return generate(spec, np.random.default_rng(seed))


def test_registered_but_not_in_the_default_comparison() -> None:
    assert "sjf-bsbf-plus" in policy_names()
    assert "sjf-bsbf-plus" not in policy_names(defaults_only=True)
    policy = make_policy("sjf-bsbf-plus")
    assert isinstance(policy, SjfBsbfPlus) and policy.name == "sjf-bsbf-plus"
    assert policy.wait_aware and not policy.mix_idle and policy.threshold == 0.0


def test_its_two_changes_are_fixed() -> None:
    with pytest.raises(TypeError):
        make_policy("sjf-bsbf-plus", mix_idle=True)
    with pytest.raises(TypeError):
        make_policy("sjf-bsbf-plus", wait_aware=False)
    assert make_policy("sjf-bsbf-plus", sub_batch="full").sub_batch == "full"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_schedule_as_sjf_bsbf_with_both_options(seed: int) -> None:
    instance = workload(seed)
    plus = simulate(instance, make_policy("sjf-bsbf-plus"))
    both = simulate(instance, SjfBsbf(mix_idle=False, wait_aware=True))
    columns = ["job_id", "start", "finish", "jct", "partners", "accumulation"]
    pd.testing.assert_frame_equal(plus.jobs[columns], both.jobs[columns])
    assert plus.policy == "sjf-bsbf-plus"


def test_never_shares_with_idle_gpus_where_sjf_bsbf_does() -> None:
    """On these drawn instances the paper's plan swallows idle GPUs into shares; ours never."""
    paper = plus = 0
    for seed in range(4):
        instance = workload(seed)
        paper += (
            simulate(instance, make_policy("sjf-bsbf"))
            .stats["outcomes"]
            .get("share_with_idle_gpus", 0)
        )
        stats = simulate(instance, make_policy("sjf-bsbf-plus")).stats["outcomes"]
        plus += stats.get("share_with_idle_gpus", 0)
        assert stats.get("share", 0) > 0  # it still shares, on hosts
    assert paper > 0 and plus == 0
