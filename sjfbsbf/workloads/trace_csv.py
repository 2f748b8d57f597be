"""Reading the CSV tables of public traces (Helios, Alibaba PAI) with one-line refusals.

Values are read as text and converted column by column; the first bad value is refused in one
line naming the file (``archive:member`` inside an archive), the line of the file (blank lines
counted, :mod:`~sjfbsbf.workloads.file_lines`) and the column. Empty cells are missing values
(``NaN``), left to the loader's rules.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import IO

import numpy as np
import pandas as pd

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import bounded_first_line
from sjfbsbf.core.model import label_problem
from sjfbsbf.workloads.archive import open_member
from sjfbsbf.workloads.file_lines import file_lines
from sjfbsbf.workloads.trace_window import TraceJob

#: pandas's message for a row longer than the first: "Expected 3 fields in line 5, saw 4".
_LONG_ROW = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def parse_rows(handle: IO[bytes], source: str) -> pd.DataFrame:
    """Every line of a CSV stream as text, the header (if any) included as the first row.

    The header is not given to pandas as one: when each data row has one field more than the
    header, pandas would take the first column as the index and shift every value by a column
    (a 4-field row under a 3-column header loaded as a job of 200 GPUs and 7 s). Read as plain
    rows, a row longer than the first is refused in one line naming it.

    Raises
    ------
    InstanceError
        An empty stream, a row with more fields than the first (its line), unterminated quotes
        or other CSV errors, text that is not UTF-8.
    """
    try:
        return pd.read_csv(
            handle,
            dtype=str,
            keep_default_na=False,
            header=None,
            skipinitialspace=True,
            encoding="utf-8",
        )
    except pd.errors.EmptyDataError:
        raise InstanceError("empty file: no header, no rows", source=source) from None
    except pd.errors.ParserError as exc:
        why = " ".join(str(exc).split())
        found = _LONG_ROW.search(why)
        if found is not None:
            expected, line, saw = found.groups()
            raise InstanceError(
                f"{saw} fields, more than the {expected} of the first line",
                source=source,
                row=f"line {line}",
            ) from None
        raise InstanceError(f"not a CSV table ({why})", source=source) from None
    except UnicodeDecodeError as exc:
        raise InstanceError(
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x})", source=source
        ) from None


def with_header(rows: pd.DataFrame, source: str) -> pd.DataFrame:
    """The rows of :func:`parse_rows` under their first row as the header (names stripped); a
    name given twice is refused (naming it)."""
    names = [str(c).strip() for c in rows.iloc[0]]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InstanceError("column named twice", source=source, row="line 1", field=name)
        seen.add(name)
    frame = rows.iloc[1:].reset_index(drop=True)
    frame.columns = pd.Index(names)
    return frame


def read_table(
    path: str | os.PathLike[str],
    member: str,
    *,
    columns: Sequence[str] | None = None,
    required: Sequence[str] = (),
) -> tuple[pd.DataFrame, str, int]:
    """Read a CSV file, or the member ``member`` of an archive, as text.

    Parameters
    ----------
    path, member
        The file, or an archive and the member's name (:func:`~sjfbsbf.workloads.archive.
        open_member`).
    columns
        ``None``: the first line is the header. Otherwise the file has no header and exactly
        these columns (a first line equal to them is taken as a header all the same).
    required
        Columns that must be present.

    Returns
    -------
    tuple[pandas.DataFrame, str, int]
        The table (text), the label of the file for messages, and the line number
        of its first data row.
    """
    with open_member(path, member) as (raw, source):
        frame = parse_rows(bounded_first_line(raw, source), source)
    with file_lines(reopen_member(path, member), source):
        return _columns(frame, source, columns, required)


def reopen_member(
    path: str | os.PathLike[str], member: str
) -> Callable[[], AbstractContextManager[IO[bytes]]]:
    """Opens ``member`` of ``path`` again (for :func:`~sjfbsbf.workloads.file_lines.file_lines`)."""

    @contextmanager
    def member_bytes() -> Iterator[IO[bytes]]:
        with open_member(path, member) as (raw, _):
            yield raw

    return member_bytes


def _columns(
    frame: pd.DataFrame, source: str, columns: Sequence[str] | None, required: Sequence[str]
) -> tuple[pd.DataFrame, str, int]:
    """``frame`` under its header or ``columns``, checked for ``required`` (:func:`read_table`)."""
    first = 2
    if columns is None:
        frame = with_header(frame, source)
    else:
        if frame.shape[1] != len(columns):
            raise InstanceError(
                f"{frame.shape[1]} columns, expected {len(columns)} ({','.join(columns)})",
                source=source,
                row="line 1",
            )
        header = [str(v).strip() for v in frame.iloc[0]] if len(frame) else []
        if header == list(columns):
            frame = frame.iloc[1:].reset_index(drop=True)
        else:
            first = 1
        frame.columns = pd.Index(columns)
    for column in required:
        if column not in frame.columns:
            raise InstanceError("missing column", source=source, row="line 1", field=column)
    return frame, source, first


def numbers(
    frame: pd.DataFrame,
    column: str,
    source: str,
    first: int,
    *,
    integer: bool = False,
) -> np.ndarray:
    """The column as floats ≥ 0 (``NaN`` where empty); refuses text, negative, fractional."""
    text = frame[column].str.strip()
    values = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(float)
    bad = (text != "").to_numpy() & ~np.isfinite(values)
    bad |= values < 0
    if integer:
        bad |= np.isfinite(values) & (values != np.floor(values))
    if bad.any():
        index = int(np.argmax(bad))
        kind = "a whole number ≥ 0" if integer else "a number ≥ 0"
        raise InstanceError(
            f"must be {kind}, got {text.iloc[index]!r}",
            source=source,
            row=f"line {first + index}",
            field=column,
        )
    return values


def timestamps(frame: pd.DataFrame, column: str, source: str, first: int) -> np.ndarray:
    """``YYYY-MM-DD HH:MM:SS`` wall-clock times as seconds since 1970 (no zone; ``NaN`` if
    empty); refuses any other text."""
    text = frame[column].str.strip()
    parsed = pd.to_datetime(
        text.where(text != "", None), format="%Y-%m-%d %H:%M:%S", errors="coerce"
    )
    bad = (text != "").to_numpy() & parsed.isna().to_numpy()
    if bad.any():
        index = int(np.argmax(bad))
        raise InstanceError(
            f"not a time 'YYYY-MM-DD HH:MM:SS': {text.iloc[index]!r}",
            source=source,
            row=f"line {first + index}",
            field=column,
        )
    seconds = (parsed - pd.Timestamp(0)).dt.total_seconds()
    return seconds.to_numpy(float)


def labels(frame: pd.DataFrame, column: str, source: str, first: int) -> np.ndarray | None:
    """The column as job labels (``vc``, ``user``): stripped text, ``None`` where empty; ``None``
    if the table has no such column. Refuses a value :class:`~sjfbsbf.core.model.Job` would
    (longer than 128 characters, control characters), naming the first such line."""
    if column not in frame.columns:
        return None
    text = frame[column].fillna("").str.strip()
    bad = [v for v in pd.unique(text) if v and label_problem(v) is not None]  # few distinct values
    if bad:
        index = int(np.argmax(text.isin(bad).to_numpy()))
        raise InstanceError(
            str(label_problem(text.iloc[index])),
            source=source,
            row=f"line {first + index}",
            field=column,
        )
    values = text.to_numpy(dtype=object, copy=True)  # pandas 3 may hand out a read-only view
    values[values == ""] = None
    return values


def screen_rows(
    rules: Sequence[np.ndarray],
    reasons: Sequence[str],
    submit: np.ndarray,
    gpus: np.ndarray,
    duration: np.ndarray,
    *,
    vc: np.ndarray | None = None,
    user: np.ndarray | None = None,
) -> tuple[list[TraceJob], dict[str, list[int]]]:
    """Split a table's rows into usable jobs and skipped rows, by the first rule that applies.

    Parameters
    ----------
    rules
        One boolean array per skip reason (``True``: the row is skipped for it), in the order of
        ``reasons``; a row skipped by several counts under the first.
    reasons
        The names of the reasons, as the report lists them.
    submit, gpus, duration
        Per row: submission (s), GPUs and duration (s) of the job it would give.
    vc, user
        Per row: the job's virtual cluster and user (:func:`labels`), or ``None`` (not known).

    Returns
    -------
    tuple
        The usable rows as :class:`TraceJob` (id = row index) and, per reason, the skipped rows.
    """
    reason = np.full(len(submit), -1)
    for number, rule in reversed(list(enumerate(rules))):
        reason[rule] = number
    kept = np.flatnonzero(reason < 0)
    if vc is None and user is None:
        trace = [TraceJob(int(i), float(submit[i]), int(gpus[i]), float(duration[i])) for i in kept]
    else:
        trace = [
            TraceJob(
                int(i),
                float(submit[i]),
                int(gpus[i]),
                float(duration[i]),
                vc=None if vc is None else vc[i],
                user=None if user is None else user[i],
            )
            for i in kept
        ]
    skipped = {
        name: [int(i) for i in np.flatnonzero(reason == number)]
        for number, name in enumerate(reasons)
    }
    return trace, skipped
