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
