"""The round model (docs/formulations.md §1): backends agree with brute force, exact ≥ greedy,
time limits, malformed input, and the ``exact-round`` policy in the simulator.

Tolerance: benefits are optimized as integers of 1 ms (``SCALE`` = 1000 per second). On problems
whose benefits lie on that grid every backend's re-scored objective equals brute force's up to
float summation (1e-9 relative here). In general two optima may differ by at most 2·H/SCALE s
(H hosts: each used pair's coefficient is off by at most 1/SCALE), the tolerance
``_tolerance`` uses.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import formulations
from formulations.families import defined
from formulations.result import SolveStatus
from formulations.round import (
    SCALE,
    RoundAssignment,
    RoundHost,
    RoundJob,
    RoundProblem,
    RoundShare,
    greedy_round,
    preprocess,
    solve,
    violations,
)
from formulations.round.families import FAMILIES
from formulations.round.generate import random_round
from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.model import Cluster, Instance
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.generators import WorkloadSpec, generate

BACKENDS = [
    pytest.param({"solver": "cpsat"}, id="cpsat"),
    pytest.param({"solver": "milp", "milp_backend": "highs"}, id="milp-highs"),
    pytest.param({"solver": "milp", "milp_backend": "cbc"}, id="milp-cbc"),
]
REL = 1e-9
DOCS = Path(__file__).resolve().parents[2] / "docs" / "formulations.md"


def tiny(seed: int, **overrides: object) -> RoundProblem:
    """A tiny random round: up to 4 jobs, 5 hosts of 1-3 GPUs, 0-3 idle GPUs."""
    rng = np.random.default_rng(seed)
    options: dict[str, object] = {
        "jobs": int(rng.integers(1, 5)),
        "hosts": int(rng.integers(1, 6)),
        "max_partners": [None, None, 1, 2][seed % 4],
        "threshold": [0.0, 0.0, 30.0, -5.0][(seed // 4) % 4],
    }
    options.update(overrides)
    return random_round(rng, **options)  # type: ignore[arg-type]


def tolerance(problem: RoundProblem) -> float:
    return 2.0 * len(problem.hosts) / SCALE


def example() -> RoundProblem:
    """The docstring example: the greedy takes the idle GPU first and loses to the optimum."""
    return RoundProblem(
        jobs=(RoundJob(id=5, gpus=2, options=(1, 2), memory=(6.0, 4.0)),),
        hosts=(RoundHost(id=1, gpus=1, room=8.0), RoundHost(id=2, gpus=2, room=5.0)),
        idle=1,
        benefit={(5, 1, 1): 30.0, (5, 2, 1): 20.0, (5, 2, 2): 25.0},
    )


# -- backends agree --------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_matches_brute_force(backend: dict[str, str]) -> None:
    """One body for every backend: optimal, feasible, and brute force's objective."""
    for seed in range(40):
        problem = tiny(seed)
        brute = solve(problem, "brute")
        result = solve(problem, time_limit=30.0, **backend)  # type: ignore[arg-type]
        assert result.status is SolveStatus.OPTIMAL, seed
        assert brute.objective is not None and result.objective is not None
        assert violations(problem, result.solution) == [], seed
        assert result.objective == pytest.approx(brute.objective, rel=REL, abs=1e-9), seed
        if result.bound is not None:
            assert result.bound == pytest.approx(result.objective, abs=1.0 / SCALE)


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_off_grid_benefits_within_rounding(backend: dict[str, str]) -> None:
    """Benefits not on the 1 ms grid: within 2·H/SCALE of brute force's float optimum."""
    for seed in range(10):
        problem = tiny(seed, grid=None)
        brute = solve(problem, "brute")
        result = solve(problem, **backend)  # type: ignore[arg-type]
        assert brute.objective is not None and result.objective is not None
        assert result.objective <= brute.objective + 1e-9
        assert result.objective >= brute.objective - tolerance(problem)


def test_hand_example_exact_beats_greedy() -> None:
    """Greedy: s = 1, idle GPU + host 1 (30 s). Optimum: s = 2 on hosts 1 and 2 (45 s)."""
    problem = example()
    greedy = greedy_round(problem)
    assert greedy == RoundAssignment((RoundShare(5, 1, 1, ((1, 1),)),))
    assert greedy.score(problem) == 30.0
    for solver in ("cpsat", "milp", "brute"):
        result = solve(problem, solver)
        assert result.objective == 45.0, solver
        assert result.solution == RoundAssignment((RoundShare(5, 2, 0, ((1, 1), (2, 1))),))


