"""Performance catalogs: the embedded default (docs/model.md §2) and the generic profile.

The default catalog is built from the authors' public testbed facts (per-GPU batch, ms per
iteration on RTX A6000, memory) plus the stated assumptions of ``docs/model.md``:

* alpha (fixed cost per micro-batch) = 9% of the 1-GPU step at the testbed batch, the rest
  linear in the micro-batch;
* all-reduce calibrated from the testbed's multi-GPU step times (the exposed all-reduce at
  2 GPUs inside a node), converted to an effective gradient volume at 16 GB/s;
* memory: 40% fixed, 60% proportional to the micro-batch (MB taken as 10^-3 GB);
* contention scale u_max per model from the prototype (RL 0.3 ... GPT-2 1.0).

**Parametric catalogs.** ``get_catalog("default:alpha=X")`` is the default catalog rebuilt with
the alpha share X instead of :data:`ALPHA_SHARE` (``0 <= X <=`` :data:`MAX_ALPHA_SHARE`; beta
follows, so every full-batch step, and with it every exclusive duration at the full batch, is
unchanged: only sub-batched steps change). Built once per name and cached.

It also holds the per-model contention scales of the ``gavel-fitted`` interference preset
(:data:`GAVEL_CONTENTION_SCALES`, docs/model.md §3), fitted on Gavel's measured V100 pairs by
:mod:`sjfbsbf.experiments.calibration` and embedded here so the toolkit works without the data.
"""

from __future__ import annotations

import functools
import math
import re
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sjfbsbf.core.profile import ModelProfile

#: Share of the 1-GPU step spent as fixed per-micro-batch overhead.
ALPHA_SHARE = 0.09
#: Largest alpha share a parametric catalog (``default:alpha=X``) accepts: beyond half the step
#: every fit is left far behind (Gavel's solo step times give 8-25%, docs/model.md §2).
MAX_ALPHA_SHARE = 0.5
#: Share of the listed memory that does not depend on the micro-batch.
MEM_FIXED_SHARE = 0.4
#: Intra-node bandwidth (GB/s) used to turn measured all-reduce times into gradient volumes.
CALIBRATION_BW_GBPS = 16.0


@dataclass(frozen=True, slots=True)
class ContentionScale:
    """Per-model scales of the contention model (docs/model.md §3).

    A job of this model at micro-batch b of its per-GPU batch B has
    ``sensitivity = sensitivity_max · b / (b + B/4)`` and
    ``pressure = pressure_max · b / (b + B/4)`` (the ``util(b)`` shape; a duration-only job uses
    the full-batch value 0.8). Unlike ``u_max`` they are not bounded by 1.

    Parameters
    ----------
    sensitivity_max
        How much the model suffers from a co-runner, >= 0.
    pressure_max
        How much the model presses on a co-runner, >= 0.
    """

    sensitivity_max: float
    pressure_max: float

    def __post_init__(self) -> None:
        for value in (self.sensitivity_max, self.pressure_max):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"contention scales must be finite and >= 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class TestbedEntry:
    """Facts (and the assumptions that complete them) for one testbed workload."""

    batch: int
    step_1gpu_s: float
    allreduce_2gpu_s: float
    memory_mb: float
    u_max: float


#: model -> testbed entry. Step and all-reduce derivations are in docs/model.md.
TESTBED: Mapping[str, TestbedEntry] = MappingProxyType(
    {
        "resnet18": TestbedEntry(128, 0.779, 0.881 - 0.779, 6432, 0.85),
        "shufflenet_v2": TestbedEntry(128, 0.798, 0.850 - 0.798, 5252, 0.55),
        "vgg16": TestbedEntry(16, 0.107, 0.191 - 0.107, 4224, 1.0),
        # VGG19 has no 1-GPU measurement: assume VGG16's all-reduce (similar parameter count)
        # and take the rest of the 2-GPU step (205 ms) as compute.
        "vgg19": TestbedEntry(16, 0.205 - (0.191 - 0.107), 0.191 - 0.107, 4304, 1.0),
        "dqn": TestbedEntry(128, 0.490, 0.495 - 0.490, 2230, 0.3),
        # A2C: 1 GPU 517 ms, 8 GPUs 555 ms; 2(G-1)/G = 1.75 at G = 8.
        "a2c": TestbedEntry(64, 0.517, (0.555 - 0.517) / 1.75, 2094, 0.3),
        "bert": TestbedEntry(4, 0.178, 0.195 - 0.178, 8058, 0.95),
        # GPT-2: 1 GPU 426 ms, 4 GPUs 433 ms; 2(G-1)/G = 1.5 at G = 4.
        "gpt2": TestbedEntry(4, 0.426, (0.433 - 0.426) / 1.5, 10532, 1.0),
    }
)


