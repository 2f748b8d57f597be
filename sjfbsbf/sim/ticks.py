"""Tick arithmetic of the simulator: rounding a time up to a tick, interval boundaries.

Tick k is time k·dt (docs/model.md §4). Times the simulator rounds (arrivals, finishes, planned
starts, wake-ups) are floats computed with rounding error, so an exact multiple of ``dt`` may come
out a hair above it; :func:`tick_ceil` absorbs that noise and nothing more: the tick it returns is
never earlier than the time by more than :func:`tick_tolerance`, which is at most 1e-12 of the
time itself (about 4,500 float ulps) and at most 1e-9 of a tick.
"""

from __future__ import annotations

import math
from fractions import Fraction

#: Default decision interval (s): the policy is asked at least this often while jobs wait.
DEFAULT_INTERVAL = 60.0
#: Float noise absorbed when rounding a time up to a tick, relative to the time (docs/model.md §4).
TICK_REL_TOLERANCE = 1e-12
#: ... and relative to the tick length (the absorbed noise never exceeds this share of a tick).
TICK_DT_TOLERANCE = 1e-9


def tick_tolerance(t: float, dt: float) -> float:
    """Float noise (s) :func:`tick_ceil` absorbs at time ``t``: min(1e-12·|t|, 1e-9·dt)."""
    return min(TICK_REL_TOLERANCE * abs(t), TICK_DT_TOLERANCE * dt)


def tick_ceil(t: float, dt: float) -> int:
    """Index of the first tick at or after time ``t``, tolerant to float noise only.

    The result is the smallest k ≥ 0 with ``k·dt ≥ t − tick_tolerance(t, dt)``, in exact
    arithmetic (docs/model.md §4): an exact multiple of ``dt`` maps to its own tick, a time a few
    ulps above it too, and a time genuinely inside a tick to the next tick, however large ``dt``
    is.

    Parameters
    ----------
    t
        Time (s), finite; times ≤ 0 map to tick 0.
    dt
        Tick length (s), positive and finite.

    Raises
    ------
    ValueError
        If ``t`` is not finite or lies more than 2^52 ticks away (a tick index must exist and be
        exact).
    """
    if not math.isfinite(t):
        raise ValueError(f"cannot round the time {t} to a tick")
    if t <= 0:
        return 0
    if t % dt == 0:  # float remainders are exact: t = q·dt for a whole q
        q = t // dt
        if q < _MAX_TICKS and q * dt == t:
            # Tick q covers t, and tick q − 1 ends dt > tolerance before it.
            return int(q)
    quotient = t / dt
    if not quotient < _MAX_TICKS:
        raise ValueError(f"the time {t} s is more than 2^52 ticks of {dt} s")
    tol = tick_tolerance(t, dt)
    k = math.ceil(quotient)
    # The float quotient is within one tick of the answer: settle on the exact smallest k.
    while k > 0 and _covers(k - 1, dt, t, tol):
        k -= 1
    while not _covers(k, dt, t, tol):
        k += 1
    return k


#: Tick indices stay below this, where float products k·dt are accurate to an ulp.
_MAX_TICKS = 2.0**52


def _covers(k: int, dt: float, t: float, tol: float) -> bool:
    """Whether k·dt ≥ t − tol exactly (floats decide unless within a few ulps, then rationals)."""
    product = k * dt
    bound = t - tol
    if abs(product - bound) > 4.0 * math.ulp(max(abs(product), abs(bound))):
        return product > bound
    return Fraction(k) * Fraction(dt) >= Fraction(t) - Fraction(tol)


class IntervalClock:
    """The ticks at which interval decisions fall: the first tick at or after each boundary.

    Boundaries are the multiples m·``interval`` (m = 0, 1, 2, …); boundary m falls on tick
    ``tick_ceil(m·interval, dt)`` (docs/model.md §4). With ``dt ≤ interval`` every boundary has
    its own tick. Everything is computed from the boundary index m, so no float error builds up
    over a long run.

    Parameters
    ----------
    interval
        Decision interval (s), positive and finite.
    dt
        Tick length (s), positive, finite and at most ``interval``.
    """

    def __init__(self, interval: float, dt: float) -> None:
        if not (0 < dt <= interval < math.inf):
            raise ValueError(f"need 0 < dt <= interval < inf, got dt={dt}, interval={interval}")
        self.interval = interval
        self.dt = dt

    def boundary_tick(self, m: int) -> int:
        """Tick of boundary ``m`` (time m·interval)."""
        return tick_ceil(m * self.interval, self.dt)

    def first_at_or_after(self, k: int) -> int:
        """The earliest boundary tick ≥ tick ``k``."""
        if k <= 0:
            return 0
        # Estimate the boundary index from the time of tick k − 1, then correct the float error.
        m = max(0, math.floor((k - 1) * self.dt / self.interval) + 1)
        while m > 0 and self.boundary_tick(m - 1) >= k:
            m -= 1
        while self.boundary_tick(m) < k:
            m += 1
        return self.boundary_tick(m)

    def is_boundary(self, k: int) -> bool:
        """Whether tick ``k`` is the first tick at or after some interval boundary."""
        return self.first_at_or_after(k) == k
