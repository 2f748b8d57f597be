"""The offline model (docs/formulations.md §2): backends, brute force, replay, suite, ``planned``.

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
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from formulations.families import defined
from formulations.offline import objective_tolerance, preprocess, replay, solve_offline
from formulations.offline.brute import solve_brute
from formulations.offline.families import EXCLUSIONS, FAMILIES
from formulations.offline.heuristic import NON_PREEMPTIVE, run_heuristic
from formulations.offline.suite import OPTIMA_FILE, Optimum, load_suite
from formulations.offline.symmetry import canonical_schedule
from formulations.result import SolveStatus
from sjfbsbf.cli import app
from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.experiments.compare import run_policies
from sjfbsbf.policies import make_policy, needs_options, policy_names
from sjfbsbf.policies.planned import PlanError, Planned, PlannedStart
from sjfbsbf.sim.simulator import simulate

DT = 60.0
SUITE = Path(__file__).resolve().parents[2] / "instances"


def catalog_job(
    job_id: int, arrival_slot: int, gpus: int, model: str, slots: int, cluster: Cluster
) -> Job:
    """A catalog job whose full-batch exclusive duration is just under ``slots`` slots."""
    profile = get_catalog("default")[model]
    batch = DEFAULT_BATCH[model]
    step = profile.step_time(batch, 1, gpus, gpus > cluster.gpus_per_node, cluster)
    iterations = int(slots * DT / step)
    while slots * DT - iterations * step < 1e-3 * DT:
        iterations -= 1
    return Job(job_id, arrival_slot * DT, gpus, model, batch, iterations)


@pytest.fixture
def backend(offline_backend: str) -> str:
    """Each offline backend in turn: this module's name for the shared ``offline_backend``."""
    return offline_backend


