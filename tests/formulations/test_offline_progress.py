"""The offline model's progress tables (formulations/offline/progress.py, docs/formulations.md
§2.2, §2.5) by hand: rounding in work units, a slot's progress, each job's options, largest
slowdowns, tolerances and the best pair throughput θ."""

from __future__ import annotations

import math

import pytest

from formulations.offline.data import OptionData
from formulations.offline.progress import (
    ceil_units,
    floor_units,
    job_options,
    job_tolerances,
    largest_slowdowns,
    occupants,
    profiles,
    slot_progress,
    throughput,
)
from sjfbsbf.core.interference import Interference, Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import memory_gb
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB


# -- rounding ------------------------------------------------------------------------------------
def test_floor_units_reads_a_value_within_float_noise_below_an_integer_as_that_integer() -> None:
    assert floor_units(3.0) == 3
    assert floor_units(3.0 - 1e-12) == 3
    assert floor_units(2.5) == 2
    assert floor_units(0.1 * 3 * 10) == 3  # 3.0000000000000004


def test_ceil_units_reads_a_value_within_float_noise_above_an_integer_as_that_integer() -> None:
    assert ceil_units(3.0) == 3
    assert ceil_units(3.0 + 1e-12) == 3
    assert ceil_units(2.5) == 3
    assert ceil_units(0.7 / 0.1) == 7  # 6.999999999999999


def test_a_slot_brings_its_share_of_the_work_rounded_up_and_at_least_one_unit() -> None:
    """100 units over 120 s alone, slowed by 1.5: a 60 s slot brings 100 · 60 / 180 = 33.3 → 34;
    1 unit over a million seconds still brings 1 unit a slot."""
    assert slot_progress(100, 60.0, 120.0, 1.5) == 34
    assert slot_progress(100, 60.0, 120.0) == 50
    assert slot_progress(1, 1.0, 1e6) == 1


# -- options -------------------------------------------------------------------------------------
def _spans(cluster: Cluster, job: Job) -> list[bool]:
    instance = Instance(cluster, (job,))
    (profile,) = profiles(instance)
    return sorted({o.spans for o in job_options(instance, job, profile, 1000, 60.0)})


def test_only_a_job_that_fits_in_a_node_but_could_span_two_has_both_kinds_of_option() -> None:
    """vgg16 jobs: 2 GPUs on 2 nodes of 2 may run inside one node or across both; on one node of
    4 only inside it; 1 GPU always inside one; 4 GPUs on nodes of 2 only across. A duration-only
    job has no batch to reshape: inside one node unless it cannot fit."""
    two_by_two = Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=16.0)
    one_by_four = Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=16.0)
    assert _spans(two_by_two, Job(0, 0.0, 2, "vgg16", 16, 100)) == [False, True]
    assert _spans(one_by_four, Job(0, 0.0, 2, "vgg16", 16, 100)) == [False]
    assert _spans(two_by_two, Job(0, 0.0, 1, "vgg16", 16, 100)) == [False]
    assert _spans(two_by_two, Job(0, 0.0, 4, "vgg16", 16, 100)) == [True]
    assert _spans(two_by_two, Job(0, 0.0, 2, duration=60.0)) == [False]


def test_each_option_carries_the_memory_of_its_micro_batch() -> None:
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0)
    job = Job(0, 0.0, 1, "vgg16", 16, 100)
    instance = Instance(cluster, (job,))
    (profile,) = profiles(instance)
    options = job_options(instance, job, profile, 1000, 60.0)
    assert len({o.accumulation for o in options}) > 1
    for option in options:
        assert option.memory_gb == memory_gb(job, profile, option.accumulation)


# -- slowdowns, tolerances, throughput -----------------------------------------------------------
class _Forbidding:
    """Time slicing, except that a vgg16 may not share with an a2c (a sharing rule)."""

    def __init__(self) -> None:
        self.inner = time_slicing()

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        assert self.can_share(victim, other), "a forbidden pair has no slowdown"
        return self.inner.slowdown(victim, other)

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        return {a.model, b.model} != {"vgg16", "a2c"}


