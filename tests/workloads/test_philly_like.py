"""The speed benchmark's Philly-like trace (benchmarks/philly_like.py) has the stated shape."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from philly_like import (
    GPU_COUNTS,
    GPU_PROBABILITIES,
    MAX_DURATION_S,
    MEDIAN_DURATION_S,
    MIN_DURATION_S,
    philly_like,
)


def test_the_trace_has_the_stated_shape() -> None:
    inst = philly_like(20_000, np.random.default_rng(7))
    assert (inst.cluster.nodes, inst.cluster.gpus_per_node, inst.cluster.gpu_mem_gb) == (128, 8, 48)
    gpus = np.array([j.gpus for j in inst.jobs])
    durations = np.array([j.duration for j in inst.jobs])
    arrivals = np.array([j.arrival for j in inst.jobs])
    assert [j.id for j in inst.jobs] == list(range(20_000))
    assert set(gpus) <= set(GPU_COUNTS)
    shares = [np.mean(gpus == g) for g in GPU_COUNTS]
    assert shares == pytest.approx(GPU_PROBABILITIES, abs=0.01)
    assert np.all(durations == np.rint(durations))
    assert durations.min() >= MIN_DURATION_S and durations.max() <= MAX_DURATION_S
    assert np.median(durations) == pytest.approx(MEDIAN_DURATION_S, rel=0.05)
    assert np.std(np.log(durations)) == pytest.approx(1.6, abs=0.05)
    assert arrivals[0] == 0 and np.all(np.diff(arrivals) >= 0)
    assert np.all(arrivals == np.rint(arrivals))
    offered = float(np.sum(gpus * durations)) / (inst.cluster.num_gpus * arrivals[-1])
    assert offered == pytest.approx(0.8, rel=0.02)


def test_the_trace_is_seeded() -> None:
    a = philly_like(500, np.random.default_rng(3))
    assert a == philly_like(500, np.random.default_rng(3))
    assert a != philly_like(500, np.random.default_rng(4))


@pytest.mark.parametrize(
    ("n", "load"), [(0, 0.8), (10, 0.0), (10, float("nan")), (10, float("inf"))]
)
def test_bad_sizes_and_loads_are_refused(n: int, load: float) -> None:
    with pytest.raises(ValueError, match="must be"):
        philly_like(n, np.random.default_rng(0), load=load)
