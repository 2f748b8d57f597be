"""Tick arithmetic (docs/model.md §4): rounding times up to ticks, the bounds on ``dt``.

The simulator rounds arrivals, finishes, planned starts and wake-ups up to ticks with
:func:`sjfbsbf.sim.ticks.tick_ceil`; it absorbs float noise (at most 1e-12 of the time, at most 1e-9
of a tick) and nothing more, so no job starts before it arrives and no GPU is released before its
job finishes, however coarse the tick.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy, policy_names
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.ticks import IntervalClock, tick_ceil, tick_tolerance

POLICIES = policy_names(defaults_only=True)


# -- tick_ceil ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "dt", "tick"),
    [
        (0.0, 1.0, 0),
        (100.0, 1.0, 100),  # an exact multiple is its own tick
        (100.5, 1.0, 101),
        (10.3, 4.0, 3),  # 12 is the first multiple of 4 at or after 10.3
        (0.1 + 0.2, 0.1, 3),  # 0.30000000000000004: float noise above 3 ticks is absorbed
        (3.3, 0.1, 33),  # 3.3 / 0.1 = 32.99999999999999…: still tick 33 (3.3000000000000003)
        (1e-12, 1.0, 1),  # a positive time is never rounded down to tick 0
        (500.0, 1e12, 1),  # inside the first tick of a huge dt: the next tick, not tick 0
        (1e12 + 500.0, 1e12, 2),
        (3e12, 1e12, 3),
        (30.0, 10.0, 3),
        (30.0, 7.0, 5),
    ],
)
def test_tick_ceil_hand_cases(t: float, dt: float, tick: int) -> None:
    """Hand-computed ticks: exact multiples keep their tick; anything later goes to the next.

    (500 s, dt 1e12) used to give tick 0 (the old rule subtracted 1e-9 *ticks*, i.e. 1,000 s at
    dt = 1e12), and (1e12 + 500 s) tick 1: both before the time itself.
    """
    assert tick_ceil(t, dt) == tick


def test_tick_ceil_refuses_non_finite_time() -> None:
    """An infinite or NaN time has no tick: a clear ValueError, not an OverflowError or a loop.

    So does a time more than 2^52 ticks away (float tick arithmetic would no longer be exact).
    """
    for bad in (math.inf, math.nan):
        with pytest.raises(ValueError, match="tick"):
            tick_ceil(bad, 1.0)
    with pytest.raises(ValueError, match="2\\^52 ticks"):
        tick_ceil(1e18, 1.0)
    assert tick_ceil(2.0**51, 1.0) == 2**51


@pytest.mark.parametrize("dt", [1.0, 0.5, 3.0])
def test_tick_ceil_takes_ticks_up_to_2_52_and_refuses_from_there(dt: float) -> None:
    """Tick 2^52 − 1 is the last: its time maps to it; the time of tick 2^52 is refused."""
    assert tick_ceil((2.0**52 - 1) * dt, dt) == 2**52 - 1
    with pytest.raises(ValueError, match=r"^the time .* s is more than 2\^52 ticks of .* s$"):
        tick_ceil(2.0**52 * dt, dt)


@pytest.mark.parametrize(
    ("t", "tick"),
    [
        (2.0**53 + 4, (2**53 + 4) // 3),  # 3 divides 2^53 + 4: an exact multiple, its own tick
        (2.0**53 + 8, (2**53 + 7) // 3 + 1),  # 1 s above tick (2^53 + 7)/3: the next tick
    ],
)
def test_tick_ceil_of_a_time_one_second_past_a_tick_beyond_2_53_s(t: float, tick: int) -> None:
    """Times past 2^53 s (float spacing 2 s), dt = 3 s, both under 2^52 ticks.

    2^53 ≡ 2 (mod 3), so 2^53 + 4 = 3·q exactly: tick q. 2^53 + 8 = 3·n + 1 with
    n = (2^53 + 7)/3: 1 s past tick n, far beyond the tolerance min(1e-12·t, 1e-9·3 s) = 3e-9 s,
    so tick n + 1 (at 2^53 + 10 s). The float product n·3 rounds to t itself (2^53 + 7 is
    halfway between two floats and rounds to the even 2^53 + 8), so only the exact remainder
    (1, not 0) tells that t is not on tick n.
    """
    assert tick_ceil(t, 3.0) == tick


@pytest.mark.parametrize(
    ("t", "dt", "tick"),
    [(0.0, 1.0, 0), (60.0, 1.0, 60), (63.0, 7.0, 9), (1.5, 0.5, 3), (7e9, 7.0, 10**9)],
)
def test_an_exact_multiple_of_dt_takes_its_tick_without_the_exact_walk(
    t: float, dt: float, tick: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path of tick_ceil (docs/performance.md, step 1): a time that is a whole number
    of ticks (float remainder 0) maps to its tick without the correction walk and its exact
    rationals, which every arrival and finish of a duration-only run at dt = 1 s would
    otherwise pay. The walk is disabled here: the fast path alone must answer."""

    def no_walk(*args: object) -> bool:
        raise AssertionError("the exact walk ran for an exact multiple of dt")

    monkeypatch.setattr("sjfbsbf.sim.ticks._covers", no_walk)
    assert tick_ceil(t, dt) == tick


