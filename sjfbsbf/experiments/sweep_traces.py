"""The trace workloads of a sweep: a table of your own (``table``) and the public traces
(``philly-jobs``, ``helios``, ``pai``), read by their loaders with the options they share.

Every kind takes the cluster keys (``nodes``, ``gpus_per_node``, ``gpu_mem_gb``, as the
``default`` kind) and the options of :class:`~sjfbsbf.workloads.trace_window.TraceOptions`:
``start`` and ``end`` (a time window, s after the first usable submission), ``window`` (a random
window of that many consecutive jobs, drawn inside the time window), ``sample`` (a number of jobs,
an integer, or a fraction, a float in (0, 1]), ``target_load`` (arrivals rescaled to exactly that
offered load) and ``oversize`` (``cap``, ``drop`` or ``refuse`` jobs larger than the cluster). The
run's seed drives ``numpy.random.default_rng(seed)``, which only ``window`` and ``sample`` draw
from: without them the seed does not change the instance (sweep over files or windows instead).

A workload without ``window`` or ``sample`` is built once when the sweep is loaded, so a
malformed file, an empty time window, a refused job or an unreachable load is refused then,
naming the file key; with them, the file and the time window are checked then (every job
capped) and ``window`` or an integer ``sample`` larger than the jobs of the time window is
refused; a drawn window that fails (e.g. a refused job in it) fails its run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Instance
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
from sjfbsbf.workloads.datasets import resolve_data_path
from sjfbsbf.workloads.helios import CLUSTERS, load_helios_log
from sjfbsbf.workloads.pai import load_pai_trace
from sjfbsbf.workloads.philly_log import load_philly_job_log
from sjfbsbf.workloads.table_trace import read_trace_table
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport


def sample_size(value: Any) -> int | float:
    """Checker of ``sample``: a number of jobs (integer ≥ 1) or a fraction (float in (0, 1])."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    if isinstance(value, float) and 0 < value <= 1:
        return value
    raise ValueError(
        f"must be a number of jobs (an integer ≥ 1) or a fraction (a float in (0, 1]), "
        f"got {value!r}"
    )


def names(value: Any) -> str:
    """Checker of a set of names, one string separated by commas (``"Pass,Killed"``): the
    canonical value is sorted, without repeats or blanks around names."""
    parts = sorted({part.strip() for part in text()(value).split(",")})
    if "" in parts:
        raise ValueError(f"must be names separated by commas, got {value!r}")
    return ",".join(parts)


_OPTIONS: dict[str, Param] = {
    **CLUSTER_PARAMS,
    "start": Param(number(0.0, strict=False)),
    "end": Param(number()),
    "window": Param(integer(1)),
    "sample": Param(sample_size),
    "target_load": Param(number()),
    "oversize": Param(text("cap", "drop", "refuse"), default="cap"),
}

#: kind -> its parameters (besides ``kind``).
TRACE_PARAMS: Mapping[str, Mapping[str, Param]] = {
    "table": {**_OPTIONS, "path": Param(data_file, required=True, is_file=True)},
    "philly-jobs": {
        **_OPTIONS,
        "log": Param(data_file, default="data:philly-jobs/trace-data.tar.gz", is_file=True),
        "vc": Param(text()),
        "statuses": Param(names),
        "attempts": Param(text("last", "sum"), default="last"),
    },
    "helios": {
        **_OPTIONS,
        "log": Param(data_file, default="data:helios/data.zip", is_file=True),
        "helios_cluster": Param(text(*CLUSTERS)),
        "vc": Param(text()),
        "states": Param(names),
    },
    "pai": {
        **_OPTIONS,
        "job_table": Param(
            data_file, default="data:pai-gpu-2020/pai_job_table.tar.gz", is_file=True
        ),
        "task_table": Param(
            data_file, default="data:pai-gpu-2020/pai_task_table.tar.gz", is_file=True
        ),
        "statuses": Param(names),
    },
}


