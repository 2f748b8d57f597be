"""The one-decision benchmark's busy state (benchmarks/decision.py), and the sharing board's host
table kept by each start against one built afresh on that state (sjfbsbf/policies/board.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from decision import busy_state
from philly_like import draw_jobs, philly_like

from sjfbsbf.policies.board import Board, HostTable
from sjfbsbf.policies.sjf_bsbf import SjfBsbf


def test_the_busy_state_has_the_stated_shape() -> None:
    view, state = busy_state(40, 1000, np.random.default_rng(1))
    running, pending = view.running(), view.pending()
    assert len(running) == 1000 and len(pending) == 40
    gpus = view.gpu_counts(running)
    assert gpus.max() <= 2
    assert view.free_count == 0 and 0 < state.shared_gpus < state.cluster.num_gpus
    assert len(view.hosts()) > 500  # most running jobs are host candidates
    assert sum(len(view.gpu_jobs(g)) for g in range(1024)) == int(gpus.sum())
    assert view.time == 0.0


def test_the_busy_state_gives_up_when_too_few_jobs_fit() -> None:
    with pytest.raises(RuntimeError, match="only 7 of 1000 jobs fit after 10 draws"):
        busy_state(1, 1000, np.random.default_rng(1), max_offers=10)


def test_the_trace_draws_its_jobs_as_draw_jobs_does() -> None:
    inst = philly_like(300, np.random.default_rng(5))
    gpus, durations = draw_jobs(300, np.random.default_rng(5))
    assert [j.gpus for j in inst.jobs] == gpus.tolist()
    assert [j.duration for j in inst.jobs] == durations.tolist()


def _equal(a: HostTable, b: HostTable) -> bool:
    columns = ("ids", "gpu_count", "room", "remaining", "sensitivity", "pressure")
    return a.infos == b.infos and all(
        getattr(a, c).dtype == getattr(b, c).dtype
        and np.array_equal(getattr(a, c), getattr(b, c), equal_nan=True)
        for c in columns
    )


def test_the_host_table_kept_by_each_start_is_the_one_built_afresh() -> None:
    """SJF-BSBF's starts on the busy state (shares beside hosts; then, with idle GPUs, starts
    alone that make new hosts) applied one by one: after each, the table the board keeps equals
    the table of a board that replays the same starts and builds it only then."""
    view, _ = busy_state(300, 700, np.random.default_rng(2))
    decision = SjfBsbf().decide(view)
    assert len(decision.starts) > 20
    kept = Board.from_view(view)
    kept.host_table()
    for n, start in enumerate(decision.starts, 1):
        kept.start(start.job_id, start.gpus, start.accumulation)
        fresh = Board.from_view(view)
        for done in decision.starts[:n]:
            fresh.start(done.job_id, done.gpus, done.accumulation)
        assert _equal(kept.host_table(), fresh.host_table()), f"after start {n}"
    assert len(kept.host_table().ids) < len(view.hosts())


def test_the_host_facts_read_at_once_are_those_of_each_host_alone() -> None:
    """The board reads untouched hosts' facts from the view's arrays; each equals the facts
    computed one host at a time (remaining time, least room, occupant, GPUs), also after a
    decision's starts (started hosts, lost hosts) and at a later time (progress made)."""
    view, _ = busy_state(200, 700, np.random.default_rng(3))
    view._time = 5.0  # jobs have progressed (the shortest lasts 10 s): remaining < duration
    board = Board.from_view(view)
    hosts = board.hosts()
    assert len(hosts) > 500
    assert hosts == {j: board._host_info(j) for j in hosts}
    decision = SjfBsbf().decide(view)
    later = Board.from_view(view)
    for start in decision.starts:
        later.start(start.job_id, start.gpus, start.accumulation)
    hosts = later.hosts()
    assert any(s.job_id in hosts for s in decision.starts)
    assert hosts == {j: later._host_info(j) for j in hosts}
