"""A kept run is reused only if its tables are whole (issue 35 item 16): a truncated per-job
table, or one with another row count than the record's, makes the run run again, with a warning
naming it (a truncated table used to be reused silently)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from sjfbsbf.cli import app

SWEEP = """\
name = "reuse"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 6
nodes = 1
gpus_per_node = 2

[[variants]]
policy = "sjf"
"""


def test_a_damaged_run_table_is_run_again(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(app, ["sweep", str(sweep), "--out", str(out)]).exit_code == 0
    tables = sorted((out / "runs").glob("*.jobs.parquet"))
    truncated, shorter = tables
    truncated.write_bytes(truncated.read_bytes()[:50])
    pd.read_parquet(shorter).iloc[:3].to_parquet(shorter, index=False)  # readable, 3 rows of 6
    again = runner.invoke(app, ["sweep", str(sweep), "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert f"{truncated.with_suffix('').with_suffix('.json').name}" in again.stderr
    assert "unreadable" in again.stderr and "has 3 rows, the record 6 jobs" in again.stderr
    assert "2 runs: 2 new, 0 kept, in" in " ".join(again.stdout.split())  # both ran again
    for table in tables:
        assert len(pd.read_parquet(table)) == 6  # rewritten whole
    quiet = runner.invoke(app, ["sweep", str(sweep), "--out", str(out)])
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr


def test_the_last_line_counts_new_and_kept_runs(tmp_path: Path) -> None:
    """issue 36: a rerun that computed nothing said "2 runs in ...", as a fresh one did."""
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "out"
    runner = CliRunner()

    def last_line() -> str:
        result = runner.invoke(app, ["sweep", str(sweep), "--out", str(out)])
        assert result.exit_code == 0, result.output
        return " ".join(result.stdout.split())

    assert "2 runs: 2 new, 0 kept, in" in last_line()
    assert "2 runs: 0 new, 2 kept, in" in last_line()
    next((out / "runs").glob("*.json")).unlink()  # one record lost: run again
    assert "2 runs: 1 new, 1 kept, in" in last_line()
