"""The "Philly-like" benchmark trace of the speed-at-scale benchmark (docs/performance.md).

A seeded generator of duration-only jobs shaped like the Philly trace, harder than the default
workload: heavy-tailed durations and wide jobs build long queues.

* GPU counts 1, 2, 4, 8, 16, 32 with probabilities 0.5, 0.0875, 0.1625, 0.1875, 0.05, 0.0125;
* durations log-normal with a median of 20 minutes and σ = 1.6 (natural log), clipped to
  [10 s, 2 days] and rounded to whole seconds;
* Poisson arrivals (exponential gaps, rounded to whole seconds) at the rate that makes the
  offered GPU-time ÷ capacity = ``load``: rate = load · GPUs / mean(G_j · d_j), the mean taken
  over the drawn jobs, so the trace offers that load over its arrival span;
* a cluster of 128 nodes × 8 GPUs of 48 GB.

Usage: ``python benchmarks/philly_like.py --jobs 10000 --seed 0 --out philly-10k.json``
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import Cluster, Instance, Job

GPU_COUNTS = (1, 2, 4, 8, 16, 32)
GPU_PROBABILITIES = (0.5, 0.0875, 0.1625, 0.1875, 0.05, 0.0125)
MEDIAN_DURATION_S = 20 * 60.0
SIGMA = 1.6
MIN_DURATION_S = 10.0
MAX_DURATION_S = 2 * 86_400.0
CLUSTER = Cluster(nodes=128, gpus_per_node=8, gpu_mem_gb=48.0)


def draw_jobs(n_jobs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """GPU counts and durations (s) of ``n_jobs`` Philly-like jobs, in that draw order.

    Parameters
    ----------
    n_jobs
        Number of jobs (≥ 1).
    rng
        The source of every random draw.

    Returns
    -------
    tuple of numpy.ndarray
        GPU counts (int) and durations (whole seconds, float).
    """
    if n_jobs < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
    gpus = rng.choice(np.array(GPU_COUNTS), size=n_jobs, p=np.array(GPU_PROBABILITIES))
    durations = np.rint(
        np.clip(
            rng.lognormal(np.log(MEDIAN_DURATION_S), SIGMA, size=n_jobs),
            MIN_DURATION_S,
            MAX_DURATION_S,
        )
    )
    return gpus, durations


def philly_like(
    n_jobs: int, rng: np.random.Generator, *, load: float = 0.8, cluster: Cluster = CLUSTER
) -> Instance:
    """Draw a Philly-like instance of ``n_jobs`` duration-only jobs.

    Parameters
    ----------
    n_jobs
        Number of jobs (≥ 1).
    rng
        The source of every random draw.
    load
        Offered GPU-time ÷ capacity over the arrival span.
    cluster
        The cluster (default: 128 nodes × 8 GPUs, 48 GB).

    Returns
    -------
    Instance
        Jobs with ids 0..n-1 in arrival order; the first arrives at time 0.
    """
    if not (math.isfinite(load) and load > 0):
        raise ValueError(f"load must be positive and finite, got {load}")
    gpus, durations = draw_jobs(n_jobs, rng)
    rate = load * cluster.num_gpus / float(np.mean(gpus * durations))  # jobs per second
    gaps = rng.exponential(1.0 / rate, size=n_jobs)
    gaps[0] = 0.0
    arrivals = np.rint(np.cumsum(gaps))
    jobs = tuple(
        Job(id=j, arrival=float(arrivals[j]), gpus=int(gpus[j]), duration=float(durations[j]))
        for j in range(n_jobs)
    )
    return Instance(cluster=cluster, jobs=jobs, name=f"philly-like-{n_jobs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--load", type=float, default=0.8)
    parser.add_argument("--out", required=True, help="instance JSON file to write")
    args = parser.parse_args()
    instance = philly_like(args.jobs, np.random.default_rng(args.seed), load=args.load)
    write_instance(instance, args.out)


if __name__ == "__main__":
    main()
