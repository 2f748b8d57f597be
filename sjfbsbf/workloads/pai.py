"""Alibaba's PAI GPU cluster trace 2020 (alibaba/clusterdata, cluster-trace-gpu-v2020) into an
instance.

Two headerless CSV tables (column lists in the repository's ``data/*.header`` files and README):

* ``pai_job_table.csv``: ``job_name, inst_id, user, status`` (``Running``, ``Terminated``,
  ``Failed``, ``Waiting``), ``start_time`` (the job's **submission**), ``end_time``;
* ``pai_task_table.csv``: ``job_name, task_name, inst_num, status, start_time`` (the task's
  launch), ``end_time, plan_cpu`` (% of a core), ``plan_mem`` (GB), ``plan_gpu`` (% of a GPU:
  50 is half a GPU), ``gpu_type``.

Times are seconds shifted by an undisclosed constant; 0 or empty means not recorded (as in the
repository's analysis code). The rules are in :func:`load_pai_trace` and docs/model.md §8.
"""

from __future__ import annotations

import os
from collections.abc import Collection

import numpy as np
import pandas as pd

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance
from sjfbsbf.workloads.file_lines import file_lines
from sjfbsbf.workloads.trace_csv import labels, numbers, read_table, reopen_member, screen_rows
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport, build_instance

#: Columns of the job table (``pai_job_table.header``).
JOB_COLUMNS = ("job_name", "inst_id", "user", "status", "start_time", "end_time")
#: Columns of the task table (``pai_task_table.header``).
TASK_COLUMNS = (
    "job_name",
    "task_name",
    "inst_num",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
    "plan_gpu",
    "gpu_type",
)
#: Why a job is skipped, in the order the rules are tried.
SKIP_REASONS = ("other_status", "no_submit_time", "no_task", "no_gpus", "no_run_time")


def load_pai_trace(
    job_table: str | os.PathLike[str],
    task_table: str | os.PathLike[str],
    cluster: Cluster,
    *,
    statuses: Collection[str] | None = None,
    options: TraceOptions | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[Instance, TraceReport]:
    """Read the PAI job and task tables (CSV files, or their ``.tar.gz`` archives) into an instance.

    Each job-table line becomes a duration-only job: id = its data row (0-based), arrival = the
    job's ``start_time`` (its submission); GPUs = ⌈Σ ``inst_num`` × ``plan_gpu`` / 100⌉ over the
    job's tasks (fractional requests rounded up to whole GPUs, the README's own sum: instances
    asking 0 %, 50 % and 50 % make one GPU; an empty ``plan_gpu`` or ``inst_num`` counts 0);
    duration = latest task ``end_time`` − earliest task ``start_time``, over the tasks with both
    recorded (launch to completion, the wait before launch excluded); the job keeps ``user`` as
    its ``user`` (an empty value: none; the trace has no virtual cluster). Skipped, in this order
    (the report lists them by reason): a status not in ``statuses`` (when given), no submission
    time, no task in the task table, no GPU asked (CPU jobs), no task with both times or a run
    time ≤ 0 (jobs still running or never launched). Tasks of jobs absent from the job table are
    ignored.

    Parameters
    ----------
    job_table, task_table
        ``pai_job_table.csv`` and ``pai_task_table.csv``, or the ``.tar.gz`` holding each.
    cluster
        The cluster to schedule on.
    statuses
        Keep only jobs with these statuses (default: all).
    options
        Window, sample, target load and oversize jobs (:class:`TraceOptions`).
    rng
        Generator for a random window or sample.

    Raises
    ------
    InstanceError
        One line naming the file, line and column: a table without the expected number of
        columns, an empty or repeated ``job_name`` in the job table, a time, ``inst_num``
        (whole) or ``plan_gpu`` that is not a number ≥ 0, a ``user`` longer than 128 characters
        or with control characters (on any line of the job table); or as
        :func:`~sjfbsbf.workloads.trace_window.build_instance`.
    """
    jobs, source, first = read_table(job_table, "pai_job_table.csv", columns=JOB_COLUMNS)
    tasks, task_source, task_first = read_table(
        task_table, "pai_task_table.csv", columns=TASK_COLUMNS
    )
    with (  # refusals name the files' lines
        file_lines(reopen_member(job_table, "pai_job_table.csv"), source),
        file_lines(reopen_member(task_table, "pai_task_table.csv"), task_source),
    ):
        names = jobs["job_name"].str.strip()
        for bad, message in ((names == "", "missing value"), (names.duplicated(), "repeated")):
            if bad.any():
                line = f"line {first + int(np.argmax(bad.to_numpy()))}"
                raise InstanceError(message, source=source, row=line, field="job_name")
        submit = numbers(jobs, "start_time", source, first)
        users = labels(jobs, "user", source, first)
        totals = _task_totals(tasks, task_source, task_first)
        has_task = names.isin(totals.index).to_numpy()
        per_job = totals.reindex(names)
        gpus = np.ceil(per_job["gpu_percent"].to_numpy(float) / 100.0 - 1e-9)
        duration = (per_job["end"] - per_job["start"]).to_numpy(float)
        none = np.zeros(len(jobs), dtype=bool)
        rules = [  # in the order of SKIP_REASONS; the first that applies is the reason
            none
            if statuses is None
            else ~jobs["status"].str.strip().isin(list(statuses)).to_numpy(),
            ~(submit > 0),
            ~has_task,
            ~(gpus >= 1),
            ~(duration > 0),
        ]
        trace, skipped = screen_rows(rules, SKIP_REASONS, submit, gpus, duration, user=users)
        return build_instance(
            trace,
            cluster,
            source=source,
            name="pai",
            records=len(jobs),
            skipped=skipped,
            options=options,
            rng=rng,
        )


def _task_totals(tasks: pd.DataFrame, source: str, first: int) -> pd.DataFrame:
    """Per job name: GPU percent asked (Σ inst_num × plan_gpu), earliest start, latest end."""
    instances = numbers(tasks, "inst_num", source, first, integer=True)
    percent = numbers(tasks, "plan_gpu", source, first)
    start = numbers(tasks, "start_time", source, first)
    end = numbers(tasks, "end_time", source, first)
    timed = (start > 0) & (end > 0)
    frame = pd.DataFrame(
        {
            "job": tasks["job_name"].str.strip().to_numpy(),
            "gpu_percent": np.nan_to_num(instances) * np.nan_to_num(percent),
            "start": np.where(timed, start, np.nan),
            "end": np.where(timed, end, np.nan),
        }
    )
    return frame.groupby("job").agg(
        gpu_percent=("gpu_percent", "sum"), start=("start", "min"), end=("end", "max")
    )
