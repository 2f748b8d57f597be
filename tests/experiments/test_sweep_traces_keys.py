"""Every key of a trace workload reaches its loader, and the load-time checks at their limits
(issue 35, mutation gaps): ``vc``, ``statuses``, ``attempts``, ``helios_cluster``, ``states`` as
the loaders take them; ``window`` and ``sample`` against the jobs of the time window (equal is
enough); ``sample`` of one job or the fraction 1.0; an unknown kind."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sjfbsbf.core.model import Cluster
from sjfbsbf.experiments.sweep_params import ParamError
from sjfbsbf.experiments.sweep_traces import (
    build_trace,
    check_trace_inputs,
    load_trace,
    sample_size,
    trace_options,
)
from sjfbsbf.experiments.sweep_workloads import canonical_workload
from sjfbsbf.workloads.helios import load_helios_log
from sjfbsbf.workloads.pai import load_pai_trace
from sjfbsbf.workloads.philly_log import load_philly_job_log

DATA = Path(__file__).resolve().parents[1] / "data"
PHILLY = DATA / "philly" / "cluster_job_log"
HELIOS = DATA / "helios" / "cluster_log.csv"
JOBS, TASKS = DATA / "pai" / "pai_job_table.csv", DATA / "pai" / "pai_task_table.csv"
EIGHT = DATA / "traces" / "eight_jobs.csv"  # submitted every 300 s from 0 to 2100
CLUSTER = Cluster(nodes=1, gpus_per_node=8)


def params(kind: str, **keys: Any) -> dict[str, Any]:
    return canonical_workload({"kind": kind, "nodes": 1, "gpus_per_node": 8, **keys})


def ids(instance) -> list[int]:  # type: ignore[no-untyped-def]
    return [job.id for job in instance.jobs]


@pytest.mark.parametrize(
    "keys",
    [{"vc": "vcA"}, {"statuses": "Pass"}, {"attempts": "sum"}],
)
def test_the_philly_keys_reach_the_loader(keys: dict[str, Any]) -> None:
    loader = {k: ({v} if k == "statuses" else v) for k, v in keys.items()}
    expected, _ = load_philly_job_log(PHILLY, CLUSTER, **loader)
    everything, _ = load_philly_job_log(PHILLY, CLUSTER)
    assert expected.jobs != everything.jobs  # the key changes what is loaded
    assert build_trace(params("philly-jobs", log=str(PHILLY), **keys), 0).jobs == expected.jobs


def test_the_helios_keys_reach_the_loader(tmp_path: Path) -> None:
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.write(HELIOS, "data/Venus/cluster_log.csv")
        out.write(DATA / "helios" / "no_user_column.csv", "data/Earth/cluster_log.csv")
    for keys in ({"helios_cluster": "Venus"}, {"helios_cluster": "Earth"}):
        expected, _ = load_helios_log(archive, CLUSTER, **keys)
        assert build_trace(params("helios", log=str(archive), **keys), 0).jobs == expected.jobs
    venus = {"helios_cluster": "Venus"}
    for keys in ({"vc": "vcJkd"}, {"states": "COMPLETED"}):
        loader = {k: ({v} if k == "states" else v) for k, v in keys.items()}
        expected, _ = load_helios_log(archive, CLUSTER, **venus, **loader)
        assert len(expected.jobs) < len(load_helios_log(archive, CLUSTER, **venus)[0].jobs)
        built = build_trace(params("helios", log=str(archive), **venus, **keys), 0)
        assert built.jobs == expected.jobs


def test_the_pai_statuses_reach_the_loader() -> None:
    expected, _ = load_pai_trace(JOBS, TASKS, CLUSTER, statuses={"Terminated"})
    assert ids(expected) == [0, 1, 3, 9]
    workload = params("pai", job_table=str(JOBS), task_table=str(TASKS), statuses="Terminated")
    assert build_trace(workload, 0).jobs == expected.jobs


def test_an_unknown_trace_kind_is_refused() -> None:
    table = params("table", path=str(EIGHT))
    with pytest.raises(ValueError) as info:
        load_trace({**table, "kind": "nope"}, trace_options(table), np.random.default_rng(0))
    assert str(info.value) == "not a trace workload kind: 'nope'"


def test_a_sample_is_one_job_or_more_or_a_fraction_up_to_1() -> None:
    assert (sample_size(1), sample_size(1.0), sample_size(0.5)) == (1, 1.0, 0.5)
    for bad in (0, 0.0, 1.5, True):
        with pytest.raises(ValueError) as info:
            sample_size(bad)
        assert str(info.value) == (
            "must be a number of jobs (an integer ≥ 1) or a fraction (a float in (0, 1]), "
            f"got {bad!r}"
        )


def check(**keys: Any) -> None:
    check_trace_inputs(params("table", path=str(EIGHT), **keys), {str(EIGHT): str(EIGHT)})


def test_a_window_may_hold_every_job_of_the_time_window_and_no_more() -> None:
    """From ``start = 100`` s after the first submission, 7 of the 8 jobs are in the window."""
    check(window=8)
    check(start=100.0, window=7)
    with pytest.raises(ParamError) as info:
        check(start=100.0, window=8)
    assert (info.value.key, info.value.reason) == (
        "window",
        "8 jobs is more than the trace has in its time window (7 jobs)",
    )
    check(window=3, sample=3)
    with pytest.raises(ParamError) as info:
        check(window=3, sample=4)
    assert (info.value.key, info.value.reason) == (
        "sample",
        "4 jobs is more than the window has (3 jobs)",
    )


def test_the_load_time_checks_read_the_file_each_value_maps_to(tmp_path: Path) -> None:
    """``files`` maps a file value (as written, e.g. a dataset reference) to the file read."""
    workload = params("table", path="trace.csv", window=8)
    check_trace_inputs(workload, {"trace.csv": str(EIGHT)})
    with pytest.raises(ParamError) as info:
        check_trace_inputs({**workload, "window": 9}, {"trace.csv": str(EIGHT)})
    assert info.value.reason == "9 jobs is more than the trace has in its time window (8 jobs)"
    missing = tmp_path / "missing.csv"
    with pytest.raises(ParamError) as info:
        check_trace_inputs(workload, {"trace.csv": str(missing)})
    assert info.value.key == "path" and str(missing) in info.value.reason
