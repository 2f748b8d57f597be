"""Per-job stretch and finish-time fairness, Jain's index, per-VC averages (docs/model.md §4.2).

* **Stretch** of a job: JCT ÷ its exclusive duration at the full batch on its fewest nodes (the
  per-job table's ``exclusive_s``). The word "slowdown" is taken: it is ξ (§3).
* **Contention** N̄_j: the time-average number of jobs present (arrived, not finished) over the
  job's [arrival, finish), itself included, so N̄_j ≥ 1.
* **Finish-time fairness** (Themis, NSDI 2020) ρ_j = JCT_j ÷ (exclusive_s_j × N̄_j): the job's
  completion time over what it would get alone on a 1/N̄_j share of the cluster. ρ_j > 1 means
  the job did worse than its fair share.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Columns of :func:`vc_table`, in order.
VC_COLUMNS = ("vc", "jobs", "avg_jct", "avg_stretch", "avg_queueing_delay", "max_ftf")


def contention(arrival: np.ndarray, finish: np.ndarray) -> np.ndarray:
    """N̄_j: the time-average number of jobs present over each job's [arrival, finish).

    A job is present over [arrival, finish) (half-open: one that finishes as another arrives is
    not counted by it). The count is a step function of time; its integral F(t) is exact at
    every arrival and finish, so N̄_j = (F(finish_j) − F(arrival_j)) ÷ (finish_j − arrival_j).

    Parameters
    ----------
    arrival, finish
        Per-job times (s), finite, ``finish > arrival`` for every job.

    Returns
    -------
    numpy.ndarray
        N̄_j per job (float64, ≥ 1 up to float rounding).
    """
    arrival = np.asarray(arrival, dtype=float)
    finish = np.asarray(finish, dtype=float)
    if arrival.size == 0:
        return np.zeros(0)
    times = np.concatenate([arrival, finish])
    steps = np.concatenate([np.ones(arrival.size), -np.ones(finish.size)])
    order = np.argsort(times, kind="stable")
    times, steps = times[order], steps[order]
    # The count on [times[k], times[k + 1]) is the running sum of the steps up to k.
    count = np.cumsum(steps)
    widths = np.diff(times)
    area = np.concatenate([[0.0], np.cumsum(count[:-1] * widths)])
    # Every arrival and finish is one of the times: F there is the area up to its first copy
    # (copies of one time have zero width between them, so any copy gives the same value).
    at_arrival = area[np.searchsorted(times, arrival, side="left")]
    at_finish = area[np.searchsorted(times, finish, side="left")]
    return (at_finish - at_arrival) / (finish - arrival)


def stretch(jct: np.ndarray, exclusive: np.ndarray) -> np.ndarray:
    """JCT ÷ exclusive duration, per job."""
    return np.asarray(jct, dtype=float) / np.asarray(exclusive, dtype=float)


def finish_time_fairness(jct: np.ndarray, exclusive: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Themis' ρ_j = JCT_j ÷ (exclusive_j × N̄_j), per job."""
    return (
        np.asarray(jct, dtype=float)
        / np.asarray(exclusive, dtype=float)
        / np.asarray(present, dtype=float)
    )


def jain_index(values: np.ndarray) -> float:
    """Jain's fairness index (Σx)² ÷ (n·Σx²): 1 when all values are equal, 1/n at worst.

    Parameters
    ----------
    values
        Positive values (here the jobs' stretches); at least one.
    """
    x = np.asarray(values, dtype=float)
    return float(x.sum() ** 2 / (x.size * np.square(x).sum()))


def vc_table(jobs: pd.DataFrame) -> pd.DataFrame:
    """Average JCT, stretch and queueing delay and the largest ρ per virtual cluster.

    Parameters
    ----------
    jobs
        A per-job table with ``vc, jct, stretch, queueing_delay, ftf`` (``SimResult.jobs``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`VC_COLUMNS`, one row per VC in name order; jobs without a VC (empty text)
        form the row ``""``. Empty if no job names a VC.
    """
    if not (jobs["vc"] != "").any():
        return pd.DataFrame({column: [] for column in VC_COLUMNS})
    grouped = jobs.groupby("vc", sort=True)
    table = pd.DataFrame(
        {
            "jobs": grouped.size(),
            "avg_jct": grouped["jct"].mean(),
            "avg_stretch": grouped["stretch"].mean(),
            "avg_queueing_delay": grouped["queueing_delay"].mean(),
            "max_ftf": grouped["ftf"].max(),
        }
    )
    return table.rename_axis("vc").reset_index()[list(VC_COLUMNS)]
