"""The offline model's pair table (formulations/offline/pairs.py, docs/formulations.md §2.2) by
hand: which pairs are listed and over which slots, which option combinations fit (memory to the
tolerance, the sharing rule), each job's slowdown and progress beside the other, and the
combinations that slow a job down."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import cast

from formulations.offline.data import JobData, OfflineData, OptionData, PairData, PairOption
from formulations.offline.pairs import job_pairs, slowing_options
from formulations.offline.progress import slot_progress
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB

CAPACITY = 16.0
DT = 60.0
WORK = 1000


class _Table:
    """Slowdowns by (victim, other) model name; a sharing rule that forbids named pairs and
    records the order of every question it is asked."""

    def __init__(
        self, slowdowns: dict[tuple[str, str], float], forbidden: frozenset[str] = frozenset()
    ) -> None:
        self.slowdowns = slowdowns
        self.forbidden = forbidden
        self.asked: list[tuple[str, str]] = []

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return self.slowdowns[victim.model, other.model]

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        self.asked.append((a.model, b.model))
        return {a.model, b.model} != self.forbidden


class _NoRule:
    """Slowdowns by (victim, other) model name and no sharing rule."""

    def __init__(self, slowdowns: dict[tuple[str, str], float]) -> None:
        self.slowdowns = slowdowns

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return self.slowdowns[victim.model, other.model]


def _occupant(model: str, memory_gb: float) -> Occupant:
    return Occupant(model, None, None, memory_gb, 0.5, 0.5)


def _option(accumulation: int, duration_s: float) -> OptionData:
    return OptionData(accumulation, False, duration_s, 1.0, slot_progress(WORK, DT, duration_s))


def _job(position: int, window: tuple[int, int], *durations: float) -> JobData:
    """A job whose options (accumulation 1, 2, ...) take ``durations``, in slots ``window``."""
    first, last = window
    options = tuple(_option(s, d) for s, d in enumerate(durations, start=1))
    return JobData(position, 0.0, 1, WORK, options, False, 0.0, first, first, first, last)


def _instance(n: int) -> Instance:
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=CAPACITY)
    return Instance(cluster, tuple(Job(i, 0.0, 1, duration=60.0) for i in range(n)))


def _pairs(
    jobs: list[JobData], occupied: list[dict[int, Occupant]], model: object
) -> list[PairData]:
    return job_pairs(_instance(len(jobs)), jobs, occupied, [WORK] * len(jobs), model, DT)  # type: ignore[arg-type]


def _same(n: int, memory_gb: float = 4.0) -> list[dict[int, Occupant]]:
    return [{1: _occupant("m", memory_gb)} for _ in range(n)]


# -- which pairs, over which slots ---------------------------------------------------------------
def test_pairs_whose_windows_overlap_or_touch_are_listed_with_their_common_slots() -> None:
    """Windows 0–5, 3–8, 9–12, 14–20: jobs 0/1 overlap in 3–5; 1/2 touch (8 then 9): listed
    with no common slot, for the no-idle-wait rule; 2/3 leave slot 13 between them, and 0/2,
    0/3, 1/3 are further apart: not listed."""
    jobs = [_job(0, (0, 5), 120.0), _job(1, (3, 8), 120.0)]
    jobs += [_job(2, (9, 12), 120.0), _job(3, (14, 20), 120.0)]
    model = _NoRule({("m", "m"): 1.5})
    pairs = _pairs(jobs, _same(4), model)
    assert [(p.first, p.second, p.overlap) for p in pairs] == [
        (0, 1, range(3, 6)),
        (1, 2, range(9, 9)),
    ]
    assert pairs[0].any_fit and not pairs[1].any_fit


def test_a_window_inside_another_overlaps_in_the_inner_window() -> None:
    jobs = [_job(0, (0, 20), 120.0), _job(1, (4, 7), 120.0), _job(2, (7, 7), 120.0)]
    pairs = _pairs(jobs, _same(3), _NoRule({("m", "m"): 1.5}))
    overlaps = {(p.first, p.second): p.overlap for p in pairs}
    assert overlaps == {(0, 1): range(4, 8), (0, 2): range(7, 8), (1, 2): range(7, 8)}


# -- which combinations fit ----------------------------------------------------------------------
def test_every_option_combination_is_listed_first_major() -> None:
    jobs = [_job(0, (0, 5), 120.0, 150.0), _job(1, (0, 5), 100.0, 130.0, 160.0)]
    occupied = [{1: _occupant("a", 2.0), 2: _occupant("a", 1.0)}]
    occupied += [{1: _occupant("b", 3.0), 2: _occupant("b", 2.0), 3: _occupant("b", 1.0)}]
    (pair,) = _pairs(jobs, occupied, _NoRule({("a", "b"): 1.2, ("b", "a"): 1.4}))
    combos = [(c.first_option, c.second_option) for c in pair.options]
    assert combos == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    for c in pair.options:
        assert c.option(True) == c.first_option and c.option(False) == c.second_option


def test_a_pair_fits_up_to_the_capacity_plus_the_memory_tolerance_and_no_further() -> None:
    """8 GB beside (16 GB + tolerance) − 8 GB sums to the limit exactly (in floats): fits; the
    next float above it, or the tolerance doubled, does not."""
    limit = CAPACITY + MEMORY_TOLERANCE_GB
    at_limit = limit - 8.0
    assert 8.0 + at_limit == limit
    jobs = [_job(0, (0, 5), 120.0), _job(1, (0, 5), 120.0)]
    model = _NoRule({("a", "b"): 1.5, ("b", "a"): 1.5})

    def fits(second_gb: float) -> bool:
        occupied = [{1: _occupant("a", 8.0)}, {1: _occupant("b", second_gb)}]
        (pair,) = _pairs(jobs, occupied, model)
        return pair.options[0].fits

    assert fits(at_limit)
    assert fits(CAPACITY - 8.0)
    assert not fits(math.nextafter(at_limit, math.inf))
    assert not fits(at_limit + MEMORY_TOLERANCE_GB)


def test_the_sharing_rule_is_asked_about_each_combination_of_the_two_occupants_in_order() -> None:
    """A rule that forbids vgg16 beside a2c: the pair never fits, whatever the memory, and its
    slowdowns are infinite; the rule is asked (first job's occupant, second job's occupant)."""
    jobs = [_job(0, (0, 5), 120.0, 150.0), _job(1, (0, 5), 120.0)]
    occupied = [{1: _occupant("vgg16", 1.0), 2: _occupant("vgg16", 0.5)}]
    occupied += [{1: _occupant("a2c", 1.0)}]
    model = _Table({}, forbidden=frozenset({"vgg16", "a2c"}))
    (pair,) = _pairs(jobs, occupied, model)
    assert model.asked == [("vgg16", "a2c"), ("vgg16", "a2c")]
    assert not pair.any_fit
    for c, option in zip(pair.options, jobs[0].options, strict=True):
        assert not c.fits
        assert c.first_slowdown == c.second_slowdown == math.inf
        assert c.first_progress == option.alone
        assert c.second_progress == jobs[1].options[0].alone


def test_an_allowed_pair_too_big_for_memory_keeps_its_slowdowns_and_alone_progress() -> None:
    jobs = [_job(0, (0, 5), 120.0), _job(1, (0, 5), 100.0)]
    occupied = [{1: _occupant("a", 10.0)}, {1: _occupant("b", 10.0)}]
    model = _Table({("a", "b"): 1.25, ("b", "a"): 1.75})
    (pair,) = _pairs(jobs, occupied, model)
    (c,) = pair.options
    assert not c.fits and not pair.any_fit
    assert (c.first_slowdown, c.second_slowdown) == (1.25, 1.75)
    assert (c.first_progress, c.second_progress) == (
        jobs[0].options[0].alone,
        jobs[1].options[0].alone,
    )


# -- slowdowns and progress beside the partner ---------------------------------------------------
def test_each_job_is_slowed_by_its_own_victim_slowdown_and_progresses_at_its_own_pace() -> None:
    """Job 0 (a, 120 s alone) is slowed 1.25 beside b; job 1 (b, 100 s alone) 1.75 beside a.
    A 60 s slot of 1000 units: 1000 · 60 / 150 = 400 for job 0, 1000 · 60 / 175 = 342.9 → 343."""
    jobs = [_job(0, (0, 5), 120.0), _job(1, (0, 5), 100.0)]
    occupied = [{1: _occupant("a", 4.0)}, {1: _occupant("b", 4.0)}]
    model = _Table({("a", "b"): 1.25, ("b", "a"): 1.75})
    (pair,) = _pairs(jobs, occupied, model)
    (c,) = pair.options
    assert c.fits
    assert (c.first_slowdown, c.second_slowdown) == (1.25, 1.75)
    assert (c.first_progress, c.second_progress) == (400, 343)
    assert (c.progress(True), c.progress(False)) == (400, 343)


def test_the_progress_of_each_combination_uses_that_combinations_options() -> None:
    """Options of 120 and 150 s beside one of 100 s, no slowdown: 500 and 400 units a slot."""
    jobs = [_job(0, (0, 5), 120.0, 150.0), _job(1, (0, 5), 100.0)]
    occupied = [{1: _occupant("a", 4.0), 2: _occupant("a", 2.0)}, {1: _occupant("b", 4.0)}]
    model = _NoRule({("a", "b"): 1.0, ("b", "a"): 1.0})
    (pair,) = _pairs(jobs, occupied, model)
    assert [(c.first_progress, c.second_progress) for c in pair.options] == [(500, 600), (400, 600)]


def test_sharing_never_brings_a_job_more_than_running_alone() -> None:
    """A model that claims a speed-up beside the partner (ξ 0.5): progress is capped at alone."""
    jobs = [_job(0, (0, 5), 120.0), _job(1, (0, 5), 100.0)]
    occupied = [{1: _occupant("a", 4.0)}, {1: _occupant("b", 4.0)}]
    model = _NoRule({("a", "b"): 0.5, ("b", "a"): 0.5})
    (pair,) = _pairs(jobs, occupied, model)
    (c,) = pair.options
    assert (c.first_progress, c.second_progress) == (500, 600)


def test_each_combination_reads_the_occupant_of_its_own_accumulation() -> None:
    """Job 0's accumulation 2 needs half the memory: only that option fits beside job 1."""
    jobs = [_job(0, (0, 5), 120.0, 150.0), _job(1, (0, 5), 100.0)]
    occupied = [{1: _occupant("a", 10.0), 2: _occupant("a", 5.0)}, {1: _occupant("b", 10.0)}]
    (pair,) = _pairs(jobs, occupied, _NoRule({("a", "b"): 1.5, ("b", "a"): 1.5}))
    assert [c.fits for c in pair.options] == [False, True]
    assert pair.conflicts == (0,)


