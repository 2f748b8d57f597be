"""The Philly job log loader (sjfbsbf.workloads.philly_log) on the hand-written log of
tests/data/philly: arrivals, durations and GPUs computed by hand, the skipping rules, the
virtual cluster and user each job keeps, and one malformed file per refusal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.philly_log import load_philly_job_log
from sjfbsbf.workloads.trace_window import TraceOptions

DATA = Path(__file__).resolve().parents[1] / "data" / "philly"
LOG = DATA / "cluster_job_log"
CLUSTER = Cluster(nodes=2, gpus_per_node=8)


def rows(instance):  # type: ignore[no-untyped-def]
    return [(j.id, j.arrival, j.gpus, j.duration) for j in instance.jobs]


def test_the_last_attempt_gives_gpus_and_duration_submission_the_arrival() -> None:
    """Job 1 is submitted first (01:00:00); job 0 at 01:11:39 (699 s) ran 1 min 14 s, then
    2 h (its last attempt); job 2 holds 8 + 8 GPUs on two servers; job 9's first attempt has no
    start time, its last runs 1 h; job 10 is submitted a day after job 1."""
    instance, report = load_philly_job_log(LOG, CLUSTER)
    assert rows(instance) == [
        (1, 0.0, 1, 600.0),
        (0, 699.0, 8, 7200.0),
        (2, 3600.0, 16, 1800.0),
        (3, 4200.0, 2, 60.0),
        (9, 18000.0, 4, 3600.0),
        (10, 86400.0, 4, 1800.0),
    ]
    assert instance.name == "philly" and all(j.model is None for j in instance.jobs)
    assert (report.records, report.usable, report.jobs, report.skipped_count) == (11, 6, 6, 5)
    assert report.skipped == {
        "no_submit_time": (7,),
        "no_attempt": (4,),
        "no_times": (5,),  # still running: its only attempt has no end time
        "no_gpus": (6,),
        "no_run_time": (8,),
    }
    assert report.capped == report.dropped == ()


def test_summed_attempts_need_every_attempt_timed() -> None:
    instance, report = load_philly_job_log(LOG, CLUSTER, attempts="sum")
    assert instance.job(0).duration == 74.0 + 7200.0
    assert report.skipped["no_times"] == (5, 9)  # job 9's first attempt has no start time
    assert [j.id for j in instance.jobs] == [1, 0, 2, 3, 10]
    with pytest.raises(ValueError, match="attempts"):
        load_philly_job_log(LOG, CLUSTER, attempts="first")  # type: ignore[arg-type]


def test_virtual_cluster_and_status_filters_are_counted() -> None:
    instance, report = load_philly_job_log(LOG, CLUSTER, vc="vcB")
    assert rows(instance) == [(2, 0.0, 16, 1800.0), (9, 14400.0, 4, 3600.0)]
    assert report.skipped["other_vc"] == (0, 1, 3, 5, 6, 8, 10)
    assert instance.name == "philly-vcB"
    instance, report = load_philly_job_log(LOG, CLUSTER, statuses={"Killed", "Failed"})
    assert [j.id for j in instance.jobs] == [2, 3]
    assert report.skipped["other_status"] == (0, 1, 4, 5, 6, 8, 9, 10)
    assert report.skipped["no_submit_time"] == (7,)


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("bad_not_json", "line 2: not JSON"),
        ("bad_not_list", "the job log is a JSON list"),
        ("bad_entry_not_object", "entry 0: a job is a JSON object"),
        ("bad_missing_submitted_time", "entry 1, field 'submitted_time': missing key"),
        ("bad_attempts_not_list", "entry 0, field 'attempts': must be a list"),
        ("bad_time_format", "entry 1, field 'attempts[0].start_time': not a time"),
        ("bad_gpus_not_list", "entry 0, field 'attempts[0].detail'"),
        ("bad_vc_not_string", "entry 1, field 'vc': must be a string, got 7"),
        (
            "bad_user_control_char",
            "entry 0, field 'user': must be printable text (no control characters), got "
            "'u\\x1b[31m1'",
        ),
        ("bad_user_too_long", "entry 0, field 'user': must be at most 128 characters, got 129"),
    ],
)
def test_malformed_logs_are_refused_in_one_line(name: str, where: str) -> None:
    path = DATA / f"{name}.json"
    with pytest.raises(InstanceError) as info:
        load_philly_job_log(path, CLUSTER)
    message = str(info.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message


def test_jobs_keep_the_virtual_cluster_and_user() -> None:
    """Each job keeps its record's vc and user; they survive the options (window, sample,
    oversize cap, rebasing, target load)."""
    instance, _ = load_philly_job_log(LOG, CLUSTER)
    assert [(j.id, j.vc, j.user) for j in instance.jobs] == [
        (1, "vcA", "u2"),
        (0, "vcA", "u1"),
        (2, "vcB", "u1"),
        (3, "vcA", "u3"),
        (9, "vcB", "u3"),
        (10, "vcA", "u2"),
    ]
    assert all(j.estimate is None for j in instance.jobs)
    options = TraceOptions(start=600, sample=3, target_load=0.5)
    scaled, report = load_philly_job_log(
        LOG, Cluster(nodes=1, gpus_per_node=8), options=options, rng=np.random.default_rng(2)
    )
    assert report.capped == (2,) and report.time_scale != 1.0
    assert [(j.id, j.gpus, j.vc, j.user) for j in scaled.jobs] == [
        (0, 8, "vcA", "u1"),
        (2, 8, "vcB", "u1"),  # capped from 16 GPUs
        (3, 2, "vcA", "u3"),
    ]


def test_an_empty_or_missing_vc_or_user_gives_none() -> None:
    """Absent, null, "" and "None" (the log's own word for not logged) give no label; a record
    that becomes no job (entry 5: no attempt) is not checked."""
    instance, report = load_philly_job_log(DATA / "vc_user_missing.json", CLUSTER)
    assert [(j.id, j.vc, j.user) for j in instance.jobs] == [
        (0, "vcA", "u1"),
        (1, None, "u2"),
        (2, None, None),
        (3, None, None),
        (4, None, None),
    ]
    assert report.skipped == {"no_attempt": (5,)}
