"""Maps of load × one factor: what knowing is worth and which constants the conclusions hang on
(docs/results.md §7–§8).

A sweep that varies the load (``wl_rate_factor``) and one of :data:`FACTORS` — the duration
estimator, the interference belief, α, κ, ε, the restart overhead, the duration distribution —
gets, for each ratio of :data:`FACTOR_RATIOS` whose policies it ran, a heat map load × factor:
the ratio of the seed-mean average JCTs with its 95% paired bootstrap interval
(:func:`~sjfbsbf.experiments.regimes.regime_cells`), bold when the interval excludes 1; and a
table of each policy's mean average JCT relative to its own at the factor's reference level
(the default, e.g. ``oracle``), which shows how fast each policy degrades.

Every other factor the sweep varies (another workload, the estimator of a durations sweep)
splits the map into facets: one column of heat maps per value.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.experiments.regimes import LOAD, draw_cells, regime_cells
from sjfbsbf.experiments.tables import markdown

#: The factors with a map, and each one's reference level (the model's default).
FACTORS: Mapping[str, Any] = {
    "sim_estimator": "oracle",
    "sim_interference_belief": "oracle",
    "sim_alpha": 0.09,
    "sim_kappa": 1.5,
    "sim_eps": 0.05,
    "sim_restart_overhead": 30.0,
    "wl_durations": "log-uniform",
}
#: The ratios of a factor map: (numerator, denominator), below 1 the numerator is better.
FACTOR_RATIOS: tuple[tuple[str, str], ...] = (
    ("sjf-bsbf", "tiresias"),
    ("sjf-bsbf", "sjf-ffs"),
    ("sjf-bsbf", "sjf"),
    ("sjf-bsbf", "srtf"),
    ("sjf", "tiresias"),
    ("sjf-bsbf-plus", "sjf-bsbf"),
    ("sjf-bsbf", "gandiva"),
    ("sjf-bsbf", "lucid"),
)
#: Display names of the factors.
FACTOR_NAMES: Mapping[str, str] = {
    "sim_estimator": "duration estimator",
    "sim_interference_belief": "interference belief",
    "sim_alpha": "α (share of the 1-GPU step)",
    "sim_kappa": "κ",
    "sim_eps": "ε",
    "sim_restart_overhead": "restart overhead (s)",
    "wl_durations": "duration distribution",
}


def with_defaults(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each factor's column filled with its reference level where a run left it
    out (a sweep's ``oracle`` beliefs and unset constants are absent from its runs)."""
    table = table.copy()
    for column, default in FACTORS.items():
        if column in table:
            table[column] = table[column].where(table[column].notna(), default)
    return table


#: The map's horizontal axis when the load does not vary (a sweep over traces).
TRACE = "wl_trace"


def map_axis(table: pd.DataFrame) -> str | None:
    """The map's horizontal axis: the load when the sweep varies it, else the trace, else
    ``None`` (no map)."""
    for column in (LOAD, TRACE):
        if column in table and table[column].nunique() > 1:
            return column
    return None


def _tick(axis: str, value: Any) -> str:
    """An axis label: ``×1.5`` for a load, the file's stem for a trace."""
    if axis == LOAD:
        return f"×{value:g}"
    return str(value).rsplit("/", 1)[-1].removesuffix(".trace")


def varied_factors(table: pd.DataFrame) -> list[str]:
    """The factors of :data:`FACTORS` the sweep varies, when it also varies the load (or,
    without a load axis, the trace: :func:`map_axis`)."""
    table = with_defaults(table)
    if map_axis(table) is None:
        return []
    return [c for c in FACTORS if c in table and table[c].astype(str).nunique() > 1]


def level_order(table: pd.DataFrame, factor: str) -> list[Any]:
    """The factor's levels: numbers ascending; texts with the reference first, then
    ``lognormal`` by σ, then the rest by name."""
    levels = list(table[factor].unique())
    reference = FACTORS[factor]

    def key(value: Any) -> tuple[int, float, str]:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return (1, float(value), "")
        if value == reference:
            return (0, 0.0, "")
        text = str(value)
        if ":sigma=" in text:
            sigma = float(text.split("sigma=")[1].split(",")[0])
            return (1, sigma, text.split(":")[0])
        return (2, 0.0, text)

    return sorted(levels, key=key)


def factor_cells(table: pd.DataFrame, factor: str, metric: str = "avg_jct") -> pd.DataFrame:
    """The cells load × ``factor`` (× the facets) for every ratio of :data:`FACTOR_RATIOS`
    the sweep ran; a column ``facet`` names the facet (empty if none)."""
    table = with_defaults(table)
    axis = map_axis(table) or LOAD
    facets = _facets(table, factor)
    labels = set(table["label"])
    frames = []
    for num, den in FACTOR_RATIOS:
        if num in labels and den in labels:
            frames.append(regime_cells(table, num, den, [*facets, factor, axis], metric))
    if not frames:
        return pd.DataFrame()
    cells = pd.concat(frames, ignore_index=True)
    cells["facet"] = _facet_names(cells, facets)
    cells["x"] = [_tick(axis, v) for v in cells[axis]]
    cells["x_order"] = cells[axis]
    return cells


