"""Figure: average JCT against the arrival-rate factor, one line per policy.

Usage: ``python paper_figs/fig_load_sweep.py results/load --out out/fig_load_sweep.png``
(a thin wrapper of :func:`sjfbsbf.experiments.figures_paper.plot_load_sweep`).
"""

from __future__ import annotations

import argparse

from common import read_results

from sjfbsbf.experiments.figures_paper import plot_load_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory of experiments/load.toml")
    parser.add_argument("--out", default="out/fig_load_sweep.png")
    args = parser.parse_args()
    plot_load_sweep(read_results(args.results), args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
