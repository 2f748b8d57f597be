"""An LP grown column by column on HiGHS (highspy), for column generation (docs/formulations.md §3).

PuLP rebuilds and re-sends a model at every solve; column generation adds a few columns between
solves of the same LP and needs the row duals, so :class:`ColumnLP` keeps one ``highspy.Highs``
object: rows first, then columns, each solve warm-started from the last basis. Like the other
engines it keeps HiGHS's banner off standard output, leaves the thread count at HiGHS's default
(it is fixed once per process) and maps HiGHS's outcome to a
:class:`~formulations.result.SolveStatus` by :func:`~formulations.engines.status.status_of`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import highspy
import numpy as np

from formulations.engines.quiet import stdout_to_stderr
from formulations.engines.status import status_of
from formulations.result import SolveStatus


class ColumnLP:
    """A minimisation over columns (≥ 0) under ranged rows, solved again as columns are added.

    Parameters
    ----------
    seed
        HiGHS's ``random_seed``.
    """

    def __init__(self, seed: int = 0) -> None:
        with stdout_to_stderr():  # highspy prints its banner from native code
            self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.setOptionValue("random_seed", int(seed))
        self.rows = 0
        self.columns = 0

    def add_rows(self, lower: Sequence[float], upper: Sequence[float]) -> int:
        """Add empty rows ``lower ≤ row ≤ upper`` (±inf for none); returns the first's index."""
        first = self.rows
        low = np.asarray(lower, dtype=float)
        up = np.asarray(upper, dtype=float)
        self._highs.addRows(len(low), low, up, 0, [], [], [])
        self.rows += len(low)
        return first

    def add_column(
        self,
        cost: float,
        rows: Sequence[int],
        values: Sequence[float],
        *,
        upper: float = math.inf,
        integer: bool = False,
    ) -> int:
        """Add a column of ``cost`` with ``values`` in ``rows`` (bounds 0..``upper``; an integer
        variable with ``integer``); returns its index."""
        index = np.asarray(rows, dtype=np.int32)
        self._highs.addCol(
            float(cost), 0.0, float(upper), len(index), index, np.asarray(values, dtype=float)
        )
        if integer:
            self._highs.changeColIntegrality(self.columns, highspy.HighsVarType.kInteger)
        self.columns += 1
        return self.columns - 1

    def solve(self, time_limit: float | None = None) -> SolveStatus:
        """Solve (from the last basis); a wall-clock ``time_limit`` in seconds if given."""
        if time_limit is not None:
            self._highs.setOptionValue("time_limit", max(float(time_limit), 1e-3))
        with stdout_to_stderr():
            self._highs.run()
        code = self._highs.getModelStatus()
        codes = highspy.HighsModelStatus
        solution = self._highs.getInfo().primal_solution_status == 2  # HiGHS's "feasible"
        return status_of(
            optimal=code == codes.kOptimal,
            infeasible=code in (codes.kInfeasible, codes.kUnboundedOrInfeasible),
            solution=solution and code != codes.kOptimal,
            stopped=code == codes.kTimeLimit,
        )

    def describe(self) -> str:
        """HiGHS's model status, in words."""
        return str(self._highs.modelStatusToString(self._highs.getModelStatus()))

    @property
    def objective(self) -> float:
        """The objective of the last solve's solution."""
        return float(self._highs.getInfo().objective_function_value)

    @property
    def bound(self) -> float | None:
        """A MIP's dual bound after the last solve (``None``: none known)."""
        dual = self._highs.getInfo().mip_dual_bound
        return float(dual) if dual is not None and math.isfinite(dual) else None

    def row_duals(self) -> np.ndarray:
        """The rows' duals of the last solve (a minimisation: ≤ 0 on a binding upper bound)."""
        return np.asarray(self._highs.getSolution().row_dual, dtype=float)
