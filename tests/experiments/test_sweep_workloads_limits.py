"""A sweep's workload keys at and around their limits (issue 35, mutation gaps).

Each refusal of :func:`canonical_workload` word for word and under its key; an expected span of
exactly 10 years; the ``default`` spec built from every key; the ``testbed`` cluster; the files a
run reads; and the ``gavel`` workload on tiny traces and throughput tables written here (no
dataset needed): ``first``, ``window`` (equal to the trace is enough), the probe and the cluster
sized for ``target_load`` (100,000 nodes and no more), jobs that all arrive at once, the rows
checked on the widest cluster in the workload's mode and GPU memory, and the throughput table
read again when its file changes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import MAX_GPUS, MAX_NODES, MAX_TIME_S, Cluster
from sjfbsbf.experiments import sweep_workloads
from sjfbsbf.experiments.sweep_workloads import (
    ParamError,
    build_instance,
    canonical_workload,
    check_inputs,
    input_files,
)
from sjfbsbf.workloads import generators
from sjfbsbf.workloads.gavel import load_gavel_trace, load_throughputs
from sjfbsbf.workloads.generators import WorkloadSpec, generate, offered_load

R18, R50 = "ResNet-18 (batch size 32)", "ResNet-50 (batch size 64)"
TABLE = {
    "v100": {
        f"('{family}', {gpus})": {"null": rate}
        for family, rate in ((R18, 10.0), (R50, 5.0))
        for gpus in (1, 2, 4)
    }
}


def _trace_text(arrivals: list[float], gpus: int | None = None) -> str:
    return "".join(
        f"{R18 if i % 2 else R50}\tcmd\t-n\t1\t{1000 * (i + 1)}\t{arrival}\t"
        f"{gpus or (1, 2, 4)[i % 3]}\n"
        for i, arrival in enumerate(arrivals)
    )


def _files(tmp_path: Path, arrivals: list[float], gpus: int | None = None) -> tuple[str, str]:
    trace = tmp_path / "g.trace"
    trace.write_text(_trace_text(arrivals, gpus), encoding="utf-8")
    table = tmp_path / "tp.json"
    table.write_text(json.dumps(TABLE), encoding="utf-8")
    return str(trace), str(table)


def _gavel(trace: str, table: str, **keys: object) -> dict[str, object]:
    return canonical_workload(
        {"kind": "gavel", "trace": trace, "throughputs": table, "gpus_per_node": 4, **keys}
    )


def _refusal(workload: dict[str, object]) -> tuple[str, str]:
    with pytest.raises(ParamError) as info:
        canonical_workload(workload)
    assert str(info.value) == f"{info.value.key}: {info.value.reason}"
    return info.value.key, info.value.reason


def test_an_unknown_kind_is_refused_naming_the_known_ones() -> None:
    known = "default, testbed, file, gavel, table, philly-jobs, helios, pai"
    assert _refusal({"kind": "nope"}) == ("kind", f"unknown workload kind 'nope'; known: {known}")
    assert _refusal({"kind": ["default"]}) == (
        "kind",
        f"unknown workload kind ['default']; known: {known}",
    )
    assert _refusal({}) == ("kind", f"unknown workload kind None; known: {known}")


def test_an_unknown_key_or_bad_value_is_refused_under_its_key() -> None:
    assert _refusal({"kind": "testbed", "x": 1}) == (
        "x",
        "unknown key for kind 'testbed' (allowed: kind, gpu_mem_gb, gpus_per_node, n_jobs, nodes)",
    )
    assert _refusal({"kind": "default", "n_jobs": 0}) == (
        "n_jobs",
        "must be between 1 and 10,000,000, got 0",
    )
    assert _refusal({"kind": "gavel", "trace": "a", "first": 3, "window": 3}) == (
        "window",
        "'first' and 'window' exclude each other (the first N jobs, or N from a random "
        "start): give one",
    )


def test_a_span_past_ten_years_is_refused_with_its_numbers() -> None:
    workload = {
        "kind": "default",
        "n_jobs": 10_000_000,
        "rate_factor": 0.5,
        "gpus_per_node": 2,
        "nodes": 3,
    }
    assert _refusal(workload) == (
        "n_jobs",
        "10,000,000 jobs at load 0.4 on 6 GPUs would arrive over about 7,531,660,539 s, more "
        "than the 10 years (315,576,000 s) an arrival may be: fewer jobs, more GPUs or a "
        "higher load",
    )


def test_the_duration_keys_together() -> None:
    """A shape without Pareto is refused word for word; equal bounds are accepted."""
    assert _refusal({"kind": "default", "duration_shape": 2.0}) == (
        "duration_shape",
        "applies only to durations = 'pareto' (give durations too)",
    )
    equal = canonical_workload({"kind": "default", "duration_min_s": 600, "duration_max_s": 600})
    assert (equal["duration_min_s"], equal["duration_max_s"]) == (600.0, 600.0)
    assert canonical_workload({"kind": "default", "duration_min_s": 3600})["duration_min_s"] == (
        3600.0
    )


def test_the_default_spec_takes_every_key() -> None:
    workload = {
        "kind": "default",
        "n_jobs": 20,
        "nodes": 2,
        "gpus_per_node": 4,
        "load": 0.5,
        "rate_factor": 2.0,
        "mix": "light",
        "durations": "pareto",
        "duration_shape": 2.5,
        "duration_min_s": 300,
        "duration_max_s": 900,
    }
    spec = sweep_workloads._default_spec(canonical_workload(workload))
    assert spec == WorkloadSpec(
        n_jobs=20,
        cluster=Cluster(nodes=2, gpus_per_node=4, gpu_mem_gb=12.0),
        load=1.0,
        models=spec.models,
        duration_min_s=300.0,
        duration_max_s=900.0,
        duration_dist="pareto",
        duration_shape=2.5,
    )
    assert spec.models and spec.models != WorkloadSpec().models
    assert build_instance(workload, 3) == generate(spec, np.random.default_rng(3))


def test_a_testbed_workload_on_its_cluster() -> None:
    workload = {"kind": "testbed", "n_jobs": 61, "nodes": 2, "gpus_per_node": 16}
    cluster = Cluster(nodes=2, gpus_per_node=16, gpu_mem_gb=12.0)
    expected = generators.testbed_workload(61, np.random.default_rng(4), cluster=cluster)
    assert build_instance(workload, 4) == expected
    assert build_instance(workload, 4).cluster == cluster
    assert build_instance(workload, 5) != expected


def test_a_table_both_read_is_named_once(tmp_path: Path) -> None:
    trace, table = _files(tmp_path, [0.0, 100.0])
    workload = _gavel(trace, table)
    assert input_files(workload, {"throughputs": table}) == (table, trace)
    other = str(tmp_path / "other.json")
    assert input_files(workload, {"throughputs": other}) == (table, trace, other)
    assert input_files(workload, {}) == (table, trace)


def test_first_and_window_keep_the_jobs_asked_for(tmp_path: Path) -> None:
    trace, table = _files(tmp_path, [100.0 * i for i in range(10)])
    whole = build_instance(_gavel(trace, table), 0)
    assert whole.num_jobs == 10
    first = build_instance(_gavel(trace, table, first=3), 0)
    assert [j.arrival for j in first.jobs] == [0.0, 100.0, 200.0]
    check_inputs(_gavel(trace, table, window=10), {trace: trace})  # equal is enough
    assert build_instance(_gavel(trace, table, window=10), 1).num_jobs == 10
    with pytest.raises(ParamError) as info:
        check_inputs(_gavel(trace, table, window=11), {trace: trace})
    assert str(info.value) == "window: 11 jobs is more than the trace has (10 jobs)"


def test_the_cluster_is_sized_for_the_target_load(tmp_path: Path) -> None:
    """Nodes: the fewest whole nodes whose offered load is at most ``target_load``, at least
    one; a job wider than the probe's 1024 nodes would not fit it."""
    trace, table = _files(tmp_path, [100.0 * i for i in range(10)])
    light = build_instance(_gavel(trace, table, target_load=1000.0), 0)
    assert light.cluster == Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=12.0)
    sized = build_instance(_gavel(trace, table, target_load=0.5, gpu_mem_gb=16), 0)
    table_read = load_throughputs(table)
    probe = load_gavel_trace(trace, table_read, cluster=Cluster(1024, 4, 16.0))
    nodes = int(np.ceil(offered_load(probe, 4) / 0.5))
    assert nodes > 1
    assert sized.cluster == Cluster(nodes=nodes, gpus_per_node=4, gpu_mem_gb=16.0)
    assert sized == load_gavel_trace(trace, table_read, cluster=sized.cluster, mode="catalog")


