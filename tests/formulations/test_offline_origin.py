"""A late-starting instance is solved from its first arrival (docs/formulations.md §2.7).

Before, ``solve --solver bounds`` (and every solver) refused 4 jobs arriving 10 years in: the
time-indexed model counted 5 million empty slots of 60 s before them.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from formulations.offline import solve_offline
from formulations.offline.origin import later_origin, moved, moved_back
from formulations.offline.size import ModelTooLarge
from formulations.result import SolveStatus
from sjfbsbf.core.instance_io import instance_to_dict
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing

LATE = 315_000_000.0  # about 10 years (s): 5,250,000 slots of 60 s


def _jobs(start: float) -> Instance:
    jobs = (
        Job(0, start, 1, duration=600.0),
        Job(1, start + 10.0, 1, duration=300.0),
        Job(2, start + 20.5, 2, duration=900.0),
        Job(3, start + 130.0, 1, duration=120.0),
    )
    return Instance(Cluster(1, 2, 12.0), jobs, name="late")


def test_later_origin_is_the_last_interval_boundary_that_is_a_tick() -> None:
    assert later_origin(_jobs(LATE), 60.0) == LATE  # a multiple of 60 s
    assert later_origin(_jobs(LATE + 59.0), 60.0) == LATE
    assert later_origin(_jobs(LATE + 60.0), 60.0) == LATE + 60.0
    assert later_origin(_jobs(59.9), 60.0) == 0.0  # before the first boundary
    assert later_origin(_jobs(60.0), 60.0) == 60.0
    assert later_origin(_jobs(LATE), 120.0) == LATE  # interval = dt above 60 s
    assert later_origin(_jobs(LATE + 60.0), 120.0) == LATE
    assert later_origin(_jobs(LATE), 7.0) == LATE  # 45,000,000 ticks of 7 s
    assert later_origin(_jobs(LATE + 60.0), 7.0) == 0.0  # 315,000,060 s is no tick of 7 s
    assert later_origin(_jobs(LATE), 0.1) == 0.0  # 0.1 s is inexact: no tick is exact


def test_moving_keeps_every_arrival_offset_exactly() -> None:
    instance = _jobs(LATE)
    shifted = moved(instance, LATE)
    assert [j.arrival for j in shifted.jobs] == [0.0, 10.0, 20.5, 130.0]
    assert shifted.cluster == instance.cluster
    assert [dataclasses.replace(j, arrival=0.0) for j in shifted.jobs] == [
        dataclasses.replace(j, arrival=0.0) for j in instance.jobs
    ]


@pytest.mark.parametrize("solver", ["bounds", "cpsat", "milp"])
def test_a_late_instance_solves_as_the_same_instance_at_zero(solver: str) -> None:
    late, early = _jobs(LATE), _jobs(0.0)
    with pytest.raises(ModelTooLarge):  # what a solve from t = 0 would be
        solve_offline(late, solver, horizon=5_300_000, time_limit=10.0)
    got = solve_offline(late, solver, time_limit=10.0)
    ref = solve_offline(early, solver, time_limit=10.0)
    assert got.status is ref.status and got.status.has_solution
    assert got.instance is late
    assert got.info["origin_s"] == LATE and "origin_s" not in ref.info
    assert got.replayed_avg_jct == pytest.approx(ref.replayed_avg_jct, abs=1e-6)
    assert got.bound == pytest.approx(ref.bound, abs=1e-6)
    assert got.schedule is not None and ref.schedule is not None
    assert [e.start - LATE for e in got.schedule] == [e.start for e in ref.schedule]
    assert [(e.job_id, e.gpus, e.accumulation) for e in got.schedule] == [
        (e.job_id, e.gpus, e.accumulation) for e in ref.schedule
    ]
    # the result re-scores itself on the instance as given
    assert got.rescore() == pytest.approx(got.replayed_avg_jct, abs=1e-9)
    finish = got.info["replay_finish"]
    assert all(finish[j.id] > j.arrival for j in late.jobs)
    assert {j: f - LATE for j, f in finish.items()} == pytest.approx(ref.info["replay_finish"])


def test_an_instance_that_fits_from_zero_is_not_moved() -> None:
    instance = _jobs(120.0)  # the suite's instances start up to 120 s in
    result = solve_offline(instance, "cpsat", time_limit=10.0)
    assert "origin_s" not in result.info
    assert result.status is SolveStatus.OPTIMAL


def test_without_a_tick_origin_or_with_a_horizon_the_refusal_stands() -> None:
    with pytest.raises(ModelTooLarge):
        solve_offline(_jobs(LATE + 60.0), "bounds", dt=7.0, time_limit=10.0)
    with pytest.raises(ModelTooLarge):
        solve_offline(_jobs(LATE), "bounds", horizon=5_300_000, time_limit=10.0)


def test_a_replay_that_disagrees_is_a_bug_not_a_result() -> None:
    late = _jobs(LATE)
    result = solve_offline(moved(late, LATE), "bounds", time_limit=10.0)
    assert result.replayed_avg_jct is not None
    wrong = dataclasses.replace(result, replayed_avg_jct=result.replayed_avg_jct + 1e-3)
    with pytest.raises(RuntimeError, match="a bug in moving the origin"):
        moved_back(wrong, late, LATE, time_slicing())
    back = moved_back(result, late, LATE, time_slicing())
    assert back.replayed_avg_jct == pytest.approx(result.replayed_avg_jct, abs=1e-6)


def test_cli_solves_the_late_instance_with_the_bounds_solver(tmp_path: Path) -> None:
    path = tmp_path / "late.json"
    path.write_text(json.dumps(instance_to_dict(_jobs(LATE))), encoding="utf-8")
    command = [sys.executable, "-c", "from sjfbsbf.cli import app; app()", "solve", str(path)]
    done = subprocess.run(
        [*command, "--solver", "bounds"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "slots from t = 315,000,000 s" in " ".join(done.stdout.split())  # lines wrap
