"""Gavel's measured co-location table (docs/model.md §8).

Gavel (OSDI'20) measured training throughputs (iterations per second) of 26 job types on K80,
P100 and V100 GPUs, alone and co-located in pairs on one GPU. This module holds that table as an
immutable object, :class:`GavelThroughputs`, and computes

* :func:`slowdown_statistics`, the summary quoted in docs/model.md §8.

The interference model built on it,
:class:`~sjfbsbf.core.interference_measured.MeasuredTableModel`, is in
:mod:`sjfbsbf.core.interference_measured`; :mod:`sjfbsbf.experiments.calibration` fits the
``gavel-fitted`` contention scales to it.

Facts of the table and the choices made here:

* A job type is a string such as ``"ResNet-50 (batch size 64)"`` (``"<family> (batch size <b>)"``)
  or a bare family (``"A3C"``, ``"CycleGAN"``) measured at one batch size only.
* Only single-GPU pairs were measured. Every 2-, 4- and 8-GPU pair is ``[0, 0]`` and is not kept.
  A multi-GPU job uses the single-GPU slowdown of its model pair on each GPU (docs/model.md
  §8), which is what an :class:`~sjfbsbf.core.interference.Occupant` (one GPU's view of a job) asks
  for anyway.
* ``[0, 0]`` for a single-GPU pair means the pair did not fit (out of memory).
* **Suspicious entries.** On V100, 80 (victim, other) entries report a co-located throughput of
  the victim exactly equal to its solo throughput (slowdown exactly 1, bit for bit). 77 of them
  involve a ResNet-18 job type (70 with ResNet-18 as the victim); the 3 others are Transformer
  (bs 256) next to Transformer (bs 128) and Recommendation (bs 2048, bs 4096) next to A3C. They
  look filled in rather than measured. P100 and K80 have none. They are flagged
  (:meth:`GavelThroughputs.suspicious_pairs`); statistics and ``MeasuredTableModel`` leave
  out the whole unordered pair when either direction is flagged, unless asked not to.
* Solo throughputs of 0 (K80 ResNet-50 at batch 128 on 2, 4, 8 GPUs) mean "not measured" and are
  dropped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

_BATCH_RE = re.compile(r"^(?P<family>.*\S) \(batch size (?P<batch>\d+)\)$")

#: An ordered pair of job types: (victim, other).
JobTypePair = tuple[str, str]


def split_job_type(job_type: str) -> tuple[str, int | None]:
    """Split a Gavel job type into its family and batch size.

    Parameters
    ----------
    job_type
        E.g. ``"ResNet-50 (batch size 64)"`` or ``"A3C"``.

    Returns
    -------
    tuple
        ``(family, batch)``, e.g. ``("ResNet-50", 64)``; ``batch`` is ``None`` for job types
        without a batch size in their name.
    """
    match = _BATCH_RE.match(job_type)
    if match is None:
        return job_type, None
    return match["family"], int(match["batch"])


def job_type_key(family: str, batch: int | None) -> str:
    """The Gavel job type of ``family`` at batch size ``batch`` (inverse of split_job_type)."""
    return family if batch is None else f"{family} (batch size {batch})"


@dataclass(frozen=True, eq=False)
class GavelThroughputs:
    """Gavel's measured throughputs, immutable (build it with ``workloads.gavel.load_throughputs``).

    Parameters
    ----------
    solo
        ``gpu_type -> {(job_type, num_gpus): iterations per second}`` of each job type alone on
        ``num_gpus`` GPUs (for distributed runs: the job's iterations per second, as in Gavel).
        Non-positive values are dropped as "not measured".
    colocated
        ``gpu_type -> {(victim, other): (victim_it_per_s, other_it_per_s)}`` of job types
        co-located on one GPU; ``(0.0, 0.0)`` means the pair did not fit in memory.
    source
        Where the data came from (file name), for messages.

    Attributes
    ----------
    suspicious
        ``gpu_type -> frozenset of (victim, other)`` entries whose co-located throughput of the
        victim equals its solo throughput exactly (derived; see the module docstring).
    """

    solo: Mapping[str, Mapping[tuple[str, int], float]]
    colocated: Mapping[str, Mapping[JobTypePair, tuple[float, float]]]
    source: str = ""
    suspicious: Mapping[str, frozenset[JobTypePair]] = field(init=False)

    def __post_init__(self) -> None:
        solo: dict[str, Mapping[tuple[str, int], float]] = {}
        for gpu_type, table in self.solo.items():
            entries: dict[tuple[str, int], float] = {}
            for (job_type, gpus), value in table.items():
                if not isinstance(gpus, int) or gpus < 1:
                    raise ValueError(f"{gpu_type}: bad GPU count {gpus!r} for {job_type!r}")
                if not math.isfinite(value):
                    raise ValueError(f"{gpu_type}: non-finite throughput for {job_type!r}")
                if value > 0:
                    entries[(job_type, gpus)] = float(value)
            solo[gpu_type] = MappingProxyType(entries)
        colocated: dict[str, Mapping[JobTypePair, tuple[float, float]]] = {}
        suspicious: dict[str, frozenset[JobTypePair]] = {}
        for gpu_type in solo:
            pairs: dict[JobTypePair, tuple[float, float]] = {}
            flagged: set[JobTypePair] = set()
            for (victim, other), (mine, theirs) in self.colocated.get(gpu_type, {}).items():
                if not (math.isfinite(mine) and math.isfinite(theirs)) or mine < 0 or theirs < 0:
                    raise ValueError(
                        f"{gpu_type}: bad co-located throughputs for ({victim!r}, {other!r})"
                    )
                pairs[(victim, other)] = (float(mine), float(theirs))
                alone = solo[gpu_type].get((victim, 1))
                if mine > 0 and alone is not None and mine == alone:
                    flagged.add((victim, other))
            colocated[gpu_type] = MappingProxyType(pairs)
            suspicious[gpu_type] = frozenset(flagged)
        object.__setattr__(self, "solo", MappingProxyType(solo))
        object.__setattr__(self, "colocated", MappingProxyType(colocated))
        object.__setattr__(self, "suspicious", MappingProxyType(suspicious))

    # --- job types and solo throughputs -------------------------------------------------------

    @property
    def gpu_types(self) -> tuple[str, ...]:
        """GPU types in the table, sorted."""
        return tuple(sorted(self.solo))

    def _solo(self, gpu_type: str) -> Mapping[tuple[str, int], float]:
        try:
            return self.solo[gpu_type]
        except KeyError:
            raise KeyError(
                f"unknown GPU type {gpu_type!r}; known: {', '.join(self.gpu_types)}"
            ) from None

    def job_types(self, gpu_type: str = "v100") -> tuple[str, ...]:
        """Job types with a solo measurement on ``gpu_type``, sorted."""
        return tuple(sorted({job_type for job_type, _ in self._solo(gpu_type)}))

    def has_job_type(self, job_type: str, gpu_type: str = "v100") -> bool:
        """Whether ``job_type`` was measured alone on one GPU of ``gpu_type``."""
        return (job_type, 1) in self._solo(gpu_type)

    def families(self, gpu_type: str = "v100") -> tuple[str, ...]:
        """Job families (job types without their batch size), sorted."""
        return tuple(sorted({split_job_type(t)[0] for t in self.job_types(gpu_type)}))

    def batch_sizes(self, family: str, gpu_type: str = "v100") -> tuple[int | None, ...]:
        """Batch sizes at which ``family`` was measured on one GPU (``(None,)`` if unnamed)."""
        found = {
            split_job_type(job_type)[1]
            for job_type, gpus in self._solo(gpu_type)
            if gpus == 1 and split_job_type(job_type)[0] == family
        }
        return tuple(sorted(found, key=lambda b: -1 if b is None else b))

    def measured_gpu_counts(self, job_type: str, gpu_type: str = "v100") -> tuple[int, ...]:
        """GPU counts at which ``job_type`` was measured alone, sorted."""
        return tuple(sorted(g for t, g in self._solo(gpu_type) if t == job_type))

    def solo_throughput(self, job_type: str, gpus: int = 1, gpu_type: str = "v100") -> float:
        """Measured solo throughput (iterations/s) of ``job_type`` on exactly ``gpus`` GPUs.

        Raises
        ------
        KeyError
            If that combination was not measured.
        """
        try:
            return self._solo(gpu_type)[(job_type, gpus)]
        except KeyError:
            raise KeyError(f"no solo throughput of ({job_type!r}, {gpus}) on {gpu_type}") from None

    def throughput_for(self, job_type: str, gpus: int, gpu_type: str = "v100") -> tuple[float, int]:
        """Solo throughput of ``job_type`` on ``gpus`` GPUs, with the weak-scaling rule.

        The table has 1, 2, 4 and 8 GPUs (some job types only 1). For another count G the
        throughput of the largest measured count <= G is used: data-parallel training keeps the
        per-GPU batch fixed (weak scaling), so the time of one step stays roughly constant as
        GPUs are added beyond the measured counts.

        Returns
        -------
        tuple
            ``(iterations per second, GPU count whose measurement was used)``.

        Raises
        ------
        KeyError
            If the job type is unknown on ``gpu_type`` or ``gpus`` < 1.
        """
        usable = [g for g in self.measured_gpu_counts(job_type, gpu_type) if g <= gpus]
        if not usable:
            raise KeyError(f"no solo throughput of {job_type!r} on <= {gpus} {gpu_type} GPUs")
        used = max(usable)
        return self._solo(gpu_type)[(job_type, used)], used

    # --- pairs --------------------------------------------------------------------------------

    def pair(self, victim: str, other: str, gpu_type: str = "v100") -> tuple[float, float] | None:
        """Co-located throughputs ``(victim, other)`` on one GPU, or ``None`` if not measured.

        ``(0.0, 0.0)`` means the pair did not fit in memory.
        """
        self._solo(gpu_type)
        return self.colocated[gpu_type].get((victim, other))

    def fits(self, victim: str, other: str, gpu_type: str = "v100") -> bool:
        """Whether the pair fitted on one GPU (``False`` for a measured ``[0, 0]``).

        Raises
        ------
        KeyError
            If the pair was not measured.
        """
        measured = self.pair(victim, other, gpu_type)
        if measured is None:
            raise KeyError(f"pair ({victim!r}, {other!r}) not measured on {gpu_type}")
        return measured != (0.0, 0.0)

    def slowdown(self, victim: str, other: str, gpu_type: str = "v100") -> float | None:
        """Measured slowdown of ``victim`` next to ``other``: solo ÷ co-located throughput.

        Returns ``None`` when the pair did not fit. Suspicious entries are returned as measured
        (check :meth:`is_suspicious`).

        Raises
        ------
        KeyError
            If the pair or the victim's solo throughput was not measured.
        """
        if not self.fits(victim, other, gpu_type):
            return None
        measured = self.pair(victim, other, gpu_type)
        assert measured is not None
        if measured[0] <= 0:
            raise KeyError(f"pair ({victim!r}, {other!r}) has no throughput of {victim!r}")
        return self.solo_throughput(victim, 1, gpu_type) / measured[0]

    def suspicious_pairs(self, gpu_type: str = "v100") -> frozenset[JobTypePair]:
        """Ordered (victim, other) entries with co-located throughput == solo, exactly."""
        self._solo(gpu_type)
        return self.suspicious[gpu_type]

    def is_suspicious(self, victim: str, other: str, gpu_type: str = "v100") -> bool:
        """Whether either direction of the pair is flagged as suspicious."""
        flagged = self.suspicious_pairs(gpu_type)
        return (victim, other) in flagged or (other, victim) in flagged

    def unordered_pairs(self, gpu_type: str = "v100") -> tuple[JobTypePair, ...]:
        """Each measured single-GPU pair once (``a <= b``, self-pairs included), sorted."""
        self._solo(gpu_type)
        return tuple(sorted({(min(a, b), max(a, b)) for a, b in self.colocated[gpu_type]}))


def _pair_slowdowns(
    table: GavelThroughputs, a: str, b: str, gpu_type: str
) -> tuple[float, float] | None:
    """Slowdowns (ξ_a, ξ_b) of a fitting unordered pair, ``None`` if it did not fit."""
    measured = table.pair(a, b, gpu_type)
    if measured is None or measured == (0.0, 0.0):
        return None
    return (
        table.solo_throughput(a, 1, gpu_type) / measured[0],
        table.solo_throughput(b, 1, gpu_type) / measured[1],
    )


def slowdown_statistics(
    throughputs: GavelThroughputs, gpu_type: str = "v100", *, exclude_suspicious: bool = True
) -> dict[str, Any]:
    """Calibration summary of the measured single-GPU pairs of ``gpu_type``.

    Pairs are unordered, self-pairs (two jobs of the same type) included. A pair *loses
    throughput by sharing* when ``1/ξ_a + 1/ξ_b <= 1``. Slowdown percentiles are over the
    ordered (victim, other) measurements of the fitting pairs counted.

    Parameters
    ----------
    throughputs
        The table.
    gpu_type
        GPU type, e.g. ``"v100"``, ``"p100"``, ``"k80"``.
    exclude_suspicious
        Leave out pairs with a suspicious entry in either direction (default).

    Returns
    -------
    dict
        ``gpu_type``; ``pairs`` (fitting pairs counted); ``oom_pairs`` (measured ``[0, 0]``);
        ``excluded_suspicious`` (fitting pairs left out); ``losing_pairs``; ``share_losing``
        (losing ÷ fitting pairs counted); ``share_losing_or_oom`` (the same, counting pairs that
        do not fit as losing too); ``slowdowns`` (number of ξ values); ``xi_median``,
        ``xi_p95``, ``xi_mean``, ``xi_min``, ``xi_max``.

    Notes
    -----
    On Gavel's table (suspicious pairs excluded) this gives: V100 261 fitting pairs, 27.6%
    losing (33.0% counting the 21 out-of-memory pairs as losing), median ξ 1.61, p95 5.08;
    P100 340 pairs, 13.5% losing (16.2% with its 11 OOM pairs), median 1.70, p95 2.71; K80
    306 pairs, 26.5% losing (35.9%), median 1.87, p95 2.74. Keeping V100's 69 suspicious pairs
    gives 21.8% losing, median 1.47, p95 4.84.
    """
    pairs = oom = excluded = losing = 0
    xis: list[float] = []
    for a, b in throughputs.unordered_pairs(gpu_type):
        slowdowns = _pair_slowdowns(throughputs, a, b, gpu_type)
        if slowdowns is None:
            oom += 1
            continue
        if exclude_suspicious and throughputs.is_suspicious(a, b, gpu_type):
            excluded += 1
            continue
        xa, xb = slowdowns
        pairs += 1
        losing += 1.0 / xa + 1.0 / xb <= 1.0
        xis.extend((xa,) if a == b else (xa, xb))
    values = np.asarray(xis, dtype=float)
    empty = values.size == 0
    return {
        "gpu_type": gpu_type,
        "pairs": pairs,
        "oom_pairs": oom,
        "excluded_suspicious": excluded,
        "losing_pairs": losing,
        "share_losing": losing / pairs if pairs else math.nan,
        "share_losing_or_oom": (losing + oom) / (pairs + oom) if pairs + oom else math.nan,
        "slowdowns": int(values.size),
        "xi_median": math.nan if empty else float(np.median(values)),
        "xi_p95": math.nan if empty else float(np.percentile(values, 95)),
        "xi_mean": math.nan if empty else float(values.mean()),
        "xi_min": math.nan if empty else float(values.min()),
        "xi_max": math.nan if empty else float(values.max()),
    }
