"""simulate writes the tick and placement tables too (issue 36: Python had result.ticks and
result.placements, the command line could not export them); two outputs never share a file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import sjfbsbf as sb
from sjfbsbf.cli import app
from sjfbsbf.sim.result import PLACEMENT_COLUMNS

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n8-g4-light-a.json"
runner = CliRunner()


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    floats = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
    return frame.assign(**{c: frame[c].round(6) for c in floats})


def test_ticks_and_placements_are_the_results_tables(tmp_path: Path) -> None:
    ticks, placements = tmp_path / "t.csv", tmp_path / "p.csv"
    args = ["simulate", str(INSTANCE), "-p", "sjf-bsbf", "--ticks-csv", str(ticks)]
    result = runner.invoke(app, [*args, "--placements-csv", str(placements)])
    assert result.exit_code == 0, result.output
    expected = sb.simulate(sb.read_instance(INSTANCE), sb.make_policy("sjf-bsbf"))
    assert expected.placements is not None
    assert f"wrote {ticks} ({len(expected.ticks)} ticks)" in " ".join(result.stdout.split())
    back = pd.read_csv(ticks)
    assert list(back.columns) == list(expected.ticks.columns)
    pd.testing.assert_frame_equal(back, _rounded(expected.ticks), check_dtype=False)
    back = pd.read_csv(placements, dtype={"gpus": str})
    assert list(back.columns) == list(PLACEMENT_COLUMNS)
    want = _rounded(expected.placements)
    assert back["gpus"].tolist() == want["gpus"].astype(str).tolist()  # "0;1" kept as text
    cols = ["job_id", "start", "end", "accumulation"]
    pd.testing.assert_frame_equal(back[cols], want[cols], check_dtype=False)


@pytest.mark.parametrize(
    ("first", "second"), [("--jobs-csv", "--ticks-csv"), ("--ticks-csv", "--placements-csv")]
)
def test_two_outputs_never_share_a_file(tmp_path: Path, first: str, second: str) -> None:
    path = tmp_path / "same.csv"
    args = ["simulate", str(INSTANCE), "-p", "sjf", first, str(path), second]
    result = runner.invoke(app, [*args, str(tmp_path / "." / "same.csv")])
    assert result.exit_code == 2
    assert "is also the file of " + first in " ".join(result.output.split())
    assert not path.exists()