def _two_models() -> list[dict[int, Occupant]]:
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0)
    jobs = (Job(0, 0.0, 1, "vgg16", 16, 100), Job(1, 0.0, 1, "a2c", 64, 100))
    instance = Instance(cluster, jobs)
    return occupants(instance, profiles(instance))


def test_a_job_alone_or_beside_only_forbidden_partners_is_never_slowed() -> None:
    occupied = _two_models()
    assert largest_slowdowns(occupied[:1], time_slicing()) == [1.0]
    assert largest_slowdowns(occupied, _Forbidding()) == [1.0, 1.0]


def test_the_largest_slowdown_is_over_every_partner_and_option() -> None:
    occupied = _two_models()
    model = time_slicing()
    expected = [
        max(model.slowdown(a, b) for a in occupied[i].values() for b in occupied[1 - i].values())
        for i in (0, 1)
    ]
    assert largest_slowdowns(occupied, model) == expected
    assert min(expected) > 1.0


def test_a_jobs_tolerance_is_a_time_unit_plus_a_unit_of_work_per_slot_run() -> None:
    """Slowest option 200 s × ξ 1.5 = 300 s: 5 slots of 60 s, plus one; 1000 units, so a unit is
    0.3 s; one time unit of 60 / 6000 s: 0.01 + 6 × 0.3 = 1.81 s."""
    options: list[tuple[OptionData, ...]] = [
        (
            OptionData(1, False, 150.0, 1.0, 400),
            OptionData(2, False, 200.0, 0.5, 300),
        )
    ]
    (tolerance,) = job_tolerances(options, [1.5], [1000], 60.0, 6000)
    assert tolerance == pytest.approx(0.01 + 6 * 0.3, rel=1e-12)


def _theta(instance: Instance, model: Interference) -> float:
    """θ of ``instance``'s jobs, 1000 work units each, at 60 s slots."""
    tables = profiles(instance)
    occupied = occupants(instance, tables)
    options = [
        job_options(instance, j, p, 1000, 60.0) for j, p in zip(instance.jobs, tables, strict=True)
    ]
    tops = [max(o.alone for o in opts) for opts in options]
    return throughput(instance, options, occupied, [1000] * len(tops), tops, model, 60.0)


def _pair(capacity: float) -> tuple[float, float]:
    """θ of two identical duration-only jobs on one GPU of ``capacity`` GB, and their ξ."""
    jobs = (Job(0, 0.0, 1, duration=600.0), Job(1, 0.0, 1, duration=600.0))
    instance = Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=capacity), jobs)
    occupied = occupants(instance, profiles(instance))
    model = time_slicing()
    return _theta(instance, model), model.slowdown(occupied[0][1], occupied[1][1])


def test_theta_is_the_best_pairs_throughput_when_the_pair_fits_to_the_tolerance() -> None:
    """Two identical jobs of m GB each: on a GPU of 2m − 1e-9 GB they fit (the tolerance), and
    one slot of the pair brings 2 / ξ slots of work (rounded up per job); 1e-7 GB less and no
    pair fits: θ = 1."""
    jobs = (Job(0, 0.0, 1, duration=600.0),)
    instance = Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0), jobs)
    (occ,) = (o[1] for o in occupants(instance, profiles(instance)))
    theta, xi = _pair(2 * occ.memory_gb - MEMORY_TOLERANCE_GB)
    per_slot = 100 / xi  # 100 units a slot alone (1000 units over 10 slots)
    assert abs(per_slot - round(per_slot)) > 1e-6  # no rounding at the float noise
    assert theta == 2 * math.ceil(per_slot) / 100 > 1.0
    assert _pair(2 * occ.memory_gb - 1e-7)[0] == 1.0


def test_theta_counts_no_pair_the_sharing_rule_forbids() -> None:
    """A vgg16 and an a2c that the rule keeps apart: no pair may share, θ = 1."""
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=16.0)
    jobs = (Job(0, 0.0, 1, "vgg16", 16, 100), Job(1, 0.0, 1, "a2c", 64, 100))
    instance = Instance(cluster, jobs)
    assert _theta(instance, time_slicing()) > 1
    assert _theta(instance, _Forbidding()) == 1
