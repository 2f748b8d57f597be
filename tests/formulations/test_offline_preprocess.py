"""The offline model's preprocessing (docs/formulations.md §2.2) by hand: what it refuses, its
resolutions at their smallest, and the work of a job in whole work units.

One GPU and duration-only jobs keep every number derivable: a job of ``d`` seconds at slot
length ``dt`` has ``floor(L · d / dt)`` work units (L = work units per full slot, at least one
unit), and the last slot's time is counted in ``round(dt / resolution)`` units (at least one).
"""

from __future__ import annotations

import math
import sys

import pytest

from formulations.offline import preprocess
from formulations.offline.heuristic import best_heuristic
from formulations.offline.progress import TIME_RESOLUTION_S, WORK_UNITS_PER_SLOT
from formulations.offline.size import ModelTooLarge
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import mps, time_slicing

ONE_GPU = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0)


def one_job(duration: float) -> Instance:
    return Instance(ONE_GPU, (Job(0, 0.0, 1, duration=duration),))


@pytest.mark.parametrize("dt", [0.0, -1.0, math.nan, math.inf])
def test_a_slot_that_is_not_a_positive_number_is_refused(dt: float) -> None:
    with pytest.raises(ValueError, match=r"^dt must be a positive number of seconds, got "):
        preprocess(one_job(2.0), dt)


def test_a_slot_shorter_than_a_second_is_accepted() -> None:
    data = preprocess(one_job(2.0), 0.5)
    assert data.dt == 0.5 and data.jobs[0].work == 4 * WORK_UNITS_PER_SLOT


def test_a_horizon_of_no_slot_is_refused_and_one_slot_accepted() -> None:
    with pytest.raises(ValueError, match=r"^horizon must be at least one slot, got 0$"):
        preprocess(one_job(60.0), 60.0, horizon=0)
    data = preprocess(one_job(60.0), 60.0, horizon=1)
    assert data.horizon == 1 and data.infeasible is None


@pytest.mark.parametrize(
    ("units", "resolution"), [(0, TIME_RESOLUTION_S), (-1, TIME_RESOLUTION_S), (1, 0.0), (1, -0.5)]
)
def test_resolutions_that_are_not_positive_are_refused(units: int, resolution: float) -> None:
    with pytest.raises(ValueError, match=r"^resolutions must be positive$"):
        preprocess(one_job(60.0), 60.0, work_units_per_slot=units, time_resolution_s=resolution)


def test_the_smallest_resolutions_are_one_unit() -> None:
    """One work unit per slot: a 150 s job at 60 s slots has floor(2.5) = 2 units. A time
    resolution coarser than the slot still counts the last slot in one unit."""
    data = preprocess(one_job(150.0), 60.0, work_units_per_slot=1, time_resolution_s=600.0)
    assert (data.work_units_per_slot, data.time_units_per_slot) == (1, 1)
    assert data.jobs[0].work == 2


def test_the_default_resolutions() -> None:
    """A 150 s job at 60 s slots: 2.5 slots of work; the last slot in 0.01 s units."""
    data = preprocess(one_job(150.0), 60.0)
    assert data.jobs[0].work == 5 * WORK_UNITS_PER_SLOT // 2
    assert data.time_units_per_slot == round(60.0 / TIME_RESOLUTION_S)


def test_a_job_shorter_than_one_work_unit_has_one() -> None:
    """At L = 1000 units per slot, 1 ms at 60 s slots is 1000 · 0.001 / 60 ≈ 0.017 units: rounded
    down to 0, then raised to one (every job has work)."""
    data = preprocess(one_job(0.001), 60.0, work_units_per_slot=1000)
    assert data.jobs[0].work == 1


def test_the_heuristic_bounds_the_windows_by_default() -> None:
    """The best non-preemptive heuristic's schedule bounds the windows (its total JCT is the
    upper bound) unless switched off."""
    instance = Instance(ONE_GPU, (Job(0, 0.0, 1, duration=120.0), Job(1, 0.0, 1, duration=60.0)))
    bounded = preprocess(instance, 60.0)
    assert bounded.heuristic is not None and bounded.upper_bound_total is not None
    assert bounded.upper_bound_total >= bounded.heuristic.total_jct
    unbounded = preprocess(instance, 60.0, use_heuristic_bound=False)
    assert unbounded.heuristic is None and unbounded.upper_bound_total is None


