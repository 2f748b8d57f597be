"""The strict JSON reader (:mod:`sjfbsbf.core.jsonio`) at and around each of its limits.

Every limit is tried exactly at, one below and one above its boundary: nesting depth (64 levels
accepted, 65 refused, also through the parser's own recursion limit), integer length (30 digits
accepted, 31 refused, either sign), the float range, the surrogate range U+D800..U+DFFF and the
40-character clip of a number echoed in a message. Each refusal is checked for the line, the key
and the column it names, worked out by hand from the text in the test; the text decoder is
checked for each byte-order mark, the offset of a NUL byte or a bad byte, and an unreadable file.
"""

from __future__ import annotations

import codecs
import errno
from pathlib import Path
from typing import Any

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.jsonio import MAX_DEPTH, MAX_INT_DIGITS, decode_text, loads, read_json, read_text

SOURCE = "in.json"


def _refusal(text: str) -> InstanceError:
    with pytest.raises(InstanceError) as info:
        loads(text, SOURCE)
    assert info.value.source == SOURCE
    return info.value


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _depth(data: Any) -> int:
    """Nesting levels of parsed JSON, counted independently of the reader."""
    if isinstance(data, list):
        return 1 + max((_depth(v) for v in data), default=0)
    if isinstance(data, dict):
        return 1 + max((_depth(v) for v in data.values()), default=0)
    return 0


# -- the documented limits -----------------------------------------------------------------------
def test_the_documented_limits() -> None:
    assert (MAX_DEPTH, MAX_INT_DIGITS) == (64, 30)


# -- nesting depth ---------------------------------------------------------------------------------
@pytest.mark.parametrize("levels", [63, 64])
def test_nesting_up_to_64_levels_is_read(levels: int) -> None:
    assert _depth(loads(_nested(levels), SOURCE)) == levels


def test_nesting_of_65_levels_is_refused_at_the_65th_bracket() -> None:
    # The 65th "[" is the 65th character of line 1: column 65.
    error = _refusal(_nested(65))
    assert error.message == "JSON nested deeper than 64 levels (column 65)"
    assert error.row == "line 1"


def test_objects_count_as_levels_and_the_column_is_on_the_line_of_the_bracket() -> None:
    # Line 1 is "{", line 2 is ' "k": ' then the brackets: 1 object + 63 arrays = 64 levels are
    # read, one more array is refused. ' "k": ' is 6 characters, so the 64th "[" of line 2 (the
    # 65th level) is its 70th character.
    assert _depth(loads('{\n "k": ' + _nested(63) + "}", SOURCE)) == 64
    error = _refusal('{\n "k": ' + _nested(64) + "}")
    assert error.message == "JSON nested deeper than 64 levels (column 70)"
    assert error.row == "line 2"


def test_closed_brackets_and_brackets_in_strings_do_not_count() -> None:
    # An outer array holds a string full of brackets, then 63 levels closed again (64 in all),
    # then 64 more levels: the 65th level is only reached at the last "[" of the second group.
    # Its offset: '[' (1) + '"[[[{{{", ' (10) + 63 + 63 + ', ' (2) + 63 = 202; column 203.
    text = '["[[[{{{", ' + _nested(63) + ", " + _nested(64) + "]"
    assert len('"[[[{{{", ') == 10
    error = _refusal(text)
    assert error.message == "JSON nested deeper than 64 levels (column 203)"
    assert error.row == "line 1"
    ok = '["[[[{{{", ' + _nested(63) + ", " + _nested(63) + "]"
    assert _depth(loads(ok, SOURCE)) == 64


def test_the_column_counts_from_the_last_newline_before_the_bracket() -> None:
    # A newline as the first character (line 2 starts at offset 1) and one after the brackets:
    # the 65th "[" is the 65th character of line 2 either way.
    error = _refusal("\n" + "[" * 65 + "\n" + "]" * 65 + "\n")
    assert error.message == "JSON nested deeper than 64 levels (column 65)"
    assert error.row == "line 2"


def test_a_closed_group_leaves_the_depth_of_the_brackets_still_open() -> None:
    # Two levels open, 62 more opened and closed (back to 2), then 63 more: 2 + 63 = 65 levels,
    # reached at the last "[" of the second group, offset 2 + 62 + 62 + 1 + 62 = 189.
    text = "[[" + _nested(62) + "," + _nested(63) + "]]"
    error = _refusal(text)
    assert error.message == "JSON nested deeper than 64 levels (column 190)"
    assert _depth(loads("[[" + _nested(62) + "," + _nested(62) + "]]", SOURCE)) == 64


def test_nesting_beyond_the_parsers_recursion_limit_is_located_too() -> None:
    # 5,000 levels: the parser itself gives up (RecursionError); the scan still names the 65th
    # bracket, here the 63rd character of line 3 after two lines of one "[" each.
    error = _refusal("[\n[\n" + "[" * 4998 + "]" * 5000)
    assert error.message == "JSON nested deeper than 64 levels (column 63)"
    assert error.row == "line 3"


