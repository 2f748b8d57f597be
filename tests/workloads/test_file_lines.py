"""Refusals of CSV tables name the file's own line, blank lines and quoted line breaks counted
(sjfbsbf.workloads.file_lines): before, they counted the rows pandas kept, so a blank line
above a bad row moved the line they named."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.file_lines import file_lines, row_line
from sjfbsbf.workloads.helios import load_helios_log
from sjfbsbf.workloads.pai import load_pai_trace
from sjfbsbf.workloads.table_trace import read_trace_table
from sjfbsbf.workloads.trace_csv import read_table

DATA = Path(__file__).resolve().parents[1] / "data"
CLUSTER = Cluster(nodes=1, gpus_per_node=8, gpu_mem_gb=12.0)
#: Blank lines as pandas skips them: empty, spaces, a tab, and an empty line ending in CR LF.
BLANKS = "\n   \n\t\n\r\n"


def _with_blanks(source: Path, target: Path, after: int) -> Path:
    """``source`` with :data:`BLANKS` (four blank lines) inserted after its line ``after``."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    target.write_text("".join(lines[:after]) + BLANKS + "".join(lines[after:]), encoding="utf-8")
    return target


def test_a_helios_refusal_counts_the_blank_lines_above_it(tmp_path: Path) -> None:
    """bad_fractional_gpus.csv's 0.5 GPUs are on line 3; four blank lines after the header move
    them to line 7."""
    path = _with_blanks(DATA / "helios" / "bad_fractional_gpus.csv", tmp_path / "log.csv", 1)
    with pytest.raises(InstanceError, match=r"line 7, field 'gpu_num': must be a whole number"):
        load_helios_log(path, CLUSTER)


def test_a_table_trace_refusal_counts_them_too_even_from_the_window_builder(
    tmp_path: Path,
) -> None:
    """good.csv's 16-GPU job (line 4) refused by the window builder is on line 8 below four
    blank lines; a bad value read by the table reader itself likewise."""
    path = _with_blanks(DATA / "traces" / "good.csv", tmp_path / "good.csv", 2)
    with pytest.raises(InstanceError, match=r"line 8, field 'num_gpus': 16 GPUs"):
        read_trace_table(path, CLUSTER, oversize="refuse")
    bad = tmp_path / "bad.csv"
    bad.write_text(path.read_text().replace("60,300,16", "60,300,x"), encoding="utf-8")
    with pytest.raises(InstanceError, match=r"line 8, field 'num_gpus': not a number"):
        read_trace_table(bad, CLUSTER)


def test_each_pai_table_counts_its_own_lines(tmp_path: Path) -> None:
    """A bad inst_num on line 2 of the task table is on line 6 below four blank lines, and the
    job table's lines are left alone; pandas's own line numbers (a row with too many fields)
    already count blank lines and are kept."""
    tasks = _with_blanks(DATA / "pai" / "bad_task_inst_num.csv", tmp_path / "tasks.csv", 1)
    with pytest.raises(InstanceError) as info:
        load_pai_trace(DATA / "pai" / "pai_job_table.csv", tasks, CLUSTER)
    assert str(info.value).startswith(str(tasks))
    assert "line 6, field 'inst_num': must be a whole number" in str(info.value)
    jobs = _with_blanks(DATA / "pai" / "bad_ragged_job.csv", tmp_path / "jobs.csv", 1)
    with pytest.raises(InstanceError, match=r"line 6: 7 fields, more than the 6"):
        load_pai_trace(jobs, DATA / "pai" / "pai_task_table.csv", CLUSTER)


def test_a_header_below_blank_lines_is_named_by_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("\n\nname,name\n1,2\n", encoding="utf-8")
    with pytest.raises(InstanceError, match=r"line 3, field 'name': column named twice"):
        read_table(path, "t.csv")


def _opener(text: str):  # type: ignore[no-untyped-def]
    @contextmanager
    def reopen() -> Iterator[IO[bytes]]:
        yield io.BytesIO(text.encode("utf-8"))

    return reopen


def test_row_line_counts_quoted_line_breaks_and_blank_lines() -> None:
    """Row 2 (from 0) starts on line 5: the header, a row whose quoted field spans lines 2–3,
    a blank line; past the last row there is no line."""
    text = 'a,b\n"x\ny",1\n\n2,3\n4,5\n'
    reopen = _opener(text)
    assert [row_line(reopen, row) for row in range(4)] == [1, 2, 5, 6]
    assert row_line(reopen, 4) is None


def test_file_lines_rewrites_only_row_counts_about_its_file() -> None:
    reopen = _opener("a\n\n\n1\n2\n")
    expected = r"^f, line 5, field 'a': bad$"
    with pytest.raises(InstanceError, match=expected), file_lines(reopen, "f"):
        raise InstanceError("bad", source="f", row="line 3", field="a")
    for source, row in (("g", "line 3"), ("f", "row 3"), ("f", 3), ("f", "line 9")):
        with pytest.raises(InstanceError) as info, file_lines(reopen, "f"):
            raise InstanceError("bad", source=source, row=row, field="a")
        assert info.value.row == row  # another file, a Parquet row, a job id, past the end