def test_greedy_feasible_and_never_better_on_random_rounds() -> None:
    for seed in range(60):
        problem = tiny(seed, grid=None)
        greedy = greedy_round(problem)
        assert violations(problem, greedy) == [] or problem.threshold > 0, seed
        if problem.threshold <= 0:
            exact = solve(problem, "cpsat")
            assert exact.objective is not None
            assert exact.objective >= greedy.score(problem) - tolerance(problem), seed


def test_preprocess_drops_non_positive_and_unreachable_pairs() -> None:
    problem = RoundProblem(
        jobs=(RoundJob(1, 3, (1,), (4.0,)),),
        hosts=(RoundHost(10, 1, 8.0), RoundHost(11, 1, 8.0)),
        idle=1,
        benefit={(1, 1, 10): 5.0, (1, 1, 11): -2.0},
    )
    data = preprocess(problem)
    assert data.empty  # one positive 1-GPU host + 1 idle GPU < 3 GPUs
    assert solve(problem).objective == 0.0


# -- constraint families ---------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["milp", "cpsat"])
def test_every_family_has_one_function_in_each_backend(backend: str) -> None:
    """The backends define ``add_<name>`` for every family of the one list, and no other."""
    module = importlib.import_module(f"formulations.round.{backend}")
    assert defined(module) == {family.function for family in FAMILIES}


def test_families_are_documented() -> None:
    """Every family's function is named in its section of docs/formulations.md (§1.4 table)."""
    text = DOCS.read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"`{family.function}`" in text, family.name
        assert f"### {family.section[1:]} " in text, family.section


# -- time limit and errors -------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS[:2])
def test_time_limit_respected(backend: dict[str, str]) -> None:
    rng = np.random.default_rng(1)
    problem = random_round(
        rng, jobs=20, hosts=30, max_host_gpus=8, max_extra_gpus=16, options=4, grid=None
    )
    limit = 0.05
    start = time.perf_counter()
    result = solve(problem, time_limit=limit, **backend)  # type: ignore[arg-type]
    wall = time.perf_counter() - start
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT)
    assert result.runtime_s <= limit + 1.0
    assert wall <= limit + 5.0  # model building included
    if result.status is SolveStatus.FEASIBLE:
        assert violations(problem, result.solution) == []
    # With the greedy as a hint, CP-SAT always returns at least the greedy's assignment.
    if backend["solver"] == "cpsat":
        greedy = greedy_round(problem)
        hinted = solve(problem, "cpsat", time_limit=0.5, hint=greedy)
        assert hinted.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
        assert hinted.objective is not None
        assert hinted.objective >= greedy.score(problem) - tolerance(problem)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RoundProblem((), (), idle=-1), "idle must be a non-negative"),
        (lambda: RoundProblem((RoundJob(1, 2, (1,), (1.0,)),), (), idle=2), "fits alone"),
        (
            lambda: RoundProblem((RoundJob(1, 2, (2, 1), (1.0, 1.0)),), (), idle=0),
            "strictly increasing",
        ),
        (
            lambda: RoundProblem((RoundJob(1, 2, (1,), (1.0,)),), (RoundHost(9, 1, 5.0),), idle=0),
            "no benefit for memory-feasible",
        ),
        (
            lambda: RoundProblem(
                (RoundJob(1, 2, (1,), (9.0,)),),
                (RoundHost(9, 1, 5.0),),
                idle=0,
                benefit={(1, 1, 9): 3.0},
            ),
            "does not fit",
        ),
        (
            lambda: RoundProblem(
                (RoundJob(1, 2, (1,), (1.0,)),), (), idle=0, benefit={(1, 1, 7): 3.0}
            ),
            "unknown triple",
        ),
        (
            lambda: RoundProblem(
                (RoundJob(1, 2, (1,), (1.0,)),),
                (RoundHost(9, 1, 5.0),),
                idle=0,
                benefit={(1, 1, 9): float("nan")},
            ),
            "finite",
        ),
        (lambda: RoundProblem((), (), idle=0, max_partners=0), "max_partners"),
        (lambda: RoundProblem((RoundJob(1, 2, (1,), (1.0,)),), (RoundHost(1, 1, 5.0),), 0), "both"),
    ],
)
def test_malformed_problem_is_a_clear_error(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()  # type: ignore[operator]


def test_bad_solve_arguments() -> None:
    problem = example()
    with pytest.raises(ValueError, match="unknown solver"):
        solve(problem, "gurobi")
    with pytest.raises(ValueError, match="time_limit"):
        solve(problem, time_limit=0.0)
    with pytest.raises(ValueError, match="RoundProblem"):
        solve({"jobs": []})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="MILP backend"):
        solve(problem, "milp", milp_backend="glpk")
    with pytest.raises(ValueError, match="tiny"):
        solve(random_round(np.random.default_rng(0), jobs=2, hosts=20), "brute")