# -- integers --------------------------------------------------------------------------------------
@pytest.mark.parametrize("digits", [29, 30])
@pytest.mark.parametrize("sign", ["", "-"])
def test_integers_of_up_to_30_digits_are_read(digits: int, sign: str) -> None:
    text = sign + "9" * digits
    value = 10**digits - 1
    assert loads(text, SOURCE) == (-value if sign else value)
    assert loads(f'{{"n": [{text}]}}', SOURCE) == {"n": [-value if sign else value]}


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_of_31_digits_is_refused(sign: str) -> None:
    # 10**30 is the smallest magnitude with 31 digits.
    error = _refusal(sign + "1" + "0" * 30)
    assert error.message == "integer of 31 digits is out of range (at most 30)"
    assert (error.row, error.field) == ("line 1", None)


def test_the_refused_integer_is_located_after_one_of_30_digits() -> None:
    # The 30-digit value on line 2 is fine; the 31-digit one on line 3 is the one named.
    text = '{\n "ok": -' + "9" * 30 + ',\n "big": -' + "1" + "0" * 30 + "\n}"
    error = _refusal(text)
    assert error.message == "integer of 31 digits is out of range (at most 30)"
    assert (error.row, error.field) == ("line 3", "big")


def test_an_integer_longer_than_python_converts_is_located() -> None:
    # 5,000 digits is beyond Python's int-from-text limit (4,300): the parser raises itself.
    error = _refusal('[1,\n 2,\n {"huge": ' + "7" * 5000 + "}]")
    assert error.message == "integer of 5000 digits is out of range (at most 30)"
    assert (error.row, error.field) == ("line 3", "huge")


def test_long_decimals_and_words_are_not_integers() -> None:
    # 40 digits with a decimal point, and true/false/null: none of them is refused, so the
    # problem named is the NaN on line 2.
    text = "[0." + "0" * 38 + "1, true, false, null,\n NaN]"
    error = _refusal(text)
    assert error.message == "NaN is not a finite number (JSON numbers must be finite)"
    assert error.row == "line 2"


# -- floats ----------------------------------------------------------------------------------------
def test_the_largest_float_is_read_and_the_next_decimal_overflows() -> None:
    # 1.7976931348623157e308 is the largest double; ...159e308 is past half an ulp above it.
    assert loads("[1.7976931348623157e308]", SOURCE) == [1.7976931348623157e308]
    error = _refusal('{"a": 1,\n "b": 1.7976931348623159e308}')
    assert error.message == "number 1.7976931348623159e308 is out of range (overflows a float)"
    assert (error.row, error.field) == ("line 2", "b")


def test_an_overflowing_document_is_refused() -> None:
    error = _refusal("1e400")
    assert error.message == "number 1e400 is out of range (overflows a float)"
    assert (error.row, error.field) == ("line 1", None)


@pytest.mark.parametrize(
    ("zeros", "echoed"),
    [
        (34, "1" + "0" * 34 + "e400"),  # 39 characters: whole
        (35, "1" + "0" * 35 + "e400"),  # 40 characters: whole
        (36, "1" + "0" * 36 + "..."),  # 41 characters: the first 37 and "..."
    ],
)
def test_a_number_is_echoed_whole_up_to_40_characters(zeros: int, echoed: str) -> None:
    error = _refusal("[" + "1" + "0" * zeros + "e400]")
    assert error.message == f"number {echoed} is out of range (overflows a float)"


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_constants_are_refused_with_their_key(word: str) -> None:
    # The key named is the one whose value holds the constant, through the array around it.
    error = _refusal('{"x": {"y": [1,\n\n' + word + "]}}")
    assert error.message == f"{word} is not a finite number (JSON numbers must be finite)"
    assert (error.row, error.field) == ("line 3", "y")


def test_a_non_finite_document_names_no_key() -> None:
    error = _refusal("\n  NaN")
    assert (error.row, error.field) == ("line 2", None)


# -- surrogates ------------------------------------------------------------------------------------
def test_text_beside_the_surrogate_range_and_a_surrogate_pair_are_read() -> None:
    # U+D7FF and U+E000 border the range; a valid pair makes the reader look for lone ones.
    text = r'["\ud83d\ude00", "\ud7ff", "\ue000", 1, 2.5, true, null, {"\ud7ff": "\uE000"}]'
    data = loads(text, SOURCE)
    assert data[:3] == ["\U0001f600", "\ud7ff", "\ue000"]
    assert data[3:7] == [1, 2.5, True, None]
    assert data[7] == {"\ud7ff": "\ue000"}


@pytest.mark.parametrize("escape", [r"\ud800", r"\udfff", r"\uD800", r"\uDFFF", r"\udbff"])
def test_a_lone_surrogate_in_a_string_is_refused(escape: str) -> None:
    error = _refusal('{"a": "ok",\n "k": ["x' + escape + '"]}')
    assert error.message == "lone surrogate in a string (not Unicode text)"
    assert (error.row, error.field) == ("line 2", "k")


