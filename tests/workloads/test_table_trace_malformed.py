"""Malformed trace tables are one line each (issue 35 item 11: an empty CSV, an unterminated
quote, binary junk, Latin-1 text, an empty or garbage Parquet file were ~150-line tracebacks),
read as a sweep's `table` workload and by read_trace_table."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.table_trace import read_trace_table

CASES = {
    "empty.csv": (b"", "empty file"),
    "quote.csv": (b'submit_time,num_gpus,duration\n0,1,"10\n', "not a CSV table"),
    "junk.csv": (b"\x00\x01\x02\xff" * 100, "binary file"),
    "latin1.csv": (
        "submit_time,num_gpus,duration,vc\n0,1,10,caf\xe9\n".encode("latin-1"),
        "not UTF-8",
    ),
    # Every data row one field longer than the header: pandas took the first column as the
    # index and loaded a job of 200 GPUs (capped to the cluster) and 7 s (issue 35, smaller items:
    # "a row with an extra field blames num_gpus").
    "extra.csv": (b"submit_time,num_gpus,duration\n5,2,200,7\n", "line 2: 4 fields, more than"),
    "extra_later.csv": (
        b"submit_time,num_gpus,duration\n0,1,10\n\n5,2,200,7\n",
        "line 4: 4 fields, more than the 3 of the first line",
    ),
    "twice.csv": (
        b"submit_time,num_gpus,num_gpus\n0,1,1\n",
        "field 'num_gpus': column named twice",
    ),
    # An arrival over 10 years after the first job's named no file (issue 35, smaller items).
    "late.csv": (
        b"submit_time,num_gpus,duration\n0,1,100\n400000000,1,100\n",
        "late.csv, line 3, field 'arrival': must be at most 315,576,000 s",
    ),
    "empty.parquet": (b"", "not a Parquet table"),
    "junk.parquet": (b"PAR1 this is not parquet", "not a Parquet table"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_malformed_table_is_one_line(tmp_path: Path, name: str) -> None:
    data, fragment = CASES[name]
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InstanceError, match=fragment) as info:
        read_trace_table(path, Cluster())
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'seeds = [0]\n[[workloads]]\nkind = "table"\npath = "{path}"\n'
        '[[variants]]\npolicy = "fifo"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["sweep", str(sweep), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert fragment in result.stderr


def test_a_short_row_is_a_missing_value_not_a_shift(tmp_path: Path) -> None:
    """One field fewer than the header leaves the last column empty; the others keep their
    place (the loader then names the empty field)."""
    path = tmp_path / "short.csv"
    path.write_bytes(b"submit_time,num_gpus,duration\n0,1,10\n5,2\n")
    with pytest.raises(InstanceError, match="line 3") as info:
        read_trace_table(path, Cluster())
    assert "duration" in str(info.value)
    good = tmp_path / "good.csv"
    good.write_bytes(b"submit_time,num_gpus,duration\n0,1,10\n5,2,30\n")
    instance, _ = read_trace_table(good, Cluster())
    assert [(j.arrival, j.gpus, j.duration) for j in instance.jobs] == [
        (0.0, 1, 10.0),
        (5.0, 2, 30.0),
    ]
