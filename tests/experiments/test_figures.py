"""``sjfbsbf figs`` and sjfbsbf.experiments.figures: figures from results folders alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.experiments.figures import bootstrap_ci, ordered, read_results, summary
from sjfbsbf.experiments.sweep import load_sweep, run_sweep
from sjfbsbf.experiments.tables import tables_markdown

SMOKE = Path(__file__).resolve().parents[2] / "experiments" / "smoke.toml"
SUITE = Path(__file__).resolve().parents[2] / "instances"


def test_bootstrap_interval_is_deterministic_and_holds_the_mean() -> None:
    values = [10.0, 12.0, 9.0, 15.0, 11.0]
    mean, low, high = bootstrap_ci(values)
    assert mean == pytest.approx(np.mean(values))
    assert min(values) <= low < mean < high <= max(values)
    assert bootstrap_ci(values) == (mean, low, high)  # fixed seed
    assert bootstrap_ci([7.0, 7.0, 7.0]) == (7.0, 7.0, 7.0)
    assert bootstrap_ci([3.0]) == (3.0, 3.0, 3.0)


def test_policies_are_ordered_with_variants_after_their_policy() -> None:
    labels = ["zeta", "sjf-bsbf/retune", "sjf", "sjf-bsbf", "fifo", "sjf"]
    assert ordered(labels) == ["fifo", "sjf", "sjf-bsbf", "sjf-bsbf/retune", "zeta"]


def test_smoke_sweep_and_every_figure(tmp_path: Path) -> None:
    """experiments/smoke.toml (≥ 12 runs, seconds), then ``figs`` over it and a gap table:
    PNG and PDF of each figure; the summary's means are the per-label means of the table."""
    sweep = load_sweep(SMOKE)
    assert len(sweep.runs) >= 12
    out = tmp_path / "smoke"
    table = run_sweep(sweep, out)
    assert len(table) == len(sweep.runs)
    gap = tmp_path / "gap.csv"
    done = CliRunner().invoke(app, ["gap", "--suite", str(SUITE), "--out", str(gap)])
    assert done.exit_code == 0, done.output
    figs = tmp_path / "figs"
    done = CliRunner().invoke(
        app, ["figs", "--results", str(out), "--gaps", str(gap), "--out", str(figs)]
    )
    assert done.exit_code == 0, done.output
    stems = ["smoke-avg_jct", "smoke-jct_vs_load", "smoke-jct_cdf", "smoke-normalized_jct"]
    stems += ["smoke-load_sweep", "gap"]  # gap.csv's figure (was gap-gaps)
    for level in ("rate-factor-1", "rate-factor-2"):  # one file per load level, none dropped
        stems += [f"smoke-utilisation-{level}", f"smoke-choices-{level}"]
    for stem in stems:
        assert (figs / f"{stem}.png").read_bytes()[:4] == b"\x89PNG", stem
        assert (figs / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-", stem
    results = read_results(out)
    markdown = tables_markdown(results.drop(columns="results_dir"))
    assert (figs / "smoke-tables.md").read_text(encoding="utf-8") == markdown + "\n"
    assert "sjf-bsbf / tiresias" in markdown
    scripts = Path(__file__).resolve().parents[2] / "paper_figs"
    printed = subprocess.run(
        [sys.executable, str(scripts / "jct_tables.py"), str(out)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert printed == markdown + "\n"  # the thin script prints the same table
    for script, name in (("fig_load_sweep.py", "load.png"), ("fig_normalized_jct.py", "n.pdf")):
        subprocess.run(
            [sys.executable, str(scripts / script), str(out), "--out", str(tmp_path / name)],
            capture_output=True,
            check=True,
            timeout=120,
        )
        assert (tmp_path / name).stat().st_size > 1000
    means = summary(results, ["label", "wl_rate_factor"]).set_index(["label", "wl_rate_factor"])
    expected = results.groupby(["label", "wl_rate_factor"])["avg_jct"].mean()
    assert means["mean"].to_numpy() == pytest.approx(expected.loc[means.index].to_numpy())
    assert (means["low"] <= means["mean"]).all() and (means["mean"] <= means["high"]).all()
    assert set(means["seeds"]) == {3}


def test_figs_refuses_missing_inputs_in_one_line(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["figs", "--results", str(tmp_path / "nothing")])
    assert done.exit_code == 1 and "results.parquet" in done.output
    assert len(done.output.strip().splitlines()) == 1
    done = CliRunner().invoke(app, ["figs", "--gaps", str(tmp_path / "gap.txt")])
    assert done.exit_code == 1
    assert CliRunner().invoke(app, ["figs"]).exit_code == 2


def test_markdown_names_grouped_columns_plainly() -> None:
    """Two varying groups give tuple column names: the header joins their parts, no tuples."""
    import pandas as pd

    from sjfbsbf.experiments.tables import markdown

    frame = pd.DataFrame({("label", ""): ["sjf"], (12.0, 30): [1709.0], (48.0, 61): [0.5]})
    lines = markdown(frame, index=False).splitlines()
    assert lines[0] == "| label | 12.0, 30 | 48.0, 61 |"
    assert lines[2] == "| sjf | 1,709 | 0.500 |"
