"""Bring-your-own trace tables (sjfbsbf.workloads.table_trace): the hand-written files of
tests/data/traces, read into instances or refused in one line naming file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance
from sjfbsbf.workloads.generators import offered_load
from sjfbsbf.workloads.table_trace import TableTraceReport, read_trace_table
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport

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
        ("bad_estimate_zero", "line 3, field 'estimate': must be > 0"),
        ("bad_estimate_text", "line 2, field 'estimate': not a number: '1h'"),
        ("bad_estimate_limit", "line 2, field 'estimate': must be at most 315,576,000 s"),
        ("bad_vc_too_long", "line 2, field 'vc': must be at most 128 characters, got 129"),
        (
            "bad_user_control_char",
            "line 3, field 'user': must be printable text (no control characters), got 'bo\\x1bb'",
        ),
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


def test_optional_estimate_vc_and_user_columns(tmp_path: Path) -> None:
    """labels.csv: estimate, vc and user are kept (an empty cell gives none), on duration-only and
    catalog jobs, through capping, a sample and a target load; Parquet reads them too."""
    instance, report = read_trace_table(DATA / "labels.csv", CLUSTER)
    assert [(j.id, j.gpus, j.estimate, j.vc, j.user) for j in instance.jobs] == [
        (0, 1, 900.0, "vcA", "alice"),
        (1, 8, None, "vcB", None),  # capped from 16 GPUs
        (2, 2, 7200.5, None, "bob"),  # a catalog job
        (3, 4, None, None, None),
    ]
    assert report.capped == (1,) and instance.job(2).model == "resnet18"
    options = TraceOptions(sample=3, target_load=0.5)
    scaled, _ = read_trace_table(
        DATA / "labels.csv", CLUSTER, options=options, rng=np.random.default_rng(0)
    )
    assert offered_load(scaled) == pytest.approx(0.5, rel=1e-12)
    for job in scaled.jobs:
        original = instance.job(job.id)
        assert (job.estimate, job.vc, job.user) == (original.estimate, original.vc, original.user)
    path = tmp_path / "labels.parquet"
    pd.read_csv(DATA / "labels.csv").to_parquet(path, index=False)
    assert read_trace_table(path, CLUSTER)[0].jobs == instance.jobs


# -- the options every trace loader shares (TraceOptions), on eight_jobs.csv ----------------------
#: eight_jobs.csv, one row per 300 s: (GPUs, duration); exclusive GPU-time 13,500 GPU·s.
EIGHT = [(1, 600), (2, 300), (4, 1200), (1, 600), (8, 300), (2, 900), (1, 300), (4, 600)]


def read_eight(
    options: TraceOptions | None = None, seed: int | None = None, **kwargs: Any
) -> tuple[Instance, TableTraceReport]:
    rng = None if seed is None else np.random.default_rng(seed)
    return read_trace_table(DATA / "eight_jobs.csv", CLUSTER, options=options, rng=rng, **kwargs)


def test_a_time_window_keeps_the_jobs_submitted_in_it_rebased() -> None:
    """[600, 1500) s after the first submission: rows 2, 3, 4 (600, 900, 1200 s) -> 0, 300, 600."""
    instance, report = read_eight(TraceOptions(start=600, end=1500))
    assert [(j.id, j.arrival) for j in instance.jobs] == [(2, 0.0), (3, 300.0), (4, 600.0)]
    assert (report.rows, report.records, report.usable, report.outside_window) == (8, 8, 8, 5)
    assert report.jobs == 3 and report.skipped == {} and isinstance(report, TraceReport)


def test_a_random_window_and_a_sample_follow_the_seed() -> None:
    window, report = read_eight(TraceOptions(window_jobs=3), seed=1)
    first = int(np.random.default_rng(1).integers(0, 8 - 3 + 1))  # 2
    assert [j.id for j in window.jobs] == [first, first + 1, first + 2] == [2, 3, 4]
    assert report.outside_window == 5
    sampled, report = read_eight(TraceOptions(sample=3), seed=0)
    assert [j.id for j in sampled.jobs] == [4, 5, 7]  # sorted rng(0).choice(8, 3)
    assert report.not_sampled == 5 and sampled.jobs[0].arrival == 0.0
    again, _ = read_eight(TraceOptions(sample=3), seed=0)
    other, _ = read_eight(TraceOptions(sample=3), seed=1)
    assert again.jobs == sampled.jobs and [j.id for j in other.jobs] == [2, 3, 6]
    half, _ = read_eight(TraceOptions(sample=0.375), seed=0)  # round(0.375 × 8) = 3 jobs
    assert half.jobs == sampled.jobs
    with pytest.raises(ValueError, match="pass rng"):
        read_eight(TraceOptions(sample=3))


def test_target_load_rescales_arrivals_to_exactly_that_load() -> None:
    """13,500 GPU·s over 8 GPUs × 2,100 s: load 0.80357...; at 0.5 the arrivals stretch by
    0.80357.../0.5; catalog jobs (good.csv) reach the target as well."""
    instance, report = read_eight()
    gpu_time = sum(g * d for g, d in EIGHT)
    assert gpu_time == 13_500 and report.offered_load == pytest.approx(13_500 / (8 * 2100))
    scaled, report = read_eight(TraceOptions(target_load=0.5))
    assert offered_load(scaled) == pytest.approx(0.5, rel=1e-12)
    assert report.time_scale == pytest.approx(13_500 / (8 * 2100) / 0.5, rel=1e-12)
    assert [j.arrival for j in scaled.jobs] == pytest.approx(
        [300 * i * report.time_scale for i in range(8)], rel=1e-12
    )
    assert [j.duration for j in scaled.jobs] == [j.duration for j in instance.jobs]
    catalog, _ = read_trace_table(DATA / "good.csv", CLUSTER, options=TraceOptions(target_load=2))
    assert offered_load(catalog) == pytest.approx(2.0, rel=1e-12)


def test_the_oversize_argument_takes_precedence_over_the_options() -> None:
    """good.csv's 16-GPU job (line 4): options say drop, the argument says cap."""
    _, report = read_trace_table(DATA / "good.csv", CLUSTER, options=TraceOptions(oversize="drop"))
    assert report.dropped == (2,)
    _, report = read_trace_table(
        DATA / "good.csv", CLUSTER, oversize="cap", options=TraceOptions(oversize="drop")
    )
    assert report.capped == (2,) and report.dropped == ()
    with pytest.raises(InstanceError, match=r"line 4, field 'num_gpus': 16 GPUs"):
        read_trace_table(DATA / "good.csv", CLUSTER, options=TraceOptions(oversize="refuse"))
    # a window without the big job is not refused
    instance, _ = read_trace_table(
        DATA / "good.csv", CLUSTER, options=TraceOptions(end=60, oversize="refuse")
    )
    assert [j.id for j in instance.jobs] == [1]
    with pytest.raises(InstanceError, match="no job left"):
        read_eight(TraceOptions(start=5000))
