"""Trace workloads of a sweep (sjfbsbf.experiments.sweep_traces): ``table`` on the hand-written
tables of tests/data/traces, and ``philly-jobs``, ``helios``, ``pai`` on the small logs of
tests/data (plain paths, no dataset fetched). Each loads and runs end to end; the seed draws only
``window`` and ``sample``; bad keys and malformed files are refused naming file and key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import SweepError
from sjfbsbf.core.model import Cluster, Instance
from sjfbsbf.experiments.sweep import build_instance, load_sweep, run_sweep
from sjfbsbf.experiments.sweep_workloads import canonical_workload
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.generators import offered_load
from sjfbsbf.workloads.helios import load_helios_log
from sjfbsbf.workloads.pai import load_pai_trace
from sjfbsbf.workloads.philly_log import load_philly_job_log
from sjfbsbf.workloads.table_trace import read_trace_table
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport

DATA = Path(__file__).resolve().parents[1] / "data"
EIGHT = DATA / "traces" / "eight_jobs.csv"
CLUSTER = Cluster(nodes=1, gpus_per_node=8)
Loaded = tuple[Instance, TraceReport]

SWEEP = """\
name = "traces"
seeds = [0, 1]

[[workloads]]
kind = "{kind}"
nodes = 1
gpus_per_node = 8
{keys}

[sim]
dt = 60.0

[[variants]]
policy = "fifo"

