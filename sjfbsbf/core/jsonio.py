"""Strict reading of text and JSON files that the toolkit did not write.

Every input file (instances, Gavel's throughput table, traces, sweep files) goes through
:func:`read_text`; JSON files through :func:`read_json`. What they refuse, each with one
:class:`~sjfbsbf.core.errors.InstanceError` naming the file and, where there is one, the line
and the key:

* binary files (a NUL byte; UTF-16/32 byte-order marks) and text that is not UTF-8, with the
  byte offset;
* JSON nested deeper than :data:`MAX_DEPTH` levels: measured on the parsed data, and a file deep
  enough to hit the parser's recursion limit is caught as such; either way a scan of the text
  (on this error path only) names the line and column where the nesting gets too deep;
* duplicate keys in one object (Python's ``json`` silently keeps the last one);
* ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow a float (``1e400``), integers
  of more than :data:`MAX_INT_DIGITS` digits;
* lone surrogates (``"\\ud800"``) in strings: not Unicode text.

A UTF-8 byte-order mark is accepted and dropped.
"""

from __future__ import annotations

import codecs
import gc
import json
import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import check_input

#: Deepest nesting of JSON arrays and objects accepted (an instance file needs 3).
MAX_DEPTH = 64
#: Longest integer literal accepted, in digits (every limit of the instance format is below it).
MAX_INT_DIGITS = 30

# One match per bracket outside strings: anything but quotes and brackets, or whole strings,
# then the bracket. Possessive quantifiers and atomic groups: linear time, no backtracking.
_TO_BRACKET = re.compile(r'(?>[^"\[\]{}]++|"(?>[^"\\]++|\\.)*+")*+([\[\]{}])', re.DOTALL)
# One JSON token: a string, a punctuation mark, or a bare word (number, true, NaN, ...).
_TOKEN = re.compile(r'\s*+(?:("(?>[^"\\]++|\\.)*+")|([\[\]{}:,])|([^\s\[\]{}:,"]++))', re.DOTALL)
# A \u escape of a surrogate code point: the only way a JSON string can hold one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def read_text(path: str | os.PathLike[str]) -> str:
    """Read a UTF-8 text file; anything else is an :class:`InstanceError` naming the file.

    Raises
    ------
    InstanceError
        If the file cannot be read, is binary (with the offset of the first NUL byte) or is not
        UTF-8 (with the offset of the first bad byte).
    """
    source = str(path)
    check_input(path)  # a regular file of at most MAX_INPUT_BYTES (no FIFO, no /dev/zero)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InstanceError(f"cannot read: {exc.strerror or exc}", source=source) from None
    return decode_text(data, source)


def decode_text(data: bytes, source: str) -> str:
    """Decode the bytes of a text file as UTF-8 (see :func:`read_text`)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            raise InstanceError(
                f"{encoding} text (byte-order mark at byte offset 0); save it as UTF-8",
                source=source,
            )
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InstanceError(f"binary file, not text (NUL byte at byte offset {nul})", source=source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InstanceError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at byte offset {exc.start})",
            source=source,
        ) from None
    return text.removeprefix("\ufeff")


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read and strictly parse a JSON file (see the module docstring for what is refused).

    Raises
    ------
    InstanceError
        Naming the file and, where there is one, the line and the key at fault.
    """
    return loads(read_text(path), str(path))


def loads(text: str, source: str) -> Any:
    """Strictly parse JSON text read from ``source`` (see :func:`read_json`).

    The C parser does the work; Python hooks run only per object (duplicate keys) and per
    ``NaN`` / ``Infinity``; one pass over the parsed data then checks depth, numbers and
    strings. Only on an error is the text scanned again, slowly, to name the line and key.
    The cyclic garbage collector is paused meanwhile (:func:`gc_paused`).
    """
    with gc_paused():
        return _loads(text, source)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a large acyclic structure is built.

    Parsed JSON and the objects built from it hold no reference cycles, so reference counting
    frees them as usual; the collector would only scan the millions of new objects again and
    again as they are made (about a quarter of the time to read a 1,000,000-job instance). It
    is re-enabled afterwards if it was enabled before, also when an error is raised.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _loads(text: str, source: str) -> Any:
    try:
        data = json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InstanceError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", source=source
        ) from None
    except _Problem as exc:
        raise _located(text, source, exc) from None
    except RecursionError:  # deeper than the parser's recursion limit: say where it goes deep
        _check_depth(text, source)
        raise InstanceError(f"JSON nested deeper than {MAX_DEPTH} levels", source=source) from None
    except ValueError:  # an integer literal longer than Python converts
        raise _located(text, source, _Problem("integer out of range")) from None
    problem = _check_values(data, surrogates=_SURROGATE_ESCAPE.search(text) is not None)
    if problem == "depth":
        _check_depth(text, source)
        raise InstanceError(f"JSON nested deeper than {MAX_DEPTH} levels", source=source)
    if problem is not None:
        raise _located(text, source, _Problem(problem))
    return data


