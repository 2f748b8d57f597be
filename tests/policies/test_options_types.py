"""Policy options by type (:mod:`sjfbsbf.policies.options`): a bool is never an integer or a
number, an integer is a number but not a bool, a number is finite, lists hold one type.

A probe policy registered for these tests has one option of each kind a signature can declare;
``check_options`` (a sweep file's TOML values) and ``parse_options`` (``-o KEY=VALUE``) are
checked on each, with the canonical value and the exact message of each refusal.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from sjfbsbf.policies import make_policy, registry
from sjfbsbf.policies.options import (
    OptionError,
    _conform,
    _describe,
    _parse,
    check_options,
    parse_options,
)

PROBE = "options-probe"


def _probe(
    count: int,
    flag: bool = False,
    rate: float = 0.5,
    label: str = "a",
    limit: int | None = None,
    share: float | None = None,
    weights: list[float] | None = None,
    ids: tuple[int, ...] = (),
    pair: tuple[int, int] = (0, 0),
    choice: int | str = 0,
    anything=None,  # unannotated: any value
) -> Any:
    if count < 0:
        raise ValueError("count must be at least 0")
    if label == "type-error":
        raise TypeError("label cannot be 'type-error'")
    return make_policy("fifo")


@pytest.fixture
def probe() -> Iterator[str]:
    registry.register(PROBE, _probe, needs_options=True, default=False)
    try:
        yield PROBE
    finally:
        registry._REGISTRY.pop(PROBE, None)
        registry._REPLAY_ONLY.discard(PROBE)
        registry._NOT_DEFAULT.discard(PROBE)


def _refused(call: Any, *args: Any) -> OptionError:
    with pytest.raises(OptionError) as info:
        call(*args)
    return info.value


# -- check_options: TOML values ---------------------------------------------------------------
def test_values_of_every_type_are_kept_in_their_canonical_form(probe: str) -> None:
    given = {
        "weights": [1, 2.5],
        "rate": 2,
        "count": 3,
        "flag": True,
        "label": "b",
        "limit": 4,
        "share": 1,
        "ids": [4, 5],
        "choice": "x",
        "anything": {"k": [1]},
    }
    got = check_options(probe, given)
    assert got == given | {"rate": 2.0, "share": 1.0, "weights": [1.0, 2.5]}
    assert type(got["rate"]) is float and type(got["share"]) is float
    assert [type(w) for w in got["weights"]] == [float, float]
    assert type(got["count"]) is int and type(got["limit"]) is int
    assert list(got) == sorted(given)  # canonical: sorted by key


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("flag", 1, "must be true or false, got 1"),
        ("flag", 0, "must be true or false, got 0"),
        ("flag", "true", "must be true or false, got 'true'"),
        ("count", True, "must be an integer, got True"),
        ("count", False, "must be an integer, got False"),
        ("count", 1.0, "must be an integer, got 1.0"),
        ("rate", True, "must be a number, got True"),
        ("rate", "1", "must be a number, got '1'"),
        ("rate", math.inf, "must be a number, got inf"),
        ("rate", -math.inf, "must be a number, got -inf"),
        ("rate", math.nan, "must be a number, got nan"),
        ("label", 1, "must be a string, got 1"),
        ("limit", True, "must be an integer, got True"),
        ("limit", 2.5, "must be an integer, got 2.5"),
        ("share", False, "must be a number, got False"),
        ("weights", [1, True], "must be a list of a number, got [1, True]"),
        ("weights", 1.0, "must be a list of a number, got 1.0"),
        ("ids", [1, 2.0], "must be a list of an integer, got [1, 2.0]"),
        ("ids", [True], "must be a list of an integer, got [True]"),
        # a fixed-length tuple cannot be written in a sweep file: no list fits it
        ("pair", [1, 2], "must be a list of an integer, got [1, 2]"),
        ("choice", 1.5, "must be an integer or a string, got 1.5"),
        ("choice", False, "must be an integer or a string, got False"),
    ],
)
def test_a_value_of_another_type_is_refused(
    probe: str, key: str, value: Any, expected: str
) -> None:
    error = _refused(check_options, probe, {"count": 0, key: value})
    assert (error.key, error.reason) == (key, expected)
    assert str(error) == f"{key}: {expected}"


def test_an_integer_counts_as_a_number_and_a_bool_as_nothing_else(probe: str) -> None:
    assert check_options(probe, {"count": 0, "flag": False})["flag"] is False
    assert check_options(probe, {"count": 0, "rate": 0})["rate"] == 0.0
    assert check_options(probe, {"count": 0, "choice": 7})["choice"] == 7
    assert check_options(probe, {"count": 0, "weights": []})["weights"] == []


def test_an_unknown_option_lists_the_known_ones(probe: str) -> None:
    error = _refused(check_options, probe, {"count": 0, "rat": 1.0})
    known = "count, flag, rate, label, limit, share, weights, ids, pair, choice, anything"
    assert (error.key, error.reason) == (
        "rat",
        f"unknown option of policy {PROBE!r} (options: {known})",
    )
    none = _refused(check_options, "fifo", {"x": 1})
    assert none.reason == "unknown option of policy 'fifo' (options: none)"


def test_a_missing_required_option_is_refused(probe: str) -> None:
    error = _refused(check_options, probe, {"flag": True})
    assert (error.key, error.reason) == (None, f"policy {PROBE!r} needs option 'count'")
    assert str(error) == f"policy {PROBE!r} needs option 'count'"


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"count": -1}, "count must be at least 0"),
        ({"count": 0, "label": "type-error"}, "label cannot be 'type-error'"),
    ],
)
def test_a_value_the_policy_refuses_is_an_option_error(
    probe: str, options: dict[str, Any], reason: str
) -> None:
    error = _refused(check_options, probe, options)
    assert (error.key, error.reason) == (None, reason)
    error = _refused(parse_options, probe, [f"{k}={v}" for k, v in options.items()])
    assert (error.key, error.reason) == (None, reason)


def test_a_real_policys_options_are_checked_by_its_constructors_annotations() -> None:
    got = check_options("sjf-bsbf", {"threshold": 1, "max_partners": 2, "retune": True})
    assert got == {"max_partners": 2, "retune": True, "threshold": 1.0}
    assert type(got["threshold"]) is float
    error = _refused(check_options, "sjf-bsbf", {"max_partners": True})
    assert error.reason == "must be an integer, got True"


def test_unresolvable_annotations_leave_the_checks_to_the_policy() -> None:
    def odd(size: NoSuchType = 1) -> Any:  # type: ignore[name-defined]  # noqa: F821
        return make_policy("fifo")

    registry.register("options-odd", odd, needs_options=True, default=False)
    try:
        assert check_options("options-odd", {"size": "anything"}) == {"size": "anything"}
        assert parse_options("options-odd", ["size=2"]) == {"size": "2"}
    finally:
        registry._REGISTRY.pop("options-odd", None)
        registry._REPLAY_ONLY.discard("options-odd")
        registry._NOT_DEFAULT.discard("options-odd")


# -- parse_options: command-line texts -------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("flag=true", "flag", True),
        ("flag=TRUE", "flag", True),
        ("flag=False", "flag", False),
        ("count=3", "count", 3),
        ("limit=-2", "limit", -2),
        ("rate=3", "rate", 3.0),
        ("rate=1e3", "rate", 1000.0),
        ("rate=-0.25", "rate", -0.25),
        ("label=b=c", "label", "b=c"),
        ("label= spaced ", "label", "spaced"),
        ("limit=none", "limit", None),
        ("limit=NULL", "limit", None),
        ("limit=7", "limit", 7),
        ("share=2", "share", 2.0),
        ("share=None", "share", None),
        ("choice=5", "choice", 5),
        ("choice=none", "choice", "none"),
        ("choice=x", "choice", "x"),
        ("anything=1", "anything", "1"),
    ],
)
def test_a_text_is_parsed_by_its_options_type(probe: str, text: str, key: str, value: Any) -> None:
    got = parse_options(probe, ["count=0", text])
    assert got[key] == value and type(got[key]) is type(value)


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ("flag=1", "flag", "must be true or false, got '1'"),
        ("flag=0", "flag", "must be true or false, got '0'"),
        ("flag=yes", "flag", "must be true or false, got 'yes'"),
        ("count=true", "count", "must be an integer, got 'true'"),
        ("count=1.5", "count", "must be an integer, got '1.5'"),
        ("count=1e3", "count", "must be an integer, got '1e3'"),
        ("count= x ", "count", "must be an integer, got ' x '"),
        ("rate=nan", "rate", "must be a number, got 'nan'"),
        ("rate=inf", "rate", "must be a number, got 'inf'"),
        ("rate=-inf", "rate", "must be a number, got '-inf'"),
        ("rate=true", "rate", "must be a number, got 'true'"),
        ("limit=2.5", "limit", "must be an integer, got '2.5'"),
        ("limit=", "limit", "must be an integer, got ''"),
        ("share=inf", "share", "must be a number, got 'inf'"),
        ("count=none", "count", "must be an integer, got 'none'"),
        ("weights=1", "weights", "must be a list of a number, got '1'"),
    ],
)
def test_a_text_its_type_cannot_parse_is_refused(
    probe: str, text: str, key: str, expected: str
) -> None:
    error = _refused(parse_options, probe, ["count=0", text])
    assert (error.key, error.reason) == (key, expected)


@pytest.mark.parametrize("text", ["count", "=1", " =1", ""])
def test_a_text_that_is_not_key_equals_value_is_refused(probe: str, text: str) -> None:
    error = _refused(parse_options, probe, [text])
    assert (error.key, error.reason) == (None, f"expected KEY=VALUE, got {text!r}")


def test_parse_refuses_unknown_options_and_keeps_the_last_of_a_key(probe: str) -> None:
    assert parse_options(probe, ["count=1", " count = 2 "]) == {"count": 2}
    error = _refused(parse_options, probe, ["counts=1"])
    assert error.key == "counts" and error.reason.startswith(
        f"unknown option of policy {PROBE!r} (options: count, flag, rate,"
    )
    assert _refused(parse_options, "fifo", ["x=1"]).reason.endswith("(options: none)")


# -- the type rules themselves ---------------------------------------------------------------------
def test_a_list_without_an_element_type_takes_anything() -> None:
    assert _conform(typing.List, [1, "a"]) == (True, [1, "a"])  # noqa: UP006
    assert _conform(list[int], [1, 2]) == (True, [1, 2])
    assert _conform(tuple[int, int, int], [1, 2, 3])[0] is False
    assert _conform(tuple[int], [1])[0] is False
    assert _conform(dict[str, int], {"a": 1})[0] is False
    assert _conform(list[int], (1, 2))[0] is False
    assert _parse(dict[str, int], "a") == (False, "a")


def test_the_description_of_each_type() -> None:
    assert _describe(bool) == "true or false"
    assert _describe(int | None) == "an integer"
    assert _describe(float | str | None) == "a number or a string"
    assert _describe(list[int]) == "a list of an integer"
    assert _describe(tuple[float, ...]) == "a list of a number"
    assert _describe("Foo") == "a Foo (not possible in a sweep file)"  # an unresolved name
    assert _describe(typing.Literal["a"]) == "a Literal (not possible in a sweep file)"
    assert _describe(dict) == "a dict (not possible in a sweep file)"
