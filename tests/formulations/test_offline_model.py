"""The offline model (docs/formulations.md §2) on tiny cases: backends against brute force, the
replay, the result fields, symmetry breaking and the constraint families.

Tolerance: the model rounds progress up to integer work units and (CP-SAT) the last slot's time
up to 0.01 s, so while both release jobs at the same ticks its average JCT differs from the
simulator's for the same schedule by at most ``info["tolerance_s"]`` (a few hundredths of a second
here), plus 1e-6 relative for solver numerics: :func:`formulations.offline.objective_tolerance`
(docs/formulations.md §2.5). ``result.replayed_avg_jct`` is the simulator's value of the
returned schedule and ``result.objective`` the model's (§2.9). Backends are compared with the same
tolerance; brute force scores schedules by the simulator itself.
"""

from __future__ import annotations

import importlib
from functools import cache

import pytest
from offline_cases import DT, FAST_TINY, SLOW_TINY, SUITE, recorded_suite, suite_instance, tiny

from formulations.families import defined
from formulations.offline import objective_tolerance, preprocess, replay, solve_offline
from formulations.offline.brute import solve_brute
from formulations.offline.families import EXCLUSIONS, FAMILIES
from formulations.offline.heuristic import NON_PREEMPTIVE, run_heuristic
from formulations.offline.symmetry import canonical_schedule
from formulations.result import SolveStatus
from sjfbsbf.core.presets import time_slicing


@cache
def _brute(name: str) -> float:
    result = solve_brute(tiny(name), DT)
    assert result.status is SolveStatus.OPTIMAL and result.replayed_avg_jct is not None
    assert result.objective == result.replayed_avg_jct  # brute force's model is the simulator
    return result.replayed_avg_jct


def _check_against_brute(name: str, backend: str) -> None:
    instance = tiny(name)
    result = solve_offline(instance, backend, dt=DT, time_limit=30)
    assert result.status is SolveStatus.OPTIMAL, result.info
    replayed = result.replayed_avg_jct
    assert replayed is not None
    tolerance = result.info["tolerance_s"] + 1e-6 * replayed
    best = _brute(name)
    assert replayed == pytest.approx(best, abs=tolerance)
    assert replayed >= best - 1e-9  # brute force is the simulator's own minimum
    if result.info["source"] == "model":
        assert result.objective == pytest.approx(best, abs=tolerance)
    assert result.bound is not None and result.bound <= replayed + 1e-6


@pytest.mark.parametrize("name", FAST_TINY)
def test_tiny_optimum_equals_brute_force(name: str, backend: str) -> None:
    """MILP == CP-SAT == brute force (every start × placement × option, simulated)."""
    _check_against_brute(name, backend)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_TINY)
def test_tiny_optimum_equals_brute_force_slow(name: str, backend: str) -> None:
    """Larger enumerations (3-4 jobs on 2 GPUs, a 2-node cluster with spanning options)."""
    _check_against_brute(name, backend)


