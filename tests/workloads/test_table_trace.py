"""Bring-your-own trace tables (sjfbsbf.workloads.table_trace): the hand-written files of
tests/data/traces, read into instances or refused in one line naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.table_trace import read_trace_table

DATA = Path(__file__).resolve().parents[1] / "data" / "traces"
CLUSTER = Cluster(nodes=1, gpus_per_node=8, gpu_mem_gb=12.0)


def test_a_table_becomes_an_instance_with_rebased_arrivals_and_capped_jobs() -> None:
    """good.csv: submissions 120, 0, 60 s -> arrivals 120, 0, 60 (the first is already 0);
    the 16-GPU job is capped to the 8 GPUs; ids are the data rows."""
    instance, report = read_trace_table(DATA / "good.csv", CLUSTER)
    by_id = {job.id: job for job in instance.jobs}
    assert [(j.id, j.arrival) for j in instance.jobs] == [(1, 0.0), (2, 60.0), (0, 120.0)]
    assert by_id[0].duration == 600.0 and by_id[0].model is None
    assert (by_id[1].model, by_id[1].batch, by_id[1].iterations) == ("resnet18", 128, 2000)
    assert by_id[2].gpus == 8 and report.capped == (2,) and report.dropped == ()
    assert (report.rows, report.jobs) == (3, 3) and instance.name == "good"
    dropped_instance, dropped = read_trace_table(DATA / "good.csv", CLUSTER, oversize="drop")
    assert dropped.dropped == (2,) and [j.id for j in dropped_instance.jobs] == [1, 0]
    with pytest.raises(InstanceError, match=r"line 4, field 'num_gpus': 16 GPUs"):
        read_trace_table(DATA / "good.csv", CLUSTER, oversize="refuse")


def test_parquet_reads_like_csv(tmp_path: Path) -> None:
    frame = pd.read_csv(DATA / "good.csv")
    path = tmp_path / "good.parquet"
    frame.to_parquet(path, index=False)
    from_parquet, _ = read_trace_table(path, CLUSTER)
    from_csv, _ = read_trace_table(DATA / "good.csv", CLUSTER)
    assert from_parquet.jobs == from_csv.jobs
    frame.loc[1, "num_gpus"] = 0
    frame.to_parquet(path, index=False)
    with pytest.raises(InstanceError, match=r"row 2, field 'num_gpus'"):
        read_trace_table(path, CLUSTER)


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("bad_duration_and_model", "line 2, field 'model'"),
        ("bad_duration_text", "line 2, field 'duration': not a number"),
        ("bad_fractional_gpus", "line 3, field 'num_gpus'"),
        ("bad_missing_gpus", "field 'num_gpus': missing column"),
        ("bad_negative_submit", "line 3, field 'submit_time'"),
        ("bad_no_duration", "line 2, field 'duration'"),
        ("bad_unknown_column", "field 'owner': unknown column"),
        ("bad_unknown_model", "job 0, field 'model': unknown model 'alexnet9'"),
    ],
)
def test_malformed_tables_are_refused_in_one_line(name: str, where: str) -> None:
    path = DATA / f"{name}.csv"
    with pytest.raises(InstanceError) as info:
        read_trace_table(path, CLUSTER)
    message = str(info.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message


def test_other_suffixes_and_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InstanceError, match=r"\.csv or \.parquet"):
        read_trace_table(tmp_path / "trace.tsv", CLUSTER)
    with pytest.raises(ValueError, match="oversize"):
        read_trace_table(DATA / "good.csv", CLUSTER, oversize="shrink")  # type: ignore[arg-type]
