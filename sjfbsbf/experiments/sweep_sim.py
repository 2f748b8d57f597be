"""A sweep's ``[sim]`` keys (docs/model.md §9): simulator options, the model's constants and the
policies' beliefs, checked when the sweep is loaded; and how a run applies them.

* ``dt``, ``interval``, ``restart_overhead``, ``interference`` (defaults filled in), and
  ``throughputs`` for a preset that reads Gavel's table (the world's or the belief's);
* ``alpha``, ``kappa``, ``eps`` (:mod:`sjfbsbf.experiments.constants`) and ``estimator``,
  ``interference_belief`` (docs/model.md §4.1): present in a run's configuration only when
  given (beliefs: only when not ``oracle``), so a sweep without them keeps its run keys. The
  beliefs' stream key K is the run's seed.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from sjfbsbf.core.catalog import MAX_ALPHA_SHARE
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.presets import DATA_PRESETS, INTERFERENCE_PRESETS, make_interference
from sjfbsbf.experiments.constants import ConstantError, check_interference_constants
from sjfbsbf.experiments.sweep_params import Param, ParamError, data_file, number, text
from sjfbsbf.sim.beliefs import Beliefs, canonical_interference_belief
from sjfbsbf.sim.estimators import canonical_estimator
from sjfbsbf.sim.simulator import check_sim_parameters, simulate
from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS, resolve_data_path

_DEFAULTS = inspect.signature(simulate).parameters
#: The beliefs' keys (absent when ``oracle``).
BELIEF_KEYS = ("estimator", "interference_belief")


def belief_text(canonical: Callable[[str], str]) -> Callable[[Any], str]:
    """Checker of a belief specification ``NAME[:KEY=VALUE,...]``: its canonical text."""

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f"must be a text NAME[:KEY=VALUE,...], got {value!r}")
        return canonical(value)

    return check


#: The ``[sim]`` keys.
SIM_PARAMS: Mapping[str, Param] = {
    "dt": Param(number(), default=float(_DEFAULTS["dt"].default)),
    "interval": Param(number(), default=float(_DEFAULTS["interval"].default)),
    "restart_overhead": Param(
        number(strict=False), default=float(_DEFAULTS["restart_overhead"].default)
    ),
    "interference": Param(text(*INTERFERENCE_PRESETS), default="time-slicing"),
    # Gavel's table for a data preset (gavel-measured); filled in only for those (sim_files).
    "throughputs": Param(data_file, is_file=True),
    # The model's constants: alpha the catalog default:alpha=X; kappa, eps the contention
    # model's (refused with a measured table).
    "alpha": Param(number(0.0, MAX_ALPHA_SHARE, strict=False)),
    "kappa": Param(number(strict=False)),
    "eps": Param(number(strict=False)),
    "estimator": Param(belief_text(canonical_estimator)),
    "interference_belief": Param(belief_text(canonical_interference_belief)),
}


def _belief_reads_table(sim: Mapping[str, Any]) -> bool:
    return str(sim.get("interference_belief", "oracle")).partition(":")[0] in DATA_PRESETS


def run_sim_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """A run's ``[sim]`` configuration: defaults filled in, ``oracle`` beliefs left out, a
    throughputs file only with a preset (world or belief) that reads one (its default then).

    Raises
    ------
    ParamError
        Naming the key: ``throughputs`` that nothing reads, what :func:`simulate` would refuse
        (``dt > interval``: key ``sim``), ``kappa`` / ``eps`` with a measured table.
    """
    sim = {k: p.default for k, p in SIM_PARAMS.items() if p.default is not None} | dict(given)
    for key in BELIEF_KEYS:
        if sim.get(key) == "oracle":
            del sim[key]
    if sim["interference"] in DATA_PRESETS or _belief_reads_table(sim):
        sim.setdefault("throughputs", DEFAULT_THROUGHPUTS)
    elif "throughputs" in sim:
        raise ParamError(
            "throughputs",
            f"only applies to interference (or interference_belief) "
            f"{', '.join(map(repr, sorted(DATA_PRESETS)))}, not {sim['interference']!r}",
        )
    try:  # what simulate() would refuse, e.g. dt > interval (docs/model.md §4)
        check_sim_parameters(sim["dt"], sim["interval"], sim["restart_overhead"])
    except ValueError as exc:
        raise ParamError("", str(exc)) from None
    try:  # kappa / eps only for a contention model (not gavel-measured)
        check_interference_constants(sim["interference"], kappa="kappa" in sim, eps="eps" in sim)
    except ConstantError as exc:
        raise ParamError(exc.key, exc.reason) from None
    return sim


def sim_models(sim: dict[str, Any], seed: int) -> tuple[Interference, Beliefs | None]:
    """Pop the interference and belief keys off a run's ``[sim]`` options: the world's
    interference model and the beliefs (``None`` under ``oracle``, K = ``seed``)."""
    name = str(sim.pop("interference", "time-slicing"))
    table = sim.pop("throughputs", None)
    estimator = str(sim.pop("estimator", "oracle"))
    belief = str(sim.pop("interference_belief", "oracle"))
    belief_reads = belief.partition(":")[0] in DATA_PRESETS
    if table is None and (name in DATA_PRESETS or belief_reads):
        table = DEFAULT_THROUGHPUTS
    path = None if table is None else resolve_data_path(str(table))
    # The world reads the table when it is a data preset; given to any other world and read by
    # no belief, make_interference refuses it ("reads no data file"), never ignores it.
    world_table = path if name in DATA_PRESETS or not belief_reads else None
    interference = make_interference(name, throughputs=world_table)
    if estimator == "oracle" and belief == "oracle":
        return interference, None
    belief_table = path if belief_reads else None
    return interference, Beliefs(estimator, belief, seed, belief_table)
