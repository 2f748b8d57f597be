"""Running a sweep: one record per run, failures kept apart, signals stop the workers.

* Each run ends as ``runs/<key>.json`` under the output directory, written atomically: either
  ``{"status": "ok", "row": {...}}`` or ``{"status": "failed", "error": {"type", "message"}}``.
  A rerun skips the runs whose record is valid and ``ok``; it runs again the failed ones and
  those whose record is missing, truncated or corrupt (with a warning naming the file).
* A run that raises does not stop the others; :func:`run_sweep` writes the tables of the runs
  that succeeded, then raises :class:`~sjfbsbf.core.errors.SweepRunsFailed`.
* SIGINT and SIGTERM stop the sweep's worker processes before the sweep exits (workers ignore
  SIGINT and, on Linux, die with the main process even when it is killed with SIGKILL).
  Finished runs are on disk as soon as they finish, so a rerun loses nothing finished.
* ``results.parquet`` / ``results.csv`` hold the ``ok`` runs of the current sweep file, labelled
  from it; ``manifest.json`` the versions, code hash, input hashes and failures.
"""

from __future__ import annotations

import json
import math
import os
import platform
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from sjfbsbf.core.atomic import atomic_path, write_text_atomic
from sjfbsbf.core.errors import InstanceError, Interrupted, SweepError, SweepRunsFailed, escape
from sjfbsbf.core.jsonio import read_json
from sjfbsbf.core.presets import make_interference
from sjfbsbf.experiments.sweep_spec import RunSpec, Sweep
from sjfbsbf.experiments.sweep_workloads import build_instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.metrics import METRIC_LABELS
from sjfbsbf.sim.simulator import simulate

#: Schema tag of a run record.
RUN_SCHEMA = "sjfbsbf.sweep-run/1"
Record = dict[str, Any]
_VERSIONED = ("sjfbsbf", "numpy", "pandas", "ortools", "pulp", "highspy")
Warn = Callable[[str], None]


def execute(run: RunSpec) -> dict[str, Any]:
    """Simulate one run and return its results row (JSON values; no label, no sweep name).

    Raises
    ------
    SweepError
        If an input file changed since the sweep hashed it.
    """
    _check_stamps(run)
    instance = build_instance(run.workload, run.seed)
    _check_stamps(run)
    sim = dict(run.sim)
    name = str(sim.pop("interference", "time-slicing"))
    throughputs = sim.pop("throughputs", None)  # read by the data presets only (gavel-measured)
    if throughputs is not None:
        interference = make_interference(name, throughputs=str(throughputs))
    else:
        interference = make_interference(name)
    policy = make_policy(run.policy, **run.options)
    started = time.perf_counter()
    result = simulate(instance, policy, interference=interference, record_segments=False, **sim)
    row: dict[str, Any] = {
        "key": run.key,
        "policy": run.policy,
        "options": json.dumps(run.options, sort_keys=True),
        "seed": run.seed,
        "n_jobs": instance.num_jobs,
        "num_gpus": instance.cluster.num_gpus,
        "runtime_s": time.perf_counter() - started,
        "stats": json.dumps(result.stats, sort_keys=True, default=str),
    }
    row.update({f"wl_{k}": v for k, v in run.workload.items()})
    row.update({f"sim_{k}": v for k, v in run.sim.items()})
    row.update(result.metrics)
    fallback_pairs = getattr(interference, "fallback_pairs", None)
    if fallback_pairs is not None:  # measured interference: pairs that got the fallback ξ
        row["interference_fallback_pairs"] = len(fallback_pairs())
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def _check_stamps(run: RunSpec) -> None:
    for path, size, mtime_ns in run.stamps:
        stat = os.stat(path)
        if (stat.st_size, stat.st_mtime_ns) != (size, mtime_ns):
            raise SweepError(f"input file {path} changed after the sweep hashed it; run it again")


def attempt(run: RunSpec) -> Record:
    """Run ``run``; return its record, ``ok`` or ``failed`` (never raises an ``Exception``)."""
    try:
        row = execute(run)
    except Exception as exc:
        return failure_record(run, exc)
    return {
        "schema": RUN_SCHEMA,
        "key": run.key,
        "status": "ok",
        "config": run.config(),
        "row": row,
    }


def failure_record(run: RunSpec, exc: BaseException) -> Record:
    """The record of a run that raised ``exc``."""
    return _record(run, "failed", error={"type": type(exc).__name__, "message": str(exc)})


def _record(run: RunSpec, status: str, **content: Any) -> Record:
    return {
        "schema": RUN_SCHEMA,
        "key": run.key,
        "status": status,
        "config": run.config(),
        **content,
    }


def read_record(path: Path, key: str) -> tuple[Record | None, str | None]:
    """A run record: ``(record, None)``; ``(None, None)`` if absent; ``(None, why)`` if bad."""
    if not path.exists():
        return None, None
    try:
        data = read_json(path)
    except InstanceError as exc:
        return None, exc.message
    problem = _record_problem(data, key)
    return (None, problem) if problem is not None else (data, None)


