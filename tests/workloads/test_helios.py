"""The Helios loader (sjfbsbf.workloads.helios) on the hand-written cluster_log.csv of
tests/data/helios: arrivals, durations and GPUs computed by hand, the skipping rules, the
virtual cluster and user each job keeps, reading from data.zip, the archive's format check, and
one malformed file per refusal."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.helios import check_helios_archive, load_helios_log
from sjfbsbf.workloads.trace_window import TraceOptions

DATA = Path(__file__).resolve().parents[1] / "data" / "helios"
LOG = DATA / "cluster_log.csv"
CLUSTER = Cluster(nodes=1, gpus_per_node=8)


def rows(instance):  # type: ignore[no-untyped-def]
    return [(j.id, j.arrival, j.gpus, j.duration) for j in instance.jobs]


def test_lines_become_jobs_submitted_at_submit_time() -> None:
    """First submission 2020-06-09 18:41:01; job 4 (16 GPUs) is capped to the 8 GPUs; job 9 is
    submitted a day after job 0."""
    instance, report = load_helios_log(LOG, CLUSTER)
    assert rows(instance) == [
        (0, 0.0, 1, 36848.0),
        (1, 26.0, 4, 249.0),
        (2, 27.0, 1, 675233.0),
        (4, 539.0, 8, 7200.0),
        (6, 3600.0, 8, 86400.0),
        (9, 86400.0, 4, 3600.0),
    ]
    assert report.skipped == {"no_submit_time": (7,), "cpu_only": (3,), "no_run_time": (5, 8)}
    assert (report.records, report.usable, report.capped) == (10, 6, (4,))
    assert instance.name == "helios"


def test_filters_and_options() -> None:
    instance, report = load_helios_log(LOG, CLUSTER, vc="vcJkd")
    assert [j.id for j in instance.jobs] == [0, 6] and instance.name == "helios-vcJkd"
    assert report.skipped["other_vc"] == (1, 2, 4, 5, 7, 9)
    assert report.skipped["cpu_only"] == (3,) and report.skipped["no_run_time"] == (8,)
    instance, report = load_helios_log(LOG, CLUSTER, states={"COMPLETED"})
    assert [j.id for j in instance.jobs] == [0, 4, 9]
    options = TraceOptions(sample=3, oversize="drop", target_load=1.5)
    first, report = load_helios_log(LOG, CLUSTER, options=options, rng=np.random.default_rng(3))
    again, _ = load_helios_log(LOG, CLUSTER, options=options, rng=np.random.default_rng(3))
    assert first.jobs == again.jobs and report.offered_load == pytest.approx(1.5, rel=1e-12)
    assert report.not_sampled == 3 and first.num_jobs + len(report.dropped) == 3


def test_data_zip_is_read_per_cluster_and_checked(tmp_path: Path) -> None:
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.write(LOG, "data/Venus/cluster_log.csv")
        out.write(LOG, "data/Earth/cluster_log.csv")
    instance, report = load_helios_log(archive, CLUSTER, helios_cluster="Venus")
    assert rows(instance) == rows(load_helios_log(LOG, CLUSTER)[0])
    assert report.source == f"{archive}:data/Venus/cluster_log.csv"
    assert instance.name == "helios-Venus"
    with pytest.raises(InstanceError, match=r"2 members match 'cluster_log\.csv'"):
        load_helios_log(archive, CLUSTER)
    assert check_helios_archive(archive) is None
    with zipfile.ZipFile(archive, "a") as out:
        out.write(DATA / "bad_missing_column.csv", "data/Saturn/cluster_log.csv")
    assert check_helios_archive(archive) == "data/Saturn/cluster_log.csv has no column gpu_num"
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("data/README", "nothing\n")
    assert check_helios_archive(empty) == "no cluster_log.csv in the archive"
    assert check_helios_archive(LOG) == "not a readable zip archive (BadZipFile)"


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("bad_missing_column", "line 1, field 'gpu_num': missing column"),
        ("bad_fractional_gpus", "line 3, field 'gpu_num': must be a whole number"),
        ("bad_missing_gpus", "line 2, field 'gpu_num': missing value"),
        ("bad_duration_text", "line 3, field 'duration': must be a number ≥ 0, got '4 min'"),
        ("bad_submit_time", "line 2, field 'submit_time': not a time"),
        (
            "bad_user_control_char",
            "line 3, field 'user': must be printable text (no control characters), got 'u\\tX'",
        ),
        ("bad_vc_too_long", "line 2, field 'vc': must be at most 128 characters, got 129"),
    ],
)
def test_malformed_logs_are_refused_in_one_line(name: str, where: str) -> None:
    path = DATA / f"{name}.csv"
    with pytest.raises(InstanceError) as info:
        load_helios_log(path, CLUSTER)
    message = str(info.value)
    assert message.startswith(str(path)) and where in message and "\n" not in message


def test_jobs_keep_the_virtual_cluster_and_user() -> None:
    """vc and user become the job's; they survive capping and a target load; a log without a
    user column gives none, an empty vc none, and values are stripped like the vc filter's."""
    instance, _ = load_helios_log(LOG, CLUSTER, options=TraceOptions(target_load=0.8))
    assert [(j.id, j.gpus, j.vc, j.user) for j in instance.jobs] == [
        (0, 1, "vcJkd", "uXBbc"),
        (1, 4, "vchbv", "uVMrF"),
        (2, 1, "vcpDC", "uzqls"),
        (4, 8, "vchbv", "uVMrF"),  # capped from 16 GPUs
        (6, 8, "vcJkd", "uXBbc"),
        (9, 4, "vchbv", "uXBbc"),
    ]
    instance, _ = load_helios_log(DATA / "no_user_column.csv", CLUSTER)
    assert [(j.id, j.vc, j.user) for j in instance.jobs] == [
        (0, "vcJkd", None),
        (1, None, None),
        (2, "vchbv", None),
    ]
    instance, _ = load_helios_log(DATA / "no_user_column.csv", CLUSTER, vc="vchbv")
    assert [(j.id, j.vc) for j in instance.jobs] == [(2, "vchbv")]
