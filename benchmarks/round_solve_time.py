"""Round-model solve time: CP-SAT and the MILP (HiGHS, CBC) as the round grows.

Random round problems (:func:`formulations.round.generate.random_round`: hosts of 1-8 GPUs,
jobs needing 1-8 GPUs more than are idle, up to 4 accumulation options, about 30% of the
memory-feasible pairs with a non-positive benefit) of ``jobs × hosts``, several seeds each.
Reports the median solve time (model building excluded), how many solves proved optimality,
and the median relative gain of the optimum over the greedy. Rounds in simulated runs are far
smaller (2×8 GPUs: ≤ 10 pending jobs × ≤ 16 hosts); these sizes show where exact solving stops
being cheap. Not a test.

Usage: ``python benchmarks/round_solve_time.py [--sizes 2x4,4x8,8x16,16x32] [--seeds 3]
[--time-limit 30] [--backends cpsat,highs,cbc]``
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from formulations.round import greedy_round, preprocess, solve
from formulations.round.generate import random_round

BACKENDS = {
    "cpsat": {"solver": "cpsat"},
    "highs": {"solver": "milp", "milp_backend": "highs"},
    "cbc": {"solver": "milp", "milp_backend": "cbc"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="2x4,4x8,8x16,12x24,16x32", help="JOBSxHOSTS,...")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--backends", default="cpsat,highs,cbc")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    backends = args.backends.split(",")
    print(
        f"{'jobs x hosts':>12} {'pairs':>6} {'cands':>6} {'backend':>7} "
        f"{'median s':>9} {'max s':>7} {'optimal':>8} {'exact/greedy-1':>15}"
    )
    for jobs, hosts in sizes:
        problems = [
            random_round(
                np.random.default_rng(seed),
                jobs=jobs,
                hosts=hosts,
                max_host_gpus=8,
                max_extra_gpus=8,
                options=4,
                grid=None,
            )
            for seed in range(args.seeds)
        ]
        data = [preprocess(p) for p in problems]
        pairs = statistics.median(len(d.pairs) for d in data)
        cands = statistics.median(len(d.candidates) for d in data)
        greedy = [greedy_round(p).score(p) for p in problems]
        for name in backends:
            times, optimal, gains = [], 0, []
            for problem, base in zip(problems, greedy, strict=True):
                result = solve(
                    problem,
                    time_limit=args.time_limit,
                    **BACKENDS[name],  # type: ignore[arg-type]
                )
                times.append(result.runtime_s)
                optimal += result.status.value == "optimal"
                if result.objective is not None and base > 0:
                    gains.append(result.objective / base - 1.0)
            gain = f"{statistics.median(gains):.1%}" if gains else "-"
            print(
                f"{jobs:>5} x {hosts:<4} {pairs:>6.0f} {cands:>6.0f} {name:>7} "
                f"{statistics.median(times):>9.3f} {max(times):>7.2f} "
                f"{optimal:>4}/{len(problems):<3} {gain:>15}"
            )


if __name__ == "__main__":
    main()
