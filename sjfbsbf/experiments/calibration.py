"""Fit per-model contention scales to Gavel's measured single-GPU pairs (docs/model.md §3).

The ``gavel-fitted`` interference preset is a :class:`~sjfbsbf.core.interference.ContentionModel`
with per-model scales, ``ξ_a = (1 + ε)(1 + κ · S_a · shape_a · P_b · shape_b)``, where
``shape = b / (b + B/4)`` (``util(b) / u_max``). This module computes those scales from the
table; the numbers are then embedded in :data:`sjfbsbf.core.catalog.GAVEL_FITTED_SCALES` (the
toolkit works without the data) and a test re-fits them from the data.

Choices (each stated in docs/model.md §3):

* **Data.** V100 single-GPU pairs: the GPU type the toolkit's Gavel durations use (§8) and the
  one with the heavier measured tail. Pairs measured out of memory are left out (they say
  nothing about slowdowns), and so are the suspicious pairs (either direction reports a
  co-located throughput exactly equal to solo), as in
  :func:`~sjfbsbf.core.interference_table.slowdown_statistics`. An unordered pair of two different
  job types gives two observations (ξ_a, ξ_b), a self-pair one.
* **Job type → occupant.** A Gavel family is the catalog model of
  :data:`~sjfbsbf.workloads.gavel.MODEL_MAP`. Every Gavel job type is a job running at its own
  full batch (its batch size is the whole per-GPU batch, not a micro-batch), so it is the catalog
  model's occupant at its catalog batch with s = 1: shape 0.8. The family's batch sizes are
  therefore averaged into one scale per model (taking the smaller sizes as micro-batches of the
  largest fits worse: RMSE in log ξ 0.44 against 0.34).
* **Fit.** Least squares on ``log ξ`` (slowdowns are ratios), κ = 1.5 and ε = 0.05 fixed at the
  time-slicing preset: κ only scales the products S·P and is not identifiable, and fitting ε too
  lowers the RMSE in log ξ by 0.01 only. Scales are fitted as logarithms (so they stay positive).
* **Gauge.** Only the products S_a · P_b enter ξ, so (c·S, P/c) fits as well as (S, P) for any
  c > 0. The fit is normalised so that the geometric mean of the sensitivities equals that of
  the pressures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from scipy.optimize import least_squares

from sjfbsbf.core.catalog import DEFAULT_BATCH, ContentionScale, get_catalog
from sjfbsbf.core.interference import (
    ContentionModel,
    Interference,
    Occupant,
    contention_shape,
    occupant,
)
from sjfbsbf.core.interference_table import GavelThroughputs, split_job_type
from sjfbsbf.core.model import Job

#: κ and ε of the fit: the time-slicing preset's.
FIT_KAPPA = 1.5
FIT_EPS = 0.05


@dataclass(frozen=True, slots=True)
class PairObservation:
    """One measured single-GPU pair of two Gavel job types.

    Attributes
    ----------
    first, second
        Gavel job types (``first <= second``).
    first_occupant, second_occupant
        The catalog occupants they stand for (catalog model at its full batch).
    first_xi, second_xi
        Measured slowdowns of each next to the other (``second_xi`` is ``None`` for a self-pair,
        which gives one observation).
    """

    first: str
    second: str
    first_occupant: Occupant
    second_occupant: Occupant
    first_xi: float
    second_xi: float | None


def catalog_occupant(model: str) -> Occupant:
    """The default-catalog occupant of ``model`` at its catalog batch, full batch (s = 1)."""
    batch = DEFAULT_BATCH[model]
    job = Job(0, 0.0, 1, model=model, batch=batch, iterations=1)
    return occupant(job, get_catalog("default")[model], 1)


def _as_micro_batch(occ: Occupant, job_type: str, table: GavelThroughputs, gpu: str) -> Occupant:
    """``occ`` at the micro-batch the job type's size is of its family's largest size."""
    family, size = split_job_type(job_type)
    sizes = [s for s in table.batch_sizes(family, gpu) if s is not None]
    if size is None or not sizes:
        return occ
    return replace(occ, micro_batch=size, batch=max(sizes))


def gavel_observations(
    table: GavelThroughputs,
    family_map: Mapping[str, str],
    gpu_type: str = "v100",
    *,
    sizes: Literal["job", "micro"] = "job",
) -> tuple[PairObservation, ...]:
    """The fitting, non-suspicious single-GPU pairs of ``gpu_type`` as catalog occupants.

    Parameters
    ----------
    table
        Gavel's throughputs.
    family_map
        Gavel family -> catalog model (:data:`~sjfbsbf.workloads.gavel.MODEL_MAP`).
    gpu_type
        GPU type whose pairs are used.
    sizes
        ``"job"`` (the choice of record): every job type is its catalog model at the full batch.
        ``"micro"`` (the alternative reported): a job type's batch size is a micro-batch of
        its family's largest measured size (b / B in the shape).

    Raises
    ------
    KeyError
        If a measured family has no catalog model in ``family_map``.
    """
    out = []
    for a, b in table.unordered_pairs(gpu_type):
        measured = table.pair(a, b, gpu_type)
        if measured is None or measured == (0.0, 0.0) or table.is_suspicious(a, b, gpu_type):
            continue
        xi_a = table.solo_throughput(a, 1, gpu_type) / measured[0]
        xi_b = table.solo_throughput(b, 1, gpu_type) / measured[1]
        occ = [catalog_occupant(family_map[split_job_type(t)[0]]) for t in (a, b)]
        if sizes == "micro":
            occ = [_as_micro_batch(o, t, table, gpu_type) for o, t in zip(occ, (a, b), strict=True)]
        out.append(PairObservation(a, b, occ[0], occ[1], xi_a, None if a == b else xi_b))
    return tuple(out)


def _slowdown_arrays(
    model: Interference, observations: Sequence[PairObservation]
) -> tuple[np.ndarray, np.ndarray]:
    """Measured and modelled slowdowns, one entry per observed ξ (pair order, first then
    second)."""
    measured, modelled = [], []
    for o in observations:
        measured.append(o.first_xi)
        modelled.append(model.slowdown(o.first_occupant, o.second_occupant))
        if o.second_xi is not None:
            measured.append(o.second_xi)
            modelled.append(model.slowdown(o.second_occupant, o.first_occupant))
    return np.asarray(measured), np.asarray(modelled)


def fit_metrics(model: Interference, observations: Sequence[PairObservation]) -> dict[str, Any]:
    """How well ``model`` reproduces the observed slowdowns.

    Returns
    -------
    dict
        ``slowdowns`` (number of ξ); ``rmse_log`` (RMSE of log ξ); ``median_abs_xi`` and
        ``rmse_xi`` (errors of ξ itself); ``asymmetric_pairs`` (pairs of two different job
        types whose measured ξ differ); ``asymmetry_reproduced`` (share of those where the model
        makes the same job the more slowed one, strictly); the same two over
        ``cross_model_pairs`` (the two job types map to different catalog models):
        ``asymmetry_reproduced_cross_model``; ``gain_agreement`` (share of pairs of two jobs
        where the model agrees with the measurement on whether sharing raises total throughput,
        1/ξ_a + 1/ξ_b > 1).
    """
    measured, modelled = _slowdown_arrays(model, observations)
    log_err = np.log(modelled) - np.log(measured)
    asym = reproduced = cross = cross_reproduced = pairs = gain_agree = 0
    for o in observations:
        if o.second_xi is None:
            continue
        pairs += 1
        fa = model.slowdown(o.first_occupant, o.second_occupant)
        fb = model.slowdown(o.second_occupant, o.first_occupant)
        gain_agree += (1 / o.first_xi + 1 / o.second_xi > 1) == (1 / fa + 1 / fb > 1)
        if o.first_xi == o.second_xi:
            continue
        same = np.sign(fa - fb) == np.sign(o.first_xi - o.second_xi)
        asym += 1
        reproduced += bool(same)
        if o.first_occupant.model != o.second_occupant.model:
            cross += 1
            cross_reproduced += bool(same)
    return {
        "slowdowns": int(measured.size),
        "rmse_log": float(np.sqrt(np.mean(log_err**2))),
        "median_abs_xi": float(np.median(np.abs(modelled - measured))),
        "rmse_xi": float(np.sqrt(np.mean((modelled - measured) ** 2))),
        "asymmetric_pairs": asym,
        "asymmetry_reproduced": reproduced / asym if asym else math.nan,
        "cross_model_pairs": cross,
        "asymmetry_reproduced_cross_model": cross_reproduced / cross if cross else math.nan,
        "gain_agreement": gain_agree / pairs if pairs else math.nan,
    }


@dataclass(frozen=True, slots=True)
class ContentionFit:
    """The fitted scales (normalised gauge), the fixed or fitted κ and ε, and the fit's metrics."""

    scales: Mapping[str, ContentionScale]
    kappa: float
    eps: float
    metrics: Mapping[str, Any]

    def model(self) -> ContentionModel:
        """The contention model with the fitted scales (fitted models only)."""
        return ContentionModel(kappa=self.kappa, eps=self.eps, scales=self.scales)


