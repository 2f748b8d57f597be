"""What the policies believe: a duration estimator and an interference belief (docs/model.md §4.1).

:class:`Beliefs` names both (``simulate(..., beliefs=Beliefs("lognormal:sigma=1"))``,
``--estimator`` / ``--interference-belief``, a sweep's ``[sim] estimator`` and
``interference_belief``). The world (simulator, feasibility checker) keeps the truth; the policies'
view (:class:`~sjfbsbf.sim.view.ClusterView`) answers from the beliefs. Under ``oracle`` for both
the view calls the world's own methods, so results are bit-identical to a run without beliefs.

Interference beliefs (:data:`INTERFERENCE_BELIEFS`): ``oracle`` (the world's model), a preset
(``time-slicing``, ``mps``, ``gavel-fitted``, ``gavel-measured``: the profiler's model may be
wrong), or ``noisy:sigma=S[,seed=K][,base=B]``: the contention model ``B`` (default ``world``:
the world's own when it is a contention model, else ``gavel-fitted``) with every model's
sensitivity and pressure scale multiplied by exp(S·Z), Z from a stream keyed by (K, model name).
Whether a pair may share at all is not a belief: the view gives the world's sharing rule.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sjfbsbf.core.interference import ContentionModel, Interference
from sjfbsbf.core.interference_noisy import noisy_contention
from sjfbsbf.core.presets import DATA_PRESETS, INTERFERENCE_PRESETS, make_interference
from sjfbsbf.core.profile import ModelProfile
from sjfbsbf.sim.estimators import (
    ESTIMATORS,
    MAX_SIGMA,
    ParamRule,
    Spec,
    choice_param,
    number_param,
    parse_estimator,
    parse_spec,
    seed_param,
)

#: Contention presets a ``noisy`` belief may start from (``world``: the world's own model).
NOISY_BASES = ("world", "time-slicing", "mps", "gavel-fitted")

#: Interference belief name -> its parameters.
INTERFERENCE_BELIEFS: Mapping[str, Mapping[str, ParamRule]] = MappingProxyType(
    {
        "oracle": {},
        **{name: {} for name in INTERFERENCE_PRESETS},
        "noisy": {
            "sigma": ParamRule(number_param(0.0, MAX_SIGMA), None, "log-scale error σ"),
            "seed": ParamRule(seed_param, -1, "stream key K (default: the run's seed)"),
            "base": ParamRule(choice_param(*NOISY_BASES), "world", "the model the errors apply to"),
        },
    }
)


def parse_interference_belief(text: str) -> Spec:
    """:func:`~sjfbsbf.sim.estimators.parse_spec` of an interference belief."""
    return parse_spec(text, INTERFERENCE_BELIEFS, "interference belief")


def canonical_interference_belief(text: str) -> str:
    """The canonical text of an interference belief (defaults left out), as run keys hold it."""
    spec = parse_interference_belief(text)
    return spec.text(INTERFERENCE_BELIEFS[spec.name])


@dataclass(frozen=True)
class Beliefs:
    """What the policies believe (docs/model.md §4.1).

    Parameters
    ----------
    estimator
        Duration estimator, ``NAME[:KEY=VALUE,...]`` (:data:`~sjfbsbf.sim.estimators.ESTIMATORS`).
    interference
        Interference belief, ``NAME[:KEY=VALUE,...]`` (:data:`INTERFERENCE_BELIEFS`), or an
        interference model object.
    seed
        Stream key K of ``lognormal`` and ``noisy`` when their specification gives none.
    throughputs
        Gavel's throughput table, for a ``gavel-measured`` belief (a path).

    Raises
    ------
    ValueError
        In one line, for an unknown name, parameter or value, or ``throughputs`` without a
        belief that reads it.
    """

    estimator: str = "oracle"
    interference: str | Interference = "oracle"
    seed: int = 0
    throughputs: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        parse_estimator(self.estimator)
        if isinstance(self.interference, str):
            name = parse_interference_belief(self.interference).name
            if self.throughputs is not None and name not in DATA_PRESETS:
                raise ValueError(
                    f"interference belief {name!r} reads no throughput table "
                    f"(only {', '.join(sorted(DATA_PRESETS))} does)"
                )
        elif not isinstance(self.interference, Interference):
            raise ValueError(
                f"interference belief must be a text or an interference model, "
                f"got {type(self.interference).__name__}"
            )
        if not (isinstance(self.seed, int) and 0 <= self.seed <= 2**63 - 1):
            raise ValueError(f"beliefs seed must be a whole number >= 0, got {self.seed!r}")

    @property
    def estimator_spec(self) -> Spec:
        """The parsed estimator (defaults filled in)."""
        return parse_estimator(self.estimator)

    @property
    def is_oracle(self) -> bool:
        """Whether both the durations and the interference are believed as they are."""
        return self.estimator_spec.is_oracle and self.interference_is_oracle

    @property
    def interference_is_oracle(self) -> bool:
        """Whether the interference belief is the world's model."""
        return (
            isinstance(self.interference, str)
            and parse_interference_belief(self.interference).is_oracle
        )

    def label(self) -> str:
        """``estimator=…, interference belief=…`` in canonical texts (for reports)."""
        spec = self.estimator_spec
        belief = (
            canonical_interference_belief(self.interference)
            if isinstance(self.interference, str)
            else type(self.interference).__name__
        )
        return f"estimator={spec.text(ESTIMATORS[spec.name])}, interference belief={belief}"

    def short_label(self) -> str:
        """Only what is not ``oracle``, in canonical text (``oracle`` if nothing is)."""
        parts = [p for p in self.label().split(", ") if not p.endswith("=oracle")]
        return ", ".join(parts) if parts else "oracle"


#: The clairvoyant default: the truth for both.
ORACLE = Beliefs()


def believed_interference(
    beliefs: Beliefs, world: Interference, profiles: Iterable[ModelProfile]
) -> Interference:
    """The interference model the policies consult under ``beliefs`` (the world's under
    ``oracle``); ``profiles``: those whose models may occur (for a ``noisy`` belief)."""
    given = beliefs.interference
    if not isinstance(given, str):
        return given
    spec = parse_interference_belief(given)
    if spec.is_oracle:
        return world
    if spec.name in INTERFERENCE_PRESETS:
        return make_interference(spec.name, throughputs=beliefs.throughputs)
    base_name = str(spec.get("base"))
    if base_name == "world":
        base = world if isinstance(world, ContentionModel) else make_interference("gavel-fitted")
    else:
        base = make_interference(base_name)
    assert isinstance(base, ContentionModel)
    key = int(spec.get("seed"))
    return noisy_contention(
        base, profiles, float(spec.get("sigma")), beliefs.seed if key < 0 else key
    )
