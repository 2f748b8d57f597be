"""Interference between two jobs sharing a GPU (DESIGN §1.4).

An :class:`Occupant` describes what one job puts on a GPU (model, micro-batch, memory and its
contention parameters); an :class:`Interference` model turns a pair of occupants into the
slowdown of the first (shared step time ÷ solo step time, >= 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

from sjfbsbf.model import Job
from sjfbsbf.perf import ModelProfile, memory_gb


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
        How much the job suffers from a co-runner.
    pressure
        How much the job presses on a co-runner.
    """

    model: str
    micro_batch: int | None
    batch: int | None
    memory_gb: float
    sensitivity: float
    pressure: float


def occupant(job: Job, profile: ModelProfile, accumulation: int) -> Occupant:
    """The occupant a job forms at accumulation factor ``accumulation``.

    Sensitivity and pressure both equal ``util(b)`` (the simple special case of DESIGN §1.4);
    a duration-only job uses the generic profile at its full batch: ``0.8 * u_max``.
    """
    if job.batch is None or profile.generic:
        u = 0.8 * profile.u_max
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


@dataclass(frozen=True, slots=True)
class ContentionModel:
    """Parametric, asymmetric contention: ξ_a = (1 + ε)(1 + κ · sens_a · press_b).

    Parameters
    ----------
    kappa
        Contention strength: ≈ 1.5 for time slicing, 0.3–0.5 for an MPS-like mode.
    eps
        Fixed overhead of co-location (context switches, cache), ≥ 0.
    """

    kappa: float = 1.5
    eps: float = 0.05

    def __post_init__(self) -> None:
        if self.kappa < 0 or self.eps < 0:
            raise ValueError("kappa and eps must be non-negative")

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        """Slowdown of ``victim`` next to ``other``."""
        return float(self.slowdowns(victim.sensitivity, other.pressure))

    def slowdowns(self, sensitivity: ArrayLike, pressure: ArrayLike) -> np.ndarray:
        """Vectorised slowdowns from victim sensitivities and co-runner pressures."""
        return (1.0 + self.eps) * (
            1.0 + self.kappa * np.asarray(sensitivity) * np.asarray(pressure)
        )


def time_slicing() -> ContentionModel:
    """Contention preset for time-sliced sharing (κ = 1.5, ε = 0.05; the default)."""
    return ContentionModel(kappa=1.5, eps=0.05)


def mps() -> ContentionModel:
    """Contention preset for an MPS-like mode (κ = 0.4, ε = 0.02)."""
    return ContentionModel(kappa=0.4, eps=0.02)


INTERFERENCE_PRESETS = {"time-slicing": time_slicing, "mps": mps}


def make_interference(name: str) -> Interference:
    """Interference model by preset name (``time-slicing`` or ``mps``)."""
    try:
        return INTERFERENCE_PRESETS[name]()
    except KeyError:
        raise ValueError(
            f"unknown interference model {name!r}; choose from {', '.join(INTERFERENCE_PRESETS)}"
        ) from None