def test_a_target_load_needing_too_many_nodes_is_refused(tmp_path: Path) -> None:
    """At most 100,000 nodes (fewer when the GPUs per node would pass 2**22): exactly that many
    is a cluster, one more is refused word for word."""
    trace, table = _files(tmp_path, [0.0, 1.0], gpus=4)
    with pytest.raises(ParamError) as info:
        build_instance(_gavel(trace, table, target_load=1e-9), 0)
    assert (info.value.key, info.value.reason) == (
        "target_load",
        "needs 400,450,000,000 nodes of 4 GPUs, more than a cluster may have "
        f"({MAX_NODES:,} nodes, {MAX_GPUS:,} GPUs)",
    )
    probe = load_gavel_trace(
        trace, load_throughputs(table), cluster=Cluster(1024, 4, 12.0), mode="catalog"
    )
    per_node = offered_load(probe, 4)
    most = build_instance(_gavel(trace, table, target_load=per_node / (MAX_NODES - 0.5)), 0)
    assert most.cluster.nodes == MAX_NODES
    with pytest.raises(ParamError, match=rf"^target_load: needs {MAX_NODES + 1:,} nodes of 4"):
        build_instance(_gavel(trace, table, target_load=per_node / (MAX_NODES + 0.5)), 0)


@pytest.mark.parametrize(
    ("keys", "key", "at"),
    [({}, "trace", 5), ({"first": 2}, "first", 0), ({"window": 2}, "window", 0)],
)
def test_jobs_that_all_arrive_at_once_are_refused_under_the_key_that_kept_them(
    tmp_path: Path, keys: dict[str, int], key: str, at: int
) -> None:
    """Before a run (the trace's own times) and in the run (a slice or window of the trace
    starts at 0 s)."""
    trace, table = _files(tmp_path, [5.0, 5.0] + ([9.0] if "first" in keys else []))
    workload = _gavel(trace, table, **keys)
    reason = (
        "its 2 jobs all arrive at {} s: no arrival span, so no cluster size gives a target "
        "offered load (take more jobs)"
    )
    with pytest.raises(ParamError) as info:
        build_instance(workload, 0)
    assert (info.value.key, info.value.reason) == (key, reason.format(at))
    if "window" not in keys:
        with pytest.raises(ParamError) as info:
            check_inputs(workload, {trace: trace})
        assert (info.value.key, info.value.reason) == (key, reason.format(5))