@settings(max_examples=400, deadline=None)
@given(
    t=st.one_of(
        st.floats(0.0, 1e15, allow_nan=False),
        st.integers(0, 10**6).map(float),
    ),
    dt=st.one_of(
        st.sampled_from([1.0, 0.1, 7.0, 60.0, 1e6, 1e12]),
        st.floats(1e-3, 1e13, allow_nan=False),
    ),
    scale=st.sampled_from([None, 1.0, 1 + 1e-15, 1 - 1e-15, 1 + 1e-9, 1 - 1e-9]),
)
def test_tick_ceil_is_the_first_tick_within_tolerance(
    t: float, dt: float, scale: float | None
) -> None:
    """k = tick_ceil(t, dt) is the smallest k ≥ 0 with k·dt ≥ t − tolerance (exact rationals).

    With ``scale`` the time is placed at (or a relative 1e-15 / 1e-9 around) a tick boundary
    t = round(t / dt)·dt·scale. The tolerance is min(1e-12·t, 1e-9·dt): a tick is never before
    the time by more than that. Tick indices stay below 2^52 (tick_ceil refuses more;
    a simulation never gets near).
    """
    if scale is not None:
        t = round(t / dt) * dt * scale
    assume(t / dt < 2.0**52)
    k = tick_ceil(t, dt)
    tol = tick_tolerance(t, dt)
    assert tol <= 1e-12 * t + 1e-300 and tol <= 1e-9 * dt
    assert k >= 0
    floor_t = Fraction(t) - Fraction(tol)
    assert k * Fraction(dt) >= floor_t, (t, dt, k)
    if k > 0:
        assert (k - 1) * Fraction(dt) < floor_t, (t, dt, k)


# -- coarse ticks in the simulator -------------------------------------------------------------


@st.composite
def coarse_cases(draw: st.DrawFn) -> tuple[Instance, float]:
    """1–4 duration-only jobs on 1 GPU, arrivals at, near or between tick boundaries.

    ``dt`` ranges from 1 s to 1e15 s. Arrivals are m·dt plus an offset that is zero, float noise
    (±1e-15 relative), a relative ±1e-9 of dt, or an absolute 0.5 s or 500 s; durations are
    whole seconds or multiples / fractions of dt (so finishes also land at or near boundaries).
    Times stay within the instance limits (10 years, docs/model.md §1): with a coarser dt only
    m = 0 and whole-second durations are drawn.
    """
    dt = draw(
        st.one_of(st.sampled_from([1.0, 7.0, 60.0, 1e6, 1e8, 1e12, 1e15]), st.floats(1.0, 1e13))
    )
    coarse = dt > 1e8  # 3·dt + 500 s and 2·dt must stay below 10 years
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        base = draw(st.integers(0, 0 if coarse else 3)) * dt
        offset = draw(
            st.sampled_from(
                [0.0, 1e-15 * base, -1e-15 * base, 1e-9 * dt, -1e-9 * dt, 0.5, -0.5, 500.0]
            )
        )
        arrival = max(0.0, base + offset)
        duration = draw(
            st.one_of(
                st.integers(1, 2000).map(float),
                st.sampled_from([0.5, 1.0, 2.0, 1.0 + 1e-9]).map(lambda f: f * dt)
                if not coarse
                else st.nothing(),
            )
        )
        jobs.append(Job(i, arrival, 1, duration=duration))
    return Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0), tuple(jobs)), dt


