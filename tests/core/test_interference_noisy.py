"""The ``noisy`` interference belief's errors, factor by factor (docs/model.md §4.1)."""

from __future__ import annotations

import math

import numpy as np

from sjfbsbf.core.catalog import ContentionScale, generic_profile, get_catalog
from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.interference_noisy import (
    INTERFERENCE_STREAM,
    base_scales,
    noise_factors,
    noisy_contention,
)


def test_each_factor_is_exp_sigma_times_its_own_normal_draw() -> None:
    """Sensitivity takes the stream's first normal draw, pressure its second, both times σ."""
    for name in ("vgg16", "gpt2", "generic"):
        z = np.random.default_rng([7, INTERFERENCE_STREAM, *name.encode()]).standard_normal(2)
        sens, press = noise_factors(name, 0.8, seed=7)
        assert sens == math.exp(0.8 * z[0])
        assert press == math.exp(0.8 * z[1])


def test_every_scale_is_the_base_scale_times_its_factor_and_kappa_and_eps_are_kept() -> None:
    catalog = get_catalog("default")
    profiles = [*catalog.values(), generic_profile(catalog)]
    base = ContentionModel(kappa=0.4, eps=0.2)  # neither the default κ nor ε
    model = noisy_contention(base, profiles, 0.7, seed=3)
    assert (model.kappa, model.eps) == (0.4, 0.2)
    scales = dict(model.scales or {})
    assert set(scales) == {p.name for p in profiles}
    for name, scale in base_scales(base, profiles).items():
        sens, press = noise_factors(name, 0.7, seed=3)
        assert scales[name] == ContentionScale(
            scale.sensitivity_max * sens, scale.pressure_max * press
        )
        assert sens != 1.0 and press != 1.0  # the check above could tell × from ÷
