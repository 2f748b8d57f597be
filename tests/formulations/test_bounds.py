"""Lower bounds of formulations.bounds (docs/formulations.md §2.10): each is ≤ the recorded
optimum on every proven suite instance, and each is tighter than what it strengthens."""

from __future__ import annotations

import statistics

import pytest

from formulations.bounds import build_relaxation, lp_bound, relaxation_bound
from formulations.bounds.relaxation import pair_throughput, sharing_paces, slot_throughputs
from formulations.offline import solve_offline
from formulations.offline.families import FAMILIES
from formulations.offline.preprocess import preprocess
from sjfbsbf.core.model import Cluster, Instance, Job
from tests.offline_cases import DT, recorded_suite

PROVEN = [(o, i) for o, i in recorded_suite().values() if o.status == "optimal"]


def _limit(optimum: float, tolerance: float) -> float:
    return optimum + tolerance + 1e-6 * optimum


def test_relaxation_is_below_every_proven_optimum_and_tighter_on_average() -> None:
    """Valid on all 43 proven instances; on average it closes part of the combinatorial gap."""
    gaps_relax, gaps_comb = [], []
    for optimum, instance in PROVEN:
        data = preprocess(instance, optimum.dt)
        result = relaxation_bound(data, time_limit=30)
        assert result.bound is not None
        u = optimum.replayed_avg_jct
        assert u is not None
        assert result.bound <= _limit(u, optimum.tolerance_s), optimum.name
        comb = data.lower_bound_total / instance.num_jobs
        assert result.bound >= comb - 1e-6 * comb - 1e-6 or result.status.value != "optimal"
        gaps_relax.append((u - result.bound) / u)
        gaps_comb.append((u - comb) / u)
    assert statistics.mean(gaps_relax) < 0.8 * statistics.mean(gaps_comb)


@pytest.mark.parametrize("name", ["n10-g8-all-a", "n4-g2-duration-a", "n6-g4-light-b"])
def test_lp_of_the_strengthened_model_is_valid_and_lifted_by_the_finish_cuts(name: str) -> None:
    """The LP with the finish cuts is ≤ the optimum and ≥ the LP without them."""
    import pulp

    import formulations.offline.milp.solve as milp_solve

    optimum, instance = next((o, i) for o, i in PROVEN if o.name == name)
    data = preprocess(instance, optimum.dt)
    with_cuts = lp_bound(data).bound
    assert with_cuts is not None and optimum.replayed_avg_jct is not None
    assert with_cuts <= _limit(optimum.replayed_avg_jct, optimum.tolerance_s)
    families = tuple(f for f in FAMILIES if f.name not in ("finish_cuts", "lower_bound"))
    original = milp_solve.FAMILIES
    milp_solve.FAMILIES = families
    try:
        prob, _ = milp_solve.build(data)
    finally:
        milp_solve.FAMILIES = original
    for variable in prob.variables():
        variable.cat = pulp.LpContinuous
    prob.solve(pulp.HiGHS(msg=False))
    without = pulp.value(prob.objective)
    assert with_cuts >= without - 1e-6
    if name == "n10-g8-all-a":  # the review's case: the cuts lift the LP by more than 10%
        assert with_cuts > 1.1 * without


def test_paces_and_throughputs_follow_the_pairs() -> None:
    """ψ_j ≤ 1, θ_t ≥ 1, and a pair's throughput is the sum of the two paces it gives."""
    instance = next(i for o, i in PROVEN if o.name == "n6-g4-light-b")
    data = preprocess(instance, DT)
    paces = sharing_paces(data)
    assert all(0 <= p <= 1 for p in paces)
    theta = slot_throughputs(data)
    assert all(1 <= t <= 2 for t in theta)
    assert max(theta) == pytest.approx(max(max(pair_throughput(data, p) for p in data.pairs), 1.0))
    for pair in data.pairs:
        assert pair_throughput(data, pair) <= paces[pair.first] + paces[pair.second] + 1e-12


