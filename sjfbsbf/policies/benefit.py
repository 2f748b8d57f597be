"""The pairwise sharing-benefit estimate of SJF-BSBF (docs/model.md §6). Pure functions.

A pending job *a* may start now on GPUs held by a running job *b* (its "host"), with
slowdowns ξ_a, ξ_b ≥ 1 while both run, or wait for *b* to finish and then run alone. With
T_b = b's exclusive remaining time and T_a' = a's exclusive time at the sub-batch tried
(T_a at the full batch), the completion times, measured from now, are:

*Wait.* b runs alone, a starts when b ends: ``C_b = T_b``, ``C_a = W + T_a`` where the paper's
estimate takes ``W = T_b`` (a waits for this partner); the *wait-aware* variant takes W = the
time until any G_a GPUs free up.

*Share.* Both progress at rates 1/ξ. If b ends first (``ξ_b·T_b ≤ ξ_a·T_a'``) then
``C_b = ξ_b·T_b``; by then a has done the fraction ``ξ_b·T_b / (ξ_a·T_a')`` of its work, so
its exclusive tail is ``T_a' − ξ_b·T_b/ξ_a`` and ``C_a = ξ_b·T_b + T_a' − ξ_b·T_b/ξ_a``.
Symmetrically if a ends first: ``C_a = ξ_a·T_a'``, ``C_b = ξ_a·T_a' + T_b − ξ_a·T_a'/ξ_b``.

With ``retune`` (a goes back to the full batch once b has left), a's tail shrinks by the factor
T_a / T_a' (its remaining work is the same, each step is faster).

``benefit = (C_a + C_b)_wait − (C_a + C_b)_share``: positive means sharing now lowers the pair's
total (hence average) completion time.

Every function accepts floats or numpy arrays (host-wise vectors) for ``t_b``, ``xi_a``,
``xi_b``: the greedy evaluates all hosts of a pending job at once with the same formulas.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Number = float | np.ndarray


@dataclass(frozen=True, slots=True)
class PairTimes:
    """Completion times (s from now) of the pending job a and its host b."""

    c_a: Number
    c_b: Number

    @property
    def total(self) -> Number:
        """C_a + C_b."""
        return self.c_a + self.c_b


def _out(value: np.ndarray) -> Number:
    return float(value) if np.ndim(value) == 0 else value


def wait_times(t_a: float, t_b: Number, wait: Number | None = None) -> PairTimes:
    """Completion times if a waits ``wait`` (default: until b ends, T_b) then runs alone."""
    return PairTimes(c_a=(t_b if wait is None else wait) + t_a, c_b=t_b)


def share_times(
    t_a_sub: float,
    t_b: Number,
    xi_a: Number,
    xi_b: Number,
    *,
    t_a_full: float | None = None,
    retune: bool = False,
) -> PairTimes:
    """Completion times if a starts now beside b.

    Parameters
    ----------
    t_a_sub
        a's exclusive time at the sub-batch it shares with (T_a').
    t_b
        b's exclusive remaining time.
    xi_a, xi_b
        Slowdowns while both run (≥ 1).
    t_a_full
        a's exclusive time at the full batch (T_a); needed with ``retune``.
    retune
        a returns to the full batch once b has left.
    """
    t_b, xi_a, xi_b = np.asarray(t_b, float), np.asarray(xi_a, float), np.asarray(xi_b, float)
    b_first = xi_b * t_b <= xi_a * t_a_sub
    # b ends first: C_b = ξ_b T_b, a's solo tail T_a' − ξ_b T_b / ξ_a (× T_a/T_a' if retuned).
    b_end = xi_b * t_b
    tail = t_a_sub - b_end / xi_a
    if retune:
        assert t_a_full is not None, "retune needs t_a_full"
        tail = tail * (t_a_full / t_a_sub)
    # a ends first: C_a = ξ_a T_a', b's solo tail T_b − ξ_a T_a' / ξ_b.
    a_end = xi_a * t_a_sub
    c_a = np.where(b_first, b_end + tail, a_end)
    c_b = np.where(b_first, b_end, a_end + t_b - a_end / xi_b)
    return PairTimes(c_a=_out(c_a), c_b=_out(c_b))


def pair_benefit(
    t_a: float,
    t_a_sub: float,
    t_b: Number,
    xi_a: Number,
    xi_b: Number,
    *,
    wait: Number | None = None,
    retune: bool = False,
) -> Number:
    """Sharing benefit: total completion time waiting minus total completion time sharing.

    Parameters
    ----------
    t_a
        a's exclusive time at the full batch (what it runs at after waiting).
    t_a_sub
        a's exclusive time at the sub-batch tried.
    t_b
        Host b's exclusive remaining time (a float, or an array over hosts).
    xi_a, xi_b
        Slowdowns of a and b while sharing (floats or arrays).
    wait
        How long a would wait before running alone (default T_b: the paper's estimate).
    retune
        Whether a returns to its full batch after b leaves.

    Examples
    --------
    Equal lengths T and ξ = 1.9 each: sharing costs 3.8·T, waiting 3·T.

    >>> round(pair_benefit(1.0, 1.0, 1.0, 1.9, 1.9), 12)
    -0.8
    """
    shared = share_times(t_a_sub, t_b, xi_a, xi_b, t_a_full=t_a, retune=retune)
    return wait_times(t_a, t_b, wait).total - shared.total


def total_completion_delayed_start(
    start: float, t_a_sub: float, t_b: float, xi_a: float, xi_b: float
) -> float:
    """Pair total completion time if a waits ``start`` seconds (≤ T_b) and then shares with b.

    Used to check the sharing-time-point proposition (docs/model.md): b runs alone for
    ``start`` seconds, then both share; the best ``start`` is 0 or T_b.
    """
    if not 0.0 <= start <= t_b * (1.0 + 1e-12):
        raise ValueError("start must lie in [0, T_b]")
    start = min(start, t_b)
    rest = share_times(t_a_sub, t_b - start, xi_a, xi_b)
    if start == t_b:
        return 2.0 * t_b + t_a_sub
    return float(2.0 * start + rest.total)
