"""Running sweeps: keys that change with every input, relabelling without rerunning, corrupt and
failed run records, the Ray code path (with a stand-in module), output containment.

Signals are in ``test_sweep_signals.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import Interrupted, SweepError, SweepRunsFailed
from sjfbsbf.core.instance_io import instance_to_dict
from sjfbsbf.experiments import sweep_spec
from sjfbsbf.experiments.sweep import (
    RUN_SCHEMA,
    collect,
    input_files,
    load_sweep,
    read_record,
    run_sweep,
)
from sjfbsbf.workloads import WorkloadSpec, generate

runner = CliRunner()

TINY = """\
name = "tiny"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 8
nodes = 1
gpus_per_node = 4
gpu_mem_gb = {mem}

[sim]
dt = 10.0

[[variants]]
policy = "fifo"

[[variants]]
label = "{label}"
policy = "sjf"
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_rerun_skips_done_runs(tmp_path: Path, calls: list[str]) -> None:
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    table = run_sweep(sweep, tmp_path / "out")
    assert len(table) == 4 and len(calls) == 4
    assert list(table.columns[:3]) == ["key", "sweep", "label"]
    again = run_sweep(load_sweep(tmp_path / "s.toml"), tmp_path / "out")
    assert len(calls) == 4  # nothing ran again
    pd.testing.assert_frame_equal(table, again)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["code"] == sweep.code and manifest["failed"] == []


def test_renamed_label_relabels_without_rerun(tmp_path: Path, calls: list[str]) -> None:
    path = write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf"))
    run_sweep(load_sweep(path), tmp_path / "out")
    write(path, TINY.format(mem=12.0, label="shortest-first"))
    table = run_sweep(load_sweep(path), tmp_path / "out")
    assert len(calls) == 4
    assert sorted(set(table["label"])) == ["fifo", "shortest-first"]
    on_disk = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert sorted(set(on_disk["label"])) == ["fifo", "shortest-first"]


def _instance_file(path: Path, scale: int) -> Path:
    """A 6-job instance whose jobs run ``scale`` times as many iterations."""
    data = instance_to_dict(generate(WorkloadSpec(n_jobs=6), np.random.default_rng(3)))
    for job in data["jobs"]:
        job["iterations"] *= scale
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


FILE_SWEEP = """\
name = "file"
[[workloads]]
kind = "file"
path = "{path}"
[sim]
dt = 10.0
[[variants]]
policy = "fifo"
"""


def test_edited_input_file_is_never_reused(tmp_path: Path, calls: list[str]) -> None:
    instance = _instance_file(tmp_path / "inst.json", 1)
    path = write(tmp_path / "s.toml", FILE_SWEEP.format(path=instance))
    first = run_sweep(load_sweep(path), tmp_path / "out")
    _instance_file(instance, 3)  # same path, new content
    second = run_sweep(load_sweep(path), tmp_path / "out")
    assert len(calls) == 2
    assert first["key"][0] != second["key"][0]
    assert second["avg_jct"][0] > 2 * first["avg_jct"][0]
    assert len(second) == 1  # the stale row is not in the table
    assert len(list((tmp_path / "out" / "runs").glob("*.json"))) == 2


def test_input_edited_while_the_sweep_runs_fails_the_run(tmp_path: Path) -> None:
    instance = _instance_file(tmp_path / "inst.json", 1)
    sweep = load_sweep(write(tmp_path / "s.toml", FILE_SWEEP.format(path=instance)))
    _instance_file(instance, 2)
    with pytest.raises(SweepRunsFailed, match="changed after the sweep hashed it"):
        run_sweep(sweep, tmp_path / "out")


