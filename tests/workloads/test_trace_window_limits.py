"""The trace options at and around each limit, and build_instance's refusals word for word
(issue 35, mutation gaps): a window starting at 0, a window of one job, a sample of one job or
of the whole trace, a target load of 0; the file and the job each refusal names (a late arrival,
before and after rescaling, an oversize job, no job left); the catalog and time scale of what is
built."""

from __future__ import annotations

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster
from sjfbsbf.workloads.trace_window import TraceJob, TraceOptions, build_instance

CLUSTER = Cluster(nodes=1, gpus_per_node=8)
#: Job.arrival's limit (docs/model.md: at most 10 years of 365.25 days).
TEN_YEARS = 315_576_000


def build(trace, options=None, rng=None, **kwargs):  # type: ignore[no-untyped-def]
    return build_instance(
        trace,
        CLUSTER,
        source="log",
        name="n",
        records=len(trace),
        skipped={},
        options=options,
        rng=rng,
        **kwargs,
    )


TWO = [TraceJob(0, 50.0, 1, 10.0), TraceJob(1, 150.0, 1, 10.0)]


def test_the_limits_of_each_option() -> None:
    """start and end may be 0 (a window from the first submission), a window or a sample may be
    of one job, a fraction of 1.0 keeps every job; 0 jobs, 0.0 and 0 load are refused."""
    assert TraceOptions(start=0.0, end=1.0).start == 0.0
    assert TraceOptions(end=0.5, start=0).end == 0.5
    assert TraceOptions(window_jobs=1).window_jobs == 1
    assert TraceOptions(sample=1).sample == 1
    assert TraceOptions(sample=1.0).sample == 1.0
    for options, message in [
        ({"window_jobs": 0}, "window_jobs must be an integer ≥ 1, got 0"),
        ({"sample": 0}, "sample must be a number of jobs ≥ 1 or a fraction in (0, 1], got 0"),
        ({"sample": 0.0}, "sample must be a number of jobs ≥ 1 or a fraction in (0, 1], got 0.0"),
        ({"target_load": 0.0}, "target_load must be > 0"),
    ]:
        with pytest.raises(ValueError) as info:
            TraceOptions(**options)  # type: ignore[arg-type]
        assert str(info.value) == message


def test_a_window_of_one_job_and_a_whole_sample() -> None:
    instance, report = build(TWO, TraceOptions(window_jobs=1), np.random.default_rng(0))
    assert instance.num_jobs == 1 and report.outside_window == 1
    instance, report = build(TWO, TraceOptions(sample=1.0), np.random.default_rng(0))
    assert [j.id for j in instance.jobs] == [0, 1] and report.not_sampled == 0


def test_random_options_without_a_generator_are_refused() -> None:
    with pytest.raises(ValueError) as info:
        build(TWO, TraceOptions(sample=1))
    assert str(info.value) == (
        "window_jobs and sample draw random jobs: pass rng (a numpy Generator)"
    )


def test_no_job_left_names_the_file_also_for_an_empty_trace_in_a_window() -> None:
    for trace, options in [([], TraceOptions(start=0)), (TWO, TraceOptions(start=10_000))]:
        with pytest.raises(InstanceError) as info:
            build(trace, options)
        assert str(info.value) == (
            "log: no job left (every record skipped, outside the window, or dropped)"
        )


def test_an_oversize_job_refused_names_its_record_and_field() -> None:
    big = [TraceJob(3, 0.0, 16, 10.0)]
    with pytest.raises(InstanceError) as info:
        build(big, TraceOptions(oversize="refuse"))
    assert str(info.value) == (
        "log, job 3, field 'gpus': 16 GPUs, more than the cluster's 8 (load with "
        "oversize='cap' or 'drop')"
    )


def test_a_late_arrival_names_its_job_and_says_it_is_relative_to_the_first_kept_job() -> None:
    late = [TraceJob(0, 0.0, 1, 10.0), TraceJob(7, TEN_YEARS + 1.0, 1, 10.0)]
    with pytest.raises(InstanceError) as info:
        build(late)
    assert str(info.value) == (
        f"log, job 7, field 'arrival': must be at most {TEN_YEARS:,} s (10 years), got "
        f"{TEN_YEARS + 1.0!r} (its submit time less the first kept job's)"
    )
    with pytest.raises(InstanceError) as info:
        build(late, row_of=lambda i: f"line {i + 2}")
    assert str(info.value).startswith("log, line 9, field 'arrival': ")


def test_a_problem_other_than_the_arrival_gets_no_arrival_note() -> None:
    bad = [TraceJob(0, 0.0, 1, 10.0, vc="a\tb")]
    with pytest.raises(InstanceError) as info:
        build(bad)
    assert str(info.value).startswith("log, job 0, field 'vc': ")
    assert "submit time" not in str(info.value)


def test_an_arrival_too_late_after_rescaling_names_the_file() -> None:
    """Offered load (2 × 10 GPU·s) / (8 GPUs × 100 s) = 0.025; a target of 1e-9 stretches the
    100 s span by 2.5e7, past ten years."""
    with pytest.raises(InstanceError) as info:
        build(TWO, TraceOptions(target_load=1e-9))
    message = str(info.value)
    assert message.startswith(
        f"log, job 1, field 'arrival': must be at most {TEN_YEARS:,} s (10 years)"
    )
    assert "submit time" not in message


def test_the_catalog_is_the_instances_and_the_time_scale_is_1_without_a_target() -> None:
    instance, report = build(TWO, catalog="default:alpha=0.25")
    assert instance.catalog == "default:alpha=0.25"
    assert report.time_scale == 1.0
