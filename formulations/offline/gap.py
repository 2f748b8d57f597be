"""A policy's gap to the offline optimum as an interval (docs/formulations.md §2.8).

The optimum is known only between the best replayed schedule U (an upper bound) and a lower
bound L; the policy's gap J ÷ optimum − 1 then lies in [J/U − 1, J/L − 1]. Both ends are widened
by the replay tolerance tol of docs/formulations.md §2.5 (U and L hold up to it):

    low  = J / (U + tol) − 1
    high = J / max(L − tol, MIN_DENOMINATOR_S) − 1

For a proven optimum U and L agree within tol and the interval is narrow; for an unproven one it
spans the solver's remaining gap. Preemptive policies are not bounded below by the
(non-preemptive) optimum, so their interval may be negative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sjfbsbf.sim.result import SimResult

#: The floor of the lower-bound end's denominator L − tol (s): keeps the high end finite.
MIN_DENOMINATOR_S = 1e-9


@dataclass(frozen=True)
class PolicyGap:
    """A policy simulated against an offline result (:meth:`OfflineResult.policy_gap`).

    Attributes
    ----------
    policy
        The policy's name.
    avg_jct
        Its simulated average JCT J (s), at the result's tick and interference.
    low, high
        The interval holding J ÷ optimum − 1 (:func:`gap_interval`).
    run
        The simulation itself.
    """

    policy: str
    avg_jct: float
    low: float
    high: float
    run: SimResult = field(repr=False, compare=False)


def gap_interval(
    avg_jct: float, best: float | None, bound: float | None, tolerance: float
) -> tuple[float, float]:
    """The interval [low, high] holding ``avg_jct`` ÷ optimum − 1.

    Parameters
    ----------
    avg_jct
        The policy's average JCT J (s).
    best
        The best replayed schedule's average JCT U (s), an upper bound on the optimum; ``None``
        if unknown (then ``low`` is NaN).
    bound
        A lower bound L on the optimum (s); ``None`` if unknown (then ``high`` is +inf).
    tolerance
        The replay tolerance tol (s, ≥ 0) within which U and L hold.

    Returns
    -------
    tuple of float
        ``(J / (U + tol) − 1, J / max(L − tol, MIN_DENOMINATOR_S) − 1)``.

    Raises
    ------
    ValueError
        If ``tolerance`` is negative or not finite.

    Examples
    --------
    >>> low, high = gap_interval(120.0, 100.0, 80.0, 0.5)
    >>> round(low, 6), round(high, 6)
    (0.19403, 0.509434)
    """
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number ≥ 0, not {tolerance!r}")
    low = math.nan if best is None else avg_jct / (best + tolerance) - 1.0
    high = math.inf if bound is None else avg_jct / max(bound - tolerance, MIN_DENOMINATOR_S) - 1.0
    return low, high