def test_the_tolerance_is_the_mean_of_the_jobs_tolerances() -> None:
    instance = Instance(ONE_GPU, (Job(0, 0.0, 1, duration=130.0), Job(1, 0.0, 1, duration=70.0)))
    data = preprocess(instance, 60.0)
    assert min(data.job_tolerance_s) > 0
    assert data.tolerance_s == sum(data.job_tolerance_s) / 2


def test_the_lower_bound_adds_each_jobs_fastest_time_from_its_arrival() -> None:
    """Two 150 s jobs on two GPUs, one arriving at 30 s (released at the 60 s tick): each job's
    bound is its wait for the tick plus 2.5 slots alone, 150 + (30 + 150) = 330 s; the SRPT bound
    on one machine of speed 2 is lower (75 + 135 = 210 s, less the arrivals)."""
    two = Cluster(nodes=1, gpus_per_node=2, gpu_mem_gb=16.0)
    instance = Instance(two, (Job(0, 0.0, 1, duration=150.0), Job(1, 30.0, 1, duration=150.0)))
    data = preprocess(instance, 60.0)
    assert [job.min_jct_s for job in data.jobs] == pytest.approx([150.0, 180.0], abs=1e-9)
    assert data.lower_bound_total == pytest.approx(330.0, abs=1e-9)


def test_the_heuristic_runs_under_the_given_interference() -> None:
    """Under MPS a 2-job GPU pair is cheap, so the heuristics' best schedule differs from time
    slicing's; preprocessing keeps the one of the model it was given."""
    jobs = (Job(0, 0.0, 1, duration=1000.0), Job(1, 10.0, 1, duration=100.0))
    instance = Instance(ONE_GPU, jobs)
    runs = {
        name: preprocess(instance, 60.0, interference=model).heuristic
        for name, model in (("mps", mps()), ("slicing", time_slicing()))
    }
    assert runs["mps"] is not None and runs["slicing"] is not None
    assert runs["mps"].total_jct == best_heuristic(instance, 60.0, mps()).total_jct
    assert runs["mps"].total_jct != runs["slicing"].total_jct


# -- the model's size, checked twice (formulations/offline/size.py) ------------------------------
def _days(count: int, gpus: int, days: float = 2.0) -> Instance:
    """``count`` one-GPU duration-only jobs of ``days`` days on ``gpus`` GPUs (one node)."""
    cluster = Cluster(nodes=1, gpus_per_node=gpus, gpu_mem_gb=16.0)
    jobs = tuple(Job(j, 0.0, 1, duration=days * 86400.0) for j in range(count))
    return Instance(cluster, jobs)


