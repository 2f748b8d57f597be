"""Figures from results folders alone (``sjfbsbf figs``): no simulation, one style, PNG + PDF.

Each results folder is a sweep's output (docs/results-schema.md); a gap table is what
``sjfbsbf gap --out`` or ``sjfbsbf solve --out`` wrote. :func:`make_figures` draws, per sweep:
average JCT per policy with 95% bootstrap confidence intervals over seeds (one panel per workload
configuration and load level, each titled with both), average JCT against the load where the
sweep varies it, JCT CDFs (every job of every seed, a panel per level), GPUs busy and shared over
time (the lowest seed) and accumulation-factor choices and shared GPU-time (a file per level,
:mod:`.figures_runs`); for a regime sweep (:mod:`sjfbsbf.experiments.regimes`) its maps and tables,
the other figures then on its default plane; and, per gap table, each policy's gap interval.
Headless (Agg); deterministic (the bootstrap takes a fixed seed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path, check_output
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.experiments.factor_maps import with_defaults, write_factor_maps
from sjfbsbf.experiments.figure_common import (
    STYLE,
    bootstrap_ci,
    configurations,
    grid,
    load_columns,
    load_text,
    save,
    summary,
)
from sjfbsbf.experiments.figures_gaps import fig_gaps
from sjfbsbf.experiments.figures_runs import fig_runs
from sjfbsbf.experiments.regime_fairness import fairness_markdown, has_fairness
from sjfbsbf.experiments.regimes import (
    default_plane,
    is_regime_sweep,
    map_factors,
    plot_regime_map,
    regime_markdown,
    sweep_cells,
)
from sjfbsbf.experiments.tables import ORDER, ordered, read_results

__all__ = ["ORDER", "bootstrap_ci", "make_figures", "ordered", "read_results", "summary"]


def _fig_avg_jct(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """One panel per configuration (columns) and load level (rows), each titled with both."""
    import matplotlib.pyplot as plt

    levels, configs, cells = grid(table)
    fig, axes = plt.subplots(
        levels,
        configs,
        squeeze=False,
        layout="constrained",
        figsize=(max(6.0, 4.0 * configs), 3.6 * levels + 0.9),
    )
    for (row, column), ax in np.ndenumerate(axes):
        if (row, column) not in cells:
            ax.set_visible(False)  # this configuration was not run at this load
            continue
        title, rows = cells[row, column]
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
    save(fig, out, f"{name}-avg_jct", written)


def _fig_load(name: str, table: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """Average JCT against the load, one panel per configuration (and level of any other load
    column): lines of different configurations are never averaged together."""
    import matplotlib.pyplot as plt

    loads = load_columns(table)
    if not loads:
        return
    parts = []
    for title, rows in configurations(table):
        if len(loads) == 1:
            parts.append((title, rows))
            continue
        for levels, part in rows.groupby(loads[1:], sort=True):
            values = levels if isinstance(levels, tuple) else (levels,)
            texts = [load_text(c, v) for c, v in zip(loads[1:], values, strict=True)]
            parts.append((", ".join(t for t in (title, *texts) if t), part))
    fig, axes = plt.subplots(
        1,
        len(parts),
        squeeze=False,
        layout="constrained",
        figsize=(max(8.0, 5.0 * len(parts)), 4.8),
        sharey=True,
    )
    for ax, (title, rows) in zip(axes[0], parts, strict=True):
        stats = summary(rows, ["label", loads[0]])
        for label in ordered(stats["label"].tolist()):
            line = stats[stats["label"] == label].sort_values(loads[0])
            ax.plot(line[loads[0]], line["mean"], marker="o", label=label)
            ax.fill_between(line[loads[0]], line["low"], line["high"], alpha=0.2)
        ax.set_xlabel(loads[0].split("_", 1)[1].replace("_", " "))
        ax.set_title(title or name, fontsize=9)
    axes[0, 0].set_ylabel("average JCT (s)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"{name}: average JCT against load (95% bootstrap CI over seeds)")
    save(fig, out, f"{name}-jct_vs_load", written)


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
    if has_fairness(table):  # results schema 2: stretch and ρ beside JCT
        path = out / f"{name}-fairness.md"
        with atomic_path(path) as tmp:
            tmp.write_text(fairness_markdown(table), encoding="utf-8")
        written.append(path)


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
                rows = with_defaults(rows)  # absent beliefs and constants: their defaults
                if is_regime_sweep(rows):  # maps of the whole sweep; the rest on its default plane
                    _regimes(str(name), rows, out, written)
                    rows = default_plane(rows)
                written.extend(write_factor_maps(str(name), rows, out))
                _fig_avg_jct(str(name), rows, out, written)
                _fig_load(str(name), rows, out, written)
                fig_runs(str(name), rows, out, written)
                _paper(str(name), rows.drop(columns="results_dir"), out, written)
        for gap in gaps:
            path = Path(gap)
            if not path.is_file():
                raise InstanceError(
                    "no such gap table (write one with 'sjfbsbf gap --out')", source=str(path)
                )
            fig_gaps(path, out, written)
    return written