#: Integers at or beyond this magnitude have more than :data:`MAX_INT_DIGITS` digits.
_INT_LIMIT = 10**MAX_INT_DIGITS


def _check_values(data: Any, *, surrogates: bool) -> str | None:
    """The first problem of parsed JSON: ``"depth"``, or a description of a number out of range
    or (with ``surrogates``) a string holding a lone surrogate; ``None`` if there is none."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if depth + 1 > MAX_DEPTH:
                return "depth"
            if kind is dict:
                if surrogates and any(_has_surrogate(key) for key in item):
                    return "lone surrogate in a key (not Unicode text)"
                values = item.values()
            else:
                values = item
            for value in values:
                vkind = type(value)
                if vkind is dict or vkind is list:
                    stack.append((value, depth + 1))
                elif vkind is float:
                    if not math.isfinite(value):
                        return "number out of range (overflows a float)"
                elif vkind is int:
                    if not -_INT_LIMIT < value < _INT_LIMIT:
                        return f"integer out of range (at most {MAX_INT_DIGITS} digits)"
                elif vkind is str and surrogates and _has_surrogate(value):
                    return "lone surrogate in a string (not Unicode text)"
        else:
            stack.append(([item], depth - 1))  # a scalar document: check it as a value
    return None


class _Problem(Exception):
    """Raised by the parser hooks; turned into a located :class:`InstanceError`."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Problem("duplicate key in one object", key)
            seen.add(key)
    return result


def _constant(word: str) -> float:
    raise _Problem(f"{word} is not a finite number (JSON numbers must be finite)")


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def _check_depth(text: str, source: str) -> None:
    """Raise for nesting deeper than :data:`MAX_DEPTH`, naming where (slow; error path only)."""
    depth = 0
    pos = 0
    while (match := _TO_BRACKET.match(text, pos)) is not None:
        pos = match.end()
        if match.group(1) in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line, column = _line_column(text, pos - 1)
                raise InstanceError(
                    f"JSON nested deeper than {MAX_DEPTH} levels (column {column})",
                    source=source,
                    row=f"line {line}",
                )
        else:
            depth -= 1


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _located(text: str, source: str, problem: _Problem) -> InstanceError:
    """The error for ``problem``, with the line and key of its first occurrence in ``text``."""
    found = _locate(text)
    if found is None:
        return InstanceError(problem.message, source=source, field=problem.key)
    offset, key, message = found
    line, _ = _line_column(text, offset)
    return InstanceError(message, source=source, row=f"line {line}", field=key)


def _locate(text: str) -> tuple[int, str | None, str] | None:
    """Offset, key and description of the first duplicate key, non-finite or out-of-range
    number or lone surrogate of ``text`` (which parses as JSON otherwise). Slow; error path only.
    """
    # Per open container: the keys seen (None for an array) and the key of the current value.
    stack: list[tuple[set[str] | None, list[str | None]]] = []
    expect_key = False
    pos = 0
    while (match := _TOKEN.match(text, pos)) is not None and match.end() > pos:
        pos = match.end()
        string, mark, word = match.groups()
        start = match.start(match.lastindex or 0)
        current = stack[-1][1][0] if stack else None
        if mark is not None:
            if mark in "[{":
                stack.append((set() if mark == "{" else None, [current]))
                expect_key = mark == "{"
            elif mark in "]}":
                if stack:
                    stack.pop()
                expect_key = False
            elif mark == ",":
                expect_key = bool(stack) and stack[-1][0] is not None
            else:
                expect_key = False
        elif string is not None:
            try:
                value = json.loads(string)
            except ValueError:
                continue
            if expect_key and stack and stack[-1][0] is not None:
                keys = stack[-1][0]
                if _has_surrogate(value):
                    return start, value, "lone surrogate in a key (not Unicode text)"
                if value in keys:
                    return start, value, "duplicate key in one object"
                keys.add(value)
                stack[-1][1][0] = value
            elif _has_surrogate(value):
                return start, current, "lone surrogate in a string (not Unicode text)"
        else:
            problem = _word_problem(word)
            if problem is not None:
                return start, current, problem
    return None


def _word_problem(word: str) -> str | None:
    if word in ("NaN", "Infinity", "-Infinity"):
        return f"{word} is not a finite number (JSON numbers must be finite)"
    if re.fullmatch(r"-?\d+", word) and len(word.lstrip("-")) > MAX_INT_DIGITS:
        digits = len(word.lstrip("-"))
        return f"integer of {digits} digits is out of range (at most {MAX_INT_DIGITS})"
    try:
        value = float(word)
    except ValueError:
        return None
    if not math.isfinite(value):
        return f"number {_clip(word)} is out of range (overflows a float)"
    return None
