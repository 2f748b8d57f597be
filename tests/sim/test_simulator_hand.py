"""Hand-computed simulator cases (docs/model.md §2, §3, §4, §5).

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

from typing import Any

import pytest

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.state import ClusterView

REL = 1e-12
U_GENERIC = 0.8 * 0.9
XI_GENERIC = 1.05 * (1.0 + 1.5 * U_GENERIC * U_GENERIC)
MEM_GENERIC = (4.304 + 5.252) / 2


class PlannedSharing:
    """Test-only sharing policy: start each job, once pending, on fixed GPUs.

    ``plan`` maps job id -> (GPU ids, accumulation). A job starts at the first decision where it
    is pending; nothing else is ever decided. Non-preemptive, sharing allowed.
    """

    name = "test-planned-sharing"
    preemptive = False
    sharing = True

    def __init__(self, plan: dict[int, tuple[tuple[int, ...], int]]) -> None:
        self.plan = plan

    def decide(self, view: ClusterView) -> Decision:
        starts = [
            Start(j, self.plan[j][0], self.plan[j][1]) for j in view.pending() if j in self.plan
        ]
        return Decision(tuple(starts))

    def stats(self) -> dict[str, Any]:
        return {}


def row(result: SimResult, job_id: int) -> Any:
    """The per-job row of ``job_id``."""
    jobs = result.jobs.set_index("job_id")
    return jobs.loc[job_id]


def one_gpu(mem: float = 12.0) -> Cluster:
    return Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=mem)


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
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=100.0), Job(1, 5.0, 1, duration=50.0)))
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
    inst = Instance(one_gpu(), jobs)
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
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=10.3), Job(1, 0.0, 1, duration=5.0)))
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
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=10.0), Job(1, 3.0, 1, duration=5.0)))
    res = simulate(inst, make_policy("fifo"), dt=4.0)
    assert (row(res, 1).start, row(res, 1).finish, row(res, 1).jct) == (12.0, 17.0, 14.0)
    alone = Instance(one_gpu(), (Job(0, 3.0, 1, duration=10.0),))
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


# -- sharing ---------------------------------------------------------------------------------


def test_shared_pair_tick_rounding() -> None:
    """Two duration-only jobs share one GPU from time 0: 100 s and 300 s alone.

    Both run at rate 1/ξ (ξ = 1.86648, module docstring). Job 0 finishes exactly at
    f = 100 ξ = 186.648. Its GPU is released at the first tick ≥ f: R = dt · ceil(f / dt);
    job 1 stays slowed until R, then runs alone. Job 1's progress at R is R / (300 ξ), so it
    needs 300 (1 − R / (300 ξ)) = 300 − R / ξ more seconds: finish_1 = R + 300 − R / ξ.
    shared_s: job 0 shares all its life (f); job 1 shares until R.

    * dt = 1:   R = 187, finish_1 = 487 − 187/ξ
    * dt = 10:  R = 190, finish_1 = 490 − 190/ξ ≈ 388.204
    * dt = 100: R = 200, finish_1 = 500 − 200/ξ
    """
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=300.0)))
    f = 100.0 * XI_GENERIC
    for dt, release in ((1.0, 187.0), (10.0, 190.0), (100.0, 200.0)):
        plan = PlannedSharing({0: ((0,), 1), 1: ((0,), 1)})
        res = simulate(inst, plan, dt=dt, interval=max(60.0, dt))  # dt <= interval
        r0, r1 = row(res, 0), row(res, 1)
        assert (r0.start, r1.start) == (0.0, 0.0)
        assert r0.finish == pytest.approx(f, rel=REL)
        assert r1.finish == pytest.approx(release + 300.0 - release / XI_GENERIC, rel=REL)
        assert r0.shared_s == pytest.approx(f, rel=REL)
        assert r1.shared_s == pytest.approx(release, rel=REL)
        assert (r0.partners, r1.partners) == ("1", "0")
        first = res.ticks.iloc[0]
        assert (first.busy_gpus, first.shared_gpus) == (1, 1)
        assert first.mem_used_gb == pytest.approx(2 * MEM_GENERIC, rel=1e-9)


def test_shared_pair_finishing_in_same_tick() -> None:
    """A pair where both finish inside the same tick: neither is charged past its own finish.

    Durations 100 and 100.5 s, ξ = 1.86648, dt = 10: finishes 100 ξ = 186.648 and
    100.5 ξ = 187.581; both lie in (180, 190], both GPUs are released at 190. Each job shared
    its GPU for its whole life, so shared_s = its finish, and its progress segments add up to
    exactly its work (1 duration): Σ (end − start) / s_per_step = 1.
    """
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=100.5)))
    res = simulate(inst, PlannedSharing({0: ((0,), 1), 1: ((0,), 1)}), dt=10.0)
    assert res.segments is not None
    for job_id, duration in ((0, 100.0), (1, 100.5)):
        r = row(res, job_id)
        assert r.finish == pytest.approx(duration * XI_GENERIC, rel=REL)
        assert r.shared_s == pytest.approx(duration * XI_GENERIC, rel=REL)
        seg = res.segments[res.segments.job_id == job_id]
        assert ((seg.end - seg.start) / seg.s_per_step).sum() == pytest.approx(1.0, rel=1e-9)
        assert seg.end.max() == pytest.approx(r.finish, rel=REL)


def test_wide_job_runs_at_pace_of_its_shared_gpu() -> None:
    """A 2-GPU job shares only one of its GPUs: it is slowed by that GPU's ξ on all of them.

    Cluster 1 × 2. Job 0 (2 GPUs, 100 s) on GPUs 0, 1; job 1 (1 GPU, 50 s) on GPU 1, both at 0.
    Both are slowed by ξ (max over job 0's GPUs: 1 on GPU 0, ξ on GPU 1). Job 1 finishes at
    50 ξ = 93.324, released at 100 (dt = 10). Job 0's progress at 100 is 100 / (100 ξ) = 1/ξ; it
    finishes alone after 100 (1 − 1/ξ): finish_0 = 200 − 100/ξ ≈ 146.42. shared_s: job 0 100
    (one of its GPUs is shared until 100), job 1 50 ξ. At t = 0: 2 busy GPUs, 1 shared.
    """
    cluster = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)
    inst = Instance(cluster, (Job(0, 0.0, 2, duration=100.0), Job(1, 0.0, 1, duration=50.0)))
    res = simulate(inst, PlannedSharing({0: ((0, 1), 1), 1: ((1,), 1)}), dt=10.0)
    assert row(res, 1).finish == pytest.approx(50.0 * XI_GENERIC, rel=REL)
    assert row(res, 0).finish == pytest.approx(200.0 - 100.0 / XI_GENERIC, rel=REL)
    assert row(res, 0).shared_s == pytest.approx(100.0, rel=REL)
    assert row(res, 1).shared_s == pytest.approx(50.0 * XI_GENERIC, rel=REL)
    first = res.ticks.iloc[0]
    assert (first.busy_gpus, first.shared_gpus) == (2, 1)


def test_wide_job_takes_the_max_over_two_different_partners() -> None:
    """A 2-GPU job with a different partner on each GPU runs at the larger of the two slowdowns.

    Cluster 1 × 2, dt = 1. Job 0 (2 GPUs, 100 s, generic) on GPUs 0, 1; job 1 (generic, 1000 s)
    on GPU 0; job 2 (DQN, B = 128, 1000 iterations: 0.490 s each, 490 s alone) on GPU 1.
    DQN's util at full batch is 0.8 · 0.3 = 0.24. Slowdowns:
    generic next to generic ξ_gg = 1.05 (1 + 1.5 · 0.72²) = 1.86648;
    either of generic/DQN next to the other ξ_gd = 1.05 (1 + 1.5 · 0.72 · 0.24) = 1.32216.
    Job 0 gets max(ξ_gg, ξ_gd) = ξ_gg: finish 100 ξ_gg = 186.648, released at 187. Job 2 is
    slowed by ξ_gd until 187, then alone: finish = 187 + 490 − 187/ξ_gd. Memory: GPU 0
    2 · 4.778, GPU 1 4.778 + 2.230, both ≤ 12.
    """
    xi_gd = 1.05 * (1 + 1.5 * U_GENERIC * 0.8 * 0.3)
    cluster = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)
    jobs = (
        Job(0, 0.0, 2, duration=100.0),
        Job(1, 0.0, 1, duration=1000.0),
        Job(2, 0.0, 1, "dqn", 128, 1000),
    )
    plan = {0: ((0, 1), 1), 1: ((0,), 1), 2: ((1,), 1)}
    res = simulate(Instance(cluster, jobs), PlannedSharing(plan))
    assert row(res, 0).finish == pytest.approx(100 * XI_GENERIC, rel=REL)
    assert row(res, 2).finish == pytest.approx(187 + 490 - 187 / xi_gd, rel=1e-9)
    assert row(res, 1).finish == pytest.approx(187 + 1000 - 187 / XI_GENERIC, rel=REL)
    assert row(res, 0).partners == "1;2"
    first = res.ticks.iloc[0]
    assert (first.busy_gpus, first.shared_gpus) == (2, 2)


def test_catalog_job_with_accumulation_shares_with_generic() -> None:
    """ResNet-18 at sub-batch 64 (s = 2) shares a GPU with a 60 s duration-only job.

    ResNet-18 (docs/model.md §2): B = 128, 1-GPU step 0.779 s, α = 9% of it = 0.07011 s,
    β = (0.779 − α)/128. With s = 2: step = 2 (α + 64 β) = 0.779 + α = 0.84911 s; 100 iterations
    take T_r = 84.911 s alone. Its util at b = 64: u_r = 0.85 · 64/(64 + 128/4) = 0.85 · 2/3.
    ξ (both ways, since sens = press = util) = 1.05 (1 + 1.5 · u_r · 0.72) = 1.6926.
    Memory: ResNet-18 at b = 64: 0.4 · 6.432 + 0.6 · 6.432 · 64/128 = 4.5024 GB, generic
    4.778 GB, total 9.2804 ≤ 12.
    The generic job finishes at 60 ξ = 101.556, released at 110 (dt = 10). ResNet-18's progress
    at 110 is 110 / (T_r ξ); alone afterwards: finish = 110 + T_r − 110/ξ.
    The per-job table reports sub_batch 64 and accumulation 2; the generic job has no sub-batch.
    """
    alpha = 0.09 * 0.779
    t_r = 100 * (0.779 + alpha)
    u_r = 0.85 * 64 / (64 + 128 / 4)
    xi = 1.05 * (1 + 1.5 * u_r * U_GENERIC)
    jobs = (Job(0, 0.0, 1, "resnet18", 128, 100), Job(1, 0.0, 1, duration=60.0))
    res = simulate(Instance(one_gpu(), jobs), PlannedSharing({0: ((0,), 2), 1: ((0,), 1)}), dt=10)
    assert row(res, 1).finish == pytest.approx(60 * xi, rel=1e-9)
    assert row(res, 0).finish == pytest.approx(110 + t_r - 110 / xi, rel=1e-9)
    assert row(res, 0).sub_batch == 64
    assert row(res, 0).accumulation == 2
    assert res.jobs.set_index("job_id").sub_batch.isna().loc[1]
    mem = 0.4 * 6.432 + 0.6 * 6.432 * 64 / 128 + MEM_GENERIC
    assert res.ticks.iloc[0].mem_used_gb == pytest.approx(mem, rel=1e-9)


class _Asymmetric:
    """Test-only interference: the generic job suffers 3×, every other job 1.5×."""

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return 3.0 if victim.model == "generic" else 1.5


def test_asymmetric_interference_applies_per_job() -> None:
    """With a pluggable interference model each job gets its own ξ.

    ResNet-18 (full batch, 100 iterations: 77.9 s alone) with ξ = 1.5 and a 10 s duration-only
    job with ξ = 3 share one GPU from 0 (dt = 1). The generic job finishes at 30, released at
    30; ResNet-18 has done 30 / (77.9 · 1.5) of its work, then runs alone:
    finish = 30 + 77.9 − 30/1.5 = 87.9.
    """
    jobs = (Job(0, 0.0, 1, "resnet18", 128, 100), Job(1, 0.0, 1, duration=10.0))
    res = simulate(
        Instance(one_gpu(), jobs),
        PlannedSharing({0: ((0,), 1), 1: ((0,), 1)}),
        interference=_Asymmetric(),
    )
    assert row(res, 1).finish == pytest.approx(30.0, rel=1e-9)
    assert row(res, 0).finish == pytest.approx(30.0 + 77.9 - 20.0, rel=1e-9)


# -- preemption ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dt", "overhead", "resume"),
    [(1.0, 5.0, 35.0), (2.0, 5.0, 36.0), (1.0, 0.0, 30.0), (10.0, 30.0, 60.0)],
)
def test_srtf_preemption_with_restart_overhead(dt: float, overhead: float, resume: float) -> None:
    """srtf: a short arrival preempts a long job, which pays the restart overhead on resuming.

    1 GPU. Job 0 (100 s) starts at 0. Job 1 (20 s) arrives at 10 (a whole tick for every dt
    used): job 0 has 90 s left > 20, so job 0 is preempted at 10 and job 1 runs 10 → 30 (its
    first start: no overhead). At 30 job 0 resumes; its progress restarts after the overhead
    rounded up to whole ticks: resume = 30 + dt · ceil(overhead / dt):
    (dt 1, 5 s) → 35; (dt 2, 5 s) → 30 + 6 = 36; (dt 1, 0 s) → 30; (dt 10, 30 s) → 60.
    It still needs 90 s: finish_0 = resume + 90, first start 0, 1 preemption.
    """
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=100.0), Job(1, 10.0, 1, duration=20.0)))
    res = simulate(inst, make_policy("srtf"), dt=dt, restart_overhead=overhead)
    assert (row(res, 1).start, row(res, 1).finish) == (10.0, 30.0)
    assert row(res, 0).start == 0.0
    assert row(res, 0).finish == pytest.approx(resume + 90.0, rel=REL)
    assert list(res.jobs.preemptions) == [1, 0]


def test_tiresias_demotion_at_threshold() -> None:
    """tiresias: a job is demoted at 3250 GPU-s and preempted by a waiting queue-0 job.

    1 GPU, restart overhead 30 s. Job 0 (5000 s) starts at 0. Job 1 (1000 s) arrives at 100:
    both in queue 0, the running job ranks first (FIFO, no preemption within a queue). The
    policy asks to wake at job 0's crossing, 0 + 3250 / 1 GPU = 3250. There job 0 is in queue 1,
    job 1 (queue 0) preempts it: job 1 runs 3250 → 4250. Job 0 resumes at 4250, progresses from
    4280 and needs 5000 − 3250 = 1750 s more: finish 6030 (its attained service, 3250 + 1780
    GPU-s at 6030, stays below the next threshold 7200).
    """
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, duration=5000.0), Job(1, 100.0, 1, duration=1000.0)))
    res = simulate(inst, make_policy("tiresias"), restart_overhead=30.0)
    assert (row(res, 1).start, row(res, 1).finish) == (3250.0, 4250.0)
    assert row(res, 0).finish == pytest.approx(6030.0, rel=REL)
    assert list(res.jobs.preemptions) == [1, 0]
    assert res.stats["preemptions"] == 1


def test_tiresias_threshold_counts_gpu_seconds() -> None:
    """The thresholds count GPU-seconds: a 2-GPU job crosses 3250 after 1625 s.

    Cluster 1 × 2, restart overhead 30. Job 0 (2 GPUs, 3000 s) starts at 0; job 1 (1 GPU, 100 s)
    arrives at 10 and does not fit. At 3250 / 2 = 1625 job 0 is demoted; job 1 (queue 0) ranks
    first and takes one GPU, so job 0 (2 GPUs) no longer fits and is preempted. Job 1 runs
    1625 → 1725; job 0 resumes at 1725, progresses from 1755 and needs 3000 − 1625 = 1375 s:
    finish 3130.
    """
    cluster = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=12.0)
    inst = Instance(cluster, (Job(0, 0.0, 2, duration=3000.0), Job(1, 10.0, 1, duration=100.0)))
    res = simulate(inst, make_policy("tiresias"), restart_overhead=30.0)
    assert (row(res, 1).start, row(res, 1).finish) == (1625.0, 1725.0)
    assert row(res, 0).finish == pytest.approx(3130.0, rel=REL)
    assert row(res, 0).preemptions == 1


def _starvation_instance(third: bool) -> Instance:
    jobs = [Job(0, 0.0, 1, duration=5000.0), Job(1, 3000.0, 1, duration=8000.0)]
    if third:
        jobs.append(Job(2, 6600.0, 1, duration=100.0))
    return Instance(one_gpu(), tuple(jobs))


def test_tiresias_starvation_off() -> None:
    """Reference run without starvation promotion (1 GPU, restart overhead 30, dt 1).

    Job 0 (5000 s) runs from 0; job 1 (8000 s) arrives at 3000. At 3250 job 0 moves to queue 1
    and job 1 (queue 0) preempts it. Job 1 reaches 3250 GPU-s at 6500 (queue 1, still running:
    no preemption within a queue) and 7200 at 3250 + 7200 = 10450 (queue 2): job 0 (queue 1)
    preempts it. Job 0 resumes at 10450 (+30 overhead) with 1750 s left: finish 12230. Job 1
    resumes at 12230 (+30) with 800 s left: finish 13060. One preemption each.
    """
    res = simulate(_starvation_instance(False), make_policy("tiresias"), restart_overhead=30.0)
    assert row(res, 0).finish == pytest.approx(12230.0, rel=REL)
    assert row(res, 1).finish == pytest.approx(13060.0, rel=REL)
    assert list(res.jobs.preemptions) == [1, 1]
    assert res.stats["promotions"] == 0


def test_tiresias_starvation_promotes_without_thrashing() -> None:
    """starvation_limit = 0.5 changes the schedule and does not thrash.

    Same instance. Job 0 is preempted at 3250 after 3250 s of execution; it is promoted at the
    first decision with waited ≥ 0.5 · 3250 = 1625, i.e. t ≥ 4875: decisions happen at
    multiples of interval = 60 while jobs wait, so at 4920. Promotion resets the service its
    queue counts to 0 (queue 0); job 1 (1670 GPU-s, queue 0) is running and ranks first, so no
    preemption yet. At 6500 job 1 reaches 3250 (queue 1) and the promoted job 0 preempts it:
    job 0 resumes at 6500 (+30) with 1750 s left: finish 8280 (instead of 12230). Its queue
    service (from 0 at promotion) would reach 3250 only at 9750, so it is not demoted again.
    Job 1 (stopped at 6500 after 3250 s) is promoted at 8160 (first multiple of 60 ≥ 8125) but
    job 0 runs in queue 0 too; job 1 resumes at 8280 (+30) with 8000 − 3250 = 4750 s left:
    finish 13060. One preemption each, two promotions.
    """
    res = simulate(
        _starvation_instance(False),
        make_policy("tiresias", starvation_limit=0.5),
        restart_overhead=30.0,
    )
    assert row(res, 0).finish == pytest.approx(8280.0, rel=REL)
    assert row(res, 1).finish == pytest.approx(13060.0, rel=REL)
    assert list(res.jobs.preemptions) == [1, 1]
    assert res.stats == {"preemptions": 2, "promotions": 2}


def test_tiresias_promoted_job_keeps_queue_zero() -> None:
    """A promoted job is not preempted at once by a fresh queue-0 arrival (no thrashing).

    The previous case plus job 2 (100 s) arriving at 6600, while the promoted job 0 runs with
    a reset queue service of 100 GPU-s (queue 0). Job 2 is in queue 0 too and waits (running
    first within a queue); a naive rule that keeps job 0's total 3250+ GPU-s would demote and
    preempt it here. Job 0 finishes at 8280 as before. At 8280 jobs 1 (promoted at 8160, arrival
    3000) and 2 (arrival 6600) are both in queue 0: job 1 resumes first (8280, +30 → 8310).
    Job 1's queue service restarts at 3250 (its total at promotion) and reaches 3250 more at
    8280 + 3250 = 11530: job 2 preempts it and runs 11530 → 11630. Job 1 did 11530 − 8310 =
    3220 s of work after resuming, 3250 + 3220 = 6470 in all, 1530 left; it resumes at 11630
    (+30): finish 11660 + 1530 = 13190. Preemptions: job 0 1, job 1 2, job 2 0.
    """
    res = simulate(
        _starvation_instance(True),
        make_policy("tiresias", starvation_limit=0.5),
        restart_overhead=30.0,
    )
    assert row(res, 0).finish == pytest.approx(8280.0, rel=REL)
    assert (row(res, 2).start, row(res, 2).finish) == (11530.0, 11630.0)
    assert row(res, 1).finish == pytest.approx(13190.0, rel=REL)
    assert list(res.jobs.preemptions) == [1, 2, 0]


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
    inst = Instance(one_gpu(), (Job(0, 0.0, 1, "resnet18", 128, 50),))
    res = simulate(inst, PlannedSharing({0: ((0,), 4)}))
    assert row(res, 0).finish == pytest.approx(50 * 0.779 * 1.27, rel=1e-12)
    assert row(res, 0).sub_batch == 32
