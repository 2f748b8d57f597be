"""The Alibaba PAI loader (sjfbsbf.workloads.pai) on the hand-written headerless tables of
tests/data/pai: arrivals, durations and GPUs (percent of a GPU, summed over a job's task
instances, rounded up) computed by hand, the skipping rules, the user each job keeps, reading
the .tar.gz archives, and one malformed table per refusal."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads import datasets
from sjfbsbf.workloads.pai import JOB_COLUMNS, load_pai_trace
from sjfbsbf.workloads.trace_window import TraceOptions

DATA = Path(__file__).resolve().parents[1] / "data" / "pai"
JOBS = DATA / "pai_job_table.csv"
TASKS = DATA / "pai_task_table.csv"
CLUSTER = Cluster(nodes=1, gpus_per_node=8)


def rows(instance):  # type: ignore[no-untyped-def]
    return [(j.id, j.arrival, j.gpus, j.duration) for j in instance.jobs]


def test_jobs_from_the_job_and_task_tables() -> None:
    """j0: two workers at 100 % (2 GPUs) and a CPU ps; its tasks run 1005-4020. j1: 50 % -> 1
    GPU. j2: 16 GPUs, capped to 8. j3: 3 × 25 % + 50 % = 125 % -> 2 GPUs, tasks 1400-8500.
    j9: submitted a day after j0. The task of jX, absent from the job table, is ignored."""
    instance, report = load_pai_trace(JOBS, TASKS, CLUSTER)
    assert rows(instance) == [
        (0, 0.0, 2, 3015.0),
        (1, 100.0, 1, 500.0),
        (2, 200.0, 8, 80.0),
        (3, 300.0, 2, 7100.0),
        (9, 86400.0, 4, 3600.0),
    ]
    assert report.skipped == {
        "no_submit_time": (5,),
        "no_task": (6,),
        "no_gpus": (7,),  # its only task asks no GPU
        "no_run_time": (4, 8),  # still running; never launched (times 0)
    }
    assert (report.records, report.usable, report.capped) == (10, 5, (2,))
    assert instance.name == "pai"


def test_status_filter_options_and_archives(tmp_path: Path) -> None:
    instance, report = load_pai_trace(JOBS, TASKS, CLUSTER, statuses={"Terminated"})
    assert [j.id for j in instance.jobs] == [0, 1, 3, 9]
    assert report.skipped["other_status"] == (2, 4, 8)
    instance, report = load_pai_trace(JOBS, TASKS, CLUSTER, options=TraceOptions(end=250))
    assert [j.id for j in instance.jobs] == [0, 1, 2] and report.outside_window == 2
    archives = []
    for table in (JOBS, TASKS):
        archive = tmp_path / f"{table.stem}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(table, arcname=table.name)
        archives.append(archive)
    from_archives, report = load_pai_trace(archives[0], archives[1], CLUSTER)
    assert from_archives.jobs == load_pai_trace(JOBS, TASKS, CLUSTER)[0].jobs
    assert report.source == f"{archives[0]}:pai_job_table.csv"
    with_header = tmp_path / "pai_job_table.csv"  # a header line equal to the columns is read
    with_header.write_text(",".join(JOB_COLUMNS) + "\n" + JOBS.read_text())
    assert load_pai_trace(with_header, TASKS, CLUSTER)[0].jobs == from_archives.jobs


def test_the_dataset_is_pinned_to_the_published_checksums() -> None:
    dataset = datasets.get_dataset("pai-gpu-2020")
    assert dataset.verified
    assert [(f.name, f.size) for f in dataset.files] == [
        ("pai_job_table.tar.gz", 62065432),
        ("pai_task_table.tar.gz", 35514117),
    ]


@pytest.mark.parametrize(
    ("jobs", "tasks", "where"),
    [
        ("bad_job_columns", None, "line 1: 5 columns, expected 6 (job_name,inst_id,"),
        ("bad_ragged_job", None, "line 2: 7 fields, more than the 6 of the first line"),
        ("bad_submit_text", None, "line 2, field 'start_time': must be a number ≥ 0"),
        ("bad_repeated_job", None, "line 3, field 'job_name': repeated"),
        (None, "bad_task_inst_num", "line 2, field 'inst_num': must be a whole number"),
        (None, "bad_task_plan_gpu", "line 1, field 'plan_gpu': must be a number ≥ 0"),
        ("bad_user_too_long", None, "line 2, field 'user': must be at most 128 characters"),
    ],
)
def test_malformed_tables_are_refused_in_one_line(
    jobs: str | None, tasks: str | None, where: str
) -> None:
    job_path = JOBS if jobs is None else DATA / f"{jobs}.csv"
    task_path = TASKS if tasks is None else DATA / f"{tasks}.csv"
    with pytest.raises(InstanceError) as info:
        load_pai_trace(job_path, task_path, CLUSTER)
    message = str(info.value)
    bad = job_path if jobs is not None else task_path
    assert message.startswith(str(bad)) and where in message and "\n" not in message


def test_jobs_keep_their_user(tmp_path: Path) -> None:
    """The job table's user becomes the job's (PAI has no virtual cluster); an empty user gives
    none; the user survives the options."""
    instance, _ = load_pai_trace(JOBS, TASKS, CLUSTER)
    assert [(j.id, j.vc, j.user) for j in instance.jobs] == [
        (0, None, "u1"),
        (1, None, "u2"),
        (2, None, "u1"),
        (3, None, "u3"),
        (9, None, "u4"),
    ]
    blank = tmp_path / "pai_job_table.csv"
    blank.write_text(JOBS.read_text().replace("j1,i1,u2,", "j1,i1, ,"))
    instance, _ = load_pai_trace(blank, TASKS, CLUSTER, options=TraceOptions(start=50, end=250))
    assert [(j.id, j.arrival, j.user) for j in instance.jobs] == [(1, 0.0, None), (2, 100.0, "u1")]