def test_a_model_too_large_from_data_alone_is_refused_before_the_heuristics_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two 2-day jobs on two GPUs need 2880 slots of 60 s at least: 2·2880·2 + 2880 = 14,400
    cells, above a limit of 10,000, refused without simulating a heuristic."""

    def no_heuristic(*args: object) -> None:
        raise AssertionError("the heuristics ran")

    monkeypatch.setattr(
        sys.modules["formulations.offline.preprocess"], "best_heuristic", no_heuristic
    )
    with pytest.raises(ModelTooLarge, match="14,400 cells"):
        preprocess(_days(2, 2), 60.0, max_cells=10_000)


def test_the_first_size_check_counts_a_given_horizon() -> None:
    """A year-long job (525,600 slots) in a 10-slot horizon is a small model (infeasible)."""
    data = preprocess(_days(1, 1, days=365.0), 60.0, horizon=10, use_heuristic_bound=False)
    assert data.infeasible is not None and data.infeasible.endswith("horizon ends at slot 9")


def test_jobs_side_by_side_fit_by_the_heuristics_schedule() -> None:
    """Four 2-day jobs side by side on four GPUs: 2880 slots by the heuristics (63,360 cells);
    the horizon without a bound, the sum of their durations (11,520 slots, 253,440 cells), would
    not fit a limit of 100,000."""
    data = preprocess(_days(4, 4), 60.0, max_cells=100_000)
    assert data.heuristic is not None


def test_a_model_too_large_by_the_heuristics_schedule_is_refused() -> None:
    """Two 2-day jobs one after the other on one GPU: 2880 slots at least (8,640 cells) fit a
    limit of 10,000, the heuristics' 5760 slots (17,280 cells) do not; in a horizon of 100 slots
    the model is small."""
    with pytest.raises(ModelTooLarge, match="17,280 cells"):
        preprocess(_days(2, 1), 60.0, max_cells=10_000)
    short = preprocess(_days(2, 1), 60.0, max_cells=10_000, horizon=100)
    assert short.infeasible is not None and short.infeasible.endswith("horizon ends at slot 99")


def test_the_upper_bound_is_the_heuristics_total_plus_the_tolerances_and_a_margin() -> None:
    """UB = H + Σ tol_j + 1e-6·H + 1e-6 s (docs/formulations.md §2.2)."""
    instance = Instance(ONE_GPU, (Job(0, 0.0, 1, duration=130.0), Job(1, 0.0, 1, duration=70.0)))
    data = preprocess(instance, 60.0)
    assert data.heuristic is not None
    total = data.heuristic.total_jct
    assert total == best_heuristic(instance, 60.0, time_slicing()).total_jct
    expected = total + sum(data.job_tolerance_s) + 1e-6 * total + 1e-6
    assert data.upper_bound_total == expected


@pytest.mark.parametrize(("horizon", "kept"), [(None, True), (4, True), (3, True), (2, False)])
def test_the_heuristic_bounds_a_given_horizon_only_if_its_schedule_fits(
    horizon: int | None, kept: bool
) -> None:
    """A 150 s job at 60 s slots is released at the 180 s tick: its last slot is slot 2, inside
    a horizon of 3 slots (0-2), not of 2."""
    data = preprocess(one_job(150.0), 60.0, horizon=horizon)
    assert (data.heuristic is not None, data.upper_bound_total is not None) == (kept, kept)


def test_the_lower_bound_takes_srpt_when_it_is_higher() -> None:
    """One GPU: a 300 s job at 0 s and a 60 s job arriving at 30 s (released at 60 s). Per job,
    300 + (30 + 60) = 390 s. Preemptive SRPT at speed θ (the GPU's best throughput): the long
    job runs until 60 s, the short one then ends at 60 + 60/θ and the long one at 360/θ, in all
    30 + 420/θ s after the arrivals, which is higher while θ < 7/6."""
    jobs = (Job(0, 0.0, 1, duration=300.0), Job(1, 30.0, 1, duration=60.0))
    data = preprocess(Instance(ONE_GPU, jobs), 60.0)
    theta = data.throughput
    assert 1.0 <= theta < 7.0 / 6.0
    assert data.lower_bound_total == pytest.approx(30.0 + 420.0 / theta, rel=1e-12)


def test_the_heuristics_bound_ends_the_window() -> None:
    """One 150 s job: with no other job, its last slot is ⌊(a + UB) / dt⌋ = ⌊150.01 / 60⌋ = 2,
    its first possible end; without the heuristic's bound the window runs to the job's slowest
    duration plus a slot, later."""
    bounded = preprocess(one_job(150.0), 60.0)
    assert bounded.upper_bound_total is not None
    assert bounded.jobs[0].last_end == math.floor(bounded.upper_bound_total / 60.0) == 2
    # It needs 3 slots (2.5 rounded up), so it starts in slot 0 at the latest.
    assert (bounded.jobs[0].first_start, bounded.jobs[0].last_start) == (0, 0)
    unbounded = preprocess(one_job(150.0), 60.0, use_heuristic_bound=False)
    job = unbounded.jobs[0]
    assert job.last_end > 2 and job.last_start == job.last_end - 3 + 1


def test_the_data_carries_the_interference_it_was_computed_for() -> None:
    assert preprocess(one_job(60.0), 60.0).interference == time_slicing()
    assert preprocess(one_job(60.0), 60.0, interference=mps()).interference == mps()


def test_a_job_links_its_spanning_choice_only_if_it_has_both() -> None:
    """Two nodes of two GPUs and vgg16 jobs (a model with a batch: spanning nodes changes its
    duration): a 2-GPU job may run inside a node or across both (both kinds of option), a 1-GPU
    job only inside one, a 4-GPU job only across both."""
    cluster = Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=16.0)
    jobs = tuple(Job(j, 0.0, g, "vgg16", 16, 100) for j, g in enumerate((1, 2, 4)))
    data = preprocess(Instance(cluster, jobs), 60.0)
    assert [job.link_spans for job in data.jobs] == [False, True, False]
    assert [sorted({o.spans for o in job.options}) for job in data.jobs] == [
        [False],
        [False, True],
        [True],
    ]
