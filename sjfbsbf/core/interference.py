"""Interference between two jobs sharing a GPU (docs/model.md §3).

An :class:`Occupant` describes what one job puts on a GPU (model, micro-batch, memory and its
default contention parameters); an :class:`Interference` model turns a pair of occupants into the
slowdown of the first (shared step time ÷ solo step time, >= 1). Everything that needs a slowdown
(the simulator, the policies' estimates, the offline formulations) asks the interference object:
:meth:`Interference.slowdown`, or for a :class:`ContentionModel` the vectorised
:meth:`ContentionModel.slowdowns` fed by :meth:`ContentionModel.sensitivity` and
:meth:`ContentionModel.pressure` (never the occupant's fields directly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from sjfbsbf.core.catalog import ContentionScale
from sjfbsbf.core.model import Job
from sjfbsbf.core.perf import memory_gb
from sjfbsbf.core.profile import ModelProfile

#: ``util(b) / u_max`` at the full batch, b = B: B / (B + B/4). Duration-only jobs use it.
FULL_BATCH_SHAPE = 0.8


@dataclass(frozen=True, slots=True)
class Occupant:
    """What a job places on each of its GPUs.

    Parameters
    ----------
    model
        Model name (``"generic"`` for duration-only jobs).
    micro_batch
        Micro-batch size b, or ``None`` for duration-only jobs.
    batch
        Per-GPU batch size B, or ``None`` for duration-only jobs.
    memory_gb
        Memory used on each GPU.
    sensitivity
        How much the job suffers from a co-runner under the default contention model
        (``util(b)``); read it through :meth:`ContentionModel.sensitivity`.
    pressure
        How much the job presses on a co-runner under the default contention model
        (``util(b)``); read it through :meth:`ContentionModel.pressure`.
    """

    model: str
    micro_batch: int | None
    batch: int | None
    memory_gb: float
    sensitivity: float
    pressure: float


def occupant(job: Job, profile: ModelProfile, accumulation: int) -> Occupant:
    """The occupant a job forms at accumulation factor ``accumulation``.

    Sensitivity and pressure both equal ``util(b)`` (the default, symmetric special case of
    docs/model.md §3); a duration-only job uses the generic profile at its full batch:
    ``0.8 * u_max``. A :class:`ContentionModel` with per-model scales derives its own values
    from ``model``, ``micro_batch`` and ``batch`` instead.
    """
    if job.batch is None or profile.generic:
        u = FULL_BATCH_SHAPE * profile.u_max
        return Occupant(profile.name, None, None, memory_gb(job, profile, 1), u, u)
    b = job.batch // accumulation
    u = profile.util(b, job.batch)
    return Occupant(profile.name, b, job.batch, memory_gb(job, profile, accumulation), u, u)


@runtime_checkable
class Interference(Protocol):
    """A pairwise interference model."""

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        """Slowdown (>= 1) of ``victim`` while ``other`` shares its GPU."""
        ...


@runtime_checkable
class SharingRule(Protocol):
    """An interference model that may forbid some pairs from sharing (docs/model.md §3).

    Optional: a model without ``can_share`` lets every pair share (memory permitting).
    ``can_share`` must be symmetric.
    """

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        """Whether ``a`` and ``b`` may share a GPU."""
        ...


def sharing_rule(model: Interference) -> Callable[[Occupant, Occupant], bool] | None:
    """``model.can_share`` if the model has a sharing rule, else ``None`` (every pair may share).

    The feasibility checker, sjf-ffs, sjf-bsbf and the formulations ask this once and skip the
    per-pair test when it is ``None`` (the contention models).
    """
    rule = getattr(model, "can_share", None)  # not isinstance(SharingRule): that is slow
    return rule if callable(rule) else None


def can_share(model: Interference, a: Occupant, b: Occupant) -> bool:
    """Whether ``model`` lets ``a`` and ``b`` share a GPU (True without a sharing rule)."""
    rule = sharing_rule(model)
    return rule is None or bool(rule(a, b))


def contention_shape(occ: Occupant) -> float:
    """``b / (b + B/4)`` of an occupant: ``util(b) / u_max``; 0.8 for a duration-only job."""
    if occ.micro_batch is None or occ.batch is None:
        return FULL_BATCH_SHAPE
    return occ.micro_batch / (occ.micro_batch + occ.batch / 4.0)


@dataclass(frozen=True, slots=True)
class ContentionModel:
    """Parametric, asymmetric contention: ξ_a = (1 + ε)(1 + κ · sens_a · press_b).

    docs/model.md §3. Without ``scales`` (the default presets) sensitivity and pressure are the
    occupant's own ``util(b)`` values (so ξ_a = ξ_b). With ``scales`` they are per model:
    ``sens = sensitivity_max(model) · b/(b + B/4)``, ``press = pressure_max(model) · b/(b + B/4)``
    (the ``gavel-fitted`` preset); an occupant whose model has no scale is refused (KeyError).

    Parameters
    ----------
    kappa
        Contention strength: ≈ 1.5 for time slicing, 0.3–0.5 for an MPS-like mode.
    eps
        Fixed overhead of co-location (context switches, cache), ≥ 0.
    scales
        Optional per-model contention scales, keyed by occupant model name (``"generic"`` for
        duration-only jobs).
    """

    kappa: float = 1.5
    eps: float = 0.05
    scales: Mapping[str, ContentionScale] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if self.kappa < 0 or self.eps < 0:
            raise ValueError("kappa and eps must be non-negative")
        if self.scales is not None:
            object.__setattr__(self, "scales", MappingProxyType(dict(self.scales)))

    def _scale(self, occ: Occupant) -> ContentionScale:
        assert self.scales is not None
        try:
            return self.scales[occ.model]
        except KeyError:
            raise KeyError(
                f"contention model has no scale for model {occ.model!r}; "
                f"known: {', '.join(sorted(self.scales))}"
            ) from None

    def sensitivity(self, occ: Occupant) -> float:
        """How much ``occ`` suffers from a co-runner under this model."""
        if self.scales is None:
            return occ.sensitivity
        return self._scale(occ).sensitivity_max * contention_shape(occ)

    def pressure(self, occ: Occupant) -> float:
        """How much ``occ`` presses on a co-runner under this model."""
        if self.scales is None:
            return occ.pressure
        return self._scale(occ).pressure_max * contention_shape(occ)

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        """Slowdown of ``victim`` next to ``other``."""
        return float(self.slowdowns(self.sensitivity(victim), self.pressure(other)))

    def slowdowns(self, sensitivity: ArrayLike, pressure: ArrayLike) -> np.ndarray:
        """Vectorised slowdowns from victim sensitivities and co-runner pressures.

        Feed it :meth:`sensitivity` and :meth:`pressure` of the occupants (docs/model.md §3).
        """
        return (1.0 + self.eps) * (
            1.0 + self.kappa * np.asarray(sensitivity) * np.asarray(pressure)
        )
