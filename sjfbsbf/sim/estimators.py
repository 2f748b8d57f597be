"""Duration estimators: what a policy believes about how long a job is (docs/model.md §4.1).

An estimator gives every job a believed exclusive duration E'_j (s, at the full batch on the
fewest nodes); the belief view (:class:`~sjfbsbf.sim.view.ClusterView`) turns it into believed
work and believed times. The registry :data:`ESTIMATORS` lists each one once with its
parameters; a specification is a text ``NAME[:KEY=VALUE,...]`` (``lognormal:sigma=1,seed=3``),
parsed by :func:`parse_spec` and checked against the registry, so a bad name or parameter is
refused in one line before anything runs.

* ``oracle``: the truth (the belief view then calls the world's own methods: identical floats).
* ``lognormal:sigma=S[,seed=K]``: E'_j = E_j · exp(S · Z_j), Z_j standard normal from a random
  stream keyed by (K, job id) only, so every policy faces the same errors and adding a job does
  not change the others'.
* ``history[:q=Q,prior=P,by=vc|user]``: the Q-quantile (default the median) of the exclusive
  durations of the jobs that have *finished*, with the same model and GPU count, falling back to
  the same GPU count, then to every finished job, then to the prior P (s, default 3,600); with
  ``by``, a first level keyed by the job's VC or user as well.
* ``user``: the job's own ``estimate`` field (s); refused when a job has none.

The estimators are part of the simulated world (they may read the truth a predictor would have:
the true durations to perturb, a finished job's length); policies only see their output.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Instance

#: Seed-sequence tag of the duration-estimate stream (the interference noise uses another).
DURATION_STREAM = 0
#: Largest ``sigma`` of a lognormal error (exp(5·Z) already spans 10^±10 at |Z| = 4.6).
MAX_SIGMA = 5.0
#: Default prior of ``history`` (s): the belief before any job of any key has finished.
HISTORY_PRIOR_S = 3600.0
#: Largest seed (NumPy seed sequences take any non-negative integer; bounded for run keys).
MAX_SEED = 2**63 - 1

Value = float | int | str


@dataclass(frozen=True, slots=True)
class ParamRule:
    """One parameter of a named estimator or belief: how to read it and its default."""

    read: Callable[[str], Value]
    default: Value | None
    help: str


@dataclass(frozen=True, slots=True)
class NumberParam:
    """Reads a number in ``[low, high]`` (an end open when ``open_low`` / ``open_high``)."""

    low: float
    high: float
    open_low: bool = False
    open_high: bool = False

    def __call__(self, text: str) -> float:
        """The number ``text`` spells, if it is finite and in range."""
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"must be a number, got {text!r}") from None
        below = value <= self.low if self.open_low else value < self.low
        above = value >= self.high if self.open_high else value > self.high
        if not math.isfinite(value) or below or above:
            left = "(" if self.open_low else "["
            right = ")" if self.open_high else "]"
            raise ValueError(f"must be in {left}{self.low:g}, {self.high:g}{right}, got {text}")
        return value


def number_param(
    low: float, high: float, *, open_low: bool = False, open_high: bool = False
) -> Callable[[str], float]:
    """A reader of a number in ``[low, high]`` (:class:`NumberParam`)."""
    return NumberParam(low, high, open_low, open_high)


def seed_param(text: str) -> int:
    """Reads a stream key: a whole number 0 … 2^63 − 1 written in digits."""
    if not text.isdigit() or int(text) > MAX_SEED:
        raise ValueError(f"must be a whole number 0 … 2^63 − 1, got {text!r}")
    return int(text)


@dataclass(frozen=True, slots=True)
class ChoiceParam:
    """Reads one of ``names``."""

    names: tuple[str, ...]

    def __call__(self, text: str) -> str:
        """``text``, if it is one of the names."""
        if text not in self.names:
            raise ValueError(f"must be one of {', '.join(self.names)}, got {text!r}")
        return text


def choice_param(*names: str) -> Callable[[str], str]:
    """A reader of one of ``names`` (:class:`ChoiceParam`)."""
    return ChoiceParam(tuple(names))


#: Estimator name -> its parameters (``default=None``: required; ``seed`` defaults to the run's).
ESTIMATORS: Mapping[str, Mapping[str, ParamRule]] = MappingProxyType(
    {
        "oracle": {},
        "lognormal": {
            "sigma": ParamRule(number_param(0.0, MAX_SIGMA), None, "log-scale error σ"),
            "seed": ParamRule(seed_param, -1, "stream key K (default: the run's seed)"),
        },
        "history": {
            "q": ParamRule(
                number_param(0.0, 1.0, open_low=True, open_high=True), 0.5, "the quantile"
            ),
            "prior": ParamRule(
                number_param(0.0, 1e12, open_low=True), HISTORY_PRIOR_S, "belief, no history (s)"
            ),
            "by": ParamRule(choice_param("none", "vc", "user"), "none", "extra first key level"),
        },
        "user": {},
    }
)


@dataclass(frozen=True, slots=True)
class Spec:
    """A parsed ``NAME[:KEY=VALUE,...]``: the name and every parameter (defaults filled in)."""

    name: str
    params: tuple[tuple[str, Value], ...] = ()

    def get(self, key: str) -> Value:
        """The value of parameter ``key``."""
        return dict(self.params)[key]

    def __str__(self) -> str:
        """Canonical text: the name, then the parameters that differ from their defaults."""
        return self.text()

    def text(self, defaults: Mapping[str, ParamRule] | None = None) -> str:
        """Canonical text, leaving out parameters equal to their ``defaults``."""
        shown = [
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in self.params
            if defaults is None or defaults[k].default != v
        ]
        return self.name + (":" + ",".join(shown) if shown else "")

    @property
    def is_oracle(self) -> bool:
        """Whether this is ``oracle``."""
        return self.name == "oracle"


def parse_spec(
    text: str, registry: Mapping[str, Mapping[str, ParamRule]], what: str = "estimator"
) -> Spec:
    """Parse ``NAME[:KEY=VALUE,...]`` against ``registry`` (defaults filled in).

    Raises
    ------
    ValueError
        One line naming ``what``, the name and the parameter: an unknown name (the known ones
        listed), an unknown, repeated or missing parameter, or a value out of range.
    """
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a text NAME[:KEY=VALUE,...], got {text!r}")
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    if name not in registry:
        raise ValueError(f"unknown {what} {name!r}; choose from {', '.join(registry)}")
    rules = registry[name]
    given: dict[str, Value] = {}
    for part in rest.split(",") if rest.strip() else ():
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise ValueError(f"{what} {name!r}: expected KEY=VALUE, got {part.strip()!r}")
        if key not in rules:
            allowed = ", ".join(rules) or "none"
            raise ValueError(f"{what} {name!r}: unknown parameter {key!r} (allowed: {allowed})")
        if key in given:
            raise ValueError(f"{what} {name!r}: parameter {key!r} given twice")
        try:
            given[key] = rules[key].read(value)
        except ValueError as exc:
            raise ValueError(f"{what} {name!r}: {key} {exc}") from None
    params = []
    for key, rule in rules.items():
        if key in given:
            params.append((key, given[key]))
        elif rule.default is None:
            raise ValueError(f"{what} {name!r} needs {key}=… ({rule.help})")
        else:
            params.append((key, rule.default))
    return Spec(name, tuple(params))


def parse_estimator(text: str) -> Spec:
    """:func:`parse_spec` of a duration estimator (:data:`ESTIMATORS`)."""
    return parse_spec(text, ESTIMATORS, "estimator")


def canonical_estimator(text: str) -> str:
    """The canonical text of an estimator specification (defaults left out): what run keys
    hold, so ``lognormal:sigma=1.0`` and ``lognormal:sigma=1`` are one run."""
    return parse_estimator(text).text(ESTIMATORS[parse_estimator(text).name])


class DurationEstimator(Protocol):
    """A job-length predictor at run time (one per simulation).

    Attributes
    ----------
    version
        Bumped whenever a believed duration changes (``history`` learning from a finished job);
        fixed for the static estimators.
    """

    version: int

    def believed(self, indices: np.ndarray) -> np.ndarray:
        """E'_j (s) of the jobs at these internal indices."""
        ...

    def learn(self, finished: Sequence[int]) -> None:
        """The jobs at these internal indices have just finished (in this order)."""
        ...


