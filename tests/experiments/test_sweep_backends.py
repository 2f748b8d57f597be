"""Where a sweep's runs execute (sjfbsbf.experiments.sweep_backends), in this process: which runs
go to worker processes, what a worker sets up before its first run, a worker that dies, and a
pool stopped on an interrupt. The runs are stand-ins that report the process that ran them; the
pool and Ray are stand-ins where the call itself is the rule (``test_sweep_signals.py`` signals
a real sweep in a subprocess, which mutmut cannot map to the functions it calls)."""

from __future__ import annotations

import concurrent.futures
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments import sweep_backends
from sjfbsbf.experiments.sweep_backends import (
    _mask_signals,
    _terminate,
    _worker_init,
    run_local,
    run_ray,
)
from sjfbsbf.experiments.sweep_spec import RunSpec

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")
SIGNALS = {signal.SIGINT, signal.SIGTERM}
_TESTS = os.getpid()  # the process running the tests (a stand-in run must not stop it)


def _runs(count: int) -> list[RunSpec]:
    return [RunSpec("s", {}, seed, f"run{seed}", "fifo") for seed in range(count)]


def where(run: RunSpec) -> dict[str, Any]:
    """A stand-in run: the record says which process ran it."""
    return {"label": run.label, "pid": os.getpid()}


def dies(run: RunSpec) -> dict[str, Any]:
    if os.getpid() == _TESTS:
        raise AssertionError("the run was not sent to a worker")
    os._exit(1)


def fast_or_stuck(run: RunSpec) -> dict[str, Any]:
    """``run0`` finishes at once; the others wait for a signal (SIGTERM kills a worker)."""
    if run.label != "run0":
        if os.getpid() == _TESTS:
            raise AssertionError("the run was not sent to a worker")
        signal.pause()
    return where(run)


def _blocked() -> set[int]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def _pdeathsig() -> int:
    value = ctypes.c_int()
    assert ctypes.CDLL(None).prctl(2, ctypes.byref(value)) == 0  # PR_GET_PDEATHSIG
    return value.value


class _Exited(Exception):
    pass


@pytest.fixture
def process_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The handlers, signal mask and parent-death signal of this process, put back after;
    ``os._exit`` raises :class:`_Exited` instead of ending the tests."""

    def exit_(status: int) -> None:
        raise _Exited(status)

    monkeypatch.setattr(os, "_exit", exit_)
    handlers = {sig: signal.getsignal(sig) for sig in SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    death = _pdeathsig() if sys.platform.startswith("linux") else 0
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None).prctl(1, death)


def test_mask_signals_blocks_and_unblocks_sigint_and_sigterm(process_state: None) -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    _mask_signals(signal.SIG_BLOCK)
    assert _blocked() >= SIGNALS
    _mask_signals(signal.SIG_UNBLOCK)
    assert not _blocked() & SIGNALS


@linux
@pytest.mark.parametrize("parent", [None, "mine"])
def test_a_worker_ignores_sigint_dies_on_sigterm_and_with_its_parent(
    process_state: None, parent: str | None
) -> None:
    """What ``_worker_init`` leaves in a worker born with both signals blocked: SIGINT ignored,
    SIGTERM's default action, both unblocked, and SIGTERM when its parent dies."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ctypes.CDLL(None).prctl(1, 0)
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    _worker_init(os.getppid() if parent == "mine" else None)
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert not _blocked() & SIGNALS
    assert _pdeathsig() == signal.SIGTERM


@linux
def test_a_worker_whose_parent_died_before_it_started_exits_with_status_1(
    process_state: None,
) -> None:
    with pytest.raises(_Exited) as info:
        _worker_init(os.getppid() + 1)  # not this process's parent: the parent it had is gone
    assert info.value.args == (1,)


@pytest.mark.parametrize(("workers", "count"), [(1, 3), (2, 1), (2, 2), (3, 4), (0, 2)])
def test_runs_go_to_worker_processes_only_with_two_workers_and_two_runs(
    monkeypatch: pytest.MonkeyPatch, workers: int, count: int
) -> None:
    monkeypatch.setattr(sweep_backends, "attempt", where)
    done: dict[str, dict[str, Any]] = {}
    run_local(_runs(count), workers, lambda run, record: done.update({run.label: record}))
    assert sorted(done) == [run.label for run in _runs(count)]
    pooled = workers >= 2 and count >= 2
    assert {record["pid"] != os.getpid() for record in done.values()} == {pooled}


