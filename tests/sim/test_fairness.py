"""Stretch, contention, finish-time fairness, Jain's index and the per-VC table (model.md §4.2)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.fairness import VC_COLUMNS, contention, jain_index, vc_table
from sjfbsbf.sim.simulator import simulate


def test_contention_by_hand() -> None:
    """A on [0, 10), B on [5, 15), C on [10, 20): A sees 1 then 2 jobs (1.5), B sees 2 all the
    time (A leaves as C arrives: half-open intervals), C sees 2 then 1 (1.5)."""
    present = contention(np.array([0.0, 5.0, 10.0]), np.array([10.0, 15.0, 20.0]))
    assert present.tolist() == [1.5, 2.0, 1.5]


def _brute_contention(arrival: list[float], finish: list[float]) -> list[float]:
    """Each job's window cut at every arrival and finish inside it, the jobs present counted in
    each piece at its midpoint."""
    out = []
    for a, f in zip(arrival, finish, strict=True):
        cuts = sorted({a, f, *(t for t in arrival + finish if a < t < f)})
        area = 0.0
        for lo, hi in itertools.pairwise(cuts):
            mid = (lo + hi) / 2
            area += (hi - lo) * sum(1 for x, y in zip(arrival, finish, strict=True) if x <= mid < y)
        out.append(area / (f - a))
    return out


@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(1, 30)),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from([1.0, 0.25, 7.5]),
)
def test_contention_matches_a_brute_force_count(pairs: list[tuple[int, int]], unit: float) -> None:
    """Whole multiples of a unit, so arrivals and finishes often coincide (ties, a job leaving as
    another arrives)."""
    arrival = [a * unit for a, _ in pairs]
    finish = [(a + d) * unit for a, d in pairs]
    present = contention(np.array(arrival), np.array(finish))
    assert present == pytest.approx(_brute_contention(arrival, finish), rel=1e-12)
    assert (present >= 1.0 - 1e-12).all()


def test_contention_of_no_jobs_is_empty() -> None:
    assert contention(np.zeros(0), np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("policy", ["fifo", "sjf"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_contention_agrees_with_the_tick_records(policy: str, seed: int) -> None:
    """With dt = 1 s, whole-second arrivals and durations and a policy that never shares, every
    start and finish is a tick (docs/model.md §4), so the tick table's running + pending counts
    are the jobs present: integrating them over each job's window gives N̄_j × JCT_j."""
    rng = np.random.default_rng(seed)
    jobs = tuple(
        Job(i, float(rng.integers(0, 200)), int(rng.choice([1, 2])), duration=float(d))
        for i, d in enumerate(rng.integers(5, 80, size=15))
    )
    result = simulate(Instance(Cluster(nodes=1, gpus_per_node=2), jobs), make_policy(policy))
    ticks = result.ticks
    start = ticks["time"].to_numpy()
    end = start + ticks["duration"].to_numpy()
    count = (ticks["running"] + ticks["pending"]).to_numpy()
    for row in result.jobs.itertuples():
        overlap = np.clip(np.minimum(end, row.finish) - np.maximum(start, row.arrival), 0, None)
        assert float((count * overlap).sum()) == pytest.approx(row.contention * row.jct)


def test_stretch_and_finish_time_fairness_of_two_jobs_by_hand() -> None:
    """One GPU, two 10 s jobs at 0, fifo: job 0 runs 0–10 (stretch 1, two jobs present: N̄ = 2,
    ρ = 10 ÷ (10 × 2) = 0.5), job 1 runs 10–20 (stretch 2, N̄ = (2·10 + 1·10) ÷ 20 = 1.5,
    ρ = 20 ÷ 15). A third job alone, later, has stretch, N̄ and ρ 1."""
    instance = Instance(
        Cluster(nodes=1, gpus_per_node=1),
        (
            Job(0, 0.0, 1, duration=10.0, vc="a", user="u1"),
            Job(1, 0.0, 1, duration=10.0, vc="b"),
            Job(2, 100.0, 1, duration=5.0),
        ),
    )
    result = simulate(instance, make_policy("fifo"))
    jobs = result.jobs
    assert jobs["stretch"].tolist() == [1.0, 2.0, 1.0]
    assert jobs["contention"].tolist() == [2.0, 1.5, 1.0]
    assert jobs["ftf"].tolist() == pytest.approx([0.5, 20 / 15, 1.0])
    assert jobs["vc"].tolist() == ["a", "b", ""]
    assert jobs["user"].tolist() == ["u1", "", ""]
    assert result.metrics["avg_stretch"] == pytest.approx(4 / 3)
    assert result.metrics["max_ftf"] == pytest.approx(20 / 15)
    assert result.metrics["ftf_above_1"] == pytest.approx(1 / 3)
    assert result.metrics["jain_stretch"] == pytest.approx(16 / (3 * 6))


def test_jain_index_is_one_for_equal_values_and_one_over_n_for_one_value() -> None:
    assert jain_index(np.full(7, 2.5)) == pytest.approx(1.0)
    assert jain_index(np.array([3.0, 0.0, 0.0, 0.0])) == pytest.approx(0.25)


def test_vc_table_by_hand() -> None:
    jobs = pd.DataFrame(
        {
            "vc": ["b", "a", "b", ""],
            "jct": [10.0, 4.0, 30.0, 7.0],
            "stretch": [1.0, 2.0, 3.0, 1.0],
            "queueing_delay": [0.0, 1.0, 4.0, 0.0],
            "ftf": [0.5, 2.0, 1.5, 1.0],
        }
    )
    table = vc_table(jobs)
    assert list(table.columns) == list(VC_COLUMNS)
    assert table["vc"].tolist() == ["", "a", "b"]
    assert table["jobs"].tolist() == [1, 1, 2]
    assert table["avg_jct"].tolist() == [7.0, 4.0, 20.0]
    assert table["avg_stretch"].tolist() == [1.0, 2.0, 2.0]
    assert table["avg_queueing_delay"].tolist() == [0.0, 1.0, 2.0]
    assert table["max_ftf"].tolist() == [1.0, 2.0, 1.5]


def test_vc_table_of_jobs_without_a_vc_is_empty() -> None:
    jobs = pd.DataFrame(
        {"vc": ["", ""], "jct": [1.0, 2.0], "stretch": [1.0, 1.0], "queueing_delay": [0.0] * 2}
    )
    jobs["ftf"] = 1.0
    assert vc_table(jobs).empty
    assert list(vc_table(jobs).columns) == list(VC_COLUMNS)
