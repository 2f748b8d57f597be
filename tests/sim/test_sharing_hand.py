"""Hand-computed sharing cases (docs/model.md §3, §4): tick rounding of a shared pair, wide jobs
at the pace of their slowest GPU, accumulation beside a generic job, asymmetric interference.

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
from hand_cases import MEM_GENERIC, REL, U_GENERIC, XI_GENERIC, PlannedSharing, one_gpu_cluster, row

from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.sim.simulator import simulate

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
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=300.0))
    )
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
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=100.5))
    )
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
    res = simulate(
        Instance(one_gpu_cluster(), jobs), PlannedSharing({0: ((0,), 2), 1: ((0,), 1)}), dt=10
    )
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
        Instance(one_gpu_cluster(), jobs),
        PlannedSharing({0: ((0,), 1), 1: ((0,), 1)}),
        interference=_Asymmetric(),
    )
    assert row(res, 1).finish == pytest.approx(30.0, rel=1e-9)
    assert row(res, 0).finish == pytest.approx(30.0 + 77.9 - 20.0, rel=1e-9)
