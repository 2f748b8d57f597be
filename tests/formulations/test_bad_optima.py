"""A malformed optima file is refused in one line naming the instance and the field (issue 35
item 14: a missing 'instances' or 'file', or a dt of 0, −5 or NaN, were tracebacks)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app

INSTANCES = Path(__file__).resolve().parents[2] / "instances"


def suite(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    shutil.copy(INSTANCES / "n4-g2-all-a.json", folder)
    (folder / "optima.json").write_text(text, encoding="utf-8")
    return folder


def entry(**changes: object) -> str:
    good = json.loads((INSTANCES / "optima.json").read_text())["instances"]["n4-g2-all-a"]
    good.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del good[key]
    return json.dumps({"schema": "sjfbsbf.optima/1", "instances": {"n4-g2-all-a": good}})


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ('{"schema": "sjfbsbf.optima/1"}', ["no 'instances' table"]),
        ('{"schema": "other"}', ["not an optima file"]),
        ("{", ["optima.json"]),
        (entry(file=None), ["instance 'n4-g2-all-a'", "field 'file'"]),
        (entry(file="../x.json"), ["field 'file'", "inside the suite folder"]),
        (entry(dt=0), ["field 'dt'", "positive number of seconds, got 0"]),
        (entry(dt=-5), ["field 'dt'", "got -5"]),
        (entry(dt="NaN"), ["field 'dt'"]),
        (entry(bound=-1.0), ["field 'bound'", "≥ 0"]),
        (entry(schedule=[{"job_id": 0}]), ["field 'schedule[0]'"]),
    ],
)
def test_a_bad_optima_file_is_one_line(tmp_path: Path, text: str, fragments: list[str]) -> None:
    folder = suite(tmp_path, text)
    result = CliRunner().invoke(app, ["gap", "--suite", str(folder)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"sjfbsbf: error: {folder / 'optima.json'}")
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