def test_one_gpu_two_jobs_relaxation_lies_between_one_slot_and_the_optimum() -> None:
    """Two 1-slot duration-only jobs on one GPU: the bound is at least the slot either needs
    alone and at most brute force's optimum."""
    cluster = Cluster(1, 1, 12.0)
    jobs = (Job(0, 0.0, 1, duration=60.0), Job(1, 0.0, 1, duration=60.0))
    instance = Instance(cluster, jobs)
    data = preprocess(instance, DT)
    result = relaxation_bound(data)
    assert result.bound is not None
    # Optimum: one runs in slot 0 (JCT 60), the other shares or waits; the bound is ≤ it and
    # ≥ the time either needs alone.
    best = solve_offline(instance, "brute", dt=DT).replayed_avg_jct
    assert best is not None
    assert 60.0 - 1e-6 <= result.bound <= best + 1e-6
    prob, variables = build_relaxation(data)
    assert set(variables) == {"y", "e", "r", "u", "rho", "frac", "sh", "rho_shared", "last_shared"}
    assert prob.numConstraints() > 0


def test_solve_offline_reports_the_relaxation_and_proves_without_a_model_when_it_meets_it() -> None:
    """n8-g4-light-a: the heuristic meets the bound, so no model is solved."""
    optimum, instance = next((o, i) for o, i in PROVEN if o.name == "n8-g4-light-a")
    result = solve_offline(instance, "cpsat", dt=optimum.dt, time_limit=30)
    assert result.status.value == "optimal"
    assert result.info["rounds"] == []
    assert "limit" not in result.info  # nothing stopped it: no round was needed
    assert result.info["relaxation"]["bound"] is not None
    assert result.bound is not None
    assert result.bound >= result.info["relaxation"]["bound"] - 1e-9
    bounds = result.info["bounds"]
    assert set(bounds) == {
        "combinatorial", "relaxation", "fluid", "colgen", "model", "placement_free"
    }  # fmt: skip
    assert bounds["model"] is None and bounds["colgen"] is None  # the model does not ask for it
    assert bounds["relaxation"] == result.info["relaxation"]["bound"]
    assert bounds["fluid"] == result.info["fluid"]["bound"]
    best = max(value for value in bounds.values() if value is not None)
    assert result.replayed_avg_jct is not None
    assert result.bound == pytest.approx(min(result.replayed_avg_jct, best), abs=1e-12)
    without = solve_offline(instance, "cpsat", dt=optimum.dt, time_limit=30, relaxation=False)
    assert "relaxation" not in without.info and "fluid" not in without.info
    assert without.replayed_avg_jct == pytest.approx(result.replayed_avg_jct, abs=1e-6)


def test_node_limit_is_reproducible_and_below_the_full_relaxation() -> None:
    """HiGHS stopped by its node limit (deterministic) gives the same bound twice, ≤ the proof."""
    optimum, instance = next((o, i) for o, i in PROVEN if o.name == "n4-g4-all-b")
    data = preprocess(instance, optimum.dt)
    stopped = [relaxation_bound(data, max_nodes=1) for _ in range(2)]
    assert stopped[0].limit == "node limit" and stopped[0].status.value == "feasible"
    assert stopped[0].bound == stopped[1].bound
    full = relaxation_bound(data)
    assert full.status.value == "optimal" and full.limit is None
    assert stopped[0].bound is not None and full.bound is not None
    assert stopped[0].bound <= full.bound + 1e-6


def test_a_relaxation_too_large_is_not_solved() -> None:
    optimum, instance = next((o, i) for o, i in PROVEN if o.name == "n4-g4-all-b")
    data = preprocess(instance, optimum.dt)
    result = relaxation_bound(data, max_binaries=10)
    assert result.bound is None and result.limit == "size" and result.status.value == "unknown"
