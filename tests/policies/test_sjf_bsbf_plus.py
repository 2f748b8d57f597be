"""``sjf-bsbf-plus`` (docs/model.md §6.1): exactly SJF-BSBF with backfill-first decisions,
registered under its own name; a hand-checked case where the paper's greedy swallows an idle GPU
into a share and ours gives it to the job behind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import SjfBsbf, SjfBsbfPlus, make_policy, policy_names
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.generators import WorkloadSpec, generate


def workload(seed: int, n_jobs: int = 40, load: float = 1.6) -> Instance:
    spec = WorkloadSpec(n_jobs=n_jobs, cluster=Cluster(nodes=1, gpus_per_node=8), load=load)
    return generate(spec, np.random.default_rng(seed))


def test_registered_but_not_in_the_default_comparison() -> None:
    assert "sjf-bsbf-plus" in policy_names()
    assert "sjf-bsbf-plus" not in policy_names(defaults_only=True)
    policy = make_policy("sjf-bsbf-plus")
    assert isinstance(policy, SjfBsbfPlus) and policy.name == "sjf-bsbf-plus"
    assert policy.backfill_first and policy.mix_idle and not policy.wait_aware
    assert policy.threshold == 0.0


def test_its_change_is_fixed() -> None:
    for option in ("backfill_first", "mix_idle", "wait_aware"):
        with pytest.raises(TypeError):
            make_policy("sjf-bsbf-plus", **{option: True})
    assert make_policy("sjf-bsbf-plus", sub_batch="full").sub_batch == "full"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_schedule_as_sjf_bsbf_with_backfill_first(seed: int) -> None:
    instance = workload(seed)
    plus = simulate(instance, make_policy("sjf-bsbf-plus"))
    same = simulate(instance, SjfBsbf(backfill_first=True))
    columns = ["job_id", "start", "finish", "jct", "partners", "accumulation"]
    pd.testing.assert_frame_equal(plus.jobs[columns], same.jobs[columns])
    assert plus.policy == "sjf-bsbf-plus"


def test_it_differs_from_the_paper_on_drawn_instances() -> None:
    columns = ["job_id", "start", "finish"]
    differ = []
    for inst in map(workload, range(3)):
        paper = simulate(inst, make_policy("sjf-bsbf")).jobs[columns]
        plus = simulate(inst, make_policy("sjf-bsbf-plus")).jobs[columns]
        differ.append(not paper.equals(plus))
    assert sum(differ) >= 2


def test_idle_gpu_goes_to_the_job_that_fits_alone() -> None:
    """Two GPUs; job 0 (1 GPU, dqn) runs alone on one. At t = 10 job 1 (2 GPUs, shorter) and
    job 2 (1 GPU, longer) arrive: SJF takes job 1 first, which does not fit alone.

    The paper's greedy gives job 1 the idle GPU plus a share of job 0's, so job 2 waits until job
    1 ends. Backfill first starts job 2 alone on the idle GPU at t = 10, then job 1 shares with
    jobs 0 and 2 (both hosts now), also at t = 10.
    """
    cluster = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)
    jobs = (
        Job(0, 0.0, 1, "dqn", 128, 4000),
        Job(1, 10.0, 2, "dqn", 128, 200),
        Job(2, 10.0, 1, "dqn", 128, 1500),
    )
    instance = Instance(cluster, jobs)
    paper = simulate(instance, make_policy("sjf-bsbf")).jobs.set_index("job_id")
    plus = simulate(instance, make_policy("sjf-bsbf-plus")).jobs.set_index("job_id")
    assert paper.loc[1, "start"] == 10.0 and paper.loc[1, "partners"] == "0"
    assert paper.loc[2, "start"] == np.ceil(paper.loc[1, "finish"])  # waits for job 1's GPUs
    assert plus.loc[2, "start"] == 10.0 and plus.loc[1, "start"] == 10.0
    assert plus.loc[1, "partners"] == "0;2"
    assert plus["jct"].mean() < paper["jct"].mean()
