"""Metrics of a simulation, computed from its per-job and per-tick tables (docs/model.md §4)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sjfbsbf.sim.fairness import jain_index

#: Metric keys, in display order, with their labels.
METRIC_LABELS = {
    "avg_jct": "avg JCT (s)",
    "p50_jct": "p50 JCT (s)",
    "p95_jct": "p95 JCT (s)",
    "p99_jct": "p99 JCT (s)",
    "makespan": "makespan (s)",
    "avg_queueing_delay": "avg queue (s)",
    "gpu_utilization": "GPU util",
    "shared_gpu_time_share": "shared GPU-time",
    "avg_stretch": "avg stretch",
    "p99_stretch": "p99 stretch",
    "max_ftf": "max ρ",
    "ftf_above_1": "jobs ρ>1",
    "jain_stretch": "Jain (stretch)",
}

#: The fairness metrics (docs/model.md §4.2), added in results schema 2: a results folder written
#: before them lacks these columns.
FAIRNESS_METRICS = ("avg_stretch", "p99_stretch", "max_ftf", "ftf_above_1", "jain_stretch")


def compute_metrics(jobs: pd.DataFrame, ticks: pd.DataFrame, num_gpus: int) -> dict[str, float]:
    """Average / median / p95 / p99 JCT, makespan, queueing delay, utilisation, sharing, and
    stretch and finish-time fairness (docs/model.md §4.2).

    Parameters
    ----------
    jobs
        Per-job table with ``arrival, finish, jct, queueing_delay, stretch, ftf``.
    ticks
        Per-tick table with ``time, duration, busy_gpus, shared_gpus``.
    num_gpus
        GPUs in the cluster.

    Returns
    -------
    dict
        ``makespan`` runs from the first arrival to the last finish. ``gpu_utilization`` is
        busy GPU-time (GPUs holding at least one job, until the tick that releases them) over
        ``num_gpus ×`` the span the per-tick table covers (first processed tick to the tick that
        releases the last job), so it never exceeds 1 whatever ``dt``;
        ``shared_gpu_time_share`` is the part of busy GPU-time on GPUs holding two jobs.
        ``avg_stretch`` and ``p99_stretch`` summarise the jobs' stretches, ``jain_stretch`` is
        Jain's index over them; ``max_ftf`` is the largest finish-time fairness ρ and
        ``ftf_above_1`` the fraction of jobs with ρ > 1.
    """
    jct = jobs["jct"].to_numpy(dtype=float)
    makespan = float(jobs["finish"].max() - jobs["arrival"].min())
    busy = float((ticks["busy_gpus"] * ticks["duration"]).sum())
    span = float(ticks["duration"].sum())
    shared = float((ticks["shared_gpus"] * ticks["duration"]).sum())
    stretches = jobs["stretch"].to_numpy(dtype=float)
    ftf = jobs["ftf"].to_numpy(dtype=float)
    return {
        "avg_jct": float(jct.mean()),
        "p50_jct": float(np.percentile(jct, 50)),
        "p95_jct": float(np.percentile(jct, 95)),
        "p99_jct": float(np.percentile(jct, 99)),
        "makespan": makespan,
        "avg_queueing_delay": float(jobs["queueing_delay"].mean()),
        "gpu_utilization": busy / (num_gpus * span) if span > 0 else 0.0,
        "shared_gpu_time_share": shared / busy if busy > 0 else 0.0,
        "avg_stretch": float(stretches.mean()),
        "p99_stretch": float(np.percentile(stretches, 99)),
        "max_ftf": float(ftf.max()),
        "ftf_above_1": float((ftf > 1.0).mean()),
        "jain_stretch": jain_index(stretches),
    }
