"""benchmarks/round_gaps.py: the per-seed summary from a hand-made round log."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from round_gaps import summary


def test_summary_by_hand() -> None:
    rounds = pd.DataFrame(
        {
            "exact": [0.0, 10.0, 40.0, 100.0],
            "greedy": [0.0, 10.0, 30.0, 99.999],
            "tolerance": [0.01, 0.01, 0.01, 0.01],
        }
    )
    rounds["gap"] = rounds["exact"] - rounds["greedy"]
    result = summary(rounds)
    assert result["rounds"] == 4 and result["sharing"] == 3
    assert result["greedy_loses"] == 1  # 10 s above the tolerance; 0.001 s is within it
    assert result["gap_max_s"] == 10.0
    assert result["gap_mean_s"] == (0 + 0 + 10 + rounds["gap"].iloc[3]) / 4
    assert result["rel_gap_max"] == 0.25
