"""figs reads every input before it writes a figure (issue 35 item 15): a truncated run table is
one line naming it, and the output folder gets nothing (it used to get some figures, then an
ArrowInvalid traceback)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sjfbsbf.cli import app

SWEEP = """\
name = "tiny"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 6
nodes = 1
gpus_per_node = 2

[[variants]]
policy = "fifo"

[[variants]]
policy = "sjf"
"""


def test_a_truncated_run_table_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP, encoding="utf-8")
    results = tmp_path / "results"
    runner = CliRunner()
    assert runner.invoke(app, ["sweep", str(sweep), "--out", str(results)]).exit_code == 0
    table = sorted((results / "runs").glob("*.jobs.parquet"))[-1]
    table.write_bytes(table.read_bytes()[:40])
    out = tmp_path / "figs"
    result = runner.invoke(app, ["figs", "--results", str(results), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert str(table) in result.stderr and "not a readable run table" in result.stderr
    assert list(out.iterdir()) == []  # no figure, no leftover temporary folder
    good = runner.invoke(app, ["figs", "--results", str(results), "--out", str(tmp_path / "f2")])
    assert good.exit_code == 1  # still refused: the table stays corrupt until rewritten


def test_a_folder_without_results_or_a_missing_gap_table_is_a_prefixed_line(
    tmp_path: Path,
) -> None:
    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["figs", "--results", str(empty), "--out", str(tmp_path / "f")])
    assert result.exit_code == 1
    line = " ".join(result.output.split())
    assert line.startswith(f"sjfbsbf: error: {empty / 'results.parquet'}: no results table")
    missing = tmp_path / "gaps.csv"
    result = runner.invoke(app, ["figs", "--gaps", str(missing), "--out", str(tmp_path / "f")])
    assert result.exit_code == 1
    assert " ".join(result.output.split()).startswith(f"sjfbsbf: error: {missing}: no gap table")
    assert not (tmp_path / "f").exists()
