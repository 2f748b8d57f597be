"""Tables of docs/results.md §9: sjf-bsbf against the sharing schedulers gandiva and lucid, and
what each scheduler's sharing adds over its own queue order, per interference model and load band.

Usage: ``python paper_figs/sharing_schedulers.py results/regimes [--metric avg_stretch]``.
Reads the results of ``experiments/regimes.toml``; every count is over the distinct cells of the
whole grid (a cell whose runs equal an earlier cell's is counted once, as in §6), one comparison
each; a verdict is *better* / *worse* when the 95% paired bootstrap interval excludes 1.
"""

from __future__ import annotations

import argparse

import pandas as pd
from common import read_results

from sjfbsbf.experiments.regime_fairness import gain_cells
from sjfbsbf.experiments.regimes import sweep_cells, verdict_counts
from sjfbsbf.experiments.tables import markdown

#: The ratios of the first table (the map's ratios against the sharing schedulers and SJF-FFS).
AGAINST = ("sjf-bsbf / sjf-ffs", "sjf-bsbf / gandiva", "sjf-bsbf / lucid")
#: Load bands, as in §6.
BANDS = {"×0.5–×1": (0.0, 1.0), "×1.5–×2": (1.5, 2.0)}


def band_table(cells: pd.DataFrame, ratios: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Per ratio and interference model: for each load band the range of the distinct cells'
    ratios and their better / tie / worse counts."""
    if "duplicate_of" in cells:
        cells = cells[cells["duplicate_of"] == ""]
    if ratios is not None:
        cells = cells[cells["ratio"].isin(ratios)]
    rows = []
    order = ["time-slicing", "mps", "gavel-fitted", "gavel-measured"]
    for ratio in dict.fromkeys(cells["ratio"]):
        for level in order:
            part = cells[(cells["ratio"] == ratio) & (cells["sim_interference"] == level)]
            if part.empty:
                continue
            row = {"ratio": ratio, "interference": level}
            for band, (low, high) in BANDS.items():
                chosen = part[part["wl_rate_factor"].between(low, high)]
                tally = chosen["verdict"].value_counts()
                row[f"{band}: range"] = (
                    f"{chosen['value'].min():.2f}–{chosen['value'].max():.2f}"
                    if len(chosen)
                    else ""
                )
                row[f"{band}: better / tie / worse"] = " / ".join(
                    str(int(tally.get(v, 0))) for v in ("better", "tie", "worse")
                )
            rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory of experiments/regimes.toml")
    parser.add_argument("--metric", default="avg_jct", help="avg_jct (default) or avg_stretch")
    args = parser.parse_args()
    table = read_results(args.results)
    against = sweep_cells(table, args.metric)
    gains = gain_cells(table, args.metric)
    print(f"### sjf-bsbf against the sharing schedulers ({args.metric})\n")
    print(markdown(band_table(against, AGAINST), index=False) + "\n")
    print(markdown(verdict_counts(against[against["ratio"].isin(AGAINST)]), index=False) + "\n")
    print(f"### What sharing adds over the scheduler's own queue order ({args.metric})\n")
    print(markdown(band_table(gains), index=False) + "\n")
    print(markdown(verdict_counts(gains), index=False))


if __name__ == "__main__":
    main()
