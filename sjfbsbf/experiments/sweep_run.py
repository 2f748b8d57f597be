"""Running a sweep: one record per run (:mod:`~sjfbsbf.experiments.sweep_records`), failures kept
apart, signals stop the workers.

* Each run ends as ``runs/<key>.json`` under the output directory, written atomically: either
  ``{"status": "ok", "row": {...}}`` or ``{"status": "failed", "error": {"type", "message"}}``.
  A rerun skips the runs whose record is valid and ``ok``; it runs again the failed ones and
  those whose record is missing, truncated or corrupt (with a warning naming the file).
* A run that raises does not stop the others; :func:`run_sweep` writes the tables of the runs
  that succeeded, then raises :class:`~sjfbsbf.core.errors.SweepRunsFailed`.
* SIGINT and SIGTERM stop the sweep's worker processes before the sweep exits
  (:mod:`sjfbsbf.experiments.sweep_backends`). Finished runs are on disk as soon as they
  finish, so a rerun loses nothing finished.
* ``results.parquet`` / ``results.csv`` hold the ``ok`` runs of the current sweep file, labelled
  from it; ``manifest.json`` the versions, code hash, input hashes and failures.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from sjfbsbf.core.atomic import atomic_path, write_text_atomic
from sjfbsbf.core.errors import Interrupted, SweepError, SweepRunsFailed, escape
from sjfbsbf.experiments.csv_out import csv_text
from sjfbsbf.experiments.sweep_backends import run_local, run_ray, signals_raise
from sjfbsbf.experiments.sweep_details import write_details
from sjfbsbf.experiments.sweep_records import (
    Record,
    read_record,
)
from sjfbsbf.experiments.sweep_spec import RunSpec, Sweep

_VERSIONED = ("sjfbsbf", "numpy", "pandas", "ortools", "pulp", "highspy")
Warn = Callable[[str], None]


def _warn_stderr(message: str) -> None:
    sys.stderr.write(f"sjfbsbf: warning: {escape(message)}\n")


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    *,
    workers: int = 1,
    backend: str = "local",
    progress: Callable[[int, int], None] | None = None,
    warn: Warn | None = None,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Run every unfinished run of ``sweep``; return the table of its successful runs.

    Parameters
    ----------
    sweep
        The sweep (:func:`~sjfbsbf.experiments.sweep_spec.load_sweep`).
    out_dir
        Output directory: ``runs/`` (one record per run), ``results.parquet``, ``results.csv``,
        ``manifest.json``.
    workers
        Parallel processes (``local``) or concurrent tasks (``ray``).
    backend
        ``"local"`` (processes) or ``"ray"`` (needs the ``ray`` extra; uses the cluster that
        ``ray.init()`` connects to, e.g. via ``RAY_ADDRESS``).
    progress
        Called as ``progress(done, total)`` at the start and after each run.
    warn
        Called with each warning (a corrupt run record); default: one line on stderr.
    overwrite
        Write into an output directory that holds another sweep's results or files a sweep did
        not write (refused otherwise, :func:`check_out_dir`).

    Raises
    ------
    SweepRunsFailed
        After writing the tables, if any run failed (its record says why; a rerun retries it).
    Interrupted, KeyboardInterrupt
        On SIGTERM / SIGINT, after stopping the worker processes.
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {backend!r}; use 'local' or 'ray'")
    warn = warn or _warn_stderr
    out = Path(out_dir)
    check_out_dir(sweep, out, overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    with folder_lock(out):
        return _run_locked(sweep, out, workers, backend, progress, warn)


@contextmanager
def folder_lock(out: Path) -> Iterator[None]:
    """Hold an advisory lock (``fcntl.flock``) on ``out/.sweep.lock`` while a sweep writes there
    (issue 35 item 18: two sweeps into one folder both ran every run).

    Raises
    ------
    SweepError
        One line: another sweep holds the lock, or the lock file is not a regular file.
    """
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(out / LOCK_FILE, flags, 0o644)
    except OSError as exc:
        raise SweepError(f"cannot lock the folder ({exc.strerror})", source=str(out)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepError(
                "another sweep is writing into this folder; wait for it to finish",
                source=str(out),
            ) from None
        yield
    finally:
        os.close(fd)  # releases the lock


def _run_locked(
    sweep: Sweep,
    out: Path,
    workers: int,
    backend: str,
    progress: Callable[[int, int], None] | None,
    warn: Warn,
) -> pd.DataFrame:
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    todo = []
    for run in sweep.runs:
        path = runs_dir / f"{run.key}.json"
        record, problem = read_record(path, run.key)
        if problem is not None:
            warn(f"{path}: unusable run record ({problem}); running it again")
        if record is None or record["status"] != "ok":
            todo.append(run)
    total = len(sweep.runs)
    done = total - len(todo)
    if progress is not None:
        progress(done, total)
    failures: list[tuple[str, str]] = []

    def finished(run: RunSpec, record: Record) -> None:
        nonlocal done
        path = runs_dir / f"{run.key}.json"
        details = record.pop("details", None)
        if record["status"] == "ok" and details is not None:
            write_details(path, details)  # the tables first: an ok record always has them
        write_text_atomic(path, json.dumps(record, default=str))
        if record["status"] != "ok":
            error = record["error"]
            failures.append((run.describe(), f"{error['type']}: {error['message']}"))
        done += 1
        if progress is not None:
            progress(done, total)

    try:
        with signals_raise():
            if backend == "ray":
                run_ray(todo, workers, finished)
            else:
                run_local(todo, workers, finished)
    except (Interrupted, KeyboardInterrupt) as exc:  # the finished runs are on disk
        signum = exc.signum if isinstance(exc, Interrupted) else 2
        raise Interrupted(signum, f"{done} of {total} runs kept in {out}") from None
    table = collect(sweep, out, warn=warn)
    _write_manifest(sweep, out, backend, len(table))
    if failures:
        raise SweepRunsFailed(failures, total, str(out))
    return table


def collect(
    sweep: Sweep, out_dir: str | os.PathLike[str], *, warn: Warn | None = None
) -> pd.DataFrame:
    """Gather the successful runs of ``sweep`` into ``results.parquet`` and ``results.csv``.

    Rows are found by run key and labelled from ``sweep`` (the current sweep file): a renamed
    variant's rows carry its new label. Records of other keys (older inputs or code) are ignored.
    """
    warn = warn or _warn_stderr
    out = Path(out_dir)
    rows = []
    for run in sweep.runs:
        path = out / "runs" / f"{run.key}.json"
        record, problem = read_record(path, run.key)
        if problem is not None:
            warn(f"{path}: unusable run record ({problem}); left out of the results")
        if record is not None and record["status"] == "ok":
            row = {k: v for k, v in record["row"].items() if k != "key"}
            rows.append({"key": run.key, "sweep": sweep.name, "label": run.label, **row})
    table = pd.DataFrame(rows)
    with atomic_path(out / "results.parquet") as tmp:
        table.to_parquet(tmp, index=False)
    write_text_atomic(out / "results.csv", csv_text(table))
    return table


#: What a sweep writes into its output directory (and temporaries of atomic writes, ``.*.tmp``).
SWEEP_OUTPUTS = frozenset(
    {"runs", "results.parquet", "results.csv", "manifest.json", ".sweep.lock"}
)
#: The advisory lock a running sweep holds in its output directory.
LOCK_FILE = ".sweep.lock"


def check_out_dir(sweep: Sweep, out: Path, *, overwrite: bool = False) -> None:
    """Refuse an output directory that is not this sweep's to write (docs/security.md): a link or
    a file; unless ``overwrite``, one whose ``manifest.json`` names another sweep, or that holds
    files no sweep writes (a sweep of the same name, edited, resumes as before).

    Raises
    ------
    SweepError
        One line naming the directory and what is in the way (and ``--overwrite``).
    """
    if out.is_symlink():
        raise SweepError("the output directory is a symbolic link; give the folder itself",
                         source=str(out))  # fmt: skip
    if not out.exists():
        return
    if not out.is_dir():
        raise SweepError("the output path exists and is not a directory", source=str(out))
    if overwrite:
        return
    hint = "; choose another --out, or --overwrite"
    manifest = out / "manifest.json"
    if manifest.is_file():
        try:
            named = json.loads(manifest.read_text(encoding="utf-8")).get("sweep")
        except (OSError, ValueError, AttributeError):
            named = None
        if named != sweep.name:
            raise SweepError(
                f"holds the results of another sweep ({named!r}, not {sweep.name!r}){hint}",
                source=str(out),
            )
    elif any((out / name).exists() for name in ("results.csv", "results.parquet")):
        # A sweep writes its tables and then its manifest: tables without one are not its own.
        raise SweepError(f"holds result tables without a sweep manifest{hint}", source=str(out))
    foreign = sorted(
        entry.name
        for entry in out.iterdir()
        if entry.name not in SWEEP_OUTPUTS
        and not (entry.name.startswith(".") and entry.name.endswith(".tmp"))
    )
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f", … ({len(foreign)} entries)" if len(foreign) > 5 else ""
        )
        raise SweepError(f"holds files a sweep does not write ({shown}){hint}", source=str(out))


def _write_manifest(sweep: Sweep, out: Path, backend: str, succeeded: int) -> None:
    from importlib.metadata import PackageNotFoundError, version

    def installed(package: str) -> str | None:
        try:
            return version(package)
        except PackageNotFoundError:
            return None

    failed = []
    for run in sweep.runs:
        record, _ = read_record(out / "runs" / f"{run.key}.json", run.key)
        if record is not None and record["status"] == "failed":
            failed.append({"key": run.key, "label": run.label, "seed": run.seed, **record["error"]})
    manifest = {
        "sweep": sweep.name,
        "source": sweep.source,
        "config_hash": sweep.config_hash,
        "config": sweep.text,
        "code": sweep.code,
        "inputs": dict(sweep.inputs),
        "runs": len(sweep.runs),
        "succeeded": succeeded,
        "failed": failed,
        "seeds": sorted({r.seed for r in sweep.runs}),
        "backend": backend,
        "python": platform.python_version(),
        "versions": {package: installed(package) for package in _VERSIONED},
    }
    write_text_atomic(out / "manifest.json", json.dumps(manifest, indent=1))
