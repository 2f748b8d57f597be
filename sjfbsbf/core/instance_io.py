"""The instance JSON contract (docs/model.md §1): read, write, validate.

::

    {"schema": "sjfbsbf.instance/1",
     "cluster": {"nodes": 4, "gpus_per_node": 8, "gpu_mem_gb": 48},
     "catalog": "default",
     "jobs": [{"id": 0, "arrival": 0.0, "gpus": 2, "model": "resnet18", "batch": 128,
               "iterations": 5000},
              {"id": 1, "arrival": 30.0, "gpus": 1, "duration": 600.0}]}

Optional keys: top-level ``name``; cluster ``intra_bw_gbps`` and ``inter_bw_gbps``; job
``estimate`` (s, a user's run-time estimate), ``vc`` and ``user`` (labels of 1 to 128 printable
characters), written only when set. Unknown keys are an error.
"""

from __future__ import annotations

import json
import os
from typing import Any

from sjfbsbf.core.atomic import write_text_atomic
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.jsonio import gc_paused, read_json
from sjfbsbf.core.model import SCHEMA, Cluster, Instance, Job

_TOP_KEYS = {"schema", "cluster", "catalog", "jobs", "name"}
_TOP_REQUIRED = {"schema", "cluster", "jobs"}
_CLUSTER_KEYS = {"nodes", "gpus_per_node", "gpu_mem_gb", "intra_bw_gbps", "inter_bw_gbps"}
_CLUSTER_REQUIRED = {"nodes", "gpus_per_node", "gpu_mem_gb"}
_JOB_KEYS = {
    "id",
    "arrival",
    "gpus",
    "model",
    "batch",
    "iterations",
    "duration",
    "estimate",
    "vc",
    "user",
}
_JOB_REQUIRED = {"id", "arrival", "gpus"}


def instance_from_dict(data: Any, source: str | None = None) -> Instance:
    """Build an :class:`Instance` from its JSON form, checking every key.

    Raises
    ------
    InstanceError
        Naming ``source``, the job and the field at fault.
    """
    try:
        return _from_dict(data)
    except InstanceError as exc:
        raise exc.with_source(source) if source is not None else exc from None


def _from_dict(data: Any) -> Instance:
    if not isinstance(data, dict):
        raise InstanceError("the top level must be a JSON object")
    _check_keys(data, _TOP_KEYS, _TOP_REQUIRED, row=None)
    if data["schema"] != SCHEMA:
        raise InstanceError(
            f"unsupported schema {data['schema']!r}, expected {SCHEMA!r}", field="schema"
        )
    cluster_data = data["cluster"]
    if not isinstance(cluster_data, dict):
        raise InstanceError("must be an object", field="cluster")
    _check_keys(cluster_data, _CLUSTER_KEYS, _CLUSTER_REQUIRED, row="cluster")
    try:
        cluster = Cluster(**cluster_data)
    except InstanceError as exc:
        raise InstanceError(exc.message, row="cluster", field=exc.field) from None
    jobs_data = data["jobs"]
    if not isinstance(jobs_data, list):
        raise InstanceError("must be a list", field="jobs")
    jobs = []
    for position, job_data in enumerate(jobs_data):
        if not isinstance(job_data, dict):
            raise InstanceError("must be an object", row=f"jobs[{position}]")
        keys = job_data.keys()
        if not (keys <= _JOB_KEYS and keys >= _JOB_REQUIRED):  # a key unknown or missing
            row: int | str = job_data.get("id", f"jobs[{position}]")
            if not isinstance(row, int):
                row = f"jobs[{position}]"
            _check_keys(job_data, _JOB_KEYS, _JOB_REQUIRED, row=row)
        values = job_data
        arrival: Any = job_data["arrival"]
        duration: Any = job_data.get("duration")
        estimate: Any = job_data.get("estimate")
        if (
            type(arrival) is float
            and (duration is None or type(duration) is float)
            and (estimate is None or type(estimate) is float)
        ):
            pass  # the common case, as write_instance writes times: nothing to convert
        elif _whole(arrival) or _whole(duration) or _whole(estimate):  # whole numbers -> floats
            values = dict(job_data)
            if _whole(arrival):
                values["arrival"] = float(arrival)
            if _whole(duration):
                values["duration"] = float(duration)
            if _whole(estimate):
                values["estimate"] = float(estimate)
        try:
            jobs.append(Job(**values))
        except InstanceError as exc:
            if exc.row is not None:
                raise
            raise InstanceError(exc.message, row=f"jobs[{position}]", field=exc.field) from None
    name = data.get("name", "")
    if not isinstance(name, str):
        raise InstanceError("must be a string", field="name")
    catalog = data.get("catalog", "default")
    if not isinstance(catalog, str):
        raise InstanceError("must be a string", field="catalog")
    return Instance(cluster=cluster, jobs=tuple(jobs), catalog=catalog, name=name)


def _whole(value: Any) -> bool:
    """Whether ``value`` is an integer (not a bool)."""
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _check_keys(data: dict[str, Any], allowed: set[str], required: set[str], row: Any) -> None:
    for key in data:
        if key not in allowed:
            raise InstanceError(
                f"unknown key (allowed: {', '.join(sorted(allowed))})", row=row, field=key
            )
    for key in sorted(required - data.keys()):
        raise InstanceError("missing", row=row, field=key)


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """The JSON form of an instance (inverse of :func:`instance_from_dict`)."""
    cluster = instance.cluster
    jobs = []
    for job in sorted(instance.jobs, key=lambda j: j.id):
        entry: dict[str, Any] = {"id": job.id, "arrival": job.arrival, "gpus": job.gpus}
        if job.duration is not None:
            entry["duration"] = job.duration
        else:
            entry.update(model=job.model, batch=job.batch, iterations=job.iterations)
        if job.estimate is not None:  # optional keys: written only when set
            entry["estimate"] = job.estimate
        if job.vc is not None:
            entry["vc"] = job.vc
        if job.user is not None:
            entry["user"] = job.user
        jobs.append(entry)
    out: dict[str, Any] = {"schema": SCHEMA}
    if instance.name:
        out["name"] = instance.name
    out["cluster"] = {
        "nodes": cluster.nodes,
        "gpus_per_node": cluster.gpus_per_node,
        "gpu_mem_gb": cluster.gpu_mem_gb,
        "intra_bw_gbps": cluster.intra_bw_gbps,
        "inter_bw_gbps": cluster.inter_bw_gbps,
    }
    out["catalog"] = instance.catalog
    out["jobs"] = jobs
    return out


def read_instance(path: str | os.PathLike[str]) -> Instance:
    """Read an instance JSON file.

    Raises
    ------
    InstanceError
        If the file is missing, not UTF-8 JSON (see :mod:`sjfbsbf.core.jsonio`: binary, too deep,
        duplicate keys, non-finite numbers, lone surrogates), or violates the contract (naming
        the file, the job or line, and the field).
    """
    with gc_paused():  # parsed data and jobs hold no cycles; see jsonio.gc_paused
        return instance_from_dict(read_json(path), source=str(path))


def write_instance(instance: Instance, path: str | os.PathLike[str]) -> None:
    """Write an instance as JSON, atomically (temporary file, then rename)."""
    write_text_atomic(path, json.dumps(instance_to_dict(instance), indent=1) + "\n")
