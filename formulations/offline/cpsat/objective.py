"""The offline CP-SAT model's objective: Σ_j finish time in units of dt / F.

See docs/formulations.md §2.3 (objective) and §2.5 (the time unit dt / F).
"""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from formulations.offline.cpsat.variables import CpVars
from formulations.offline.data import OfflineData


def total_units(data: OfflineData, v: CpVars) -> Any:
    """Σ_j finish time in units of dt / F."""
    units = data.time_units_per_slot
    return sum(
        units * sum(t * v.e[i, t] for t in job.end_slots) + v.frac[i]
        for i, job in enumerate(data.jobs)
    )


def set_objective(model: cp_model.CpModel, data: OfflineData, v: CpVars) -> None:
    """Minimise Σ_j finish (an integer; the average JCT follows from it, §2.5)."""
    model.minimize(total_units(data, v))
