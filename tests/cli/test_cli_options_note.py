"""compare says which policies an option without a POLICY: prefix went to (issue 36)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sjfbsbf.cli import app

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n4-g2-all-a.json"


def _compare(tmp_path: Path, *args: str) -> str:
    command = ["compare", str(INSTANCE), "--out", str(tmp_path / "o"), *args]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_an_unprefixed_option_names_the_policies_it_went_to(tmp_path: Path) -> None:
    out = _compare(
        tmp_path, "--policies", "fifo,sjf-bsbf,sjf-bsbf-plus", "-o", "threshold=0.05",
        "-o", "sjf-bsbf:wait_aware=true",
    )  # fmt: skip
    lines = out.splitlines()
    expected = "-o threshold=0.05 applies to sjf-bsbf, sjf-bsbf-plus (not fifo: no such option)"
    assert lines[0] == expected
    assert not any("wait_aware" in line for line in lines)  # prefixed: no note


def test_every_policy_taking_it_is_named_without_exceptions(tmp_path: Path) -> None:
    out = _compare(tmp_path, "--policies", "sjf-bsbf,sjf-bsbf-plus", "-o", "max_partners=1")
    assert out.splitlines()[0] == "-o max_partners=1 applies to sjf-bsbf, sjf-bsbf-plus"


def test_one_policy_needs_no_note(tmp_path: Path) -> None:
    out = _compare(tmp_path, "--policies", "sjf-bsbf", "-o", "threshold=0.05")
    assert "applies to" not in out