@pytest.mark.parametrize("name", POLICIES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=coarse_cases(), overhead=st.sampled_from([0.0, 30.0]))
def test_no_start_before_arrival_nor_release_before_finish(
    name: str, case: tuple[Instance, float], overhead: float
) -> None:
    """For every policy and any dt: start ≥ arrival and a GPU frees only after its job's finish.

    On one GPU without sharing, a job can only start once the previous job has released the GPU,
    so for the exclusive non-preemptive policies each start is ≥ the previous job's finish
    (sorted by start). Both bounds hold up to the tick tolerance of the time concerned.
    The decision interval is set to dt (the largest allowed).
    """
    instance, dt = case
    policy: Any = make_policy(name)
    res = simulate(instance, policy, dt=dt, interval=dt, restart_overhead=overhead)
    jobs = res.jobs.sort_values(["start", "job_id"])
    for r in jobs.itertuples():
        assert r.start >= r.arrival - tick_tolerance(r.arrival, dt), (r.job_id, r.arrival, r.start)
        assert r.finish > r.start
    if not policy.sharing and not policy.preemptive:
        finishes = jobs.finish.to_list()
        starts = jobs.start.to_list()
        for before, start in zip(finishes, starts[1:], strict=False):
            assert start >= before - tick_tolerance(before, dt), (before, start)


# -- bounds on dt ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dt", "interval", "message"),
    [
        (120.0, 60.0, "at most the decision interval"),
        (61.0, 60.0, "at most the decision interval"),
        (math.inf, math.inf, "dt must be a positive, finite"),
        (math.nan, 60.0, "dt must be a positive, finite"),
        (0.0, 60.0, "dt must be a positive, finite"),
        (1.0, math.inf, "interval must be a positive, finite"),
    ],
)
def test_simulate_bounds_dt(
    dt: float, interval: float, message: str, one_gpu: Callable[..., Instance]
) -> None:
    """dt must be positive, finite and ≤ interval: otherwise a ValueError saying so."""
    with pytest.raises(ValueError, match=message):
        simulate(one_gpu((0.0, 10.0)), make_policy("fifo"), dt=dt, interval=interval)


def test_dt_equal_to_interval_is_allowed(one_gpu: Callable[..., Instance]) -> None:
    """dt = interval is the largest tick allowed: a lone job arriving at 0 runs 0 → 10."""
    res = simulate(one_gpu((0.0, 10.0)), make_policy("fifo"), dt=60.0, interval=60.0)
    assert (res.jobs.start.iloc[0], res.jobs.finish.iloc[0]) == (0.0, 10.0)


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


def test_a_time_exactly_one_tolerance_past_a_tick_maps_to_that_tick() -> None:
    """The tolerance is inclusive: k·dt ≥ t − tolerance, equality included, in exact arithmetic.

    t = 2^-40 / 1e-12 makes the tolerance 1e-12·t exactly 2^-40, and dt = t − 2^-40 is a
    float, so tick 1 ends exactly one tolerance before t: t maps to tick 1, not 2.
    """
    t = 2.0**-40 / 1e-12
    dt = t - 2.0**-40
    assert tick_tolerance(t, dt) == 2.0**-40
    assert Fraction(dt) == Fraction(t) - Fraction(tick_tolerance(t, dt))
    assert tick_ceil(t, dt) == 1
    assert tick_ceil(math.nextafter(t, math.inf), dt) == 2


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
