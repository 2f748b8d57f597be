"""Offline model: solve time of CP-SAT and the MILP (HiGHS) against instance size.

For each cluster size (GPUs on one node) the number of jobs grows; instances are drawn like the
suite's (formulations/offline/generate.py: all eight models, GPU mix {1, 1, 2, 4} capped at the
cluster, whole-slot durations 1–5 slots, arrivals within ``jobs // 2`` slots, dt = 60 s), two
seeds per size. A backend stops growing a cluster's job count once no seed of a size is proven
within the time limit. Prints one row per solve (jobs, GPUs, horizon in slots, status, time,
relative gap) and, per backend and cluster, the largest size proven for every seed.

Not a test: run it by hand, e.g. ``python benchmarks/offline_solve_time.py --time-limit 60``.
"""

from __future__ import annotations

import argparse
import sys
import time

from formulations.offline import solve_offline
from formulations.offline.generate import Spec, make_instance


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description="Offline model solve time vs instance size.")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--gpus", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--jobs", type=int, nargs="*", default=[4, 6, 8, 10, 12, 14, 16])
    parser.add_argument("--backends", nargs="*", default=["cpsat", "milp"])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="CP-SAT workers")
    args = parser.parse_args(argv)

    print(
        f"{'backend':7s} {'GPUs':>4s} {'jobs':>4s} {'seed':>4s} {'horizon':>7s} "
        f"{'status':10s} {'time s':>7s} {'gap':>7s}",
        flush=True,
    )
    largest: dict[tuple[str, int], int] = {}
    for backend in args.backends:
        for gpus in args.gpus:
            for jobs in args.jobs:
                proven = 0
                for seed in range(args.seeds):
                    spec = Spec(
                        name=f"bench-{jobs}-{gpus}-{seed}",
                        seed=50_000 + 1000 * gpus + 10 * jobs + seed,
                        jobs=jobs,
                        gpus_per_node=gpus,
                        pool="all",
                        gpu_mix=(1, 1, 2, 4),
                        slots=(1, 5),
                        arrival_span=max(1, jobs // 2),
                    )
                    instance = make_instance(spec)
                    started = time.perf_counter()
                    result = solve_offline(
                        instance,
                        backend,
                        time_limit=args.time_limit,
                        num_workers=args.workers,
                    )
                    elapsed = time.perf_counter() - started
                    gap = result.gap
                    gap_text = "-" if gap is None else f"{gap:.1%}"
                    proven += result.status.value == "optimal"
                    print(
                        f"{backend:7s} {gpus:4d} {jobs:4d} {seed:4d} "
                        f"{result.info.get('horizon', 0):7d} {result.status.value:10s} "
                        f"{result.runtime_s:7.1f} {gap_text:>7s}   (total {elapsed:.1f} s)",
                        flush=True,
                    )
                if proven == args.seeds:
                    largest[backend, gpus] = jobs
                if proven == 0:
                    break
    print("\nlargest job count proven optimal for every seed within the limit:")
    for backend in args.backends:
        for gpus in args.gpus:
            print(f"  {backend:7s} {gpus} GPUs: {largest.get((backend, gpus), '-')} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
