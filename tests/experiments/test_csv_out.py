"""User-facing CSVs at 6 decimals (issue 36: ``239.60999999999999`` in --jobs-csv)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.experiments.csv_out import CSV_DECIMALS, csv_text

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "n8-g4-light-a.json"


def test_floats_are_rounded_and_the_rest_kept() -> None:
    noisy = 239.60999999999999
    assert repr(noisy) == "239.60999999999999"  # a float whose full text shows the noise
    frame = pd.DataFrame(
        {"t": [noisy, 0.1 + 0.2, np.nan, 1e-7, 6e-7], "n": [1, 2, 3, 4, 5], "s": list("abcde")}
    )
    text = csv_text(frame)
    assert text.splitlines() == [
        "t,n,s", "239.61,1,a", "0.3,2,b", ",3,c", "0.0,4,d", "1e-06,5,e",
    ]  # fmt: skip
    back = pd.read_csv(io.StringIO(text))
    assert back["t"].tolist()[:2] == [round(noisy, 6), round(0.1 + 0.2, 6)]
    assert frame["t"].tolist()[0] == noisy  # the frame itself is not changed
    assert CSV_DECIMALS == 6


def test_the_index_is_written_when_asked() -> None:
    frame = pd.DataFrame({"x": [1 / 3]}, index=pd.Index(["sjf"], name="policy"))
    assert csv_text(frame, index=True).splitlines() == ["policy,x", "sjf,0.333333"]
    assert csv_text(frame).splitlines() == ["x", "0.333333"]


def test_the_jobs_csv_has_no_float_noise(tmp_path: Path) -> None:
    out = tmp_path / "jobs.csv"
    command = ["simulate", str(INSTANCE), "--policy", "sjf-bsbf", "--jobs-csv", str(out)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    decimals = re.findall(r"\d+\.(\d+)", out.read_text(encoding="utf-8"))
    assert decimals and max(len(d) for d in decimals) <= CSV_DECIMALS
