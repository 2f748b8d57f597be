"""One run of a sweep and its record: simulate it, write ``runs/<key>.json``, read it back.

A record is either ``{"status": "ok", "row": {...}}`` or ``{"status": "failed", "error": {...}}``;
:func:`read_record` says why a record on disk cannot be used (missing, truncated, corrupt, of
another key or schema), so the sweep runs it again.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any

from sjfbsbf.core.errors import InstanceError, SweepError
from sjfbsbf.core.jsonio import read_json
from sjfbsbf.experiments.constants import CONSTANT_KEYS, with_constants
from sjfbsbf.experiments.fingerprint import file_digest
from sjfbsbf.experiments.sweep_details import details_problem, run_details
from sjfbsbf.experiments.sweep_sim import sim_models
from sjfbsbf.experiments.sweep_spec import RunSpec
from sjfbsbf.experiments.sweep_workloads import build_instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.metrics import METRIC_LABELS
from sjfbsbf.sim.simulator import simulate

#: Schema tag of a run record.
RUN_SCHEMA = "sjfbsbf.sweep-run/1"
Record = dict[str, Any]


def execute(run: RunSpec, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """Simulate one run and return its results row (JSON values; no label, no sweep name).

    ``details``, if given, receives the run's per-job table and utilisation series
    (:func:`~sjfbsbf.experiments.sweep_details.run_details`).

    Raises
    ------
    SweepError
        If an input file changed since the sweep hashed it.
    """
    _check_stamps(run)
    instance = build_instance(run.workload, run.seed)
    _check_stamps(run)
    sim = dict(run.sim)
    interference, beliefs = sim_models(sim, run.seed)
    constants = {key: sim.pop(key) for key in CONSTANT_KEYS if key in sim}
    instance, interference = with_constants(instance, interference, **constants)
    policy = make_policy(run.policy, **run.options)
    started = time.perf_counter()
    result = simulate(
        instance,
        policy,
        interference=interference,
        record_segments=False,
        beliefs=beliefs,
        **sim,
    )
    _check_stamps(run)  # everything it read (the throughput table too) was what was hashed
    row: dict[str, Any] = {
        "key": run.key,
        "policy": run.policy,
        "options": json.dumps(run.options, sort_keys=True),
        "seed": run.seed,
        "n_jobs": instance.num_jobs,
        "num_gpus": instance.cluster.num_gpus,
        "runtime_s": time.perf_counter() - started,
        "stats": json.dumps(result.stats, sort_keys=True, default=str),
    }
    row.update({f"wl_{k}": v for k, v in run.workload.items()})
    row.update({f"sim_{k}": v for k, v in run.sim.items()})
    row.update(result.metrics)
    if details is not None:
        details.update(run_details(result))
    fallback_pairs = getattr(interference, "fallback_pairs", None)
    if fallback_pairs is not None:  # measured interference: pairs that got the fallback ξ
        row["interference_fallback_pairs"] = len(fallback_pairs())
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


#: Input files whose content this process checked against a run key, by path: the (device,
#: inode, size, mtime_ns, ctime_ns) they had then and the digest they had (in memory only).
_CHECKED: dict[str, tuple[tuple[int, int, int, int, int], str]] = {}


def _check_stamps(run: RunSpec) -> None:
    """Every input the run reads still has the content (SHA-256) its key was made with
    (issue 35 item 17: a file swapped with the same size and mtime, ``touch -r``, passed a size
    and mtime check). A file is hashed again only when its (device, inode, size, mtime_ns,
    ctime_ns) changes: a write changes ctime, which no user can set back."""
    for (ref, digest), (path, _, _) in zip(run.inputs, run.stamps, strict=True):
        info = os.stat(path)
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        known = _CHECKED.get(path)
        if known is None or known[0] != key:
            known = (key, file_digest(path)[0])
            _CHECKED[path] = known
        if known[1] != digest:
            raise SweepError(
                f"input file {path} ({ref}) changed after the sweep hashed it (SHA-256 differs); "
                "run the sweep again"
            )


def attempt(run: RunSpec) -> Record:
    """Run ``run``; return its record, ``ok`` or ``failed`` (never raises an ``Exception``)."""
    details: dict[str, Any] = {}
    try:
        row = execute(run, details)
    except Exception as exc:
        return failure_record(run, exc)
    return {
        "schema": RUN_SCHEMA,
        "key": run.key,
        "status": "ok",
        "config": run.config(),
        "row": row,
        "details": details,  # written as Parquet beside the record, not into it
    }


def failure_record(run: RunSpec, exc: BaseException) -> Record:
    """The record of a run that raised ``exc``."""
    return _record(run, "failed", error={"type": type(exc).__name__, "message": str(exc)})


def _record(run: RunSpec, status: str, **content: Any) -> Record:
    return {
        "schema": RUN_SCHEMA,
        "key": run.key,
        "status": status,
        "config": run.config(),
        **content,
    }


def read_record(path: Path, key: str) -> tuple[Record | None, str | None]:
    """A run record: ``(record, None)``; ``(None, None)`` if absent; ``(None, why)`` if bad."""
    if not path.exists():
        return None, None
    try:
        data = read_json(path)
    except InstanceError as exc:
        return None, exc.message
    problem = _record_problem(data, key)
    if problem is None and data.get("status") == "ok":
        row = data.get("row")
        problem = details_problem(path, row.get("n_jobs") if isinstance(row, dict) else None)
    return (None, problem) if problem is not None else (data, None)


def _record_problem(data: Any, key: str) -> str | None:
    if not isinstance(data, dict) or data.get("schema") != RUN_SCHEMA:
        return f"not a run record (schema {RUN_SCHEMA})"
    if data.get("key") != key:
        return f"holds run {data.get('key')!r}, not {key!r}"
    if data.get("status") == "failed":
        error = data.get("error")
        ok = isinstance(error, dict) and all(
            isinstance(error.get(k), str) for k in ("type", "message")
        )
        return None if ok else "a failure record without its error"
    if data.get("status") != "ok":
        return f"unknown status {data.get('status')!r}"
    row = data.get("row")
    if not isinstance(row, dict) or row.get("key") != key:
        return "no results row for this run"
    missing = [m for m in METRIC_LABELS if not isinstance(row.get(m), int | float)]
    return f"results row without {', '.join(missing)}" if missing else None
