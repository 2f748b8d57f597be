"""The workloads a sweep can run: their parameters (checked before anything runs), the files they
read, and how each builds its instance.

Each ``kind`` has a table of :class:`Param`: a checker that returns the canonical value (ints as
ints, numbers as floats) or raises :class:`ValueError` with the reason, whether the key is
required, its default (filled in, so ``n_jobs = 200`` and no ``n_jobs`` are the same run), and
whether it names a file the run reads (its content is hashed into the run's key). A file is a
path or a dataset reference, ``data:NAME/FILE`` (:func:`~sjfbsbf.workloads.datasets.
resolve_data_path`): the reference is what the key holds, the fetched file is what is read.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from sjfbsbf.core.instance_io import read_instance
from sjfbsbf.core.model import MAX_GPUS, MAX_NODES, MAX_TIME_S, Cluster, Instance
from sjfbsbf.experiments.sweep_params import (
    CLUSTER_PARAMS,
    Param,
    ParamError,
    data_file,
    integer,
    make_cluster,
    number,
    text,
)
from sjfbsbf.experiments.sweep_traces import (
    TRACE_PARAMS,
    build_trace,
    check_trace_inputs,
    check_trace_params,
)
from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS, resolve_data_path
from sjfbsbf.workloads.gavel import GavelThroughputs, load_gavel_trace, load_throughputs
from sjfbsbf.workloads.gavel_trace import read_gavel_trace
from sjfbsbf.workloads.generators import (
    DURATION_DISTS,
    MODEL_MIXES,
    TESTBED_SHAPES,
    WorkloadSpec,
    expected_span,
    generate,
    offered_load,
    testbed_workload,
)
from sjfbsbf.workloads.transform import random_window, slice_trace

#: Most jobs a generated workload may have.
MAX_GENERATED_JOBS = 10_000_000

#: kind -> its parameters (besides ``kind``).
WORKLOAD_PARAMS: Mapping[str, Mapping[str, Param]] = {
    "default": {
        **CLUSTER_PARAMS,
        "n_jobs": Param(integer(1, MAX_GENERATED_JOBS), default=200),
        "load": Param(number(), default=0.8),
        "rate_factor": Param(number(), default=1.0),
        # No default: absent is the whole catalog, as before the key existed (same run keys).
        "mix": Param(text(*MODEL_MIXES)),
        # Exclusive durations (docs/model.md §7). No defaults either: absent is log-uniform in
        # [120, 3600] s, as before the keys existed (same run keys); checked together in
        # _check_durations.
        "durations": Param(text(*DURATION_DISTS)),
        "duration_shape": Param(number()),
        "duration_min_s": Param(number(0.0, MAX_TIME_S)),
        "duration_max_s": Param(number(0.0, MAX_TIME_S)),
    },
    "testbed": {
        **CLUSTER_PARAMS,
        "n_jobs": Param(integer(1, choices=tuple(sorted(TESTBED_SHAPES))), default=30),
    },
    "gavel": {
        "trace": Param(data_file, required=True, is_file=True),
        "throughputs": Param(data_file, default=DEFAULT_THROUGHPUTS, is_file=True),
        "mode": Param(text("catalog", "duration"), default="catalog"),
        "first": Param(integer(2)),
        # No default: absent is the whole trace (or its first N jobs), the seed picks nothing.
        "window": Param(integer(2)),
        "target_load": Param(number(), default=0.75),
        "gpus_per_node": CLUSTER_PARAMS["gpus_per_node"],
        "gpu_mem_gb": CLUSTER_PARAMS["gpu_mem_gb"],
    },
    "file": {"path": Param(data_file, required=True, is_file=True)},
    **TRACE_PARAMS,  # table, philly-jobs, helios, pai (sjfbsbf.experiments.sweep_traces)
}


def input_files(workload: Mapping[str, Any], sim: Mapping[str, Any]) -> tuple[str, ...]:
    """The files a run reads, explicit (a trace, an instance) or implicit (Gavel's throughput
    table, whenever the run's workload or interference model reads it), in a fixed order.

    ``workload`` is canonical (defaults filled in); ``sim`` holds a ``throughputs`` path only
    when its interference preset reads that table (``gavel-measured``).
    """
    params = WORKLOAD_PARAMS[workload["kind"]]
    files = [str(workload[k]) for k in sorted(params) if params[k].is_file and k in workload]
    table = sim.get("throughputs")
    if table is not None and str(table) not in files:
        files.append(str(table))
    return tuple(files)


# -- builders -------------------------------------------------------------------------------------
def _default(params: Mapping[str, Any], seed: int) -> Instance:
    return generate(_default_spec(params), np.random.default_rng(seed))


def _default_spec(params: Mapping[str, Any]) -> WorkloadSpec:
    base = WorkloadSpec()
    return WorkloadSpec(
        n_jobs=params["n_jobs"],
        cluster=make_cluster(params),
        load=params["load"] * params["rate_factor"],
        models=MODEL_MIXES[params.get("mix", "full")],
        duration_min_s=params.get("duration_min_s", base.duration_min_s),
        duration_max_s=params.get("duration_max_s", base.duration_max_s),
        duration_dist=params.get("durations", base.duration_dist),
        duration_shape=params.get("duration_shape", base.duration_shape),
    )


def _check_span(params: Mapping[str, Any]) -> None:
    """Refuse a ``default`` workload whose arrivals are expected to pass 10 years (the
    documented 10,000,000 jobs always did, at run time); named on ``n_jobs``."""
    span = expected_span(_default_spec(params))
    if span > MAX_TIME_S:
        raise ParamError(
            "n_jobs",
            f"{params['n_jobs']:,} jobs at load {params['load'] * params['rate_factor']:g} on "
            f"{params['nodes'] * params['gpus_per_node']:,} GPUs would arrive over about "
            f"{span:,.0f} s, more than the 10 years ({MAX_TIME_S:,.0f} s) an arrival may be: "
            "fewer jobs, more GPUs or a higher load",
        )


def _check_durations(params: Mapping[str, Any]) -> None:
    """The duration keys of a ``default`` workload together: ``duration_shape`` only with
    ``durations = "pareto"``; ``duration_min_s <= duration_max_s`` (an absent bound is the
    default's, 120 or 3600 s).

    Raises
    ------
    ParamError
        Naming the key.
    """
    if "duration_shape" in params and params.get("durations") != "pareto":
        raise ParamError(
            "duration_shape", "applies only to durations = 'pareto' (give durations too)"
        )
    base = WorkloadSpec()
    low = params.get("duration_min_s", base.duration_min_s)
    high = params.get("duration_max_s", base.duration_max_s)
    if low > high:
        shown = {
            key: f"{key} = {value:g} s" + ("" if key in params else " (the default)")
            for key, value in (("duration_min_s", low), ("duration_max_s", high))
        }
        key = "duration_min_s" if "duration_min_s" in params else "duration_max_s"
        raise ParamError(key, f"{shown['duration_min_s']} is above {shown['duration_max_s']}")


def _testbed(params: Mapping[str, Any], seed: int) -> Instance:
    return testbed_workload(
        params["n_jobs"], np.random.default_rng(seed), cluster=make_cluster(params)
    )


def _throughputs(ref: str) -> GavelThroughputs:
    path = str(resolve_data_path(ref))
    stat = os.stat(path)  # cached by content version, not by path alone
    return _load_throughputs(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load_throughputs(path: str, size: int, mtime_ns: int) -> GavelThroughputs:
    del size, mtime_ns
    return load_throughputs(path)


def _gavel(params: Mapping[str, Any], seed: int) -> Instance:
    """A Gavel/Philly trace (whole, its ``first`` N jobs, or a random ``window`` of N
    consecutive jobs) on a cluster sized for ``target_load``.

    The cluster gets the fewest whole nodes whose offered load (exclusive GPU-time ÷ GPUs ×
    arrival span) of the jobs kept is at most ``target_load``; jobs larger than it are capped to
    its size (:class:`~sjfbsbf.workloads.gavel.LoadReport` counts them). Only ``window`` uses the
    seed: ``numpy.random.default_rng(seed)`` draws the window's start
    (:func:`~sjfbsbf.workloads.transform.random_window`); otherwise sweep over ``trace`` files.

    Raises
    ------
    ParamError
        ``window``: larger than the trace (its job count named).
    """
    table = _throughputs(params["throughputs"])
    trace = resolve_data_path(params["trace"])
    per_node = params["gpus_per_node"]
    first, window = params.get("first"), params.get("window")

    def load(cluster: Cluster) -> Instance:
        instance = load_gavel_trace(trace, table, cluster=cluster, mode=params["mode"])
        if window is not None:
            _check_window(window, instance.num_jobs)
            return random_window(instance, window, np.random.default_rng(seed))
        return instance if first is None else slice_trace(instance, first=first)

    probe = load(Cluster(nodes=1024, gpus_per_node=per_node, gpu_mem_gb=params["gpu_mem_gb"]))
    load_per_node = offered_load(probe, per_node)
    if not math.isfinite(load_per_node):  # one job, or every job at the same second
        key = "window" if window is not None else "first" if first is not None else "trace"
        raise ParamError(
            key,
            f"its {probe.num_jobs:,} jobs all arrive at {probe.jobs[0].arrival:g} s: no arrival "
            "span, so no cluster size gives a target offered load (take more jobs)",
        )
    nodes = max(1, math.ceil(load_per_node / params["target_load"]))
    if nodes > min(MAX_NODES, MAX_GPUS // per_node):
        raise ParamError(
            "target_load",
            f"needs {nodes:,} nodes of {per_node:,} GPUs, more than a cluster may have "
            f"({MAX_NODES:,} nodes, {MAX_GPUS:,} GPUs)",
        )
    return load(make_cluster({**params, "nodes": nodes}))


def _check_window(window: int, jobs: int) -> None:
    if window > jobs:
        raise ParamError("window", f"{window:,} jobs is more than the trace has ({jobs:,} jobs)")


def check_inputs(workload: Mapping[str, Any], files: Mapping[str, str]) -> None:
    """Checks of a canonical workload that need its files' content (before anything runs).

    ``files`` maps each of the workload's file values to the file read (see
    :func:`~sjfbsbf.workloads.datasets.resolve_data_path`). A ``gavel`` ``window`` must not be
    larger than the trace's job count.

    Raises
    ------
    ParamError
        Naming the key.
    """
    if workload["kind"] in TRACE_PARAMS:
        check_trace_inputs(workload, files)
    if workload["kind"] == "gavel":
        rows = read_gavel_trace(files[workload["trace"]])
        # Every row against the throughput table (an unknown job type, a GPU count not measured)
        # now, not in each run after the output folder was written; on a cluster wide enough
        # for every job.
        per_node = workload["gpus_per_node"]
        wide = Cluster(
            nodes=min(MAX_NODES, MAX_GPUS // per_node),
            gpus_per_node=per_node,
            gpu_mem_gb=workload["gpu_mem_gb"],
        )
        load_gavel_trace(
            files[workload["trace"]],
            _throughputs(workload["throughputs"]),
            cluster=wide,
            mode=workload["mode"],
        )
        if "window" in workload:
            _check_window(workload["window"], len(rows))
            return
        kept = rows[: workload.get("first", len(rows))]  # the trace, or its first N jobs
        if len({row.arrival_s for row in kept}) < 2:
            raise ParamError(
                "first" if "first" in workload else "trace",
                f"its {len(kept):,} jobs all arrive at {kept[0].arrival_s:g} s: no arrival "
                "span, so no cluster size gives a target offered load (take more jobs)",
            )


def _file(params: Mapping[str, Any], seed: int) -> Instance:
    del seed
    return read_instance(resolve_data_path(params["path"]))


WORKLOADS: dict[str, Callable[[Mapping[str, Any], int], Instance]] = {
    "default": _default,
    "testbed": _testbed,
    "file": _file,
    "gavel": _gavel,
    **dict.fromkeys(TRACE_PARAMS, build_trace),
}


def canonical_workload(workload: Mapping[str, Any]) -> dict[str, Any]:
    """Check one (expanded) workload table and fill in its defaults.

    Raises
    ------
    ParamError
        Naming the key: an unknown kind or key, a missing key, or a bad value.
    """
    kind = workload.get("kind")
    if not isinstance(kind, str) or kind not in WORKLOAD_PARAMS:
        raise ParamError("kind", f"unknown workload kind {kind!r}; known: {', '.join(WORKLOADS)}")
    params = WORKLOAD_PARAMS[kind]
    out: dict[str, Any] = {"kind": kind}
    for key, value in workload.items():
        if key == "kind":
            continue
        if key not in params:
            allowed = ", ".join(["kind", *sorted(params)])
            raise ParamError(key, f"unknown key for kind {kind!r} (allowed: {allowed})")
        try:
            out[key] = params[key].check(value)
        except ValueError as exc:
            raise ParamError(key, str(exc)) from None
    for key, param in sorted(params.items()):
        if key not in out:
            if param.required:
                raise ParamError(key, f"missing (kind {kind!r} needs it)")
            if param.default is not None:
                out[key] = param.default
    if "first" in out and "window" in out:
        raise ParamError(
            "window",
            "'first' and 'window' exclude each other (the first N jobs, or N from a "
            "random start): give one",
        )
    if "nodes" in out and "gpus_per_node" in out and out["nodes"] * out["gpus_per_node"] > MAX_GPUS:
        raise ParamError(
            "nodes",
            f"{out['nodes']:,} nodes × {out['gpus_per_node']:,} GPUs per node is more than "
            f"{MAX_GPUS:,} GPUs",
        )
    if kind == "default":
        _check_durations(out)
        _check_span(out)
    if kind in TRACE_PARAMS:
        check_trace_params(out)
    return dict(sorted(out.items()))


def build_instance(workload: Mapping[str, Any], seed: int) -> Instance:
    """The instance a workload description and seed stand for (defaults filled in here too)."""
    params = canonical_workload(workload)
    return WORKLOADS[params["kind"]](params, seed)
