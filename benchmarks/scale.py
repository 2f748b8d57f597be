"""Speed at scale: every policy on Philly-like traces of 1k / 10k / 100k (1M) jobs.

Each run is a child process (one core, its own peak RSS) with a wall-clock timeout; a run that
exceeds it is reported as "> T s". The table gives wall time (simulation only; reading the
instance file is timed apart), jobs/s, decisions/s, peak RSS and time(n) ÷ time(n/10). Every run
appends one CSV row (commit, policy, jobs, status, load_s, wall_s, jobs_per_s, decisions,
decisions_per_s, peak_rss_mib). The traces come from ``benchmarks/philly_like.py`` (seed 0) and
are cached in ``--workdir``. See docs/performance.md.

Usage::

    python benchmarks/scale.py                       # 1k, 10k, 100k; all six policies
    python benchmarks/scale.py --million             # ... and 1,000,000 jobs
    python benchmarks/scale.py --sizes 10000 --policies sjf-bsbf --timeout 120
    python benchmarks/scale.py --sizes 10000 --policies sjf-bsbf --profile   # cProfile, top 15
    python benchmarks/scale.py --policies lucid,sjf-bsbf --interference mps  # another world
    python benchmarks/scale.py --sizes 1000000 --load-only 5  # read the file only, 5 times
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import json
import os
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from philly_like import philly_like

POLICIES = ("fifo", "sjf", "srtf", "tiresias", "sjf-ffs", "sjf-bsbf")
#: The world's interference unless ``--interference`` says otherwise (the simulator's default).
DEFAULT_WORLD = "time-slicing"
#: The pseudo-policy of ``--load-only``: read the instance file and stop.
LOAD = "load"
FIELDS = (
    "commit",
    "policy",
    "jobs",
    "status",
    "load_s",
    "wall_s",
    "jobs_per_s",
    "decisions",
    "decisions_per_s",
    "peak_rss_mib",
)


def commit() -> str:
    """The short hash of HEAD, with ``+dirty`` when the work tree has changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


def trace(n: int, workdir: Path, seed: int) -> Path:
    """The Philly-like instance file of ``n`` jobs (written once, then reused)."""
    path = workdir / f"philly-like-{n}-seed{seed}.json"
    if not path.exists():
        from sjfbsbf.core.instance_io import write_instance

        workdir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        write_instance(philly_like(n, np.random.default_rng(seed)), tmp)
        tmp.replace(path)
    return path


def child(policy: str, path: str, interference: str = DEFAULT_WORLD) -> None:
    """Run one simulation and print its measurements as one JSON line.

    ``policy`` ``load``: only read the instance file (wall time 0).
    """
    from sjfbsbf.core.instance_io import read_instance
    from sjfbsbf.core.presets import make_interference
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate

    started = time.perf_counter()
    instance = read_instance(path)
    loaded = time.perf_counter()
    if policy == LOAD:
        rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"load_s": loaded - started, "peak_rss_mib": rss_kib / 1024}))
        return
    world = make_interference(interference)
    result = simulate(instance, make_policy(policy), interference=world, record_segments=False)
    wall = time.perf_counter() - loaded
    decisions = int(result.params["decisions"])
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "load_s": loaded - started,
                "wall_s": wall,
                "decisions": decisions,
                "peak_rss_mib": rss_kib / 1024,
                "avg_jct": float(result.metrics["avg_jct"]),
            }
        )
    )


