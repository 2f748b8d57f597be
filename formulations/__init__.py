"""Exact formulations of the scheduling decisions (docs/formulations.md): the round model (one
decision's pairing and sub-batch choice) and the offline model (whole small instances), each with
a MILP (PuLP: HiGHS, CBC) and a CP-SAT (OR-Tools) backend.

The public API, loaded on first use (PEP 562)::

    import formulations as fm

    result = fm.solve_offline(instance, dt=60.0)   # an offline result; fm.SolveStatus
    assignment = fm.solve_round(problem)            # a round problem solved exactly

The ``exact-round`` policy (:func:`formulations.policy.exact_round`) is declared under the
``sjfbsbf.policies`` entry-point group, so the policy registry finds it without importing this
package until it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from formulations.offline import solve_offline
    from formulations.policy import ExactRound, exact_round
    from formulations.result import SolveResult, SolveStatus
    from formulations.round import RoundHost, RoundJob, RoundProblem
    from formulations.round import solve as solve_round

#: Public name -> (module, attribute), imported on first use.
_EXPORTS = {
    "solve_offline": ("formulations.offline", "solve_offline"),
    "solve_round": ("formulations.round", "solve"),
    "SolveResult": ("formulations.result", "SolveResult"),
    "SolveStatus": ("formulations.result", "SolveStatus"),
    "RoundHost": ("formulations.round", "RoundHost"),
    "RoundJob": ("formulations.round", "RoundJob"),
    "RoundProblem": ("formulations.round", "RoundProblem"),
    "ExactRound": ("formulations.policy", "ExactRound"),
    "exact_round": ("formulations.policy", "exact_round"),
}

__all__ = [
    "ExactRound",
    "RoundHost",
    "RoundJob",
    "RoundProblem",
    "SolveResult",
    "SolveStatus",
    "exact_round",
    "solve_offline",
    "solve_round",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
