"""Gaps of policies to recorded optima, as intervals: simulate each policy at the instance's slot
length and bound its average JCT ÷ optimum − 1 between the best replayed schedule and the lower
bound (docs/formulations.md §2.8; ``sjfbsbf gap``, ``sjfbsbf solve``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from formulations.offline.replay import interval_for
from formulations.offline.suite import Optimum
from sjfbsbf.core.atomic import write_text_atomic
from sjfbsbf.core.model import Instance
from sjfbsbf.experiments.compare import run_policies
from sjfbsbf.experiments.csv_out import csv_text
from sjfbsbf.experiments.gap_interval import GAP_COLUMNS, ORACLE_LABEL, gap_rows
from sjfbsbf.sim.beliefs import Beliefs

#: Policies ``sjfbsbf gap`` and ``sjfbsbf solve`` compare with the optimum.
GAP_POLICIES = ("fifo", "sjf", "srtf", "tiresias", "sjf-ffs", "sjf-bsbf")
#: A policy is "fully below" on an instance when the high end of its gap is under this.
BELOW = 0.05
#: The columns of :func:`gap_summary`, in order.
SUMMARY_COLUMNS = (
    "policy",
    "beliefs",
    "preemptive",
    "instances",
    "mean_low",
    "mean_high",
    "max_low",
    "max_high",
    "below_5pct",
)
#: The file formats of :func:`write_gap_table`, by suffix.
OUT_SUFFIXES = (".csv", ".json")


def gap_table(
    entries: Iterable[tuple[Optimum, Instance]],
    policies: Sequence[str] = GAP_POLICIES,
    beliefs: Beliefs | None = None,
) -> pd.DataFrame:
    """The gap interval of every policy on every instance: one row per (instance, policy).

    Each policy is simulated at the instance's recorded ``dt`` (and decision interval
    max(60 s, dt)). The interval uses the recorded best schedule U (``replayed_avg_jct``), the
    lower bound L (``bound``) and ``tolerance_s``
    (:func:`sjfbsbf.experiments.gap_interval.gap_interval`); unproven instances are included,
    with their wider interval.

    Parameters
    ----------
    entries
        ``(optimum, instance)`` pairs, e.g. :func:`formulations.offline.suite.load_suite`.
    policies
        Registry names of the policies, in column order.
    beliefs
        If given (and not oracle), every policy is simulated a second time under these beliefs
        (docs/model.md §4.1): its rows have ``beliefs`` = :meth:`Beliefs.label`, beside the
        ``oracle`` rows. The optimum stays clairvoyant, so the difference of the two gaps is the
        price of not knowing, the oracle gap the price of the heuristic.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~sjfbsbf.experiments.gap_interval.GAP_COLUMNS`, rows by instance, then
        beliefs (oracle first), then policy.
    """
    settings: list[Beliefs | None] = [None]
    if beliefs is not None and not beliefs.is_oracle:
        settings.append(beliefs)
    rows: list[dict[str, Any]] = []
    for optimum, instance in entries:
        for setting in settings:
            results = run_policies(
                instance,
                list(policies),
                dt=optimum.dt,
                interval=interval_for(optimum.dt),
                beliefs=setting,
            )
            rows += gap_rows(
                optimum.name,
                optimum.status,
                optimum.dt,
                results,
                best=optimum.replayed_avg_jct,
                bound=optimum.bound,
                tolerance=optimum.tolerance_s,
                beliefs=ORACLE_LABEL if setting is None else setting.label(),
            )
    return pd.DataFrame(rows, columns=list(GAP_COLUMNS))


def gap_summary(table: pd.DataFrame, policies: Sequence[str] = GAP_POLICIES) -> pd.DataFrame:
    """Per beliefs and policy (oracle first), over every instance of ``table``: mean and max
    of each end of the interval and how many instances lie fully below 5%.

    The mean (max) gap lies in [``mean_low``, ``mean_high``] ([``max_low``, ``max_high``]);
    ``below_5pct`` counts the instances whose ``gap_high`` < :data:`BELOW`. A missing end (NaN)
    makes its mean and max NaN.

    Parameters
    ----------
    table
        A :func:`gap_table`.
    policies
        The policies to summarise, in row order (those absent from ``table`` are left out).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`, one row per policy.
    """
    rows = []
    believed = table.get("beliefs", pd.Series(ORACLE_LABEL, index=table.index))
    believed = believed.fillna(ORACLE_LABEL)  # a table written before the column: oracle
    for label, name in ((b, p) for b in dict.fromkeys(believed) for p in policies):
        part = table[(table["policy"] == name) & (believed == label)]
        if part.empty:
            continue
        rows.append(
            {
                "policy": name,
                "beliefs": label,
                "preemptive": bool(part["preemptive"].iloc[0]),
                "instances": len(part),
                "mean_low": part["gap_low"].mean(skipna=False),
                "mean_high": part["gap_high"].mean(skipna=False),
                "max_low": part["gap_low"].max(skipna=False),
                "max_high": part["gap_high"].max(skipna=False),
                "below_5pct": int((part["gap_high"] < BELOW).sum()),
            }
        )
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


def check_out_path(path: str | os.PathLike[str]) -> str:
    """The format of an output path by its suffix: ``"csv"`` or ``"json"``.

    Raises
    ------
    ValueError
        If the suffix is neither ``.csv`` nor ``.json`` (case ignored).
    """
    suffix = Path(path).suffix.lower()
    if suffix not in OUT_SUFFIXES:
        raise ValueError(
            f"{os.fspath(path)}: must end in .csv or .json, not {suffix or 'nothing'!r}"
        )
    return suffix[1:]


def write_gap_table(table: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write a gap table atomically, as CSV (``.csv``) or JSON (``.json``) by the suffix.

    CSV: one header line, then one line per row (NaN empty, an infinite end ``inf``). JSON: an
    array of one object per row, keys in column order; NaN and infinite values are ``null``.

    Raises
    ------
    ValueError
        If the suffix is neither ``.csv`` nor ``.json``.
    """
    if check_out_path(path) == "csv":
        text = csv_text(table)
    else:
        records = [
            {key: _json_value(value) for key, value in row.items()}
            for row in table.to_dict("records")
        ]
        text = json.dumps(records, indent=1, allow_nan=False) + "\n"
    write_text_atomic(path, text)


def _json_value(value: Any) -> Any:
    """A JSON-safe value: numpy scalars as Python ones, NaN and ±inf as ``None``."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
