"""Sweeps name data files by dataset reference (``data:NAME/FILE``).

Without any real data: a tiny Gavel-like trace and throughput table are registered as fake
datasets (their SHA-256 computed here) and fetched into a temporary cache. The shipped Philly
sweeps on Gavel's real files are in ``test_sweep_validation.py`` (``gavel_data``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments.sweep import build_instance, load_sweep, run_sweep
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.datasets import DataFile, Dataset

runner = CliRunner()

R18, R50 = "ResNet-18 (batch size 32)", "ResNet-50 (batch size 64)"
#: Ten jobs, one every 100 s: 1, 2 or 4 GPUs, alternating families.
TRACE = "".join(
    f"{R18 if i % 2 else R50}\tcmd\t-n\t1\t{1000 * (i + 1)}\t{100.0 * i}\t{(1, 2, 4)[i % 3]}\n"
    for i in range(10)
)
TABLE = {
    "v100": {
        f"('{family}', {gpus})": {"null": rate}
        for family, rate in ((R18, 10.0), (R50, 5.0))
        for gpus in (1, 2, 4)
    }
}

SWEEP = """\
name = "named"
seeds = [0, 1, 2]

[[workloads]]
kind = "gavel"
mode = "catalog"
trace = "data:tiny-gavel/vc.trace"
throughputs = "data:tiny-table"
gpus_per_node = 4

[sim]
dt = 10.0

[[variants]]
policy = "sjf"
"""


def _register(name: str, files: dict[str, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    entries = tuple(
        DataFile(f, f"https://example.invalid/{f}", hashlib.sha256(b).hexdigest(), len(b))
        for f, b in files.items()
    )
    monkeypatch.setitem(datasets.DATASETS, name, Dataset(name, "test", "tests", "none", entries))


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Datasets 'tiny-gavel' (vc.trace and an empty other.trace) and 'tiny-table' (tp.json),
    registered; their copies in the returned folder; the cache empty."""
    folder = tmp_path / "copy"
    folder.mkdir()
    files = {"vc.trace": TRACE.encode(), "other.trace": b"", "tp.json": json.dumps(TABLE).encode()}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    _register("tiny-gavel", {k: files[k] for k in ("vc.trace", "other.trace")}, monkeypatch)
    _register("tiny-table", {"tp.json": files["tp.json"]}, monkeypatch)
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "cache"))
    return folder


@pytest.fixture
def fetched(source: Path) -> Path:
    """Both datasets fetched; the cache folder."""
    datasets.fetch("tiny-gavel", source=source)
    datasets.fetch("tiny-table", source=source)
    return datasets.cache_dir()


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_references_resolve_and_key_by_reference(
    fetched: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's inputs are the references with the SHA-256 of the fetched files; the file read
    is the cache's; moving the cache changes no key; the sweep runs."""
    path = _write(tmp_path, SWEEP)
    sweep = load_sweep(path)
    run = sweep.runs[0]
    files = ("tiny-gavel/vc.trace", "tiny-table/tp.json")
    digest = {f: hashlib.sha256((fetched / f).read_bytes()).hexdigest() for f in files}
    assert dict(run.inputs) == {
        "data:tiny-table": digest["tiny-table/tp.json"],
        "data:tiny-gavel/vc.trace": digest["tiny-gavel/vc.trace"],
    }
    assert [s[0] for s in run.stamps] == [
        str(fetched / "tiny-table" / "tp.json"),
        str(fetched / "tiny-gavel" / "vc.trace"),
    ]
    moved = tmp_path / "elsewhere"
    shutil.copytree(fetched, moved)
    monkeypatch.setenv(datasets.CACHE_ENV, str(moved))
    assert [r.key for r in load_sweep(path).runs] == [r.key for r in sweep.runs]
    table = run_sweep(load_sweep(path), tmp_path / "out")
    assert len(table) == 3 and set(table["wl_trace"]) == {"data:tiny-gavel/vc.trace"}
    # The same instance as from the plain paths (only the key's strings differ).
    plain = {"kind": "gavel", "mode": "catalog", "gpus_per_node": 4}
    plain |= {"trace": str(moved / "tiny-gavel" / "vc.trace")}
    plain |= {"throughputs": str(moved / "tiny-table" / "tp.json")}
    assert build_instance(plain, 0) == build_instance(run.workload, 0)


def test_content_of_the_fetched_file_is_in_the_key(fetched: Path, tmp_path: Path) -> None:
    path = _write(tmp_path, SWEEP)
    before = load_sweep(path).runs[0].key
    cached = fetched / "tiny-gavel" / "vc.trace"
    cached.write_text(TRACE.replace("cmd", "cme"), encoding="utf-8")  # same size
    assert load_sweep(path).runs[0].key != before


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        (
            ("data:tiny-gavel/vc.trace", "data:tiny-gavl/vc.trace"),
            "workloads[0].trace",
            ["data:tiny-gavl/vc.trace: unknown dataset 'tiny-gavl'; registered:", "tiny-gavel"],
        ),
        (
            ("data:tiny-gavel/vc.trace", "data:tiny-gavel/vc.csv"),
            "workloads[0].trace",
            ["dataset 'tiny-gavel' has no file 'vc.csv'; its files: vc.trace, other.trace"],
        ),
        (
            ("data:tiny-gavel/vc.trace", "data:tiny-gavel"),
            "workloads[0].trace",
            ["dataset 'tiny-gavel' has 2 files; name one, e.g. data:tiny-gavel/vc.trace"],
        ),
        (
            ("", ""),
            "workloads[0].throughputs",
            ["'tiny-table' is not fetched", "sjfbsbf data fetch tiny-table", "--from PATH"],
        ),
        (
            ('throughputs = "data:tiny-table"\n', ""),
            "workloads[0].throughputs",
            ["data:gavel-throughputs: dataset 'gavel-throughputs' is not fetched"],
        ),
        (
            ("dt = 10.0", 'dt = 10.0\ninterference = "gavel-measured"'),
            "sim.throughputs",
            ["data:gavel-throughputs", "sjfbsbf data fetch gavel-throughputs"],
        ),
        (
            ("dt = 10.0", 'dt = 10.0\ninterference = "gavel-measured"\nthroughputs = "data:x"'),
            "sim.throughputs",
            ["data:x: unknown dataset 'x'"],
        ),
    ],
)
def test_refused_at_load_naming_file_and_key(
    source: Path, tmp_path: Path, edit: tuple[str, str], key: str, words: list[str]
) -> None:
    """Unknown dataset or file (no cache needed), or a dataset not fetched: one SweepError
    naming the sweep file and the key before anything runs; on the command line, one line."""
    datasets.fetch("tiny-gavel", source=source)  # tiny-table stays missing
    text = SWEEP.replace(*edit) if edit[0] else SWEEP
    if key == "sim.throughputs":
        datasets.fetch("tiny-table", source=source)
    path = _write(tmp_path, text)
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert (info.value.source, info.value.key) == (str(path), key)
    for word in words:
        assert word in str(info.value)
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"sjfbsbf: error: {path}, key '{key}': ")
    assert not (tmp_path / "out").exists()


def test_results_table_names_the_reference(fetched: Path, tmp_path: Path) -> None:
    path = _write(tmp_path, SWEEP.replace("seeds = [0, 1, 2]", "seeds = [5]"))
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    rows = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert rows["wl_throughputs"].tolist() == ["data:tiny-table"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["inputs"]) == ["data:tiny-gavel/vc.trace", "data:tiny-table"]
