"""Exact formulations of the scheduling decisions (docs/formulations.md): the round model (one
decision's pairing and sub-batch choice) and the offline model (whole small instances), each with
a MILP (PuLP: HiGHS, CBC) and a CP-SAT (OR-Tools) backend.

The public API, loaded on first use (PEP 562)::

    import formulations as fm

    small = fm.suite_instance("n6-g4-all-a")         # a suite instance, from any folder
    result = fm.solve_offline(small, dt=60.0)        # an OfflineResult; fm.SolveStatus
    result.rescore()                                 # the schedule simulated again
    gap = result.policy_gap("sjf")                   # sjf's gap interval: gap.low, gap.high
    assignment = fm.solve_round(problem)             # a round problem solved exactly

The ``exact-round`` policy (:func:`formulations.policy.exact_round`) is declared under the
``sjfbsbf.policies`` entry-point group, so the policy registry finds it without importing this
package until it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from formulations.offline import OfflineResult, solve_offline
    from formulations.offline.gap import PolicyGap, gap_interval
    from formulations.offline.suite import load_suite
    from formulations.offline.suite_files import suite_dir, suite_instance
    from formulations.policy import ExactRound, exact_round
    from formulations.result import SolveResult, SolveStatus
    from formulations.round import RoundHost, RoundJob, RoundProblem
    from formulations.round import solve as solve_round

#: Public name -> module (or module:attribute), imported on first use.
_EXPORTS = {
    "solve_offline": "formulations.offline",
    "OfflineResult": "formulations.offline",
    "PolicyGap": "formulations.offline.gap",
    "gap_interval": "formulations.offline.gap",
    "load_suite": "formulations.offline.suite",
    "suite_dir": "formulations.offline.suite_files",
    "suite_instance": "formulations.offline.suite_files",
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
    "OfflineResult",
    "PolicyGap",
    "RoundHost",
    "RoundJob",
    "RoundProblem",
    "SolveResult",
    "SolveStatus",
    "exact_round",
    "gap_interval",
    "load_suite",
    "solve_offline",
    "solve_round",
    "suite_dir",
    "suite_instance",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