def _facets(table: pd.DataFrame, factor: str) -> list[str]:
    """Other columns that vary (not the map's axis, the factor, the seed or the label)."""
    axis = map_axis(table) or LOAD
    return [
        c
        for c in table.columns
        if c.startswith(("wl_", "sim_"))
        and c not in (factor, axis)
        and table[c].astype(str).nunique() > 1
    ]


def _facet_names(cells: pd.DataFrame, facets: Sequence[str]) -> list[str]:
    if not facets:
        return [""] * len(cells)
    return [
        ", ".join(f"{c.split('_', 1)[1]}={row[c]}" for c in facets)
        for row in cells.to_dict("records")
    ]


def degradation(table: pd.DataFrame, factor: str, metric: str = "avg_jct") -> pd.DataFrame:
    """Each policy's seed-mean ``metric`` ÷ its own at the factor's reference level, per load
    (and facet): rows policy × level, a column per load."""
    table = with_defaults(table)
    axis = map_axis(table) or LOAD
    facets = _facets(table, factor)
    reference = FACTORS[factor]
    means = table.groupby([*facets, "label", factor, axis], dropna=False)[metric].mean()
    frame = means.reset_index()
    base = frame[frame[factor] == reference].drop(columns=factor)
    merged = frame.merge(base, on=[*facets, "label", axis], suffixes=("", "_ref"))
    merged["relative"] = merged[metric] / merged[f"{metric}_ref"]
    merged["facet"] = _facet_names(merged, facets)
    merged["x"] = [_tick(axis, v) for v in merged[axis]]
    merged["x_order"] = merged[axis]
    return merged[["facet", "label", factor, "x", "x_order", metric, "relative"]]


def plot_factor_map(cells: pd.DataFrame, factor: str, path: str | Path, title: str) -> None:
    """Heat maps load × ``factor`` of ``cells`` (:func:`factor_cells`): a row per ratio, a
    column per facet; green below 1, the interval under each ratio, bold where it excludes 1.
    Writes ``path`` as PNG and PDF."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    ratios = list(dict.fromkeys(cells["ratio"]))
    facets = list(dict.fromkeys(cells["facet"]))
    loads = _xs(cells)
    levels = level_order(cells, factor)
    norm = TwoSlopeNorm(vmin=0.5, vcenter=1.0, vmax=1.5)
    fig, axes = plt.subplots(
        len(ratios),
        len(facets),
        squeeze=False,
        layout="constrained",
        figsize=(1.2 * len(loads) * len(facets) + 2.6, 0.5 * len(levels) * len(ratios) + 1.6),
    )
    image = None
    for i, ratio in enumerate(ratios):
        for j, facet in enumerate(facets):
            ax = axes[i, j]
            part = cells[(cells["ratio"] == ratio) & (cells["facet"] == facet)]
            rows = [{**r, "y": r[factor]} for r in part.to_dict("records")]
            image = draw_cells(ax, rows, levels, loads, norm)
            if i == 0 and facet:
                ax.set_title(facet, fontsize=8)
            if j == 0:
                ax.set_ylabel(f"{ratio}\n{FACTOR_NAMES[factor]}", fontsize=8)
            if i == len(ratios) - 1:
                ax.set_xlabel("arrival rate (× default)" if loads[0].startswith("×") else
                              "trace", fontsize=8)  # fmt: skip
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="ratio of mean average JCT")
    fig.suptitle(
        textwrap.fill(
            f"{title}: {_axis_name(loads)} × {FACTOR_NAMES[factor]}; ratio of seed means (below "
            "1: the first "
            "policy is better), 95% paired bootstrap interval below it; bold: it excludes 1",
            width=max(40, int(14 * fig.get_size_inches()[0])),
        ),
        fontsize=8,
    )
    for suffix in (".png", ".pdf"):
        with atomic_path(Path(path).with_suffix(suffix)) as tmp:
            fig.savefig(tmp, format=suffix[1:], dpi=120)
    plt.close(fig)


def _axis_name(ticks: Sequence[str]) -> str:
    return "load" if ticks and ticks[0].startswith("×") else "trace"


def _xs(cells: pd.DataFrame) -> list[str]:
    """The axis labels of ``cells`` in the axis' order (loads ascending, traces by name)."""
    pairs = cells[["x_order", "x"]].drop_duplicates().sort_values("x_order")
    return list(dict.fromkeys(pairs["x"]))