class _Pool:
    """A stand-in ``ProcessPoolExecutor``: records how it was made, runs each submission at
    once, and notes whether SIGINT and SIGTERM were blocked meanwhile."""

    made: list[_Pool]

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs, self.blocked, self.shut = kwargs, [], 0
        self.made.append(self)

    def submit(self, function: Any, *args: Any) -> Future[Any]:
        self.blocked.append(_blocked() >= SIGNALS)
        future: Future[Any] = Future()
        future.set_result(function(*args))
        return future

    def shutdown(self) -> None:
        self.shut += 1


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
@pytest.mark.parametrize(("workers", "count"), [(2, 3), (5, 3)])
def test_the_pool_has_a_worker_per_run_up_to_workers_and_checks_a_forked_parent(
    monkeypatch: pytest.MonkeyPatch, process_state: None, method: str, workers: int, count: int
) -> None:
    """A forked worker is given this process's id, to exit if its parent died before its
    parent-death signal was set; a worker of a fork server, or spawned, has another parent.
    Every submission (which starts the workers) is made with SIGINT and SIGTERM blocked."""
    context = multiprocessing.get_context(method)
    monkeypatch.setattr(multiprocessing, "get_context", lambda: context)
    made: list[_Pool] = []
    monkeypatch.setattr(_Pool, "made", made, raising=False)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _Pool)
    monkeypatch.setattr(sweep_backends, "attempt", where)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    done: list[str] = []
    run_local(_runs(count), workers, lambda run, record: done.append(record["label"]))
    assert sorted(done) == [run.label for run in _runs(count)]
    (pool,) = made
    assert pool.kwargs == {
        "max_workers": min(workers, count),
        "mp_context": context,
        "initializer": sweep_backends._worker_init,
        "initargs": (os.getpid() if method == "fork" else None,),
    }
    assert pool.blocked == [True] * count and pool.shut == 1
    assert not _blocked() & SIGNALS  # unblocked after the submissions


def test_a_worker_that_dies_fails_its_runs_and_the_sweep_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sweep_backends, "attempt", dies)
    runs = _runs(2)
    done: dict[str, dict[str, Any]] = {}
    run_local(runs, 2, lambda run, record: done.update({run.key: record}))
    assert sorted(done) == sorted(run.key for run in runs)
    for record in done.values():
        assert record["status"] == "failed" and record["error"]["type"] == "BrokenProcessPool"
        assert "terminated abruptly" in record["error"]["message"]
    assert {record["key"] for record in done.values()} == set(done)


def test_an_interrupt_stops_the_workers_before_it_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """``finished`` raising (as SIGINT does in the main process) stops the worker still running
    its run, and the interrupt goes on up."""
    monkeypatch.setattr(sweep_backends, "attempt", fast_or_stuck)

    def finished(run: RunSpec, record: dict[str, Any]) -> None:
        raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            run_local(_runs(2), 2, finished)
        assert multiprocessing.active_children() == []
    finally:
        for child in multiprocessing.active_children():  # only if the test failed
            child.kill()
            child.join()


class _Process:
    def __init__(self, log: list[tuple[Any, ...]], name: str, alive: bool, obeys: bool) -> None:
        self.log, self.name, self.alive, self.obeys = log, name, alive, obeys

    def is_alive(self) -> bool:
        return self.alive

    def terminate(self) -> None:
        self.log.append((self.name, "terminate"))
        self.alive = self.alive and not self.obeys

    def kill(self) -> None:
        self.log.append((self.name, "kill"))
        self.alive = False

    def join(self, timeout: float | None = None) -> None:
        self.log.append((self.name, "join", timeout))


class _StoppedPool:
    def __init__(self, log: list[tuple[Any, ...]], processes: dict[int, _Process]) -> None:
        self.log, self._processes = log, processes
        self._executor_manager_thread = _Process(log, "manager", True, True)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.log.append(("shutdown", wait, cancel_futures))


def test_terminate_stops_each_worker_and_kills_one_that_ignores_sigterm() -> None:
    """Before Python 3.14: SIGTERM to the live workers, the pool shut without waiting and its
    queued work cancelled, then each worker waited for 5 s at most, killed if still alive, and
    the pool's manager thread waited for (5 s at most)."""
    log: list[tuple[Any, ...]] = []
    processes = {
        1: _Process(log, "obeys", alive=True, obeys=True),
        2: _Process(log, "gone", alive=False, obeys=True),
        3: _Process(log, "stubborn", alive=True, obeys=False),
    }
    _terminate(_StoppedPool(log, processes))
    assert log == [
        ("obeys", "terminate"),
        ("stubborn", "terminate"),
        ("shutdown", False, True),
        ("obeys", "join", 5),
        ("gone", "join", 5),
        ("stubborn", "join", 5),
        ("stubborn", "kill"),
        ("stubborn", "join", 5),
        ("manager", "join", 5),
    ]


