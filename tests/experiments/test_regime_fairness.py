"""Stretch and ρ beside JCT on a regime map's planes (sjfbsbf.experiments.regime_fairness), and
``sjfbsbf figs`` on a results folder written before those metrics existed (results schema 1)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.experiments.regime_fairness import (
    PLANE_METRICS,
    fairness_markdown,
    gain_cells,
    has_fairness,
    plane_means,
)
from sjfbsbf.experiments.regimes import MAP_RATIOS, is_regime_sweep, sweep_cells
from sjfbsbf.experiments.sweep import load_sweep, run_sweep
from sjfbsbf.sim.metrics import FAIRNESS_METRICS

TINY = """\
name = "tiny-sharing"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 10
nodes = 1
gpus_per_node = 4
rate_factor = [1.0, 2.0]
mix = ["light", "heavy"]

[sim]
dt = 10.0
interference = ["time-slicing", "mps"]

[[variants]]
policy = "sjf-ffs"

[[variants]]
policy = "sjf-bsbf"

[[variants]]
policy = "gandiva"

[[variants]]
policy = "lucid"

[[variants]]
policy = "sjf"

[[variants]]
policy = "fifo"
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    root = tmp_path_factory.mktemp("fair")
    path = root / "tiny.toml"
    path.write_text(TINY, encoding="utf-8")
    out = root / "results"
    return out, run_sweep(load_sweep(path), out)


def test_the_map_has_the_two_sharing_schedulers(sweep: tuple[Path, pd.DataFrame]) -> None:
    _, table = sweep
    assert ("sjf-bsbf", "gandiva") in MAP_RATIOS and ("sjf-bsbf", "lucid") in MAP_RATIOS
    assert is_regime_sweep(table) and has_fairness(table)
    ratios = set(sweep_cells(table)["ratio"])
    assert ratios == {
        "sjf-bsbf / sjf-ffs",
        "sjf-bsbf / sjf",
        "sjf-bsbf / gandiva",
        "sjf-bsbf / lucid",
    }


def test_plane_means_are_the_seed_means_of_each_metric(sweep: tuple[Path, pd.DataFrame]) -> None:
    _, table = sweep
    means = plane_means(table, "sim_interference")
    assert set(means["label"]) == {"sjf-ffs", "sjf-bsbf", "gandiva", "lucid"}
    assert len(means) == 2 * 2 * 4 * 2  # mixes × interference × policies × loads
    row = means.iloc[7]
    runs = table[
        (table["wl_mix"] == row["wl_mix"])
        & (table["sim_interference"] == row["sim_interference"])
        & (table["label"] == row["label"])
        & (table["wl_rate_factor"] == row["wl_rate_factor"])
    ]
    assert len(runs) == 2
    for metric in PLANE_METRICS:
        assert row[metric] == pytest.approx(runs[metric].mean())


def test_figs_writes_the_fairness_tables(sweep: tuple[Path, pd.DataFrame], tmp_path: Path) -> None:
    out, table = sweep
    done = CliRunner().invoke(app, ["figs", "--results", str(out), "--out", str(tmp_path)])
    assert done.exit_code == 0, done.output
    text = (tmp_path / "tiny-sharing-fairness.md").read_text(encoding="utf-8")
    assert text == fairness_markdown(table)
    assert "### load × interference: seed means" in text
    assert "max ρ, mix heavy:" in text and "### Ratios of average stretch" in text
    assert "sjf-bsbf / gandiva" in text
    assert "### What sharing adds over the scheduler's own queue order" in text
    assert "gandiva / fifo" in text and "lucid / sjf" in text


def test_gain_cells_pair_each_sharing_scheduler_with_its_queue_order(
    sweep: tuple[Path, pd.DataFrame],
) -> None:
    _, table = sweep
    cells = gain_cells(table)
    assert list(dict.fromkeys(cells["ratio"])) == [
        "sjf-bsbf / sjf",
        "sjf-ffs / sjf",
        "lucid / sjf",
        "gandiva / fifo",
    ]
    one = cells[cells["ratio"] == "gandiva / fifo"].iloc[3]
    rows = table[
        (table["wl_mix"] == one["wl_mix"])
        & (table["sim_interference"] == one["sim_interference"])
        & (table["wl_rate_factor"] == one["wl_rate_factor"])
    ]
    means = rows.groupby("label")["avg_jct"].mean()
    assert one["value"] == pytest.approx(means["gandiva"] / means["fifo"])


