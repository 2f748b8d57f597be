"""Gap intervals to the offline optimum (docs/formulations.md §2.8): the interval rule with its
tolerance, the per-policy summary, preemptive policies apart, and the gap table's files.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from offline_cases import recorded_suite

from formulations.offline.suite import Optimum
from sjfbsbf.experiments.gap import (
    GAP_POLICIES,
    check_out_path,
    gap_summary,
    gap_table,
    write_gap_table,
)
from sjfbsbf.experiments.gap_interval import (
    GAP_COLUMNS,
    MIN_DENOMINATOR_S,
    gap_interval,
    is_preemptive,
)
from sjfbsbf.experiments.gap_report import format_interval, suite_rows, summary_rows

#: The bound n10-g8-light-b was first recorded with, unproven (s).
UNPROVEN_BOUND = 197.76258

# -- the interval ---------------------------------------------------------------------------------


def test_interval_by_hand() -> None:
    """J = 120, U = 100, L = 80, tol = 0.5: [120/100.5 − 1, 120/79.5 − 1] = [39/201, 27/53]."""
    low, high = gap_interval(120.0, 100.0, 80.0, 0.5)
    assert low == pytest.approx(39 / 201, rel=1e-15)
    assert high == pytest.approx(27 / 53, rel=1e-15)
    # without tolerance: exactly the ends J/U − 1 and J/L − 1
    assert gap_interval(120.0, 100.0, 80.0, 0.0) == pytest.approx((0.2, 0.5), rel=1e-15)


def test_interval_floor_and_unknown_ends() -> None:
    """L − tol is floored at a tiny positive value; an unknown U or L leaves that end open."""
    _, high = gap_interval(120.0, 100.0, 0.3, 0.5)
    assert high == 120.0 / MIN_DENOMINATOR_S - 1.0 and math.isfinite(high)
    low, high = gap_interval(120.0, None, None, 0.5)
    assert math.isnan(low) and high == math.inf
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(ValueError, match="tolerance"):
            gap_interval(120.0, 100.0, 80.0, bad)


def test_preemptive_policies() -> None:
    assert [p for p in GAP_POLICIES if is_preemptive(p)] == ["srtf", "tiresias"]


# -- the summary ----------------------------------------------------------------------------------


def _hand_table() -> pd.DataFrame:
    """Three instances, two policies, ends chosen by hand (gap_high 0.05 is not below 5%)."""
    ends = {
        "a": [(0.00, 0.01), (0.10, 0.12)],
        "b": [(0.02, 0.05), (-0.03, 0.049)],
        "c": [(0.04, 0.30), (0.00, 0.001)],
    }
    rows = []
    for instance, pairs in ends.items():
        for policy, (low, high) in zip(("sjf", "srtf"), pairs, strict=True):
            rows.append(
                {
                    "instance": instance,
                    "status": "optimal" if instance != "c" else "feasible",
                    "dt": 60.0,
                    "policy": policy,
                    "preemptive": policy == "srtf",
                    "avg_jct": 100.0,
                    "best_avg_jct": 100.0,
                    "bound": 100.0,
                    "tolerance_s": 0.0,
                    "gap_low": low,
                    "gap_high": high,
                    "beliefs": "oracle",
                }
            )
    return pd.DataFrame(rows, columns=list(GAP_COLUMNS))


def test_summary_by_hand() -> None:
    summary = gap_summary(_hand_table(), ["sjf", "srtf"]).set_index("policy")
    sjf, srtf = summary.loc["sjf"], summary.loc["srtf"]
    assert sjf["mean_low"] == pytest.approx(0.02) and sjf["mean_high"] == pytest.approx(0.12)
    assert sjf["max_low"] == pytest.approx(0.04) and sjf["max_high"] == pytest.approx(0.30)
    assert srtf["mean_low"] == pytest.approx(0.07 / 3) and srtf["max_high"] == pytest.approx(0.12)
    # fully below 5%: high end < 0.05 (0.05 itself is not)
    assert sjf["below_5pct"] == 1 and srtf["below_5pct"] == 2
    assert sjf["instances"] == srtf["instances"] == 3
    assert not sjf["preemptive"] and srtf["preemptive"]


def test_summary_and_rows_as_text() -> None:
    table = _hand_table()
    rows = suite_rows(table, ["sjf"])
    assert rows[0] == ["a", "optimal", "100.0", "100.0", "[+0.00%, +1.00%]"]
    assert rows[2][:2] == ["c", "feasible"]
    text = summary_rows(gap_summary(table, ["srtf"]), ["srtf"])
    assert text == [
        ["mean", format_interval(0.07 / 3, (0.12 + 0.049 + 0.001) / 3)],
        ["max", "[+10.00%, +12.00%]"],
        ["below 5%", "2 of 3"],
    ]


# -- on suite instances ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_instances() -> pd.DataFrame:
    """The gap table of one proven and the one unproven suite instance."""
    suite = recorded_suite()
    optimum, instance = suite["n10-g8-light-b"]
    return gap_table([suite["n4-g2-all-a"], (unproven(optimum), instance)])


def unproven(optimum: Optimum) -> Optimum:
    """n10-g8-light-b as first recorded, before it was proven: status feasible, bound 197.8 s
    (docs/formulations.md §2.8); the whole suite is proven now."""
    return replace(optimum, status="feasible", bound=UNPROVEN_BOUND)


def test_proven_instance_gives_a_narrow_interval(two_instances: pd.DataFrame) -> None:
    """U = L on a proven instance: the interval holds the point gap J/U − 1 and is ~2·tol/U wide."""
    proven = two_instances[two_instances["instance"] == "n4-g2-all-a"]
    assert len(proven) == len(GAP_POLICIES)
    for row in proven.itertuples():
        point = row.avg_jct / row.best_avg_jct - 1.0
        assert row.gap_low <= point <= row.gap_high
        width = 2.0 * row.tolerance_s / row.best_avg_jct * (1.0 + point)
        assert row.gap_high - row.gap_low == pytest.approx(width, rel=1e-3)
        assert row.gap_high - row.gap_low < 5e-4


def test_unproven_instance_is_included_with_a_wide_interval(two_instances: pd.DataFrame) -> None:
    """The unproven instance's interval runs from its best schedule to its bound (16% apart)."""
    unproven = two_instances[two_instances["instance"] == "n10-g8-light-b"]
    assert (unproven["status"] == "feasible").all()
    assert not unproven[["gap_low", "gap_high"]].isna().any().any()
    for row in unproven.itertuples():
        assert row.gap_low == pytest.approx(
            row.avg_jct / (row.best_avg_jct + row.tolerance_s) - 1.0
        )
        assert row.gap_high == pytest.approx(row.avg_jct / (row.bound - row.tolerance_s) - 1.0)
        assert row.gap_high - row.gap_low > 0.15