def _tiny(name: str) -> Instance:
    one = Cluster(1, 1, 12.0)
    two = Cluster(1, 2, 12.0)
    two_nodes = Cluster(2, 2, 12.0)
    cases = {
        # two light jobs share one GPU
        "share": lambda: (
            one,
            [catalog_job(0, 0, 1, "dqn", 2, one), catalog_job(1, 1, 1, "a2c", 1, one)],
        ),
        # a 2-GPU job shares with two partners on different GPUs
        "partners": lambda: (
            two,
            [
                catalog_job(0, 0, 2, "dqn", 2, two),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # a 1-GPU job shares with a 2-GPU job and a later job
        "mixed": lambda: (
            two,
            [
                catalog_job(0, 0, 1, "a2c", 2, two),
                catalog_job(1, 0, 2, "dqn", 1, two),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # the newcomer needs a sub-batch to fit beside the running job
        "sub-batch": lambda: (
            one,
            [catalog_job(0, 0, 1, "a2c", 3, one), catalog_job(1, 1, 1, "gpt2", 1, one)],
        ),
        # memory: both need a sub-batch to share
        "memory": lambda: (
            one,
            [catalog_job(0, 0, 1, "bert", 3, one), catalog_job(1, 1, 1, "bert", 1, one)],
        ),
        # sharing needs sub-batches and is slower than waiting: sequential
        "sequential": lambda: (
            one,
            [catalog_job(0, 0, 1, "gpt2", 1, one), catalog_job(1, 0, 1, "bert", 2, one)],
        ),
        # duration-only jobs end exactly on tick boundaries
        "duration": lambda: (
            one,
            [
                Job(0, 0.0, 1, duration=120.0),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # slow cases
        "four-jobs": lambda: (
            two,
            [
                Job(0, 0.0, 1, duration=120.0),
                Job(1, 0.0, 2, duration=60.0),
                Job(2, 0.0, 1, duration=60.0),
                Job(3, 60.0, 1, duration=120.0),
            ],
        ),
        "three-catalog": lambda: (
            two,
            [
                catalog_job(0, 0, 2, "shufflenet_v2", 2, two),
                catalog_job(1, 0, 1, "dqn", 1, two),
                catalog_job(2, 1, 1, "resnet18", 1, two),
            ],
        ),
        "spans": lambda: (
            two_nodes,
            [
                catalog_job(0, 0, 2, "vgg16", 2, two_nodes),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 0.0, 2, duration=120.0),
            ],
        ),
    }
    cluster, jobs = cases[name]()
    return Instance(cluster, tuple(jobs), name=name)


FAST_TINY = ("share", "partners", "mixed", "sub-batch", "memory", "sequential", "duration")
SLOW_TINY = ("four-jobs", "three-catalog", "spans")


@cache
def _brute(name: str) -> float:
    result = solve_brute(_tiny(name), DT)
    assert result.status is SolveStatus.OPTIMAL and result.replayed_avg_jct is not None
    assert result.objective == result.replayed_avg_jct  # brute force's model is the simulator
    return result.replayed_avg_jct


def _check_against_brute(name: str, backend: str) -> None:
    instance = _tiny(name)
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
    result = solve_offline(_tiny("partners"), "milp", dt=DT, milp_backend="cbc", time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(
        _brute("partners"), abs=result.info["tolerance_s"]
    )


def test_tiny_cases_exercise_sharing() -> None:
    """The optima of the tiny cases share GPUs, with several partners and sub-batches."""
    partners = solve_offline(_tiny("partners"), dt=DT).replay()
    row = partners.jobs.set_index("job_id").loc[0]
    assert row["partners"] == "1;2"
    sub = solve_offline(_tiny("sub-batch"), dt=DT).schedule
    assert sub is not None and max(e.accumulation for e in sub) > 1


def test_replayed_optimum_matches_model(backend: str) -> None:
    """The simulator's score of the optimal schedule equals the model's objective (tolerance)."""
    instance = _tiny("mixed")
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
    instance = _tiny("mixed")
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
    instance = _suite_instance("n6-g4-all-a")
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

    instance = _suite_instance(name)
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

    suite = _suite()
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

    data = preprocess(_suite_instance("n5-g2-all-a"), DT)
    full, _ = milp.build(data)
    bare, _ = milp.build(data, reductions=False)
    assert bare.numConstraints() < full.numConstraints()
    assert any(family.reduction for family in FAMILIES)
    cp_full, _ = cpsat.build(data)
    cp_bare, _ = cpsat.build(data, reductions=False)
    assert len(cp_bare.proto.constraints) < len(cp_full.proto.constraints)


# -- the suite ----------------------------------------------------------------------------------
@cache
def _suite() -> dict[str, tuple[Optimum, Instance]]:
    if not (SUITE / OPTIMA_FILE).is_file():
        pytest.skip("instances/optima.json is missing")
    return {opt.name: (opt, inst) for opt, inst in load_suite(SUITE)}


def _suite_instance(name: str) -> Instance:
    return _suite()[name][1]


def test_suite_is_large_and_mostly_proven() -> None:
    """At least 30 instances, most with a proven optimum; every one records a schedule."""
    suite = _suite()
    assert len(suite) >= 30
    proven = [opt for opt, _ in suite.values() if opt.proven]
    assert len(proven) >= 30
    for opt, _ in suite.values():
        assert opt.schedule


def test_non_preemptive_policies_never_beat_the_optimum() -> None:
    """fifo, sjf, sjf-ffs, sjf-bsbf (default options) at the same dt: avg JCT ≥ optimum."""
    for opt, instance in _suite().values():
        if not opt.proven:
            continue
        reference = opt.replayed_avg_jct
        tolerance = opt.tolerance_s + 1e-6 * reference
        for result in run_policies(instance, list(NON_PREEMPTIVE), dt=opt.dt):
            assert result.avg_jct >= reference - tolerance, (opt.name, result.policy)


def test_recorded_schedules_replay_to_recorded_scores() -> None:
    """Each recorded schedule, replayed by ``planned``, scores its recorded average JCT."""
    for opt, instance in _suite().values():
        result = replay(instance, opt.schedule, opt.dt)
        assert float(result.jobs["jct"].mean()) == pytest.approx(opt.replayed_avg_jct, rel=1e-9)


def _fast_subset(count: int) -> list[str]:
    proven = [
        (opt.details.get("runtime_s", 1e9), name)
        for name, (opt, _) in _suite().items()
        if opt.proven
    ]
    return [name for _, name in sorted(proven)[:count]]


@pytest.mark.parametrize("position", range(4))
def test_regression_cpsat_matches_recorded_optimum(position: int) -> None:
    """Re-solving the fastest suite instances gives the recorded optimum."""
    name = _fast_subset(4)[position]
    opt, instance = _suite()[name]
    result = solve_offline(instance, "cpsat", dt=opt.dt, time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)


def test_regression_milp_matches_recorded_optimum() -> None:
    """The MILP proves the same optimum on the fastest suite instance."""
    name = _fast_subset(1)[0]
    opt, instance = _suite()[name]
    result = solve_offline(instance, "milp", dt=opt.dt, time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)


@pytest.mark.slow
def test_regression_whole_suite() -> None:
    """Every proven suite instance re-solves to its recorded optimum (CP-SAT, 4 workers)."""
    for opt, instance in _suite().values():
        if not opt.proven:
            continue
        result = solve_offline(instance, "cpsat", dt=opt.dt, time_limit=120, num_workers=4)
        assert result.status is SolveStatus.OPTIMAL, opt.name
        assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)


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
    result = solve_offline(_tiny("sequential"), backend, dt=DT, horizon=1)
    assert result.status is SolveStatus.INFEASIBLE
    assert "horizon" in result.info["reason"]
    assert result.schedule is None


def test_solver_proves_a_short_horizon_infeasible(backend: str) -> None:
    """The two jobs need 3 slots (sharing stretches both); with 2 the solver proves it."""
    result = solve_offline(_tiny("sequential"), backend, dt=DT, horizon=2)
    assert result.status is SolveStatus.INFEASIBLE
    assert result.objective is None and result.replayed_avg_jct is None
    assert result.schedule is None
    result = solve_offline(_tiny("sequential"), backend, dt=DT, horizon=3)
    assert result.status is SolveStatus.OPTIMAL


def test_job_larger_than_the_cluster_is_a_clear_error() -> None:
    """A job that cannot fit is rejected with the job and field named."""
    with pytest.raises(InstanceError, match=r"job 0.*field 'gpus'"):
        Instance(Cluster(1, 2, 12.0), (Job(0, 0.0, 4, duration=60.0),))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown solver"):
        solve_offline(_tiny("share"), "gurobi")
    with pytest.raises(ValueError, match="time_limit"):
        solve_offline(_tiny("share"), time_limit=0)
    with pytest.raises(ValueError, match="dt"):
        solve_offline(_tiny("share"), dt=-1.0)


def test_brute_force_refuses_large_enumerations() -> None:
    with pytest.raises(ValueError, match="combinations"):
        solve_brute(_hard_instance(), DT)


# -- the planned policy -------------------------------------------------------------------------
def _two_jobs() -> Instance:
    one = Cluster(1, 1, 12.0)
    return Instance(one, (Job(0, 0.0, 1, duration=120.0), Job(1, 60.0, 1, duration=60.0)))


def test_planned_replays_a_schedule() -> None:
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 120.0, (0,))]
    jobs = simulate(_two_jobs(), Planned(plan), dt=DT).jobs.set_index("job_id")
    assert list(jobs["start"]) == [0.0, 120.0]
    assert list(jobs["finish"]) == [120.0, 180.0]


def test_planned_is_reachable_but_not_listed() -> None:
    # `planned` cannot run on an instance alone, so no "every policy" loop may pick it up.
    assert "planned" not in policy_names()
    assert "planned" not in policy_names(defaults_only=True)
    assert needs_options("planned")
    policy = make_policy("planned", schedule=[PlannedStart(0, 0.0, (0,))])
    assert policy.name == "planned" and not policy.preemptive


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))], "not arrived"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 30.0, (0,))], "not asked"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0, (0,), 2)], "not an option"),
        ([PlannedStart(0, 0.0, (0,)), PlannedStart(1, 60.0, (1,))], "unknown GPU"),
        ([PlannedStart(0, 0.0, (0,))], "missing: \\[1\\]"),
    ],
)
def test_planned_fails_loudly(plan: list[PlannedStart], message: str) -> None:
    with pytest.raises(PlanError, match=message):
        simulate(_two_jobs(), Planned(plan), dt=DT)


