"""exact-round's whole-run budget (issue 35 item 9: 1,000 jobs at t = 0 on 16 × 8 GPUs ran for
more than 300 s, each round within its 10 s limit but with no limit on the run): the budget stops
a run in one line and never changes a decision; the estimate warns before the run."""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from formulations.policy import (
    DEFAULT_BUDGET,
    ROUNDS_PER_JOB,
    ExactRound,
    budget_warning,
    worst_case_seconds,
)
from formulations.result import SolveStatus
from sjfbsbf.cli import app
from sjfbsbf.core.errors import BudgetSpent
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads import default_workload

runner = CliRunner()


def _instance(n_jobs: int = 40):  # 40 jobs: 122 rounds, all solved to optimality
    return default_workload(0, n_jobs=n_jobs)


def test_a_spent_budget_stops_the_run() -> None:
    policy = make_policy("exact-round", budget=1e-9)
    with pytest.raises(BudgetSpent, match=r"run budget of 1e-09 s was spent after 0 round\(s\)"):
        simulate(_instance(), policy)


def test_a_budget_never_changes_a_decision() -> None:
    """With a budget the run finishes within, the per-job table is that of no budget."""
    unlimited = simulate(_instance(), make_policy("exact-round", budget=None))
    budgeted = simulate(_instance(), make_policy("exact-round", budget=600.0))
    pd.testing.assert_frame_equal(unlimited.jobs, budgeted.jobs)
    assert budgeted.stats["rounds"] == unlimited.stats["rounds"] > 0
    assert 0 < budgeted.stats["budget_spent_s"] < 600


@pytest.mark.parametrize(("spent", "raises"), [(-1.0, False), (0.0, True), (1.0, True)])
def test_what_is_left_at_the_boundary(spent: float, raises: bool) -> None:
    """Spent exactly the budget (or more) raises; a second less leaves about a second."""
    solver = ExactRound(budget=100.0)
    solver.spent = 100.0 + spent
    started = time.perf_counter()
    if raises:
        with pytest.raises(BudgetSpent):
            solver._left(5.0, started)
    else:
        assert 0.5 < (solver._left(5.0, started) or 0) <= 1.0
    assert ExactRound(budget=None)._left(5.0, started) is None


@pytest.mark.parametrize(
    ("status", "applied"),
    [(SolveStatus.OPTIMAL, True), (SolveStatus.FEASIBLE, False), (SolveStatus.TIME_LIMIT, False)],
)
def test_a_solve_the_budget_cut_short_is_never_applied(
    monkeypatch: pytest.MonkeyPatch, status: SolveStatus, applied: bool
) -> None:
    """When less budget is left than a round's limit the solve gets what is left; unless it
    proved its answer, the run stops instead of applying an answer the budget shaped."""
    import formulations.policy as module

    limits: list[float | None] = []
    real = module.solve

    def cut(problem, solver, *, time_limit, **kwargs):  # type: ignore[no-untyped-def]
        limits.append(time_limit)
        result = real(problem, solver, time_limit=time_limit, **kwargs)
        return dataclasses.replace(result, status=status)

    monkeypatch.setattr(module, "solve", cut)
    policy = make_policy("exact-round", budget=5.0, time_limit=10.0)
    if applied:
        simulate(_instance(), policy)
    else:
        with pytest.raises(BudgetSpent, match="after 0 round"):
            simulate(_instance(), policy)
    assert limits and all(limit is not None and 4.0 < limit <= 5.0 for limit in limits[:1])


def test_a_round_limit_under_the_budget_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import formulations.policy as module

    limits: list[float | None] = []
    real = module.solve

    def spy(problem, solver, *, time_limit, **kwargs):  # type: ignore[no-untyped-def]
        limits.append(time_limit)
        return real(problem, solver, time_limit=time_limit, **kwargs)

    monkeypatch.setattr(module, "solve", spy)
    simulate(_instance(), make_policy("exact-round", budget=500.0, time_limit=3.0))
    assert limits and set(limits) == {3.0}


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_a_budget_must_be_positive_and_finite(bad: float) -> None:
    with pytest.raises(ValueError, match="budget must be positive and finite"):
        ExactRound(budget=bad)
    with pytest.raises(ValueError, match="time_limit must be positive and finite"):
        ExactRound(time_limit=bad)


def test_the_estimate_and_its_warning_at_the_boundary() -> None:
    assert worst_case_seconds(1000, 10.0) == ROUNDS_PER_JOB * 1000 * 10.0 == 20_000.0
    assert worst_case_seconds(0, None) == 0.0 and worst_case_seconds(3, None) == math.inf
    assert budget_warning(10, 5.0, 100.0) is None  # exactly at the budget
    assert budget_warning(10, 5.0, 101.0) is None
    line = budget_warning(10, 5.0, 99.0)
    assert line is not None and "20 rounds (5 s each) could take 100 s" in line
    assert "over the run budget of 99 s" in line
    assert budget_warning(10, None, 99.0) is not None
    assert budget_warning(10**6, 10.0, None) is None
    assert worst_case_seconds(200, 10.0) > DEFAULT_BUDGET  # the default workload warns


def test_the_command_line_warns_then_stops_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "i.json"
    write_instance(_instance(), path)
    jobs = tmp_path / "jobs.csv"
    args = ["simulate", str(path), "-p", "exact-round", "--jobs-csv", str(jobs)]
    result = runner.invoke(app, [*args, "-o", "budget=1e-9"])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in result.output, result.stderr
    assert lines[0].startswith("sjfbsbf: warning: exact-round: up to about 80 rounds")
    assert lines[1].startswith("sjfbsbf: error: exact-round: its run budget of 1e-09 s")
    assert not jobs.exists()
    quiet = runner.invoke(app, [*args, "-o", "budget=800"])  # 80 rounds × 10 s = 800 s
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output
    assert jobs.exists()
