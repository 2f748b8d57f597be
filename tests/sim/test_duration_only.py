"""Duration-only jobs (docs/model.md §2): alone, a job takes exactly its duration wherever it runs.

A duration-only job has one unit of work whose solo step time is its duration; the generic
profile has no all-reduce term, so spanning nodes costs nothing. It starts at the first tick at
or after its arrival, k = ceil(arrival / dt), and its finish is exact inside a tick:
finish = k·dt + duration.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy, policy_names
from sjfbsbf.sim.simulator import simulate

#: (cluster, GPUs of the job, whether its placement must span nodes)
PLACEMENTS = [
    (Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0), 1, False),
    (Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=12.0), 4, False),
    (Cluster(nodes=4, gpus_per_node=1, gpu_mem_gb=12.0), 4, True),
    (Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=12.0), 3, True),
    (Cluster(nodes=4, gpus_per_node=8, gpu_mem_gb=12.0), 32, True),
]


@pytest.mark.parametrize("duration", [1.0, 7.5, 3599.9, 0.001])
@pytest.mark.parametrize(("cluster", "gpus", "spans"), PLACEMENTS)
@pytest.mark.parametrize("dt", [1.0, 0.1, 7.0, 60.0])
@pytest.mark.parametrize("arrival", [0.0, 3.3])
def test_alone_takes_exactly_its_duration(
    duration: float, cluster: Cluster, gpus: int, spans: bool, dt: float, arrival: float
) -> None:
    """finish − start == duration (to 1e-9) and start == the first tick ≥ arrival."""
    inst = Instance(cluster, (Job(0, arrival, gpus, duration=duration),))
    res = simulate(inst, make_policy("fifo"), dt=dt)
    r = res.jobs.iloc[0]
    k = max(0, math.ceil(arrival / dt - 1e-9))
    assert r.start == pytest.approx(k * dt, rel=1e-12, abs=1e-12)
    assert r.finish - r.start == pytest.approx(duration, rel=1e-9, abs=1e-9)
    assert r.exclusive_s == duration
    assert pd.isna(r.sub_batch)
    assert res.segments is not None and len(res.segments) == 1
    assert res.segments.s_per_step.iloc[0] == duration
    assert cluster.spans_nodes(tuple(range(gpus))) is spans


@pytest.mark.parametrize("name", policy_names(defaults_only=True))
@pytest.mark.parametrize("dt", [1.0, 10.0])
def test_alone_under_every_policy(name: str, dt: float) -> None:
    """Every registered policy runs a lone job at once and for exactly its duration.

    A 3-GPU job on 2 nodes × 2 GPUs (it must span nodes), arriving at 20 (a whole tick for both
    dt): start 20, finish 20 + 1234.5, no preemption, no sharing.
    """
    inst = Instance(Cluster(nodes=2, gpus_per_node=2), (Job(0, 20.0, 3, duration=1234.5),))
    r = simulate(inst, make_policy(name), dt=dt).jobs.iloc[0]
    assert r.start == 20.0
    assert r.finish - r.start == 1234.5
    assert (r.preemptions, r.shared_s) == (0, 0.0)


@pytest.mark.parametrize("dt", [1.0, 10.0])
def test_preempted_duration_only_job_keeps_its_fraction(dt: float) -> None:
    """Progress of a duration-only job is the fraction of its duration done.

    srtf on 1 GPU, no restart overhead: job 0 (1000 s) runs 0 → 300 (30% done), job 1 (100 s)
    arrives at 300 and preempts it (1000 − 300 = 700 > 100), runs 300 → 400; job 0 resumes at
    400 with 70% = 700 s left: finish 1100.
    """
    inst = Instance(
        Cluster(nodes=1, gpus_per_node=1),
        (Job(0, 0.0, 1, duration=1000.0), Job(1, 300.0, 1, duration=100.0)),
    )
    res = simulate(inst, make_policy("srtf"), dt=dt, restart_overhead=0.0)
    jobs = res.jobs.set_index("job_id")
    assert (jobs.loc[1].start, jobs.loc[1].finish) == (300.0, 400.0)
    assert jobs.loc[0].finish == pytest.approx(1100.0, rel=1e-12)
    assert jobs.loc[0].preemptions == 1
