"""The LP relaxation of the offline MILP, with its valid inequalities (docs/formulations.md
§2.10): every binary relaxed to [0, 1]; its optimum bounds the model's optimum from below."""

from __future__ import annotations

import pulp

from formulations.bounds.relaxation import RelaxationBound
from formulations.engines import EngineOptions
from formulations.engines import milp as engine
from formulations.offline.data import OfflineData
from formulations.result import SolveStatus


def lp_bound(data: OfflineData, *, time_limit: float | None = 10.0) -> RelaxationBound:
    """Solve the offline MILP's LP relaxation on HiGHS (``bound``: its optimum, average JCT, s).

    The model is built with its reductions (windows, the heuristic's bound): like the model,
    the bound holds for every schedule at least as good as the heuristic's.
    """
    if data.infeasible is not None:
        return RelaxationBound(SolveStatus.INFEASIBLE, None, 0.0)
    from formulations.offline.milp.solve import build  # the offline package imports bounds

    prob, _ = build(data)
    for variable in prob.variables():
        variable.cat = pulp.LpContinuous
    run = engine.solve(prob, EngineOptions(time_limit=time_limit, workers=1), backend="highs")
    bound = run.objective if run.status is SolveStatus.OPTIMAL else run.bound
    return RelaxationBound(run.status, bound, run.runtime_s)
