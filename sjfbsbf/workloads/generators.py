"""Synthetic workloads shaped like the authors' testbed (docs/model.md §7).

Every random choice draws from an explicit :class:`numpy.random.Generator`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import exclusive_duration

#: Philly-like GPU demand mix used by the authors' group.
PHILLY_GPU_MIX: Mapping[int, float] = MappingProxyType(
    {1: 0.50, 2: 0.0875, 4: 0.1625, 8: 0.1875, 16: 0.05, 32: 0.0125}
)
#: Named model mixes of the synthetic workloads (docs/model.md §7): light sharers (RL,
#: ShuffleNet, VGG: low contention, small memory), memory-heavy models (most pairs need a
#: sub-batch at 12 GB or do not fit) and the whole catalog (``()``: every model).
MODEL_MIXES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "light": ("dqn", "a2c", "shufflenet_v2", "vgg16", "vgg19"),
        "heavy": ("bert", "gpt2", "resnet18", "shufflenet_v2"),
        "full": (),
    }
)
#: Distributions of the exclusive durations (:func:`draw_durations`).
DURATION_DISTS = ("log-uniform", "pareto")
#: The testbed's 30-job and 61-job traces: GPU demand -> number of jobs.
TESTBED_SHAPES: Mapping[int, Mapping[int, int]] = MappingProxyType(
    {
        30: MappingProxyType({1: 10, 2: 8, 4: 6, 8: 4, 16: 2}),
        61: MappingProxyType({1: 20, 2: 16, 4: 12, 8: 8, 16: 3, 32: 2}),
    }
)


@dataclass(frozen=True)
class WorkloadSpec:
    """Parameters of a synthetic workload (defaults: the default scenario of docs/model.md §7).

    Parameters
    ----------
    n_jobs
        Number of jobs.
    cluster
        The cluster.
    gpu_mix
        GPU demand -> probability (demands above the cluster size are dropped, the rest
        renormalised).
    duration_min_s, duration_max_s
        Exclusive durations at the full batch are drawn in this range.
    duration_dist
        ``"log-uniform"`` (the default) or ``"pareto"``: a Pareto truncated to the range, tail
        index ``duration_shape`` (:func:`draw_durations`).
    duration_shape
        Tail index of ``"pareto"`` (> 0; the smaller, the heavier the tail). Ignored by
        ``"log-uniform"``.
    load
        Offered GPU-time ÷ capacity; sets the Poisson arrival rate.
    models
        Models drawn uniformly (independent of the GPU count); default: the whole catalog.
    catalog
        Catalog name.
    """

    n_jobs: int = 200
    cluster: Cluster = field(default_factory=Cluster)
    gpu_mix: Mapping[int, float] = field(default_factory=lambda: dict(PHILLY_GPU_MIX))
    duration_min_s: float = 120.0
    duration_max_s: float = 3600.0
    load: float = 0.8
    models: tuple[str, ...] = ()
    catalog: str = "default"
    duration_dist: str = "log-uniform"
    duration_shape: float = 1.0

    def __post_init__(self) -> None:
        if self.n_jobs < 1:
            raise ValueError("n_jobs must be positive")
        if not 0 < self.duration_min_s <= self.duration_max_s:
            raise ValueError("need 0 < duration_min_s <= duration_max_s")
        if self.duration_dist not in DURATION_DISTS:
            raise ValueError(
                f"duration_dist must be one of {', '.join(map(repr, DURATION_DISTS))}, "
                f"got {self.duration_dist!r}"
            )
        if not (math.isfinite(self.duration_shape) and self.duration_shape > 0):
            raise ValueError(f"duration_shape must be finite and > 0, got {self.duration_shape!r}")
        if self.load <= 0:
            raise ValueError("load must be positive")


def _models(spec: WorkloadSpec) -> tuple[str, ...]:
    return spec.models or tuple(get_catalog(spec.catalog))


def draw_durations(spec: WorkloadSpec, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exclusive durations (s) in ``[duration_min_s, duration_max_s]``, one uniform each.

    ``log-uniform``: ``exp(U(ln L, ln H))``. ``pareto``: the Pareto of tail index a truncated to
    ``[L, H]``, ``P(D > x) ∝ x^-a - H^-a``, by inverse CDF from one uniform u in [0, 1)::

        x = L · (1 − u · (1 − (L/H)^a))^(−1/a)

    (computed with ``expm1``/``log1p``; clipped to ``[L, H]`` against rounding). Both take one
    double from ``rng`` per job, so the draws that follow stay aligned.
    """
    low, high = spec.duration_min_s, spec.duration_max_s
    if spec.duration_dist == "log-uniform":
        return np.exp(rng.uniform(np.log(low), np.log(high), size=n))
    shape = spec.duration_shape
    u = rng.random(size=n)
    mass = -math.expm1(-shape * math.log(high / low))  # 1 - (L/H)^a
    return np.clip(low * np.exp(-np.log1p(-u * mass) / shape), low, high)


def mean_duration(spec: WorkloadSpec) -> float:
    """The mean of :func:`draw_durations`' distribution (s): ``(H − L) / ln(H/L)`` for
    log-uniform; for the Pareto of tail index a truncated to ``[L, H]``,
    ``a·L^a·(H^(1−a) − L^(1−a)) / ((1 − a)·(1 − (L/H)^a))`` (``L·ln(H/L) / (1 − L/H)`` at a = 1)."""
    low, high = spec.duration_min_s, spec.duration_max_s
    if high == low:
        return low
    if spec.duration_dist == "log-uniform":
        return (high - low) / math.log(high / low)
    a = spec.duration_shape
    mass = 1.0 - (low / high) ** a
    if math.isclose(a, 1.0):
        return low * math.log(high / low) / mass
    return a * low**a * (high ** (1 - a) - low ** (1 - a)) / ((1 - a) * mass)


