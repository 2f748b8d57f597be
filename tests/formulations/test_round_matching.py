"""The assignment case of the round model (formulations/round/matching.py): when a round reduces
to a maximum-weight bipartite matching, the matching is exact.

* the reducibility test is exact: on random rounds it agrees with an enumeration of every share a
  job can take alone (written here, independent of the module); hand-made rounds break (or
  keep) each condition in test_round_matching_conditions.py;
* on random reducible rounds (explicit seeds) the matching's objective equals CP-SAT's, HiGHS's and
  brute force's (benefits on the 1 ms grid: exactly, up to float summation, 1e-9 relative as in
  test_formulations_round.py; off the grid: the same integer objective, and within 2·H/SCALE s of
  brute force's float optimum), and its assignment breaks no constraint;
* ties are broken by the stated rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from round_cases import ONE_GPU_JOBS, host, job, non_assignment_share

from formulations.result import SolveStatus
from formulations.round import (
    SCALE,
    RoundAssignment,
    RoundProblem,
    RoundShare,
    preprocess,
    reduces,
    reduction_failure,
    solve,
    violations,
)
from formulations.round.generate import random_round
from formulations.round.matching import Edge, edges

REL = 1e-9
THRESHOLDS = (0.0, 0.0, 30.0, -5.0)


# -- random rounds ---------------------------------------------------------------------------------
def reducible(
    seed: int, kind: str, *, jobs: int = 5, hosts: int = 6, **overrides: object
) -> RoundProblem:
    """A random round that reduces to an assignment, drawn from ``default_rng(seed)``.

    No idle GPUs (``max_idle=0``) and either ``"unit"``: 1-GPU jobs (a job can take GPUs from one
    host only), hosts of 1-3 GPUs, any ``max_partners``; or ``"one-partner"``: ``max_partners``
    = 1, jobs of 1-4 GPUs (a job can share only with a host holding at least its GPU count).
    Thresholds cycle through 0, 0, 30 s and -5 s.
    """
    rng = np.random.default_rng(seed)
    options: dict[str, object] = {
        "jobs": int(rng.integers(1, jobs + 1)),
        "hosts": int(rng.integers(1, hosts + 1)),
        "max_idle": 0,
        "threshold": THRESHOLDS[seed % 4],
    }
    if kind == "unit":
        options.update(max_extra_gpus=1, max_partners=[None, 1, 2][seed % 3])
    else:
        options.update(max_extra_gpus=4, max_partners=1)
    options.update(overrides)
    return random_round(rng, **options)  # type: ignore[arg-type]


def tolerance(problem: RoundProblem) -> float:
    return 2.0 * len(problem.hosts) / SCALE


def check_against_backends(problem: RoundProblem, *, brute: bool = True) -> None:
    """Matching == CP-SAT == HiGHS (== brute force) on a round on the 1 ms grid."""
    matching = solve(problem, "matching")
    assert matching.status is SolveStatus.OPTIMAL and matching.solver == "matching"
    assert matching.objective is not None and matching.bound is not None
    assert violations(problem, matching.solution) == []
    assert matching.bound == pytest.approx(matching.objective, rel=REL, abs=1e-9)
    others = [solve(problem, "cpsat"), solve(problem, "milp", milp_backend="highs")]
    if brute:
        others.append(solve(problem, "brute"))
    for other in others:
        assert other.status is SolveStatus.OPTIMAL, other.solver
        assert other.objective == pytest.approx(matching.objective, rel=REL, abs=1e-9), other.solver


@pytest.mark.parametrize("kind", ["unit", "one-partner"])
def test_matching_equals_cpsat_milp_and_brute_force(kind: str) -> None:
    """60 seeded rounds of each kind (1-5 jobs, 1-6 hosts), benefits on the 1 ms grid."""
    for seed in range(60):
        problem = reducible(seed, kind)
        assert reduces(problem), (seed, reduction_failure(problem))
        check_against_backends(problem)


def test_off_grid_same_integer_optimum_and_within_rounding_of_brute_force() -> None:
    for seed in range(20):
        problem = reducible(seed, ["unit", "one-partner"][seed % 2], grid=None)
        matching = solve(problem, "matching")
        cpsat = solve(problem, "cpsat")
        brute = solve(problem, "brute")
        assert matching.info["objective_int"] == cpsat.info["objective_int"], seed
        assert matching.objective is not None and brute.objective is not None
        assert matching.objective <= brute.objective + 1e-9
        assert matching.objective >= brute.objective - tolerance(problem), seed


def test_reducibility_test_is_exact_on_random_rounds() -> None:
    """General random rounds (idle GPUs, multi-GPU jobs, thresholds, partner limits): the test
    refuses exactly those where some job alone can take an idle GPU or a second host; those it
    accepts are solved to brute force's optimum."""
    outcomes = {True: 0, False: 0}
    for seed in range(300):
        rng = np.random.default_rng(10_000 + seed)
        problem = random_round(
            rng,
            jobs=int(rng.integers(1, 4)),
            hosts=int(rng.integers(1, 5)),
            max_idle=[0, 0, 0, 1][seed % 4],
            max_extra_gpus=3,
            max_partners=[None, 1, 2][seed % 3],
            threshold=[0.0, 60.0, 120.0, -5.0][(seed // 3) % 4],
        )
        accepted = reduces(problem)
        assert accepted is not non_assignment_share(problem), (seed, reduction_failure(problem))
        outcomes[accepted] += 1
        if accepted:
            brute = solve(problem, "brute")
            assert solve(problem, "matching").objective == pytest.approx(
                brute.objective, rel=REL, abs=1e-9
            ), seed
        else:
            with pytest.raises(ValueError, match="does not reduce"):
                solve(problem, "matching")
    assert min(outcomes.values()) >= 60, outcomes  # both sides are exercised


@pytest.mark.parametrize(
    ("kind", "count", "jobs", "hosts", "first_seed"),
    [
        ("unit", 40, 12, 16, 1000),
        ("one-partner", 40, 12, 16, 1000),
        pytest.param("unit", 20, 40, 60, 2000, marks=pytest.mark.slow),
        pytest.param("one-partner", 20, 40, 60, 2000, marks=pytest.mark.slow),
    ],
)
def test_larger_reducible_rounds_agree_with_cpsat_and_milp(
    kind: str, count: int, jobs: int, hosts: int, first_seed: int
) -> None:
    """Seeded rounds too many for brute force: 40 of each kind up to 12 jobs × 16 hosts; slow:
    20 of each up to 40 × 60."""
    for seed in range(first_seed, first_seed + count):
        problem = reducible(seed, kind, jobs=jobs, hosts=hosts)
        assert reduces(problem), seed
        check_against_backends(problem, brute=False)


# -- result, best option per edge, ties ------------------------------------------------------------
def test_result_fields() -> None:
    result = solve(ONE_GPU_JOBS, "matching")
    assert result.status is SolveStatus.OPTIMAL
    assert result.solution == RoundAssignment(
        (RoundShare(1, 1, 0, ((10, 1),)), RoundShare(2, 1, 0, ((11, 1),)))
    )
    assert result.objective == 12.0 and result.bound == 12.0
    assert result.info["objective_int"] == 12000
    assert result.info["edges"] == 4 and result.info["matched"] == 2


def test_best_option_per_edge() -> None:
    """Largest coefficient, then largest float benefit, then the smallest s."""
    problem = RoundProblem(
        (job(1, 1, (1, 2, 4)), job(2, 1, (1, 2))),
        (host(10, 1), host(11, 1)),
        idle=0,
        benefit={
            (1, 1, 10): 3.0, (1, 2, 10): 5.0, (1, 4, 10): 5.0,  # s=2 and s=4 tie: s=2
            (1, 1, 11): 1.0001, (1, 2, 11): 1.0002, (1, 4, 11): 0.5,  # same coef, s=2 larger
            (2, 1, 10): -1.0, (2, 2, 10): -1.0, (2, 1, 11): 0.5, (2, 2, 11): 0.5,
        },
    )  # fmt: skip
    found = edges(preprocess(problem))
    assert (found[(1, 10)].option, found[(1, 10)].coef) == (2, 5000)
    assert (found[(1, 11)].option, found[(1, 11)].coef) == (2, 1000)
    assert found[(2, 11)].option == 1
    result = solve(problem, "matching")
    assert result.solution == RoundAssignment(
        (RoundShare(1, 2, 0, ((10, 1),)), RoundShare(2, 1, 0, ((11, 1),)))
    )


def test_ties_jobs_in_order_take_the_lowest_host_id() -> None:
    """Jobs listed 7, 3 (the SJF order), hosts listed 11, 10, every benefit 5 s: job 7 comes
    first and takes host 10 (lowest id), job 3 takes host 11; with host 10 alone, job 3 waits."""
    jobs = (job(7, 1), job(3, 1))
    benefit = {(a, 1, b): 5.0 for a in (7, 3) for b in (11, 10)}
    problem = RoundProblem(jobs, (host(11, 1), host(10, 1)), idle=0, benefit=benefit)
    assert solve(problem, "matching").solution == RoundAssignment(
        (RoundShare(7, 1, 0, ((10, 1),)), RoundShare(3, 1, 0, ((11, 1),)))
    )
    benefit = {key: b for key, b in benefit.items() if key[2] == 10}
    problem = RoundProblem(jobs, (host(10, 1),), idle=0, benefit=benefit)
    assert solve(problem, "matching").solution == RoundAssignment(
        (RoundShare(7, 1, 0, ((10, 1),)),)
    )


def test_ties_only_among_optima() -> None:
    """Job 1 prefers host 10, but only 1→11, 2→10 reaches the optimum (10 s): the rule picks
    among optimal matchings, never a worse one."""
    problem = RoundProblem(
        (job(1, 1), job(2, 1)),
        (host(10, 1), host(11, 1)),
        idle=0,
        benefit={(1, 1, 10): 5.0, (1, 1, 11): 5.0, (2, 1, 10): 5.0, (2, 1, 11): -1.0},
    )
    result = solve(problem, "matching")
    assert result.objective == 10.0
    assert result.solution == RoundAssignment(
        (RoundShare(1, 1, 0, ((11, 1),)), RoundShare(2, 1, 0, ((10, 1),)))
    )


def test_tie_rule_on_random_tied_rounds() -> None:
    """Rounds whose positive benefits are all equal: the matching is the lexicographically first
    optimal one (jobs in order, lowest host id, waiting last), found here by enumeration."""
    for seed in range(30):
        rng = np.random.default_rng(500 + seed)
        problem = reducible(seed, "unit", jobs=4, hosts=4)
        problem = RoundProblem(
            problem.jobs,
            problem.hosts,
            problem.idle,
            benefit={key: 1.0 if rng.random() < 0.7 else -1.0 for key in problem.benefit},
            forbidden=problem.forbidden,
        )
        data = preprocess(problem)
        found = edges(data)
        hosts = sorted(h.id for h in problem.hosts)
        best: tuple[int, tuple[float, ...]] | None = None
        for choice in _all_matchings([j.id for j in problem.jobs], hosts, found):
            weight = sum(found[(a, b)].coef for a, b in choice.items())
            order = tuple(choice.get(j.id, float("inf")) for j in problem.jobs)
            if best is None or (-weight, order) < (-best[0], best[1]):
                best = (weight, order)
        assert best is not None
        result = solve(problem, "matching")
        got = {s.job: s.hosts[0][0] for s in result.solution.shares}
        assert tuple(got.get(j.id, float("inf")) for j in problem.jobs) == best[1], seed


def _all_matchings(
    jobs: list[int], hosts: list[int], found: dict[tuple[int, int], Edge]
) -> list[dict[int, int]]:
    """Every matching of ``jobs`` to ``hosts`` along ``found`` (job -> host)."""
    if not jobs:
        return [{}]
    out: list[dict[int, int]] = []
    for rest in _all_matchings(jobs[1:], hosts, found):
        out.append(rest)
        for b in hosts:
            if (jobs[0], b) in found and b not in rest.values():
                out.append({jobs[0]: b, **rest})
    return out
