"""Running a sweep at its limits (sjfbsbf.experiments.sweep_run): the default warning on stderr,
the refusals of ``run_sweep`` and of ``check_out_dir`` word for word, the progress counts, an
interrupt with its signal, the manifest key by key and the results table's columns."""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sjfbsbf.core.errors import Interrupted, SweepError, SweepRunsFailed
from sjfbsbf.experiments import sweep_run
from sjfbsbf.experiments.sweep import collect, load_sweep, read_record, run_sweep
from sjfbsbf.experiments.sweep_records import attempt
from sjfbsbf.experiments.sweep_run import check_out_dir
from sjfbsbf.experiments.sweep_spec import Sweep

TINY = """\
name = "{name}"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 6
nodes = 1
gpus_per_node = 4
gpu_mem_gb = {mem}

[sim]
dt = 10.0

[[variants]]
policy = "fifo"

[[variants]]
policy = "sjf"
"""
HINT = "; choose another --out, or --overwrite"
#: The packages whose versions a manifest records.
VERSIONED = ("sjfbsbf", "numpy", "pandas", "ortools", "pulp", "highspy")


def _sweep(tmp_path: Path, mem: str = "12.0", name: str = "tiny") -> Sweep:
    path = tmp_path / f"{name}.toml"
    path.write_text(TINY.format(mem=mem, name=name), encoding="utf-8")
    return load_sweep(path)


def _refusal(sweep: Sweep, out: Path) -> str:
    with pytest.raises(SweepError) as info:
        check_out_dir(sweep, out)
    return str(info.value)


def test_a_warning_is_one_line_on_stderr_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = _sweep(tmp_path)
    run_sweep(sweep, tmp_path / "out")
    record = tmp_path / "out" / "runs" / f"{sweep.runs[0].key}.json"
    record.write_text("{", encoding="utf-8")
    problem = read_record(record, sweep.runs[0].key)[1]
    capsys.readouterr()
    assert len(collect(sweep, tmp_path / "out")) == len(sweep.runs) - 1
    assert capsys.readouterr().err == (
        f"sjfbsbf: warning: {record}: unusable run record ({problem}); left out of the results\n"
    )


