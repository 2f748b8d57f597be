"""Measured interference: Gavel's co-location table as an interference model (docs/model.md §8).

* :class:`MeasuredTableModel` implements the :class:`~sjfbsbf.core.interference.Interference`
  protocol: the slowdown of a job next to another is the measured ``solo / co-located``
  throughput ratio of their single-GPU pair. It also implements the optional sharing rule
  (:meth:`MeasuredTableModel.can_share`, docs/model.md §3): a pair measured ``[0, 0]`` (out of
  memory) may never share a GPU. It counts the pairs that used its fallback slowdown.
* :func:`gavel_measured` is the ``gavel-measured`` interference preset: the V100 table read from
  a file, catalog models mapped to Gavel families by
  :data:`~sjfbsbf.workloads.gavel.CATALOG_ALIASES`. This layer reads paths only: the command
  line and sweeps default to the dataset ``data:gavel-throughputs`` and resolve it
  (:func:`sjfbsbf.workloads.datasets.resolve_data_path`) before calling it.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.gavel_table import CATALOG_ALIASES, load_throughputs
from sjfbsbf.core.interference import Interference, Occupant
from sjfbsbf.core.interference_table import (
    GavelThroughputs,
    job_type_key,
    slowdown_statistics,
    split_job_type,
)


def gavel_occupant(job_type: str, micro_batch: int | None = None) -> Occupant:
    """An :class:`Occupant` for a Gavel job type, for use with :class:`MeasuredTableModel`.

    ``micro_batch`` overrides the batch size in the job type's name (a sub-batch); memory,
    sensitivity and pressure are zero (the measured table model does not use them).
    """
    family, batch = split_job_type(job_type)
    b = micro_batch if micro_batch is not None else batch
    return Occupant(family, b, batch, 0.0, 0.0, 0.0)


@dataclass(frozen=True, eq=False)
class MeasuredTableModel:
    """Interference looked up from Gavel's measured single-GPU pairs (docs/model.md §8).

    Slowdown of ``victim`` next to ``other`` = solo ÷ co-located throughput of the victim in
    their single-GPU pair on :attr:`gpu_type`, clamped at 1 (no measured value is below 1,
    the suspicious ones are exactly 1). The same value is used on every GPU of a
    multi-GPU job (multi-GPU pairs were never measured). The ``gavel-measured`` preset
    (:func:`gavel_measured`) makes one for the simulator.

    **Occupant → job type.** ``Occupant.model`` names a Gavel family (``"ResNet-50"``), a full
    job type (``"ResNet-50 (batch size 64)"``) or, through :attr:`aliases`, anything else (e.g. a
    catalog model: ``{"vgg19": "ResNet-50"}``). The batch size is the occupant's
    ``micro_batch`` (so a sub-batch gets the slowdown measured at that size), else the one in the
    name, else its ``batch``. When the family was not measured at that size the nearest measured
    size is used (distance in log2, ties to the smaller size). A family measured at one unnamed
    size (A3C, CycleGAN) ignores the batch.

    **Fallback.** When a job type is unknown (e.g. the ``"generic"`` profile of duration-only
    jobs), the pair was not measured, or it is suspicious (and :attr:`include_suspicious` is
    false), :meth:`slowdown` returns :attr:`fallback`: a number, or another
    :class:`~sjfbsbf.core.interference.Interference` model to delegate to; by default (``None``) the
    median measured slowdown of :attr:`gpu_type` (:func:`slowdown_statistics`, suspicious pairs
    excluded). Every ordered pair that used the fallback is recorded
    (:meth:`fallback_pairs`, :meth:`fallback_summary`). :meth:`fits` is ``True`` for pairs it
    cannot look up (memory is then left to the memory model of the occupants).

    **Pairs that do not fit.** :meth:`can_share` is ``False`` for a pair measured ``[0, 0]`` in
    either direction; the feasibility checker and the sharing policies never co-locate such a
    pair (docs/model.md §3). :meth:`slowdown` raises :class:`ValueError` for it. (Returning an
    infinite slowdown would let a simulator stall silently.)

    Parameters
    ----------
    table
        The measured throughputs.
    gpu_type
        Which GPU type's measurements to use.
    aliases
        Occupant model name -> Gavel family or job type.
    fallback
        Slowdown for pairs without a usable measurement (see above).
    include_suspicious
        Use suspicious entries as measured (slowdown 1) instead of falling back.
    """

    table: GavelThroughputs
    gpu_type: str = "v100"
    aliases: Mapping[str, str] = field(default_factory=dict)
    fallback: Interference | float | None = None
    include_suspicious: bool = False
    _fallback_value: float = field(init=False, repr=False)
    _sizes: Mapping[str, tuple[int | None, ...]] = field(init=False, repr=False)
    _resolved: dict[tuple[str, int | None, int | None], str | None] = field(init=False, repr=False)
    _measured: dict[tuple[str | None, str | None], float | None] = field(init=False, repr=False)
    _fallbacks: set[tuple[str, str]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.gpu_type not in self.table.solo:
            raise ValueError(
                f"unknown GPU type {self.gpu_type!r}; known: {', '.join(self.table.gpu_types)}"
            )
        object.__setattr__(self, "aliases", MappingProxyType(dict(self.aliases)))
        if isinstance(self.fallback, int | float):
            if not math.isfinite(self.fallback) or self.fallback < 1:
                raise ValueError(f"fallback slowdown must be a number >= 1, got {self.fallback}")
            value = float(self.fallback)
        else:
            value = float(slowdown_statistics(self.table, self.gpu_type)["xi_median"])
        object.__setattr__(self, "_fallback_value", value)
        sizes = {
            f: self.table.batch_sizes(f, self.gpu_type) for f in self.table.families(self.gpu_type)
        }
        object.__setattr__(self, "_sizes", MappingProxyType(sizes))
        object.__setattr__(self, "_resolved", {})  # caches of pure lookups
        object.__setattr__(self, "_measured", {})
        object.__setattr__(self, "_fallbacks", set())

    def job_type_of(self, occupant: Occupant) -> str | None:
        """The measured Gavel job type an occupant stands for, or ``None`` if unknown."""
        key = (occupant.model, occupant.micro_batch, occupant.batch)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(*key)
        return self._resolved[key]

    def _resolve(self, model: str, micro_batch: int | None, batch: int | None) -> str | None:
        family, named_batch = split_job_type(self.aliases.get(model, model))
        sizes = self._sizes.get(family, ())
        if not sizes:
            return None
        if sizes == (None,):
            return family
        numeric = [s for s in sizes if s is not None]
        wanted = next((b for b in (micro_batch, named_batch, batch) if b is not None), None)
        if wanted is None or wanted < 1:
            return None
        best = min(numeric, key=lambda s: (abs(math.log2(s / wanted)), s))
        return job_type_key(family, best)

    def _lookup(self, victim: Occupant, other: Occupant) -> tuple[str, str] | None:
        a, b = self.job_type_of(victim), self.job_type_of(other)
        if a is None or b is None or self.table.pair(a, b, self.gpu_type) is None:
            return None
        return a, b

    def fits(self, victim: Occupant, other: Occupant) -> bool:
        """Whether the two fit on one GPU: ``False`` only for a measured ``[0, 0]`` pair."""
        pair = self._lookup(victim, other)
        return pair is None or self.table.fits(*pair, self.gpu_type)

    def can_share(self, a: Occupant, b: Occupant) -> bool:
        """Whether ``a`` and ``b`` may share a GPU: not measured ``[0, 0]`` either way."""
        return self.fits(a, b) and self.fits(b, a)

    def is_measured(self, victim: Occupant, other: Occupant) -> bool:
        """Whether :meth:`slowdown` returns a measured value (not the fallback)."""
        pair = self._lookup(victim, other)
        if pair is None or not self.table.fits(*pair, self.gpu_type):
            return False
        return self.include_suspicious or not self.table.is_suspicious(*pair, self.gpu_type)

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        """Slowdown (>= 1) of ``victim`` while ``other`` shares its GPU.

        Raises
        ------
        ValueError
            If the pair was measured not to fit in memory.
        """
        key = (self.job_type_of(victim), self.job_type_of(other))
        if key not in self._measured:
            self._measured[key] = self._measured_slowdown(victim, other)
        measured = self._measured[key]
        if measured is None:
            self._fallbacks.add((key[0] or victim.model, key[1] or other.model))
            if self.fallback is not None and not isinstance(self.fallback, int | float):
                return self.fallback.slowdown(victim, other)
            return self._fallback_value
        if math.isinf(measured):
            raise ValueError(
                f"{key[0]!r} and {key[1]!r} do not fit on one {self.gpu_type} GPU "
                "(measured out of memory); check fits() first"
            )
        return measured

    def _measured_slowdown(self, victim: Occupant, other: Occupant) -> float | None:
        """Usable measured slowdown, ``inf`` if the pair does not fit, ``None``: fall back."""
        pair = self._lookup(victim, other)
        if pair is None:
            return None
        measured = self.table.slowdown(*pair, self.gpu_type)
        if measured is None:
            return math.inf
        if not self.include_suspicious and self.table.is_suspicious(*pair, self.gpu_type):
            return None
        return max(1.0, measured)  # ξ >= 1 (no measured value is below 1)

    def fallback_pairs(self) -> tuple[tuple[str, str], ...]:
        """Ordered (victim, other) pairs that got the fallback so far, sorted.

        Named by Gavel job type, or by occupant model when it has none (e.g. ``"generic"``).
        """
        return tuple(sorted(self._fallbacks))

    def fallback_summary(self) -> str | None:
        """One line stating the fallback and how many ordered pairs used it (``None``: none)."""
        if not self._fallbacks:
            return None
        if self.fallback is not None and not isinstance(self.fallback, int | float):
            value = f"delegated to {type(self.fallback).__name__}"
        else:
            value = f"ξ = {self._fallback_value:.3f}"
            if self.fallback is None:
                value += f" (median measured {self.gpu_type} slowdown)"
        n = len(self._fallbacks)
        return (
            f"measured interference: fallback {value} used for {n} ordered pair"
            f"{'' if n == 1 else 's'} without a usable measurement (unknown job type, not "
            "measured, or suspicious)"
        )


@functools.lru_cache(maxsize=4)
def _table(path: str) -> GavelThroughputs:
    return load_throughputs(path)


def gavel_measured(throughputs: str | os.PathLike[str] | None = None) -> MeasuredTableModel:
    """The ``gavel-measured`` preset: Gavel's V100 pairs for catalog jobs (docs/model.md §8).

    Catalog models stand for Gavel families through
    :data:`~sjfbsbf.workloads.gavel.CATALOG_ALIASES`; duration-only jobs (``"generic"``) and
    pairs without a usable measurement get the median measured V100 slowdown (counted, see
    :meth:`MeasuredTableModel.fallback_summary`).

    Parameters
    ----------
    throughputs
        Path of Gavel's ``simulation_throughputs.json``; required. The registered dataset's copy
        is ``resolve_data_path("data:gavel-throughputs")`` (:mod:`sjfbsbf.workloads.datasets`,
        after ``sjfbsbf data fetch gavel-throughputs``).

    Raises
    ------
    InstanceError
        If no path is given, a dataset reference is given (resolve it first), or the file is
        missing or malformed (one line naming it).
    """
    how = (
        "give its path, or resolve the dataset with sjfbsbf.workloads.datasets."
        "resolve_data_path('data:gavel-throughputs') (the command line and sweeps do)"
    )
    if throughputs is None:
        raise InstanceError(f"gavel-measured interference needs Gavel's throughput table: {how}")
    path = str(throughputs)
    if path.startswith("data:"):
        raise InstanceError(f"a dataset reference, not a path: {how}", source=path)
    if not Path(path).is_file():
        raise InstanceError(
            "gavel-measured interference needs Gavel's simulation_throughputs.json; no such "
            "file (give its path: --throughputs FILE, or throughputs=...)",
            source=path,
        )
    return MeasuredTableModel(_table(path), gpu_type="v100", aliases=CATALOG_ALIASES)
