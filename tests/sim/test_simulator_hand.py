"""Hand-computed simulator cases (docs/model.md §2, §4, §5): exclusive policies, release and
admission ticks, catalog jobs and the all-reduce term (sharing and preemption cases are in
test_sharing_hand.py and test_preemption_hand.py).

Every expected number below is derived in the test's docstring from the model formulas, not
copied from a run. Shared constants:

* Duration-only jobs use the generic profile: u_max = median of the eight catalog u_max values
  (0.3, 0.3, 0.55, 0.85, 0.95, 1.0, 1.0, 1.0) = (0.85 + 0.95) / 2 = 0.9; at the full batch
  sens = press = 0.8 · u_max = 0.72; memory = median of the listed memories
  (2.094, 2.230, 4.224, 4.304, 5.252, 6.432, 8.058, 10.532 GB) = (4.304 + 5.252) / 2 = 4.778 GB.
* Default contention (time slicing): κ = 1.5, ε = 0.05, so two duration-only jobs on one GPU
  slow each other by ξ = 1.05 · (1 + 1.5 · 0.72 · 0.72) = 1.05 · 1.7776 = 1.86648.
"""

from __future__ import annotations

import pytest
from hand_cases import MEM_GENERIC, REL, PlannedSharing, one_gpu_cluster, row

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate

# -- constants of the model ------------------------------------------------------------------


def test_generic_profile_constants() -> None:
    """The generic profile's u_max and memory are the catalog medians (0.9 and 4.778 GB).

    These two numbers are the base of every sharing derivation in this file; see the module
    docstring for the medians.
    """
    generic = generic_profile(get_catalog("default"))
    assert generic.u_max == pytest.approx(0.9, rel=REL)
    assert generic.mem_fixed_gb + generic.mem_per_sample_gb == pytest.approx(MEM_GENERIC, rel=1e-9)
    assert generic.generic
    assert generic.accumulation == (1,)


# -- exclusive policies ----------------------------------------------------------------------


def test_fifo_two_jobs_one_gpu() -> None:
    """Two 1-GPU jobs on a 1-GPU cluster under fifo, dt = 1.

    Job 0 arrives at 0 and runs alone for 100 s: start 0, finish 100. Job 1 arrives at 5 and
    waits; job 0's GPU is released at tick 100 (100 is a whole tick), so job 1 starts at 100 and
    finishes at 100 + 50 = 150: JCT = 150 − 5 = 145, queueing delay 95.
    """
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=100.0), Job(1, 5.0, 1, duration=50.0))
    )
    res = simulate(inst, make_policy("fifo"), dt=1.0)
    r0, r1 = row(res, 0), row(res, 1)
    assert (r0.start, r0.finish, r0.jct) == (0.0, 100.0, 100.0)
    assert (r1.start, r1.finish, r1.jct, r1.queueing_delay) == (100.0, 150.0, 145.0, 95.0)
    assert res.metrics["makespan"] == 150.0
    assert res.metrics["avg_jct"] == pytest.approx((100.0 + 145.0) / 2, rel=REL)


def _blocking_instance() -> Instance:
    """2 GPUs: a long 1-GPU job, then a short 2-GPU job, then a medium 1-GPU job."""
    jobs = (
        Job(0, 0.0, 1, duration=100.0),
        Job(1, 1.0, 2, duration=20.0),
        Job(2, 2.0, 1, duration=40.0),
    )
    return Instance(Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0), jobs)


def test_fifo_blocks_behind_wide_job() -> None:
    """fifo: a 2-GPU job that does not fit blocks every later job (no backfilling).

    Cluster of 2 GPUs. Job 0 (1 GPU, 100 s) starts at 0 on one GPU. Job 1 (2 GPUs, 20 s)
    arrives at 1: one GPU is idle, it does not fit, and fifo stops there. Job 2 (1 GPU, 40 s)
    arrives at 2: it would fit on the idle GPU but is behind job 1. At 100 job 0 ends, job 1
    starts (100 → 120), then job 2 (120 → 160).
    """
    res = simulate(_blocking_instance(), make_policy("fifo"), dt=1.0)
    assert (row(res, 0).start, row(res, 0).finish) == (0.0, 100.0)
    assert (row(res, 1).start, row(res, 1).finish) == (100.0, 120.0)
    assert (row(res, 2).start, row(res, 2).finish) == (120.0, 160.0)


