"""A sweep's grid is counted before it is expanded (docs/security.md; issue 35 item 7): a small
file of huge lists is refused at once, naming the count and --max-runs; at the cap it loads."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments.sweep import load_sweep

HEAD = """\
name = "grid"
seeds = [0]

[[workloads]]
kind = "default"
n_jobs = 4
nodes = 1
gpus_per_node = 2

[[variants]]
policy = "fifo"
"""


def write(tmp_path: Path, sim: str) -> Path:
    path = tmp_path / "g.toml"
    path.write_text(HEAD + "\n[sim]\n" + sim + "\n", encoding="utf-8")
    return path


def test_a_billion_run_grid_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    values = "[" + ", ".join(str(1 + i) for i in range(1000)) + "]"
    path = write(tmp_path, f"dt = {values}\ninterval = {values}\nrestart_overhead = {values}")
    assert path.stat().st_size < 30_000
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o")])
    assert time.perf_counter() - started < 30
    assert result.exit_code == 1
    assert "expands to 1,000,000,000 runs, more than the limit of 100,000" in result.stderr
    assert "--max-runs" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("runs", "cap", "refused"), [(4, 3, True), (4, 4, False), (4, 5, False)])
def test_the_cap_at_and_beside_its_boundary(
    tmp_path: Path, runs: int, cap: int, refused: bool
) -> None:
    path = write(tmp_path, "dt = " + str([1.0 + i for i in range(runs)]))
    if refused:
        with pytest.raises(SweepError, match=f"expands to {runs} runs, more than the limit of"):
            load_sweep(path, max_runs=cap)
    else:
        assert len(load_sweep(path, max_runs=cap).runs) == runs


def test_the_total_over_workloads_seeds_and_variants_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(HEAD.replace("seeds = [0]", "seeds = [0, 1, 2]"), encoding="utf-8")
    with pytest.raises(SweepError, match="expands to 3 runs"):
        load_sweep(path, max_runs=2)
    result = CliRunner().invoke(app, ["sweep", str(path), "--max-runs", "2"])
    assert result.exit_code == 1 and "expands to 3 runs" in result.stderr