def check_trace_params(params: Mapping[str, Any]) -> None:
    """Checks across keys of a canonical trace workload: ``start`` before ``end``.

    Raises
    ------
    ParamError
        Naming ``end``.
    """
    start, end = params.get("start"), params.get("end")
    if start is not None and end is not None and end <= start:
        raise ParamError("end", f"must be after start ({start:g} s), got {end:g}")


def trace_options(params: Mapping[str, Any]) -> TraceOptions:
    """The loader options of a canonical trace workload."""
    return TraceOptions(
        start=params.get("start"),
        end=params.get("end"),
        window_jobs=params.get("window"),
        sample=params.get("sample"),
        target_load=params.get("target_load"),
        oversize=params["oversize"],
    )


def load_trace(
    params: Mapping[str, Any],
    options: TraceOptions,
    rng: np.random.Generator | None,
    path: Callable[[str], Any] = resolve_data_path,
) -> tuple[Instance, TraceReport]:
    """Read a canonical trace workload's files with its loader (``path`` maps a file value to
    the file read)."""
    kind, cluster = params["kind"], make_cluster(params)
    common: dict[str, Any] = {"options": options, "rng": rng}
    if kind == "table":
        return read_trace_table(path(params["path"]), cluster, **common)
    if kind == "philly-jobs":
        statuses = _set(params.get("statuses"))
        return load_philly_job_log(
            path(params["log"]),
            cluster,
            vc=params.get("vc"),
            statuses=statuses,
            attempts=params["attempts"],
            **common,
        )
    if kind == "helios":
        return load_helios_log(
            path(params["log"]),
            cluster,
            helios_cluster=params.get("helios_cluster"),
            vc=params.get("vc"),
            states=_set(params.get("states")),
            **common,
        )
    if kind == "pai":
        return load_pai_trace(
            path(params["job_table"]),
            path(params["task_table"]),
            cluster,
            statuses=_set(params.get("statuses")),
            **common,
        )
    raise ValueError(f"not a trace workload kind: {kind!r}")


def _set(value: str | None) -> frozenset[str] | None:
    return None if value is None else frozenset(value.split(","))


def build_trace(params: Mapping[str, Any], seed: int) -> Instance:
    """The instance of a canonical trace workload; ``numpy.random.default_rng(seed)`` draws
    ``window`` and ``sample`` (without them the seed does not change the instance)."""
    instance, _ = load_trace(params, trace_options(params), np.random.default_rng(seed))
    return instance


def check_trace_inputs(params: Mapping[str, Any], files: Mapping[str, str]) -> None:
    """The load-time checks of a canonical trace workload (module docstring); ``files`` maps
    each file value to the file read.

    Raises
    ------
    ParamError
        Naming the file key with the loader's one-line message (file, line, field), or
        ``window`` / ``sample``: more jobs than the time window holds.
    """
    options = trace_options(params)
    if options.random:
        options = TraceOptions(start=options.start, end=options.end)
    try:
        _, report = load_trace(params, options, None, files.__getitem__)
    except InstanceError as exc:
        raise ParamError(_file_key(params, exc, files), str(exc)) from None
    jobs, what = report.usable - report.outside_window, "the trace has in its time window"
    for key in ("window", "sample"):
        count = params.get(key)
        if isinstance(count, int) and count > jobs:
            raise ParamError(key, f"{count:,} jobs is more than {what} ({jobs:,} jobs)")
        if key == "window" and count is not None:
            jobs, what = count, "the window has"


def _file_key(params: Mapping[str, Any], exc: InstanceError, files: Mapping[str, str]) -> str:
    """The file key an error of the loader is about (the task table's or else the first)."""
    table = TRACE_PARAMS[params["kind"]]
    keys = [k for k in sorted(table) if table[k].is_file]
    for key in keys:
        if exc.source is not None and str(files[params[key]]) in exc.source:
            return key
    return keys[0]