#: Per-model contention scales fitted on Gavel's V100 single-GPU pairs (docs/model.md §3), for
#: the models a Gavel family maps to (``workloads.gavel.MODEL_MAP``). Reproduce with
#: ``python experiments/calibrate_interference.py``; ``tests/experiments/test_calibration.py``
#: re-fits them.
GAVEL_FITTED_SCALES: Mapping[str, ContentionScale] = MappingProxyType(
    {
        "a2c": ContentionScale(1.229, 0.546),  # A3C
        "bert": ContentionScale(0.782, 0.479),  # Transformer
        "gpt2": ContentionScale(0.535, 0.495),  # LM
        "resnet18": ContentionScale(0.271, 0.747),  # ResNet-18
        "shufflenet_v2": ContentionScale(1.655, 0.918),  # Recommendation
        "vgg16": ContentionScale(1.029, 0.942),  # CycleGAN
        "vgg19": ContentionScale(0.947, 2.689),  # ResNet-50
    }
)


def _gavel_contention_scales() -> Mapping[str, ContentionScale]:
    """Scales of every default-catalog model and of duration-only jobs (``"generic"``).

    DQN has no Gavel family: it takes A2C's scales (the other Atari RL workload, as
    ``workloads.gavel.CATALOG_ALIASES`` maps it to A3C). Duration-only jobs take the median
    sensitivity and pressure of the catalog models, as their profile takes the median ``u_max``.
    """
    scales = {**GAVEL_FITTED_SCALES, "dqn": GAVEL_FITTED_SCALES["a2c"]}
    scales["generic"] = ContentionScale(
        statistics.median(v.sensitivity_max for v in scales.values()),
        statistics.median(v.pressure_max for v in scales.values()),
    )
    return MappingProxyType(scales)


#: Contention scales of the ``gavel-fitted`` interference preset (κ = 1.5, ε = 0.05).
GAVEL_CONTENTION_SCALES = _gavel_contention_scales()


def profile_from_testbed(
    name: str, entry: TestbedEntry, alpha_share: float = ALPHA_SHARE
) -> ModelProfile:
    """Build a :class:`ModelProfile` from a testbed entry and the stated assumptions.

    ``alpha_share`` is the share of the 1-GPU step that is fixed per micro-batch (default
    :data:`ALPHA_SHARE`); beta takes the rest, so the full-batch step is the testbed's.
    """
    alpha = alpha_share * entry.step_1gpu_s
    beta = (entry.step_1gpu_s - alpha) / entry.batch
    mem_gb = entry.memory_mb / 1000.0
    return ModelProfile(
        name=name,
        alpha_s=alpha,
        beta_s=beta,
        grad_gb=entry.allreduce_2gpu_s * CALIBRATION_BW_GBPS,
        mem_fixed_gb=MEM_FIXED_SHARE * mem_gb,
        mem_per_sample_gb=(1.0 - MEM_FIXED_SHARE) * mem_gb / entry.batch,
        u_max=entry.u_max,
    )


def _default_catalog(alpha_share: float = ALPHA_SHARE) -> Mapping[str, ModelProfile]:
    return MappingProxyType(
        {k: profile_from_testbed(k, v, alpha_share) for k, v in TESTBED.items()}
    )


_CATALOGS: dict[str, Mapping[str, ModelProfile]] = {"default": _default_catalog()}

#: Per-GPU batch each default model trains with (the testbed setting).
DEFAULT_BATCH: Mapping[str, int] = MappingProxyType({k: v.batch for k, v in TESTBED.items()})

