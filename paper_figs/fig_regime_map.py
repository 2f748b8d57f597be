"""Figure: the regime map, load × one factor (interference or GPU memory), a heat map per model
mix and ratio, and the tables of docs/results.md §6.

Usage: ``python paper_figs/fig_regime_map.py results/regimes --factor interference
--out out/regimes-map-interference.png [--ratio sjf-bsbf/tiresias]`` (a thin wrapper of
:func:`sjfbsbf.experiments.regimes.plot_regime_map`; ``--tables`` prints the Markdown tables of
:func:`sjfbsbf.experiments.regimes.regime_markdown` instead).
"""

from __future__ import annotations

import argparse
import sys

from common import read_results

from sjfbsbf.experiments.regimes import plot_regime_map, regime_markdown, sweep_cells

FACTORS = {"interference": "sim_interference", "memory": "wl_gpu_mem_gb"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="sweep output directory of experiments/regimes.toml")
    parser.add_argument("--factor", choices=sorted(FACTORS), default="interference")
    parser.add_argument("--out", default="out/regimes-map.png")
    parser.add_argument(
        "--ratio",
        action="append",
        default=[],
        metavar="NUM/DEN",
        help="draw only this ratio, e.g. sjf-bsbf/tiresias (repeatable; default: all)",
    )
    parser.add_argument("--tables", action="store_true", help="print the tables instead")
    args = parser.parse_args()
    cells = sweep_cells(read_results(args.results))
    if args.tables:
        print(regime_markdown(cells), end="")
        return
    ratios = [" / ".join(part.strip() for part in r.split("/", 1)) for r in args.ratio]
    try:
        plot_regime_map(cells, FACTORS[args.factor], args.out, ratios=ratios)
    except ValueError as exc:
        sys.exit(str(exc))
    print(f"wrote {args.out} (and .pdf)")


if __name__ == "__main__":
    main()
