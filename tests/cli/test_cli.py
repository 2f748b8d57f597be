"""The command line: outputs, error paths, start-up imports."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from sjfbsbf.cli import app
from sjfbsbf.policies import policy_names

runner = CliRunner()

REQUIRED_JOB_COLUMNS = [
    "job_id",
    "arrival",
    "start",
    "finish",
    "jct",
    "gpus",
    "shared_s",
    "sub_batch",
]


def _assert_one_line_error(result: Result) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("sjfbsbf"), result.stderr


def test_compare_writes_png_and_csv_and_prints_every_policy(
    small_instance: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    result = runner.invoke(app, ["compare", str(small_instance), "--out", str(out), "--dt", "10"])
    assert result.exit_code == 0, result.output
    names = policy_names(defaults_only=True)
    for name in names:
        assert name in result.stdout
    assert "cli-small" in result.stdout
    png = (out / "compare.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    with (out / "compare.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["policy"] for row in rows] == names
    for key in (
        "avg_jct",
        "p50_jct",
        "p95_jct",
        "p99_jct",
        "makespan",
        "avg_queueing_delay",
        "gpu_utilization",
        "shared_gpu_time_share",
    ):
        assert all(float(row[key]) >= 0 for row in rows), key
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_compare_policy_subset_in_given_order(small_instance: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["compare", str(small_instance), "--policies", "sjf, fifo,sjf", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    with (tmp_path / "compare.csv").open(newline="") as handle:
        assert [row["policy"] for row in csv.DictReader(handle)] == ["sjf", "fifo"]


def test_compare_default_workload(tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "default-seed0" in result.stdout
    for name in policy_names(defaults_only=True):
        assert name in result.stdout
    assert (tmp_path / "compare.png").is_file()
    assert (tmp_path / "compare.csv").is_file()


def test_simulate_writes_jobs_csv(small_instance: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "jobs.csv"
    result = runner.invoke(
        app, ["simulate", str(small_instance), "--policy", "sjf", "--jobs-csv", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "avg JCT" in result.stdout
    with out.open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert reader.fieldnames is not None
    assert set(REQUIRED_JOB_COLUMNS) <= set(reader.fieldnames)
    assert len(rows) == 13
    by_id = {row["job_id"]: row for row in rows}
    assert by_id["99"]["sub_batch"] == ""  # duration-only job
    assert all(row["sub_batch"] != "" for key, row in by_id.items() if key != "99")
    for row in rows:
        assert float(row["jct"]) == pytest.approx(float(row["finish"]) - float(row["arrival"]))


@pytest.mark.parametrize("preset", ["gavel-fitted", "mps"])
def test_simulate_interference_preset(small_instance: Path, tmp_path: Path, preset: str) -> None:
    """--interference NAME simulates exactly what simulate(..., make_interference(NAME)) does."""
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.core.presets import make_interference
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    out = tmp_path / "jobs.csv"
    args = ["simulate", str(small_instance), "-p", "sjf-ffs", "--jobs-csv", str(out)]
    result = runner.invoke(app, [*args, "--interference", preset])
    assert result.exit_code == 0, result.output
    expected = simulate(
        read_instance(small_instance),
        make_policy("sjf-ffs"),
        interference=make_interference(preset),
    )
    with out.open(newline="") as handle:
        finish = {int(r["job_id"]): float(r["finish"]) for r in csv.DictReader(handle)}
    assert finish == pytest.approx(
        dict(zip(expected.jobs.job_id, expected.jobs.finish, strict=True))
    )
    default = simulate(read_instance(small_instance), make_policy("sjf-ffs"))
    assert expected.jobs.finish.tolist() != default.jobs.finish.tolist()  # the preset matters


def test_measured_interference_missing_file_is_one_line(
    small_instance: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "absent.json"
    args = ["compare", str(small_instance), "--out", str(tmp_path / "out")]
    result = runner.invoke(
        app, [*args, "--interference", "gavel-measured", "--throughputs", str(missing)]
    )
    _assert_one_line_error(result)
    assert result.exit_code == 1
    assert str(missing) in result.stderr and "no such file" in result.stderr


@pytest.mark.parametrize(
    ("throughputs", "words"),
    [
        ([], ["data:gavel-throughputs", "not fetched", "sjfbsbf data fetch gavel-throughputs"]),
        (["--throughputs", "data:gavel-throughput"], ["unknown dataset", "gavel-throughputs"]),
        (["--throughputs", "data:gavel-traces/x.trace"], ["'gavel-traces' has no file 'x.trace'"]),
    ],
)
def test_measured_interference_dataset_refusals_are_one_line(
    small_instance: Path, throughputs: list[str], words: list[str]
) -> None:
    """The default table is the dataset gavel-throughputs: not fetched (the tests' cache is
    empty), it is one line saying how to fetch it; an unknown dataset or file too."""
    args = ["simulate", str(small_instance), "-p", "sjf", "--interference", "gavel-measured"]
    result = runner.invoke(app, [*args, *throughputs])
    _assert_one_line_error(result)
    assert result.exit_code == 1
    for word in words:
        assert word in result.stderr


def test_measured_interference_states_its_fallback(small_instance: Path, gavel_data: Path) -> None:
    """The fallback line printed is the model's own summary (the duration-only job has no Gavel
    job type: ξ beside it is the fallback). The table is the dataset gavel-throughputs, by
    default or named."""
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.core.presets import make_interference
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    data = gavel_data / "gavel-throughputs" / "simulation_throughputs.json"
    args = ["simulate", str(small_instance), "-p", "sjf-ffs", "--interference", "gavel-measured"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    named = runner.invoke(app, [*args, "--throughputs", "data:gavel-throughputs"])
    wall = re.compile(r"\d+\.\d+ s\b")  # the run's wall time differs between the two runs
    assert wall.sub("", named.stdout) == wall.sub("", result.stdout)
    model = make_interference("gavel-measured", throughputs=data)
    simulate(read_instance(small_instance), make_policy("sjf-ffs"), interference=model)
    assert ("generic", "LM (batch size 5)") in model.fallback_pairs()  # type: ignore[attr-defined]
    summary = model.fallback_summary()  # type: ignore[attr-defined]
    assert "fallback ξ = 1.615" in summary
    assert summary in " ".join(result.stdout.split())


def test_policy_options_from_the_command_line(small_instance: Path, tmp_path: Path) -> None:
    """``-o`` values are parsed by the option's type and reach the policy: the per-job table
    equals the one of the policy made in Python with the same options."""
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    out = tmp_path / "jobs.csv"
    args = ["simulate", str(small_instance), "-p", "sjf-bsbf", "--jobs-csv", str(out)]
    options = ["-o", "wait_aware=true", "-o", "threshold=0.05", "-o", "max_partners=none"]
    result = runner.invoke(app, [*args, *options, "-o", "sub_batch=full"])
    assert result.exit_code == 0, result.output
    policy = make_policy("sjf-bsbf", wait_aware=True, threshold=0.05, sub_batch="full")
    expected = simulate(read_instance(small_instance), policy).jobs
    got = pd.read_csv(out)
    assert np.allclose(got["finish"], expected["finish"]) and got["job_id"].equals(
        expected["job_id"]
    )
    default = simulate(read_instance(small_instance), make_policy("sjf-bsbf")).jobs
    assert not np.allclose(got["finish"], default["finish"])  # the options changed something


def test_compare_targets_options_by_policy(small_instance: Path, tmp_path: Path) -> None:
    """POLICY:KEY=VALUE reaches that policy only; KEY=VALUE every compared policy that has KEY
    (here sjf-bsbf only: sjf-ffs has no ``threshold``)."""
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    instance = read_instance(small_instance)
    args = ["compare", str(small_instance), "--policies", "sjf-bsbf,sjf-ffs,exact-round"]
    options = ["-o", "sjf-bsbf:sub_batch=full", "-o", "threshold=30", "-o", "exact-round:seed=3"]
    result = runner.invoke(app, [*args, *options, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "compare.csv", index_col="policy")
    made = {
        "sjf-bsbf": make_policy("sjf-bsbf", sub_batch="full", threshold=30.0),
        "sjf-ffs": make_policy("sjf-ffs"),
        "exact-round": make_policy("exact-round", threshold=30.0, seed=3),
    }
    for name, policy in made.items():
        assert table.loc[name, "avg_jct"] == pytest.approx(simulate(instance, policy).avg_jct)
    for name in ("sjf-bsbf", "exact-round"):  # the options changed both (checked: they do here)
        default = simulate(instance, make_policy(name)).avg_jct
        assert table.loc[name, "avg_jct"] != pytest.approx(default)


def test_policies_lists_the_registry() -> None:
    result = runner.invoke(app, ["policies"])
    assert result.exit_code == 0, result.output
    for name in policy_names():
        assert name in result.stdout


UNKNOWN_MODEL = json.dumps(
    {
        "schema": "sjfbsbf.instance/1",
        "cluster": {"nodes": 1, "gpus_per_node": 4, "gpu_mem_gb": 12},
        "jobs": [
            {"id": 0, "arrival": 0, "gpus": 1, "duration": 60.0},
            {"id": 3, "arrival": 0, "gpus": 1, "model": "alexnet", "batch": 8, "iterations": 9},
        ],
    }
)


@pytest.mark.parametrize("command", ["simulate", "compare"])
@pytest.mark.parametrize(
    ("file_name", "text", "expected"),
    [
        ("missing.json", None, ["missing.json", "cannot read"]),
        ("bad.json", '{"schema": "sjfbsbf.instance/1",', ["bad.json", "not valid JSON", "line 1"]),
        ("model.json", UNKNOWN_MODEL, ["model.json", "job 3", "field 'model'", "alexnet"]),
    ],
)
def test_bad_instance_file_is_one_line(
    tmp_path: Path, command: str, file_name: str, text: str | None, expected: list[str]
) -> None:
    path = tmp_path / file_name
    if text is not None:
        path.write_text(text, encoding="utf-8")
    args = [command, str(path), "--out", str(tmp_path / "out")]
    if command == "simulate":
        args = [command, str(path), "--policy", "sjf"]
    result = runner.invoke(app, args)
    _assert_one_line_error(result)
    for fragment in expected:
        assert fragment in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["simulate", "{instance}", "--policy", "nope"], ["'--policy'", "unknown policy 'nope'"]),
        (["compare", "{instance}", "--policies", "sjf,nope"], ["'--policies'", "'nope'"]),
        (["compare", "{instance}", "--policies", ","], ["'--policies'"]),
        (["simulate", "{instance}", "--policy", "sjf", "--dt", "0"], ["'--dt'", "positive"]),
        (["compare", "{instance}", "--dt", "abc"], ["'--dt'"]),
        (["simulate", "{instance}", "-p", "sjf", "--dt", "inf"], ["'--dt'", "positive"]),
        (["simulate", "{instance}", "-p", "sjf", "--dt", "120"], ["'--dt'", "interval (60 s)"]),
        (["compare", "{instance}", "--dt", "30", "--interval", "20"], ["'--dt'", "(20 s)"]),
        (["solve", "{instance}", "--dt", "inf"], ["'--dt'", "positive"]),
        (["compare", "{instance}", "--interval", "-5"], ["'--interval'"]),
        (["compare", "{instance}", "--restart-overhead", "nan"], ["'--restart-overhead'"]),
        (["compare", "--seed", "-1"], ["'--seed'"]),
        (["compare", "{instance}", "--seed", "1"], ["'--seed'", "default workload"]),
        (["simulate", "{instance}"], ["--policy"]),
        (["compare", "--bogus"], ["--bogus"]),
        (["compare", "{instance}", "--interference", "nope"], ["'--interference'", "gavel-fitted"]),
        (
            ["compare", "{instance}", "--throughputs", "t.json"],
            ["'--throughputs'", "gavel-measured"],
        ),
        (
            ["simulate", "{instance}", "-p", "sjf", "--interference", "mps", "--throughputs", "t"],
            ["'--throughputs'", "not mps"],
        ),
        (
            ["simulate", "{instance}", "-p", "sjf-bsbf", "-o", "wait_awar=true"],
            ["'-o'", "unknown option", "options: threshold, max_partners, retune, wait_aware"],
        ),
        (
            ["simulate", "{instance}", "-p", "sjf-bsbf", "-o", "threshold=abc"],
            ["'-o'", "threshold: must be a number, got 'abc'"],
        ),
        (
            ["simulate", "{instance}", "-p", "sjf-bsbf", "-o", "retune=yes"],
            ["'-o'", "retune: must be true or false"],
        ),
        (["simulate", "{instance}", "-p", "sjf-bsbf", "-o", "retune"], ["'-o'", "KEY=VALUE"]),
        (
            ["simulate", "{instance}", "-p", "sjf-bsbf", "-o", "sub_batch=smallest"],
            ["'-o'", "sub_batch must be"],
        ),
        (
            ["compare", "{instance}", "--policies", "sjf,fifo", "-o", "threshold=1"],
            ["'-o'", "policy 'sjf': threshold: unknown option"],
        ),
        (["frobnicate"], ["frobnicate"]),
        ([], ["Missing command"]),
    ],
)
def test_bad_usage_is_one_line(small_instance: Path, args: list[str], expected: list[str]) -> None:
    result = runner.invoke(app, [a.replace("{instance}", str(small_instance)) for a in args])
    _assert_one_line_error(result)
    assert result.exit_code == 2
    for fragment in expected:
        assert fragment in result.stderr


def test_unusable_out_dir_fails_before_simulating(small_instance: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    result = runner.invoke(app, ["compare", str(small_instance), "--out", str(blocker)])
    _assert_one_line_error(result)
    assert "not a directory" in result.stderr


def test_console_script_error_has_no_traceback(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("sjfbsbf")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    done = subprocess.run(
        [str(script), "simulate", str(tmp_path / "absent.json"), "--policy", "sjf"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"sjfbsbf: error: {tmp_path / 'absent.json'}: cannot read: No such file or directory"
    ]


def test_cli_import_stays_light() -> None:
    code = (
        "import sys, sjfbsbf, sjfbsbf.cli; "
        "heavy = [m for m in ('pulp', 'ortools', 'formulations', 'matplotlib', 'pandas') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_sweep_refuses_dt_above_interval(tmp_path: Path) -> None:
    """A sweep whose [sim] has dt > interval fails at load time, naming the file (exit 1)."""
    path = tmp_path / "bad.toml"
    path.write_text(
        'name = "bad"\n[[workloads]]\nkind = "testbed"\n[sim]\ndt = 120.0\n'
        '[[variants]]\npolicy = "sjf"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "bad.toml" in result.stderr and "at most the decision interval" in result.stderr
    assert not (tmp_path / "out").exists()
