"""The model's assumed constants as run parameters: α of the catalog, κ and ε of the contention
model (docs/model.md §2, §3, §9).

A sweep's ``[sim]`` keys ``alpha``, ``kappa`` and ``eps`` apply through :func:`with_constants`;
a caller with an instance and an interference model in hand (a command line, a notebook) uses
the same function. Each refusal is one :class:`ConstantError` (a :class:`ValueError`) naming the
key.

* ``alpha``: the instance is rebuilt with the catalog ``default:alpha=X``
  (:func:`~sjfbsbf.core.catalog.get_catalog`): same jobs, same full-batch durations, only
  sub-batched steps change. Only for an instance of the catalog ``default``. Duration-only jobs
  have no sub-batches: α changes nothing for them.
* ``kappa``, ``eps``: the interference model, a :class:`~sjfbsbf.core.interference.
  ContentionModel` (``time-slicing``, ``mps``, ``gavel-fitted``), gets κ / ε replaced
  (:func:`dataclasses.replace`: the per-model scales of ``gavel-fitted`` are kept). A measured
  table (``gavel-measured``) has no κ or ε: refused.
"""

from __future__ import annotations

import dataclasses
import math

from sjfbsbf.core.catalog import MAX_ALPHA_SHARE, catalog_name
from sjfbsbf.core.interference import ContentionModel, Interference
from sjfbsbf.core.model import Instance
from sjfbsbf.core.presets import DATA_PRESETS, INTERFERENCE_PRESETS

#: The constants :func:`with_constants` sets, in the order of the docs.
CONSTANT_KEYS = ("alpha", "kappa", "eps")
#: Interference presets whose κ and ε can be set: those that build a :class:`ContentionModel`
#: (``time-slicing``, ``mps``, ``gavel-fitted``; not the measured table).
CONTENTION_PRESETS = tuple(
    name
    for name, factory in INTERFERENCE_PRESETS.items()
    if name not in DATA_PRESETS and isinstance(factory(), ContentionModel)
)


class ConstantError(ValueError):
    """A constant that cannot be applied: ``key`` and ``reason``."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


def check_constant(key: str, value: float) -> float:
    """``value`` as a float if it is a valid ``key`` (``alpha`` in ``[0, 0.5]``, ``kappa`` and
    ``eps`` finite and ``>= 0``).

    Raises
    ------
    ConstantError
        Naming the key.
    """
    if key not in CONSTANT_KEYS:
        raise ConstantError(key, f"not a constant (known: {', '.join(CONSTANT_KEYS)})")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConstantError(key, f"must be a number, got {value!r}")
    high = MAX_ALPHA_SHARE if key == "alpha" else math.inf
    if not (math.isfinite(value) and 0.0 <= value <= high):
        bound = f"between 0 and {high:g}" if key == "alpha" else "a finite number >= 0"
        raise ConstantError(key, f"must be {bound}, got {value!r}")
    return float(value) + 0.0


def check_interference_constants(preset: str, *, kappa: bool, eps: bool) -> None:
    """Refuse ``kappa`` / ``eps`` (whichever is set) for a preset that is not a contention model.

    Raises
    ------
    ConstantError
        Naming the first key set, for a preset outside :data:`CONTENTION_PRESETS`.
    """
    for key, given in (("kappa", kappa), ("eps", eps)):
        if given and preset not in CONTENTION_PRESETS:
            raise ConstantError(
                key,
                f"interference {preset!r} has no {key} (a measured table, not a contention "
                f"model); it applies to {', '.join(map(repr, CONTENTION_PRESETS))}",
            )


def with_alpha(instance: Instance, alpha: float) -> Instance:
    """``instance`` on the catalog ``default:alpha=X`` (every other field the same).

    Raises
    ------
    ConstantError
        ``alpha`` out of range, or an instance whose catalog is not ``default``.
    """
    value = check_constant("alpha", alpha)
    if instance.catalog != "default":
        raise ConstantError(
            "alpha",
            f"applies only to an instance of catalog 'default', not {instance.catalog!r}",
        )
    return dataclasses.replace(instance, catalog=catalog_name(value))  # checked again


def with_contention(
    interference: Interference, *, kappa: float | None = None, eps: float | None = None
) -> ContentionModel:
    """``interference`` with κ and/or ε replaced (``None``: kept).

    Raises
    ------
    ConstantError
        A bad value, or a model that is not a :class:`ContentionModel` (naming the key).
    """
    new_kappa = None if kappa is None else check_constant("kappa", kappa)
    new_eps = None if eps is None else check_constant("eps", eps)
    if not isinstance(interference, ContentionModel):
        raise ConstantError(
            "kappa" if kappa is not None or eps is None else "eps",
            f"applies only to a contention model ({', '.join(CONTENTION_PRESETS)}), "
            f"not {type(interference).__name__}",
        )
    return dataclasses.replace(
        interference,
        kappa=interference.kappa if new_kappa is None else new_kappa,
        eps=interference.eps if new_eps is None else new_eps,
    )


def with_constants(
    instance: Instance,
    interference: Interference,
    *,
    alpha: float | None = None,
    kappa: float | None = None,
    eps: float | None = None,
) -> tuple[Instance, Interference]:
    """The instance and interference model with the given constants set (``None``: unchanged).

    Without any constant both are returned as they are (the same objects).

    Raises
    ------
    ConstantError
        Naming the key: a bad value, ``alpha`` on a catalog other than ``default``, ``kappa`` or
        ``eps`` on a model that is not a :class:`ContentionModel`.
    """
    if alpha is not None:
        instance = with_alpha(instance, alpha)
    if kappa is not None or eps is not None:
        interference = with_contention(interference, kappa=kappa, eps=eps)
    return instance, interference
