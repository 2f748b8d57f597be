"""What a sweep keeps of each run beside its results row: the per-job table and a downsampled
utilisation series, as Parquet next to the run record (docs/results-schema.md).

The worker returns both with the record (:func:`run_details`); the parent writes them before the
record (:func:`write_details`), so an ``ok`` record on disk always has its tables, and a record
whose tables are missing is run again (:func:`details_problem`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sjfbsbf.core.atomic import atomic_path
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import check_input
from sjfbsbf.sim.result import SimResult

#: Most rows of a utilisation series (equal-width time bins over the simulated span).
UTILISATION_BINS = 500
#: Columns of a utilisation series: bin bounds (s) and time-weighted means over the bin.
UTILISATION_COLUMNS = (
    "start",
    "end",
    "busy_gpus",
    "shared_gpus",
    "mem_used_gb",
    "running",
    "pending",
)
#: File suffixes of a run's tables, next to ``runs/<key>.json``.
JOBS_SUFFIX = ".jobs.parquet"
UTILISATION_SUFFIX = ".utilisation.parquet"


def utilisation_series(ticks: pd.DataFrame, bins: int = UTILISATION_BINS) -> pd.DataFrame:
    """Downsample a per-tick table to at most ``bins`` equal-width bins of time-weighted means.

    The tick table's state is constant over each row's ``duration``, so each bin's mean is exact:
    the integral of the piecewise-constant series over the bin divided by its width. The bins
    cover the span from the first processed tick to the last job's release; Σ busy_gpus · width
    over the bins is the busy GPU-time of ``gpu_utilization`` (docs/model.md §4).
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins!r}")
    times = ticks["time"].to_numpy(dtype=float)
    widths = ticks["duration"].to_numpy(dtype=float)
    first, last = float(times[0]), float(times[0] + widths.sum())
    values = [c for c in UTILISATION_COLUMNS if c not in ("start", "end")]
    if last <= first:
        row = {"start": first, "end": last, **{c: float(ticks[c].iloc[0]) for c in values}}
        return pd.DataFrame([row], columns=list(UTILISATION_COLUMNS))
    count = int(min(bins, len(times)))
    edges = np.linspace(first, last, count + 1)
    bounds = np.concatenate(([first], first + np.cumsum(widths)))
    out: dict[str, np.ndarray] = {"start": edges[:-1], "end": edges[1:]}
    for column in values:
        level = ticks[column].to_numpy(dtype=float)
        integral = np.concatenate(([0.0], np.cumsum(level * widths)))
        at_edges = np.interp(edges, bounds, integral)
        out[column] = np.diff(at_edges) / np.diff(edges)
    return pd.DataFrame(out, columns=list(UTILISATION_COLUMNS))


def run_details(result: SimResult) -> dict[str, pd.DataFrame]:
    """The tables a sweep keeps of one run: ``jobs`` and ``utilisation``."""
    return {"jobs": result.jobs, "utilisation": utilisation_series(result.ticks)}


def detail_paths(record_path: Path) -> tuple[Path, Path]:
    """The per-job table and utilisation series files of the run record ``record_path``."""
    stem = record_path.name.removesuffix(".json")
    return (
        record_path.with_name(stem + JOBS_SUFFIX),
        record_path.with_name(stem + UTILISATION_SUFFIX),
    )


def write_details(record_path: Path, details: dict[str, pd.DataFrame]) -> None:
    """Write a run's tables next to its record (each atomically), before the record itself."""
    jobs_path, utilisation_path = detail_paths(record_path)
    for frame, path in ((details["jobs"], jobs_path), (details["utilisation"], utilisation_path)):
        with atomic_path(path) as tmp:
            frame.to_parquet(tmp, index=False)


def details_problem(record_path: Path, n_jobs: object = None) -> str | None:
    """Why an ``ok`` record's tables cannot be used, or ``None``: a file missing or not a regular
    file, not readable Parquet (its footer is read, not its rows), or a per-job table whose row
    count is not the record's ``n_jobs`` (issue 35 item 16: a truncated table was reused)."""
    import pyarrow.parquet as pq

    paths = detail_paths(record_path)
    missing = [p.name for p in paths if p.is_symlink() or not p.is_file()]
    if missing:
        return f"{', '.join(missing)} missing"
    for path in paths:
        try:
            rows = pq.read_metadata(path).num_rows
        except Exception as exc:  # pyarrow: truncated, not Parquet
            return f"{path.name} unreadable ({type(exc).__name__})"
        if path == paths[0] and isinstance(n_jobs, int) and rows != n_jobs:
            return f"{path.name} has {rows} rows, the record {n_jobs} jobs"
    return None


def read_run_jobs(out_dir: str | Path, key: str) -> pd.DataFrame:
    """The per-job table of run ``key`` of the sweep in ``out_dir``.

    Raises
    ------
    InstanceError
        One line naming the file: missing, not a regular file, or not readable Parquet.
    """
    return _read_detail(detail_paths(Path(out_dir) / "runs" / f"{key}.json")[0])


def read_run_utilisation(out_dir: str | Path, key: str) -> pd.DataFrame:
    """The utilisation series of run ``key`` of the sweep in ``out_dir`` (errors as
    :func:`read_run_jobs`)."""
    return _read_detail(detail_paths(Path(out_dir) / "runs" / f"{key}.json")[1])


def _read_detail(path: Path) -> pd.DataFrame:
    check_input(path)
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow's errors (truncated, not Parquet): one line
        raise InstanceError(
            f"not a readable run table ({type(exc).__name__}); run the sweep again to rewrite it",
            source=str(path),
        ) from None
