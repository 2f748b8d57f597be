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

from typing import TYPE_CHECKING

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from formulations.offline import solve_offline
    from formulations.policy import ExactRound, exact_round
    from formulations.result import SolveResult, SolveStatus
    from formulations.round import RoundHost, RoundJob, RoundProblem
    from formulations.round import solve as solve_round

#: Public name -> module (or module:attribute), imported on first use.
_EXPORTS = {
    "solve_offline": "formulations.offline",
    "solve_round": "formulations.round:solve",
    "SolveResult": "formulations.result",
    "SolveStatus": "formulations.result",
    "RoundHost": "formulations.round",
    "RoundJob": "formulations.round",
    "RoundProblem": "formulations.round",
    "ExactRound": "formulations.policy",
    "exact_round": "formulations.policy",
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
