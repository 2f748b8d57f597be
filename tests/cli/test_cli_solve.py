"""``sjfbsbf solve`` and ``sjfbsbf gap`` (docs/formulations.md §2.8), and the core staying free of
solver packages.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from offline_cases import SUITE, tiny
from typer.testing import CliRunner

from formulations.offline.suite import OPTIMA_FILE
from sjfbsbf.cli import app
from sjfbsbf.core.instance_io import write_instance


# -- layering and the command line ---------------------------------------------------------------
def test_core_never_imports_solvers() -> None:
    code = (
        "import sys, sjfbsbf, sjfbsbf.policies, sjfbsbf.sim.simulator, sjfbsbf.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pulp', 'ortools', 'highspy')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("dt", ["60", "120"])
def test_cli_solve(tmp_path: Path, dt: str) -> None:
    """Slots coarser than the 60 s decision interval are allowed (offline runs decide every
    max(60 s, dt)), unlike ``simulate --dt``."""
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    result = CliRunner().invoke(
        app, ["solve", str(path), "--solver", "cpsat", "--time-limit", "10", "--dt", dt]
    )
    assert result.exit_code == 0, result.output
    for text in (
        "status",
        "optimal",
        "lower bound",
        "avg JCT (simulated)",
        "schedule from",
        "CP-SAT, 1 worker, seed 0, deterministic time limit 10",
        "sjf-bsbf",
        "tiresias",
        "%",
    ):
        assert text in result.output


MILP = ("--solver", "milp", "--time-limit", "10")


def test_cli_solve_milp_keeps_solver_output_off_stdout(tmp_path: Path) -> None:
    """HiGHS prints its banner from native code to descriptor 1: it must not reach stdout."""
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    done = subprocess.run(
        [sys.executable, "-c", "from sjfbsbf.cli import app; app()", "solve", str(path), *MILP],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "status" in done.stdout and "optimal" in done.stdout
    assert "HiGHS" not in done.stdout and "Copyright" not in done.stdout
    assert "wall-clock time limit 10 s" in done.stdout


def test_cli_solve_rejects_bad_options(tmp_path: Path) -> None:
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    result = CliRunner().invoke(app, ["solve", str(path), "--solver", "gurobi"])
    assert result.exit_code == 2
    result = CliRunner().invoke(app, ["solve", str(tmp_path / "missing.json")])
    assert result.exit_code == 1


def test_cli_gap() -> None:
    if not (SUITE / OPTIMA_FILE).is_file():
        pytest.skip("instances/optima.json is missing")
    result = CliRunner().invoke(app, ["gap", "--suite", str(SUITE)])
    assert result.exit_code == 0, result.output
    for text in ("n4-g2-all-a", "sjf-bsbf", "mean", "max"):
        assert text in result.output


def test_cli_gap_without_optima(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["gap", "--suite", str(tmp_path)])
    assert result.exit_code == 1
