"""One scheduling decision on a busy cluster: 1,000 pending and 1,000 running jobs, 1,024 GPUs.

The state (docs/performance.md, "One decision"):

* the cluster of ``benchmarks/philly_like.py`` (128 nodes × 8 GPUs of 48 GB);
* running jobs: Philly-like jobs of at most ``--running-gpus`` (2) GPUs, offered to ``sjf-ffs``
  one at a time at time 0 through the simulator's own decision step (checked and applied as in
  a run) until ``--running`` of them run. 1,000 jobs of the full mix cannot run on 1,024 GPUs:
  they average 4 GPUs, about 4,000 GPU slots, and a GPU holds at most two jobs (at most 452
  of them fit, every GPU then shared). Jobs of 1 or 2 GPUs (the mix conditioned on G ≤ 2,
  1.15 GPUs on average) fill all 1,024 GPUs alone first, then ``sjf-ffs`` shares the rest, so
  some GPUs are shared and most running jobs are host candidates: the costly case for
  ``sjf-bsbf``, which weighs every pending job against every host. Wider draws are skipped, and
  a job ``sjf-ffs`` cannot place is left out;
* pending jobs: ``--pending`` further Philly-like jobs of the full mix, all waiting at time 0.

Then each policy decides on that same state ``--repeats`` times, each time as a fresh policy
object (no cache from an earlier call), and the median and 90th percentile of the wall time of
``decide`` are printed. The decision is not applied, so every repeat sees the same state.

Usage::

    python benchmarks/decision.py                    # sjf-bsbf and the five baselines
    python benchmarks/decision.py --policies sjf-bsbf --repeats 50 --csv out.csv
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from philly_like import CLUSTER, draw_jobs
from scale import commit

from sjfbsbf.core.model import Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import DEFAULT_RESTART_OVERHEAD, _Run
from sjfbsbf.sim.state import FUTURE, PENDING, RUNNING, SimState
from sjfbsbf.sim.view import ClusterView

FIELDS = ("commit", "policy", "pending", "running", "shared_gpus", "repeats", "median_ms", "p90_ms")


def busy_state(
    n_pending: int,
    n_running: int,
    rng: np.random.Generator,
    *,
    running_gpus: int = 2,
    max_offers: int = 100_000,
) -> tuple[ClusterView, SimState]:
    """The view of a cluster with ``n_running`` jobs placed by sjf-ffs and ``n_pending`` waiting.

    Parameters
    ----------
    n_pending, n_running
        Jobs waiting and running at time 0.
    rng
        The source of every random draw.
    running_gpus
        Running jobs are drawn among Philly-like jobs of at most this many GPUs.
    max_offers
        Give up (``RuntimeError``) if this many jobs were drawn and fewer than ``n_running``
        run.

    Returns
    -------
    tuple
        The simulator's read-only view of that state at time 0, and the state.
    """
    gpus, durations = draw_jobs(max_offers + n_pending, rng)
    jobs = tuple(
        Job(id=j, arrival=0.0, gpus=int(gpus[j]), duration=float(durations[j]))
        for j in range(len(gpus))
    )
    run = _Run(
        Instance(cluster=CLUSTER, jobs=jobs, name="decision-benchmark"),
        make_policy("sjf-ffs"),
        (1.0, 60.0, DEFAULT_RESTART_OVERHEAD),
        time_slicing(),
        None,
    )
    state = run.state
    placed = 0
    for i in range(max_offers):
        if placed == n_running:
            break
        if gpus[i] > running_gpus:
            continue
        state.status[i] = PENDING
        state.pending.add(i)
        state.epoch += 1
        run._decide(0, 0.0)
        if state.status[i] == RUNNING:
            placed += 1
        else:  # it does not fit: leave it out of the state
            state.pending.discard(i)
            state.status[i] = FUTURE
    if placed < n_running:
        raise RuntimeError(f"only {placed} of {n_running} jobs fit after {max_offers} draws")
    for i in range(max_offers, max_offers + n_pending):
        state.status[i] = PENDING
        state.pending.add(i)
    state.epoch += 1
    return run.view, state


def time_decisions(view: ClusterView, policy: str, repeats: int) -> list[float]:
    """Wall seconds of ``repeats`` decisions of fresh ``policy`` objects on ``view``."""
    times = []
    for _ in range(repeats):
        fresh = make_policy(policy)
        started = time.perf_counter()
        fresh.decide(view)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--running", type=int, default=1000)
    parser.add_argument("--running-gpus", type=int, default=2, help="widest running job")
    parser.add_argument("--policies", default="sjf-bsbf,sjf-ffs,sjf,fifo")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", default="benchmarks/results/decision.csv", help="rows appended")
    args = parser.parse_args()
    view, state = busy_state(
        args.pending,
        args.running,
        np.random.default_rng(args.seed),
        running_gpus=args.running_gpus,
    )
    shared = state.shared_gpus
    print(
        f"{len(state.running)} running on {state.busy_gpus} busy GPUs ({shared} shared), "
        f"{len(state.pending)} pending, {view.free_count} idle GPUs"
    )
    out = Path(args.csv)
    out.parent.mkdir(parents=True, exist_ok=True)
    new = not out.exists()
    rev = commit()
    print(f"{'policy':9} {'median ms':>10} {'p90 ms':>8} {'starts':>7}")
    with out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        for policy in args.policies.split(","):
            times = time_decisions(view, policy, args.repeats)
            median = statistics.median(times) * 1e3
            p90 = float(np.percentile(times, 90)) * 1e3
            starts = len(make_policy(policy).decide(view).starts)
            print(f"{policy:9} {median:10.2f} {p90:8.2f} {starts:7d}", flush=True)
            writer.writerow(
                {
                    "commit": rev,
                    "policy": policy,
                    "pending": args.pending,
                    "running": args.running,
                    "shared_gpus": shared,
                    "repeats": args.repeats,
                    "median_ms": f"{median:.3f}",
                    "p90_ms": f"{p90:.3f}",
                }
            )


if __name__ == "__main__":
    main()
