"""Interference presets by name: ``time-slicing`` (the default), ``mps``, ``gavel-fitted`` and
``gavel-measured`` (docs/model.md §3, §8), and :func:`make_interference`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from types import MappingProxyType

from sjfbsbf.core.catalog import GAVEL_CONTENTION_SCALES
from sjfbsbf.core.interference import ContentionModel, Interference
from sjfbsbf.core.interference_measured import gavel_measured


def time_slicing() -> ContentionModel:
    """Contention preset for time-sliced sharing (κ = 1.5, ε = 0.05; the default)."""
    return ContentionModel(kappa=1.5, eps=0.05)


def mps() -> ContentionModel:
    """Contention preset for an MPS-like mode (κ = 0.4, ε = 0.02)."""
    return ContentionModel(kappa=0.4, eps=0.02)


def gavel_fitted() -> ContentionModel:
    """Time slicing (κ = 1.5, ε = 0.05) with per-model scales fitted on Gavel's V100 pairs.

    Sensitivity and pressure differ per model, so ξ_a ≠ ξ_b in general (docs/model.md §3;
    scales: :data:`sjfbsbf.core.catalog.GAVEL_CONTENTION_SCALES`).
    """
    return ContentionModel(kappa=1.5, eps=0.05, scales=GAVEL_CONTENTION_SCALES)


#: Interference presets by name (``time-slicing`` is the simulator's default).
INTERFERENCE_PRESETS: Mapping[str, Callable[[], Interference]] = MappingProxyType(
    {
        "time-slicing": time_slicing,
        "mps": mps,
        "gavel-fitted": gavel_fitted,
        "gavel-measured": gavel_measured,
    }
)

#: Presets that read Gavel's throughput table (``throughputs=`` applies to them only).
DATA_PRESETS = frozenset({"gavel-measured"})


def make_interference(
    name: str, *, throughputs: str | os.PathLike[str] | None = None
) -> Interference:
    """Interference model by preset name (see :data:`INTERFERENCE_PRESETS`).

    Parameters
    ----------
    name
        Preset name.
    throughputs
        Path of Gavel's ``simulation_throughputs.json``, required by a preset in
        :data:`DATA_PRESETS` (a path: this layer does not resolve dataset references; see
        :func:`~sjfbsbf.core.interference_measured.gavel_measured`).

    Raises
    ------
    ValueError
        For an unknown name (listing the known ones), or ``throughputs`` with a preset that
        reads no data.
    InstanceError
        If a data preset's file is not given, missing or malformed.
    """
    try:
        factory = INTERFERENCE_PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown interference model {name!r}; choose from {', '.join(INTERFERENCE_PRESETS)}"
        ) from None
    if name in DATA_PRESETS:
        return gavel_measured(throughputs)
    if throughputs is not None:
        raise ValueError(
            f"interference model {name!r} reads no data file; a throughputs file only applies "
            f"to {', '.join(sorted(DATA_PRESETS))}"
        )
    return factory()