def fit_contention_scales(
    observations: Sequence[PairObservation],
    *,
    kappa: float = FIT_KAPPA,
    eps: float | None = FIT_EPS,
) -> ContentionFit:
    """Least-squares fit of per-model (sensitivity_max, pressure_max) in log ξ.

    Parameters
    ----------
    observations
        From :func:`gavel_observations`.
    kappa
        Fixed κ (not identifiable beside the scales).
    eps
        Fixed ε, or ``None`` to fit it too (bounded below by 0).

    Returns
    -------
    ContentionFit
        Scales normalised so that the geometric means of sensitivities and pressures agree.
    """
    models = sorted({o.first_occupant.model for o in observations})
    index = {m: k for k, m in enumerate(models)}
    n = len(models)
    victim, other, shape_v, shape_o, measured = [], [], [], [], []
    for o in observations:
        directions = [(o.first_occupant, o.second_occupant, o.first_xi)]
        if o.second_xi is not None:
            directions.append((o.second_occupant, o.first_occupant, o.second_xi))
        for v, w, xi in directions:
            victim.append(index[v.model])
            other.append(index[w.model])
            shape_v.append(contention_shape(v))
            shape_o.append(contention_shape(w))
            measured.append(xi)
    iv, io = np.asarray(victim), np.asarray(other)
    sv, so = np.asarray(shape_v), np.asarray(shape_o)
    target = np.log(np.asarray(measured))

    def residuals(x: np.ndarray) -> np.ndarray:
        sens, press = np.exp(x[:n]), np.exp(x[n : 2 * n])
        e = x[2 * n] if eps is None else eps
        xi = (1.0 + e) * (1.0 + kappa * sens[iv] * sv * press[io] * so)
        return np.log(xi) - target

    x0 = np.zeros(2 * n + (1 if eps is None else 0))
    lower = np.full(x0.size, -np.inf)
    if eps is None:
        x0[-1], lower[-1] = FIT_EPS, 0.0
    result = least_squares(residuals, x0, bounds=(lower, np.inf), xtol=1e-14, ftol=1e-14)
    log_s, log_p = result.x[:n], result.x[n : 2 * n]
    shift = (log_p.mean() - log_s.mean()) / 2.0  # same products, balanced gauge
    scales = {
        m: ContentionScale(float(np.exp(log_s[k] + shift)), float(np.exp(log_p[k] - shift)))
        for m, k in index.items()
    }
    fitted_eps = float(result.x[2 * n]) if eps is None else eps
    model = ContentionModel(kappa=kappa, eps=fitted_eps, scales=scales)
    return ContentionFit(scales, kappa, fitted_eps, fit_metrics(model, observations))


def format_fit(fit: ContentionFit, baseline: Mapping[str, Any] | None = None) -> str:
    """The fit as text: per-model scales, κ, ε and the metrics (beside ``baseline``'s)."""
    lines = [
        f"kappa = {fit.kappa:g}, eps = {fit.eps:.4f}",
        "model          sensitivity_max  pressure_max",
    ]
    for m, scale in sorted(fit.scales.items()):
        lines.append(f"{m:14s} {scale.sensitivity_max:15.3f} {scale.pressure_max:13.3f}")
    keys = [
        k for k in fit.metrics if k not in ("slowdowns", "asymmetric_pairs", "cross_model_pairs")
    ]
    header = f"{'metric':34s} {'fit':>8s}" + (f" {'baseline':>9s}" if baseline else "")
    lines += [
        f"{fit.metrics['slowdowns']} measured slowdowns; {fit.metrics['asymmetric_pairs']} "
        f"asymmetric pairs, {fit.metrics['cross_model_pairs']} of them across catalog models",
        header,
    ]
    for k in keys:
        row = f"{k:34s} {fit.metrics[k]:8.3f}"
        if baseline:
            row += f" {baseline[k]:9.3f}"
        lines.append(row)
    return "\n".join(lines)
