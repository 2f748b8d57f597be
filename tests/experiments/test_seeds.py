"""The seeds summary of ``compare --seeds`` (sjfbsbf.experiments.seeds): paired intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.experiments.regimes import ratio_ci
from sjfbsbf.experiments.seeds import parse_seeds, seed_summary


def _runs(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"seed": seed, "policy": policy, "avg_jct": value}
            for policy, column in values.items()
            for seed, value in enumerate(column)
        ]
    )


def test_parse_seeds() -> None:
    assert parse_seeds("0-9") == list(range(10))
    assert parse_seeds(" 4 ") == [4]
    for bad in ("", "-1", "1-", "2-1", "0-1000", "1.5"):
        with pytest.raises(ValueError):
            parse_seeds(bad)


def test_ratios_are_the_paired_bootstrap_of_the_regime_map() -> None:
    rng = np.random.default_rng(1)
    a = rng.uniform(900, 1100, 10).tolist()
    b = rng.uniform(1000, 1300, 10).tolist()
    summary = seed_summary(_runs({"a": a, "b": b}), baseline="b")
    assert tuple(summary.loc["a", ["ratio", "ratio_low", "ratio_high"]]) == ratio_ci(a, b)
    assert summary.loc["b", "ratio"] == 1.0 and summary.loc["b", "ratio_low"] == 1.0
    assert summary.loc["a", "verdict"] == ("better" if ratio_ci(a, b)[2] < 1 else "tie")
    assert summary.loc["a", "mean"] == pytest.approx(np.mean(a))
    assert summary.loc["a", "low"] < summary.loc["a", "mean"] < summary.loc["a", "high"]
    assert list(summary.index) == ["a", "b"] and summary.loc["a", "seeds"] == 10


def test_a_policy_better_on_every_seed_by_a_constant_factor_has_a_point_interval() -> None:
    b = [100.0, 200.0, 300.0]
    summary = seed_summary(_runs({"a": [x * 0.5 for x in b], "b": b}), baseline="b")
    assert tuple(summary.loc["a", ["ratio", "ratio_low", "ratio_high"]]) == (0.5, 0.5, 0.5)
    assert summary.loc["a", "verdict"] == "better"


def test_a_missing_seed_or_an_unknown_baseline_is_refused() -> None:
    runs = _runs({"a": [1.0, 2.0], "b": [1.0, 2.0]})
    with pytest.raises(ValueError, match="baseline 'c'"):
        seed_summary(runs, baseline="c")
    with pytest.raises(ValueError, match="every policy needs every seed"):
        seed_summary(runs.iloc[:-1])
