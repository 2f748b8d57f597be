"""The exact side's public face (issue 36): ``import formulations as fm`` reaches the suite by
name from any folder, the offline solve, its result re-scoring itself and a policy's gap interval,
the same numbers ``sjfbsbf solve`` prints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import formulations as fm
from formulations.offline import suite_files
from formulations.offline.replay import interval_for
from sjfbsbf.experiments.compare import run_policies
from sjfbsbf.experiments.gap_interval import gap_rows

SUITE = Path(__file__).resolve().parents[2] / "instances"


def test_the_public_names_resolve() -> None:
    for name in fm.__all__:
        assert getattr(fm, name) is not None
    assert fm.gap_interval(120.0, 100.0, 80.0, 0.5)[0] == pytest.approx(120 / 100.5 - 1)


def test_policy_gap_is_the_gap_solve_prints() -> None:
    small = fm.suite_instance("n4-g2-all-a")
    result = fm.solve_offline(small, "cpsat", time_limit=20)
    assert result.rescore() == pytest.approx(result.replayed_avg_jct, abs=1e-9)
    names = ["fifo", "sjf", "srtf", "sjf-bsbf"]
    runs = run_policies(small, names, dt=result.dt, interval=interval_for(result.dt))
    rows = gap_rows(
        "x", "optimal", result.dt, runs, best=result.replayed_avg_jct, bound=result.bound,
        tolerance=result.info["tolerance_s"],
    )  # fmt: skip
    for name, row in zip(names, rows, strict=True):
        gap = result.policy_gap(name)
        assert (gap.policy, gap.avg_jct, gap.low, gap.high) == (
            name, row["avg_jct"], row["gap_low"], row["gap_high"],
        )  # fmt: skip
        assert gap.run.avg_jct == gap.avg_jct
    with_option = result.policy_gap("sjf-bsbf", threshold=1e9)  # options reach the policy
    assert with_option.run.metrics["avg_jct"] == with_option.avg_jct


def test_suite_instance_reads_by_name_and_refuses_an_unknown_one() -> None:
    instance = fm.suite_instance("n6-g4-all-a")
    assert instance.num_jobs == 6 and instance.cluster.num_gpus == 4
    with pytest.raises(
        KeyError, match=r"no suite instance 'n6' in .* \(56 of them: n4-2x2-all-a, n4-g2-all-a,"
    ):
        fm.suite_instance("n6")


def test_the_environment_variable_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(suite_files.SUITE_ENV, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=f"SJFBSBF_SUITE={tmp_path}: no optima.json"):
        fm.suite_dir()
    monkeypatch.setenv(suite_files.SUITE_ENV, str(SUITE))
    assert fm.suite_dir() == SUITE


def test_the_install_record_names_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(suite_files.SUITE_ENV, raising=False)
    monkeypatch.setattr(suite_files, "_beside_package", lambda: None)

    class Record:
        def __init__(self, text: str | None) -> None:
            self.text = text

        def read_text(self, name: str) -> str | None:
            assert name == "direct_url.json"
            return self.text

    checkout = tmp_path / "my checkout"
    (checkout / "instances").mkdir(parents=True)
    (checkout / "instances" / "optima.json").write_text("{}", encoding="utf-8")
    url = json.dumps({"url": "file://" + str(checkout).replace(" ", "%20"), "dir_info": {}})
    monkeypatch.setattr(suite_files.metadata, "distribution", lambda name: Record(url))
    assert fm.suite_dir() == checkout / "instances"
    for text in (None, "", "not json", json.dumps({"url": "https://example.org/x.whl"})):
        monkeypatch.setattr(suite_files.metadata, "distribution", lambda name, t=text: Record(t))
        with pytest.raises(FileNotFoundError, match="set SJFBSBF_SUITE to the checkout's"):
            fm.suite_dir()


def test_from_a_folder_outside_the_checkout(tmp_path: Path) -> None:
    code = "import formulations as fm; print(fm.suite_instance('n4-g2-all-a').num_jobs)"
    env = {k: v for k, v in os.environ.items() if k != suite_files.SUITE_ENV}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
