"""Print the fit of the ``gavel-fitted`` contention scales (docs/model.md §3).

Usage::

    python experiments/calibrate_interference.py [simulation_throughputs.json]

Default data file: ``../shared/data/gavel/simulation_throughputs.json`` beside the repository.
Prints the fit of record (V100, κ = 1.5 and ε = 0.05 fixed, each Gavel job type at its own full
batch) beside the default time-slicing model on the same pairs, the embedded constants'
agreement with the fit, and the two alternatives the choices were made against (ε fitted; the
family's smaller batch sizes taken as micro-batches of its largest).
"""

from __future__ import annotations

import sys
from pathlib import Path

from sjfbsbf.calibration import (
    fit_contention_scales,
    fit_metrics,
    format_fit,
    gavel_observations,
)
from sjfbsbf.catalog import GAVEL_FITTED_SCALES
from sjfbsbf.interference import gavel_fitted, time_slicing
from sjfbsbf.workloads.gavel import MODEL_MAP, load_throughputs

DEFAULT = Path(__file__).resolve().parents[2] / "shared/data/gavel/simulation_throughputs.json"


def main(argv: list[str]) -> None:
    """Fit and print."""
    table = load_throughputs(argv[0] if argv else DEFAULT)
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


if __name__ == "__main__":
    main(sys.argv[1:])
