"""``parse_options``: command-line ``KEY=VALUE`` texts parsed by the type of each option."""

from __future__ import annotations

import pytest

from sjfbsbf.policies.options import OptionError, parse_options


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["wait_aware=true", "retune=FALSE"], {"wait_aware": True, "retune": False}),
        (["threshold=0.05"], {"threshold": 0.05}),
        (["threshold=3"], {"threshold": 3.0}),
        (["max_partners=2"], {"max_partners": 2}),
        (["max_partners=none"], {"max_partners": None}),
        (["sub_batch=full"], {"sub_batch": "full"}),
        (["threshold=1", "threshold=2"], {"threshold": 2.0}),  # the last one wins
        ([" threshold = 0.5 "], {"threshold": 0.5}),
    ],
)
def test_values_are_parsed_by_type(texts: list[str], expected: dict[str, object]) -> None:
    got = parse_options("sjf-bsbf", texts)
    assert got == expected
    assert all(type(got[k]) is type(v) for k, v in expected.items())


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (["nope=1"], "unknown option of policy 'sjf-bsbf' (options: threshold,"),
        (["threshold=nan"], "threshold: must be a number"),
        (["threshold=inf"], "threshold: must be a number"),
        (["max_partners=1.5"], "max_partners: must be an integer"),
        (["max_partners=0"], "max_partners must be at least 1"),
        (["wait_aware=1"], "wait_aware: must be true or false"),
        (["=1"], "expected KEY=VALUE"),
    ],
)
def test_bad_values_are_refused(texts: list[str], message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_options("sjf-bsbf", texts)


def test_a_policy_without_options() -> None:
    assert parse_options("fifo", []) == {}
    with pytest.raises(OptionError, match=r"options: none"):
        parse_options("fifo", ["x=1"])
