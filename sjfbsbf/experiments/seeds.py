"""Policies over several seeds of the default workload, with paired bootstrap intervals
(``sjfbsbf compare --seeds A-B``; docs/results.md).

Each seed draws its own default workload (and, under the ``lognormal`` estimator or a ``noisy``
interference belief without an explicit ``seed``, its own errors, keyed by the same seed: docs/
model.md §4.1); every policy runs on it. The summary gives, per policy, the mean over seeds of a
metric with a 95% paired percentile-bootstrap interval (seeds resampled together for every
policy, :data:`~sjfbsbf.experiments.regimes.RESAMPLES` resamples from a generator seeded with
:data:`~sjfbsbf.experiments.regimes.SEED`), and the ratio of its mean to a baseline policy's with
the same resamples (equal to :func:`~sjfbsbf.experiments.regimes.ratio_ci`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sjfbsbf.core.model import Instance
from sjfbsbf.experiments.compare import PolicyProgress, run_policies
from sjfbsbf.experiments.regimes import CONFIDENCE, RESAMPLES, SEED
from sjfbsbf.experiments.report import compare_table
from sjfbsbf.sim.beliefs import Beliefs

#: Most seeds one ``--seeds`` range may name.
MAX_SEEDS = 1000
_RANGE = re.compile(r"\s*(\d{1,18})\s*(?:-\s*(\d{1,18})\s*)?")


def parse_seeds(text: str) -> list[int]:
    """``A-B`` (inclusive) or ``A`` as a list of seeds.

    Raises
    ------
    ValueError
        Not of that form, B < A, or more than :data:`MAX_SEEDS` seeds.
    """
    match = _RANGE.fullmatch(text)
    if match is None:
        raise ValueError(f"expected a seed range A-B (e.g. 0-9), got {text!r}")
    low = int(match[1])
    high = low if match[2] is None else int(match[2])
    if high < low:
        raise ValueError(f"the range {text!r} ends before it starts")
    if high - low + 1 > MAX_SEEDS:
        raise ValueError(f"at most {MAX_SEEDS} seeds, got {high - low + 1:,}")
    return list(range(low, high + 1))


def run_seeds(
    names: Sequence[str],
    seeds: Sequence[int],
    make_instance: Callable[[int], Instance],
    *,
    beliefs: Beliefs | None = None,
    policy_options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: Callable[[int, str, int, int], None] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Every policy on the instance of every seed: one row per (seed, policy) with the metrics of
    :func:`~sjfbsbf.experiments.report.compare_table`.

    ``beliefs``: the same names for every seed, their default stream key K set to the seed.
    """
    frames = []
    for seed in seeds:
        instance = make_instance(seed)
        run_beliefs = None
        if beliefs is not None and not beliefs.is_oracle:
            run_beliefs = Beliefs(
                beliefs.estimator, beliefs.interference, seed, beliefs.throughputs
            )
        callback: PolicyProgress | None = None
        if progress is not None:

            def callback(policy: str, done: int, total: int, seed: int = seed) -> None:
                progress(seed, policy, done, total)

        table = compare_table(
            run_policies(
                instance,
                names,
                progress=callback,
                policy_options=policy_options,
                beliefs=run_beliefs,
                **options,
            )
        )
        frames.append(table.reset_index().assign(seed=seed))
    return pd.concat(frames, ignore_index=True)


def seed_summary(
    runs: pd.DataFrame, metric: str = "avg_jct", baseline: str | None = None
) -> pd.DataFrame:
    """Per policy (rows, in the order of ``runs``): ``mean``, ``low``, ``high`` of ``metric``
    over seeds, ``seeds``, and with a ``baseline`` policy ``ratio``, ``ratio_low``,
    ``ratio_high`` (its mean ÷ the baseline's) and ``better``/``worse`` (the interval excludes
    1). Paired: every resample draws the same seeds for every policy.

    Raises
    ------
    ValueError
        If ``baseline`` is not one of the policies, or a policy misses a seed.
    """
    wide = runs.pivot(index="seed", columns="policy", values=metric)
    order = list(dict.fromkeys(runs["policy"]))
    if wide.isna().any().any():
        raise ValueError("every policy needs every seed")
    if baseline is not None and baseline not in wide:
        raise ValueError(f"baseline {baseline!r} is not among the policies ({', '.join(order)})")
    values = wide[order].to_numpy(dtype=float)  # seeds × policies
    n = len(values)
    index = np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))
    means = values[index].mean(axis=1)  # resamples × policies
    tail = 100 * (1 - CONFIDENCE) / 2
    rows = []
    for k, policy in enumerate(order):
        mean = float(values[:, k].mean())
        low, high = _interval(means[:, k], mean, values[:, k])
        row: dict[str, Any] = {"policy": policy, "mean": mean, "low": low, "high": high}
        row["seeds"] = n
        if baseline is not None:
            b = order.index(baseline)
            ratio = mean / float(values[:, b].mean())
            if n < 2 or np.ptp(values[:, k] / values[:, b]) == 0:
                r_low = r_high = ratio
            else:
                r_low, r_high = np.percentile(means[:, k] / means[:, b], [tail, 100 - tail])
            row |= {"ratio": ratio, "ratio_low": float(r_low), "ratio_high": float(r_high)}
            row["verdict"] = "better" if r_high < 1 else "worse" if r_low > 1 else "tie"
        rows.append(row)
    return pd.DataFrame(rows).set_index("policy")


def _interval(resampled: np.ndarray, mean: float, values: np.ndarray) -> tuple[float, float]:
    if len(values) < 2 or np.ptp(values) == 0:
        return mean, mean
    tail = 100 * (1 - CONFIDENCE) / 2
    low, high = np.percentile(resampled, [tail, 100 - tail])
    return float(low), float(high)