def test_an_unknown_backend_is_refused_word_for_word(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as info:
        run_sweep(_sweep(tmp_path), tmp_path / "out", backend="dask")
    assert str(info.value) == "unknown backend 'dask'; use 'local' or 'ray'"
    assert not (tmp_path / "out").exists()


def test_a_folder_with_other_files_is_refused_unless_overwrite_is_asked(tmp_path: Path) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    expected = f"{out}: holds files a sweep does not write (notes.txt){HINT}"
    assert _refusal(sweep, out) == expected
    with pytest.raises(SweepError) as info:
        run_sweep(sweep, out)
    assert str(info.value) == expected and sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert len(run_sweep(sweep, out, overwrite=True)) == len(sweep.runs)


def test_the_output_folder_is_made_with_its_parents(tmp_path: Path) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "a" / "b" / "out"
    assert len(run_sweep(sweep, out)) == len(sweep.runs)
    assert (out / "manifest.json").is_file()


def test_progress_counts_the_runs_kept_then_each_run_finished(tmp_path: Path) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    total = len(sweep.runs)
    calls: list[tuple[int, int]] = []
    run_sweep(sweep, out, progress=lambda done, all_: calls.append((done, all_)))
    assert calls == [(done, total) for done in range(total + 1)]
    (out / "runs" / f"{sweep.runs[1].key}.json").unlink()
    calls.clear()
    run_sweep(sweep, out, progress=lambda done, all_: calls.append((done, all_)))
    assert calls == [(total - 1, total), (total, total)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupt_says_its_signal_and_the_runs_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"

    def one_then_signal(todo: list[Any], workers: int, finished: Any) -> None:
        finished(todo[0], attempt(todo[0]))
        raise Interrupted(signum) if signum == signal.SIGTERM else KeyboardInterrupt

    monkeypatch.setattr(sweep_run, "run_local", one_then_signal)
    with pytest.raises(Interrupted) as info:
        run_sweep(sweep, out)
    assert info.value.signum == signum
    assert info.value.detail == f"1 of {len(sweep.runs)} runs kept in {out}"


def test_a_record_damaged_while_the_sweep_ran_is_reported_through_warn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    run_sweep(sweep, out)
    record = out / "runs" / f"{sweep.runs[0].key}.json"
    monkeypatch.setattr(sweep_run, "run_local", lambda *args: record.write_text("{"))
    warnings: list[str] = []
    capsys.readouterr()
    table = run_sweep(sweep, out, warn=warnings.append)
    assert len(table) == len(sweep.runs) - 1 and capsys.readouterr().err == ""
    assert len(warnings) == 1 and warnings[0].endswith("; left out of the results")


def _installed(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def test_the_manifest_holds_the_sweep_its_failures_and_the_versions(tmp_path: Path) -> None:
    sweep, out = _sweep(tmp_path, mem="[2.0, 12.0]"), tmp_path / "out"
    with pytest.raises(SweepRunsFailed):
        run_sweep(sweep, out)
    failed = []
    for run in sweep.runs:
        record, _ = read_record(out / "runs" / f"{run.key}.json", run.key)
        assert record is not None
        if record["status"] == "failed":
            error = record["error"]
            failed.append({"key": run.key, "label": run.label, "seed": run.seed, **error})
    assert failed and len(failed) < len(sweep.runs)
    expected = {
        "sweep": sweep.name,
        "source": sweep.source,
        "config_hash": sweep.config_hash,
        "config": sweep.text,
        "code": sweep.code,
        "inputs": dict(sweep.inputs),
        "runs": len(sweep.runs),
        "succeeded": len(sweep.runs) - len(failed),
        "failed": failed,
        "seeds": sorted({run.seed for run in sweep.runs}),
        "backend": "local",
        "python": platform.python_version(),
        "versions": {package: _installed(package) for package in VERSIONED},
    }
    text = (out / "manifest.json").read_text(encoding="utf-8")
    assert json.loads(text) == expected
    assert text == json.dumps(expected, indent=1)  # indented by one space, in this order


def test_the_results_table_has_the_columns_of_the_rows_only(tmp_path: Path) -> None:
    """No index column in the Parquet file, for readers other than pandas."""
    table = run_sweep(_sweep(tmp_path), tmp_path / "out")
    assert pq.read_schema(tmp_path / "out" / "results.parquet").names == list(table.columns)


def test_a_link_or_a_file_is_refused_word_for_word(tmp_path: Path) -> None:
    sweep = _sweep(tmp_path)
    (tmp_path / "out").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "out")
    assert _refusal(sweep, link) == (
        f"{link}: the output directory is a symbolic link; give the folder itself"
    )
    afile = tmp_path / "file"
    afile.write_text("", encoding="utf-8")
    assert _refusal(sweep, afile) == f"{afile}: the output path exists and is not a directory"


@pytest.mark.parametrize(
    ("manifest", "named"),
    [('{"sweep": "theirs"}', "'theirs'"), ("{", "None"), ('["tiny"]', "None")],
)
def test_a_manifest_of_another_sweep_or_unreadable_is_refused_naming_it(
    tmp_path: Path, manifest: str, named: str
) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text(manifest, encoding="utf-8")
    assert _refusal(sweep, out) == (
        f"{out}: holds the results of another sweep ({named}, not 'tiny'){HINT}"
    )


@pytest.mark.parametrize("table", ["results.csv", "results.parquet"])
def test_a_results_table_without_a_manifest_is_refused(tmp_path: Path, table: str) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / table).write_text("", encoding="utf-8")
    assert _refusal(sweep, out) == f"{out}: holds result tables without a sweep manifest{HINT}"


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (["e", "d", "c", "b", "a"], "a, b, c, d, e"),
        (["f", "e", "d", "c", "b", "a"], "a, b, c, d, e, … (6 entries)"),
        ([".hidden"], ".hidden"),
        (["left.tmp"], "left.tmp"),
    ],
)
def test_the_files_in_the_way_are_named_five_at_most(
    tmp_path: Path, names: list[str], shown: str
) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    for name in names:
        (out / name).write_text("", encoding="utf-8")
    assert _refusal(sweep, out) == f"{out}: holds files a sweep does not write ({shown}){HINT}"


def test_a_temporary_of_an_atomic_write_is_not_in_the_way(tmp_path: Path) -> None:
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / ".results.csv.1234.tmp").write_text("", encoding="utf-8")
    check_out_dir(sweep, out)


def test_a_manifest_is_read_as_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """A manifest written by hand in UTF-8 is read as UTF-8 under an ASCII locale too: the
    refusal names the sweep it holds (run in a child process with that locale)."""
    sweep, out = _sweep(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text('{"sweep": "th\u00e9irs"}', encoding="utf-8")
    expected = f"{out}: holds the results of another sweep ('th\u00e9irs', not 'tiny'){HINT}"
    assert _refusal(sweep, out) == expected
    code = (
        "import json, sys; from pathlib import Path; from sjfbsbf.core.errors import SweepError;"
        "from sjfbsbf.experiments.sweep import load_sweep;"
        "from sjfbsbf.experiments.sweep_run import check_out_dir\n"
        "try: check_out_dir(load_sweep(Path(sys.argv[1])), Path(sys.argv[2]))\n"
        "except SweepError as exc: print(json.dumps(str(exc)))"
    )
    root = Path(sweep_run.__file__).resolve().parents[2]  # this copy of the package
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    env["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "tiny.toml"), str(out)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected
