"""The regime map (docs/results.md §6): where benefit-checked sharing pays, and by how much.

A regime sweep varies the load (``wl_rate_factor``), the model mix (``wl_mix``) and at least one
of the interference model (``sim_interference``) and the GPU memory (``wl_gpu_mem_gb``). Each
map is a plane through it: load × one factor, the others at their defaults
(:data:`PLANE_DEFAULTS`), one heat map per mix and per ratio of :data:`MAP_RATIOS`. A cell is the
ratio of the seed-mean average JCTs of two policies on the same instances, with a 95% paired
percentile-bootstrap interval (seeds resampled together, fixed bootstrap seed); it is *better*
or *worse* only when the interval excludes 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.experiments.tables import markdown
from sjfbsbf.workloads.generators import MODEL_MIXES

#: The ratios of the map: (numerator, denominator); below 1 the numerator is better.
MAP_RATIOS: tuple[tuple[str, str], ...] = (
    ("sjf-bsbf", "tiresias"),
    ("sjf-bsbf", "sjf-ffs"),
    ("sjf-bsbf", "sjf"),
    ("sjf-bsbf-plus", "sjf-bsbf"),
    ("sjf-bsbf", "gandiva"),
    ("sjf-bsbf", "lucid"),
)
#: The load axis of every map, and the facet (one column of heat maps per value).
LOAD, FACET = "wl_rate_factor", "wl_mix"
#: The second axis of a map -> the value every other map holds it at (the sweep defaults).
PLANE_DEFAULTS: Mapping[str, Any] = {"sim_interference": "time-slicing", "wl_gpu_mem_gb": 12.0}
#: Display order of a factor's levels (others sorted): the contention presets first, mildest
#: (MPS-like) after the default, then the calibrated and the measured model.
LEVEL_ORDER: Mapping[str, tuple[str, ...]] = {
    "sim_interference": ("time-slicing", "mps", "gavel-fitted", "gavel-measured"),
}
#: Bootstrap: resamples, confidence level and seed (deterministic intervals).
RESAMPLES, CONFIDENCE, SEED = 2000, 0.95, 0


def is_regime_sweep(table: pd.DataFrame) -> bool:
    """Whether a sweep's table varies load, mix and at least one factor of a map, and ran both
    policies of at least one ratio of :data:`MAP_RATIOS` (else there is no map to draw)."""
    varies = all(c in table and table[c].nunique() > 1 for c in (LOAD, FACET))
    labels = set(table["label"]) if "label" in table else set()
    ratio = any(num in labels and den in labels for num, den in MAP_RATIOS)
    return varies and ratio and bool(map_factors(table))


def map_factors(table: pd.DataFrame) -> list[str]:
    """The factors of :data:`PLANE_DEFAULTS` that the sweep varies (one map each)."""
    return [c for c in PLANE_DEFAULTS if c in table and table[c].nunique() > 1]


def default_plane(table: pd.DataFrame, keep: str | None = None) -> pd.DataFrame:
    """The rows at the default value of every varied map factor except ``keep`` (its first
    level if the sweep did not run the default)."""
    for column in map_factors(table):
        if column != keep:
            value = PLANE_DEFAULTS[column]
            if value not in set(table[column]):
                value = _levels(table, column)[0]
            table = table[table[column] == value]
    return table


def ratio_ci(num: Sequence[float], den: Sequence[float]) -> tuple[float, float, float]:
    """Ratio of the means of paired per-seed values and its 95% paired percentile bootstrap.

    Each resample draws seeds with replacement (the same seeds for both policies) and takes the
    ratio of the resampled means; the interval is the 2.5th and 97.5th percentile of
    :data:`RESAMPLES` of them, from a generator seeded with :data:`SEED` (what
    ``scipy.stats.bootstrap(..., paired=True, method="percentile")`` computes, without its
    per-call overhead: a map has hundreds of cells; the tests compare the two). Fewer than two
    pairs, or ratios identical on every seed, give the ratio itself as both ends.
    """
    a = np.asarray(num, dtype=float)
    b = np.asarray(den, dtype=float)
    ratio = float(a.mean() / b.mean())
    if len(a) < 2 or np.ptp(a / b) == 0:
        return ratio, ratio, ratio
    index = np.random.default_rng(SEED).integers(0, len(a), size=(RESAMPLES, len(a)))
    resampled = a[index].mean(axis=1) / b[index].mean(axis=1)
    tail = 100 * (1 - CONFIDENCE) / 2
    low, high = np.percentile(resampled, [tail, 100 - tail])
    return ratio, float(low), float(high)


def regime_cells(
    table: pd.DataFrame, num: str, den: str, factors: Sequence[str], metric: str = "avg_jct"
) -> pd.DataFrame:
    """One row per cell of ``factors``: ratio ``num`` ÷ ``den`` of the seed means, its interval,
    the number of seeds, the verdict (``better``, ``worse``: the interval excludes 1; ``tie``)
    and ``duplicate_of``: empty, or the first cell (in the table's sorted order) whose runs give
    exactly the same ``metric`` for every policy and seed (e.g. 48 GB where memory never binds
    from 24 GB up): :func:`verdict_counts` counts such a cell once. Seeds missing either policy
    are left out of that cell."""
    rows = []
    seen: dict[tuple[Any, ...], str] = {}
    for key, cell in table.groupby(list(factors), sort=True):
        wide = cell.pivot_table(index="seed", columns="label", values=metric).dropna()
        if num not in wide or den not in wide or wide.empty:
            continue
        ratio, low, high = ratio_ci(wide[num].tolist(), wide[den].tolist())
        verdict = "better" if high < 1 else "worse" if low > 1 else "tie"
        keys = key if isinstance(key, tuple) else (key,)
        runs = tuple(sorted(zip(cell["label"], cell["seed"], cell[metric], strict=True)))
        name = ", ".join(f"{_name(c)}={v:g}" if isinstance(v, float) else f"{_name(c)}={v}"
                         for c, v in zip(factors, keys, strict=True))  # fmt: skip
        first = seen.setdefault(runs, name)
        rows.append(
            {
                **dict(zip(factors, keys, strict=True)),
                "ratio": f"{num} / {den}",
                "value": ratio,
                "low": low,
                "high": high,
                "seeds": len(wide),
                "verdict": verdict,
                "duplicate_of": "" if first == name else first,
            }
        )
    return pd.DataFrame(rows)


def sweep_cells(
    table: pd.DataFrame,
    metric: str = "avg_jct",
    ratios: Sequence[tuple[str, str]] = MAP_RATIOS,
) -> pd.DataFrame:
    """Every cell of the sweep (mix × each varied map factor × load) for each ratio of
    ``ratios`` (default :data:`MAP_RATIOS`) whose policies it ran (:func:`regime_cells`)."""
    factors = [c for c in (FACET, *PLANE_DEFAULTS, LOAD) if c in table and table[c].nunique() > 1]
    labels = set(table["label"])
    frames = [
        regime_cells(table, num, den, factors, metric)
        for num, den in ratios
        if num in labels and den in labels
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def map_cells(cells: pd.DataFrame, factor: str) -> pd.DataFrame:
    """The cells (:func:`sweep_cells`) of the map load × ``factor``: every other map factor at
    its default (:data:`PLANE_DEFAULTS`), or at its first level if the sweep did not run the
    default."""
    for column, value in PLANE_DEFAULTS.items():
        if column != factor and column in cells and len(cells):
            if value not in set(cells[column]):
                value = _levels(cells, column)[0]
            cells = cells[cells[column] == value]
    return cells


def _levels(cells: pd.DataFrame, factor: str) -> list[Any]:
    order = LEVEL_ORDER.get(factor, ())
    return sorted(
        cells[factor].unique(),
        key=lambda v: (order.index(v), "") if v in order else (len(order), v),
    )


def _short(value: float) -> str:
    """Two decimals without the leading zero (``.86``, ``1.05``): room for an interval."""
    text = f"{value:.2f}"
    return text[1:] if text.startswith("0.") else text


def _name(column: str) -> str:
    return column.split("_", 1)[1].replace("_", " ")


def plot_regime_map(
    cells: pd.DataFrame, factor: str, path: str | Path, *, ratios: Sequence[str] = ()
) -> None:
    """Heat maps of the map load × ``factor`` of ``cells`` (:func:`sweep_cells`): a row per
    ratio, a column per mix; each cell shows the ratio, green below 1 (the numerator is better),
    with its interval; bold where the interval excludes 1. Writes ``path`` as PNG and PDF.
    ``ratios`` (``"sjf-bsbf / tiresias"``, ...) keeps only those rows (default: every ratio).
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    cells = map_cells(cells, factor)
    if ratios:
        unknown = sorted(set(ratios) - set(cells["ratio"]))
        if unknown:
            raise ValueError(f"no cells of ratio {', '.join(unknown)} in this sweep")
        cells = cells[cells["ratio"].isin(ratios)]
    ratios = list(dict.fromkeys(cells["ratio"]))
    mixes = [mix for mix in MODEL_MIXES if mix in set(cells[FACET])]
    loads = sorted(cells[LOAD].unique())
    levels = _levels(cells, factor)
    norm = TwoSlopeNorm(vmin=0.5, vcenter=1.0, vmax=1.5)
    fig, axes = plt.subplots(
        len(ratios),
        len(mixes),
        squeeze=False,
        layout="constrained",
        figsize=(4.4 * len(mixes) + 1.2, 0.6 * len(levels) * len(ratios) + 1.2 * len(ratios)),
    )
    image = None
    for i, ratio in enumerate(ratios):
        for j, mix in enumerate(mixes):
            ax = axes[i, j]
            part = cells[(cells["ratio"] == ratio) & (cells[FACET] == mix)]
            rows = [{**r, "y": r[factor], "x": f"×{r[LOAD]:g}"} for r in part.to_dict("records")]
            image = draw_cells(ax, rows, levels, [f"×{x:g}" for x in loads], norm)
            if i == 0:
                ax.set_title(f"mix = {mix}", fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{ratio}\n{_name(factor)}", fontsize=8)
            if i == len(ratios) - 1:
                ax.set_xlabel("arrival rate (× default)", fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="ratio of mean average JCT")
    fig.suptitle(
        f"Regime map: load × {_name(factor)}; ratio of seed means (below 1: the first policy is "
        "better), 95% paired bootstrap interval below it; bold: the interval excludes 1",
        fontsize=9,
    )
    for suffix in (".png", ".pdf"):
        with atomic_path(Path(path).with_suffix(suffix)) as tmp:
            fig.savefig(tmp, format=suffix[1:], dpi=120)
    plt.close(fig)


def draw_cells(
    ax: Any, rows: Sequence[Mapping[Any, Any]], levels: Sequence[Any], ticks: Sequence[str],
    norm: Any,
) -> Any:  # fmt: skip
    """One heat map of ratio cells on ``ax``: a row per level (``row["y"]``), a column per tick
    (``row["x"]``); each cell's ratio, bold where its interval excludes 1, and the interval under
    it. Returns the image (for a colour bar)."""
    grid = np.full((len(levels), len(ticks)), np.nan)
    for row in rows:
        y, x = list(levels).index(row["y"]), list(ticks).index(row["x"])
        grid[y, x] = row["value"]
        bold = "bold" if row["verdict"] != "tie" else "normal"
        interval = f"{_short(row['low'])}–{_short(row['high'])}"
        ax.text(x, y - 0.12, f"{row['value']:.2f}", ha="center", va="center",
                fontsize=8, fontweight=bold)  # fmt: skip
        ax.text(x, y + 0.22, interval, ha="center", va="center", fontsize=5.5)
    image = ax.imshow(grid, cmap="RdYlGn_r", norm=norm, aspect="auto")
    ax.set_xticks(range(len(ticks)), list(ticks), fontsize=7)
    names = [f"{v:g}" if isinstance(v, float) else str(v) for v in levels]
    ax.set_yticks(range(len(levels)), names, fontsize=7)
    ax.grid(False)
    return image


def regime_markdown(cells: pd.DataFrame) -> str:
    """docs/results.md §6's tables from ``cells`` (:func:`sweep_cells`): per map, ratio and mix,
    ``ratio [low, high]`` by load (``*``: the interval excludes 1), and a count of better / tie /
    worse cells per ratio over every cell of the sweep."""
    parts = []
    for factor in [c for c in PLANE_DEFAULTS if c in cells]:
        parts.append(f"### load × {_name(factor)}\n")
        for (ratio, mix), rows in map_cells(cells, factor).groupby(["ratio", FACET], sort=False):
            shown = rows.assign(
                cell=[
                    f"{v:.3f} [{lo:.3f}, {hi:.3f}]{'' if d == 'tie' else ' *'}"
                    for v, lo, hi, d in zip(
                        rows["value"], rows["low"], rows["high"], rows["verdict"], strict=True
                    )
                ]
            ).pivot(index=factor, columns=LOAD, values="cell")
            shown.columns = [f"×{c:g}" for c in shown.columns]
            parts.append(f"{ratio}, mix {mix}:\n\n{markdown(shown)}\n")
    parts.append(
        "Every distinct cell of the sweep (better / worse: the 95% interval excludes 1; a cell "
        "whose runs equal an earlier cell's is counted once; each cell is one comparison, with "
        "no multiple-comparison correction: at 95%, about 1 in 20 verdicts on cells without a "
        "true difference is better or worse by chance):\n\n"
        + markdown(verdict_counts(cells), index=False)
    )
    return "\n".join(parts) + "\n"


def verdict_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """Per ratio of ``cells`` (:func:`regime_cells` rows): how many distinct cells (each one
    comparison), how many duplicates were left out, how many better / tied / worse, and the
    smallest and largest ratio."""
    counts = []
    for ratio, every in cells.groupby("ratio", sort=False):
        duplicate = every["duplicate_of"] != "" if "duplicate_of" in every else every["ratio"] == ""
        rows = every[~duplicate]
        tally = rows["verdict"].value_counts()
        counts.append(
            {
                "ratio": ratio,
                "cells": len(rows),
                "duplicates": int(duplicate.sum()),
                "better": int(tally.get("better", 0)),
                "tie": int(tally.get("tie", 0)),
                "worse": int(tally.get("worse", 0)),
                "best": rows["value"].min(),
                "worst": rows["value"].max(),
            }
        )
    return pd.DataFrame(counts)
