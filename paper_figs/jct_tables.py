"""Markdown tables of a sweep: mean average JCT per policy and group, and the paper's ratios.

Usage: ``python paper_figs/jct_tables.py results/testbed [--metric avg_jct]``
"""

from __future__ import annotations

import argparse

from common import markdown, mean_jct, ratio_table, read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory")
    parser.add_argument("--metric", default="avg_jct")
    args = parser.parse_args()
    table = read_results(args.results)
    seeds = sorted(int(s) for s in table["seed"].unique())
    print(f"{args.metric} (s), mean over seeds {seeds}:\n")
    print(markdown(mean_jct(table, args.metric)))
    print("\nratios (of the seed means; min / max over seeds):\n")
    print(markdown(ratio_table(table, args.metric), index=False))


if __name__ == "__main__":
    main()
