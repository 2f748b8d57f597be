"""Where a sweep's runs execute: local worker processes or a Ray cluster, both stopped cleanly.

* SIGINT and SIGTERM stop the worker processes before the sweep exits: workers ignore SIGINT,
  die on SIGTERM and, on Linux, die with the main process even when it is killed with SIGKILL.
  They are created with both signals blocked, so a signal during start-up runs no handler of the
  main process in a worker.
* A run that raises is recorded as failed by :func:`~sjfbsbf.experiments.sweep_records.attempt`;
  a worker that dies is recorded as a failure of its run; the other runs go on.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sjfbsbf.core.errors import Interrupted, SweepError
from sjfbsbf.experiments.sweep_records import Record, attempt, failure_record
from sjfbsbf.experiments.sweep_spec import RunSpec


@contextmanager
def signals_raise() -> Iterator[None]:
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


def run_local(
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
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)  # gone at shutdown
    for process in processes:
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)
    # A worker killed while sending its result leaves the manager thread waiting for the rest
    # of that message for ever, and the interpreter's exit hook joins the thread: the sweep hung
    # after printing that it was interrupted. Every worker is dead now, so nothing else will
    # come: closing this process's copy of the result pipe's write end (the only one left)
    # gives the thread end-of-file; it marks the pool broken and ends.
    if manager is not None and manager.is_alive() and writer is not None:
        writer.close()
    # Let the pool's manager thread finish closing its wake-up pipe: the interpreter's exit hook
    # writes to that pipe, and racing the close printed "OSError: Bad file descriptor" (3.11).
    if manager is not None:
        manager.join(timeout=5)


def run_ray(todo: list[RunSpec], workers: int, finished: Callable[[RunSpec, Record], None]) -> None:
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
