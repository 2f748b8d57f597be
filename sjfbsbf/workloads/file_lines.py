"""The file's own line numbers in refusals of CSV tables.

pandas skips blank lines (empty or only spaces and tabs) and reads a quoted field across line
breaks as one row, so "row i of the table" is line i + 1 of the file only when neither comes
before it. Refusals count rows (``line N``: the header, if any, is row 1) while they convert a
table; :func:`file_lines` then turns each such ``line N`` into the line of the file that row
starts on, reading the file again with Python's CSV reader only when a refusal is raised (the
tables are read at full speed, and a refusal costs one more pass over the file up to its row).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import IO

from sjfbsbf.core.errors import InstanceError

#: A refusal's row counted over the table's rows.
_ROW_LINE = re.compile(r"line (\d+)")


@contextmanager
def file_lines(
    reopen: Callable[[], AbstractContextManager[IO[bytes]]], source: str
) -> Iterator[None]:
    """Re-raise an :class:`InstanceError` about ``source`` whose row is ``line N`` (N counted
    over the rows pandas read) with the line of the file where that row starts.

    Parameters
    ----------
    reopen
        Opens the file again (its bytes, from the start).
    source
        The label the refusals name the file by; errors about other files pass unchanged.
    """
    try:
        yield
    except InstanceError as error:
        found = _ROW_LINE.fullmatch(error.row) if isinstance(error.row, str) else None
        if error.source != source or found is None:
            raise
        line = row_line(reopen, int(found.group(1)) - 1)
        if line is None or f"line {line}" == error.row:
            raise
        raise InstanceError(
            error.message, source=error.source, row=f"line {line}", field=error.field
        ) from None


def row_line(reopen: Callable[[], AbstractContextManager[IO[bytes]]], row: int) -> int | None:
    """The line (from 1) where row ``row`` (from 0, blank lines not counted) starts, or ``None``
    if the file has fewer rows or the CSV reader cannot read it (then the row count stands)."""
    limit = csv.field_size_limit(1 << 30)  # pandas read the fields: no smaller limit here
    try:
        with reopen() as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
            reader = csv.reader(text, skipinitialspace=True)
            count = 0
            while True:
                start = reader.line_num + 1
                try:
                    fields = next(reader)
                except StopIteration:
                    return None
                if not fields or (len(fields) == 1 and not fields[0].strip(" \t")):
                    continue  # a blank line: pandas skips it
                if count == row:
                    return start
                count += 1
    except (csv.Error, UnicodeDecodeError, OSError, InstanceError):
        return None
    finally:
        csv.field_size_limit(limit)