#: A parametric catalog name: ``BASE:alpha=X``, X a plain decimal number (``0.15``, ``1e-2``).
_PARAMETRIC = re.compile(
    r"(?P<base>[^:]*):alpha=(?P<alpha>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"
)
#: The catalogs that take an alpha parameter.
_ALPHA_BASES = ("default",)


class CatalogError(KeyError, ValueError):
    """An unknown or malformed catalog name (a :class:`KeyError`, as an unknown name always was,
    and a :class:`ValueError`); the message names the catalog."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def catalog_name(alpha: float, base: str = "default") -> str:
    """The parametric catalog name of ``base`` with alpha share ``alpha`` (``default:alpha=0.15``).

    Raises
    ------
    CatalogError
        If ``base`` takes no alpha or ``alpha`` is out of range.
    """
    value = float(alpha) + 0.0  # -0.0 -> 0.0
    if not 0.0 <= value <= MAX_ALPHA_SHARE:  # NaN fails too
        raise CatalogError(
            f"alpha must be between 0 and {MAX_ALPHA_SHARE:g} (a share of the 1-GPU step), "
            f"got {alpha!r}"
        )
    name = f"{base}:alpha={value!r}"
    get_catalog(name)  # checks the base, and builds it once
    return name


def get_catalog(name: str) -> Mapping[str, ModelProfile]:
    """The catalog called ``name``: ``default``, or ``default:alpha=X`` (docs/model.md §2).

    ``default:alpha=X`` is the default catalog with the alpha share X in
    ``[0, MAX_ALPHA_SHARE]`` (:data:`MAX_ALPHA_SHARE` = 0.5) instead of :data:`ALPHA_SHARE`; each
    name is built once and cached. ``default`` is always the same object.

    Raises
    ------
    CatalogError
        (a :class:`KeyError` and a :class:`ValueError`) If no such catalog exists or a
        parametric name is malformed or out of range; the message names it.
    """
    try:
        return _CATALOGS[name]
    except KeyError:
        pass
    except TypeError:  # unhashable
        raise CatalogError(f"catalog name must be a string, got {name!r}") from None
    if not isinstance(name, str):
        raise CatalogError(f"catalog name must be a string, got {name!r}")
    return _parametric_catalog(name)


@functools.lru_cache(maxsize=256)
def _parametric_catalog(name: str) -> Mapping[str, ModelProfile]:
    known = (
        f"known: {', '.join(sorted(_CATALOGS))}, or "
        f"{'|'.join(_ALPHA_BASES)}:alpha=X with 0 <= X <= {MAX_ALPHA_SHARE:g}"
    )
    if ":" not in name:
        raise CatalogError(f"unknown catalog {name!r}; {known}")
    match = _PARAMETRIC.fullmatch(name)
    if match is None:
        raise CatalogError(f"malformed catalog name {name!r}; {known}")
    base, alpha = match["base"], float(match["alpha"])
    if base not in _ALPHA_BASES:
        raise CatalogError(f"unknown catalog {base!r} in {name!r}; {known}")
    if not 0.0 <= alpha <= MAX_ALPHA_SHARE:
        raise CatalogError(
            f"catalog {name!r}: alpha must be between 0 and {MAX_ALPHA_SHARE:g} "
            f"(a share of the 1-GPU step), got {match['alpha']}"
        )
    return _default_catalog(alpha)


def generic_profile(catalog: Mapping[str, ModelProfile]) -> ModelProfile:
    """Profile of duration-only jobs: median memory and contention of ``catalog``.

    No sub-batch options (s = 1) and no all-reduce term; its step time is the job's duration.
    """
    mem = statistics.median(
        p.mem_fixed_gb + p.mem_per_sample_gb * DEFAULT_BATCH.get(p.name, 1)
        for p in catalog.values()
    )
    u_max = statistics.median(p.u_max for p in catalog.values())
    return ModelProfile(
        name="generic",
        alpha_s=0.0,
        beta_s=0.0,
        grad_gb=0.0,
        mem_fixed_gb=mem,
        mem_per_sample_gb=0.0,
        u_max=u_max,
        accumulation=(1,),
        generic=True,
    )
