"""The offline model's preprocessing (docs/formulations.md §2.2) by hand: what it refuses, its
resolutions at their smallest, and the work of a job in whole work units.

One GPU and duration-only jobs keep every number derivable: a job of ``d`` seconds at slot
length ``dt`` has ``floor(L · d / dt)`` work units (L = work units per full slot, at least one
unit), and the last slot's time is counted in ``round(dt / resolution)`` units (at least one).
"""

from __future__ import annotations

import math

import pytest

from formulations.offline import preprocess
from formulations.offline.progress import TIME_RESOLUTION_S, WORK_UNITS_PER_SLOT
from sjfbsbf.core.model import Cluster, Instance, Job

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