def test_a_trace_of_one_job_is_refused_in_one_line(tmp_path: Path) -> None:
    trace, table = _files(tmp_path, [7.0])
    workload = _gavel(trace, table)
    tail = "no arrival span, so no cluster size gives a target offered load (take more jobs)"
    with pytest.raises(ParamError) as info:
        check_inputs(workload, {trace: trace})
    assert str(info.value) == f"trace: its 1 jobs all arrive at 7 s: {tail}"
    with pytest.raises(ParamError) as info:
        build_instance(workload, 0)
    assert str(info.value) == f"trace: its 1 jobs all arrive at 7 s: {tail}"


def test_a_span_within_the_first_jobs_is_enough(tmp_path: Path) -> None:
    trace, table = _files(tmp_path, [5.0, 5.0, 7.0])
    check_inputs(_gavel(trace, table), {trace: trace})
    check_inputs(_gavel(trace, table, first=3), {trace: trace})
    with pytest.raises(ParamError, match=r"^first: its 2 jobs all arrive at 5 s"):
        check_inputs(_gavel(trace, table, first=2), {trace: trace})


def test_the_inputs_are_checked_on_the_widest_cluster_in_the_mode_given(tmp_path: Path) -> None:
    """A 4-GPU job on 1-GPU nodes fits the widest cluster; the duration mode reads the trace's
    steps as seconds and still checks every row."""
    trace, table = _files(tmp_path, [100.0 * i for i in range(3)], gpus=4)
    workload = _gavel(trace, table, gpus_per_node=1, gpu_mem_gb=16, mode="duration")
    check_inputs(workload, {trace: trace})


