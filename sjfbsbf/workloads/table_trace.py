"""Bring your own trace: a CSV or Parquet table of jobs into an instance.

Columns (docs/model.md §8): ``submit_time`` (s, ≥ 0), ``num_gpus`` (integer ≥ 1), and either
``duration`` (s, > 0: a duration-only job) or ``model``, ``batch`` and ``iterations`` (a catalog
job); a row gives one or the other, never both. Nothing else is accepted. Jobs keep their row
number (0-based, in file order) as id; arrivals are shifted so the first submission is at 0.
A job asking for more GPUs than the cluster has is capped to the cluster (default), dropped, or
refused, as asked; the report counts them. Any bad value is refused in one line naming the file,
the line (CSV; the header is line 1) or row (Parquet, from 1) and the field.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance, Job

#: Columns every table has; the optional ones; how a job larger than the cluster is treated.
REQUIRED = ("submit_time", "num_gpus")
OPTIONAL = ("duration", "model", "batch", "iterations")
Oversize = Literal["cap", "drop", "refuse"]


@dataclass(frozen=True, slots=True)
class TableTraceReport:
    """What reading a table did: rows read, jobs kept, and the job ids capped or dropped."""

    source: str
    rows: int
    jobs: int
    capped: tuple[int, ...]
    dropped: tuple[int, ...]


def read_trace_table(
    path: str | os.PathLike[str],
    cluster: Cluster,
    *,
    oversize: Oversize = "cap",
    catalog: str = "default",
) -> tuple[Instance, TableTraceReport]:
    """Read a CSV (``.csv``) or Parquet (``.parquet``) trace table into an instance.

    Raises
    ------
    InstanceError
        One line naming the file, line/row and field: an unreadable file, a missing or unknown
        column, a bad value, a row with both or neither of ``duration`` and ``model``, an
        unknown model, or (``oversize="refuse"``) a job larger than the cluster.
    """
    source = str(path)
    suffix = Path(path).suffix.lower()
    if oversize not in ("cap", "drop", "refuse"):
        raise ValueError(f"oversize must be 'cap', 'drop' or 'refuse', got {oversize!r}")
    if suffix == ".csv":
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
        where, first = "line", 2
    elif suffix == ".parquet":
        frame = pd.read_parquet(path).astype(object).where(lambda f: f.notna(), "")
        frame = frame.map(lambda v: "" if v is None else str(v))
        where, first = "row", 1
    else:
        raise InstanceError("a trace table is .csv or .parquet", source=source)
    columns = [str(c).strip() for c in frame.columns]
    frame.columns = pd.Index(columns)
    for column in columns:
        if column not in REQUIRED + OPTIONAL:
            known = ", ".join(REQUIRED + OPTIONAL)
            raise InstanceError(f"unknown column (columns: {known})", source=source, field=column)
    for column in REQUIRED:
        if column not in columns:
            raise InstanceError("missing column", source=source, field=column)
    jobs: list[Job] = []
    capped: list[int] = []
    dropped: list[int] = []
    records = frame.to_dict("records")
    for index, record in enumerate(records):
        line = f"{where} {index + first}"
        values = {c: str(record.get(c, "")).strip() for c in REQUIRED + OPTIONAL}
        submit = _number(values, "submit_time", source, line)
        gpus = _integer(values, "num_gpus", source, line)
        if submit < 0:
            raise InstanceError("must be ≥ 0", source=source, row=line, field="submit_time")
        if gpus > cluster.num_gpus:
            if oversize == "refuse":
                raise InstanceError(
                    f"{gpus} GPUs, more than the cluster's {cluster.num_gpus} (read with "
                    "oversize='cap' or 'drop')",
                    source=source,
                    row=line,
                    field="num_gpus",
                )
            if oversize == "drop":
                dropped.append(index)
                continue
            capped.append(index)
            gpus = cluster.num_gpus
        jobs.append(_job(index, submit, gpus, values, source, line))
    if not jobs:
        raise InstanceError("no job to schedule (empty table, or every job dropped)", source=source)
    origin = min(j.arrival for j in jobs)
    jobs = [
        Job(j.id, j.arrival - origin, j.gpus, j.model, j.batch, j.iterations, j.duration)
        for j in jobs
    ]
    try:
        instance = Instance(cluster, tuple(jobs), catalog=catalog, name=Path(path).stem)
    except InstanceError as exc:
        raise exc.with_source(source) from None
    report = TableTraceReport(source, len(records), len(jobs), tuple(capped), tuple(dropped))
    return instance, report


def _number(values: dict[str, str], field: str, source: str, line: str) -> float:
    try:
        value = float(values[field])
    except ValueError:
        raise InstanceError(
            f"not a number: {values[field]!r}", source=source, row=line, field=field
        ) from None
    if not math.isfinite(value):
        raise InstanceError("must be finite", source=source, row=line, field=field)
    return value


def _integer(values: dict[str, str], field: str, source: str, line: str) -> int:
    value = _number(values, field, source, line)
    if value != int(value) or value < 1:
        raise InstanceError(
            f"must be a whole number ≥ 1, got {values[field]!r}",
            source=source,
            row=line,
            field=field,
        )
    return int(value)


def _job(
    index: int, submit: float, gpus: int, values: dict[str, str], source: str, line: str
) -> Job:
    """A duration-only job, or a catalog job (model, batch, iterations): exactly one of them."""
    model = values["model"]
    catalog_fields = [f for f in ("model", "batch", "iterations") if values[f]]
    if values["duration"] and catalog_fields:
        raise InstanceError(
            "give either duration or model, batch and iterations, not both",
            source=source,
            row=line,
            field=catalog_fields[0],
        )
    if values["duration"]:
        duration = _number(values, "duration", source, line)
        if duration <= 0:
            raise InstanceError("must be > 0", source=source, row=line, field="duration")
        return Job(index, submit, gpus, duration=duration)
    if not model:
        raise InstanceError(
            "give either duration or model, batch and iterations",
            source=source,
            row=line,
            field="duration",
        )
    batch = _integer(values, "batch", source, line)
    iterations = _integer(values, "iterations", source, line)
    return Job(index, submit, gpus, model=model, batch=batch, iterations=iterations)
