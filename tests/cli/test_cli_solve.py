"""``sjfbsbf solve`` and ``sjfbsbf gap`` (docs/formulations.md §2.8), and the core staying free of
solver packages.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from offline_cases import SUITE, tiny
from typer.testing import CliRunner

from formulations.offline.suite import OPTIMA_FILE, load_suite, natural_key
from sjfbsbf.cli import app
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.experiments.gap import gap_table
from sjfbsbf.experiments.gap_interval import GAP_COLUMNS


# -- layering and the command line ---------------------------------------------------------------
def test_core_never_imports_solvers() -> None:
    code = (
        "import sys, sjfbsbf, sjfbsbf.policies, sjfbsbf.sim.simulator, sjfbsbf.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pulp', 'ortools', 'highspy')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("dt", "mode", "limit"),
    [
        ("60", ["--deterministic"], "CP-SAT, 1 worker, seed 0, deterministic time limit 10"),
        ("120", [], "CP-SAT, 1 worker, seed 0, wall-clock limit 10 s for the whole solve"),
    ],
)
def test_cli_solve(tmp_path: Path, dt: str, mode: list[str], limit: str) -> None:
    """Slots coarser than the 60 s decision interval are allowed (offline runs decide every
    max(60 s, dt)), unlike ``simulate --dt``; the limit is wall-clock unless --deterministic."""
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    result = CliRunner().invoke(
        app, ["solve", str(path), "--solver", "cpsat", "--time-limit", "10", "--dt", dt, *mode]
    )
    assert result.exit_code == 0, result.output
    assert "reached" not in result.output  # proven long before the limit
    for text in (
        "status",
        "optimal",
        "lower bound",
        "avg JCT (simulated)",
        "schedule from",
        limit,
        "sjf-bsbf",
        "tiresias",
        "%",
    ):
        assert text in result.output


MILP = ("--solver", "milp", "--time-limit", "10")


def test_cli_solve_bounds_builds_no_model(tmp_path: Path) -> None:
    """``--solver bounds``: the best heuristic and the best lower bound, no model solved; the
    gap intervals run from the heuristic's value to the bound."""
    path = tmp_path / "n8.json"
    optimum, instance = next((o, i) for o, i in load_suite(SUITE) if o.name == "n8-g8-all-a")
    write_instance(instance, path)
    result = CliRunner().invoke(app, ["solve", str(path), "--solver", "bounds"])
    assert result.exit_code == 0, result.output
    for text in ("no model", "0 model solve(s)", "schedule from       heuristic", "fluid"):
        assert text in result.output
    assert optimum.replayed_avg_jct is not None
    assert "feasible" in result.output
    best_of = next(line for line in result.output.splitlines() if "best of" in line)
    assert re.search(r"colgen \d+\.\d\d s", best_of), best_of  # on by default for bounds
    plain = CliRunner().invoke(app, ["solve", str(path), "--solver", "bounds", "--no-colgen"])
    assert plain.exit_code == 0, plain.output
    assert "colgen" not in plain.output


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
    line = " ".join(result.output.split())  # one line, wrapped by the test terminal
    assert line.startswith(f"sjfbsbf: error: {tmp_path / 'optima.json'}: no such file; --suite")
    assert "run instances/make_suite.py" not in line  # wrong outside the checkout


# -- intervals, preemptive policies apart, --out ------------------------------------------------
#: One proven suite instance and one recorded as unproven (its first record).
SMALL = ("n4-g2-all-a", "n10-g8-light-b")


@pytest.fixture
def small_suite(tmp_path: Path) -> Path:
    """A suite directory with the instances :data:`SMALL` and their recorded optima."""
    if not (SUITE / OPTIMA_FILE).is_file():
        pytest.skip("instances/optima.json is missing")
    data = json.loads((SUITE / OPTIMA_FILE).read_text(encoding="utf-8"))
    data["instances"] = {k: v for k, v in data["instances"].items() if k in SMALL}
    # n10-g8-light-b as first recorded, unproven (docs/formulations.md §2.8): the suite is
    # all proven now, and these tests need an unproven record.
    data["instances"]["n10-g8-light-b"].update(status="feasible", bound=197.76258)
    directory = tmp_path / "suite"
    directory.mkdir()
    for name in SMALL:
        shutil.copy(SUITE / data["instances"][name]["file"], directory)
    (directory / OPTIMA_FILE).write_text(json.dumps(data), encoding="utf-8")
    return directory


