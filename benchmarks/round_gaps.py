"""The greedy's per-round gap over whole traces (docs/formulations.md §1.6).

Runs ``exact-round`` (CP-SAT, default options) on the default workload for each seed, takes its
round log (as ``sjfbsbf simulate --policy exact-round --rounds-csv`` writes it) and prints per
seed: the rounds, those where a job can share (exact score > 0), those where the greedy loses
(gap = exact − greedy above the round's tolerance), the mean and largest gap (s of estimated
benefit) and the largest relative gap (gap ÷ exact score). ``--out DIR`` also writes every
round as ``rounds-seed<N>.csv`` and a headless figure ``round_gaps.png``: the distribution of
the relative gap over the rounds where someone can share; with ``--worst N`` each seed's N
rounds where the greedy loses most as round files (``sjfbsbf.round/1``,
:mod:`formulations.round.io`), as in ``instances/rounds/``.

Usage::

    python benchmarks/round_gaps.py --seeds 0 1 2 --out /tmp/round-gaps
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd


def run(seed: int) -> tuple[pd.DataFrame, list[Any]]:
    """exact-round's round log on the default workload of ``seed``, and its round problems."""
    from sjfbsbf.policies import make_policy
    from sjfbsbf.sim.simulator import simulate
    from sjfbsbf.workloads import default_workload

    policy = make_policy("exact-round")
    result = simulate(default_workload(seed), policy)
    problems = list(policy.round_solver.round_problems)  # type: ignore[attr-defined]
    return pd.DataFrame(result.stats["round_log"]), problems


def round_log(seed: int) -> pd.DataFrame:
    """exact-round's round log on the default workload of ``seed``."""
    return run(seed)[0]


def write_worst(
    seed: int, rounds: pd.DataFrame, problems: list[Any], count: int, directory: Path
) -> list[Path]:
    """Write the ``count`` rounds where the greedy loses most (gap > tolerance; ties: earlier
    round first) as ``sjfbsbf.round/1`` files; their paths."""
    from formulations.round.io import write_round

    loses = rounds[rounds["gap"] > rounds["tolerance"]]
    order = loses.sort_values(["gap", "time"], ascending=[False, True], kind="stable")
    paths = []
    for index, row in order.head(count).iterrows():
        path = directory / f"default-seed{seed}-t{int(row['time'])}.json"
        meta = {
            "source": f"exact-round on the default workload, seed {seed}",
            "time": float(row["time"]),
            "greedy": float(row["greedy"]),
            "exact": float(row["exact"]),
        }
        write_round(problems[int(index)], path, meta)  # type: ignore[call-overload]
        paths.append(path)
    return paths


def summary(rounds: pd.DataFrame) -> dict[str, float]:
    """Counts and gaps of one round log (see the module docstring)."""
    sharing = rounds[rounds["exact"] > 0]
    loses = rounds[rounds["gap"] > rounds["tolerance"]]
    return {
        "rounds": len(rounds),
        "sharing": len(sharing),
        "greedy_loses": len(loses),
        "gap_mean_s": float(rounds["gap"].mean()) if len(rounds) else 0.0,
        "gap_max_s": float(rounds["gap"].max()) if len(rounds) else 0.0,
        "rel_gap_max": float((loses["gap"] / loses["exact"]).max()) if len(loses) else 0.0,
    }


def figure(logs: dict[int, pd.DataFrame], path: Path) -> None:
    """Relative gap per round where someone can share, sorted, one line per seed (Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for seed, rounds in logs.items():
        sharing = rounds[rounds["exact"] > 0]
        relative = (sharing["gap"] / sharing["exact"]).sort_values(ascending=False).to_numpy()
        ax.plot(range(1, len(relative) + 1), 100 * relative, marker=".", label=f"seed {seed}")
    ax.set_xlabel("rounds where a job can share, by decreasing gap")
    ax.set_ylabel("greedy's gap (% of the exact round's score)")
    ax.set_title("SJF-BSBF's greedy round vs the exact round, default workload")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", type=Path, help="write the rounds' CSVs and round_gaps.png")
    parser.add_argument(
        "--worst",
        type=int,
        default=0,
        metavar="N",
        help="with --out: write each seed's N "
        "rounds where the greedy loses most as round files (sjfbsbf.round/1)",
    )
    args = parser.parse_args(argv)
    runs = {seed: run(seed) for seed in args.seeds}
    logs = {seed: rounds for seed, (rounds, _) in runs.items()}
    table = pd.DataFrame({seed: summary(rounds) for seed, rounds in logs.items()}).T
    table.index.name = "seed"
    print(table.to_string(float_format=lambda x: f"{x:.3g}"))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        for seed, rounds in logs.items():
            rounds.to_csv(args.out / f"rounds-seed{seed}.csv", index=False)
        figure(logs, args.out / "round_gaps.png")
        for seed, (rounds, problems) in runs.items():
            for path in write_worst(seed, rounds, problems, args.worst, args.out):
                print(f"wrote {path}")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
