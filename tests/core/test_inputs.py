"""Inputs are regular files of bounded size (docs/security.md; issue 35 item 5): a FIFO, a
device, a directory is refused in one line at once (a FIFO used to block for ever, /dev/zero to
read until memory ran out); a file read whole above the cap is refused before it is read."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core import inputs
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import check_input
from sjfbsbf.core.jsonio import read_json


def _one_line(args: list[str], *fragments: str) -> None:
    started = time.perf_counter()
    result = CliRunner().invoke(app, args)
    assert time.perf_counter() - started < 30  # refused, not blocked (no timing claim)
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr


def test_a_fifo_device_or_directory_instance_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    _one_line(["simulate", str(fifo), "-p", "sjf"], str(fifo), "is a FIFO, not a regular file")
    _one_line(["simulate", "/dev/zero", "-p", "sjf"], "/dev/zero", "is a device")
    _one_line(["simulate", str(tmp_path), "-p", "sjf"], "is a directory")


def test_a_fifo_sweep_or_trace_table_is_refused(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    os.mkfifo(sweep)
    _one_line(["sweep", str(sweep)], str(sweep), "FIFO")
    table = tmp_path / "t.csv"
    os.mkfifo(table)
    from sjfbsbf.core.model import Cluster
    from sjfbsbf.workloads.table_trace import read_trace_table

    with pytest.raises(InstanceError, match="FIFO"):
        read_trace_table(table, Cluster())


def test_the_cap_on_a_file_read_whole_at_and_around_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 10)
    path = tmp_path / "x.json"
    for size, refused in ((9, False), (10, False), (11, True)):
        path.write_text("1".ljust(size))
        if refused:
            with pytest.raises(InstanceError, match="11 bytes: larger than the 10-byte limit"):
                read_json(path)
        else:
            assert read_json(path) == 1
    assert check_input(path, whole=False) == 11  # an archive streams: not capped
    assert inputs.MAX_INPUT_BYTES == 10 and check_input.__module__ == "sjfbsbf.core.inputs"
