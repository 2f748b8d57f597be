"""Markdown tables of a sweep: mean average JCT per policy and group, and the paper's ratios.

Usage: ``python paper_figs/jct_tables.py results/testbed [--metric avg_jct]``
(a thin wrapper of :func:`sjfbsbf.experiments.tables.tables_markdown`).
"""

from __future__ import annotations

import argparse

from common import read_results

from sjfbsbf.experiments.tables import tables_markdown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory")
    parser.add_argument("--metric", default="avg_jct")
    args = parser.parse_args()
    print(tables_markdown(read_results(args.results), args.metric))


if __name__ == "__main__":
    main()
