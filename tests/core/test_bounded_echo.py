"""Errors never echo unbounded text and a table's header line is bounded (docs/security.md;
issue 35 item 6): a 2 GB one-line CSV once made an 84 MB error line at 20 MB and was OOM-killed."""

from __future__ import annotations

import tracemalloc
import zipfile
from pathlib import Path

import pytest

from sjfbsbf.core.errors import MAX_ECHO, MAX_MESSAGE, InstanceError, SweepError, clip
from sjfbsbf.core.inputs import MAX_LINE_BYTES
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.helios import check_helios_archive
from sjfbsbf.workloads.table_trace import read_trace_table


def test_clip_at_and_beside_its_limit() -> None:
    assert clip("a" * MAX_ECHO) == "a" * MAX_ECHO
    assert clip("a" * (MAX_ECHO + 1)) == "a" * MAX_ECHO + "… (1 more characters)"
    assert clip("abc", 2) == "ab… (1 more characters)"


def test_an_error_echoes_at_most_a_bounded_line() -> None:
    huge = "x" * 1_000_000
    text = str(InstanceError(huge, source="f.csv", row=huge, field=huge))
    assert len(text) < MAX_MESSAGE + 3 * MAX_ECHO + 200
    assert "(999,920 more characters)" in text  # the field, cut at 80
    assert len(str(SweepError(huge, source="s.toml", key="k"))) < MAX_MESSAGE + 100


@pytest.mark.parametrize("extra", [0, 1])
def test_a_header_line_at_and_beyond_the_cap(tmp_path: Path, extra: int) -> None:
    path = tmp_path / "t.csv"
    line = b"q" * (MAX_LINE_BYTES + extra)  # one line, no newline: a bad column or too long
    path.write_bytes(line)
    tracemalloc.start()
    with pytest.raises(InstanceError) as info:
        read_trace_table(path, Cluster())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = str(info.value)
    assert len(message) < 1000 and "\n" not in message
    if extra:
        assert "first line is longer than 1,048,576 bytes" in message
        assert peak < 8 * MAX_LINE_BYTES
    else:
        assert "unknown column" in message  # read as a header: the column name is cut


def test_a_helios_archive_whose_header_never_ends_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("data/Venus/cluster_log.csv", b"z" * (4 * MAX_LINE_BYTES))
    assert archive.stat().st_size < MAX_LINE_BYTES  # compresses well: a zip bomb in small
    problem = check_helios_archive(archive)
    assert problem is not None and "header line is longer than 1,048,576 bytes" in problem
