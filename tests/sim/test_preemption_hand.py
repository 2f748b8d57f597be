"""Hand-computed preemption cases (docs/model.md §4, §5): srtf with restart overhead, Tiresias
demotion, GPU-seconds thresholds and starvation promotion.

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
from hand_cases import REL, one_gpu_cluster, row

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate

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
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=100.0), Job(1, 10.0, 1, duration=20.0))
    )
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
    inst = Instance(
        one_gpu_cluster(), (Job(0, 0.0, 1, duration=5000.0), Job(1, 100.0, 1, duration=1000.0))
    )
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
    return Instance(one_gpu_cluster(), tuple(jobs))


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
