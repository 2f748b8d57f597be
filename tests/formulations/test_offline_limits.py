"""The offline model's limits and errors (docs/formulations.md §2.6, §2.7, §2.9): time limits,
the heuristic fallback, reproducibility, short horizons, bad arguments.
"""

from __future__ import annotations

import pytest
from offline_cases import DT, catalog_job, tiny

from formulations.offline import replay, solve_offline
from formulations.offline.brute import solve_brute
from formulations.result import SolveStatus
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import Cluster, Instance, Job


# -- limits and errors --------------------------------------------------------------------------
def _hard_instance() -> Instance:
    two = Cluster(1, 2, 12.0)
    models = ("resnet18", "dqn", "vgg16", "a2c", "shufflenet_v2", "bert", "vgg19", "gpt2")
    jobs = [
        catalog_job(i, i % 3, 1 + (i % 4 == 0), models[i % len(models)], 2 + i % 4, two)
        for i in range(12)
    ]
    return Instance(two, tuple(jobs), name="hard")


def test_time_limit_is_respected(backend: str) -> None:
    """A 12-job instance on 2 GPUs stops at the limit, still with a schedule and a bound."""
    result = solve_offline(_hard_instance(), backend, dt=DT, time_limit=2.0)
    info = result.info
    # The budget covers all rounds together. CP-SAT counts deterministic time (independent of
    # the machine's load); HiGHS's clock runs from its own start (PuLP's transfer of the model
    # before it is building, outside the solver's clock).
    assert sum(r["budget_used"] for r in info["rounds"]) == pytest.approx(info["budget_used"])
    if backend == "cpsat":
        assert info["budget_used"] <= 2.0 + 0.5
    else:  # wall-clock on a shared machine: only a gross overrun (no limit passed) is an error
        assert sum(r["runtime_s"] for r in info["rounds"]) <= 2.0 * 5
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
    replayed = result.replayed_avg_jct
    assert result.bound is not None and replayed is not None and result.schedule
    assert result.bound <= replayed + 1e-6
    assert result.rescore() == pytest.approx(replayed, rel=1e-12)
    if result.status is SolveStatus.FEASIBLE:
        assert "limit" in info


@pytest.mark.parametrize("hint", [True, False])
def test_time_limit_without_a_solution_returns_the_heuristic(backend: str, hint: bool) -> None:
    """Stopped before the backend finds anything: the heuristic's schedule, status FEASIBLE."""
    instance = _hard_instance()
    result = solve_offline(instance, backend, dt=DT, time_limit=1e-3, hint=hint)
    assert result.status is SolveStatus.FEASIBLE
    assert result.schedule is not None and result.replayed_avg_jct is not None
    heuristic = result.info["heuristic"]
    if result.info["source"] != "model":
        assert result.info["source"] == f"heuristic:{heuristic}"
        assert result.objective is None  # no model value for a heuristic's schedule
        assert result.replayed_avg_jct == pytest.approx(result.info["heuristic_avg_jct"], rel=1e-12)
    replayed = replay(instance, result.schedule, DT)
    assert float(replayed.jobs["jct"].mean()) == pytest.approx(result.replayed_avg_jct, rel=1e-12)
    assert result.bound is not None and result.bound <= result.replayed_avg_jct


def test_time_limited_cpsat_is_reproducible() -> None:
    """With one worker and a deterministic time limit, two stopped runs agree exactly."""
    runs = [
        solve_offline(_hard_instance(), "cpsat", dt=DT, time_limit=0.5, seed=3) for _ in range(2)
    ]
    assert runs[0].status is runs[1].status
    assert runs[0].schedule == runs[1].schedule
    assert runs[0].replayed_avg_jct == runs[1].replayed_avg_jct
    assert runs[0].objective == runs[1].objective and runs[0].bound == runs[1].bound
    assert runs[0].info["limit"] == "deterministic time"


def test_horizon_shorter_than_a_job_is_infeasible(backend: str) -> None:
    """A horizon shorter than a job's duration: INFEASIBLE with a reason, no crash."""
    result = solve_offline(tiny("sequential"), backend, dt=DT, horizon=1)
    assert result.status is SolveStatus.INFEASIBLE
    assert "horizon" in result.info["reason"]
    assert result.schedule is None


def test_solver_proves_a_short_horizon_infeasible(backend: str) -> None:
    """The two jobs need 3 slots (sharing stretches both); with 2 the solver proves it."""
    result = solve_offline(tiny("sequential"), backend, dt=DT, horizon=2)
    assert result.status is SolveStatus.INFEASIBLE
    assert result.objective is None and result.replayed_avg_jct is None
    assert result.schedule is None
    result = solve_offline(tiny("sequential"), backend, dt=DT, horizon=3)
    assert result.status is SolveStatus.OPTIMAL


def test_job_larger_than_the_cluster_is_a_clear_error() -> None:
    """A job that cannot fit is rejected with the job and field named."""
    with pytest.raises(InstanceError, match=r"job 0.*field 'gpus'"):
        Instance(Cluster(1, 2, 12.0), (Job(0, 0.0, 4, duration=60.0),))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown solver"):
        solve_offline(tiny("share"), "gurobi")
    with pytest.raises(ValueError, match="time_limit"):
        solve_offline(tiny("share"), time_limit=0)
    with pytest.raises(ValueError, match="dt"):
        solve_offline(tiny("share"), dt=-1.0)


def test_brute_force_refuses_large_enumerations() -> None:
    with pytest.raises(ValueError, match="combinations"):
        solve_brute(_hard_instance(), DT)
