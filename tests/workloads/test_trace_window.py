"""The options every public-trace loader shares (sjfbsbf.workloads.trace_window), on the
hand-written Philly log of tests/data/philly: time window, random window and sample drawn from a
seeded Generator, target-load rescaling, oversize jobs capped or dropped; and reading a member of
an archive (sjfbsbf.workloads.archive)."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.archive import open_member
from sjfbsbf.workloads.generators import offered_load
from sjfbsbf.workloads.philly_log import load_philly_job_log
from sjfbsbf.workloads.trace_window import TraceJob, TraceOptions, build_instance

LOG = Path(__file__).resolve().parents[1] / "data" / "philly" / "cluster_job_log"
CLUSTER = Cluster(nodes=1, gpus_per_node=8)
#: The usable jobs of the log by submission: (id, arrival after the first submission, GPUs,
#: duration of the last attempt); job 2 asks for 16 GPUs.
USABLE = [(1, 0, 1, 600), (0, 699, 8, 7200), (2, 3600, 16, 1800), (3, 4200, 2, 60),
          (9, 18000, 4, 3600), (10, 86400, 4, 1800)]  # fmt: skip


def load(options: TraceOptions | None = None, seed: int | None = None):  # type: ignore[no-untyped-def]
    rng = None if seed is None else np.random.default_rng(seed)
    return load_philly_job_log(LOG, CLUSTER, options=options, rng=rng)


def test_time_window_is_relative_to_the_first_submission_and_rebased() -> None:
    instance, report = load(TraceOptions(start=600, end=4200))
    assert [(j.id, j.arrival) for j in instance.jobs] == [(0, 0.0), (2, 2901.0)]
    assert (report.usable, report.outside_window, report.jobs) == (6, 4, 2)
    _, report = load(TraceOptions(end=4200.5))
    assert report.jobs == 4


def test_random_window_and_sample_are_drawn_from_the_generator_only() -> None:
    instance, report = load(TraceOptions(window_jobs=3), seed=7)
    first = int(np.random.default_rng(7).integers(0, 6 - 3 + 1))
    assert [j.id for j in instance.jobs] == [u[0] for u in USABLE[first : first + 3]]
    assert report.outside_window == 3
    again, _ = load(TraceOptions(window_jobs=3), seed=7)
    assert again.jobs == instance.jobs
    sampled, report = load(TraceOptions(sample=3), seed=11)
    keep = np.sort(np.random.default_rng(11).choice(6, size=3, replace=False))
    assert [j.id for j in sampled.jobs] == [USABLE[int(i)][0] for i in keep]
    assert report.not_sampled == 3
    half, _ = load(TraceOptions(sample=0.5), seed=11)
    assert half.jobs == sampled.jobs  # round(0.5 × 6) = 3 jobs, the same draw
    one, _ = load(TraceOptions(sample=0.1), seed=11)
    assert one.num_jobs == 1  # round(0.6) = 1
    everything, report = load(TraceOptions(sample=10, window_jobs=10), seed=11)
    assert everything.num_jobs == 6 and report.not_sampled == report.outside_window == 0
    with pytest.raises(ValueError, match="rng"):
        load(TraceOptions(sample=2))


def test_target_load_rescales_arrivals_to_the_exact_value() -> None:
    instance, report = load()
    gpu_time = 8 * 7200 + 1 * 600 + 8 * 1800 + 2 * 60 + 4 * 3600 + 4 * 1800  # job 2 capped to 8
    assert report.offered_load == pytest.approx(gpu_time / (8 * 86400), rel=1e-15)
    scaled, report = load(TraceOptions(target_load=0.8))
    assert offered_load(scaled) == pytest.approx(0.8, rel=1e-12)
    assert report.offered_load == pytest.approx(0.8, rel=1e-12)
    assert report.time_scale == pytest.approx(gpu_time / (8 * 86400) / 0.8, rel=1e-12)
    assert [j.arrival for j in scaled.jobs] == pytest.approx(
        [u[1] * report.time_scale for u in USABLE], rel=1e-12
    )
    assert [j.duration for j in scaled.jobs] == [j.duration for j in instance.jobs]


def test_oversize_jobs_are_capped_dropped_or_refused_and_counted() -> None:
    capped, report = load()
    assert report.capped == (2,) and report.dropped == ()
    assert capped.job(2).gpus == 8 and capped.job(2).duration == 1800.0
    dropped, report = load(TraceOptions(oversize="drop"))
    assert report.dropped == (2,) and report.capped == () and 2 not in {j.id for j in dropped.jobs}
    with pytest.raises(InstanceError, match=r"job 2, field 'gpus': 16 GPUs") as info:
        load(TraceOptions(oversize="refuse"))
    assert str(info.value).startswith(str(LOG)) and "\n" not in str(info.value)


def test_nothing_left_and_loads_that_cannot_be_reached_are_one_line() -> None:
    with pytest.raises(InstanceError, match="no job left"):
        load(TraceOptions(start=100000))
    with pytest.raises(InstanceError, match="same time"):
        load(TraceOptions(end=1, target_load=0.5))
    trace = [TraceJob(0, 5.0, 1, 10.0), TraceJob(1, 5.0, 1, 20.0)]
    with pytest.raises(InstanceError, match=r"t\.csv: cannot rescale"):
        build_instance(trace, CLUSTER, source="t.csv", name="t", records=2, skipped={},
                       options=TraceOptions(target_load=1.0))  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"start": 10, "end": 10}, "start < end"),
        ({"start": -1}, "start must be"),
        ({"target_load": 0}, "target_load"),
        ({"window_jobs": 0}, "window_jobs"),
        ({"sample": 0}, "sample"),
        ({"sample": 1.5}, "sample"),
        ({"sample": True}, "sample"),
        ({"oversize": "shrink"}, "oversize"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TraceOptions(**options)  # type: ignore[arg-type]


def test_members_are_read_inside_tar_and_zip_archives(tmp_path: Path) -> None:
    archive = tmp_path / "trace-data.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(LOG, arcname="trace-data/cluster_job_log")
    from_tar, report = load_philly_job_log(archive, CLUSTER)
    assert from_tar.jobs == load()[0].jobs
    assert report.source == f"{archive}:trace-data/cluster_job_log"
    with pytest.raises(InstanceError, match="no member 'other'"), open_member(archive, "other"):
        pass
    zipped = tmp_path / "data.zip"
    with zipfile.ZipFile(zipped, "w") as out:
        out.writestr("data/A/x.csv", "a\n")
        out.writestr("data/B/x.csv", "b\n")
    with open_member(zipped, "B/x.csv") as (handle, label):
        assert handle.read() == b"b\n" and label == f"{zipped}:data/B/x.csv"
    several = r"2 members match 'x\.csv'.*data/A/x\.csv"
    with pytest.raises(InstanceError, match=several), open_member(zipped, "x.csv"):
        pass
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(archive.read_bytes()[:200])
    with pytest.raises(InstanceError, match="cannot read") as info:
        load_philly_job_log(broken, CLUSTER)
    assert "\n" not in str(info.value)
