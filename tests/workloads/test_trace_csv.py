"""The CSV reader the public-trace loaders share (sjfbsbf.workloads.trace_csv), function by
function (issue 35, mutation gaps): the exact refusals and the line and column each names,
values read as floats ≥ 0 and seconds since 1970, labels stripped and ``None`` where empty, and
rows split into jobs and skipped rows by the first rule that applies."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import MAX_LINE_BYTES
from sjfbsbf.workloads.trace_csv import (
    labels,
    numbers,
    parse_rows,
    read_table,
    screen_rows,
    timestamps,
    with_header,
)
from sjfbsbf.workloads.trace_window import TraceJob


def table(text: str) -> pd.DataFrame:
    """The rows of ``text`` under its header, as a loader gets them."""
    return with_header(parse_rows(io.BytesIO(text.encode()), "t.csv"), "t.csv")


def test_an_empty_stream_is_refused_with_its_reason() -> None:
    with pytest.raises(InstanceError) as info:
        parse_rows(io.BytesIO(b""), "t.csv")
    assert str(info.value) == "t.csv: empty file: no header, no rows"


def test_a_quoted_field_after_a_space_is_one_field() -> None:
    """Spaces after a comma are skipped, so a quoted value after one keeps its comma."""
    frame = table('a,user\n1, "x,y"\n')
    assert list(frame.columns) == ["a", "user"]
    assert frame.to_numpy().tolist() == [["1", "x,y"]]
    users = labels(frame, "user", "t.csv", 2)
    assert users is not None and users.tolist() == ["x,y"]


def test_a_name_given_twice_is_refused_on_the_header_line() -> None:
    with pytest.raises(InstanceError) as info:
        table("a,b,a\n1,2,3\n")
    assert str(info.value) == "t.csv, line 1, field 'a': column named twice"


def test_read_table_names_the_file_in_every_refusal(tmp_path: Path) -> None:
    """The header's check and the first line's length check name the file read."""
    twice = tmp_path / "twice.csv"
    twice.write_bytes(b"a,a\n1,2\n")
    with pytest.raises(InstanceError) as info:
        read_table(twice, "twice.csv")
    assert str(info.value) == f"{twice}, line 1, field 'a': column named twice"
    long = tmp_path / "long.csv"
    long.write_bytes(b"a" * (MAX_LINE_BYTES + 1))
    with pytest.raises(InstanceError) as info:
        read_table(long, "long.csv")
    assert str(info.value) == (
        f"{long}: the first line is longer than {MAX_LINE_BYTES:,} bytes: not a table"
    )


def test_numbers_are_floats_and_an_integer_column_refuses_text_and_negatives() -> None:
    frame = pd.DataFrame({"c": ["1", " 2 ", ""]}, dtype=str)
    values = numbers(frame, "c", "t.csv", 2, integer=True)
    assert values.dtype == np.float64
    assert values[:2].tolist() == [1.0, 2.0] and np.isnan(values[2])
    whole = numbers(pd.DataFrame({"c": ["1", "2"]}, dtype=str), "c", "t.csv", 2)
    assert whole.dtype == np.float64 and whole.tolist() == [1.0, 2.0]  # not pandas's int64
    for bad in ("-1", "x"):
        frame = pd.DataFrame({"c": ["1", bad]}, dtype=str)
        with pytest.raises(InstanceError) as info:
            numbers(frame, "c", "t.csv", 2, integer=True)
        assert str(info.value) == (
            f"t.csv, line 3, field 'c': must be a whole number ≥ 0, got {bad!r}"
        )


def test_times_are_seconds_since_1970_and_the_first_bad_line_is_named() -> None:
    frame = pd.DataFrame({"t": ["1970-01-01 00:00:10", "", "2020-06-09 18:41:01"]}, dtype=str)
    seconds = timestamps(frame, "t", "t.csv", 2)
    assert seconds.dtype == np.float64
    assert seconds[0] == 10.0 and np.isnan(seconds[1]) and seconds[2] == 1591728061.0
    frame = pd.DataFrame({"t": ["1970-01-01 00:00:10", "", "yesterday"]}, dtype=str)
    with pytest.raises(InstanceError) as info:
        timestamps(frame, "t", "t.csv", 2)
    assert str(info.value) == (
        "t.csv, line 4, field 't': not a time 'YYYY-MM-DD HH:MM:SS': 'yesterday'"
    )


def test_a_missing_label_is_none() -> None:
    """A cell pandas left missing (a short row, with pandas 2) is no label, like an empty one."""
    frame = pd.DataFrame({"user": [" u1 ", None, ""]}, dtype=str)
    users = labels(frame, "user", "t.csv", 2)
    assert users is not None and users.tolist() == ["u1", None, None]


def test_rows_without_labels_become_jobs_by_the_first_rule_that_skips_them() -> None:
    submit = np.array([5.0, 7.0, 9.0, 11.0])
    gpus = np.array([2.0, 0.0, 4.0, 1.0])
    duration = np.array([30.0, 40.0, np.nan, 50.0])
    rules = [gpus == 0, np.isnan(duration) | (gpus == 0)]
    trace, skipped = screen_rows(rules, ("cpu_only", "no_run_time"), submit, gpus, duration)
    assert trace == [TraceJob(0, 5.0, 2, 30.0), TraceJob(3, 11.0, 1, 50.0)]
    assert [(type(j.id), type(j.submit), type(j.gpus), type(j.duration)) for j in trace] == [
        (int, float, int, float)
    ] * 2
    assert skipped == {"cpu_only": [1], "no_run_time": [2]}


def test_labels_of_an_object_column_are_a_copy() -> None:
    """pandas 3 hands out a read-only view of an object column: ``labels`` wrote into it and
    failed ("assignment destination is read-only"); it never touches the caller's frame."""
    import pandas as pd

    from sjfbsbf.workloads.trace_csv import labels

    frame = pd.DataFrame({"user": [" u1 ", None, ""]}, dtype=object)
    values = labels(frame, "user", "t.csv", 2)
    assert values is not None and list(values) == ["u1", None, None]
    assert frame["user"].tolist() == [" u1 ", None, ""]
