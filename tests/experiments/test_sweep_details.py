"""What a sweep keeps beside each results row (docs/results-schema.md): the per-job table and a
downsampled utilisation series, as Parquet; a record whose tables are missing runs again."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sjfbsbf.experiments.sweep import load_sweep, run_sweep
from sjfbsbf.experiments.sweep_details import (
    UTILISATION_COLUMNS,
    detail_paths,
    read_run_jobs,
    read_run_utilisation,
    utilisation_series,
)
from tests.experiments.test_sweep_run import TINY, write


def test_utilisation_series_is_the_hand_computed_time_weighted_mean() -> None:
    """Ticks at 0, 10, 30 s: 2 busy GPUs for 10 s, then 4 for 20 s; the last row is the
    release tick (duration 0). Two bins of 15 s: (2·10 + 4·5)/15 and 4."""
    ticks = pd.DataFrame(
        {
            "time": [0.0, 10.0, 30.0],
            "duration": [10.0, 20.0, 0.0],
            "busy_gpus": [2, 4, 0],
            "shared_gpus": [0, 2, 0],
            "mem_used_gb": [3.0, 6.0, 0.0],
            "running": [2, 5, 0],
            "pending": [1, 0, 0],
        }
    )
    two = utilisation_series(ticks, bins=2)
    assert list(two.columns) == list(UTILISATION_COLUMNS)
    assert two["start"].tolist() == [0.0, 15.0] and two["end"].tolist() == [15.0, 30.0]
    assert two["busy_gpus"].tolist() == pytest.approx([40 / 15, 4.0])
    assert two["shared_gpus"].tolist() == pytest.approx([10 / 15, 2.0])
    three = utilisation_series(ticks, bins=500)  # never more bins than ticks
    assert three["busy_gpus"].tolist() == pytest.approx([2.0, 4.0, 4.0])
    with pytest.raises(ValueError, match="bins"):
        utilisation_series(ticks, bins=0)


def test_every_run_keeps_its_tables_and_they_agree_with_its_row(
    tmp_path: Path, calls: list[str]
) -> None:
    """The per-job table's mean JCT is the row's avg_jct; the series' busy GPU-time over the
    span is the row's gpu_utilization; a deleted table makes exactly that run run again."""
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    out = tmp_path / "out"
    table = run_sweep(sweep, out)
    assert len(calls) == len(table) == 4
    for row in table.to_dict("records"):
        jobs = read_run_jobs(out, row["key"])
        assert len(jobs) == row["n_jobs"]
        assert jobs["jct"].mean() == pytest.approx(row["avg_jct"], rel=1e-12)
        series = read_run_utilisation(out, row["key"])
        assert 1 <= len(series) <= 500
        width = series["end"] - series["start"]
        span = float(series["end"].iloc[-1] - series["start"].iloc[0])
        busy = float((series["busy_gpus"] * width).sum())
        assert busy / (row["num_gpus"] * span) == pytest.approx(row["gpu_utilization"], rel=1e-9)
    key = table["key"].iloc[0]
    detail_paths(out / "runs" / f"{key}.json")[0].unlink()
    warnings: list[str] = []
    again = run_sweep(load_sweep(tmp_path / "s.toml"), out, warn=warnings.append)
    assert len(calls) == 5  # only the run that lost its table
    assert any("jobs.parquet missing" in w for w in warnings)
    assert read_run_jobs(out, key)["jct"].mean() == pytest.approx(
        float(again.loc[again["key"] == key, "avg_jct"].iloc[0]), rel=1e-12
    )
