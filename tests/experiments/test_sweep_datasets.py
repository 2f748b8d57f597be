"""Sweeps name data files by dataset reference (``data:NAME/FILE``) and draw random trace windows.

Without any real data: a tiny Gavel-like trace and throughput table are registered as fake
datasets (their SHA-256 computed here) and fetched into a temporary cache. The shipped Philly
sweeps on Gavel's real files are in ``test_sweep_validation.py`` (``gavel_data``).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import SweepError
from sjfbsbf.core.model import Cluster
from sjfbsbf.experiments.sweep import build_instance, load_sweep, run_sweep
from sjfbsbf.experiments.sweep_workloads import ParamError, canonical_workload
from sjfbsbf.workloads import datasets, load_gavel_trace, load_throughputs, random_window
from sjfbsbf.workloads.datasets import DataFile, Dataset
from sjfbsbf.workloads.generators import offered_load

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


def test_a_tampered_cached_file_is_refused_not_keyed(fetched: Path, tmp_path: Path) -> None:
    """A cached file edited after it was fetched (same size, same mtime) no longer matches its
    pinned SHA-256: the sweep is refused in one line, not run under another key (docs/security.md:
    the cache is checked on use, not only by size)."""
    import os

    path = _write(tmp_path, SWEEP)
    load_sweep(path)
    cached = fetched / "tiny-gavel" / "vc.trace"
    stamp = cached.stat()
    cached.write_text(TRACE.replace("cmd", "cme"), encoding="utf-8")  # same size
    os.utime(cached, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # touch -r: same mtime
    with pytest.raises(SweepError, match="SHA-256 differs from the pinned one") as info:
        load_sweep(path)
    assert "data fetch tiny-gavel" in str(info.value) and "\n" not in str(info.value)


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


def test_window_is_drawn_by_the_seed(fetched: Path, source: Path, tmp_path: Path) -> None:
    """``window = 4``: the seed's default_rng picks the start among the 10 jobs (7 choices),
    the 4 consecutive jobs are rebased to 0 and the cluster is sized for them, not the trace."""
    path = _write(tmp_path, SWEEP.replace("gpus_per_node = 4", "gpus_per_node = 4\nwindow = 4"))
    runs = load_sweep(path).runs
    table = load_throughputs(source / "tp.json")
    probe = Cluster(nodes=1024, gpus_per_node=4, gpu_mem_gb=12.0)
    whole = load_gavel_trace(source / "vc.trace", table, cluster=probe, mode="catalog")
    starts = []
    for run in runs:
        instance = build_instance(run.workload, run.seed)
        start = int(np.random.default_rng(run.seed).integers(7))
        starts.append(start)
        assert [j.id for j in instance.jobs] == list(range(start, start + 4))
        assert [j.arrival for j in instance.jobs] == [0.0, 100.0, 200.0, 300.0]
        window = random_window(whole, 4, np.random.default_rng(run.seed))
        assert [j.id for j in window.jobs] == [j.id for j in instance.jobs]
        assert instance.cluster.nodes == max(1, math.ceil(offered_load(window, 4) / 0.75))
        assert build_instance(run.workload, run.seed) == instance  # the same seed, same window
    assert len(set(starts)) > 1  # seeds 0, 1, 2 differ
    assert len({r.key for r in runs}) == 3


def test_window_refusals(fetched: Path, tmp_path: Path) -> None:
    """``window`` with ``first``: refused naming both; larger than the trace: refused at load
    naming the key and the trace's job count."""
    both = SWEEP.replace("gpus_per_node = 4", "gpus_per_node = 4\nwindow = 4\nfirst = 5")
    with pytest.raises(SweepError, match=r"'first' and 'window' exclude each other") as info:
        load_sweep(_write(tmp_path, both))
    assert info.value.key == "workloads[0].window"
    large = SWEEP.replace("gpus_per_node = 4", "gpus_per_node = 4\nwindow = [4, 11]")
    with pytest.raises(SweepError, match=r"11 jobs is more than the trace has \(10 jobs\)") as info:
        load_sweep(_write(tmp_path, large))
    assert info.value.key == "workloads[0].window"
    empty = SWEEP.replace("vc.trace", "other.trace").replace("gpus_per_node = 4", "window = 2")
    with pytest.raises(SweepError, match=r"other.trace: the trace has no jobs") as info:
        load_sweep(_write(tmp_path, empty))  # refused by the trace reader itself
    assert info.value.key == "workloads[0].trace"
    bad = tmp_path / "bad.trace"
    bad.write_text("ResNet-18 (batch size 32)\tcmd\n", encoding="utf-8")
    malformed = SWEEP.replace("data:tiny-gavel/vc.trace", str(bad)).replace(
        "gpus_per_node = 4", "window = 2"
    )
    with pytest.raises(SweepError, match=r"line 1.*2 tab-separated fields, expected 7") as info:
        load_sweep(_write(tmp_path, malformed))
    assert info.value.key == "workloads[0].trace" and str(bad) in str(info.value)
    for small in (0, 1):  # one job has no arrival span: no cluster size (issue 35 item 12)
        one = SWEEP.replace("gpus_per_node = 4", f"gpus_per_node = 4\nwindow = {small}")
        with pytest.raises(SweepError, match=rf"must be at least 2, got {small}"):
            load_sweep(_write(tmp_path, one))
    ones = SWEEP.replace("gpus_per_node = 4", "gpus_per_node = 4\nfirst = 1")
    with pytest.raises(SweepError, match=r"workloads\[0\].first.*must be at least 2, got 1"):
        load_sweep(_write(tmp_path, ones))
    workload = {"kind": "gavel", "trace": "data:tiny-gavel/vc.trace", "window": 11}
    with pytest.raises(ParamError, match=r"window: 11 jobs is more than the trace has"):
        build_instance({**workload, "throughputs": "data:tiny-table", "gpus_per_node": 4}, 0)
    with pytest.raises(ParamError, match="exclude each other"):
        canonical_workload({**workload, "first": 3})


