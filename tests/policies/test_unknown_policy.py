"""An unknown policy name is refused with the closest registered name, if one is close (issue 36:
a mistyped policy got the whole list, while a mistyped flag already got "did you mean")."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import sjfbsbf as sb
from sjfbsbf.cli import app
from sjfbsbf.policies.registry import unknown_policy

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n4-g2-all-a.json"


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("tiresia", "tiresias"), ("sjf-bsbff", "sjf-bsbf"), ("SJF", "sjf"), ("fifoo", "fifo")],
)
def test_a_near_miss_names_the_policy_meant(typed: str, meant: str) -> None:
    with pytest.raises(ValueError) as caught:
        sb.make_policy(typed)
    message = str(caught.value)
    assert message.startswith(f"unknown policy {typed!r}; did you mean {meant!r}? (registered: ")
    assert "fifo, sjf, srtf, tiresias" in message


def test_a_far_name_gets_only_the_list() -> None:
    assert unknown_policy("zzz", ["fifo", "sjf"]) == "unknown policy 'zzz' (registered: fifo, sjf)"
    # the closest of several, one only
    assert unknown_policy("sjf-bsb", ["sjf", "sjf-bsbf", "sjf-bsbf-plus"]).startswith(
        "unknown policy 'sjf-bsb'; did you mean 'sjf-bsbf'? "
    )


def test_the_cli_says_it_in_one_line() -> None:
    result = CliRunner().invoke(app, ["simulate", str(INSTANCE), "--policy", "sjf-bsbff"])
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert "unknown policy 'sjf-bsbff'; did you mean 'sjf-bsbf'? (registered: fifo," in line
