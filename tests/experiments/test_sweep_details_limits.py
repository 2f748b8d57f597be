"""A run's utilisation series at its limits and an unreadable run table (issue 35, mutation
gaps): one bin is the mean over the whole span, no bin is refused word for word; a run whose
span is zero (every job released at its first tick) is one row of that tick's values; a table
that is not Parquet is refused in one line naming it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.experiments.sweep_details import (
    UTILISATION_COLUMNS,
    detail_paths,
    details_problem,
    read_run_jobs,
    read_run_utilisation,
    utilisation_series,
    write_details,
)

#: 2 busy GPUs for 10 s, then 4 for 20 s, then the release tick (as test_sweep_details).
TICKS = pd.DataFrame(
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


def test_one_bin_is_the_mean_over_the_span_and_none_is_refused() -> None:
    one = utilisation_series(TICKS, bins=1)
    assert one["start"].tolist() == [0.0] and one["end"].tolist() == [30.0]
    assert one["busy_gpus"].tolist() == pytest.approx([(2 * 10 + 4 * 20) / 30])
    with pytest.raises(ValueError) as info:
        utilisation_series(TICKS, bins=0)
    assert str(info.value) == "bins must be at least 1, got 0"


def test_a_run_of_zero_span_is_one_row_of_its_first_tick() -> None:
    """Two ticks at 5 s, both of zero duration: the first tick's state, from 5 s to 5 s."""
    ticks = pd.DataFrame(
        {
            "time": [5.0, 5.0],
            "duration": [0.0, 0.0],
            "busy_gpus": [3, 1],
            "shared_gpus": [2, 0],
            "mem_used_gb": [1.5, 2.0],
            "running": [2, 1],
            "pending": [4, 2],
        }
    )
    series = utilisation_series(ticks)
    assert list(series.columns) == list(UTILISATION_COLUMNS)
    assert series.to_dict("records") == [
        {
            "start": 5.0,
            "end": 5.0,
            "busy_gpus": 3.0,
            "shared_gpus": 2.0,
            "mem_used_gb": 1.5,
            "running": 2.0,
            "pending": 4.0,
        }
    ]


@pytest.mark.parametrize(
    ("read", "suffix"),
    [(read_run_jobs, ".jobs.parquet"), (read_run_utilisation, ".utilisation.parquet")],
)
def test_a_table_that_is_not_parquet_is_refused_naming_it(
    tmp_path: Path,
    read,
    suffix: str,  # type: ignore[no-untyped-def]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / f"k{suffix}").write_bytes(b"not parquet at all")
    with pytest.raises(InstanceError) as info:
        read(tmp_path, "k")
    assert str(info.value) == (
        f"{runs / f'k{suffix}'}: not a readable run table (ArrowInvalid); run the sweep again "
        "to rewrite it"
    )


def test_the_tables_are_written_with_their_columns_only(tmp_path: Path) -> None:
    """No index column, whatever the frame's index (docs/results-schema.md lists the columns)."""
    import pyarrow.parquet as pq

    record = tmp_path / "k.json"
    jobs = pd.DataFrame({"id": [7, 3], "jct": [10.0, 20.0]}, index=[7, 3])
    utilisation = utilisation_series(TICKS)
    write_details(record, {"jobs": jobs, "utilisation": utilisation})
    jobs_path, utilisation_path = detail_paths(record)
    assert pq.read_schema(jobs_path).names == ["id", "jct"]
    assert pq.read_schema(utilisation_path).names == list(UTILISATION_COLUMNS)
    assert details_problem(record, 2) is None


def test_a_table_that_is_not_parquet_is_a_problem_naming_it(tmp_path: Path) -> None:
    record = tmp_path / "k.json"
    for path in detail_paths(record):
        path.write_bytes(b"not parquet at all")
    assert details_problem(record) == "k.jobs.parquet unreadable (ArrowInvalid)"