def test_planned_fails_on_a_busy_gpu() -> None:
    """A third job on a GPU that holds two: the tick, the job and the GPU are named."""
    one = Cluster(1, 1, 12.0)
    instance = Instance(one, tuple(Job(i, 0.0, 1, duration=60.0) for i in range(3)))
    plan = [PlannedStart(i, 0.0, (0,)) for i in range(3)]
    with pytest.raises(PlanError, match=r"t=0: planned start of job 2 .* GPU 0 already holds"):
        simulate(instance, Planned(plan), dt=DT)


def test_planned_fails_on_memory_overflow() -> None:
    one = Cluster(1, 1, 12.0)
    instance = Instance(
        one, (catalog_job(0, 0, 1, "gpt2", 2, one), catalog_job(1, 0, 1, "bert", 1, one))
    )
    plan = [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))]
    with pytest.raises(PlanError, match="memory overflow"):
        simulate(instance, Planned(plan), dt=DT)


def test_planned_rejects_a_malformed_plan() -> None:
    with pytest.raises(PlanError, match="planned twice"):
        Planned([PlannedStart(0, 0.0, (0,)), PlannedStart(0, 60.0, (0,))])


# -- layering and the command line ---------------------------------------------------------------
def test_core_never_imports_solvers() -> None:
    code = (
        "import sys, sjfbsbf, sjfbsbf.policies, sjfbsbf.sim.simulator, sjfbsbf.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pulp', 'ortools', 'highspy')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("dt", ["60", "120"])
def test_cli_solve(tmp_path: Path, dt: str) -> None:
    """Slots coarser than the 60 s decision interval are allowed (offline runs decide every
    max(60 s, dt)), unlike ``simulate --dt``."""
    path = tmp_path / "share.json"
    write_instance(_tiny("share"), path)
    result = CliRunner().invoke(
        app, ["solve", str(path), "--solver", "cpsat", "--time-limit", "10", "--dt", dt]
    )
    assert result.exit_code == 0, result.output
    for text in (
        "status",
        "optimal",
        "lower bound",
        "avg JCT (simulated)",
        "schedule from",
        "CP-SAT, 1 worker, seed 0, deterministic time limit 10",
        "sjf-bsbf",
        "tiresias",
        "%",
    ):
        assert text in result.output


MILP = ("--solver", "milp", "--time-limit", "10")


def test_cli_solve_milp_keeps_solver_output_off_stdout(tmp_path: Path) -> None:
    """HiGHS prints its banner from native code to descriptor 1: it must not reach stdout."""
    path = tmp_path / "share.json"
    write_instance(_tiny("share"), path)
    done = subprocess.run(
        [sys.executable, "-c", "from sjfbsbf.cli import app; app()", "solve", str(path), *MILP],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "status" in done.stdout and "optimal" in done.stdout
    assert "HiGHS" not in done.stdout and "Copyright" not in done.stdout
    assert "wall-clock time limit 10 s" in done.stdout


def test_cli_solve_rejects_bad_options(tmp_path: Path) -> None:
    path = tmp_path / "share.json"
    write_instance(_tiny("share"), path)
    result = CliRunner().invoke(app, ["solve", str(path), "--solver", "gurobi"])
    assert result.exit_code == 2
    result = CliRunner().invoke(app, ["solve", str(tmp_path / "missing.json")])
    assert result.exit_code == 1


def test_cli_gap() -> None:
    if not (SUITE / OPTIMA_FILE).is_file():
        pytest.skip("instances/optima.json is missing")
    result = CliRunner().invoke(app, ["gap", "--suite", str(SUITE)])
    assert result.exit_code == 0, result.output
    for text in ("n4-g2-all-a", "sjf-bsbf", "mean", "max"):
        assert text in result.output


def test_cli_gap_without_optima(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["gap", "--suite", str(tmp_path)])
    assert result.exit_code == 1
