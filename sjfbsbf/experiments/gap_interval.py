"""Gap tables: each policy's gap to the offline optimum as an interval (docs/formulations.md §2.8).

The interval itself, [J/(U + tol) − 1, J/max(L − tol, MIN_DENOMINATOR_S) − 1], is
:func:`formulations.offline.gap.gap_interval` (re-exported here); this module makes the rows of a
gap table from simulated policies. Preemptive policies are not bounded below by the
(non-preemptive) optimum, so their interval may be negative; they are reported apart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from formulations.offline.gap import MIN_DENOMINATOR_S, gap_interval
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.result import SimResult

__all__ = [
    "GAP_COLUMNS",
    "MIN_DENOMINATOR_S",
    "ORACLE_LABEL",
    "gap_interval",
    "gap_rows",
    "is_preemptive",
]

#: The columns of a gap table (``sjfbsbf solve --out``, ``sjfbsbf gap --out``), in order.
GAP_COLUMNS = (
    "instance",
    "status",
    "dt",
    "policy",
    "preemptive",
    "avg_jct",
    "best_avg_jct",
    "bound",
    "tolerance_s",
    "gap_low",
    "gap_high",
    "beliefs",
)
#: The ``beliefs`` of a policy that knew the truth (docs/model.md §4.1).
ORACLE_LABEL = "oracle"


def is_preemptive(policy: str) -> bool:
    """Whether the registered policy ``policy`` preempts (its gap can then be negative)."""
    return bool(make_policy(policy).preemptive)


def gap_rows(
    instance: str,
    status: str,
    dt: float,
    results: Iterable[SimResult],
    *,
    best: float | None,
    bound: float | None,
    tolerance: float,
    beliefs: str = ORACLE_LABEL,
) -> list[dict[str, Any]]:
    """One row of :data:`GAP_COLUMNS` per simulated policy of one instance.

    Parameters
    ----------
    instance, status, dt
        The instance's name, the solver's status (``"optimal"`` when proven) and the slot length.
    results
        The policies' simulations at ``dt``.
    best, bound, tolerance
        U, L and tol of :func:`gap_interval`.
    beliefs
        What the policies believed (``oracle``, or :meth:`~sjfbsbf.sim.beliefs.Beliefs.label`);
        the optimum is always the clairvoyant one.
    """
    rows = []
    for result in results:
        low, high = gap_interval(result.avg_jct, best, bound, tolerance)
        rows.append(
            {
                "instance": instance,
                "status": status,
                "dt": dt,
                "policy": result.policy,
                "preemptive": is_preemptive(result.policy),
                "avg_jct": result.avg_jct,
                "best_avg_jct": math.nan if best is None else best,
                "bound": math.nan if bound is None else bound,
                "tolerance_s": tolerance,
                "gap_low": low,
                "gap_high": high,
                "beliefs": beliefs,
            }
        )
    return rows
