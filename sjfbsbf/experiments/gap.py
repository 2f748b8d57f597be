"""Gaps of policies to recorded optima: simulate each policy at the instance's slot length and
divide its average JCT by the optimum (docs/formulations.md §2.8; ``sjfbsbf gap``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from formulations.offline.replay import interval_for
from formulations.offline.suite import Optimum
from sjfbsbf.core.model import Instance
from sjfbsbf.experiments.compare import run_policies

#: Policies ``sjfbsbf gap`` and ``sjfbsbf solve`` compare with the optimum.
GAP_POLICIES = ("fifo", "sjf", "srtf", "tiresias", "sjf-ffs", "sjf-bsbf")


def gap_table(
    entries: Iterable[tuple[Optimum, Instance]],
    policies: Sequence[str] = GAP_POLICIES,
) -> pd.DataFrame:
    """Average JCT ÷ optimum − 1 per instance (rows) and policy (columns).

    Each policy is simulated at the instance's recorded ``dt``. Instances without a proven
    optimum get NaN gaps (their status is in the ``status`` column).
    """
    rows = []
    for optimum, instance in entries:
        row: dict[str, Any] = {"instance": optimum.name, "status": optimum.status}
        reference = optimum.replayed_avg_jct
        row["optimum"] = reference
        results = run_policies(
            instance, list(policies), dt=optimum.dt, interval=interval_for(optimum.dt)
        )
        for name, result in zip(policies, results, strict=True):
            if optimum.proven and reference:
                row[name] = result.avg_jct / reference - 1.0
            else:
                row[name] = math.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("instance")


def gap_summary(table: pd.DataFrame, policies: Sequence[str] = GAP_POLICIES) -> pd.DataFrame:
    """Mean and max gap per policy over the proven instances (rows ``mean``, ``max``)."""
    proven = table[table["status"] == "optimal"]
    return pd.DataFrame(
        {name: [proven[name].mean(), proven[name].max()] for name in policies},
        index=["mean", "max"],
    )
