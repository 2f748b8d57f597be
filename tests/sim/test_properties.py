"""Property tests of the simulator over every registered policy (docs/model.md §4, §5).

Random small instances (1–2 nodes × 1–4 GPUs, 1–8 jobs mixing catalog and duration-only jobs,
small integer arrivals and durations) are run under each policy of
:func:`sjfbsbf.policies.policy_names`, so a policy registered later is covered automatically.
The invariants are consequences of the model, not numbers from a run:

* the run completes and every job finishes, no job starts before it arrives;
* a job cannot finish faster than alone on its placement: finish − start ≥ work × solo step
  (slowdowns are ≥ 1, restart overheads and waiting only add);
* progress is conserved: the constant-rate segments of a job add up to exactly its work;
* same instance and policy → identical tables; GPU counts are never exceeded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy, policy_names
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import simulate

CATALOG = get_catalog("default")
POLICIES = policy_names(defaults_only=True)
PROPERTY_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def instances(draw: st.DrawFn, duration_only: bool = False, mem: float | None = None) -> Instance:
    """A small random instance; catalog jobs use the testbed batch and fit the GPU memory."""
    nodes = draw(st.integers(1, 2))
    per_node = draw(st.integers(1, 4))
    gpu_mem = mem if mem is not None else draw(st.sampled_from([8.0, 12.0, 24.0, 48.0]))
    cluster = Cluster(nodes=nodes, gpus_per_node=per_node, gpu_mem_gb=gpu_mem)
    models = [m for m, p in sorted(CATALOG.items()) if p.memory_gb(DEFAULT_BATCH[m]) <= gpu_mem]
    n = draw(st.integers(1, 8))
    jobs = []
    for i in range(n):
        arrival = float(draw(st.integers(0, 120)))
        gpus = draw(st.integers(1, cluster.num_gpus))
        if duration_only or not models or draw(st.booleans()):
            duration = draw(st.one_of(st.integers(1, 90), st.integers(90, 2500)))
            jobs.append(Job(i, arrival, gpus, duration=float(duration)))
        else:
            model = draw(st.sampled_from(models))
            iterations = draw(st.one_of(st.integers(1, 100), st.integers(100, 3000)))
            jobs.append(Job(i, arrival, gpus, model, DEFAULT_BATCH[model], iterations))
    return Instance(cluster, tuple(jobs))


def run(
    instance: Instance,
    name: str,
    dt: float,
    overhead: float,
    options: dict[str, Any] | None = None,
) -> SimResult:
    policy = make_policy(name, **(options or {}))
    return simulate(instance, policy, dt=dt, restart_overhead=overhead)


def solo_steps(job: Job, accumulation: int, cluster: Cluster) -> set[float]:
    """Solo step time on each placement kind the job can have (inside one node / spanning).

    By docs/model.md §2: s · (α + β · B/s) + 2 (G − 1)/G · grad / bandwidth; a duration-only
    job's unit of work is its duration wherever it is placed.
    """
    if job.duration is not None:
        return {job.duration}
    assert job.model is not None and job.batch is not None
    p = CATALOG[job.model]
    compute = accumulation * (p.alpha_s + p.beta_s * job.batch / accumulation)
    kinds = [True] if job.gpus > cluster.gpus_per_node else [False, True]
    if cluster.nodes == 1:
        kinds = [False]
    out = set()
    for spans in kinds:
        bw = cluster.inter_bw_gbps if spans else cluster.intra_bw_gbps
        allreduce = 0.0 if job.gpus == 1 else 2 * (job.gpus - 1) / job.gpus * p.grad_gb / bw
        out.add(compute + allreduce)
    return out


def work(job: Job) -> float:
    return 1.0 if job.iterations is None else float(job.iterations)


def check_invariants(
    instance: Instance, name: str, res: SimResult, options: dict[str, Any] | None = None
) -> None:
    policy = make_policy(name, **(options or {}))
    cluster = instance.cluster
    jobs = res.jobs.set_index("job_id")
    assert len(jobs) == instance.num_jobs
    assert not jobs[["start", "finish"]].isna().any().any(), "every job starts and finishes"
    seg = res.segments
    assert seg is not None
    for job in instance.jobs:
        r: Any = jobs.loc[job.id]
        assert r.start >= job.arrival
        assert r.finish > r.start
        # s = 1 gives the smallest step (α >= 0), so the bound holds across retunes too.
        steps = solo_steps(job, 1, cluster)
        lower = work(job) * min(steps)
        assert r.finish - r.start >= lower * (1 - 1e-9), (job, r.start, r.finish, lower)
        mine = seg[seg.job_id == job.id]
        done = ((mine.end - mine.start) / mine.s_per_step).sum()
        assert done == pytest.approx(work(job), rel=1e-6), (job, done)
        assert (mine.start >= r.start - 1e-9).all()
        assert (mine.end <= r.finish + 1e-9 * max(1.0, r.finish)).all()
        # A slowdown is >= 1: no segment runs faster than the job's solo step.
        assert (mine.s_per_step >= min(steps) * (1 - 1e-12)).all()
        assert 0.0 <= r.shared_s <= r.finish - r.start + 1e-9 * max(1.0, r.finish)
        if not policy.sharing:
            # Exclusive (full batch): each segment runs at a solo step time of some placement.
            for s in mine.s_per_step:
                assert any(s == pytest.approx(x, rel=1e-12) for x in steps), (job, s, steps)
            assert r.shared_s == 0.0 and r.partners == ""
        if not policy.preemptive:
            assert r.preemptions == 0
            if not policy.sharing:
                assert len(mine) == 1
                assert r.finish - r.start == pytest.approx(
                    work(job) * mine.s_per_step.iloc[0], rel=1e-9
                )
    ticks = res.ticks
    assert (ticks.busy_gpus >= 0).all() and (ticks.busy_gpus <= cluster.num_gpus).all()
    assert (ticks.shared_gpus >= 0).all() and (ticks.shared_gpus <= ticks.busy_gpus).all()
    assert (ticks.mem_used_gb <= cluster.num_gpus * cluster.gpu_mem_gb + 1e-6).all()
    assert (np.diff(ticks.time.to_numpy()) > 0).all()
    if not policy.sharing:
        assert (ticks.shared_gpus == 0).all()


@pytest.mark.parametrize("name", POLICIES)
@PROPERTY_SETTINGS
@given(
    instance=instances(),
    dt=st.sampled_from([1.0, 1.0, 2.5, 10.0, 60.0]),
    overhead=st.sampled_from([0.0, 7.0, 30.0]),
)
def test_invariants(name: str, instance: Instance, dt: float, overhead: float) -> None:
    """Completion, arrivals, lower bound on run time, work conservation, capacity (see module)."""
    res = run(instance, name, dt, overhead)
    check_invariants(instance, name, res)


#: Non-default options that change the simulated dynamics (sub-batch retuning mid-life).
VARIANTS = [
    ("sjf-bsbf", {"retune": True}),
    ("sjf-bsbf", {"wait_aware": True, "retune": True}),
]


@pytest.mark.parametrize(("name", "options"), VARIANTS)
@settings(max_examples=15, deadline=None)
@given(instance=instances(), dt=st.sampled_from([1.0, 10.0]), overhead=st.just(30.0))
def test_invariants_option_variants(
    name: str, options: dict[str, Any], instance: Instance, dt: float, overhead: float
) -> None:
    """The same invariants under policy options that retune a job's sub-batch while it runs."""
    if name not in POLICIES:
        pytest.skip(f"{name} is not registered")
    res = run(instance, name, dt, overhead, options)
    check_invariants(instance, name, res, options)


