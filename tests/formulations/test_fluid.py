"""The fluid LP bound (formulations.bounds.fluid, docs/formulations.md §2.10) and the
``"bounds"`` solver of solve_offline: valid on every recorded suite instance, tighter than
what it strengthens, exact on a hand-computed case, refused above its size limit."""

from __future__ import annotations

import statistics

import pytest

from formulations.bounds.fluid import build_fluid, fluid_bound, fluid_size, longest_slots
from formulations.offline import solve_offline
from formulations.offline.generate import Spec, make_instance
from formulations.offline.preprocess import preprocess
from sjfbsbf.core.model import Cluster, Instance, Job
from tests.offline_cases import DT, recorded_suite

SUITE = list(recorded_suite().values())


#: The suite's instances of at most 12 jobs: the fast default set's share of the check below.
SMALL = [(optimum, instance) for optimum, instance in SUITE if instance.num_jobs <= 12]


@pytest.mark.slow
def test_fluid_is_below_every_recorded_schedule_and_tighter_than_the_combinatorial_bound() -> None:
    """≤ every proven optimum (and every unproven best schedule); with the intervals ≥ without;
    on average it closes a quarter of the combinatorial gap (the whole suite: 2 minutes)."""
    _check_fluid(SUITE)


def test_fluid_is_below_the_recorded_schedules_of_the_small_instances() -> None:
    """The same check on the suite's instances of at most 12 jobs (the default set)."""
    assert len(SMALL) >= 10
    _check_fluid(SMALL)


def _check_fluid(cases: list) -> None:  # type: ignore[type-arg]
    gaps_fluid, gaps_comb = [], []
    for optimum, instance in cases:
        data = preprocess(instance, optimum.dt)
        with_intervals = fluid_bound(data).bound
        preemptive = fluid_bound(data, intervals=False).bound
        assert with_intervals is not None and preemptive is not None
        u = optimum.replayed_avg_jct
        assert u is not None
        assert with_intervals <= u + optimum.tolerance_s + 1e-6 * u, optimum.name
        assert with_intervals >= preemptive - 1e-6 * preemptive, optimum.name
        comb = data.lower_bound_total / instance.num_jobs
        gaps_fluid.append((u - with_intervals) / u)
        gaps_comb.append((u - comb) / u)
    assert statistics.mean(gaps_fluid) < 0.8 * statistics.mean(gaps_comb)


def test_fluid_of_a_lone_job_is_its_hand_computed_jct() -> None:
    """One job arriving at 30 s for 119.9 s: it starts at the next tick (60 s) and completes
    at 179.9 s; the LP's busy-time bound is exact for a job that runs at full rate."""
    instance = Instance(Cluster(1, 2, 12.0), (Job(0, 30.0, 1, duration=119.9),))
    data = preprocess(instance, DT)
    bound = fluid_bound(data).bound
    assert bound == pytest.approx(179.9 - 30.0, abs=1e-3)
    assert longest_slots(data) == [3]  # ⌈119.9 / 60⌉ + 1: the job shares with nobody


def test_fluid_of_two_jobs_on_one_gpu_is_valid_and_above_the_combinatorial_bound() -> None:
    """Two duration-only jobs on one GPU: the optimum (brute force) runs the short one first,
    JCTs 59.9 s and 60 + 119.9 s. The LP may share the GPU fractionally (processor sharing
    at a combined pace slightly above one), so it lies below that, but above Σ_j LB_j (every
    job's busy-time bound starts from its arrival slot at full rate)."""
    instance = Instance(
        Cluster(1, 1, 12.0), (Job(0, 0.0, 1, duration=59.9), Job(1, 0.0, 1, duration=119.9))
    )
    optimum = (59.9 + 60.0 + 119.9) / 2
    brute = solve_offline(instance, "brute", dt=DT).replayed_avg_jct
    assert brute == pytest.approx(optimum, abs=1e-6)
    data = preprocess(instance, DT)
    bound = fluid_bound(data).bound
    assert bound is not None
    least = sum(job.min_jct_s for job in data.jobs) / 2
    assert least == pytest.approx((59.9 + 119.9) / 2, abs=0.01)
    assert least + 10.0 < bound <= optimum + data.tolerance_s


