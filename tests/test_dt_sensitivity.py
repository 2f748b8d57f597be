"""benchmarks/dt_sensitivity.py: the table from hand-made rows."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from dt_sensitivity import table

from sjfbsbf.experiments.gap import GAP_POLICIES


def test_table_means_and_changes_by_hand() -> None:
    rows = []
    for policy in GAP_POLICIES:
        for instance, base in (("a", 100.0), ("b", 200.0)):
            rows.append({"instance": instance, "policy": policy, "dt": 1.0, "avg_jct": base})
            scale = 1.10 if instance == "a" else 0.98  # +10% on a, -2% on b at dt 60
            rows.append(
                {"instance": instance, "policy": policy, "dt": 60.0, "avg_jct": base * scale}
            )
    text = table(rows, dts=(1.0, 60.0))
    line = next(row for row in text.splitlines() if row.startswith("| sjf-bsbf |"))
    # means 150.0 and (110 + 196) / 2 = 153.0; changes mean +4.0%, largest in size +10.0%
    assert line == "| sjf-bsbf | 150.0 | 153.0 | +4.0% / +10.0% |"
    assert text.splitlines()[1] == "|---|---:|---:|---:|"
