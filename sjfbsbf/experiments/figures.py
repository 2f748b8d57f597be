"""Figures from results folders alone (``sjfbsbf figs``): no simulation, one style, PNG + PDF.

Each results folder is a sweep's output (docs/results-schema.md); a gap table is what
``sjfbsbf gap --out`` or ``sjfbsbf solve --out`` wrote. :func:`make_figures` draws, per sweep:
average JCT per policy with 95% bootstrap confidence intervals over seeds (one panel per workload
configuration), average JCT against the load where the sweep varies it, JCT CDFs (every job of
every seed), GPUs busy and shared over time (the lowest seed), accumulation-factor choices and
shared GPU-time; for a regime sweep (:mod:`sjfbsbf.experiments.regimes`) its maps and tables,
the other figures then on its default plane; and, per gap table, each policy's gap interval.
Headless (Agg); deterministic (the bootstrap takes a fixed seed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path, check_output
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.experiments.factor_maps import write_factor_maps
from sjfbsbf.experiments.regimes import (
    default_plane,
    is_regime_sweep,
    map_factors,
    plot_regime_map,
    regime_markdown,
    sweep_cells,
)
from sjfbsbf.experiments.sweep_details import read_run_jobs, read_run_utilisation
from sjfbsbf.experiments.tables import ORDER, ordered, read_results

__all__ = ["ORDER", "bootstrap_ci", "make_figures", "ordered", "read_results", "summary"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Workload columns that count as "the load" for the load figure.
LOAD_COLUMNS = ("wl_rate_factor", "wl_load")
#: Bootstrap: resamples, confidence level and seed (deterministic intervals).
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
BOOTSTRAP_SEED = 0
#: The one style of every figure.
STYLE: dict[str, Any] = {
    "figure.figsize": (8.0, 4.8),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 10,
    "legend.frameon": False,
}


def bootstrap_ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% percentile-bootstrap interval (scipy.stats.bootstrap, fixed seed);
    the interval is the mean itself for fewer than two values or identical values."""
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) < 2 or np.ptp(data) == 0:
        return mean, mean, mean
    from scipy.stats import bootstrap

    result = bootstrap(
        (data,),
        np.mean,
        n_resamples=BOOTSTRAP_RESAMPLES,
        confidence_level=CONFIDENCE,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    low, high = result.confidence_interval
    return mean, float(low), float(high)


def configurations(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The sweep's workload/simulator configurations (columns that vary, load excepted), each
    with a short title and its rows."""
    varying = [
        c
        for c in table.columns
        if c.startswith(("wl_", "sim_"))
        and c not in LOAD_COLUMNS
        and table[c].astype(str).nunique() > 1
    ]
    if not varying:
        return [("", table)]
    out = []
    for values, rows in table.groupby(varying, sort=True, dropna=False):
        parts = values if isinstance(values, tuple) else (values,)
        title = ", ".join(f"{c.split('_', 1)[1]}={v}" for c, v in zip(varying, parts, strict=True))
        out.append((title, rows))
    return out


def summary(rows: pd.DataFrame, by: Sequence[str], metric: str = "avg_jct") -> pd.DataFrame:
    """Mean and bootstrap interval of ``metric`` over seeds per group of ``by``."""
    records = []
    for key, group in rows.groupby(list(by), sort=True):
        mean, low, high = bootstrap_ci(group[metric].tolist())
        keys = key if isinstance(key, tuple) else (key,)
        records.append(
            {
                **dict(zip(by, keys, strict=True)),
                "mean": mean,
                "low": low,
                "high": high,
                "seeds": len(group),
            }
        )
    return pd.DataFrame(records)


def _save(fig: Figure, out_dir: Path, stem: str, written: list[Path]) -> None:
    import matplotlib.pyplot as plt

    for suffix in ("png", "pdf"):
        path = out_dir / f"{stem}.{suffix}"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=suffix, dpi=120)
        written.append(path)
    plt.close(fig)


def _fig_avg_jct(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    import matplotlib.pyplot as plt

    loads = [c for c in LOAD_COLUMNS if c in table and table[c].nunique() > 1]
    if loads:  # one panel per load level would repeat the load figure: use the middle level
        levels = sorted(table[loads[0]].unique())
        table = table[table[loads[0]] == levels[len(levels) // 2]]
    configs = configurations(table)
    fig, axes = plt.subplots(
        1,
        len(configs),
        squeeze=False,
        layout="constrained",
        figsize=(max(6.0, 4.0 * len(configs)), 4.5),
    )
    for ax, (title, rows) in zip(axes[0], configs, strict=True):
        stats = summary(rows, ["label"]).set_index("label").loc[ordered(rows["label"].tolist())]
        x = np.arange(len(stats))
        ax.bar(x, stats["mean"], color="#4C72B0")
        ax.errorbar(
            x,
            stats["mean"],
            yerr=[stats["mean"] - stats["low"], stats["high"] - stats["mean"]],
            fmt="none",
            ecolor="black",
            capsize=3,
        )
        ax.set_xticks(x, stats.index, rotation=30, ha="right")
        ax.set_ylabel("average JCT (s)")
        ax.set_title(title or name, fontsize=9)
    fig.suptitle(f"{name}: average JCT, mean over seeds with 95% bootstrap CI")
    _save(fig, out, f"{name}-avg_jct", written)


def _fig_load(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    import matplotlib.pyplot as plt

    loads = [c for c in LOAD_COLUMNS if c in table and table[c].nunique() > 1]
    if not loads:
        return
    fig, ax = plt.subplots(layout="constrained")
    stats = summary(table, ["label", loads[0]])
    for label in ordered(stats["label"].tolist()):
        rows = stats[stats["label"] == label].sort_values(loads[0])
        ax.plot(rows[loads[0]], rows["mean"], marker="o", label=label)
        ax.fill_between(rows[loads[0]], rows["low"], rows["high"], alpha=0.2)
    ax.set_xlabel(loads[0].split("_", 1)[1].replace("_", " "))
    ax.set_ylabel("average JCT (s)")
    ax.legend(fontsize=8)
    ax.set_title(f"{name}: average JCT against load (95% bootstrap CI over seeds)")
    _save(fig, out, f"{name}-jct_vs_load", written)


def _fig_runs(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """JCT CDFs, utilisation over time and accumulation choices, from the per-run tables."""
    import matplotlib.pyplot as plt

    first = configurations(table)[0][1]
    loads = [c for c in LOAD_COLUMNS if c in first and first[c].nunique() > 1]
    if loads:
        first = first[first[loads[0]] == sorted(first[loads[0]].unique())[-1]]
    labels = ordered(first["label"].tolist())
    jobs = {
        label: pd.concat(
            [
                read_run_jobs(r["results_dir"], r["key"])
                for r in first[first["label"] == label].to_dict("records")
            ],
            ignore_index=True,
        )
        for label in labels
    }
    fig, ax = plt.subplots(layout="constrained")
    for label in labels:
        jct = np.sort(jobs[label]["jct"].to_numpy(dtype=float))
        ax.step(jct, np.arange(1, len(jct) + 1) / len(jct), where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("JCT (s)")
    ax.set_ylabel("fraction of jobs")
    ax.legend(fontsize=8)
    ax.set_title(f"{name}: JCT CDF (every job of every seed)")
    _save(fig, out, f"{name}-jct_cdf", written)

    fig, axes = plt.subplots(
        len(labels),
        1,
        sharex=True,
        squeeze=False,
        layout="constrained",
        figsize=(8.0, 1.6 * len(labels) + 1.0),
    )
    for ax, label in zip(axes[:, 0], labels, strict=True):
        run = first[first["label"] == label].sort_values("seed").iloc[0]
        series = read_run_utilisation(run["results_dir"], run["key"])
        ax.fill_between(
            series["start"], series["busy_gpus"], step="post", alpha=0.5, label="busy GPUs"
        )
        ax.fill_between(
            series["start"], series["shared_gpus"], step="post", alpha=0.7, label="shared GPUs"
        )
        ax.set_ylabel(label, fontsize=8)
    axes[0, 0].legend(fontsize=8, loc="upper right")
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(f"{name}: GPUs busy and shared over time (lowest seed)")
    _save(fig, out, f"{name}-utilisation", written)

    fig, (left, right) = plt.subplots(1, 2, layout="constrained", figsize=(10.0, 4.5))
    factors = sorted({int(a) for frame in jobs.values() for a in frame["accumulation"]})
    bottom = np.zeros(len(labels))
    for factor in factors:
        share = np.array([(jobs[lb]["accumulation"] == factor).mean() for lb in labels])
        left.bar(labels, share, bottom=bottom, label=f"s = {factor}")
        bottom += share
    left.set_ylabel("fraction of jobs")
    left.set_title("accumulation factor at the end of each job", fontsize=9)
    left.legend(fontsize=8)
    stats = summary(first, ["label"], "shared_gpu_time_share").set_index("label").loc[labels]
    right.bar(labels, 100 * stats["mean"], color="#DD8452")
    right.set_ylabel("shared GPU-time (% of busy)")
    right.set_title("sharing decisions", fontsize=9)
    for ax in (left, right):
        ax.tick_params(axis="x", labelrotation=30)
    fig.suptitle(f"{name}: sub-batch and sharing choices")
    _save(fig, out, f"{name}-choices", written)


def _paper(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """The figures and tables of docs/results.md for this sweep."""
    from sjfbsbf.experiments.figures_paper import plot_load_sweep, plot_normalized_jct
    from sjfbsbf.experiments.tables import tables_markdown

    if "tiresias" in set(table["label"]):
        for suffix in ("png", "pdf"):
            plot_normalized_jct(table, out / f"{name}-normalized_jct.{suffix}")
            written.append(out / f"{name}-normalized_jct.{suffix}")
    if "wl_rate_factor" in table and table["wl_rate_factor"].nunique() > 1:
        for suffix in ("png", "pdf"):
            plot_load_sweep(table, out / f"{name}-load_sweep.{suffix}")
            written.append(out / f"{name}-load_sweep.{suffix}")
    path = out / f"{name}-tables.md"
    with atomic_path(path) as tmp:
        tmp.write_text(tables_markdown(table) + "\n", encoding="utf-8")
    written.append(path)


def _regimes(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """The regime maps of a regime sweep and their tables (``<sweep>-regimes.md``)."""
    cells = sweep_cells(table)
    for factor in map_factors(table):
        stem = f"{name}-map-{factor.split('_', 1)[1]}"
        plot_regime_map(cells, factor, out / f"{stem}.png")
        written.extend([out / f"{stem}.png", out / f"{stem}.pdf"])
    path = out / f"{name}-regimes.md"
    with atomic_path(path) as tmp:
        tmp.write_text(regime_markdown(cells), encoding="utf-8")
    written.append(path)


def _fig_gaps(path: Path, out: Path, written: list[Path]) -> None:
    import matplotlib.pyplot as plt

    table = pd.read_csv(path) if path.suffix == ".csv" else pd.read_json(path)
    policies = ordered(table["policy"].tolist())
    fig, ax = plt.subplots(layout="constrained")
    for x, policy in enumerate(policies):
        rows = table[table["policy"] == policy]
        low = 100 * rows["gap_low"].astype(float)
        high = 100 * rows["gap_high"].astype(float).replace(np.inf, np.nan)
        ax.scatter(np.full(len(rows), x), low, s=8, color="gray", alpha=0.5)
        ax.errorbar(
            x,
            low.mean(),
            yerr=[[0.0], [max(0.0, high.mean() - low.mean())]],
            fmt="o",
            color="#C44E52",
            capsize=4,
        )
    ax.set_xticks(range(len(policies)), policies, rotation=30, ha="right")
    ax.set_ylabel("gap to the optimum (%)")
    ax.set_title(
        f"{path.stem}: mean gap interval [low, high] per policy; dots: each instance's low end",
        fontsize=9,
    )
    _save(fig, out, f"{path.stem}-gaps", written)


def make_figures(
    results: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    gaps: Sequence[str | os.PathLike[str]] = (),
) -> list[Path]:
    """Draw every figure of the results folders and gap tables into ``out_dir``.

    Returns
    -------
    list of Path
        The files written (PNG and PDF of each figure).

    Raises
    ------
    InstanceError
        A results folder without its table, or a gap table that is missing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    final = Path(out_dir)
    final.mkdir(parents=True, exist_ok=True)
    # Draw into a private folder; move the files into place only once every input was read, so
    # a corrupt input leaves nothing half-written (issue 35 item 15).
    out = Path(tempfile.mkdtemp(dir=final, prefix=".figs-"))
    try:
        drawn = _draw(results, gaps, out, plt)
        written = []
        for path in drawn:
            target = final / path.name
            check_output(target)
            os.replace(path, target)
            written.append(target)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return written


def _draw(
    results: Sequence[str | os.PathLike[str]],
    gaps: Sequence[str | os.PathLike[str]],
    out: Path,
    plt: Any,
) -> list[Path]:
    """Every figure and table of :func:`make_figures`, into ``out``."""
    written: list[Path] = []
    with plt.style.context(STYLE):
        for directory in results:
            table = read_results(directory)
            for name, rows in table.groupby("sweep", sort=True):
                if is_regime_sweep(rows):  # maps of the whole sweep; the rest on its default plane
                    _regimes(str(name), rows, out, written)
                    rows = default_plane(rows)
                written.extend(write_factor_maps(str(name), rows, out))
                _fig_avg_jct(str(name), rows, out, written)
                _fig_load(str(name), rows, out, written)
                _fig_runs(str(name), rows, out, written)
                _paper(str(name), rows.drop(columns="results_dir"), out, written)
        for gap in gaps:
            path = Path(gap)
            if not path.is_file():
                raise InstanceError(
                    "no such gap table (write one with 'sjfbsbf gap --out')", source=str(path)
                )
            _fig_gaps(path, out, written)
    return written