def test_sjf_backfills_past_wide_job() -> None:
    """sjf: same instance; the shorter 2-GPU job is ranked first but is skipped as it does not fit.

    At 2 the sjf order is job 1 (20 s) then job 2 (40 s). Job 1 needs 2 GPUs, only 1 is idle:
    skipped (no reservation). Job 2 fits on the idle GPU: starts at 2, finishes 42. Job 1 starts
    when job 0 frees its GPU at 100 and finishes at 120.
    """
    res = simulate(_blocking_instance(), make_policy("sjf"), dt=1.0)
    assert (row(res, 0).start, row(res, 0).finish) == (0.0, 100.0)
    assert (row(res, 1).start, row(res, 1).finish) == (100.0, 120.0)
    assert (row(res, 2).start, row(res, 2).finish) == (2.0, 42.0)


def test_sjf_orders_by_duration_then_id() -> None:
    """sjf ranks pending jobs by exclusive duration, ties by id; fifo by (arrival, id).

    1 GPU. Job 0 (100 s) runs from 0 to 100. Jobs 3 (30 s), 1 (50 s) and 2 (30 s) arrive at
    1, 2 and 3 and all wait. At 100 sjf runs job 2 (30 s, lower id than 3): 100 → 130, job 3:
    130 → 160, job 1: 160 → 210. fifo runs them in arrival order 3, 1, 2:
    100 → 130, 130 → 180, 180 → 210.
    """
    jobs = (
        Job(0, 0.0, 1, duration=100.0),
        Job(3, 1.0, 1, duration=30.0),
        Job(1, 2.0, 1, duration=50.0),
        Job(2, 3.0, 1, duration=30.0),
    )
    inst = Instance(one_gpu_cluster(), jobs)
    sjf = simulate(inst, make_policy("sjf"))
    assert [row(sjf, j).start for j in (2, 3, 1)] == [100.0, 130.0, 160.0]
    fifo = simulate(inst, make_policy("fifo"))
    assert [row(fifo, j).start for j in (3, 1, 2)] == [100.0, 130.0, 180.0]


# -- release semantics -----------------------------------------------------------------------


def test_release_at_first_tick_after_finish() -> None:
    """A job finishing at non-integer time t releases its GPU at the first tick ≥ t.

    1 GPU, fifo. dt = 1: job 0 (10.3 s) finishes at 10.3 exactly (not rounded), its GPU is
    released at tick 11, job 1 (5 s, arrived at 0) starts at 11 and finishes at 16.
    dt = 4: job 0 finishes at 10.3, released at 12 (first multiple of 4 ≥ 10.3); job 1 runs
    12 → 17 (its own finish is exact, inside the tick [16, 20)).
    """
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=10.3), Job(1, 0.0, 1, duration=5.0))
    )
    for dt, release in ((1.0, 11.0), (4.0, 12.0)):
        res = simulate(inst, make_policy("fifo"), dt=dt)
        assert row(res, 0).finish == pytest.approx(10.3, rel=REL)
        assert row(res, 1).start == release
        assert row(res, 1).finish == pytest.approx(release + 5.0, rel=REL)


def test_arrival_admitted_at_first_tick_after_arrival() -> None:
    """An arrival between ticks is admitted at the first tick ≥ arrival.

    dt = 4, 1 GPU, fifo: job 0 (10 s) runs 0 → 10, released at 12. Job 1 arrives at 3, is
    admitted at 4, waits, starts at 12, finishes 17: JCT 14. A lone job arriving at 3 starts at 4.
    """
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=10.0), Job(1, 3.0, 1, duration=5.0))
    )
    res = simulate(inst, make_policy("fifo"), dt=4.0)
    assert (row(res, 1).start, row(res, 1).finish, row(res, 1).jct) == (12.0, 17.0, 14.0)
    alone = Instance(one_gpu_cluster(), (Job(0, 3.0, 1, duration=10.0),))
    res = simulate(alone, make_policy("fifo"), dt=4.0)
    assert (row(res, 0).start, row(res, 0).finish) == (4.0, 14.0)


def test_integer_times_with_dt_one() -> None:
    """With dt = 1 and integer arrivals and durations, exclusive policies give integer times.

    Each start is at a tick (an integer) and each finish is start + integer duration, so both are
    integers for a chain of jobs on 2 GPUs with mixed GPU demands (fifo and sjf).
    """
    jobs = tuple(
        Job(i, float(a), g, duration=float(d))
        for i, (a, g, d) in enumerate([(0, 1, 7), (0, 2, 3), (1, 1, 11), (4, 2, 5), (4, 1, 2)])
    )
    inst = Instance(Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0), jobs)
    for name in ("fifo", "sjf"):
        res = simulate(inst, make_policy(name), dt=1.0)
        for col in ("start", "finish"):
            values = res.jobs[col].to_numpy()
            assert (values == values.round()).all(), (name, col, values)


# -- catalog jobs and the all-reduce term ----------------------------------------------------