def test_an_input_swapped_with_its_size_and_mtime_kept_fails_the_run(tmp_path: Path) -> None:
    """Issue 35 item 17: content changed, size and mtime set back (``touch -r``) used to pass
    the mid-run check and give rows that differ from a clean run with the same key."""
    import os

    instance = _instance_file(tmp_path / "inst.json", 1)
    sweep = load_sweep(write(tmp_path / "s.toml", FILE_SWEEP.format(path=instance)))
    stamp = instance.stat()
    text = instance.read_text(encoding="utf-8")
    swapped = text.replace('"arrival": 0.0', '"arrival": 1.0', 1)
    assert len(swapped) == len(text) and swapped != text
    instance.write_text(swapped, encoding="utf-8")
    os.utime(instance, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    with pytest.raises(SweepRunsFailed, match="SHA-256 differs"):
        run_sweep(sweep, tmp_path / "out")


def test_key_covers_code_files_and_implicit_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf"))
    keys = [r.key for r in load_sweep(path).runs]
    monkeypatch.setattr(sweep_spec, "code_version", lambda: "0.1.0+changed")
    assert not set(keys) & {r.key for r in load_sweep(path).runs}

    job = "ResNet-18 (batch size 32)\tp\t--n\t1\t1000\t{}\t1\n"
    trace = write(tmp_path / "t.trace", job.format(0) + job.format(60))  # an arrival span
    table = write(tmp_path / "tp.json", '{"v100": {"(\'ResNet-18 (batch size 32)\', 1)": '
                  '{"null": 10.0}}}')  # fmt: skip
    gavel = f'name = "g"\n[[workloads]]\nkind = "gavel"\ntrace = "{trace}"\n'
    gavel += f'throughputs = "{table}"\n[[variants]]\npolicy = "fifo"\n'
    spec_path = write(tmp_path / "g.toml", gavel)
    (run,) = load_sweep(spec_path).runs
    assert input_files(run.workload, run.sim) == (str(table), str(trace))
    write(table, '{"v100": {"(\'ResNet-18 (batch size 32)\', 1)": {"null": 20.0}}}')
    (changed,) = load_sweep(spec_path).runs
    assert changed.key != run.key
    # The default table is the dataset gavel-throughputs: not fetched (the tests' cache is
    # empty), the sweep is refused at load naming the key; tests/experiments/test_sweep_datasets
    # hashes a fetched one.
    default = write(tmp_path / "d.toml", gavel.replace(f'throughputs = "{table}"\n', ""))
    assert sweep_spec.WORKLOAD_PARAMS["gavel"]["throughputs"].default == "data:gavel-throughputs"
    with pytest.raises(SweepError, match=r"workloads\[0\]\.throughputs.*not fetched"):
        load_sweep(default)


def test_measured_table_is_an_input_of_the_runs_that_read_it(tmp_path: Path) -> None:
    """gavel-measured reads Gavel's table: its content is in the key, editing it re-keys."""
    instance = _instance_file(tmp_path / "inst.json", 1)
    table = write(tmp_path / "tp.json", '{"v100": {}}')
    sweep = FILE_SWEEP.format(path=instance).replace(
        "dt = 10.0\n",
        f'dt = 10.0\ninterference = ["time-slicing", "gavel-measured"]\nthroughputs = "{table}"\n',
    )
    path = write(tmp_path / "s.toml", sweep)
    with pytest.raises(SweepError, match=r"sim\.throughputs.*only applies to interference"):
        load_sweep(path)  # the table would be ignored by time slicing: refused, not dropped
    path = write(tmp_path / "s.toml", sweep.replace('"time-slicing", ', ""))
    (run,) = load_sweep(path).runs
    assert input_files(run.workload, run.sim) == (str(instance), str(table))
    assert str(table) in dict(run.inputs)
    write(table, '{"v100": {}, "p100": {}}')
    (changed,) = load_sweep(path).runs
    assert changed.key != run.key
    plain = write(tmp_path / "p.toml", FILE_SWEEP.format(path=instance))
    (unmeasured,) = load_sweep(plain).runs
    assert "throughputs" not in unmeasured.sim and str(table) not in dict(unmeasured.inputs)


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated
        lambda text: "",
        lambda text: "\x00\x01",
        lambda text: text.replace('"status": "ok"', '"status": "maybe"'),
        lambda text: text.replace('"avg_jct"', '"avg_jtc"'),
        lambda text: json.dumps({**json.loads(text), "key": "0" * 16}),
        lambda text: json.dumps(json.loads(text)["row"]),  # the old format: a bare row
    ],
)
def test_corrupt_record_is_reported_and_rerun(
    tmp_path: Path, calls: list[str], damage: Any
) -> None:
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    run_sweep(sweep, tmp_path / "out")
    record = tmp_path / "out" / "runs" / f"{sweep.runs[0].key}.json"
    record.write_text(damage(record.read_text(encoding="utf-8")), encoding="utf-8")
    warnings: list[str] = []
    table = run_sweep(sweep, tmp_path / "out", warn=warnings.append)
    assert len(calls) == 5  # the damaged run only
    assert len(warnings) == 1 and warnings[0].startswith(f"{record}: unusable run record (")
    assert len(table) == 4 and not table[["avg_jct", "makespan"]].isna().any().any()
    assert read_record(record, sweep.runs[0].key)[0] is not None


def test_collect_leaves_out_corrupt_records(tmp_path: Path) -> None:
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    run_sweep(sweep, tmp_path / "out")
    record = tmp_path / "out" / "runs" / f"{sweep.runs[1].key}.json"
    record.write_text('{"schema": "', encoding="utf-8")
    warnings: list[str] = []
    table = collect(sweep, tmp_path / "out", warn=warnings.append)
    assert len(table) == 3 and "left out of the results" in warnings[0]


