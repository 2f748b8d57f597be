"""Tick arithmetic (docs/model.md §4): rounding times up to ticks, the bounds on ``dt``.

The simulator rounds arrivals, finishes, planned starts and wake-ups up to ticks with
:func:`sjfbsbf.ticks.tick_ceil`; it absorbs float noise (at most 1e-12 of the time, at most 1e-9
of a tick) and nothing more, so no job starts before it arrives and no GPU is released before its
job finishes, however coarse the tick.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sjfbsbf.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy, policy_names
from sjfbsbf.simulator import simulate
from sjfbsbf.ticks import tick_ceil, tick_tolerance

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
    """
    dt = draw(st.one_of(st.sampled_from([1.0, 7.0, 60.0, 1e6, 1e12, 1e15]), st.floats(1.0, 1e13)))
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        base = draw(st.integers(0, 3)) * dt
        offset = draw(
            st.sampled_from(
                [0.0, 1e-15 * base, -1e-15 * base, 1e-9 * dt, -1e-9 * dt, 0.5, -0.5, 500.0]
            )
        )
        arrival = max(0.0, base + offset)
        duration = draw(
            st.one_of(
                st.integers(1, 2000).map(float),
                st.sampled_from([0.5, 1.0, 2.0, 1.0 + 1e-9]).map(lambda f: f * dt),
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
    if policy.preemptive:
        overhead = 0.0  # srtf can livelock with a restart overhead (a separate defect)
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


def _one_job() -> Instance:
    return Instance(Cluster(nodes=1, gpus_per_node=1), (Job(0, 0.0, 1, duration=10.0),))


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
def test_simulate_bounds_dt(dt: float, interval: float, message: str) -> None:
    """dt must be positive, finite and ≤ interval: otherwise a ValueError saying so."""
    with pytest.raises(ValueError, match=message):
        simulate(_one_job(), make_policy("fifo"), dt=dt, interval=interval)


def test_dt_equal_to_interval_is_allowed() -> None:
    """dt = interval is the largest tick allowed: a lone job arriving at 0 runs 0 → 10."""
    res = simulate(_one_job(), make_policy("fifo"), dt=60.0, interval=60.0)
    assert (res.jobs.start.iloc[0], res.jobs.finish.iloc[0]) == (0.0, 10.0)
