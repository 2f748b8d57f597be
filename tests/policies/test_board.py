"""The policies' scratch board (sjfbsbf/policies/board.py) on probed states (docs/model.md §6).

Hosts, their cached facts after a start or a retune, when each GPU frees up, and the host table's
shapes and types, each against the view's own numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from probe import THREE_GPUS, look_at, vgg16

from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance, Job
from sjfbsbf.policies.board import Board, HostInfo
from sjfbsbf.sim.view import ClusterView


def test_free_times_of_running_idle_and_newly_started_gpus() -> None:
    """At 10 s: job 0 (10.5 s long) ends in 0.5 s, GPU 1 is idle, and job 2 is started on GPU 2
    in this decision at s = 4, so GPU 2 frees after job 2's exclusive time at s = 4."""
    jobs = (Job(0, 0.0, 1, duration=10.5), vgg16(1, 10.0, 300), vgg16(2, 10.0, 300))

    def look(view: ClusterView) -> tuple[list[float], float, float]:
        board = Board.from_view(view)
        before = list(board.free_times())
        board.start(2, (2,), 4)
        return (
            before + board.free_times(),
            view.remaining_exclusive(2, 4),
            view.remaining_exclusive(2, 1),
        )

    free, at_4, at_1 = look_at(Instance(THREE_GPUS, jobs), {0: ((0,), 1)}, 10.0, look)
    assert at_4 > at_1
    assert free[:3] == [0.0, 0.0, pytest.approx(0.5, rel=1e-9)]
    assert free[3:] == [0.0, pytest.approx(0.5, rel=1e-9), at_4]


def test_retuning_a_host_refreshes_its_facts_and_makes_no_new_host() -> None:
    """Job 0 runs alone at s = 2 on GPU 0 (a host); jobs 1 and 2 share GPU 1 (no host)."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 0.0, 1000), vgg16(3, 10.0, 50))
    plan = {0: ((0,), 2), 1: ((1,), 1), 2: ((1,), 1)}

    def look(view: ClusterView) -> tuple[set[int], set[int], float, float, float, float, float]:
        board = Board.from_view(view)
        before = set(board.hosts())
        stale = board.hosts()[0].remaining
        board.retune(0, 1)
        board.retune(1, 2)
        info = board.hosts()[0]
        return (
            before,
            set(board.hosts()),
            stale,
            info.remaining,
            view.remaining_exclusive(0, 1),
            board.room(0),
            view.memory_gb(0, 1),
        )

    before, after, stale, fresh, at_1, room, memory = look_at(
        Instance(THREE_GPUS, jobs), plan, 10.0, look
    )
    assert before == after == {0}
    assert fresh == at_1 != stale
    assert room == pytest.approx(12.0 - memory, rel=1e-12)


def test_a_retune_refreshes_the_free_memory_of_single_gpus() -> None:
    """Job 0 runs alone at s = 2 on GPU 0; jobs 1 and 2 share GPU 1. Asked before and after job 0
    returns to s = 1, the GPUs with one job are GPU 0 (and the idle GPU 2 is not one), and GPU
    0's free memory is the capacity less job 0's memory at the accumulation it has then."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 0.0, 1000), vgg16(3, 10.0, 50))
    plan = {0: ((0,), 2), 1: ((1,), 1), 2: ((1,), 1)}

    def look(view: ClusterView) -> tuple[list[int], list[float], list[float], float, float]:
        board = Board.from_view(view)
        ids, before = board.singles()
        board.retune(0, 1)
        after_ids, after = board.singles()
        assert after_ids.tolist() == ids.tolist()
        return (
            ids.tolist(),
            before.tolist(),
            after.tolist(),
            *(view.memory_gb(0, s) for s in (2, 1)),
        )

    ids, before, after, at_2, at_1 = look_at(Instance(THREE_GPUS, jobs), plan, 10.0, look)
    assert ids == [0] and at_1 > at_2
    assert before == [pytest.approx(12.0 - at_2, rel=1e-12)]
    assert after == [pytest.approx(12.0 - at_1, rel=1e-12)]