[[variants]]
policy = "sjf-bsbf"
"""


def write(tmp_path: Path, kind: str, keys: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(kind=kind, keys=keys), encoding="utf-8")
    return path


def test_a_table_sweep_samples_with_the_run_seed(tmp_path: Path) -> None:
    """sample = 3 of eight_jobs.csv: seed s keeps what read_trace_table keeps with
    default_rng(s); seeds 0 and 1 keep rows 4, 5, 7 and 2, 3, 6."""
    sweep = load_sweep(write(tmp_path, "table", f'path = "{EIGHT}"\nsample = 3'))
    assert len(sweep.runs) == 4 and dict(sweep.runs[0].inputs).keys() == {str(EIGHT)}
    workload = sweep.runs[0].workload
    assert workload["oversize"] == "cap" and workload["sample"] == 3
    for seed, ids in ((0, [4, 5, 7]), (1, [2, 3, 6])):
        instance = build_instance(workload, seed)
        expected, _ = read_trace_table(
            EIGHT, CLUSTER, options=TraceOptions(sample=3), rng=np.random.default_rng(seed)
        )
        assert instance == expected and [j.id for j in instance.jobs] == ids
    table = run_sweep(sweep, tmp_path / "out")
    assert len(table) == 4 and set(table["n_jobs"]) == {3} and set(table["wl_kind"]) == {"table"}


def test_without_random_options_the_seed_changes_nothing(tmp_path: Path) -> None:
    """A time window and a target load: the same instance for every seed, at exactly the load."""
    keys = f'path = "{EIGHT}"\nstart = 600\nend = 1500.0\ntarget_load = 0.5'
    sweep = load_sweep(write(tmp_path, "table", keys))
    workload = sweep.runs[0].workload
    assert (workload["start"], workload["end"]) == (600.0, 1500.0)
    first, second = build_instance(workload, 0), build_instance(workload, 1)
    assert first == second and [j.id for j in first.jobs] == [2, 3, 4]
    assert offered_load(first) == pytest.approx(0.5, rel=1e-12)
    table = run_sweep(sweep, tmp_path / "out")
    assert len(table) == 4 and set(table["n_jobs"]) == {3}


def test_public_trace_kinds_default_to_their_datasets() -> None:
    philly = canonical_workload({"kind": "philly-jobs"})
    assert philly["log"] == "data:philly-jobs/trace-data.tar.gz" and philly["attempts"] == "last"
    assert (philly["nodes"], philly["gpus_per_node"], philly["oversize"]) == (4, 8, "cap")
    assert canonical_workload({"kind": "helios"})["log"] == "data:helios/data.zip"
    pai = canonical_workload({"kind": "pai"})
    assert pai["job_table"] == "data:pai-gpu-2020/pai_job_table.tar.gz"
    assert pai["task_table"] == "data:pai-gpu-2020/pai_task_table.tar.gz"
    statuses = canonical_workload({"kind": "pai", "statuses": " Terminated, Failed,Failed"})
    assert statuses["statuses"] == "Failed,Terminated"


@pytest.mark.parametrize(
    ("kind", "keys", "load"),
    [
        (
            "philly-jobs",
            f'log = "{DATA / "philly" / "cluster_job_log"}"\nstatuses = "Pass,Killed"\n'
            'window = 3\noversize = "drop"',
            lambda rng: load_philly_job_log(
                DATA / "philly" / "cluster_job_log",
                CLUSTER,
                statuses={"Pass", "Killed"},
                options=TraceOptions(window_jobs=3, oversize="drop"),
                rng=rng,
            ),
        ),
        (
            "helios",
            f'log = "{DATA / "helios" / "cluster_log.csv"}"\nstates = "COMPLETED,FAILED"\n'
            "target_load = 0.9",
            lambda rng: load_helios_log(
                DATA / "helios" / "cluster_log.csv",
                CLUSTER,
                states={"COMPLETED", "FAILED"},
                options=TraceOptions(target_load=0.9),
                rng=rng,
            ),
        ),
        (
            "pai",
            f'job_table = "{DATA / "pai" / "pai_job_table.csv"}"\n'
            f'task_table = "{DATA / "pai" / "pai_task_table.csv"}"\nsample = 0.5',
            lambda rng: load_pai_trace(
                DATA / "pai" / "pai_job_table.csv",
                DATA / "pai" / "pai_task_table.csv",
                CLUSTER,
                options=TraceOptions(sample=0.5),
                rng=rng,
            ),
        ),
    ],
)
def test_public_trace_kinds_load_as_their_loaders_and_run(
    tmp_path: Path, kind: str, keys: str, load: Callable[[np.random.Generator], Loaded]
) -> None:
    sweep = load_sweep(write(tmp_path, kind, keys))
    for seed in (0, 1):
        expected, _ = load(np.random.default_rng(seed))
        assert build_instance(sweep.runs[0].workload, seed) == expected
    table = run_sweep(sweep, tmp_path / "out")
    assert len(table) == 4 and set(table["wl_kind"]) == {kind}


#: id -> (kind, keys, key named, words of the message)
BAD = {
    "sample zero": ("table", f'path = "{EIGHT}"\nsample = 0', "sample", "integer ≥ 1"),
    "sample above one": ("table", f'path = "{EIGHT}"\nsample = 1.5', "sample", "a fraction"),
    "sample text": ("table", f'path = "{EIGHT}"\nsample = "half"', "sample", "got 'half'"),
    "end before start": ("table", f'path = "{EIGHT}"\nstart = 600\nend = 600', "end", "after"),
    "negative start": ("table", f'path = "{EIGHT}"\nstart = -1', "start", ">= 0"),
    "oversize": ("table", f'path = "{EIGHT}"\noversize = "shrink"', "oversize", "'refuse'"),
    "no path": ("table", "", "path", "missing (kind 'table' needs it)"),
    "window too large": ("table", f'path = "{EIGHT}"\nwindow = 9', "window", "more than"),
    "window of the time window": (
        "table",
        f'path = "{EIGHT}"\nend = 900\nwindow = 4',
        "window",
        "4 jobs is more than the trace has in its time window (3 jobs)",
    ),
    "sample of the window": (
        "table",
        f'path = "{EIGHT}"\nwindow = 2\nsample = 3',
        "sample",
        "3 jobs is more than the window has (2 jobs)",
    ),
    "malformed table": (
        "table",
        f'path = "{DATA / "traces" / "bad_fractional_gpus.csv"}"',
        "path",
        "bad_fractional_gpus.csv, line 3, field 'num_gpus'",
    ),
    "refused job": (
        "table",
        f'path = "{EIGHT}"\noversize = "refuse"\nnodes = 1\ngpus_per_node = 4',
        "path",
        "line 6, field 'num_gpus': 8 GPUs, more than the cluster's 4",
    ),
    "empty time window": ("table", f'path = "{EIGHT}"\nstart = 5000', "path", "no job left"),
    "blank status": ("philly-jobs", 'statuses = "Pass,"', "statuses", "names separated"),
    "helios cluster": ("helios", 'helios_cluster = "Mars"', "helios_cluster", "'Venus'"),
    "malformed helios": (
        "helios",
        f'log = "{DATA / "helios" / "bad_fractional_gpus.csv"}"',
        "log",
        "field 'gpu_num'",
    ),
    "malformed pai task table": (
        "pai",
        f'job_table = "{DATA / "pai" / "pai_job_table.csv"}"\n'
        f'task_table = "{DATA / "pai" / "bad_task_plan_gpu.csv"}"',
        "task_table",
        "bad_task_plan_gpu.csv, line",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_trace_workloads_are_refused_naming_file_and_key(tmp_path: Path, case: str) -> None:
    kind, keys, key, words = BAD[case]
    text = SWEEP.format(kind=kind, keys=keys)
    if "nodes = 1\ngpus_per_node = 4" in keys:  # this case sets the cluster itself
        text = text.replace("nodes = 1\ngpus_per_node = 8\n", "", 1)
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    message = str(info.value)
    assert message.startswith(f"{path}, key 'workloads[0].{key}': "), message
    assert words in message and "\n" not in message


def test_a_dataset_not_fetched_is_refused_saying_how_to_fetch_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "empty-cache"))
    path = write(tmp_path, "philly-jobs", "")
    with pytest.raises(SweepError, match=r"key 'workloads\[0\]\.log'.*sjfbsbf data fetch"):
        load_sweep(path)
