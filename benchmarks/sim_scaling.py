"""Simulator scaling: jobs simulated per second as the trace and the cluster grow.

Generates default-shaped workloads (offered load 0.8) of growing size on clusters scaled with
them and times one simulation per policy. Reports wall time, jobs/s, decisions and the ratio of
time per job to the smallest size (flat = linear scaling).

Usage: ``python benchmarks/sim_scaling.py [--sizes 500,2000,8000] [--policies sjf,sjf-bsbf]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sjfbsbf.core.model import Cluster
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.generators import WorkloadSpec, generate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="500,2000,8000", help="job counts")
    parser.add_argument("--jobs-per-node", type=int, default=50, help="cluster grows with jobs")
    parser.add_argument("--policies", default="sjf,tiresias,sjf-ffs,sjf-bsbf")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    policies = args.policies.split(",")
    print(
        f"{'policy':10} {'jobs':>7} {'GPUs':>6} {'wall s':>8} {'jobs/s':>9} "
        f"{'decisions':>10} {'s/job ÷ first':>14}"
    )
    for policy in policies:
        first = None
        for n in sizes:
            nodes = max(1, n // args.jobs_per_node)
            spec = WorkloadSpec(n_jobs=n, cluster=Cluster(nodes=nodes))
            instance = generate(spec, np.random.default_rng(args.seed))
            started = time.perf_counter()
            result = simulate(instance, make_policy(policy), record_segments=False)
            wall = time.perf_counter() - started
            per_job = wall / n
            first = first or per_job
            print(
                f"{policy:10} {n:7d} {instance.cluster.num_gpus:6d} {wall:8.2f} "
                f"{n / wall:9.0f} {result.params['decisions']:10d} {per_job / first:14.2f}"
            )


if __name__ == "__main__":
    main()