def test_a_lone_surrogate_after_a_comma_in_an_array_is_in_a_string() -> None:
    error = _refusal(r'{"k": ["a", "b",' + "\n" + r' "x\ud800"]}')
    assert error.message == "lone surrogate in a string (not Unicode text)"
    assert (error.row, error.field) == ("line 2", "k")


@pytest.mark.parametrize(("escape", "char"), [(r"\ud800", "\ud800"), (r"\uDFFF", "\udfff")])
def test_a_lone_surrogate_in_a_key_is_refused(escape: str, char: str) -> None:
    error = _refusal('[1,\n {"ok": 1,\n "' + escape + '": 2}]')
    assert error.message == "lone surrogate in a key (not Unicode text)"
    assert (error.row, error.field) == ("line 3", char)


# -- duplicate keys --------------------------------------------------------------------------------
def test_a_duplicate_key_is_named_on_its_second_line() -> None:
    error = _refusal('{\n "a": 1,\n "a": 2\n}')
    assert error.message == "duplicate key in one object"
    assert (error.row, error.field) == ("line 3", "a")


def test_keys_are_duplicates_only_within_one_object() -> None:
    # "a" in two objects, "b" as a value and as a key, keys inside an array of strings: none of
    # them is a duplicate. The one on line 5 is.
    text = '[{"a": 1}, {"a": "b",\n "b": ["c", "c", "c"],\n "c": {"b": 1},\n "d": 1,\n "d": 2}]'
    error = _refusal(text)
    assert (error.row, error.field) == ("line 5", "d")
    assert loads(text.replace('"d": 2', '"e": 2'), SOURCE)[1]["e"] == 2


# -- not JSON --------------------------------------------------------------------------------------
def test_invalid_json_names_the_line_and_column() -> None:
    error = _refusal('{"a": 1,\n "b": }')
    assert error.message == "not valid JSON (line 2, column 7: Expecting value)"
    assert (error.row, error.field) == (None, None)


# -- decoding --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bom", "encoding"),
    [
        (codecs.BOM_UTF32_LE, "UTF-32"),
        (codecs.BOM_UTF32_BE, "UTF-32"),
        (codecs.BOM_UTF16_LE, "UTF-16"),
        (codecs.BOM_UTF16_BE, "UTF-16"),
    ],
)
def test_a_utf16_or_utf32_byte_order_mark_is_refused(bom: bytes, encoding: str) -> None:
    with pytest.raises(InstanceError) as info:
        decode_text(bom + "[]".encode(encoding.lower().replace("-", "")), "t.json")
    assert info.value.message == (
        f"{encoding} text (byte-order mark at byte offset 0); save it as UTF-8"
    )
    assert info.value.source == "t.json"


def test_a_utf8_byte_order_mark_is_dropped() -> None:
    assert decode_text(codecs.BOM_UTF8 + b'{"a": 1}', "t.json") == '{"a": 1}'
    assert decode_text("é\ufeff".encode(), "t.json") == "é\ufeff"  # only a leading one


@pytest.mark.parametrize("offset", [0, 1, 5])
def test_a_nul_byte_is_refused_at_its_offset(offset: int) -> None:
    data = b"abcdef"[:offset] + b"\x00" + b"abcdef"[offset:]
    with pytest.raises(InstanceError) as info:
        decode_text(data, "t.json")
    assert info.value.message == f"binary file, not text (NUL byte at byte offset {offset})"


def test_bytes_that_are_not_utf8_are_refused_at_their_offset() -> None:
    # "é" is two bytes in UTF-8, so the lone 0xff is at offset 3.
    with pytest.raises(InstanceError) as info:
        decode_text("aé".encode() + b"\xff", "t.json")
    assert info.value.message == "not UTF-8 text (byte 0xff at byte offset 3)"
    assert info.value.source == "t.json"


def test_a_file_is_read_and_parsed_naming_its_path(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(codecs.BOM_UTF8 + '{"é": [1, 2]}'.encode())
    assert read_text(path) == '{"é": [1, 2]}'
    assert read_json(path) == {"é": [1, 2]}
    path.write_text('{"a": 1, "a": 2}', encoding="utf-8")
    with pytest.raises(InstanceError) as info:
        read_json(path)
    assert (info.value.source, info.value.field) == (str(path), "a")


def test_a_file_that_cannot_be_read_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.json"
    path.write_text("[]", encoding="utf-8")

    def denied(self: Path) -> bytes:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(InstanceError) as info:
        read_text(path)
    assert (info.value.message, info.value.source) == ("cannot read: Permission denied", str(path))

    def broken(self: Path) -> bytes:
        raise OSError("no reason given")

    monkeypatch.setattr(Path, "read_bytes", broken)
    with pytest.raises(InstanceError) as info:
        read_text(path)
    assert info.value.message == "cannot read: no reason given"