class _Writer:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self.log = log

    def close(self) -> None:
        self.log.append(("writer", "close"))


class _Queue:
    def __init__(self, log: list[tuple[Any, ...]]) -> None:
        self._writer = _Writer(log)


@pytest.mark.parametrize("manager_alive", [True, False])
def test_terminate_closes_the_result_pipe_only_for_a_manager_still_waiting(
    manager_alive: bool,
) -> None:
    """Once every worker is stopped, a manager thread still alive may be waiting for the rest
    of a result its killed sender never finished: the result pipe's write end (read before the
    shutdown drops the queue) is closed so it reads end-of-file, before it is waited for. A
    manager that already ended leaves the pipe alone (tests/experiments/
    test_sweep_pool_teardown.py runs the real case)."""
    log: list[tuple[Any, ...]] = []
    pool = _StoppedPool(log, {1: _Process(log, "obeys", alive=True, obeys=True)})
    pool._executor_manager_thread.alive = manager_alive
    pool._result_queue = _Queue(log)  # type: ignore[attr-defined]
    original = pool.shutdown

    def shutdown(wait: bool = True, *, cancel_futures: bool = False) -> None:
        original(wait, cancel_futures=cancel_futures)
        pool._result_queue = None  # type: ignore[attr-defined]  # as ProcessPoolExecutor does

    pool.shutdown = shutdown  # type: ignore[method-assign]
    _terminate(pool)
    closed = [("writer", "close")] if manager_alive else []
    assert log == [
        ("obeys", "terminate"),
        ("shutdown", False, True),
        ("obeys", "join", 5),
        *closed,
        ("manager", "join", 5),
    ]


def test_terminate_uses_the_pools_own_terminate_workers_where_it_has_one() -> None:
    """Python >= 3.14: ``terminate_workers`` alone (the pool below has nothing else)."""
    stopped: list[str] = []

    class Pool:
        def terminate_workers(self) -> None:
            stopped.append("terminate_workers")

    _terminate(Pool())
    assert stopped == ["terminate_workers"]


class _Ref:
    def __init__(self, run: RunSpec) -> None:
        self.run = run


class _Ray:
    """A stand-in Ray: tasks run when fetched; notes how many were in flight at each wait."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.in_flight: list[int] = []
        self.cancelled: list[tuple[RunSpec, bool]] = []
        self.inits, self.stop_after, self.got = 0, stop_after, 0

    def is_initialized(self) -> bool:
        return self.inits > 0

    def init(self) -> None:
        self.inits += 1

    def remote(self, function: Any) -> Any:
        class Remote:
            def remote(self, run: RunSpec) -> _Ref:
                return _Ref(run)

        return Remote()

    def wait(self, refs: list[Any], num_returns: int) -> tuple[list[Any], list[Any]]:
        self.in_flight.append(len(refs))
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: _Ref) -> dict[str, Any]:
        self.got += 1
        if self.stop_after is not None and self.got > self.stop_after:
            raise KeyboardInterrupt
        return where(ref.run)

    def cancel(self, ref: _Ref, force: bool) -> None:
        self.cancelled.append((ref.run, force))


@pytest.mark.parametrize("workers", [0, 1, 2, 3])
def test_ray_keeps_at_most_workers_tasks_in_flight_in_order(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    ray = _Ray()
    monkeypatch.setitem(sys.modules, "ray", ray)
    runs = _runs(5)
    done: list[str] = []
    run_ray(runs, workers, lambda run, record: done.append(record["label"]))
    assert done == [run.label for run in runs] and ray.inits == 1
    width = max(workers, 1)
    assert ray.in_flight == [min(width, len(runs) - k) for k in range(len(runs))]


def test_ray_cancels_exactly_the_tasks_in_flight_on_an_interrupt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ray = _Ray(stop_after=1)
    ray.inits = 1  # connected already: not initialised again
    monkeypatch.setitem(sys.modules, "ray", ray)
    runs = _runs(5)
    with pytest.raises(KeyboardInterrupt):
        run_ray(runs, 3, lambda run, record: None)
    # run0 finished, run1 was being fetched, run2 and run3 were in flight, run4 never sent
    assert ray.cancelled == [(runs[2], True), (runs[3], True)]
    assert ray.inits == 1


def test_ray_missing_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(SweepError) as info:
        run_ray(_runs(1), 1, lambda run, record: None)
    assert str(info.value) == (
        "the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'"
    )
