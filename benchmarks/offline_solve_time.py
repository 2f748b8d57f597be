"""Offline model: solve time of CP-SAT and the MILP (HiGHS) against instance size.

For each cluster size (GPUs on one node) the number of jobs grows; instances are drawn like the
suite's (formulations/offline/generate.py: all eight models, GPU mix {1, 1, 2, 4} capped at the
cluster, whole-slot durations 1–5 slots, arrivals within ``jobs // 2`` slots, dt = 60 s), two
seeds per size. A backend stops growing a cluster's job count once no seed of a size is proven
within the time limit. Prints one row per solve (jobs, GPUs, horizon in slots, status, time,
relative gap) and, per backend and cluster, the largest size proven for every seed.

``--scale`` instead solves instances drawn like the suite's 12-to-50-job ones (8 GPUs on one
node, all eight models, GPU mix {1, 1, 2, 4}, 1–5-slot jobs arriving within 5/6 of the job
count in slots: the load of n12-g8-all-*) at ``--scale-jobs`` (12 20 30 50), ``--seeds`` seeds
each (generator seeds 4000 + 10 · jobs + seed), with both backends, and writes one CSV row per
solve (``--out``): status, best replayed average JCT U, lower bound L, the gap (U − L) / L, the
solver's time and the wall time. It runs on older checkouts too (``PYTHONPATH=<checkout>``; the
bounds it reports are then that version's), which is how the before/after table of
docs/formulations.md §2.10 was made. ``--prove-free S`` passes ``placement_free=S`` to
``solve_offline`` (the placement-free CP-SAT bound on unproven solves; current checkouts only;
``--lb-tree`` runs it with CP-SAT's lb-tree search),
``--search N`` its ``search=N`` (the incumbent search; default: the solver's, 300 for bounds).

Not a test: run it by hand, e.g. ``python benchmarks/offline_solve_time.py --time-limit 60`` or
``python benchmarks/offline_solve_time.py --scale --out scale.csv``.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

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
    parser.add_argument("--scale", action="store_true", help="12-50 jobs, gap table (CSV)")
    parser.add_argument("--scale-jobs", type=int, nargs="*", default=[12, 20, 30, 50])
    parser.add_argument("--out", type=Path, default=None, help="CSV of the --scale rows")
    parser.add_argument(
        "--search", type=int, default=None, help="--scale: incumbent-search simulations"
    )
    parser.add_argument(
        "--prove-free",
        type=float,
        default=None,
        metavar="S",
        help="--scale: give unproven solves S more s of the placement-free CP-SAT bound",
    )
    parser.add_argument(
        "--lb-tree", action="store_true", help="--prove-free with CP-SAT's lb-tree search"
    )
    args = parser.parse_args(argv)
    if args.lb_tree and args.prove_free is None:
        parser.error("--lb-tree needs --prove-free S")
    if args.scale:
        return scale(args)

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
                        deterministic=True,
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


SCALE_COLUMNS = (
    "backend",
    "jobs",
    "gpus",
    "seed",
    "horizon",
    "status",
    "best_avg_jct",
    "bound",
    "gap",
    "runtime_s",
    "wall_s",
    "source",
)


def scale(args: argparse.Namespace) -> int:
    """Solve 12-50-job instances with each backend; print and write (U, L, (U − L) / L)."""
    rows = []
    print(" ".join(f"{c:>12s}" for c in SCALE_COLUMNS), flush=True)
    for jobs in args.scale_jobs:
        for seed in range(args.seeds):
            spec = Spec(
                name=f"scale-{jobs}-{seed}",
                seed=4000 + 10 * jobs + seed,
                jobs=jobs,
                gpus_per_node=8,
                pool="all",
                gpu_mix=(1, 1, 2, 4),
                slots=(1, 5),
                arrival_span=round(jobs * 10 / 12),
            )
            instance = make_instance(spec)
            for backend in args.backends:
                started = time.perf_counter()
                extra: dict[str, float | int | bool] = {}
                if args.prove_free is not None:
                    extra["placement_free"] = args.prove_free
                    if args.lb_tree:
                        extra["placement_free_lb_tree"] = True
                if args.search is not None:
                    extra["search"] = args.search
                result = solve_offline(
                    instance,
                    backend,
                    time_limit=args.time_limit,
                    num_workers=args.workers,
                    deterministic=True,
                    **extra,
                )
                wall = time.perf_counter() - started
                best, bound = result.replayed_avg_jct, result.bound
                gap = None if best is None or not bound else (best - bound) / bound
                row = {
                    "backend": backend,
                    "jobs": jobs,
                    "gpus": 8,
                    "seed": spec.seed,
                    "horizon": result.info.get("horizon", 0),
                    "status": result.status.value,
                    "best_avg_jct": best,
                    "bound": bound,
                    "gap": gap,
                    "runtime_s": round(result.runtime_s, 2),
                    "wall_s": round(wall, 2),
                    "source": result.info.get("source", ""),
                }
                rows.append(row)
                print(" ".join(f"{_cell(row[c]):>12s}" for c in SCALE_COLUMNS), flush=True)
    if args.out is not None:
        with args.out.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=SCALE_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    return 0


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


if __name__ == "__main__":
    sys.exit(main())
