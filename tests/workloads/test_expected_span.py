"""The expected arrival span of a generated workload, and the sweep check built on it (issue 35,
smaller items: ``n_jobs = 10,000,000``, the documented maximum, always failed at run time because
its arrivals passed 10 years)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sjfbsbf.core.model import MAX_TIME_S, Cluster
from sjfbsbf.experiments.sweep_params import ParamError
from sjfbsbf.experiments.sweep_workloads import canonical_workload
from sjfbsbf.workloads.generators import (
    WorkloadSpec,
    draw_durations,
    expected_span,
    generate,
    mean_duration,
)


@pytest.mark.parametrize(
    ("dist", "shape"), [("log-uniform", 1.0), ("pareto", 0.5), ("pareto", 1.0), ("pareto", 2.5)]
)
def test_the_mean_duration_is_the_sample_mean(dist: str, shape: float) -> None:
    spec = WorkloadSpec(duration_dist=dist, duration_shape=shape)
    sample = draw_durations(spec, 400_000, np.random.default_rng(7))
    assert mean_duration(spec) == pytest.approx(float(sample.mean()), rel=0.01)


def test_the_mean_of_a_point_range_is_the_point() -> None:
    assert mean_duration(WorkloadSpec(duration_min_s=50.0, duration_max_s=50.0)) == 50.0


def test_the_expected_span_is_the_mean_last_arrival() -> None:
    """Over 40 seeds the last arrival averages the expectation (within 3%)."""
    spec = WorkloadSpec(n_jobs=400, cluster=Cluster(2, 4))
    last = [generate(spec, np.random.default_rng(seed)).jobs[-1].arrival for seed in range(40)]
    assert float(np.mean(last)) == pytest.approx(expected_span(spec), rel=0.03)
    assert expected_span(WorkloadSpec(n_jobs=1)) == 0.0


def _workload(n_jobs: int) -> dict[str, object]:
    return {"kind": "default", "n_jobs": n_jobs, "nodes": 1, "gpus_per_node": 1}


def test_a_sweep_refuses_arrivals_past_ten_years_when_it_is_read() -> None:
    """At, one below and one above the largest job count whose expected span fits."""
    spec = WorkloadSpec(n_jobs=2, cluster=Cluster(1, 1))
    per_job = expected_span(spec)  # (2 - 1) jobs' worth
    most = math.floor(MAX_TIME_S / per_job) + 1
    for n in (most - 1, most):
        assert canonical_workload(_workload(n))["n_jobs"] == n
    with pytest.raises(ParamError, match="would arrive over about") as info:
        canonical_workload(_workload(most + 1))
    assert info.value.key == "n_jobs"
    with pytest.raises(ParamError, match="10,000,000 jobs"):
        canonical_workload({"kind": "default", "n_jobs": 10_000_000})
