"""Microsoft's Philly job log (``cluster_job_log``, msr-fiddle/philly-traces) into an instance.

The log is a JSON list with one object per job: ``submitted_time``, ``attempts`` (each with
``start_time``, ``end_time`` and ``detail``: one ``{"ip", "gpus": [...]}`` per server), ``status``
(``Pass``, ``Killed``, ``Failed``), ``vc``, ``jobid`` and ``user``. Times are wall-clock strings
``YYYY-MM-DD HH:MM:SS`` without a time zone (``None`` when not logged). The rules that turn a record
into a duration-only job, and the records skipped, are in :func:`load_philly_job_log` and
docs/model.md §8.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Collection
from datetime import datetime
from typing import Any, Literal

import numpy as np

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance, label_problem
from sjfbsbf.workloads.archive import open_member
from sjfbsbf.workloads.trace_window import TraceJob, TraceOptions, TraceReport, build_instance

#: The member of ``trace-data.tar.gz`` holding the job log.
MEMBER = "cluster_job_log"
#: Why a record is skipped, in the order the rules are tried.
SKIP_REASONS = (
    "other_vc",
    "other_status",
    "no_submit_time",
    "no_attempt",
    "no_times",
    "no_gpus",
    "no_run_time",
)
_EPOCH = datetime(1970, 1, 1)
_MISSING = (None, "", "None")


def load_philly_job_log(
    path: str | os.PathLike[str],
    cluster: Cluster,
    *,
    vc: str | None = None,
    statuses: Collection[str] | None = None,
    attempts: Literal["last", "sum"] = "last",
    options: TraceOptions | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[Instance, TraceReport]:
    """Read the Philly job log (the JSON file, or ``trace-data.tar.gz`` itself) into an instance.

    Each record becomes a duration-only job: id = its index in the list (0-based), arrival =
    ``submitted_time``, GPUs = the GPUs listed in the chosen attempt's ``detail``, duration =
    that attempt's ``end_time - start_time`` (``attempts="last"``, the attempt that ended the
    job; earlier attempts are runs lost to failures, which the simulator does not model), or the
    sum over every attempt (``attempts="sum"``: the GPU time the job held; GPUs of the last
    attempt); the job keeps the record's ``vc`` and ``user`` as its ``vc`` and ``user`` (absent,
    ``null``, ``""`` or ``"None"``: none). Skipped, in this order (the report lists them by
    reason): another ``vc`` or a status not in ``statuses`` (when given), no ``submitted_time``,
    no attempt, a used attempt without start or end time (a job still running at the snapshot,
    or a logging error), an attempt without GPUs, a run time ≤ 0.

    Parameters
    ----------
    path
        ``cluster_job_log`` or an archive holding it (read without extracting).
    cluster
        The cluster to schedule on.
    vc
        Keep only this virtual cluster.
    statuses
        Keep only these statuses (default: all).
    attempts
        ``"last"`` or ``"sum"`` (above).
    options
        Window, sample, target load and oversize jobs (:class:`TraceOptions`).
    rng
        Generator for a random window or sample.

    Raises
    ------
    InstanceError
        One line naming the file, the record (``entry N``) and the field: not JSON, not a list,
        a record that is no object or lacks ``submitted_time`` or ``attempts``, a malformed
        attempt, a time not in the ``YYYY-MM-DD HH:MM:SS`` form, a ``vc`` or ``user`` of a record
        that becomes a job that is no string, longer than 128 characters or with control
        characters; or as :func:`~sjfbsbf.workloads.trace_window.build_instance`.
    """
    if attempts not in ("last", "sum"):
        raise ValueError(f"attempts must be 'last' or 'sum', got {attempts!r}")
    with open_member(path, MEMBER) as (handle, source):
        try:
            records = json.load(io.TextIOWrapper(handle, encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InstanceError(
                f"not JSON ({exc.msg})", source=source, row=f"line {exc.lineno}"
            ) from None
        except UnicodeDecodeError:
            raise InstanceError("not UTF-8 text", source=source) from None
    if not isinstance(records, list):
        raise InstanceError("the job log is a JSON list of jobs", source=source)
    skipped: dict[str, list[int]] = {reason: [] for reason in SKIP_REASONS}
    trace: list[TraceJob] = []
    for index, record in enumerate(records):
        job = _job(index, record, source, vc, statuses, attempts)
        if isinstance(job, str):
            skipped[job].append(index)
        else:
            trace.append(job)
    name = "philly" if vc is None else f"philly-{vc}"
    return build_instance(
        trace,
        cluster,
        source=source,
        name=name,
        records=len(records),
        skipped=skipped,
        options=options,
        rng=rng,
    )


def _job(
    index: int,
    record: Any,
    source: str,
    vc: str | None,
    statuses: Collection[str] | None,
    attempts: str,
) -> TraceJob | str:
    """The trace job of one record, or the reason it is skipped."""
    row = f"entry {index}"
    if not isinstance(record, dict):
        raise InstanceError("a job is a JSON object", source=source, row=row)
    for key in ("submitted_time", "attempts"):
        if key not in record:
            raise InstanceError("missing key", source=source, row=row, field=key)
    if vc is not None and record.get("vc") != vc:
        return "other_vc"
    status = record.get("status")
    if statuses is not None and (not isinstance(status, str) or status not in statuses):
        return "other_status"
    submit = _time(record["submitted_time"], source, row, "submitted_time")
    if submit is None:
        return "no_submit_time"
    tries = record["attempts"]
    if not isinstance(tries, list) or not all(isinstance(a, dict) for a in tries):
        raise InstanceError("must be a list of objects", source=source, row=row, field="attempts")
    if not tries:
        return "no_attempt"
    used = tries if attempts == "sum" else tries[-1:]
    spans = []
    for number, attempt in enumerate(used):
        where = f"attempts[{len(tries) - 1 if attempts == 'last' else number}]"
        start = _time(attempt.get("start_time"), source, row, f"{where}.start_time")
        end = _time(attempt.get("end_time"), source, row, f"{where}.end_time")
        if start is None or end is None:
            return "no_times"
        spans.append(end - start)
    gpus = _gpus(tries[-1], source, row, f"attempts[{len(tries) - 1}].detail")
    if gpus == 0:
        return "no_gpus"
    duration = sum(spans)
    if duration <= 0:
        return "no_run_time"
    vc_label = _label(record.get("vc"), source, row, "vc")
    user = _label(record.get("user"), source, row, "user")
    return TraceJob(index, submit, gpus, duration, vc=vc_label, user=user)


def _label(value: Any, source: str, row: str, field: str) -> str | None:
    """A record's ``vc`` or ``user`` as the job's label, or ``None`` when not logged."""
    if value in _MISSING:
        return None
    problem = label_problem(value)
    if problem is not None:
        raise InstanceError(problem, source=source, row=row, field=field)
    return str(value)


def _time(value: Any, source: str, row: str, field: str) -> float | None:
    """Seconds of a ``YYYY-MM-DD HH:MM:SS`` wall-clock time since 1970 (no zone), or ``None``."""
    if value in _MISSING:
        return None
    if isinstance(value, str) and len(value) == 19 and value[10] == " ":
        try:
            return (datetime.fromisoformat(value) - _EPOCH).total_seconds()
        except ValueError:
            pass
    raise InstanceError(
        f"not a time 'YYYY-MM-DD HH:MM:SS': {value!r}", source=source, row=row, field=field
    )


def _gpus(attempt: dict[str, Any], source: str, row: str, field: str) -> int:
    """Number of GPUs listed in an attempt's ``detail``."""
    detail = attempt.get("detail", [])
    if not isinstance(detail, list):
        raise InstanceError("must be a list of servers", source=source, row=row, field=field)
    total = 0
    for server in detail:
        gpus = server.get("gpus") if isinstance(server, dict) else None
        if not isinstance(gpus, list):
            raise InstanceError(
                "each server is an object with a list 'gpus'", source=source, row=row, field=field
            )
        total += len(gpus)
    return total
