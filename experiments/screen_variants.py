"""Summarise experiments/variants.toml: each SJF-BSBF variant against sjf-bsbf, per cell.

Usage: ``python experiments/screen_variants.py results/variants``. For the map's seeds 0-9 and
the fresh seeds 10-19 apart, prints per variant how many of the distinct cells it is better /
tied / worse by the 95% paired bootstrap interval (:func:`sjfbsbf.experiments.regimes.regime_cells`;
a cell whose runs equal an earlier cell's, the light mix at 24 GB, is counted once),
its largest and smallest ratio and the geometric mean of the ratios, then the cells where it is
worse. These are the numbers of docs/model.md §6.1.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.experiments.regimes import regime_cells, verdict_counts
from sjfbsbf.experiments.tables import markdown, read_results

FACTORS = ["wl_mix", "sim_interference", "wl_gpu_mem_gb", "wl_rate_factor"]
BASE = "sjf-bsbf"
SEED_SETS = {"seeds 0-9 (the map's)": range(0, 10), "seeds 10-19 (fresh)": range(10, 20)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory of experiments/variants.toml")
    args = parser.parse_args()
    try:
        table = read_results(args.results)
    except InstanceError as exc:
        sys.exit(str(exc))
    variants = sorted(set(table["label"]) - {BASE})
    for title, seeds in SEED_SETS.items():
        part = table[table["seed"].isin(list(seeds))]
        cells = pd.concat([regime_cells(part, v, BASE, FACTORS) for v in variants])
        counts = verdict_counts(cells)
        distinct = cells[cells["duplicate_of"] == ""]  # each distinct cell once
        geo = distinct.groupby("ratio", sort=False)["value"].apply(
            lambda r: np.exp(np.log(r).mean())
        )
        counts["geo_mean"] = counts["ratio"].map(geo)
        print(f"## {title}\n\n{markdown(counts, index=False)}\n")
        worse = distinct[distinct["verdict"] == "worse"]
        if len(worse):
            shown = worse[["ratio", *FACTORS, "value", "low", "high"]]
            print(f"worse cells:\n\n{markdown(shown, index=False)}\n")


if __name__ == "__main__":
    main()