class StaticEstimate:
    """Believed durations fixed for the whole run (``lognormal``, ``user``)."""

    version = 0

    def __init__(self, values: np.ndarray) -> None:
        self._values = values

    def believed(self, indices: np.ndarray) -> np.ndarray:
        """E'_j (s) of the jobs at these internal indices."""
        return self._values[indices]

    def learn(self, finished: Sequence[int]) -> None:
        """Nothing to learn."""


def lognormal_factors(job_ids: Sequence[int], sigma: float, seed: int) -> np.ndarray:
    """exp(σ·Z_j) per job, Z_j from the stream keyed by (``seed``, job id) alone."""
    z = np.array(
        [
            np.random.default_rng([seed, DURATION_STREAM, job_id]).standard_normal()
            for job_id in job_ids
        ],
        dtype=float,
    )
    return np.exp(sigma * z)


def quantile_sorted(values: Sequence[float], q: float) -> float:
    """The q-quantile of sorted ``values``, linearly interpolated (NumPy's default rule)."""
    pos = q * (len(values) - 1)
    low = math.floor(pos)
    if low + 1 >= len(values):
        return float(values[-1])
    return float(values[low] + (values[low + 1] - values[low]) * (pos - low))


class History:
    """Online predictor from finished jobs only (``history``): docs/model.md §4.1.

    Each job has a chain of keys, most specific first: ``(by-value, model, GPUs)`` when ``by``
    is ``vc`` or ``user``, then ``(model, GPUs)``, ``(GPUs,)`` and ``()`` (every job). Its belief
    is the ``q``-quantile of the exclusive durations of the finished jobs of the first key in its
    chain that has any, else ``prior``. A job is learnt only when it finishes.
    """

    def __init__(
        self, instance: Instance, exclusive: np.ndarray, q: float, prior: float, by: str
    ) -> None:
        self.version = 0
        self._q = q
        self._exclusive = exclusive
        chains: list[tuple[tuple[Any, ...], ...]] = []
        for job in instance.jobs:
            chain: list[tuple[Any, ...]] = []
            if by != "none":
                chain.append((0, getattr(job, by), job.model, job.gpus))
            chain += [(1, job.model, job.gpus), (2, job.gpus), (3,)]
            chains.append(tuple(chain))
        distinct = sorted(set(chains), key=repr)
        number = {chain: g for g, chain in enumerate(distinct)}
        self._chains = distinct
        self._group = np.array([number[c] for c in chains], dtype=np.int64)
        self._job_chain = chains
        self._by_key: dict[tuple[Any, ...], list[int]] = {}  # key -> groups whose chain has it
        for g, keys in enumerate(distinct):
            for key in keys:
                self._by_key.setdefault(key, []).append(g)
        self._seen: dict[tuple[Any, ...], list[float]] = {}  # key -> sorted finished durations
        self._level = np.full(len(distinct), len(distinct[0]) if distinct else 0, dtype=np.int64)
        self._pred = np.full(len(distinct), prior, dtype=float)

    def believed(self, indices: np.ndarray) -> np.ndarray:
        """E'_j (s) of the jobs at these internal indices."""
        return self._pred[self._group[indices]]

    def learn(self, finished: Sequence[int]) -> None:
        """Add each finished job's exclusive duration to every key of its chain; update the
        beliefs of the groups that read one of those keys."""
        for i in finished:
            value = float(self._exclusive[i])
            for level, key in enumerate(self._job_chain[i]):
                insort(self._seen.setdefault(key, []), value)
                for g in self._by_key[key]:
                    if self._level[g] >= level:  # it reads this key or a coarser one
                        self._update(g)
            self.version += 1

    def _update(self, g: int) -> None:
        for level, key in enumerate(self._chains[g]):
            values = self._seen.get(key)
            if values:
                self._level[g] = level
                self._pred[g] = quantile_sorted(values, self._q)
                return


def make_estimator(
    spec: Spec, instance: Instance, exclusive: np.ndarray, seed: int
) -> DurationEstimator | None:
    """The run-time estimator of ``spec`` (``None`` for ``oracle``) for one simulation.

    ``exclusive``: the true exclusive durations by internal index (the world's); ``seed``: the
    stream key K when the specification gives none.

    Raises
    ------
    InstanceError
        For ``user`` on an instance where a job has no ``estimate`` (naming the job).
    """
    if spec.name == "oracle":
        return None
    if spec.name == "lognormal":
        key = int(spec.get("seed"))
        factors = lognormal_factors(
            [job.id for job in instance.jobs], float(spec.get("sigma")), seed if key < 0 else key
        )
        return StaticEstimate(exclusive * factors)
    if spec.name == "history":
        return History(
            instance,
            exclusive,
            float(spec.get("q")),
            float(spec.get("prior")),
            str(spec.get("by")),
        )
    assert spec.name == "user"
    for job in instance.jobs:
        if job.estimate is None:
            raise InstanceError(
                "missing: the 'user' estimator reads every job's estimate",
                row=job.id,
                field="estimate",
            )
    return StaticEstimate(np.array([job.estimate for job in instance.jobs], dtype=float))
