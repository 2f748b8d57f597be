"""Print the fit of the ``gavel-fitted`` contention scales (docs/model.md §3).

Usage::

    python experiments/calibrate_interference.py [simulation_throughputs.json | data:NAME]

Default data file: the dataset ``data:gavel-throughputs`` (``sjfbsbf data fetch
gavel-throughputs``, or ``... --from ../shared/data/gavel`` with the copy beside the repository).
Prints the fit of record (V100, κ = 1.5 and ε = 0.05 fixed, each Gavel job type at its own full
batch) beside the default time-slicing model on the same pairs, the embedded constants'
agreement with the fit, the two alternatives the choices were made against (ε fitted; the
family's smaller batch sizes taken as micro-batches of its largest), and the measured geometric
mean slowdown each job type suffers and causes (the batch-size trend the fit cannot follow).
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from collections.abc import Sequence

from sjfbsbf.core.catalog import GAVEL_FITTED_SCALES
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.presets import gavel_fitted, time_slicing
from sjfbsbf.experiments.calibration import (
    PairObservation,
    fit_contention_scales,
    fit_metrics,
    format_fit,
    gavel_observations,
)
from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS, resolve_data_path
from sjfbsbf.workloads.gavel import MODEL_MAP, load_throughputs


def job_type_means(observations: Sequence[PairObservation]) -> str:
    """Per job type: geometric mean ξ it suffers and causes, with counts."""
    suffered: dict[str, list[float]] = defaultdict(list)
    caused: dict[str, list[float]] = defaultdict(list)
    for o in observations:
        suffered[o.first].append(math.log(o.first_xi))
        caused[o.second].append(math.log(o.first_xi))
        if o.second_xi is not None:
            suffered[o.second].append(math.log(o.second_xi))
            caused[o.first].append(math.log(o.second_xi))
    lines = [f"{'job type':34s} {'suffers':>7s} {'n':>3s} {'causes':>7s} {'n':>3s}"]
    for t in sorted(suffered.keys() | caused.keys()):
        s, c = suffered[t], caused[t]
        gs = f"{math.exp(sum(s) / len(s)):7.2f}" if s else f"{'-':>7s}"
        gc = f"{math.exp(sum(c) / len(c)):7.2f}" if c else f"{'-':>7s}"
        lines.append(f"{t:34s} {gs} {len(s):3d} {gc} {len(c):3d}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    """Fit and print."""
    table = load_throughputs(resolve_data_path(argv[0] if argv else DEFAULT_THROUGHPUTS))
    observations = gavel_observations(table, MODEL_MAP)
    fit = fit_contention_scales(observations)
    print("== fit of record (baseline: the default time-slicing model) ==")
    print(format_fit(fit, fit_metrics(time_slicing(), observations)))
    worst = max(
        max(
            abs(fit.scales[m].sensitivity_max - s.sensitivity_max),
            abs(fit.scales[m].pressure_max - s.pressure_max),
        )
        for m, s in GAVEL_FITTED_SCALES.items()
    )
    embedded = fit_metrics(gavel_fitted(), observations)
    print(
        f"embedded constants (catalog.GAVEL_FITTED_SCALES): largest difference to the fit "
        f"{worst:.1e}; their RMSE of log ξ {embedded['rmse_log']:.4f}"
    )
    print("\n== alternative: ε fitted too ==")
    print(format_fit(fit_contention_scales(observations, eps=None)))
    print("\n== alternative: batch sizes as micro-batches of the family's largest ==")
    micro = gavel_observations(table, MODEL_MAP, sizes="micro")
    print(format_fit(fit_contention_scales(micro)))
    print("\n== measured geometric mean ξ per job type (suffered as victim, caused as other) ==")
    print(job_type_means(observations))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except InstanceError as exc:  # a dataset not fetched, a missing or malformed file
        sys.exit(f"error: {exc}")