def run(
    policy: str, path: Path, timeout: float, interference: str = DEFAULT_WORLD
) -> dict[str, object]:
    """One run in a child process; ``status`` is ok, timeout or error."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--child", policy, str(path), interference]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return {"status": "error", "error": tail}
    row: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    row["status"] = "ok"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000", help="job counts")
    parser.add_argument("--million", action="store_true", help="also run 1,000,000 jobs")
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--timeout", type=float, default=400.0, help="per run (s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default="/tmp/sjfbsbf-scale", help="trace cache")
    parser.add_argument("--csv", default="benchmarks/results/scale.csv", help="rows appended")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile the first policy at the first size in this process (cProfile, top 15 by "
        "own time) instead of timing runs",
    )
    parser.add_argument(
        "--load-only",
        type=int,
        default=0,
        metavar="N",
        help="only read each size's instance file, N times (fresh processes); CSV policy 'load'",
    )
    parser.add_argument(
        "--interference",
        default=DEFAULT_WORLD,
        help="the world's interference preset (rows of another world name the policy "
        "POLICY[WORLD] in the CSV)",
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("POLICY", "FILE", "WORLD"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sizes = [int(x) for x in args.sizes.split(",")] + ([1_000_000] if args.million else [])
    policies = args.policies.split(",")
    if args.profile:
        path = trace(sizes[0], Path(args.workdir), args.seed)
        profiler = cProfile.Profile()
        profiler.runcall(child, policies[0], str(path), args.interference)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    rev = commit()
    out = Path(args.csv)
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.load_only:
        load_only(sizes, args, rev, out)
        return
    new = not out.exists()
    print(
        f"{'policy':9} {'jobs':>8} {'load s':>7} {'wall s':>9} {'jobs/s':>8} {'dec/s':>8} "
        f"{'RSS MiB':>8} {'÷ n/10':>7}  avg JCT"
    )
    with out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for policy in policies:
            walls: dict[int, float] = {}
            for n in sizes:
                path = trace(n, Path(args.workdir), args.seed)
                row = run(policy, path, args.timeout, args.interference)
                if row["status"] == "ok":
                    wall = float(row["wall_s"])  # type: ignore[arg-type]
                    walls[n] = wall
                    decisions = int(row["decisions"])  # type: ignore[call-overload]
                    ratio = f"{wall / walls[n // 10]:7.1f}" if n // 10 in walls else f"{'':7}"
                    print(
                        f"{policy:9} {n:8d} {row['load_s']:7.1f} {wall:9.1f} {n / wall:8.0f} "
                        f"{decisions / wall:8.0f} {row['peak_rss_mib']:8.0f} {ratio}  "
                        f"{row['avg_jct']:.1f}",
                        flush=True,
                    )
                    record = {
                        "load_s": f"{row['load_s']:.2f}",
                        "wall_s": f"{wall:.2f}",
                        "jobs_per_s": f"{n / wall:.0f}",
                        "decisions": decisions,
                        "decisions_per_s": f"{decisions / wall:.0f}",
                        "peak_rss_mib": f"{row['peak_rss_mib']:.0f}",
                    }
                else:
                    shown = f"> {args.timeout:g} s" if row["status"] == "timeout" else "error"
                    print(f"{policy:9} {n:8d} {'':7} {shown:>9}  {row.get('error', '')}")
                    record = {"wall_s": f">{args.timeout:g}" if row["status"] == "timeout" else ""}
                name = (
                    policy
                    if args.interference == DEFAULT_WORLD
                    else f"{policy}[{args.interference}]"
                )
                writer.writerow(
                    {"commit": rev, "policy": name, "jobs": n, "status": row["status"], **record}
                )
                handle.flush()


def load_only(sizes: list[int], args: argparse.Namespace, rev: str, out: Path) -> None:
    """Read each size's instance file ``args.load_only`` times; print and append the times."""
    new = not out.exists()
    print(f"{'jobs':>8} {'run':>4} {'load s':>7} {'RSS MiB':>8}")
    with out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for n in sizes:
            path = trace(n, Path(args.workdir), args.seed)
            for repeat in range(args.load_only):
                row = run(LOAD, path, args.timeout)
                record: dict[str, object] = {"commit": rev, "policy": LOAD, "jobs": n}
                record["status"] = row["status"]
                if row["status"] == "ok":
                    print(f"{n:8d} {repeat + 1:4d} {row['load_s']:7.2f} {row['peak_rss_mib']:8.0f}")
                    record["load_s"] = f"{row['load_s']:.2f}"
                    record["peak_rss_mib"] = f"{row['peak_rss_mib']:.0f}"
                else:
                    print(f"{n:8d} {repeat + 1:4d} {row['status']:>7} {row.get('error', '')}")
                writer.writerow(record)
                handle.flush()


if __name__ == "__main__":
    main()