@pytest.mark.parametrize(
    ("cluster", "spans", "bandwidth"),
    [
        (Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0), False, 16.0),
        (Cluster(nodes=2, gpus_per_node=1, gpu_mem_gb=12.0), True, 8.0),
        (Cluster(nodes=2, gpus_per_node=1, gpu_mem_gb=12.0, inter_bw_gbps=2.0), True, 2.0),
    ],
)
def test_catalog_two_gpu_job_allreduce(cluster: Cluster, spans: bool, bandwidth: float) -> None:
    """A 2-GPU ResNet-18 job (B = 128, 1000 iterations) inside one node vs across two nodes.

    docs/model.md §2: step = s · (α + β b) + 2 (G − 1)/G · grad / bandwidth, s = 1,
    b = B = 128, G = 2. The catalog calibrates α + 128 β = 0.779 s (1-GPU testbed step) and
    grad = (0.881 − 0.779) · 16 GB/s = 1.632 GB (the 2-GPU testbed step inside a node).
    Inside a node (16 GB/s): all-reduce = 1.632/16 = 0.102, step = 0.881 (the testbed's 2-GPU
    number): finish 881 s. Across nodes (a cluster with one GPU per node forces it, 8 GB/s):
    0.204, step 0.983: finish 983 s. With 2 GB/s across nodes: 0.816, step 1.595. The formula
    is also evaluated from the profile's fields to check the catalog's derivation.
    """
    profile = get_catalog("default")["resnet18"]
    from_fields = (
        profile.alpha_s + profile.beta_s * 128 + 2 * (2 - 1) / 2 * profile.grad_gb / bandwidth
    )
    by_hand = 0.779 + 0.102 * 16.0 / bandwidth
    assert from_fields == pytest.approx(by_hand, rel=1e-12)
    inst = Instance(cluster, (Job(0, 0.0, 2, "resnet18", 128, 1000),))
    res = simulate(inst, make_policy("fifo"))
    assert row(res, 0).start == 0.0
    assert row(res, 0).finish == pytest.approx(1000 * by_hand, rel=1e-12)
    seg = res.segments
    assert seg is not None
    assert len(seg) == 1 and seg.s_per_step.iloc[0] == pytest.approx(by_hand, rel=1e-12)
    assert cluster.spans_nodes(tuple(range(2))) is spans


def test_catalog_four_gpu_job_spanning_two_nodes() -> None:
    """GPT-2 (B = 4) on 4 GPUs: one node of 4 vs two nodes of 2.

    GPT-2's testbed steps: 1 GPU 0.426 s, 4 GPUs 0.433 s; the catalog's all-reduce at G = 2 is
    (0.433 − 0.426)/1.5 (as 2(G−1)/G = 1.5 at G = 4), grad = that · 16. At G = 4 inside a node:
    1.5 · grad/16 = 0.007, step = 0.433 (the testbed number). Across nodes (8 GB/s):
    0.014, step 0.440. 200 iterations: 86.6 s vs 88.0 s.
    """
    one = Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=12.0)
    two = Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=12.0)
    for cluster, step in ((one, 0.433), (two, 0.440)):
        res = simulate(Instance(cluster, (Job(0, 0.0, 4, "gpt2", 4, 200),)), make_policy("sjf"))
        assert row(res, 0).finish == pytest.approx(200 * step, rel=1e-12)


def test_accumulation_pays_alpha_per_micro_batch() -> None:
    """Alone, ResNet-18 at s = 4 (b = 32) takes 4 (α + 32 β) = 0.779 + 3 α per step.

    α = 0.09 · 0.779; 50 iterations: 50 · 0.779 · 1.27 = 49.4665 s (a 1-GPU job, no all-reduce).
    """
    inst = Instance(one_gpu_cluster(), (Job(0, 0.0, 1, "resnet18", 128, 50),))
    res = simulate(inst, PlannedSharing({0: ((0,), 4)}))
    assert row(res, 0).finish == pytest.approx(50 * 0.779 * 1.27, rel=1e-12)
    assert row(res, 0).sub_batch == 32


def test_the_run_ends_at_the_tick_that_releases_the_last_job() -> None:
    """tiresias asks to be woken when a running job would cross its first threshold (3250
    GPU-s, so at 3250 s for a 1-GPU job started at 0). A single 100 s job finishes long before:
    the run ends at its release tick, 100, and the pending wake-up is not a tick of the run
    (the per-tick table and the utilisation's span end at 100: utilisation 1)."""
    inst = Instance(one_gpu_cluster(), (Job(0, 0.0, 1, duration=100.0),))
    res = simulate(inst, make_policy("tiresias"))
    assert list(res.ticks.time) == [0.0, 100.0]
    assert res.metrics["gpu_utilization"] == 1.0
    assert row(res, 0).finish == 100.0
