"""Stretch and finish-time fairness beside JCT on a regime map's planes (docs/results.md §9).

For the sharing policies of a regime sweep, the seed means of average JCT, average and p99
stretch, the largest ρ and the share of jobs with ρ > 1 (docs/model.md §4.2), per mix, level of
the plane's factor, policy and load; and the map's ratios of average stretch. A results folder
written before these metrics existed (results schema 1) has none of their columns: nothing is
drawn from it here.
"""

from __future__ import annotations

import pandas as pd

from sjfbsbf.experiments.regimes import (
    FACET,
    LEVEL_ORDER,
    LOAD,
    default_plane,
    map_factors,
    regime_markdown,
    sweep_cells,
)
from sjfbsbf.experiments.tables import markdown
from sjfbsbf.workloads.generators import MODEL_MIXES

#: The policies shown, in order: SJF-BSBF's two variants, the sharing baseline of the paper and
#: the two sharing schedulers of issue 37.
SHARING_POLICIES = ("sjf-bsbf-plus", "sjf-bsbf", "sjf-ffs", "gandiva", "lucid")
#: What each sharing scheduler gains over a queue order without sharing, (sharing, exclusive):
#: SJF-BSBF and SJF-FFS over sjf (their order), Lucid over sjf (its order is estimated duration
#: × GPUs, so the ratio also holds that difference) and Gandiva over fifo (its order).
SHARING_GAINS = (("sjf-bsbf", "sjf"), ("sjf-ffs", "sjf"), ("lucid", "sjf"), ("gandiva", "fifo"))
#: Metrics shown, with how each is written.
PLANE_METRICS = {
    "avg_jct": ("avg JCT (s)", "{:,.0f}"),
    "avg_stretch": ("avg stretch", "{:.2f}"),
    "p99_stretch": ("p99 stretch", "{:.1f}"),
    "max_ftf": ("max ρ", "{:.2f}"),
    "ftf_above_1": ("share of jobs with ρ > 1", "{:.1%}"),
}


def has_fairness(table: pd.DataFrame) -> bool:
    """Whether the results table carries the fairness metrics (results schema 2)."""
    return all(metric in table for metric in PLANE_METRICS)


def plane_means(table: pd.DataFrame, factor: str) -> pd.DataFrame:
    """Seed means of :data:`PLANE_METRICS` on the plane load × ``factor`` (every other map
    factor at its default), per mix, level, policy (label) and load, for the policies of
    :data:`SHARING_POLICIES` the sweep ran."""
    rows = default_plane(table, keep=factor)
    rows = rows[rows["label"].isin(SHARING_POLICIES)]
    keys = [FACET, factor, "label", LOAD]
    return rows.groupby(keys, sort=False)[list(PLANE_METRICS)].mean().reset_index()


def fairness_markdown(table: pd.DataFrame) -> str:
    """Per plane, mix and metric: a table of seed means, rows (level, policy), columns loads;
    then the map's ratios of average stretch (as docs/results.md §6's tables of JCT)."""
    parts = []
    for factor in map_factors(table):
        means = plane_means(table, factor)
        if means.empty:
            continue
        name = factor.split("_", 1)[1].replace("_", " ")
        parts.append(f"### load × {name}: seed means\n")
        order = LEVEL_ORDER.get(factor, ())
        levels = sorted(
            means[factor].unique(),
            key=lambda v: (order.index(v), "") if v in order else (len(order), v),
        )
        labels = [p for p in SHARING_POLICIES if p in set(means["label"])]
        for mix in [m for m in MODEL_MIXES if m in set(means[FACET])]:
            of_mix = means[means[FACET] == mix]
            for metric, (label, form) in PLANE_METRICS.items():
                wide = of_mix.pivot_table(
                    index=[factor, "label"], columns=LOAD, values=metric, sort=False
                )
                wide = wide.reindex(
                    pd.MultiIndex.from_product([levels, labels], names=[name, "policy"])
                ).dropna(how="all")
                shown = wide.apply(lambda col, f=form: col.map(f.format))
                shown.columns = [f"×{c:g}" for c in shown.columns]
                parts.append(f"{label}, mix {mix}:\n\n{markdown(shown)}\n")
    gains = gain_cells(table)
    if len(gains):
        parts.append("### What sharing adds over the scheduler's own queue order (average JCT)\n")
        parts.append(regime_markdown(gains))
    cells = sweep_cells(table, "avg_stretch")
    if len(cells):
        parts.append("### Ratios of average stretch\n")
        parts.append(regime_markdown(cells))
    return "\n".join(parts) + "\n"


def gain_cells(table: pd.DataFrame, metric: str = "avg_jct") -> pd.DataFrame:
    """The cells of :data:`SHARING_GAINS` the sweep ran (:func:`sweep_cells` with those
    ratios)."""
    return sweep_cells(table, metric, SHARING_GAINS)
