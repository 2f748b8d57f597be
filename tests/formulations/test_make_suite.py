"""instances/make_suite.py --merge: a re-record never makes a suite entry worse; --colgen
raises an unproven entry's bound and records how."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "instances"))

from make_suite import _colgen, _merge

from tests.offline_cases import recorded_suite


def _entry(replayed: float, bound: float, **extra: Any) -> dict[str, Any]:
    return {
        "status": "feasible",
        "replayed_avg_jct": replayed,
        "objective": replayed,
        "bound": bound,
        "tolerance_s": 0.01,
        "backend": "cpsat",
        "num_workers": 1,
        "time_limit_s": 60.0,
        **extra,
    }


def test_merge_keeps_the_better_schedule_and_the_higher_bound() -> None:
    old = _entry(200.0, 150.0, schedule="old")
    new = _entry(210.0, 160.0, schedule="new", search=300)
    merged = _merge(old, new)
    assert merged["schedule"] == "old" and merged["replayed_avg_jct"] == 200.0
    assert merged["bound"] == 160.0
    assert merged["merged"]["bound"] == 160.0 and merged["merged"]["search"] == 300
    assert merged["status"] == "feasible"
    assert "merged" not in old and old["bound"] == 150.0  # the inputs are not changed


def test_merge_takes_the_new_schedule_when_it_replays_better() -> None:
    old = _entry(200.0, 170.0, schedule="old")
    new = _entry(190.0, 160.0, schedule="new")
    merged = _merge(old, new)
    assert merged["schedule"] == "new" and merged["bound"] == 170.0
    assert merged["merged"]["bound"] == 170.0


def test_merge_ties_keep_the_recorded_entry_and_a_lower_bound_is_not_taken() -> None:
    old = _entry(200.0, 170.0, schedule="old")
    new = _entry(200.0, 165.0, schedule="new")
    merged = _merge(old, new)
    assert merged["schedule"] == "old" and merged["bound"] == 170.0 and "merged" not in merged


def test_merge_marks_optimal_when_the_bound_meets_the_schedule() -> None:
    old = _entry(200.0, 150.0, schedule="old")
    new = _entry(205.0, 199.995, schedule="new")  # within the tolerance 0.01 of 200
    merged = _merge(old, new)
    assert merged["status"] == "optimal" and merged["bound"] == 199.995
    capped = _merge(old, _entry(205.0, 205.0))
    assert capped["bound"] == 200.0 and capped["status"] == "optimal"  # L ≤ U


def test_colgen_raises_a_lower_recorded_bound_and_records_how() -> None:
    """An unproven entry whose bound is below the column-generation bound gets it (capped by its
    schedule's value) with a ``colgen`` record; a higher recorded bound and a proven entry are
    left as they are."""
    optimum, instance = recorded_suite()["n6-g4-all-a"]
    u = optimum.replayed_avg_jct
    assert u is not None
    low = _entry(u, 1.0, dt=optimum.dt, file="n6-g4-all-a.json")
    _colgen(low, instance)
    assert 1.0 < low["bound"] <= u
    assert low["colgen"]["bound"] == low["bound"] and low["colgen"]["status"] == "optimal"
    assert low["colgen"]["rounds"] >= 1 and low["colgen"]["search"] == 0
    high = _entry(u, u - 1e-3, dt=optimum.dt, file="n6-g4-all-a.json")
    _colgen(high, instance)
    assert high["bound"] == u - 1e-3 and "colgen" not in high
    proven = _entry(u, 1.0, dt=optimum.dt, file="n6-g4-all-a.json", status="optimal")
    _colgen(proven, instance)
    assert proven["bound"] == 1.0 and "colgen" not in proven
