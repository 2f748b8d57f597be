"""The pairwise benefit estimate and the sharing-time-point proposition (docs/model.md §6)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sjfbsbf.policies.benefit import (
    pair_benefit,
    share_times,
    total_completion_delayed_start,
    wait_times,
)

times = st.floats(min_value=1.0, max_value=1e4, allow_nan=False)
slowdowns = st.floats(min_value=1.0, max_value=6.0, allow_nan=False)


def test_equal_lengths_high_slowdown_loses() -> None:
    """ξ_a = ξ_b = 1.9, T_a = T_b = T: sharing totals 3.8·T, waiting 3·T (docs/model.md §3)."""
    shared = share_times(100.0, 100.0, 1.9, 1.9)
    assert shared.c_a == pytest.approx(190.0)
    assert shared.c_b == pytest.approx(190.0)
    assert wait_times(100.0, 100.0).total == pytest.approx(300.0)
    assert pair_benefit(100.0, 100.0, 100.0, 1.9, 1.9) == pytest.approx(-80.0)


def test_host_ends_first_by_hand() -> None:
    """T_a' = 300, T_b = 100, ξ_a = 1.2, ξ_b = 1.5.

    b ends first (150 <= 360): C_b = 150; a has done 150/(1.2·300) of its work, its solo tail is
    300 − 150/1.2 = 175, so C_a = 325. Waiting: C_b = 100, C_a = 100 + 300 = 400.
    Benefit = 500 − 475 = 25.
    """
    shared = share_times(300.0, 100.0, 1.2, 1.5)
    assert (shared.c_a, shared.c_b) == pytest.approx((325.0, 150.0))
    assert pair_benefit(300.0, 300.0, 100.0, 1.2, 1.5) == pytest.approx(25.0)


def test_pending_ends_first_by_hand() -> None:
    """T_a' = 50, T_b = 400, ξ_a = 1.4, ξ_b = 1.25.

    a ends first (70 < 500): C_a = 70; b has done 70/(1.25·400) of its work, tail 400 − 56,
    C_b = 70 + 344 = 414. Waiting: 400 + 450 = 850. Benefit = 850 − 484 = 366.
    """
    shared = share_times(50.0, 400.0, 1.4, 1.25)
    assert (shared.c_a, shared.c_b) == pytest.approx((70.0, 414.0))
    assert pair_benefit(50.0, 50.0, 400.0, 1.4, 1.25) == pytest.approx(366.0)


def test_retune_shrinks_the_tail() -> None:
    """With retune, a's tail after b leaves is scaled by T_a / T_a' (here 200 / 250)."""
    plain = share_times(250.0, 100.0, 1.2, 1.5)
    tuned = share_times(250.0, 100.0, 1.2, 1.5, t_a_full=200.0, retune=True)
    assert tuned.c_b == plain.c_b
    tail = 250.0 - 150.0 / 1.2
    assert plain.c_a == pytest.approx(150.0 + tail)
    assert tuned.c_a == pytest.approx(150.0 + tail * 200.0 / 250.0)


def test_wait_aware_changes_the_alternative() -> None:
    """A shorter wait (other GPUs free up sooner) lowers the benefit by exactly T_b − W."""
    paper = pair_benefit(200.0, 220.0, 500.0, 1.3, 1.3)
    aware = pair_benefit(200.0, 220.0, 500.0, 1.3, 1.3, wait=50.0)
    assert paper - aware == pytest.approx(450.0)


@settings(max_examples=300, deadline=None)
@given(t_a=times, stretch=st.floats(1.0, 2.0), t_b=times, xi_a=slowdowns, xi_b=slowdowns)
def test_best_sharing_start_is_now_or_when_partner_ends(
    t_a: float, stretch: float, t_b: float, xi_a: float, xi_b: float
) -> None:
    """Brute force over start times x in [0, T_b]: none beats the better end point.

    The end points are "share now" (x = 0) and "wait for b, then run at the full batch".
    """
    t_sub = t_a * stretch
    now = total_completion_delayed_start(0.0, t_sub, t_b, xi_a, xi_b)
    wait = wait_times(t_a, t_b).total
    best_end = min(now, wait)
    grid = [t_b * k / 400 for k in range(401)]
    values = [total_completion_delayed_start(x, t_sub, t_b, xi_a, xi_b) for x in grid]
    assert min(values) >= best_end - 1e-9 * max(1.0, best_end)
    # Concavity of F on the grid: midpoints never lie below the chord.
    for left, mid, right in zip(values, values[1:], values[2:], strict=False):
        assert mid >= (left + right) / 2 - 1e-7 * max(1.0, mid)
    assert now == pytest.approx(share_times(t_sub, t_b, xi_a, xi_b).total)


@settings(max_examples=300, deadline=None)
@given(
    t_a=times,
    stretch=st.floats(1.0, 2.0),
    t_b=times,
    xi_a=slowdowns,
    xi_b=slowdowns,
    elapsed=st.floats(0.0, 1.0),
    retune=st.booleans(),
)
def test_benefit_never_grows_while_only_time_passes(
    t_a: float, stretch: float, t_b: float, xi_a: float, xi_b: float, elapsed: float, retune: bool
) -> None:
    """While the host runs alone (T_b shrinks) and the pending job waits (T_a fixed), the pair
    benefit (paper estimate, W = T_b) is non-increasing: what lets sjf-bsbf skip a decision when
    only time moved since a decision that changed nothing (docs/model.md §6)."""
    t_sub = t_a * stretch
    now = pair_benefit(t_a, t_sub, t_b, xi_a, xi_b, retune=retune)
    later = pair_benefit(t_a, t_sub, t_b * (1.0 - elapsed), xi_a, xi_b, retune=retune)
    # A positive benefit only shrinks; a non-positive one stays non-positive (it may rise
    # towards −(T_a' − T_a) ≤ 0 when 2 − 2ξ_b + ξ_b/ξ_a < 0).
    assert later <= max(now, 0.0) + 1e-9 * max(1.0, t_a, t_b)


def test_delayed_start_accepts_exactly_0_to_t_b_within_its_rounding_slack() -> None:
    """start ∈ [0, T_b·(1 + 1e-12)] is accepted (the upper end is clamped to T_b: b is done and a
    runs alone at T_a'); anything outside is refused with the rule in the message."""
    t_sub, t_b = 30.0, 50.0
    alone_after_b = 2.0 * t_b + t_sub
    assert total_completion_delayed_start(t_b, t_sub, t_b, 1.5, 1.2) == alone_after_b
    edge = t_b * (1.0 + 1e-12)
    assert total_completion_delayed_start(edge, t_sub, t_b, 1.5, 1.2) == alone_after_b
    for outside in (-1e-9, t_b * (1.0 + 1e-9), 2.0 * t_b):
        with pytest.raises(ValueError, match=r"^start must lie in \[0, T_b\]$"):
            total_completion_delayed_start(outside, t_sub, t_b, 1.5, 1.2)


def test_default_is_the_papers_estimate_without_retune() -> None:
    """T_a = 100, T_a' = 150, T_b = 50, ξ = 1.2: b ends first (60 ≤ 180). Sharing: C_b = 60,
    C_a = 60 + 150 − 60/1.2 = 160 (total 220); waiting: 50 + 150 = 200; benefit −20. With retune
    a's tail 100 shrinks by 100/150: C_a = 126.67, benefit +13.33."""
    assert pair_benefit(100.0, 150.0, 50.0, 1.2, 1.2) == pytest.approx(-20.0, rel=1e-12)
    retuned = pair_benefit(100.0, 150.0, 50.0, 1.2, 1.2, retune=True)
    assert retuned == pytest.approx(200.0 - (60.0 + 100.0 * 100.0 / 150.0 + 60.0), rel=1e-12)


def test_scalars_in_give_python_floats_out() -> None:
    """Scalar inputs give floats (the policy's plans and the statistics hold plain numbers);
    host-wise arrays give arrays of the same length."""
    times = share_times(150.0, 50.0, 1.2, 1.2)
    assert type(times.c_a) is float and type(times.c_b) is float
    assert type(pair_benefit(100.0, 150.0, 50.0, 1.2, 1.2)) is float
    vector = pair_benefit(100.0, 150.0, np.array([50.0, 500.0]), 1.2, np.array([1.2, 1.5]))
    assert isinstance(vector, np.ndarray) and vector.shape == (2,)
    assert vector[0] == pair_benefit(100.0, 150.0, 50.0, 1.2, 1.2)
    assert vector[1] == pair_benefit(100.0, 150.0, 500.0, 1.2, 1.5)


def test_delayed_start_by_hand() -> None:
    """a waits 20 s, then shares with b (T_a' = 30, T_b = 50, ξ_a = 1.5, ξ_b = 1.2): b has 30 s
    left; b ends first (1.2·30 = 36 ≤ 1.5·30 = 45): C_b = 36, a's tail 30 − 36/1.5 = 6, C_a = 42.
    Total from now: 2·20 + 36 + 42 = 118."""
    assert total_completion_delayed_start(20.0, 30.0, 50.0, 1.5, 1.2) == pytest.approx(118.0)
