"""The placement-free CP-SAT model (formulations.bounds.placement_free, docs/formulations.md
§2.10 item 6): the offline CP-SAT model without GPU ids is a valid lower bound, meets proven
optima, and agrees with the pairwise relaxation, its MILP counterpart on HiGHS."""

from __future__ import annotations

from typing import Any

import pytest

from formulations.bounds import pairwise_bound
from formulations.bounds import placement_free as placement_free_module
from formulations.bounds.placement_free import (
    GPU_FAMILIES,
    build_placement_free,
    placement_free_bound,
)
from formulations.engines import EngineOptions
from formulations.offline import solve_offline
from formulations.offline.cpsat.solve import build
from formulations.offline.families import FAMILIES
from formulations.offline.preprocess import preprocess
from tests.offline_cases import recorded_suite

SUITE = recorded_suite()
#: Proven instances it proves in about a second.
QUICK = ["n4-g4-all-a", "n4-g2-light-a", "n5-g2-duration-a", "n10-g8-all-a", "n8-g4-light-a"]


def _limit(optimum: float, tolerance: float) -> float:
    return optimum + tolerance + 1e-6 * optimum


def test_it_drops_only_the_families_that_read_gpu_ids() -> None:
    names = {family.name for family in FAMILIES}
    assert names >= GPU_FAMILIES
    optimum, instance = SUITE["n10-g8-all-a"]
    data = preprocess(instance, optimum.dt)
    free, _, shared = build_placement_free(data)
    full, _ = build(data)
    assert shared, "pairs that fit get shared-GPU counts"
    assert len(free.proto.constraints) < len(full.proto.constraints)


@pytest.mark.parametrize("name", QUICK)
def test_it_proves_a_bound_no_higher_than_the_recorded_optimum(name: str) -> None:
    optimum, instance = SUITE[name]
    assert optimum.proven and optimum.replayed_avg_jct is not None
    result = placement_free_bound(preprocess(instance, optimum.dt), time_limit=20)
    assert result.status.value == "optimal" and result.bound is not None
    assert result.bound <= _limit(optimum.replayed_avg_jct, optimum.tolerance_s)


def test_it_meets_the_optimum_and_the_pairwise_milp() -> None:
    """n10-g8-all-a: the placement-free relaxation (above it on the instance) rises to the
    recorded optimum in both backends: CP-SAT here, HiGHS in the pairwise relaxation."""
    optimum, instance = SUITE["n10-g8-all-a"]
    assert optimum.replayed_avg_jct is not None
    data = preprocess(instance, optimum.dt)
    cpsat = placement_free_bound(data, time_limit=20).bound
    highs = pairwise_bound(data).bound
    assert cpsat is not None and highs is not None
    tolerance = optimum.tolerance_s + 1e-6 * optimum.replayed_avg_jct
    assert cpsat == pytest.approx(optimum.replayed_avg_jct, abs=tolerance)
    assert highs == pytest.approx(cpsat, abs=tolerance)


def test_lb_tree_search_meets_the_same_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """CP-SAT's lb-tree search (``lb_tree_search=True``) proves the same optimum on
    n10-g8-all-a, and ``solve_offline`` records that it ran it."""
    optimum, instance = SUITE["n10-g8-all-a"]
    assert optimum.replayed_avg_jct is not None
    data = preprocess(instance, optimum.dt)
    tree = placement_free_bound(data, time_limit=20, lb_tree_search=True)
    plain = placement_free_bound(data, time_limit=20)
    assert tree.status.value == plain.status.value == "optimal"
    assert tree.bound is not None and plain.bound is not None
    assert tree.bound == pytest.approx(plain.bound, abs=1e-9)
    asked: list[EngineOptions] = []
    solve = placement_free_module.engine.solve

    def spy(model: Any, options: EngineOptions, **kwargs: Any) -> Any:
        asked.append(options)
        return solve(model, options, **kwargs)

    monkeypatch.setattr(placement_free_module.engine, "solve", spy)
    result = solve_offline(
        instance, dt=optimum.dt, time_limit=0.05, placement_free=20, placement_free_lb_tree=True
    )
    assert result.info["placement_free"]["lb_tree_search"] is True
    assert result.bound == pytest.approx(plain.bound, abs=optimum.tolerance_s + 1e-6)
    # The flag reaches CP-SAT in the placement-free run only (the model's run comes first).
    assert [o.cpsat_parameters for o in asked] == [(), (("optimize_with_lb_tree_search", True),)]


def test_a_short_limit_gives_a_bound_below_the_optimum() -> None:
    """Stopped early on a 12-job instance, the bound (CP-SAT's) is below the optimum."""
    optimum, instance = SUITE["n12-g8-all-c"]
    assert optimum.replayed_avg_jct is not None
    result = placement_free_bound(preprocess(instance, optimum.dt), time_limit=2)
    assert result.status.value in {"feasible", "time_limit", "unknown"}
    assert result.bound is not None and result.bound < optimum.replayed_avg_jct


@pytest.mark.slow
def test_it_is_below_every_proven_optimum() -> None:
    for optimum, instance in SUITE.values():
        if not optimum.proven or optimum.replayed_avg_jct is None or len(instance.jobs) > 12:
            continue
        bound = placement_free_bound(preprocess(instance, optimum.dt), time_limit=60).bound
        assert bound is None or bound <= _limit(optimum.replayed_avg_jct, optimum.tolerance_s)


def test_solve_offline_proves_with_it_when_the_model_stops_early() -> None:
    """n8-g8-heavy-b: a 0.01 s model budget leaves the best schedule unproven; the placement-free
    bound (its own budget) meets it, so the result is OPTIMAL at the recorded optimum."""
    from formulations.offline import solve_offline
    from formulations.result import SolveStatus

    optimum, instance = SUITE["n8-g8-heavy-b"]
    assert optimum.replayed_avg_jct is not None
    alone = solve_offline(instance, "cpsat", dt=optimum.dt, time_limit=0.01)
    assert alone.status is SolveStatus.FEASIBLE
    assert alone.info["bounds"]["placement_free"] is None
    result = solve_offline(instance, "cpsat", dt=optimum.dt, time_limit=0.01, placement_free=20)
    assert result.status is SolveStatus.OPTIMAL
    assert result.info["proven_by"] == "placement-free"
    assert result.info["placement_free"]["status"] == "optimal"
    assert result.replayed_avg_jct == pytest.approx(
        optimum.replayed_avg_jct, abs=optimum.tolerance_s
    )
    assert result.bound is not None and result.bound > alone.bound


def test_it_runs_on_the_windows_of_the_models_better_schedule() -> None:
    """n8-g8-all-b after 1 s of the model: the model's schedule (better than fifo's 224.68 s)
    moves the deadlines in (14 -> 13 slots), and the placement-free optimum over those windows
    is the recorded optimum (209.40 s): L meets it while U, the model's schedule, stays above,
    so the result is a valid, unproven interval."""
    optimum, instance = SUITE["n8-g8-all-b"]
    result = solve_offline(instance, "cpsat", time_limit=1.0, placement_free=20)
    free = result.info["placement_free"]
    assert result.info["source"] == "model"
    assert result.replayed_avg_jct < result.info["heuristic_avg_jct"]
    assert free["horizon"] < result.info["horizon"]
    assert optimum.replayed_avg_jct is not None and result.bound is not None
    assert free["status"] == "optimal"
    assert result.bound == pytest.approx(optimum.replayed_avg_jct, abs=optimum.tolerance_s + 0.01)
    assert result.replayed_avg_jct > result.bound + 1.0
    assert result.status.value == "feasible"