def test_figs_reads_a_folder_without_the_fairness_metrics(
    sweep: tuple[Path, pd.DataFrame], tmp_path: Path
) -> None:
    """A folder of results schema 1: the results table without the fairness metrics and the
    per-job tables without the columns schema 2 added. figs draws what it drew before and no
    fairness tables."""
    out, _ = sweep
    old = tmp_path / "old"
    old.mkdir()
    table = pd.read_parquet(out / "results.parquet").drop(columns=list(FAIRNESS_METRICS))
    table.to_parquet(old / "results.parquet")
    table.to_csv(old / "results.csv", index=False)
    (old / "runs").mkdir()
    added = ["vc", "user", "stretch", "contention", "ftf"]
    for jobs in (out / "runs").glob("*.jobs.parquet"):
        pd.read_parquet(jobs).drop(columns=added).to_parquet(old / "runs" / jobs.name)
    for other in (out / "runs").glob("*.utilisation.parquet"):
        (old / "runs" / other.name).write_bytes(other.read_bytes())
    for name in ("manifest.json",):
        (old / name).write_bytes((out / name).read_bytes())
    figs = tmp_path / "figs"
    done = CliRunner().invoke(app, ["figs", "--results", str(old), "--out", str(figs)])
    assert done.exit_code == 0, done.output
    assert (figs / "tiny-sharing-regimes.md").exists()
    assert not (figs / "tiny-sharing-fairness.md").exists()


def test_figs_writes_a_per_vc_table_for_a_trace_with_vcs(tmp_path: Path) -> None:
    """A table trace whose jobs name two VCs (and one none): figs writes, per level and policy,
    the per-VC table of every seed's jobs, equal to vc_table over the runs' per-job tables."""
    from sjfbsbf.experiments.sweep_details import read_run_jobs
    from sjfbsbf.sim.fairness import VC_COLUMNS, vc_table

    trace = tmp_path / "jobs.csv"
    rows = [f"{10 * i},{1 + i % 2},{60 + 17 * i},{['a', 'b', ''][i % 3]}" for i in range(12)]
    trace.write_text("submit_time,num_gpus,duration,vc\n" + "\n".join(rows) + "\n")
    spec = tmp_path / "vc.toml"
    spec.write_text(
        f'name = "vcs"\nseeds = [0, 1]\n[[workloads]]\nkind = "table"\npath = "{trace}"\n'
        'nodes = 1\ngpus_per_node = 2\n[[variants]]\npolicy = "fifo"\n'
        '[[variants]]\npolicy = "lucid"\n',
        encoding="utf-8",
    )
    out = tmp_path / "results"
    table = run_sweep(load_sweep(spec), out)
    figs = tmp_path / "figs"
    done = CliRunner().invoke(app, ["figs", "--results", str(out), "--out", str(figs)])
    assert done.exit_code == 0, done.output
    written = pd.read_csv(figs / "vcs-vc.csv", keep_default_na=False)
    assert list(written.columns) == ["level", "policy", *VC_COLUMNS]
    assert written["policy"].tolist() == ["fifo"] * 3 + ["lucid"] * 3
    assert written["vc"].tolist() == ["", "a", "b"] * 2
    fifo = table[table["label"] == "fifo"]
    jobs = pd.concat([read_run_jobs(out, key) for key in fifo["key"]], ignore_index=True)
    expected = vc_table(jobs)
    assert written["jobs"].tolist()[:3] == expected["jobs"].tolist() == [8, 8, 8]
    assert written["avg_jct"].tolist()[:3] == pytest.approx(expected["avg_jct"].round(6).tolist())