def _record_problem(data: Any, key: str) -> str | None:
    if not isinstance(data, dict) or data.get("schema") != RUN_SCHEMA:
        return f"not a run record (schema {RUN_SCHEMA})"
    if data.get("key") != key:
        return f"holds run {data.get('key')!r}, not {key!r}"
    if data.get("status") == "failed":
        error = data.get("error")
        ok = isinstance(error, dict) and all(
            isinstance(error.get(k), str) for k in ("type", "message")
        )
        return None if ok else "a failure record without its error"
    if data.get("status") != "ok":
        return f"unknown status {data.get('status')!r}"
    row = data.get("row")
    if not isinstance(row, dict) or row.get("key") != key:
        return "no results row for this run"
    missing = [m for m in METRIC_LABELS if not isinstance(row.get(m), int | float)]
    return f"results row without {', '.join(missing)}" if missing else None


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
        write_text_atomic(runs_dir / f"{run.key}.json", json.dumps(record, default=str))
        if record["status"] != "ok":
            error = record["error"]
            failures.append((run.describe(), f"{error['type']}: {error['message']}"))
        done += 1
        if progress is not None:
            progress(done, total)

    with _signals_raise():
        if backend == "ray":
            _run_ray(todo, workers, finished)
        else:
            _run_local(todo, workers, finished)
    table = collect(sweep, out, warn=warn)
    _write_manifest(sweep, out, backend, len(table))
    if failures:
        raise SweepRunsFailed(failures, total, str(out))
    return table


@contextmanager
def _signals_raise() -> Iterator[None]:
    """While running, SIGTERM raises :class:`Interrupted` (SIGINT already raises
    KeyboardInterrupt), so the backends can stop their workers before the process exits."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _worker_init(parent: int | None) -> None:
    """Workers leave SIGINT to the main process, die on SIGTERM, and (Linux) get SIGTERM when
    their parent dies, even by SIGKILL (main process, or the forkserver that exits with it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # The worker was born with SIGINT and SIGTERM blocked (see _run_local): a Ctrl-C that
    # arrived before this point is dropped, a SIGTERM (the main process stopping its workers)
    # now kills it, instead of either running the main process's handlers in the worker.
    _mask_signals(signal.SIG_UNBLOCK)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if parent is not None and os.getppid() != parent:  # the main process died before prctl
        os._exit(1)


def _mask_signals(how: int) -> None:
    """Block or unblock SIGINT and SIGTERM in the calling thread (POSIX; a no-op elsewhere)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(how, {signal.SIGINT, signal.SIGTERM})


def _run_local(
    todo: list[RunSpec], workers: int, finished: Callable[[RunSpec, Record], None]
) -> None:
    if workers <= 1 or len(todo) <= 1:
        for run in todo:
            finished(run, attempt(run))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context()
    parent = os.getpid() if context.get_start_method() == "fork" else None
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(todo)),
        mp_context=context,
        initializer=_worker_init,
        initargs=(parent,),
    )
    try:
        # Workers are created by the submissions: block SIGINT and SIGTERM meanwhile so that no
        # worker runs this process's handlers before its initializer sets its own; a signal
        # that arrives meanwhile reaches this process when they are unblocked.
        _mask_signals(signal.SIG_BLOCK)
        try:
            futures = {pool.submit(attempt, run): run for run in todo}
        finally:
            _mask_signals(signal.SIG_UNBLOCK)
        for future in as_completed(futures):
            run = futures[future]
            try:
                record = future.result()
            except Exception as exc:  # the pool broke (a worker was killed): not the run's fault
                record = failure_record(run, exc)
            finished(run, record)
    except BaseException:
        _terminate(pool)
        raise
    pool.shutdown()


def _terminate(pool: Any) -> None:
    """Stop every worker process of a ``ProcessPoolExecutor`` now."""
    if hasattr(pool, "terminate_workers"):  # Python >= 3.14
        pool.terminate_workers()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API before
    manager = getattr(pool, "_executor_manager_thread", None)
    for process in processes:
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)
    # Let the pool's manager thread finish closing its wake-up pipe: the interpreter's exit hook
    # writes to that pipe, and racing the close printed "OSError: Bad file descriptor" (3.11).
    if manager is not None:
        manager.join(timeout=5)


def _run_ray(
    todo: list[RunSpec], workers: int, finished: Callable[[RunSpec, Record], None]
) -> None:
    """The same semantics on Ray: failures recorded, pending tasks cancelled on a signal."""
    try:
        import ray
    except ImportError:
        message = "the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'"
        raise SweepError(message) from None
    if not ray.is_initialized():
        ray.init()
    remote = ray.remote(attempt)
    queue = list(todo)
    pending: dict[Any, RunSpec] = {}
    try:
        while queue or pending:
            while queue and len(pending) < max(workers, 1):
                run = queue.pop(0)
                pending[remote.remote(run)] = run
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            run = pending.pop(ready)
            try:
                record = ray.get(ready)
            except Exception as exc:  # a worker died, the task was cancelled, ...
                record = failure_record(run, exc)
            finished(run, record)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise


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
    write_text_atomic(out / "results.csv", table.to_csv(index=False))
    return table


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
