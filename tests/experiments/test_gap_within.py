"""A gap's low end that is negative only by the replay tolerance is shown as 0.00%, with a note
(issue 36: ``solve --solver bounds`` showed "-0.01%" for a non-preemptive policy)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.experiments.gap_report import (
    WITHIN_NOTE,
    WITHIN_TOLERANCE,
    format_low,
    within_tolerance,
)

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n4-g2-all-a.json"


@pytest.mark.parametrize(
    ("low", "avg", "best", "tol", "within"),
    [
        (-1e-4, 100.0, 100.01, 0.032, True),  # J below U by less than tol
        (-1e-4, 100.0, 100.0 + 0.032, 0.032, True),  # exactly tol: within
        (-1e-3, 100.0, 100.0 + 0.0321, 0.032, False),  # just beyond tol: shown as it is
        (0.0, 100.0, 100.0, 0.032, False),  # not negative: shown as it is
        (-0.05, 95.0, 100.0, 0.032, False),  # a preemptive policy truly below U
        (-1e-4, 100.0, math.nan, 0.032, False),  # U unknown
    ],
)
def test_within_the_tolerance(
    low: float, avg: float, best: float, tol: float, within: bool
) -> None:
    assert within_tolerance(low, avg, best, tol) is within
    shown = format_low(low, avg, best, tol)
    assert (shown == WITHIN_TOLERANCE) is within
    if not within:
        assert shown.startswith(("+", "-"))


def test_solve_shows_0_and_says_why() -> None:
    command = ["solve", str(INSTANCE), "--solver", "bounds"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "-0.00%" not in text and "-0.01%" not in text
    assert " 0.00% " in text
    assert " ".join(WITHIN_NOTE.split()) in " ".join(text.split())