def test_preemptive_rows_are_flagged(two_instances: pd.DataFrame) -> None:
    flagged = set(two_instances.loc[two_instances["preemptive"], "policy"])
    assert flagged == {"srtf", "tiresias"}
    summary = gap_summary(two_instances)
    assert list(summary.loc[summary["preemptive"], "policy"]) == ["srtf", "tiresias"]


def test_beliefs_add_rows_beside_the_oracle_ones_against_the_same_optimum(
    two_instances: pd.DataFrame,
) -> None:
    """Under an estimator every policy has a second row per instance: simulated with those
    beliefs (the library's numbers), against the same U, L and tol; the oracle rows are the
    table without beliefs, and a policy that reads no estimate (fifo, tiresias) is unchanged."""
    from formulations.offline.replay import interval_for
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.beliefs import Beliefs
    from sjfbsbf.sim.simulator import simulate

    suite = recorded_suite()
    optimum, instance = suite["n4-g2-all-a"]
    beliefs = Beliefs("lognormal:sigma=2", seed=5)
    table = gap_table([(optimum, instance)], beliefs=beliefs)
    oracle = table[table["beliefs"] == "oracle"].reset_index(drop=True)
    alone = two_instances[two_instances["instance"] == "n4-g2-all-a"].reset_index(drop=True)
    pd.testing.assert_frame_equal(oracle, alone)
    believed = table[table["beliefs"] == beliefs.label()].set_index("policy")
    assert list(believed.index) == list(GAP_POLICIES)
    for name in GAP_POLICIES:
        run = simulate(
            instance,
            make_policy(name),
            dt=optimum.dt,
            interval=interval_for(optimum.dt),
            beliefs=beliefs,
        )
        assert believed.loc[name, "avg_jct"] == run.avg_jct
        assert believed.loc[name, "best_avg_jct"] == oracle.iloc[0]["best_avg_jct"]
    same = oracle.set_index("policy")
    for name in ("fifo", "tiresias"):
        assert believed.loc[name, "avg_jct"] == same.loc[name, "avg_jct"]
    summary = gap_summary(table)
    assert list(summary["beliefs"]) == ["oracle"] * 6 + [beliefs.label()] * 6


# -- files ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_write_round_trip(tmp_path: Path, suffix: str) -> None:
    table = _hand_table()
    table.loc[0, "gap_high"] = math.inf  # no bound known
    table.loc[1, "gap_low"] = math.nan  # no schedule known
    path = tmp_path / "sub" / f"gaps{suffix}"
    write_gap_table(table, path)
    if suffix == ".csv":
        back = pd.read_csv(path)
    else:
        records = json.loads(path.read_text(encoding="utf-8"))
        assert records[0]["gap_high"] is None and records[1]["gap_low"] is None
        assert list(records[0]) == list(GAP_COLUMNS)
        back = pd.DataFrame(records).astype({"gap_low": float, "gap_high": float})
        table.loc[0, "gap_high"] = math.nan  # JSON has no infinity: null
    pd.testing.assert_frame_equal(back, table)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left behind


def test_bad_suffix_is_refused(tmp_path: Path) -> None:
    assert check_out_path("a/b.JSON") == "json"
    for bad in ("gaps.txt", "gaps", "gaps.csv.gz"):
        with pytest.raises(ValueError, match=r"must end in \.csv or \.json"):
            write_gap_table(_hand_table(), tmp_path / bad)
    assert not list(tmp_path.iterdir())