def test_sharing_lowers_the_fluid_bound_only_through_pairs_that_fit() -> None:
    """The same 12-job instance: zeroing every shared GPU-slot (an exclusive-only bound) can
    only raise the LP; the bound with sharing stays below the recorded best schedule."""
    import pulp

    from formulations.engines import EngineOptions
    from formulations.engines import milp as engine

    optimum, instance = next((o, i) for o, i in SUITE if o.name == "n12-g8-all-c")
    data = preprocess(instance, optimum.dt)
    prob, variables = build_fluid(data)
    assert set(variables) == {"x", "f", "h", "q", "z", "C"}
    assert variables["h"], "the catalog pairs of this instance fit"
    sharing = engine.solve(prob, EngineOptions(time_limit=60, workers=1), backend="highs")
    for var in variables["h"].values():
        var.upBound = 0
    alone = engine.solve(prob, EngineOptions(time_limit=60, workers=1), backend="highs")
    assert sharing.objective is not None and alone.objective is not None
    assert alone.objective > sharing.objective + 1.0
    assert pulp.LpStatus[prob.status] == "Optimal"
    assert optimum.replayed_avg_jct is not None
    assert sharing.objective <= optimum.replayed_avg_jct


def test_an_lp_too_large_is_not_solved() -> None:
    optimum, instance = next((o, i) for o, i in SUITE if o.name == "n4-g4-all-b")
    data = preprocess(instance, optimum.dt)
    assert fluid_size(data) >= len(build_fluid(data)[0].variables()) * 0.9
    result = fluid_bound(data, max_variables=10)
    assert result.bound is None and result.limit == "size" and result.status.value == "unknown"


def test_the_bounds_solver_returns_the_heuristic_and_the_best_bound_without_a_model() -> None:
    """A 40-job instance drawn like the suite (too slow to prove): no model round, the best
    heuristic's schedule re-scores itself, the bound is the best of the bounds (without the
    column-generation bound, 35 s more here: tests/formulations/test_colgen.py has its own)."""
    spec = Spec("n40-g8-all-x", 3001, 40, 8, "all", (1, 1, 2, 4), (1, 5), 32)
    result = solve_offline(make_instance(spec), "bounds", colgen=False)
    assert result.info["rounds"] == []
    assert result.status.value == "feasible"
    assert result.info["limit"] == "no model (bounds only)"
    assert result.info["source"].startswith("heuristic:")
    assert result.replayed_avg_jct is not None and result.bound is not None
    assert result.rescore() == pytest.approx(result.replayed_avg_jct, abs=1e-9)
    bounds = result.info["bounds"]
    assert bounds["relaxation"] is None and result.info["relaxation"]["limit"] == "size"
    assert bounds["fluid"] is not None and bounds["fluid"] > bounds["combinatorial"]
    assert result.bound == pytest.approx(bounds["fluid"], abs=1e-12)
    assert result.bound < result.replayed_avg_jct


def test_the_bounds_solver_proves_when_the_heuristic_meets_the_bound() -> None:
    optimum, instance = next((o, i) for o, i in SUITE if o.name == "n8-g4-light-a")
    result = solve_offline(instance, "bounds", dt=optimum.dt)
    assert result.status.value == "optimal" and "limit" not in result.info
    assert result.replayed_avg_jct == pytest.approx(optimum.replayed_avg_jct, abs=1e-6)


def test_the_pace_hull_lifts_the_fluid_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """n8-g8-all-a: with each job of a pair at its own best pace at once (the hull replaced by
    its corner, as before the hull) the LP is lower: the combinations bind."""
    import formulations.bounds.fluid as fluid

    optimum, instance = next((o, i) for o, i in SUITE if o.name == "n8-g8-all-a")
    data = preprocess(instance, optimum.dt)
    with_hull = fluid_bound(data).bound
    real_hull = fluid.pace_hull

    def corner(data_: object, pair: object) -> list[tuple[float, float]]:
        hull = real_hull(data_, pair)  # type: ignore[arg-type]
        return [(hull[-1][0], hull[0][1])]

    monkeypatch.setattr(fluid, "pace_hull", corner)
    cornered = fluid_bound(data).bound
    assert with_hull is not None and cornered is not None and optimum.replayed_avg_jct is not None
    assert cornered + 3.0 < with_hull <= optimum.replayed_avg_jct
