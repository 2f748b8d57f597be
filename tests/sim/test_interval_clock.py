"""Interval decisions (docs/model.md §4): the policy is asked at the first tick at or after
every interval boundary while jobs wait, whatever dt; :class:`sjfbsbf.sim.ticks.IntervalClock`
against brute force and at its corrections."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.ticks import IntervalClock, tick_ceil, tick_tolerance

# -- interval decisions ----------------------------------------------------------------------


class Recorder:
    """Wraps a policy and records the time of every decision it is asked for."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.preemptive = inner.preemptive
        self.sharing = inner.sharing
        self.times: list[float] = []

    def decide(self, view: Any) -> Any:
        self.times.append(view.time)
        return self.inner.decide(view)

    def stats(self) -> dict[str, Any]:
        return dict(self.inner.stats())


def _waiting_pair(long: float) -> Instance:
    """1 GPU: job 0 (``long`` s) and job 1 (10 s) both arrive at 0; job 1 waits for job 0."""
    jobs = (Job(0, 0.0, 1, duration=long), Job(1, 0.0, 1, duration=10.0))
    return Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0), jobs)


def test_interval_decisions_when_dt_does_not_divide_interval() -> None:
    """dt = 7, interval = 60: the policy is asked at the first tick at or after each 60 s.

    fifo on 1 GPU; job 0 (500 s) runs from 0, job 1 (10 s) waits. Boundary m·60 falls on tick
    ceil(60·m / 7): 60 → 63, 120 → 126 (17.14 → 18), 180 → 182, 240 → 245, 300 → 301,
    360 → 364, 420 → 420 (exact), 480 → 483. Job 0 finishes at 500, its GPU is released at
    ceil(500 / 7)·7 = 504 where job 1 starts; it finishes at 514, released at 518 (a decision
    too: a completion). The old rule (t / 60 an integer) asked only at 0, 420, 504 and 518.
    """
    recorder = Recorder(make_policy("fifo"))
    res = simulate(_waiting_pair(500.0), recorder, dt=7.0, interval=60.0)
    assert recorder.times == [0, 63, 126, 182, 245, 301, 364, 420, 483, 504, 518]
    jobs = res.jobs.set_index("job_id")
    assert (jobs.loc[1].start, jobs.loc[1].finish) == (504.0, 514.0)


def test_no_interval_decision_while_nothing_waits() -> None:
    """One 500 s job alone: asked at its arrival and at its completion only; the interval
    boundaries (60 s, 120 s, ...) ask the policy only while some job waits (docs/model.md §4)."""
    recorder = Recorder(make_policy("fifo"))
    jobs = (Job(0, 0.0, 1, duration=500.0),)
    simulate(Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0), jobs), recorder)
    assert recorder.times == [0.0, 500.0]


def _first_tick(t: Fraction, dt: Fraction, tol: float) -> int:
    """Brute force, exact: the smallest k >= 0 with k·dt >= t − tol."""
    k = 0
    while k * dt < t - Fraction(tol):
        k += 1
    return k


@st.composite
def dt_interval_pairs(draw: st.DrawFn) -> tuple[float, float]:
    """An interval and a dt ≤ interval: divisors, divisors nudged up or down, or any value."""
    interval = draw(st.sampled_from([60.0, 45.0, 100.0, 1.0, 3600.0, 37.5]))
    kind = draw(st.sampled_from(["divisor", "near", "any"]))
    if kind == "any":
        return draw(st.floats(interval / 40, interval)), interval
    dt = interval / draw(st.integers(1, 40))
    if kind == "near":
        nudge = draw(st.sampled_from([1e-9, 1e-6, 1e-3, 0.05]))
        dt *= 1 - nudge if draw(st.booleans()) else 1 + nudge
    return min(dt, interval), interval


