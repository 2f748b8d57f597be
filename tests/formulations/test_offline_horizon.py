"""The offline model's windows and bounds (formulations/offline/horizon.py, docs/formulations.md
§2.2) by hand: preemptive SRPT on one machine, the model's size estimates, each job's last slot.
"""

from __future__ import annotations

import pytest

from formulations.offline.data import OptionData
from formulations.offline.horizon import last_end_slots, size_estimate, srpt_total
from formulations.offline.size import ModelSize
from sjfbsbf.core.model import Cluster, Instance, Job


# -- SRPT on one machine ------------------------------------------------------------------------
def test_srpt_of_no_job_is_zero() -> None:
    assert srpt_total([], [], 1.0) == 0.0


def test_srpt_of_one_job_is_its_release_plus_its_size_over_the_speed() -> None:
    assert srpt_total([0.0], [10.0], 1.0) == 10.0
    assert srpt_total([5.0], [10.0], 2.0) == 10.0


def test_srpt_runs_the_smallest_first() -> None:
    """Sizes 10 and 1 released together: 1, then 11 (not 10, then 11)."""
    assert srpt_total([0.0, 0.0], [10.0, 1.0], 1.0) == 12.0


def test_srpt_preempts_for_a_smaller_job_at_its_release() -> None:
    """Size 10 from 0; size 1 released at 0.5 preempts it (9.5 left) and ends at 1.5; the first
    ends at 11."""
    assert srpt_total([0.0, 0.5], [10.0, 1.0], 1.0) == 12.5


def test_srpt_preempts_at_the_speed_of_the_machine() -> None:
    """Speed 2: size 10 from 1 s has 9 left when size 1 is released at 1.5 s; that one ends at
    2 s, the first at 2 + 9 / 2 = 6.5 s."""
    assert srpt_total([1.0, 1.5], [10.0, 1.0], 2.0) == 2.0 + 6.5


def test_srpt_ends_a_job_exactly_at_a_release_without_a_sliver_left() -> None:
    """Size 0.7 at speed 0.3 ends at f = 0.7 / 0.3, exactly when size 1 is released: it ends
    there (not preempted with a float residue of work), the second at f + 1 / 0.3."""
    f = 0.7 / 0.3
    assert srpt_total([0.0, f], [0.7, 1.0], 0.3) == f + (f + 1.0 / 0.3)


def test_srpt_takes_the_jobs_in_release_order_whatever_their_index() -> None:
    """Size 1 released at 10 (listed first) and size 100 released at 0: the large one runs from
    0, the small one preempts at 10 and ends at 11, the large one ends at 101."""
    assert srpt_total([10.0, 0.0], [1.0, 100.0], 1.0) == 112.0


def test_srpt_takes_every_job_of_a_longer_list() -> None:
    """Three jobs of size 2 released at 0, 10 and 20 at speed 2: each alone, 1 s after its
    release."""
    assert srpt_total([0.0, 10.0, 20.0], [2.0, 2.0, 2.0], 2.0) == 1.0 + 11.0 + 21.0


def test_srpt_counts_a_release_within_its_tolerance_as_now() -> None:
    """A release 1e-12 s after the current time (the float tolerance of times) joins at once:
    the small job runs first, as if released together (12, not 12 + 1e-12)."""
    assert srpt_total([0.0, 1e-12], [10.0, 1.0], 1.0) == 12.0


# -- the model's size ----------------------------------------------------------------------------
def _option(duration: float) -> OptionData:
    return OptionData(accumulation=1, spans=False, duration_s=duration, memory_gb=1.0, alone=1)


def _instance(*jobs: tuple[float, int], gpus: int = 2) -> Instance:
    """Duration-only jobs ``(arrival, gpus)`` on one node of ``gpus`` GPUs."""
    cluster = Cluster(nodes=1, gpus_per_node=gpus, gpu_mem_gb=16.0)
    return Instance(cluster, tuple(Job(i, a, g, duration=60.0) for i, (a, g) in enumerate(jobs)))


def test_the_least_size_is_the_latest_arrival_plus_the_fastest_duration() -> None:
    """A job arriving at 130 s (slot 3) whose fastest option takes 150 s (3 slots) needs 6 slots
    at least; its GPU-time (150 s) is far below 2 × 2 GPUs × 60 s per slot."""
    instance = _instance((0.0, 1), (130.0, 1))
    options = [(_option(60.0),), (_option(150.0), _option(400.0))]
    size = size_estimate(instance, 60.0, options, None, None, least=True)
    assert size == ModelSize(jobs=2, slots=6, gpus=2, dt=60.0)


def test_the_least_size_counts_the_gpu_time_at_twice_the_clusters_throughput() -> None:
    """Four 2-GPU jobs of 600 s at 0 on 2 GPUs: 4800 GPU-s ÷ (2 × 2 GPUs × 60 s) = 20 slots, more
    than one job's 10; a user horizon of 12 caps it."""
    instance = _instance(*[(0.0, 2)] * 4)
    options: list[tuple[OptionData, ...]] = [(_option(600.0),)] * 4
    assert size_estimate(instance, 60.0, options, None, None, least=True).slots == 20
    assert size_estimate(instance, 60.0, options, None, 12, least=True).slots == 12


def test_without_a_bound_the_size_is_the_latest_arrival_plus_every_slowest_duration() -> None:
    """Arrivals at 0 and 70 s (slot 2), slowest options 150 s (3 slots) and 60 s (1 slot): 6; a
    user horizon is the size itself."""
    instance = _instance((0.0, 1), (70.0, 1))
    options = [(_option(100.0), _option(150.0)), (_option(60.0),)]
    assert size_estimate(instance, 60.0, options, None, None).slots == 6
    assert size_estimate(instance, 60.0, options, None, 40).slots == 40


# -- each job's last slot -------------------------------------------------------------------------
def _two_jobs() -> tuple[Instance, list[tuple[OptionData, ...]]]:
    return _instance((0.0, 1), (0.0, 1)), [(_option(150.0),), (_option(100.0),)]


@pytest.mark.parametrize(("horizon", "expected"), [(None, [15, 14]), (15, [14, 14])])
def test_a_jobs_last_slot_leaves_the_others_their_least_time(
    horizon: int | None, expected: list[int]
) -> None:
    """UB = 1000 s; the other job's least JCT is 100 s (for job 0) and 150 s (for job 1), which
    SRPT at speed 1 does not exceed: ⌊(0 + 1000 − 100) / 60⌋ = 15 and ⌊850 / 60⌋ = 14. A horizon
    of 15 slots caps both at slot 14."""
    instance, options = _two_jobs()
    last = last_end_slots(
        instance,
        60.0,
        1000.0,
        [150.0, 100.0],
        [0.0, 0.0],
        [150.0, 100.0],
        1.0,
        options,
        [1.5, 2.0],
        [0, 0],
        horizon,
    )
    assert last == expected


def test_without_a_bound_every_job_may_run_slowest_after_every_other() -> None:
    """Slowest 150 s × ξ 1.5 = 225 s → 4 slots + 1, and 100 s × 2 = 200 s → 4 + 1: 10 slots after
    the last arrival slot (2)."""
    instance, options = _two_jobs()
    last = last_end_slots(
        instance, 60.0, None, [150.0, 100.0], [0.0, 0.0], [1.0, 1.0], 1.0, options, [1.5, 2.0],
        [0, 2], None,
    )  # fmt: skip
    assert last == [12, 12]