@pytest.mark.parametrize("name", POLICIES)
@settings(max_examples=10, deadline=None)
@given(instance=instances(), dt=st.sampled_from([1.0, 10.0]))
def test_deterministic(name: str, instance: Instance, dt: float) -> None:
    """Same instance and policy (fresh objects) twice → identical job, tick and segment tables."""
    a = run(instance, name, dt, 30.0)
    b = run(instance, name, dt, 30.0)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.ticks, b.ticks)
    assert a.segments is not None and b.segments is not None
    pd.testing.assert_frame_equal(a.segments, b.segments)
    assert a.metrics == b.metrics


@PROPERTY_SETTINGS
@given(instance=instances(), dt=st.sampled_from([1.0, 2.5, 10.0]))
def test_fifo_strict_arrival_order(instance: Instance, dt: float) -> None:
    """fifo: no job starts before a job earlier in (arrival, id) order has started."""
    res = run(instance, "fifo", dt, 30.0)
    ordered = res.jobs.sort_values(["arrival", "job_id"])
    starts = ordered.start.to_numpy()
    assert (np.diff(starts) >= 0).all(), ordered[["job_id", "arrival", "start"]]


@pytest.mark.parametrize("name", [n for n in POLICIES if not make_policy(n).sharing])
@settings(max_examples=15, deadline=None)
@given(instance=instances(duration_only=True), overhead=st.sampled_from([0.0, 30.0]))
def test_integer_times_with_dt_one(name: str, instance: Instance, overhead: float) -> None:
    """docs/model.md §4: dt = 1, integer arrivals and durations → integer start and finish times.

    Exclusive policies only (sharing slows jobs by non-integer factors). Starts happen at ticks;
    a job's finish is its last (integer) resume time plus the rest of its integer duration, up to
    float rounding of the progress fraction after a preemption (hence the 1e-6 tolerance).
    """
    res = run(instance, name, 1.0, overhead)
    for col in ("start", "finish"):
        values = res.jobs[col].to_numpy()
        assert np.allclose(values, np.round(values), rtol=0, atol=1e-6), (col, values)


@pytest.mark.parametrize("name", ["sjf-ffs", "sjf-bsbf"])
@settings(max_examples=15, deadline=None)
@given(instance=instances(duration_only=True, mem=8.0), dt=st.sampled_from([1.0, 10.0]))
def test_sharing_policies_reduce_to_sjf(name: str, instance: Instance, dt: float) -> None:
    """docs/model.md §5: with sharing impossible, sjf-ffs and sjf-bsbf reproduce sjf exactly.

    Only duration-only jobs (4.778 GB each, no sub-batch options) on 8 GB GPUs: no two fit on one
    GPU, so the sharing step never applies.
    """
    if name not in POLICIES:
        pytest.skip(f"{name} is not registered")
    ref = run(instance, "sjf", dt, 30.0)
    res = run(instance, name, dt, 30.0)
    pd.testing.assert_frame_equal(res.jobs, ref.jobs)
    pd.testing.assert_frame_equal(res.ticks, ref.ticks)
