"""The offline model: a small instance's whole schedule, time-indexed (docs/formulations.md §2).

``solve_offline(instance, solver="cpsat" | "milp" | "brute", dt=..., time_limit=...)`` returns an
:class:`~formulations.offline.result.OfflineResult`: a ``schedule`` for the ``planned`` policy,
its simulated average JCT (``replayed_avg_jct``), the model's value of it (``objective``) and a
lower bound (``bound``), §2.9.
"""

from formulations.offline.data import OfflineData
from formulations.offline.preprocess import preprocess
from formulations.offline.replay import replay
from formulations.offline.result import OfflineResult
from formulations.offline.solve import DEFAULT_DT, SOLVERS, objective_tolerance, solve_offline

__all__ = [
    "DEFAULT_DT",
    "SOLVERS",
    "OfflineData",
    "OfflineResult",
    "objective_tolerance",
    "preprocess",
    "replay",
    "solve_offline",
]
