"""Maps of load × one factor (sjfbsbf.experiments.factor_maps): the cells, the reference level
filled in where a run left a belief or constant out, the degradation table, the figure files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.experiments.factor_maps import (
    degradation,
    factor_cells,
    factor_markdown,
    level_order,
    varied_factors,
    write_factor_maps,
)
from sjfbsbf.experiments.regimes import ratio_ci

ESTIMATORS = [None, "lognormal:sigma=0.5", "lognormal:sigma=2", "history"]


def table() -> pd.DataFrame:
    """4 seeds × 2 loads × 4 estimators × sjf-bsbf, tiresias, sjf: sjf-bsbf grows with σ,
    tiresias never changes, sjf grows half as fast."""
    rng = np.random.default_rng(3)
    rows = []
    for seed in range(4):
        for load in (1.0, 2.0):
            base = 1000.0 * load * rng.uniform(0.9, 1.1)
            for estimator in ESTIMATORS:
                grow = {None: 0.0, "lognormal:sigma=0.5": 0.1, "lognormal:sigma=2": 0.4}.get(
                    estimator, 0.2
                )
                for label, factor in (("sjf-bsbf", 0.8 + grow), ("sjf", 0.85 + grow / 2)):
                    rows.append(_row(seed, load, estimator, label, base * factor))
                rows.append(_row(seed, load, estimator, "tiresias", base))
    return pd.DataFrame(rows)


def _row(seed: int, load: float, estimator: str | None, label: str, jct: float) -> dict:
    return {
        "seed": seed,
        "wl_rate_factor": load,
        "sim_estimator": estimator,
        "label": label,
        "avg_jct": jct,
    }


def test_oracle_fills_the_runs_that_left_the_estimator_out() -> None:
    frame = table()
    assert varied_factors(frame) == ["sim_estimator"]
    cells = factor_cells(frame, "sim_estimator")
    assert level_order(cells, "sim_estimator") == [
        "oracle",
        "lognormal:sigma=0.5",
        "lognormal:sigma=2",
        "history",
    ]
    # 3 ratios of the 5 (their policies ran) × 4 estimators × 2 loads.
    assert len(cells) == 3 * 4 * 2
    assert set(cells["ratio"]) == {"sjf-bsbf / tiresias", "sjf-bsbf / sjf", "sjf / tiresias"}


def test_a_cell_is_the_paired_bootstrap_ratio_of_its_seeds() -> None:
    frame = table()
    cells = factor_cells(frame, "sim_estimator")
    cell = cells[
        (cells["ratio"] == "sjf-bsbf / tiresias")
        & (cells["sim_estimator"] == "lognormal:sigma=2")
        & (cells["wl_rate_factor"] == 2.0)
    ].iloc[0]
    rows = frame[(frame["sim_estimator"] == "lognormal:sigma=2") & (frame["wl_rate_factor"] == 2)]
    num = rows[rows["label"] == "sjf-bsbf"].sort_values("seed")["avg_jct"].tolist()
    den = rows[rows["label"] == "tiresias"].sort_values("seed")["avg_jct"].tolist()
    assert (cell["value"], cell["low"], cell["high"]) == ratio_ci(num, den)
    assert cell["value"] == pytest.approx(1.2) and cell["verdict"] == "worse"  # no spread
    oracle = cells[(cells["sim_estimator"] == "oracle") & (cells["ratio"] == "sjf-bsbf / tiresias")]
    assert set(oracle["verdict"]) == {"better"}


def test_degradation_is_relative_to_the_policys_own_oracle_mean() -> None:
    worse = degradation(table(), "sim_estimator")
    tiresias = worse[worse["label"] == "tiresias"]
    assert np.allclose(tiresias["relative"], 1.0)
    bsbf = worse[(worse["label"] == "sjf-bsbf") & (worse["sim_estimator"] == "lognormal:sigma=2")]
    assert np.allclose(bsbf["relative"], 1.2 / 0.8)


def test_the_markdown_counts_distinct_cells_and_states_no_correction(tmp_path: Path) -> None:
    text = factor_markdown(table(), "sim_estimator")
    assert "### load × duration estimator" in text
    assert "no multiple-comparison correction" in text
    assert "| sjf-bsbf / tiresias | 8 |" in text
    written = write_factor_maps("demo", table(), tmp_path)
    assert sorted(p.name for p in written) == [
        "demo-factor-estimator.md",
        "demo-factor-estimator.pdf",
        "demo-factor-estimator.png",
    ]
    assert all(p.stat().st_size > 0 for p in written)


def test_a_sweep_without_load_or_factor_gets_no_map() -> None:
    frame = table()
    assert varied_factors(frame[frame["wl_rate_factor"] == 1.0]) == []
    assert varied_factors(frame[frame["sim_estimator"].isna()]) == []


def test_numeric_levels_are_in_ascending_order() -> None:
    frame = pd.DataFrame({"sim_kappa": [1.5, 0.2, 3.0, 0.4], "x": range(4)})
    assert level_order(frame, "sim_kappa") == [0.2, 0.4, 1.5, 3.0]


def test_a_sweep_over_traces_is_mapped_trace_by_factor(tmp_path: Path) -> None:
    frame = table()
    frame = frame[frame["wl_rate_factor"] == 1.0].drop(columns="wl_rate_factor")
    frame["wl_trace"] = "data:gavel-traces/b436b2.trace"
    other = frame.assign(wl_trace="data:gavel-traces/ee9e8c.trace")
    both = pd.concat([frame, other], ignore_index=True)
    assert varied_factors(both) == ["sim_estimator"]
    cells = factor_cells(both, "sim_estimator")
    assert set(cells["x"]) == {"b436b2", "ee9e8c"}
    text = factor_markdown(both, "sim_estimator")
    assert "### trace × duration estimator" in text and "@ b436b2" in text
    assert len(write_factor_maps("t", both, tmp_path)) == 3
