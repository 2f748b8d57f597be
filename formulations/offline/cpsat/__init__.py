"""The offline model in OR-Tools CP-SAT (snake_case API): the same model as the MILP.

Integer data: progress in work units, the last slot's used time in ``dt / F`` units
(F = ``time_units_per_slot``), so the objective Σ_j (F · last slot + used units) is an integer;
conditional bounds use enforcement literals (``only_enforce_if``) where the MILP uses their big-M
linearisation (docs/formulations.md §2.3-§2.6). Built as :mod:`.variables`, :mod:`.constraints`
(one function per family of :data:`formulations.offline.families.FAMILIES`), :mod:`.objective`;
:mod:`.solve` builds it, runs it through the engine layer (§3) and decodes the schedule.
Reproducible: a fixed ``random_seed`` and ``num_workers``.
"""

from formulations.offline.cpsat.solve import build, decode, fix_schedule, hints, solve_cpsat
from formulations.offline.cpsat.variables import CpVars

__all__ = ["CpVars", "build", "decode", "fix_schedule", "hints", "solve_cpsat"]
