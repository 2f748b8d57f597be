"""Figure: average JCT of every policy normalised to Tiresias, per workload group.

Usage: ``python paper_figs/fig_normalized_jct.py results/testbed --out out/fig_testbed.png``
(a thin wrapper of :func:`sjfbsbf.experiments.figures_paper.plot_normalized_jct`).
"""

from __future__ import annotations

import argparse

from common import read_results

from sjfbsbf.experiments.figures_paper import plot_normalized_jct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory")
    parser.add_argument("--baseline", default="tiresias")
    parser.add_argument("--out", default="out/fig_normalized_jct.png")
    args = parser.parse_args()
    plot_normalized_jct(read_results(args.results), args.out, baseline=args.baseline)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
