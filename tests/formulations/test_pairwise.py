"""The pairwise relaxation and the pace hull (formulations.bounds, docs/formulations.md §2.10
items 4–5): valid (≤ the recorded optimum), tighter than the placement-free relaxation, and on
some proven instances equal to the optimum CP-SAT proved with GPU ids, options and pairs — two
independent models meeting."""

from __future__ import annotations

import itertools

import pytest

from formulations.bounds import build_pairwise, pairwise_bound, relaxation_bound
from formulations.bounds.relaxation import pace_hull
from formulations.offline.pairs import capped_progress
from formulations.offline.preprocess import preprocess
from tests.offline_cases import recorded_suite

SUITE = recorded_suite()
#: Proven instances the pairwise relaxation solves to optimality in about a second.
QUICK = ["n4-g4-all-a", "n4-g2-light-a", "n4-g2-all-b", "n5-g2-duration-a", "n10-g8-all-a"]


def _limit(optimum: float, tolerance: float) -> float:
    return optimum + tolerance + 1e-6 * optimum


def test_the_pace_hull_holds_every_combination_and_only_real_ones() -> None:
    """Every fitting combination's (pace of first, pace of second) lies under the hull's
    facets and within its extremes; every vertex is a real combination; vertices run from the
    first's slowest to its fastest with the second's pace falling, and the hull is concave."""
    checked = 0
    for name in ("n10-g8-all-a", "n12-g8-all-c", "n8-g8-heavy-a"):
        optimum, instance = SUITE[name]
        data = preprocess(instance, optimum.dt)
        for pair in data.pairs:
            if not pair.any_fit:
                continue
            first, second = data.jobs[pair.first], data.jobs[pair.second]
            points = {
                (
                    capped_progress(data, pair, c, True) / first.max_progress,
                    capped_progress(data, pair, c, False) / second.max_progress,
                )
                for c in pair.options
                if c.fits
            }
            hull = pace_hull(data, pair)
            assert set(hull) <= points
            assert [p[0] for p in hull] == sorted(p[0] for p in hull)
            assert all(a[0] < b[0] and a[1] > b[1] for a, b in itertools.pairwise(hull))
            for a, b, c in zip(hull, hull[1:], hull[2:], strict=False):  # strictly concave
                cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
                assert cross < 0
            for qx, qy in points:
                assert qx <= hull[-1][0] + 1e-12 and qy <= hull[0][1] + 1e-12
                for (x1, y1), (x2, y2) in itertools.pairwise(hull):
                    rhs = (y1 - y2) * x1 + (x2 - x1) * y1
                    assert (y1 - y2) * qx + (x2 - x1) * qy <= rhs + 1e-12
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", QUICK)
def test_pairwise_is_valid_and_at_least_the_relaxation(name: str) -> None:
    optimum, instance = SUITE[name]
    assert optimum.proven and optimum.replayed_avg_jct is not None
    data = preprocess(instance, optimum.dt)
    pairwise = pairwise_bound(data)
    relaxed = relaxation_bound(data)
    assert pairwise.status.value == "optimal" and relaxed.status.value == "optimal"
    assert pairwise.bound is not None and relaxed.bound is not None
    assert relaxed.bound - 1e-6 <= pairwise.bound
    assert pairwise.bound <= _limit(optimum.replayed_avg_jct, optimum.tolerance_s)


def test_pairwise_meets_the_optimum_where_the_relaxation_falls_short() -> None:
    """n10-g8-all-a: the relaxation sits below the optimum CP-SAT proved; keeping pairs and
    options for life closes the gap to within the tolerance."""
    optimum, instance = SUITE["n10-g8-all-a"]
    assert optimum.replayed_avg_jct is not None
    data = preprocess(instance, optimum.dt)
    relaxed = relaxation_bound(data).bound
    pairwise = pairwise_bound(data).bound
    assert relaxed is not None and pairwise is not None
    assert relaxed < optimum.replayed_avg_jct - 0.5
    assert pairwise == pytest.approx(optimum.replayed_avg_jct, abs=optimum.tolerance_s + 1e-6)


def test_pairwise_adds_pairs_options_and_combinations_to_the_relaxation() -> None:
    optimum, instance = SUITE["n10-g8-all-a"]
    data = preprocess(instance, optimum.dt)
    prob, variables = build_pairwise(data)
    assert {"p", "h", "w", "c"} <= set(variables)
    assert set(variables["p"]) == set(variables["h"])
    assert len(variables["w"]) == sum(len(job.options) for job in data.jobs)
    names = {c.name for c in prob.constraints()}
    assert any(n.startswith("pair_forms_") for n in names)
    assert any(n.startswith("pair_parts_") for n in names)


def test_a_pairwise_model_too_large_is_not_solved() -> None:
    optimum, instance = SUITE["n10-g8-all-a"]
    result = pairwise_bound(preprocess(instance, optimum.dt), max_binaries=10)
    assert result.bound is None and result.limit == "size" and result.status.value == "unknown"


@pytest.mark.slow
def test_pairwise_is_below_every_proven_optimum() -> None:
    """Every proven suite instance, each with a 60 s guard and the node limit."""
    for optimum, instance in SUITE.values():
        if not optimum.proven or optimum.replayed_avg_jct is None:
            continue
        bound = pairwise_bound(preprocess(instance, optimum.dt), time_limit=60).bound
        assert bound is None or bound <= _limit(optimum.replayed_avg_jct, optimum.tolerance_s)
