"""What every figure of ``sjfbsbf figs`` shares: one style, the bootstrap, the panels of a sweep
(each workload configuration × load level) and saving as PNG + PDF (docs/results-schema.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path

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
        and table[c].astype(str).nunique(dropna=False) > 1  # absent (NaN) is a level too
    ]
    if not varying:
        return [("", table)]
    out = []
    for values, rows in table.groupby(varying, sort=True, dropna=False):
        parts = values if isinstance(values, tuple) else (values,)
        title = ", ".join(
            f"{c.split('_', 1)[1]}={_level(v)}" for c, v in zip(varying, parts, strict=True)
        )
        out.append((title, rows))
    return out


def _level(value: Any) -> str:
    """A level as text; an absent one (NaN: the run left the key out) is the default."""
    absent = value is None or value is pd.NA or (isinstance(value, float) and value != value)
    return "default" if absent else str(value)


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


def save(fig: Figure, out_dir: Path, stem: str, written: list[Path]) -> None:
    """Write ``fig`` as ``stem.png`` and ``stem.pdf`` into ``out_dir``; close it."""
    import matplotlib.pyplot as plt

    for suffix in ("png", "pdf"):
        path = out_dir / f"{stem}.{suffix}"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=suffix, dpi=120)
        written.append(path)
    plt.close(fig)


def load_columns(table: pd.DataFrame) -> list[str]:
    """The load columns (:data:`LOAD_COLUMNS`) that vary in the sweep."""
    return [c for c in LOAD_COLUMNS if c in table and table[c].nunique() > 1]


def load_text(column: str, level: Any) -> str:
    """``rate factor=1.5`` for a load column and one of its levels."""
    value = f"{level:g}" if isinstance(level, float | int | np.number) else str(level)
    return f"{column.split('_', 1)[1].replace('_', ' ')}={value}"


def grid(table: pd.DataFrame) -> tuple[int, int, dict[tuple[int, int], tuple[str, pd.DataFrame]]]:
    """The sweep's panels as a grid: load levels (rows) × configurations (columns), each cell
    ``(title, rows)`` naming both; a configuration without some level has no cell there."""
    loads = load_columns(table)
    levels = (
        sorted({tuple(r) for r in table[loads].itertuples(index=False, name=None)})
        if loads
        else [()]
    )
    cells: dict[tuple[int, int], tuple[str, pd.DataFrame]] = {}
    configs = configurations(table)
    for column, (title, rows) in enumerate(configs):
        for row, level in enumerate(levels):
            part = rows
            for load, value in zip(loads, level, strict=True):
                part = part[part[load] == value]
            if len(part):
                texts = [load_text(c, v) for c, v in zip(loads, level, strict=True)]
                cells[row, column] = (", ".join(t for t in (title, *texts) if t), part)
    return len(levels), len(configs), cells


def panels(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Every workload/simulator configuration × load level of a sweep with its title (``""``
    when nothing varies), configuration by configuration: no level is dropped."""
    _, _, cells = grid(table)
    return [cells[key] for key in sorted(cells, key=lambda rc: (rc[1], rc[0]))]


def slug(title: str) -> str:
    """A file-name part for a panel title (``nodes=2, rate factor=1.5`` gives
    ``nodes-2_rate-factor-1.5``)."""
    text = re.sub(r"\s*,\s*", "_", title.strip())
    text = text.replace("=", "-").replace(" ", "-")
    return re.sub(r"[^A-Za-z0-9._-]+", "", text) or "all"
