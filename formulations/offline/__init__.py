"""The offline model: the whole schedule of a small instance, time-indexed (DESIGN §4.2).

``solve_offline(instance, solver="cpsat" | "milp" | "brute", dt=..., time_limit=...)`` returns a
:class:`~formulations.result.SolveResult` whose solution is a schedule for the ``planned``
policy; see docs/formulations.md, "Offline model".
"""

from formulations.offline.data import OfflineData
from formulations.offline.preprocess import preprocess
from formulations.offline.replay import replay
from formulations.offline.solve import DEFAULT_DT, SOLVERS, objective_tolerance, solve_offline

__all__ = [
    "DEFAULT_DT",
    "SOLVERS",
    "OfflineData",
    "objective_tolerance",
    "preprocess",
    "replay",
    "solve_offline",
]
