"""The offline MILP's objective: average JCT (s) from the last slot and its used share.

See docs/formulations.md §2.3.
"""

from __future__ import annotations

import pulp

from formulations.offline.data import OfflineData
from formulations.offline.milp.variables import Expr, MilpVars


def total_finish(data: OfflineData, v: MilpVars) -> Expr:
    """Σ_j finish time (s) = dt · (last slot + share of it used)."""
    return pulp.lpSum(
        data.dt * (pulp.lpSum(t * v.e[i, t] for t in job.end_slots) + v.frac[i])
        for i, job in enumerate(data.jobs)
    )


def set_objective(prob: pulp.LpProblem, data: OfflineData, v: MilpVars) -> None:
    """Minimise the average JCT (s): (Σ finish − Σ arrival) / n."""
    prob += (total_finish(data, v) - data.arrival_total) / len(data.jobs)
