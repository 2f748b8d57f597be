"""Figures from a sweep's per-run tables (``sjfbsbf figs``): JCT CDFs, GPUs busy and shared over
time, and the sub-batch and sharing choices, for every configuration × load level of the sweep
(:func:`~sjfbsbf.experiments.figure_common.panels`), each titled with its level; and, when the
jobs name virtual clusters, the per-VC table of every level and policy (``<sweep>-vc.csv``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.experiments.csv_out import csv_text
from sjfbsbf.experiments.figure_common import panels, save, slug, summary
from sjfbsbf.experiments.sweep_details import read_run_jobs, read_run_utilisation
from sjfbsbf.experiments.tables import ordered
from sjfbsbf.sim.fairness import vc_table


def fig_runs(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """The CDF figure (one panel per configuration × load level), and per level one utilisation
    and one choices figure (``<sweep>-utilisation-<level>``; without the suffix if the sweep
    has one level)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    parts = panels(table)
    columns = min(len(parts), 3)
    rows = math.ceil(len(parts) / columns)
    fig, axes = plt.subplots(
        rows,
        columns,
        squeeze=False,
        layout="constrained",
        figsize=(max(6.0, 4.5 * columns), 3.6 * rows + 0.6),
    )
    for ax in axes.flat[len(parts) :]:
        ax.set_visible(False)
    per_vc: list[pd.DataFrame] = []
    for ax, (title, part) in zip(axes.flat, parts, strict=False):
        jobs = _jobs(part)
        per_vc.extend(_vc_rows(title, jobs))
        for label in ordered(part["label"].tolist()):
            jct = np.sort(jobs[label]["jct"].to_numpy(dtype=float))
            ax.step(jct, np.arange(1, len(jct) + 1) / len(jct), where="post", label=label)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels overprint on short ranges
        ax.set_xlabel("JCT (s)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(title or name, fontsize=9)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle(f"{name}: JCT CDF (every job of every seed)")
    save(fig, out, f"{name}-jct_cdf", written)
    if per_vc:
        path = out / f"{name}-vc.csv"
        with atomic_path(path) as tmp:
            tmp.write_text(csv_text(pd.concat(per_vc, ignore_index=True)), encoding="utf-8")
        written.append(path)
    for title, part in parts:
        suffix = f"-{slug(title)}" if len(parts) > 1 else ""
        _utilisation(name, title, part, out, f"{name}-utilisation{suffix}", written)
        _choices(name, title, _jobs(part), part, out, f"{name}-choices{suffix}", written)


def _vc_rows(title: str, jobs: dict[str, pd.DataFrame]) -> list[pd.DataFrame]:
    """Per policy of one panel, its jobs of every seed per VC (:func:`vc_table`), when they name
    VCs (a results folder of schema 1 has no ``vc`` column: nothing)."""
    rows = []
    for label, frame in jobs.items():
        if "vc" in frame and "stretch" in frame and (frame["vc"] != "").any():
            table = vc_table(frame)
            table.insert(0, "policy", label)
            table.insert(0, "level", title)
            rows.append(table)
    return rows


def _jobs(part: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Every job of every seed, per policy label of one panel."""
    return {
        label: pd.concat(
            [
                read_run_jobs(r["results_dir"], r["key"])
                for r in part[part["label"] == label].to_dict("records")
            ],
            ignore_index=True,
        )
        for label in ordered(part["label"].tolist())
    }


def _utilisation(
    name: str, title: str, part: pd.DataFrame, out: Path, stem: str, written: list[Path]
) -> None:
    import matplotlib.pyplot as plt

    labels = ordered(part["label"].tolist())
    fig, axes = plt.subplots(
        len(labels),
        1,
        sharex=True,
        squeeze=False,
        layout="constrained",
        figsize=(8.0, 1.6 * len(labels) + 1.2),
    )
    for ax, label in zip(axes[:, 0], labels, strict=True):
        run = part[part["label"] == label].sort_values("seed").iloc[0]
        series = read_run_utilisation(run["results_dir"], run["key"])
        ax.fill_between(
            series["start"], series["busy_gpus"], step="post", alpha=0.5, label="busy GPUs"
        )
        ax.fill_between(
            series["start"], series["shared_gpus"], step="post", alpha=0.7, label="shared GPUs"
        )
        ax.set_ylabel(f"{label}\n(GPUs)", fontsize=8)
    axes[0, 0].legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=2)
    axes[-1, 0].set_xlabel("time (s)")
    where = f" — {title}" if title else ""
    fig.suptitle(f"{name}: GPUs busy and shared over time (lowest seed){where}", fontsize=10)
    save(fig, out, stem, written)


def _choices(
    name: str,
    title: str,
    jobs: dict[str, pd.DataFrame],
    part: pd.DataFrame,
    out: Path,
    stem: str,
    written: list[Path],
) -> None:
    import matplotlib.pyplot as plt

    labels = list(jobs)
    fig, (left, right) = plt.subplots(1, 2, layout="constrained", figsize=(11.0, 4.5))
    factors = sorted({int(a) for frame in jobs.values() for a in frame["accumulation"]})
    bottom = np.zeros(len(labels))
    for factor in factors:
        share = np.array([(jobs[lb]["accumulation"] == factor).mean() for lb in labels])
        left.bar(labels, share, bottom=bottom, label=f"s = {factor}")
        bottom += share
    left.set_ylabel("fraction of jobs")
    left.set_ylim(0, 1)
    left.set_title("accumulation factor at the end of each job", fontsize=9)
    left.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="factor")
    stats = summary(part, ["label"], "shared_gpu_time_share").set_index("label").loc[labels]
    right.bar(labels, 100 * stats["mean"], color="#DD8452")
    right.set_ylabel("shared GPU-time (% of busy)")
    right.set_title("sharing decisions", fontsize=9)
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30)
    where = f" — {title}" if title else ""
    fig.suptitle(f"{name}: sub-batch and sharing choices{where}", fontsize=10)
    save(fig, out, stem, written)
