"""Synthetic workloads (docs/model.md §7): determinism and the documented shapes."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sjfbsbf.core.catalog import DEFAULT_BATCH, TESTBED, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.workloads import PHILLY_GPU_MIX, default_workload
from sjfbsbf.workloads import testbed_workload as make_testbed  # not collected as a test

CATALOG = get_catalog("default")
EIGHT = {"resnet18", "shufflenet_v2", "vgg16", "vgg19", "dqn", "a2c", "bert", "gpt2"}


def full_batch_step(job: Job, cluster: Cluster) -> float:
    """Solo full-batch step on the fewest nodes, from the profile fields (docs/model.md §2)."""
    assert job.model is not None and job.batch is not None
    p = CATALOG[job.model]
    spans = job.gpus > cluster.gpus_per_node
    bw = cluster.inter_bw_gbps if spans else cluster.intra_bw_gbps
    allreduce = 0.0 if job.gpus == 1 else 2 * (job.gpus - 1) / job.gpus * p.grad_gb / bw
    return p.alpha_s + p.beta_s * job.batch + allreduce


def test_catalog_is_the_eight_testbed_models() -> None:
    """The embedded default catalog holds the eight testbed models with their batches."""
    assert set(CATALOG) == EIGHT == set(TESTBED)
    assert dict(DEFAULT_BATCH) == {
        "resnet18": 128,
        "shufflenet_v2": 128,
        "vgg16": 16,
        "vgg19": 16,
        "dqn": 128,
        "a2c": 64,
        "bert": 4,
        "gpt2": 4,
    }


def test_default_workload_deterministic() -> None:
    """Same seed → equal Instance; different seeds → different instances."""
    a, b = default_workload(0), default_workload(0)
    assert a == b
    assert a.name == "default-seed0"
    c = default_workload(1)
    assert c != a
    assert [j.arrival for j in c.jobs] != [j.arrival for j in a.jobs]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_default_workload_shape(seed: int) -> None:
    """docs/model.md §7: 200 jobs on 4 × 8 GPUs with 12 GB, models from the eight at their testbed
    batch, GPU demands from the Philly mix, and exclusive durations at the full batch within
    2–60 min up to the rounding of iterations (iterations = round(d / step), so the realised
    duration is within half a step of d ∈ [120, 3600]).
    """
    inst = default_workload(seed)
    assert inst.num_jobs == 200
    assert inst.cluster == Cluster(nodes=4, gpus_per_node=8, gpu_mem_gb=12.0)
    assert inst.catalog == "default"
    assert {j.id for j in inst.jobs} == set(range(200))
    for job in inst.jobs:
        assert job.model in EIGHT
        assert job.batch == DEFAULT_BATCH[job.model]
        assert job.gpus in PHILLY_GPU_MIX and job.gpus <= 32
        assert job.iterations is not None and job.iterations >= 1
        step = full_batch_step(job, inst.cluster)
        assert exclusive_duration(job, CATALOG[job.model], inst.cluster) == pytest.approx(
            job.iterations * step, rel=1e-12
        )
        assert 120.0 - step / 2 - 1e-9 <= job.iterations * step <= 3600.0 + step / 2 + 1e-9
    # Arrivals: Poisson in id order, whole seconds, the first at 0.
    arrivals = np.array([inst.job(i).arrival for i in range(200)])
    assert arrivals[0] == 0.0
    assert (np.diff(arrivals) >= 0).all()
    assert (arrivals == np.round(arrivals)).all()


def test_default_workload_distributions() -> None:
    """Statistical shape over 5 seeds × 200 jobs (bounds ~4 standard deviations wide).

    * Philly mix: P(1 GPU) = 0.5 → 500 of the 1000 jobs, sd √(1000 · 0.25) ≈ 15.8 → 500 ± 63.
    * Models uniform over 8: 125 each, sd √(1000 · 1/8 · 7/8) ≈ 10.5 → 125 ± 42.
    * log-uniform in [120, 3600] s: the median is √(120 · 3600) ≈ 657 s, so about half the jobs
      are shorter: 500 ± 63.
    * Offered load: the rate is set so that GPU-time ÷ (32 GPUs × span of arrivals) is 0.8 in
      expectation; per seed the span is a sum of 199 exponential gaps (relative sd ≈ 7%), so
      each seed lies within 0.8 · (1 ± 0.3).
    """
    gpus: Counter[int] = Counter()
    models: Counter[str] = Counter()
    short = 0
    for seed in range(5):
        inst = default_workload(seed)
        gpu_time = 0.0
        for job in inst.jobs:
            assert job.model is not None and job.iterations is not None
            gpus[job.gpus] += 1
            models[job.model] += 1
            duration = job.iterations * full_batch_step(job, inst.cluster)
            short += duration < np.sqrt(120.0 * 3600.0)
            gpu_time += job.gpus * duration
        span = max(j.arrival for j in inst.jobs) - min(j.arrival for j in inst.jobs)
        load = gpu_time / (inst.cluster.num_gpus * span)
        assert 0.56 <= load <= 1.04, (seed, load)
    assert set(gpus) <= set(PHILLY_GPU_MIX)
    assert abs(gpus[1] - 500) <= 63
    assert set(models) == EIGHT
    assert all(abs(c - 125) <= 42 for c in models.values()), models
    assert abs(short - 500) <= 63


@pytest.mark.parametrize(
    ("n", "shape"),
    [
        (30, {1: 10, 2: 8, 4: 6, 8: 4, 16: 2}),
        (61, {1: 20, 2: 16, 4: 12, 8: 8, 16: 3, 32: 2}),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_testbed_workload_shape(n: int, shape: dict[int, int], seed: int) -> None:
    """docs/model.md §7: exact GPU-demand counts; every arrival within the first 600 s."""
    inst = make_testbed(n, np.random.default_rng(seed))
    assert isinstance(inst, Instance)
    assert inst.num_jobs == n
    assert Counter(j.gpus for j in inst.jobs) == shape
    arrivals = [j.arrival for j in inst.jobs]
    assert min(arrivals) == 0.0 and max(arrivals) <= 600.0
    assert all(j.model in EIGHT for j in inst.jobs)
    again = make_testbed(n, np.random.default_rng(seed))
    assert again == inst


def test_testbed_workload_rejects_other_sizes() -> None:
    with pytest.raises(ValueError, match="30"):
        make_testbed(40, np.random.default_rng(0))


def test_random_window_of_consecutive_jobs() -> None:
    """``random_window``: the start is ``rng.integers(n - size + 1)`` over the jobs in arrival
    order, the jobs keep their ids, arrivals are rebased to 0; every start is reachable."""
    from sjfbsbf.workloads import random_window

    cluster = Cluster(nodes=1, gpus_per_node=4, gpu_mem_gb=12.0)
    jobs = tuple(Job(i, 50.0 * (5 - i), 1, duration=10.0) for i in range(6))  # ids reversed
    instance = Instance(cluster, jobs, name="six")
    in_order = [j.id for j in instance.jobs]  # 5, 4, ..., 0
    starts = Counter()
    for seed in range(200):
        window = random_window(instance, 4, np.random.default_rng(seed))
        start = int(np.random.default_rng(seed).integers(3))
        starts[start] += 1
        assert [j.id for j in window.jobs] == in_order[start : start + 4]
        assert [j.arrival for j in window.jobs] == [0.0, 50.0, 100.0, 150.0]
        assert window.name == f"six[window={start}:{start + 4}]"
        assert window.cluster == cluster
    assert sorted(starts) == [0, 1, 2]
    whole = random_window(instance, 6, np.random.default_rng(0))
    assert [j.id for j in whole.jobs] == in_order
    for size, words in ((7, "window of 7 jobs is larger than the trace (6 jobs)"), (0, "positive")):
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            random_window(instance, size, np.random.default_rng(0))


# -- duration distributions (docs/model.md §7) ------------------------------------------------


def _pareto_cdf(x: np.ndarray, low: float, high: float, shape: float) -> np.ndarray:
    """CDF of the Pareto of tail index ``shape`` truncated to ``[low, high]``."""
    return (1.0 - (low / x) ** shape) / (1.0 - (low / high) ** shape)


def test_default_duration_draw_is_unchanged() -> None:
    """The default (log-uniform) draw is today's, bit for bit: the same formula on the same
    stream, and the default workloads of seeds 0–2 hash to the value recorded when the Pareto
    option was added (golden tables depend on it)."""
    import hashlib

    from sjfbsbf.workloads.generators import WorkloadSpec, draw_durations

    spec = WorkloadSpec()
    assert spec.duration_dist == "log-uniform"
    ours = draw_durations(spec, 1000, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    before = np.exp(rng.uniform(np.log(120.0), np.log(3600.0), size=1000))
    assert np.array_equal(ours, before)
    digest = hashlib.sha256()
    for seed in range(3):
        for j in default_workload(seed).jobs:
            row = f"{j.id},{j.arrival!r},{j.gpus},{j.model},{j.batch},{j.iterations};"
            digest.update(row.encode())
    assert digest.hexdigest()[:16] == "5a594d12a57e6121"


@pytest.mark.parametrize("shape", [0.5, 1.0, 2.0])
def test_pareto_durations_in_bounds_with_the_shape_asked(shape: float) -> None:
    """10⁵ draws (seed 0) stay in [L, H] and follow the truncated Pareto: the Kolmogorov–
    Smirnov distance to its CDF is below the 1% critical value 1.63/√n ≈ 0.0052, and in the
    tail, where that bound is loose, the share of draws below the exact median, p90, p99 and
    p99.9 is within 4 binomial standard deviations of 0.5, 0.9, 0.99, 0.999."""
    from sjfbsbf.workloads.generators import WorkloadSpec, draw_durations

    low, high, n = 120.0, 86_400.0, 100_000
    spec = WorkloadSpec(
        duration_dist="pareto", duration_shape=shape, duration_min_s=low, duration_max_s=high
    )
    d = np.sort(draw_durations(spec, n, np.random.default_rng(0)))
    assert low <= d[0] and d[-1] <= high
    cdf = _pareto_cdf(d, low, high, shape)
    ks = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    assert ks < 1.63 / np.sqrt(n), ks
    mass = 1.0 - (low / high) ** shape
    for q in (0.5, 0.9, 0.99, 0.999):
        exact = low * (1.0 - q * mass) ** (-1.0 / shape)
        share = np.searchsorted(d, exact, side="right") / n
        assert abs(share - q) <= 4.0 * np.sqrt(q * (1.0 - q) / n), (q, share)


def test_pareto_keeps_the_other_draws_aligned() -> None:
    """One uniform per job, like the log-uniform draw: models and GPU counts are the same jobs;
    the durations (hence iterations and the arrival rate) differ."""
    plain = default_workload(3)
    heavy = default_workload(3, duration_dist="pareto", duration_max_s=86_400.0)
    assert [(j.id, j.model, j.gpus) for j in heavy.jobs] == [
        (j.id, j.model, j.gpus) for j in plain.jobs
    ]
    assert [j.iterations for j in heavy.jobs] != [j.iterations for j in plain.jobs]
    durations = [(j.iterations or 0) * full_batch_step(j, heavy.cluster) for j in heavy.jobs]
    assert min(durations) >= 60.0 and max(durations) <= 86_400.0 * 1.001


def test_pareto_degenerate_range_and_bad_specs() -> None:
    """L = H gives L; an unknown distribution or a shape that is not finite and > 0 is refused."""
    from sjfbsbf.workloads.generators import WorkloadSpec, draw_durations

    spec = WorkloadSpec(duration_dist="pareto", duration_min_s=600.0, duration_max_s=600.0)
    assert (draw_durations(spec, 10, np.random.default_rng(0)) == 600.0).all()
    with pytest.raises(ValueError, match="duration_dist must be one of 'log-uniform', 'pareto'"):
        WorkloadSpec(duration_dist="lognormal")
    for shape in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="duration_shape must be finite and > 0"):
            WorkloadSpec(duration_dist="pareto", duration_shape=shape)