def test_results_table_names_the_reference(fetched: Path, tmp_path: Path) -> None:
    path = _write(tmp_path, SWEEP.replace("seeds = [0, 1, 2]", "seeds = [5]"))
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    rows = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert rows["wl_throughputs"].tolist() == ["data:tiny-table"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["inputs"]) == ["data:tiny-gavel/vc.trace", "data:tiny-table"]


def test_a_trace_whose_jobs_all_arrive_at_once_is_refused_in_one_line(
    fetched: Path, tmp_path: Path
) -> None:
    """No arrival span: no cluster size gives the target offered load (it used to be an
    OverflowError traceback in every run; issue 35 item 12)."""
    same = tmp_path / "same.trace"
    same.write_text(
        "".join(f"{R18}\tcmd\t-n\t1\t{1000 * (i + 1)}\t5.0\t1\n" for i in range(3)),
        encoding="utf-8",
    )
    text = SWEEP.replace("data:tiny-gavel/vc.trace", str(same))
    with pytest.raises(SweepError, match=r"3 jobs all arrive at 5 s: no arrival span") as info:
        load_sweep(_write(tmp_path, text))
    assert "\n" not in str(info.value)


def test_a_trace_row_the_table_cannot_price_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    """A job type missing from the throughput table failed every run after the output folder
    was written (issue 35, smaller items); the sweep now checks every row when it loads."""
    trace = tmp_path / "g.trace"
    trace.write_text(TRACE + "Transformer (batch size 99)\tcmd\t-n\t1\t1000\t2000\t1\n")
    table = tmp_path / "tp.json"
    table.write_text(json.dumps(TABLE))
    plain = SWEEP.replace('"data:tiny-gavel/vc.trace"', f'"{trace}"')
    path = _write(tmp_path, plain.replace('"data:tiny-table"', f'"{table}"'))
    out = tmp_path / "out"
    result = runner.invoke(app, ["sweep", str(path), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        f"sjfbsbf: error: {path}, key 'workloads[0].trace': {trace}, line 11, field 'job_type': "
        "unknown job type 'Transformer (batch size 99)' (not measured on v100)"
    ]
    assert not out.exists()
    trace.write_text(TRACE)  # the same sweep with a table that prices every row runs
    assert runner.invoke(app, ["sweep", str(path), "--out", str(out)]).exit_code == 0