def expected_span(spec: WorkloadSpec) -> float:
    """Expected time of the last arrival of :func:`generate` (s): ``(n − 1) / rate`` with the
    expected rate, ``(n − 1) · E[G] · E[D] / (load · GPUs)`` (demands and durations drawn
    independently; durations rounded to whole iterations are ignored)."""
    mix = {g: p for g, p in spec.gpu_mix.items() if g <= spec.cluster.num_gpus}
    mean_gpus = sum(g * p for g, p in mix.items()) / sum(mix.values())
    per_job = mean_gpus * mean_duration(spec) / (spec.load * spec.cluster.num_gpus)
    return (spec.n_jobs - 1) * per_job


def _draw_jobs(
    spec: WorkloadSpec, gpus: np.ndarray, arrivals: np.ndarray, rng: np.random.Generator
) -> Instance:
    catalog = get_catalog(spec.catalog)
    models = _models(spec)
    n = len(gpus)
    chosen = rng.integers(0, len(models), size=n)
    durations = draw_durations(spec, n, rng)
    jobs = []
    for i in range(n):
        model = models[chosen[i]]
        batch = DEFAULT_BATCH[model]
        probe = Job(i, 0.0, int(gpus[i]), model, batch, 1)
        step = exclusive_duration(probe, catalog[model], spec.cluster)
        iterations = max(1, round(durations[i] / step))
        jobs.append(Job(i, float(arrivals[i]), int(gpus[i]), model, batch, iterations))
    return Instance(spec.cluster, tuple(jobs), catalog=spec.catalog)


def generate(spec: WorkloadSpec, rng: np.random.Generator) -> Instance:
    """Draw a Poisson-arrival workload from ``spec``.

    GPU demands follow ``spec.gpu_mix``, durations ``spec.duration_dist`` (log-uniform by
    default), arrival times are rounded to whole seconds and the first job arrives at 0. The
    arrival rate is set from the drawn jobs so that offered GPU-time ÷ (GPUs × span of
    arrivals) equals ``spec.load`` in expectation.
    """
    mix = {g: p for g, p in spec.gpu_mix.items() if g <= spec.cluster.num_gpus}
    demands = np.array(sorted(mix))
    probs = np.array([mix[g] for g in demands], dtype=float)
    gpus = rng.choice(demands, size=spec.n_jobs, p=probs / probs.sum())
    gaps = rng.exponential(1.0, size=spec.n_jobs)
    instance = _draw_jobs(spec, gpus, np.zeros(spec.n_jobs), rng)
    gpu_time = sum(j.gpus * _full_duration(instance, j) for j in instance.jobs)
    rate = spec.load * spec.cluster.num_gpus * spec.n_jobs / gpu_time  # jobs per second
    arrivals = np.round(np.concatenate(([0.0], np.cumsum(gaps[1:]))) / rate)
    jobs = tuple(replace(j, arrival=float(arrivals[j.id])) for j in instance.jobs)
    return Instance(spec.cluster, jobs, catalog=spec.catalog, name=f"poisson-{spec.n_jobs}")


def _full_duration(instance: Instance, job: Job) -> float:
    if job.duration is not None:
        return job.duration
    catalog = get_catalog(instance.catalog)
    assert job.model is not None
    return exclusive_duration(job, catalog[job.model], instance.cluster)


def offered_load(instance: Instance, num_gpus: int | None = None) -> float:
    """Offered GPU-time (exclusive, full batch) ÷ (GPUs × span of arrivals).

    ``num_gpus`` defaults to the instance's cluster; ``inf`` if every job arrives at once.
    """
    gpu_time = sum(j.gpus * _full_duration(instance, j) for j in instance.jobs)
    span = instance.jobs[-1].arrival - instance.jobs[0].arrival
    gpus = instance.cluster.num_gpus if num_gpus is None else num_gpus
    return gpu_time / (gpus * span) if span > 0 else float("inf")


def default_workload(seed: int = 0, **overrides: object) -> Instance:
    """The embedded default workload of ``sjfbsbf compare`` (docs/model.md §7), from ``seed``."""
    spec = replace(WorkloadSpec(), **overrides)  # type: ignore[arg-type]
    instance = generate(spec, np.random.default_rng(seed))
    return replace(instance, name=f"default-seed{seed}")


def testbed_workload(
    n_jobs: int,
    rng: np.random.Generator,
    *,
    cluster: Cluster | None = None,
    window_s: float = 600.0,
    duration_min_s: float = 120.0,
    duration_max_s: float = 3600.0,
) -> Instance:
    """The testbed-shaped trace of 30 or 61 jobs, all arriving uniformly within ``window_s``."""
    if n_jobs not in TESTBED_SHAPES:
        raise ValueError(f"testbed traces have {sorted(TESTBED_SHAPES)} jobs, not {n_jobs}")
    spec = WorkloadSpec(
        n_jobs=n_jobs,
        cluster=cluster or Cluster(),
        duration_min_s=duration_min_s,
        duration_max_s=duration_max_s,
    )
    shape = TESTBED_SHAPES[n_jobs]
    gpus = rng.permutation(np.repeat(list(shape), list(shape.values())))
    arrivals = np.sort(np.round(rng.uniform(0.0, window_s, size=n_jobs)))
    arrivals[0] = 0.0
    instance = _draw_jobs(spec, gpus, arrivals, rng)
    return replace(instance, name=f"testbed-{n_jobs}")
