"""The one solver engine layer: every exact model runs its solver here (docs/formulations.md §3).

:func:`formulations.engines.cpsat.solve` runs an OR-Tools CP-SAT model and
:func:`formulations.engines.milp.solve` a PuLP model on HiGHS (highspy) or CBC, and
:class:`formulations.engines.columns.ColumnLP` keeps one HiGHS LP that column generation grows
between solves. The first two take the same
:class:`EngineOptions` (time limit, deadline, seed, workers, log), give the solver its hints or
start, keep solver output off standard output (:mod:`formulations.engines.quiet`), map the
solver's outcome to a :class:`~formulations.result.SolveStatus` by the one rule
(:func:`status_of`) and return an :class:`EngineRun`. The round and the offline model build their
models and decode the runs; they never talk to a solver themselves.

Only the three backend modules import a solver package; importing this package does not.
"""

from formulations.engines.run import EngineOptions, EngineRun
from formulations.engines.status import status_of

__all__ = ["EngineOptions", "EngineRun", "status_of"]