def test_failed_runs_are_recorded_others_kept_and_retried(tmp_path: Path, calls: list[str]) -> None:
    path = write(tmp_path / "s.toml", TINY.format(mem="[2.0, 12.0]", label="sjf"))
    sweep = load_sweep(path)
    with pytest.raises(SweepRunsFailed) as info:
        run_sweep(sweep, tmp_path / "out")
    assert str(info.value).startswith("4 of 8 runs failed: fifo seed 0 [")
    assert "InstanceError: job " in str(info.value) and "more than the cluster's 2.0 GB" in str(
        info.value
    )
    assert str(info.value).endswith("; and 1 more (failure records in " + f"{tmp_path / 'out'}"
                                    "/runs/; a rerun retries them)")  # fmt: skip
    table = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(table) == 4 and set(table["wl_gpu_mem_gb"]) == {12.0}
    failed = [r for r in sweep.runs if r.workload["gpu_mem_gb"] == 2.0]
    record, problem = read_record(
        tmp_path / "out" / "runs" / f"{failed[0].key}.json", failed[0].key
    )
    assert problem is None and record is not None and record["schema"] == RUN_SCHEMA
    assert record["status"] == "failed" and record["error"]["type"] == "InstanceError"
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["succeeded"] == 4 and len(manifest["failed"]) == 4
    assert len(calls) == 8
    with pytest.raises(SweepRunsFailed):
        run_sweep(sweep, tmp_path / "out")
    assert len(calls) == 12  # only the 4 failed runs were tried again


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_failed_runs_exit_1_with_summary(tmp_path: Path, workers: str) -> None:
    path = write(tmp_path / "s.toml", TINY.format(mem="[2.0, 12.0]", label="sjf"))
    out = tmp_path / "out"
    result = runner.invoke(app, ["sweep", str(path), "--out", str(out), "--workers", workers])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1
    assert result.stderr.startswith("sjfbsbf: error: 4 of 8 runs failed: ")
    assert result.stderr.count("\n") == 1
    assert f"failed runs are left out of {out / 'results.parquet'}" in result.stdout
    assert len(pd.read_parquet(out / "results.parquet")) == 4


class _FakeRay:
    """Just enough of Ray's API for the backend's code path (Ray itself is an optional extra)."""

    def __init__(self, crash: str | None = None, interrupt_after: int | None = None) -> None:
        self.crash, self.interrupt_after, self.cancelled, self.got = crash, interrupt_after, [], 0

    def is_initialized(self) -> bool:
        return True

    def remote(self, function: Any) -> Any:
        class Ref:
            def __init__(self, run: Any) -> None:
                self.function, self.run = function, run

        class Remote:
            def remote(self, run: Any) -> Ref:
                return Ref(run)

        return Remote()

    def wait(self, refs: list[Any], num_returns: int) -> tuple[list[Any], list[Any]]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: Any) -> Any:
        self.got += 1
        if self.interrupt_after is not None and self.got > self.interrupt_after:
            raise KeyboardInterrupt
        if ref.run.label == self.crash:
            raise RuntimeError("worker died")
        return ref.function(ref.run)

    def cancel(self, ref: Any, force: bool) -> None:
        assert force
        self.cancelled.append(ref)


def test_ray_backend_records_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _FakeRay(crash="sjf")
    monkeypatch.setitem(sys.modules, "ray", fake)
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    with pytest.raises(SweepRunsFailed, match=r"2 of 4 runs failed: sjf seed 0 .*RuntimeError"):
        run_sweep(sweep, tmp_path / "out", backend="ray", workers=2)
    assert len(pd.read_parquet(tmp_path / "out" / "results.parquet")) == 2


def test_ray_backend_cancels_pending_tasks_on_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _FakeRay(interrupt_after=1)
    monkeypatch.setitem(sys.modules, "ray", fake)
    sweep = load_sweep(write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf")))
    with pytest.raises(Interrupted, match="signal 2") as info:
        run_sweep(sweep, tmp_path / "out", backend="ray", workers=3)
    assert info.value.detail == f"1 of 4 runs kept in {tmp_path / 'out'}"
    assert len(fake.cancelled) == 2  # 3 in flight, 1 finished, the interrupted one popped
    assert len(list((tmp_path / "out" / "runs").glob("*.json"))) == 1


def test_ray_missing_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    path = write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf"))
    result = runner.invoke(
        app, ["sweep", str(path), "--out", str(tmp_path / "o"), "--backend", "ray"]
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "sjfbsbf: error: the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'\n"
    )
    assert not (tmp_path / "o").exists()  # refused before anything was written


def test_cli_reports_a_truncated_record_and_reruns_it(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", TINY.format(mem=12.0, label="sjf"))
    out = tmp_path / "out"
    assert runner.invoke(app, ["sweep", str(path), "--out", str(out)]).exit_code == 0
    record = sorted((out / "runs").glob("*.json"))[0]
    record.write_text(record.read_text(encoding="utf-8")[:40], encoding="utf-8")
    result = runner.invoke(app, ["sweep", str(path), "--out", str(out)])
    assert result.exit_code == 0
    assert result.stderr.startswith(f"sjfbsbf: warning: {record}: unusable run record (not valid")
    assert result.stderr.endswith("; running it again\n") and result.stderr.count("\n") == 1
    assert "4 runs: 1 new, 3 kept, in" in " ".join(result.stdout.split())
    assert len(pd.read_parquet(out / "results.parquet")) == 4