# -- combinations that slow a job down -----------------------------------------------------------
def _data(jobs: list[JobData]) -> OfflineData:
    return cast(OfflineData, SimpleNamespace(jobs=jobs))


def test_slowing_options_are_the_fitting_combinations_where_the_job_progresses_less() -> None:
    """Combination 0 slows job 0 (400 < 500) but not job 1 (ξ 1); combination 1 does not fit;
    combination 2 slows neither."""
    jobs = [_job(0, (0, 5), 120.0, 150.0, 180.0), _job(1, (0, 5), 100.0)]
    alone = [o.alone for o in jobs[0].options]
    pair = PairData(
        0,
        1,
        range(0, 6),
        (
            PairOption(0, 0, True, alone[0] - 100, jobs[1].options[0].alone, 1.25, 1.0),
            PairOption(1, 0, False, alone[1], jobs[1].options[0].alone, 1.5, 1.5),
            PairOption(2, 0, True, alone[2], jobs[1].options[0].alone, 1.0, 1.0),
        ),
    )
    assert slowing_options(_data(jobs), pair, 0) == (0,)
    assert slowing_options(_data(jobs), pair, 1) == ()


def test_the_second_job_is_judged_by_its_own_progress_and_option() -> None:
    """Job 1's options bring 400 (150 s) and 334 (180 s) units alone. Combination 0 pairs its
    option 1 at 350 units: not slowed (350 ≥ 334), though it would be against option 0's 400;
    combination 1 pairs its option 0 at 300 units: slowed. Job 0 is slowed in neither."""
    jobs = [_job(0, (0, 5), 120.0), _job(1, (0, 5), 150.0, 180.0)]
    a0 = jobs[0].options[0].alone
    assert [o.alone for o in jobs[1].options] == [400, 334]
    pair = PairData(
        0,
        1,
        range(0, 6),
        (
            PairOption(0, 1, True, a0, 350, 1.0, 1.05),
            PairOption(0, 0, True, a0, 300, 1.0, 1.3),
        ),
    )
    assert slowing_options(_data(jobs), pair, 1) == (1,)
    assert slowing_options(_data(jobs), pair, 0) == ()


def test_a_pair_that_never_co_runs_slows_nobody() -> None:
    """Windows that only touch (no common slot): no combination counts, even one that fits and
    slows."""
    jobs = [_job(0, (0, 5), 120.0), _job(1, (6, 9), 120.0)]
    alone = jobs[0].options[0].alone
    slowed = PairOption(0, 0, True, alone - 1, alone - 1, 2.0, 2.0)
    touching = PairData(0, 1, range(6, 6), (slowed,))
    assert slowing_options(_data(jobs), touching, 0) == ()
    overlapping = PairData(0, 1, range(5, 6), (slowed,))
    assert slowing_options(_data(jobs), overlapping, 0) == (0,)
    assert slowing_options(_data(jobs), overlapping, 1) == (0,)
