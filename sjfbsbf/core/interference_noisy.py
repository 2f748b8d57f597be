"""A contention model with per-model errors: the ``noisy`` interference belief (docs/model.md §4.1).

A profiler that mis-measures each model's sensitivity and pressure believes a
:class:`~sjfbsbf.core.interference.ContentionModel` whose per-model scales are the true ones
times independent log-normal factors. The result is still a ``ContentionModel``, so everything
that reads one (SJF-BSBF's vectorised and compiled estimates) works on it unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from sjfbsbf.core.catalog import ContentionScale
from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.profile import ModelProfile

#: Seed-sequence tag of the interference-noise stream (duration estimates use 0).
INTERFERENCE_STREAM = 1


def base_scales(
    model: ContentionModel, profiles: Iterable[ModelProfile]
) -> dict[str, ContentionScale]:
    """Per-model scales equivalent to ``model`` for the given profiles.

    A model with scales keeps them; the default models (sensitivity = pressure = util(b) =
    u_max · b/(b + B/4)) get ``ContentionScale(u_max, u_max)`` per profile.
    """
    if model.scales is not None:
        return dict(model.scales)
    return {p.name: ContentionScale(p.u_max, p.u_max) for p in profiles}


def noise_factors(name: str, sigma: float, seed: int) -> tuple[float, float]:
    """exp(σ·Z) for a model's sensitivity and for its pressure, from the stream keyed by
    (``seed``, model name) alone."""
    rng = np.random.default_rng([seed, INTERFERENCE_STREAM, *name.encode()])
    z_sens, z_press = rng.standard_normal(2)
    return float(np.exp(sigma * z_sens)), float(np.exp(sigma * z_press))


def noisy_contention(
    model: ContentionModel, profiles: Iterable[ModelProfile], sigma: float, seed: int
) -> ContentionModel:
    """``model`` with each model's sensitivity and pressure scale multiplied by exp(σ·Z).

    Parameters
    ----------
    model
        The contention model believed to be right before the errors (κ and ε are kept).
    profiles
        The profiles whose models may occur (catalog models and the generic profile).
    sigma
        Log-scale error (0: the scales of ``model``, written out per model).
    seed
        Stream key: a model's two factors depend on it and the model's name only.
    """
    scales = {}
    for name, scale in sorted(base_scales(model, profiles).items()):
        sens, press = noise_factors(name, sigma, seed)
        scales[name] = ContentionScale(scale.sensitivity_max * sens, scale.pressure_max * press)
    return ContentionModel(kappa=model.kappa, eps=model.eps, scales=scales)
