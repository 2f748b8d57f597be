"""The offline model as a MILP in PuLP, solved by HiGHS (``pulp.HiGHS``, highspy) or CBC.

The same model and the same integer coefficients as :mod:`formulations.offline.cpsat`
(docs/formulations.md §2.3-§2.6), built PyJobShop style: :mod:`.variables`, :mod:`.constraints`
(one function per family of :data:`formulations.offline.families.FAMILIES`), :mod:`.objective`;
:mod:`.solve` builds it, runs it through the engine layer (§3) and decodes the schedule.
"""

from formulations.offline.milp.solve import build, decode, solve_milp, start_values
from formulations.offline.milp.variables import MilpVars

__all__ = ["MilpVars", "build", "decode", "solve_milp", "start_values"]