def test_cbc_backend_agrees() -> None:
    """The MILP solved by the bundled CBC gives the same optimum (no bound reported by CBC)."""
    result = solve_offline(tiny("partners"), "milp", dt=DT, milp_backend="cbc", time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(
        _brute("partners"), abs=result.info["tolerance_s"]
    )


def test_tiny_cases_exercise_sharing() -> None:
    """The optima of the tiny cases share GPUs, with several partners and sub-batches."""
    partners = solve_offline(tiny("partners"), dt=DT).replay()
    row = partners.jobs.set_index("job_id").loc[0]
    assert row["partners"] == "1;2"
    sub = solve_offline(tiny("sub-batch"), dt=DT).schedule
    assert sub is not None and max(e.accumulation for e in sub) > 1


def test_a_replay_keeps_progress_segments_only_when_asked() -> None:
    """Replays score a schedule without the segment table (the solvers replay every schedule);
    the Gantt view asks for it, and then every job's segments cover its run up to its finish."""
    result = solve_offline(tiny("mixed"), dt=DT)
    assert result.schedule is not None
    assert result.replay().segments is None
    assert replay(result.instance, result.schedule, DT).segments is None
    kept = result.replay(record_segments=True)
    assert kept.segments is not None
    last_end = kept.segments.groupby("job_id")["end"].max()
    assert last_end.to_dict() == kept.jobs.set_index("job_id")["finish"].to_dict()


def test_replayed_optimum_matches_model(backend: str) -> None:
    """The simulator's score of the optimal schedule equals the model's objective (tolerance)."""
    instance = tiny("mixed")
    result = solve_offline(instance, backend, dt=DT)
    assert result.objective is not None and result.schedule is not None
    replayed = replay(instance, result.schedule, DT)
    assert float(replayed.jobs["jct"].mean()) == pytest.approx(
        result.objective, abs=objective_tolerance(preprocess(instance, DT), result.objective)
    )
    assert result.info["replay_within_tolerance"]
    data = preprocess(instance, DT)
    unit = data.dt / data.time_units_per_slot  # CP-SAT rounds the last slot's time up to this
    finish = replayed.jobs.set_index("job_id")["finish"]
    for job_id, predicted in result.info["model_finish"].items():
        # The model is never slower than the simulator (progress rounded up, §2.5), up to the
        # last slot's time unit, and never faster by more than the job's tolerance.
        tolerance = data.job_tolerance_s[data.position(job_id)]
        assert predicted <= finish[job_id] + unit + 1e-6
        assert predicted >= finish[job_id] - tolerance - 1e-6


def test_result_fields_have_one_meaning() -> None:
    """``objective`` is the model's value, ``replayed_avg_jct`` the simulator's, each a field."""
    instance = tiny("mixed")
    result = solve_offline(instance, "cpsat", dt=DT)
    assert result.info["source"] == "model"
    assert result.objective is not None and result.replayed_avg_jct is not None
    assert result.rescore() == result.replayed_avg_jct  # the result re-scores itself
    tolerance = objective_tolerance(preprocess(instance, DT), result.objective)
    assert abs(result.objective - result.replayed_avg_jct) <= tolerance
    assert "replayed_avg_jct" not in result.info and "model_objective" not in result.info
    assert result.dt == DT and result.gap is not None and result.gap <= 1e-6 + tolerance


def test_canonical_schedule_keeps_jcts() -> None:
    """The symmetry-breaking permutation of a heuristic schedule simulates identically."""
    instance = suite_instance("n6-g4-all-a")
    data = preprocess(instance, DT)
    for policy in NON_PREEMPTIVE:
        run = run_heuristic(instance, policy, DT, time_slicing())
        canonical = canonical_schedule(data, run.schedule)
        jct = replay(instance, canonical, DT).jobs["jct"].sum()
        assert jct == pytest.approx(run.total_jct, rel=1e-12)


@pytest.mark.parametrize("name", ["n5-g2-all-a", "n6-g4-all-b", "n4-2x2-all-a"])
def test_policy_schedules_lie_in_the_decision_space(name: str) -> None:
    """Every non-preemptive policy's schedule is a model solution worth its simulated JCT.

    The model is built without the reductions (dominance rules, symmetry, upper bound) and with
    the safe horizon, y/e/x/z are fixed to the policy's schedule; CP-SAT must find it feasible
    and the model's average JCT must equal the simulator's within the tolerance.
    """
    from ortools.sat.python import cp_model

    from formulations.offline import cpsat

    instance = suite_instance(name)
    data = preprocess(instance, DT, use_heuristic_bound=False)
    for policy in NON_PREEMPTIVE:
        run = run_heuristic(instance, policy, DT, time_slicing())
        model, v = cpsat.build(data, reductions=False)
        assert cpsat.fix_schedule(model, data, v, run.schedule, run.finish)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = 20
        assert solver.solve(model) == cp_model.OPTIMAL, policy
        total = solver.objective_value * DT / data.time_units_per_slot
        average = (total - data.arrival_total) / instance.num_jobs
        assert average == pytest.approx(run.avg_jct, abs=objective_tolerance(data, average))
        assert average >= run.avg_jct - 1e-6


def test_suite_files_are_the_generator_output() -> None:
    """Each instance file is what its spec and seed generate (the suite is reproducible)."""
    from formulations.offline.generate import SPECS, make_instance

    suite = recorded_suite()
    for spec in SPECS:
        assert spec.name in suite
        assert make_instance(spec) == suite[spec.name][1]


# -- constraint families ------------------------------------------------------------------------
def test_every_family_has_one_function_in_each_backend(backend: str) -> None:
    """The backends define ``add_<name>`` for every family of the one list (and the no-good cuts
    of §2.9), and no other."""
    module = importlib.import_module(f"formulations.offline.{backend}.constraints")
    expected = {family.function for family in (*FAMILIES, EXCLUSIONS)}
    assert defined(module) == expected


def test_families_are_documented() -> None:
    """Every family's function is named in docs/formulations.md, whose section exists."""
    text = (SUITE.parent / "docs" / "formulations.md").read_text(encoding="utf-8")
    for family in (*FAMILIES, EXCLUSIONS):
        assert f"`{family.function}`" in text, family.name
        assert f"### {family.section[1:]} " in text, family.section


def test_build_without_reductions_leaves_out_the_marked_families() -> None:
    """``reductions=False`` drops exactly the families marked as reductions (fewer rows)."""
    from formulations.offline import cpsat, milp

    data = preprocess(suite_instance("n5-g2-all-a"), DT)
    full, _ = milp.build(data)
    bare, _ = milp.build(data, reductions=False)
    assert bare.numConstraints() < full.numConstraints()
    assert any(family.reduction for family in FAMILIES)
    cp_full, _ = cpsat.build(data)
    cp_bare, _ = cpsat.build(data, reductions=False)
    assert len(cp_bare.proto.constraints) < len(cp_full.proto.constraints)
