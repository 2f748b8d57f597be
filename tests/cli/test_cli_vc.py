"""Per-VC tables from the command line: ``simulate --vc-csv`` and ``compare``'s compare-vc.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.fairness import VC_COLUMNS, vc_table
from sjfbsbf.sim.simulator import simulate

runner = CliRunner()


def _instance(vcs: bool) -> Instance:
    names = ["prod", "dev", None, "dev", "prod", "prod"]
    return Instance(
        Cluster(nodes=1, gpus_per_node=2),
        tuple(
            Job(i, 7.0 * i, 1 + i % 2, duration=50.0 + 13 * i, vc=name if vcs else None)
            for i, name in enumerate(names)
        ),
        name="vc-small",
    )


@pytest.fixture
def with_vcs(tmp_path: Path) -> Path:
    path = tmp_path / "vcs.json"
    write_instance(_instance(True), path)
    return path


def test_simulate_writes_one_row_per_vc_equal_to_the_library_table(
    with_vcs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "vc.csv"
    result = runner.invoke(
        app, ["simulate", str(with_vcs), "--policy", "sjf", "--vc-csv", str(out)]
    )
    assert result.exit_code == 0, result.output
    written = pd.read_csv(out, keep_default_na=False)
    assert list(written.columns) == list(VC_COLUMNS)
    assert written["vc"].tolist() == ["", "dev", "prod"]
    expected = vc_table(simulate(_instance(True), make_policy("sjf")).jobs)
    for column in VC_COLUMNS[1:]:
        assert written[column].tolist() == pytest.approx(expected[column].round(6).tolist())
    assert written["jobs"].sum() == 6


def test_simulate_refuses_a_vc_table_of_an_instance_without_vcs(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    write_instance(_instance(False), path)
    out = tmp_path / "vc.csv"
    result = runner.invoke(app, ["simulate", str(path), "-p", "fifo", "--vc-csv", str(out)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "no job names a virtual cluster (field vc)" in result.stderr
    assert str(path) in result.stderr.replace("\n", "")
    assert not out.exists()


def test_compare_writes_a_vc_table_per_policy_only_for_an_instance_with_vcs(
    with_vcs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    args = ["compare", str(with_vcs), "--out", str(out), "--policies", "fifo,sjf-ffs"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "compare-vc.csv", keep_default_na=False)
    assert list(table.columns) == ["policy", *VC_COLUMNS]
    assert list(zip(table["policy"], table["vc"], strict=True)) == [
        (policy, vc) for policy in ("fifo", "sjf-ffs") for vc in ("", "dev", "prod")
    ]
    assert "compare-vc.csv" in result.stdout
    plain = tmp_path / "plain.json"
    write_instance(_instance(False), plain)
    out2 = tmp_path / "results2"
    result = runner.invoke(app, ["compare", str(plain), "--out", str(out2), "--policies", "fifo"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out2.iterdir()) == ["compare.csv", "compare.png"]


def test_compare_prints_the_fairness_table(with_vcs: Path, tmp_path: Path) -> None:
    args = ["compare", str(with_vcs), "--out", str(tmp_path / "r"), "--policies", "fifo,sjf"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Stretch and fairness: vc-small" in result.stdout
    frame = pd.read_csv(tmp_path / "r" / "compare.csv", index_col="policy")
    for key in ("avg_stretch", "p99_stretch", "max_ftf", "ftf_above_1", "jain_stretch"):
        assert frame[key].notna().all()