def test_a_job_started_alone_becomes_a_host_at_its_accumulation() -> None:
    """Job 0 hosts on GPU 0; jobs 1 and 2 share GPU 1; GPU 2 is idle. Job 3 starts alone on GPU 2
    at s = 2 after the hosts were read: it is a host now, with its facts at s = 2."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 0.0, 1000), vgg16(3, 10.0, 50))
    plan = {0: ((0,), 2), 1: ((1,), 1), 2: ((1,), 1)}

    def look(view: ClusterView) -> tuple[set[int], set[int], int, HostInfo, float, float]:
        board = Board.from_view(view)
        before = set(board.hosts())
        board.start(3, (2,), 2)
        hosts = board.hosts()
        at_2 = view.remaining_exclusive(3, 2)
        return before, set(hosts), board.accumulation(3), hosts[3], at_2, view.memory_gb(3, 2)

    before, after, accumulation, info, at_2, memory = look_at(
        Instance(THREE_GPUS, jobs), plan, 10.0, look
    )
    assert (before, after, accumulation) == ({0}, {0, 3}, 2)
    assert info.gpus == (2,) and info.remaining == at_2
    assert info.room == pytest.approx(12.0 - memory, rel=1e-12)


def test_a_share_started_before_the_hosts_are_read_ends_both_as_hosts() -> None:
    """Job 3 shares job 0's GPU before anything asked for the hosts: neither is a host then."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 0.0, 1000), vgg16(3, 10.0, 50))
    plan = {0: ((0,), 2), 1: ((1,), 1), 2: ((1,), 1)}

    def look(view: ClusterView) -> set[int]:
        board = Board.from_view(view)
        board.start(3, (0,), 2)
        return set(board.hosts())

    assert look_at(Instance(THREE_GPUS, jobs), plan, 10.0, look) == set()


class _Flat:
    """A non-contention interference model: every pair slows by 1.2."""

    def slowdown(self, victim: object, other: object) -> float:
        return 1.2


@pytest.mark.parametrize("hosts", [0, 2])
def test_host_table_shapes_and_types(hosts: int) -> None:
    """Ids and GPU counts are int64, times and memory float, the contention columns NaN per
    host when the model is not a contention model, also when there is no host at all."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 0.0, 1000), vgg16(2, 10.0, 50))
    plan = {0: ((0,), 1), 1: ((1,), 1)} if hosts else {0: ((0,), 1), 1: ((0,), 1)}

    def look(view: ClusterView) -> object:
        return Board.from_view(view).host_table()

    interference: Interference = _Flat()  # type: ignore[assignment]
    table = look_at(Instance(THREE_GPUS, jobs), plan, 10.0, look, interference=interference)
    assert table.ids.dtype == np.int64 and table.gpu_count.dtype == np.int64
    assert table.room.dtype == float and table.remaining.dtype == float
    for column in (table.ids, table.gpu_count, table.room, table.remaining):
        assert column.shape == (hosts,)
    assert table.sensitivity.shape == table.pressure.shape == (hosts,)
    assert np.isnan(table.sensitivity).all() and np.isnan(table.pressure).all()


def test_a_start_adds_its_memory_and_ends_the_host() -> None:
    """A sharer started beside host 0 on GPU 0: the GPU's memory is the sum of both, and job 0
    is no longer a host; the newly started job 2 on idle GPU 2 is one."""
    jobs = (vgg16(0, 0.0, 1000), vgg16(1, 10.0, 50), vgg16(2, 10.0, 50))

    def look(view: ClusterView) -> tuple[float, float, float, set[int], set[int]]:
        board = Board.from_view(view)
        before = set(board.hosts())
        board.start(1, (0,), 2)
        board.start(2, (2,), 1)
        return (
            board.room(0),
            view.memory_gb(0, 1),
            view.memory_gb(1, 2),
            before,
            set(board.hosts()),
        )

    room, host_mem, sharer_mem, before, after = look_at(
        Instance(THREE_GPUS, jobs), {0: ((0,), 1)}, 10.0, look
    )
    assert room == pytest.approx(12.0 - host_mem - sharer_mem, rel=1e-12)
    assert before == {0} and after == {2}