def _rounded(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as a CSV gives it back: each float column at 6 decimals."""
    floats = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]
    return table.assign(**{c: table[c].round(6) for c in floats})


def _read(path: Path) -> pd.DataFrame:
    if path.suffix == ".csv":
        return pd.read_csv(path)
    return pd.DataFrame(json.loads(path.read_text(encoding="utf-8")))


def test_cli_gap_prints_intervals_with_preemptive_apart(small_suite: Path) -> None:
    result = CliRunner().invoke(app, ["gap", "--suite", str(small_suite)])
    assert result.exit_code == 0, result.output
    text = result.output
    nonpreemptive = text.index("(non-preemptive policies)")
    note = text.index("preemptive policies, reported apart")
    preemptive = text.index("(preemptive policies)")
    assert nonpreemptive < note < preemptive
    first, second = text[:note], text[note:]
    assert "sjf-bsbf" in first and "srtf" not in first and "tiresias" not in first
    assert "srtf" in second and "tiresias" in second and "sjf-bsbf" not in second
    for fragment in ("n10-g8-light-b", "feasible", "mean", "max", "below 5%", "of 2", "[+"):
        assert fragment in first
    assert "1 of 2 instances with a proven optimum" in text


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_cli_gap_out_round_trip(small_suite: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"gaps{suffix}"
    result = CliRunner().invoke(app, ["gap", "--suite", str(small_suite), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    back = _read(out)
    expected = gap_table(load_suite(small_suite))
    assert list(back.columns) == list(GAP_COLUMNS)
    if suffix == ".csv":  # floats at 6 decimals (1 µs); JSON keeps them whole
        expected = _rounded(expected)
    pd.testing.assert_frame_equal(back, expected, check_exact=suffix == ".csv", rtol=1e-12)
    assert set(back["instance"]) == set(SMALL) and len(back) == 2 * 6
    # natural order: n4 before n10 (as text, n10 came first)
    assert list(dict.fromkeys(back["instance"])) == ["n4-g2-all-a", "n10-g8-light-b"]


def test_cli_gap_lists_instances_in_natural_order(small_suite: Path) -> None:
    text = CliRunner().invoke(app, ["gap", "--suite", str(small_suite)]).output
    assert text.index("n4-g2-all-a") < text.index("n10-g8-light-b")


def test_natural_key_reads_digit_runs_as_numbers() -> None:
    names = ["n10-g8-a", "n4-g10-a", "n4-g2-b", "n4-g2-a", "x", "n004-g2", "a²", "a1", "7", "n7"]
    assert sorted(names, key=natural_key) == [
        "7", "a1", "a²", "n004-g2", "n4-g2-a", "n4-g2-b", "n4-g10-a", "n7", "n10-g8-a", "x",
    ]  # fmt: skip
    assert natural_key("n04") != natural_key("n4")  # equal numbers: the text decides
    assert sorted(["n4", "n04"], key=natural_key) == ["n04", "n4"]


def test_cli_gap_policies(small_suite: Path, tmp_path: Path) -> None:
    """``--policies`` picks the rows (any registered policy, ours included); a bad name is
    refused in one line."""
    out = tmp_path / "gaps.csv"
    args = ["gap", "--suite", str(small_suite), "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--policies", "sjf-bsbf-plus,sjf"])
    assert result.exit_code == 0, result.output
    back = _read(out)
    assert back["policy"].tolist() == ["sjf-bsbf-plus", "sjf"] * len(SMALL)
    expected = _rounded(gap_table(load_suite(small_suite), ["sjf-bsbf-plus", "sjf"]))
    pd.testing.assert_frame_equal(back, expected, check_exact=True)
    bad = CliRunner().invoke(app, [*args, "--policies", "nope"])
    assert bad.exit_code == 2 and "unknown policy 'nope'" in bad.output


def test_cli_solve_out_round_trip(tmp_path: Path) -> None:
    """``solve --out``: the same columns, one row per policy, preemptive ones flagged."""
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    out = tmp_path / "solve.json"
    result = CliRunner().invoke(app, ["solve", str(path), "--time-limit", "10", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.index("sjf-bsbf") < result.output.index("reported apart")
    assert result.output.index("reported apart") < result.output.index("tiresias")
    back = _read(out)
    assert list(back.columns) == list(GAP_COLUMNS)
    assert set(back.loc[back["preemptive"], "policy"]) == {"srtf", "tiresias"}
    assert (back["status"] == "optimal").all()
    assert (back["gap_low"] <= back["avg_jct"] / back["best_avg_jct"] - 1).all()
    assert (back["avg_jct"] / back["bound"] - 1 <= back["gap_high"]).all()
    assert (back["gap_high"] - back["gap_low"] < 1e-3).all()


@pytest.mark.parametrize("command", ["gap", "solve"])
@pytest.mark.parametrize("name", ["gaps.txt", "gaps"])
def test_cli_out_bad_suffix_is_one_line(tmp_path: Path, command: str, name: str) -> None:
    """Refused before anything runs, as one line on stderr, nothing written."""
    path = tmp_path / "share.json"
    write_instance(tiny("share"), path)
    target = ["--suite", str(tmp_path)] if command == "gap" else [str(path)]
    result = CliRunner().invoke(app, [command, *target, "--out", str(tmp_path / name)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "'--out'" in result.stderr and "must end in .csv or .json" in result.stderr
    assert not (tmp_path / name).exists()


# -- exact-round: one row per round ---------------------------------------------------------------
def test_simulate_exact_round_writes_one_row_per_round(tmp_path: Path) -> None:
    """--rounds-csv holds exact-round's round log: scores, gap = exact − greedy, ≥ 0 up to tol."""
    from sjfbsbf.cli.run import ROUND_COLUMNS

    out = tmp_path / "rounds.csv"
    instance = SUITE / "n6-g4-all-a.json"
    result = CliRunner().invoke(
        app,
        [
            "simulate",
            str(instance),
            "--policy",
            "exact-round",
            "--dt",
            "60",
            "--rounds-csv",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    rounds = pd.read_csv(out)
    assert tuple(rounds.columns) == ROUND_COLUMNS
    assert len(rounds) >= 1 and f"({len(rounds)} rounds)" in result.output
    assert (rounds["gap"] == rounds["exact"] - rounds["greedy"]).all()
    assert (rounds["gap"] >= -rounds["tolerance"]).all()
    assert set(rounds["status"]) <= {"optimal", "feasible"}


def test_rounds_csv_is_refused_for_other_policies(tmp_path: Path) -> None:
    out = tmp_path / "rounds.csv"
    result = CliRunner().invoke(
        app,
        ["simulate", str(SUITE / "n6-g4-all-a.json"), "--policy", "sjf", "--rounds-csv", str(out)],
    )
    assert result.exit_code == 2
    assert "only exact-round logs its rounds" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_cli_solve_prove_free_raises_the_bound(tmp_path: Path) -> None:
    """``--prove-free S``: a model stopped early gets the placement-free bound (here the
    optimum) as L; a non-positive S is refused in one line."""
    path = tmp_path / "n10.json"
    optimum, instance = next((o, i) for o, i in load_suite(SUITE) if o.name == "n10-g8-all-a")
    write_instance(instance, path)
    args = ["solve", str(path), "--time-limit", "0.05", "--prove-free", "20"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert optimum.replayed_avg_jct is not None
    assert "placement_free " in result.output
    line = next(x for x in result.output.splitlines() if x.startswith("lower bound"))
    bound = float(line.split()[2].replace(",", ""))
    assert bound == pytest.approx(optimum.replayed_avg_jct, abs=0.01 + optimum.tolerance_s)
    refused = CliRunner().invoke(app, ["solve", str(path), "--prove-free", "0"])
    assert refused.exit_code != 0 and "--prove-free" in refused.output
    alone = CliRunner().invoke(app, ["solve", str(path), "--lb-tree"])
    assert alone.exit_code == 2 and "needs --prove-free" in alone.output
    assert "Traceback" not in alone.output


def test_cli_solve_search(tmp_path: Path) -> None:
    """``--search N`` (bounds: 300 by default): on n12-g8-all-c the searched schedule beats the
    four heuristics' and the line under the table says how many simulations ran; a negative N
    is refused in one line."""
    path = tmp_path / "n12.json"
    _, instance = next((o, i) for o, i in load_suite(SUITE) if o.name == "n12-g8-all-c")
    write_instance(instance, path)

    def avg(args: list[str]) -> tuple[float, str]:
        command = ["solve", str(path), "--solver", "bounds", "--no-colgen", *args]
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
        line = next(x for x in result.output.splitlines() if x.startswith("avg JCT"))
        return float(line.split()[3].replace(",", "")), result.output

    plain, plain_out = avg(["--search", "0"])
    searched, out = avg([])
    assert searched < plain
    assert "after 300 search simulations" in out and "after 0 search" in plain_out
    refused = CliRunner().invoke(app, ["solve", str(path), "--search", "-1"])
    assert refused.exit_code != 0 and "--search" in refused.output
    assert "Traceback" not in refused.output


def test_cli_gap_finds_the_suite_from_any_folder(
    small_suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --suite, gap uses fm.suite_dir() (issue 36: its default was instances/ of the
    working folder); a bad SJFBSBF_SUITE is one line."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SJFBSBF_SUITE", str(small_suite))
    result = CliRunner().invoke(app, ["gap"])
    assert result.exit_code == 0, result.output
    assert str(small_suite) in " ".join(result.output.split())
    assert "n10-g8-light-b" in result.output
    monkeypatch.setenv("SJFBSBF_SUITE", str(tmp_path))
    bad = CliRunner().invoke(app, ["gap"])
    assert bad.exit_code == 1
    line = " ".join(bad.output.split())
    expected = f"sjfbsbf: error: SJFBSBF_SUITE={tmp_path}: no optima.json in that folder"
    assert line == expected + " (or give --suite DIR)"


def test_a_bound_at_or_below_zero_is_said_to_say_nothing() -> None:
    """A CP-SAT model bound of a run stopped early can be negative ("model -1,118.40 s"): true
    for an average JCT, and useless; the line says so instead of printing it as a number."""
    from sjfbsbf.cli.gap_tables import bound_part

    assert bound_part("model", -1118.4) == "model ≤ 0 (no information yet)"
    assert bound_part("model", 0.0) == "model ≤ 0 (no information yet)"
    assert bound_part("fluid", 1e-3) == "fluid 0.00 s"
    assert bound_part("fluid", 1234.5) == "fluid 1,234.50 s"