@settings(max_examples=150, deadline=None)
@given(pair=dt_interval_pairs(), boundaries=st.integers(1, 6))
def test_interval_decisions_fall_on_first_tick_after_each_boundary(
    pair: tuple[float, float], boundaries: int
) -> None:
    """While a job waits, the decisions are exactly the first ticks at or after m·interval.

    Same setup as the hand case, job 0 lasting (boundaries + 0.5) intervals. Between time 0 and
    the tick R that releases job 0 nothing but the clock happens, so the decisions strictly
    inside (0, R·dt) must be the ticks B_m = min{k : k·dt ≥ m·interval − ε} with 0 < B_m < R,
    each once, computed here by brute force in exact rationals (ε is the documented tick
    tolerance of the time m·interval).
    """
    dt, interval = pair
    long = (boundaries + 0.5) * interval
    recorder = Recorder(make_policy("fifo"))
    simulate(_waiting_pair(long), recorder, dt=dt, interval=interval)
    fdt = Fraction(dt)
    release = _first_tick(Fraction(long), fdt, tick_tolerance(long, dt))
    expected = []
    for m in range(1, boundaries + 2):
        time = m * interval
        tick = _first_tick(Fraction(time), fdt, tick_tolerance(time, dt))
        if 0 < tick < release:
            expected.append(tick)
    seen = [t for t in recorder.times if 0 < t < release * dt - tick_tolerance(release * dt, dt)]
    assert seen == [k * dt for k in expected], (dt, interval, recorder.times)
    # dt ≤ interval gives every boundary its own tick; only the last may coincide with R.
    assert len(expected) >= boundaries - 1


@settings(max_examples=150, deadline=None)
@given(pair=dt_interval_pairs(), start=st.integers(0, 10**6), span=st.integers(1, 60))
def test_interval_clock_matches_brute_force(
    pair: tuple[float, float], start: int, span: int
) -> None:
    """IntervalClock.first_at_or_after(k) is the least boundary tick ≥ k, for k far into a run.

    Brute force: walk boundary indices m from 0 (float ticks via tick_ceil of m·interval).
    """
    dt, interval = pair
    clock = IntervalClock(interval, dt)
    m = max(0, int(start * dt / interval) - 2)
    while m > 0 and tick_ceil(m * interval, dt) >= start:
        m -= 1
    for k in range(start, start + span):
        while tick_ceil(m * interval, dt) < k:
            m += 1
        assert clock.first_at_or_after(k) == tick_ceil(m * interval, dt)
        assert clock.is_boundary(k) == (tick_ceil(m * interval, dt) == k)


@pytest.mark.parametrize(
    ("dt", "interval", "k"),
    [(0.3, 3.0, 1_323_830_041), (0.1, 0.15000000000000002, 3_489_523_342)],
)
def test_interval_clock_corrects_an_estimate_one_boundary_too_far(
    dt: float, interval: float, k: int
) -> None:
    """Far into a run the float estimate of the boundary index can land one past the answer:
    here boundary m* = floor((k − 1)·dt / interval) in exact arithmetic falls exactly on tick
    k, while the float quotient rounds up to m*. The clock must step back to m* (tick k), not
    return the next boundary (found by a search over dt, interval and k)."""
    clock = IntervalClock(interval, dt)
    estimate = math.floor((k - 1) * dt / interval) + 1
    answer = estimate - 1
    assert tick_ceil(answer * interval, dt) == k  # boundary m* is tick k ...
    assert tick_ceil((answer - 1) * interval, dt) < k  # ... and the one before is earlier
    assert clock.first_at_or_after(k) == k
    assert clock.is_boundary(k)
    assert clock.first_at_or_after(k + 1) == tick_ceil(estimate * interval, dt)


@pytest.mark.parametrize(
    ("interval", "dt"),
    [(60.0, 0.0), (60.0, -1.0), (1.0, 2.0), (math.inf, 1.0), (math.nan, 1.0), (60.0, math.nan)],
)
def test_interval_clock_refuses_bad_parameters(interval: float, dt: float) -> None:
    with pytest.raises(ValueError) as refused:
        IntervalClock(interval, dt)
    assert str(refused.value) == (
        f"need 0 < dt <= interval < inf, got dt={dt}, interval={interval}"
    )