def compact_table(cells: pd.DataFrame, factor: str, levels: Sequence[Any]) -> pd.DataFrame:
    """Rows the factor's levels, columns ``ratio @ ×load``: the ratio, ``*`` when its interval
    excludes 1 (one facet's :func:`factor_cells`)."""
    shown = cells.assign(
        column=[f"{r} @ {x}" for r, x in zip(cells["ratio"], cells["x"], strict=True)],
        cell=[
            f"{v:.3f}{'' if d == 'tie' else '*'}"
            for v, d in zip(cells["value"], cells["verdict"], strict=True)
        ],
    ).pivot(index=factor, columns="column", values="cell")
    order = [f"{r} @ {x}" for r in dict.fromkeys(cells["ratio"]) for x in _xs(cells)]
    return shown.reindex(index=[v for v in levels if v in shown.index], columns=order)


def factor_markdown(table: pd.DataFrame, factor: str) -> str:
    """The tables of docs/results.md §7–§8 for one factor: per facet, each ratio
    ``value [low, high]`` (``*``: the interval excludes 1) by level and load; each policy's
    mean relative to its own at the reference level; and the verdict count per ratio, with the
    number of distinct cells it counts."""
    cells = factor_cells(table, factor)
    parts = [f"### {_axis_name(_xs(cells)) if len(cells) else 'load'} × {FACTOR_NAMES[factor]}\n"]
    levels = level_order(cells, factor) if len(cells) else []
    for facet_name, rows in cells.groupby("facet", sort=False):
        where = f" ({facet_name!s})" if facet_name else ""
        parts.append(
            f"In short{where}: each ratio by level and load (`*`: the 95% interval excludes "
            f"1):\n\n{markdown(compact_table(rows, factor, levels))}\n"
        )
    for (facet, ratio), rows in cells.groupby(["facet", "ratio"], sort=False):
        shown = rows.assign(
            cell=[
                f"{v:.3f} [{lo:.3f}, {hi:.3f}]{'' if d == 'tie' else ' *'}"
                for v, lo, hi, d in zip(
                    rows["value"], rows["low"], rows["high"], rows["verdict"], strict=True
                )
            ]
        ).pivot(index=factor, columns="x", values="cell")
        shown = shown.reindex(index=[v for v in levels if v in shown.index], columns=_xs(rows))
        where = f", {facet!s}" if facet else ""
        parts.append(f"{ratio!s}{where}:\n\n{markdown(shown)}\n")
    worse = degradation(table, factor)
    order = level_order(worse, factor) if len(worse) else []
    for facet, rows in worse.groupby("facet", sort=False):
        shown = rows.assign(cell=[f"{v:.3f}" for v in rows["relative"]]).pivot(
            index=["label", factor], columns="x", values="cell"
        )
        labels = list(dict.fromkeys(rows["label"]))
        shown = shown.reindex(
            index=[(lab, lev) for lab in labels for lev in order if (lab, lev) in shown.index],
            columns=_xs(rows),
        )
        where = f" ({facet!s})" if facet else ""
        reference = FACTORS[factor]
        parts.append(
            f"Each policy's mean average JCT ÷ its own at {FACTOR_NAMES[factor]} = "
            f"{reference}{where}:\n\n{markdown(shown)}\n"
        )
    counts = []
    for ratio, rows in cells.groupby("ratio", sort=False):
        tally = rows["verdict"].value_counts()
        counts.append(
            {
                "ratio": ratio,
                "cells (comparisons)": len(rows),
                "better": int(tally.get("better", 0)),
                "tie": int(tally.get("tie", 0)),
                "worse": int(tally.get("worse", 0)),
            }
        )
    if counts:
        parts.append(
            "Verdicts (95% paired bootstrap interval excludes 1; each cell is one comparison, "
            "no multiple-comparison correction):\n\n" + markdown(pd.DataFrame(counts), index=False)
        )
    return "\n".join(parts) + "\n"


def write_factor_maps(name: str, table: pd.DataFrame, out: Path) -> list[Path]:
    """For each factor the sweep varies with the load: its map (``<sweep>-factor-<key>.png``
    and ``.pdf``) and tables (``<sweep>-factor-<key>.md``). Returns the files written."""
    written: list[Path] = []
    for factor in varied_factors(table):
        stem = f"{name}-factor-{factor.split('_', 1)[1]}"
        cells = factor_cells(table, factor)
        if cells.empty:
            continue
        plot_factor_map(cells, factor, out / f"{stem}.png", name)
        written.extend([out / f"{stem}.png", out / f"{stem}.pdf"])
        path = out / f"{stem}.md"
        with atomic_path(path) as tmp:
            tmp.write_text(factor_markdown(table, factor), encoding="utf-8")
        written.append(path)
    return written
