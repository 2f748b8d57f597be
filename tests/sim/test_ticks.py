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
from sjfbsbf.sim.ticks import tick_ceil, tick_tolerance

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