def test_violations_reports_each_broken_constraint() -> None:
    problem = example()
    bad = RoundAssignment(
        (RoundShare(5, 1, 2, ((1, 1), (2, 1))),)  # too many GPUs, idle over-used, host 2 won't fit
    )
    found = " | ".join(violations(problem, bad))
    assert "gets 4 GPUs" in found and "idle GPUs over-used" in found and "fit" in found


# -- the exact-round policy ------------------------------------------------------------------------
SMALL = Cluster(nodes=2, gpus_per_node=8, gpu_mem_gb=12.0)


def instance(seed: int, n_jobs: int = 50) -> Instance:
    return generate(WorkloadSpec(n_jobs=n_jobs, cluster=SMALL), np.random.default_rng(seed))


def test_registered_and_sjfbsbf_stays_solver_free() -> None:
    """exact-round is an entry-point plugin: listed without importing the solver packages, and
    it is SJF-BSBF with the exact round solver."""
    policy = make_policy("exact-round")
    assert isinstance(policy, SjfBsbf) and policy.name == "exact-round"
    assert isinstance(policy.round_solver, formulations.ExactRound)
    code = (
        "import sys, sjfbsbf, sjfbsbf.policies, sjfbsbf.sim.simulator; "
        "from sjfbsbf.policies import policy_names; "
        "assert 'exact-round' in policy_names(), policy_names(); "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('pulp', 'ortools', 'highspy')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_round_simulates_and_is_never_below_greedy(seed: int) -> None:
    """Seeded 50-job runs on 2×8 GPUs: the simulator's checker accepts every decision; at every
    recorded round the greedy's assignment is feasible for the model and exact ≥ greedy."""
    result: SimResult = simulate(instance(seed), make_policy("exact-round", seed=seed))
    assert result.jobs["finish"].notna().all()
    stats = result.stats
    log = stats["round_log"]
    assert stats["rounds"] == len(log) > 0
    assert stats["solver_status"] == {"optimal": len(log)}
    for record in log:
        assert record["greedy_feasible"]
        assert record["exact"] >= record["greedy"] - record["tolerance"]
    assert stats["gap_max"] >= 0.0
    assert stats["outcomes"]["share"] > 0


def test_exact_round_with_milp_and_options() -> None:
    for options in (
        {"solver": "milp"},
        {"solver": "milp", "milp_backend": "cbc", "max_partners": 1},
        {"wait_aware": True, "retune": True, "threshold": 60.0},
        {"mix_idle": False, "sub_batch": "full"},
    ):
        result = simulate(instance(2, n_jobs=30), make_policy("exact-round", **options))
        assert result.jobs["finish"].notna().all(), options
        for record in result.stats["round_log"]:
            assert record["exact"] >= record["greedy"] - record["tolerance"], options


def test_exact_round_is_sjf_when_sharing_never_pays() -> None:
    """With κ so large that no pair has a positive benefit, no round has a candidate."""
    inst = instance(3, n_jobs=30)
    never = ContentionModel(kappa=1e6)
    exact = simulate(inst, make_policy("exact-round"), interference=never)
    sjf = simulate(inst, make_policy("sjf"), interference=never)
    cols = ["job_id", "start", "finish"]
    assert exact.jobs[cols].equals(sjf.jobs[cols])
    assert exact.stats["outcomes"].get("share", 0) == 0


def test_exact_round_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="solver"):
        make_policy("exact-round", solver="gurobi")
    with pytest.raises(ValueError, match="sub_batch"):
        make_policy("exact-round", sub_batch="largest")


def test_exact_round_is_reproducible() -> None:
    inst = instance(4, n_jobs=30)
    first = simulate(inst, make_policy("exact-round", seed=3))
    again = simulate(inst, make_policy("exact-round", seed=3))
    assert first.jobs.equals(again.jobs)


def test_exact_round_refuses_matching() -> None:
    """exact-round must solve every round: the matching engine, which refuses most, is refused."""
    with pytest.raises(ValueError, match="matching solves only rounds"):
        make_policy("exact-round", solver="matching")