def _rate(table: object) -> float:
    return table.solo["v100"][(R18, 1)]  # type: ignore[attr-defined]


def test_the_throughput_table_is_read_again_when_its_file_changes(tmp_path: Path) -> None:
    """Same mtime, another size; or the same size, another mtime: each is read anew."""
    path = tmp_path / "tp.json"
    path.write_text(json.dumps(TABLE), encoding="utf-8")
    assert _rate(sweep_workloads._throughputs(str(path))) == 10.0
    stat = os.stat(path)
    path.write_text(json.dumps(TABLE).replace("10.0", "20.0") + " ", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _rate(sweep_workloads._throughputs(str(path))) == 20.0
    size = os.stat(path).st_size
    path.write_text(json.dumps(TABLE).replace("10.0", "30.0") + " ", encoding="utf-8")
    assert os.stat(path).st_size == size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert _rate(sweep_workloads._throughputs(str(path))) == 30.0


def test_a_span_of_exactly_ten_years_is_accepted() -> None:
    """Two jobs on one GPU at a load whose expected span is 315,576,000 s to the last bit; the
    next lower load is refused."""
    load = 3.242227169389678e-06
    workload = {"kind": "default", "n_jobs": 2, "nodes": 1, "gpus_per_node": 1, "load": load}
    canonical = canonical_workload(workload)
    assert generators.expected_span(sweep_workloads._default_spec(canonical)) == MAX_TIME_S
    assert canonical["load"] == load
    lower = float(np.nextafter(load, 0.0))
    key, reason = _refusal({**workload, "load": lower})
    assert key == "n_jobs" and "would arrive over about 315,576,000 s" in reason


def test_the_inputs_are_checked_in_the_workloads_mode_and_memory(tmp_path: Path) -> None:
    """A family with no catalog model is refused in catalog mode only; a GPU too small for a
    model's batch is refused for the workload's GPUs, not the default 12 GB."""
    trace = tmp_path / "foo.trace"
    trace.write_text(
        "".join(f"Foo (batch size 1)\tcmd\t-n\t1\t1000\t{10.0 * i}\t1\n" for i in range(3)),
        encoding="utf-8",
    )
    table = tmp_path / "foo.json"
    table.write_text(json.dumps({"v100": {"('Foo (batch size 1)', 1)": {"null": 1.0}}}))
    catalog = _gavel(str(trace), str(table))
    with pytest.raises(InstanceError, match=r"no catalog model for job family 'Foo'"):
        check_inputs(catalog, {str(trace): str(trace)})
    check_inputs({**catalog, "mode": "duration"}, {str(trace): str(trace)})
    trace, table = _files(tmp_path, [0.0, 100.0, 200.0])
    check_inputs(_gavel(trace, table, gpu_mem_gb=12), {trace: trace})
    with pytest.raises(InstanceError, match=r"more than the cluster's 1\.0 GB"):
        check_inputs(_gavel(trace, table, gpu_mem_gb=1), {trace: trace})


def test_the_load_is_measured_with_jobs_capped_to_1024_nodes(tmp_path: Path) -> None:
    """The probe cluster is 1024 nodes of the workload's GPUs per node: a 2048-GPU job counts
    as 1024 GPUs on 1-GPU nodes (not 4 nodes' worth, nor 1025, nor 8 GPUs per node)."""
    trace = tmp_path / "wide.trace"
    gpus = [1, 2048, 1, 4, 1, 2, 1, 1, 1, 1]
    trace.write_text(
        "".join(
            f"{R18}\tcmd\t-n\t1\t{1000 * (i + 1)}\t{10.0 * i}\t{g}\n" for i, g in enumerate(gpus)
        ),
        encoding="utf-8",
    )
    table = tmp_path / "tp.json"
    table.write_text(json.dumps(TABLE), encoding="utf-8")
    rates = load_throughputs(table)

    def nodes(probe: Cluster) -> int:
        loaded = load_gavel_trace(trace, rates, cluster=probe, mode="catalog")
        return int(np.ceil(offered_load(loaded, 1) / 0.1))

    expected = nodes(Cluster(1024, 1, 12.0))
    others = {nodes(Cluster(4, 1, 12.0)), nodes(Cluster(1025, 1, 12.0)), nodes(Cluster(1024, 8))}
    assert expected not in others
    workload = _gavel(str(trace), str(table), gpus_per_node=1, target_load=0.1)
    assert build_instance(workload, 0).cluster == Cluster(expected, 1, 12.0)


def test_a_gpu_too_small_is_found_before_the_arrival_span(tmp_path: Path) -> None:
    """The probe has the workload's GPU memory: a model that does not fit is the refusal, even
    for jobs that all arrive at once."""
    trace, table = _files(tmp_path, [5.0, 5.0])
    with pytest.raises(InstanceError, match=r"more than the cluster's 1\.0 GB"):
        build_instance(_gavel(trace, table, gpu_mem_gb=1), 0)


@pytest.mark.parametrize(
    ("gpus", "refusal"),
    [
        (64, "338,803,600 iterations of 1.18 s run 400,000,000 s alone"),
        (4, "368,663,594 iterations of 1.08 s run 399,999,999 s alone"),
    ],
)
def test_the_inputs_are_checked_on_the_widest_cluster_of_the_nodes_given(
    tmp_path: Path, gpus: int, refusal: str
) -> None:
    """Every row is checked at its own GPU count on 1-GPU nodes (100,000 of them): a job too
    long for 10 years is refused with the iterations and step of that cluster, not of 4 nodes
    (64 GPUs capped to 4) nor of 8-GPU nodes (4 GPUs on one node)."""
    trace = tmp_path / "long.trace"
    trace.write_text(
        f"{R18}\tcmd\t-n\t1\t400000000\t0.0\t{gpus}\n{R18}\tcmd\t-n\t1\t10\t5.0\t1\n",
        encoding="utf-8",
    )
    table = tmp_path / "slow.json"
    table.write_text(json.dumps({"v100": {f"('{R18}', {g})": {"null": 1.0} for g in (1, 2, 4)}}))
    workload = _gavel(str(trace), str(table), gpus_per_node=1)
    with pytest.raises(InstanceError) as info:
        check_inputs(workload, {str(trace): str(trace)})
    assert str(info.value) == (
        f"{trace}, line 1, field 'iterations': {refusal}, more than 315,576,000 s (10 years)"
    )


def test_the_widest_cluster_has_whole_nodes(tmp_path: Path) -> None:
    """48 GPUs per node: 2**22 / 48 is not whole, the cluster has its 87,381 whole nodes."""
    trace, table = _files(tmp_path, [0.0, 100.0, 200.0])
    check_inputs(_gavel(trace, table, gpus_per_node=48), {trace: trace})
