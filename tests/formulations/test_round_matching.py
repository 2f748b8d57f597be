"""The assignment case of the round model (formulations/round/matching.py): when a round reduces
to a maximum-weight bipartite matching, the matching is exact.

* the reducibility test is exact: on random rounds it agrees with an enumeration of every share a
  job can take alone (written here, independent of the module); hand-made rounds break (or
  keep) each condition;
* on random reducible rounds (explicit seeds) the matching's objective equals CP-SAT's, HiGHS's and
  brute force's (benefits on the 1 ms grid: exactly, up to float summation, 1e-9 relative as in
  test_formulations_round.py; off the grid: the same integer objective, and within 2·H/SCALE s of
  brute force's float optimum), and its assignment breaks no constraint;
* ties are broken by the stated rule.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from formulations.result import SolveStatus
from formulations.round import (
    SCALE,
    RoundAssignment,
    RoundHost,
    RoundJob,
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
from formulations.round.preprocess import coefficient, threshold_coefficient

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


def non_assignment_share(problem: RoundProblem) -> bool:
    """Whether some job, alone in the round, can share with an idle GPU or two or more hosts.

    Enumerates every (option, set of positive-benefit hosts, idle count) of every job with the
    round model's rules (GPU count exact, 1..g_b GPUs per host, at most min(I, G_a − 1) idle
    GPUs, at most ``max_partners`` hosts, integer score reaching the threshold).
    """
    need = threshold_coefficient(problem.threshold, SCALE)
    for job in problem.jobs:
        for s in job.options:
            cands = [
                (host, coefficient(b))
                for host in problem.hosts
                if (b := problem.benefit.get((job.id, s, host.id))) is not None and b > 0
            ]
            limit = problem.max_partners or len(cands)
            for size in range(1, min(limit, len(cands)) + 1):
                for subset in combinations(cands, size):
                    if need is not None and sum(c for _, c in subset) < need:
                        continue
                    gpus = sum(host.gpus for host, _ in subset)
                    for idle in range(min(problem.idle, job.gpus - 1) + 1):
                        fits = size <= job.gpus - idle <= gpus
                        if fits and (size >= 2 or idle >= 1):
                            return True
    return False


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


@pytest.mark.parametrize("kind", ["unit", "one-partner"])
def test_medium_reducible_rounds_agree_with_cpsat_and_milp(kind: str) -> None:
    """40 seeded rounds of each kind, 1-12 jobs and 1-16 hosts (too many for brute force)."""
    for seed in range(40):
        problem = reducible(1000 + seed, kind, jobs=12, hosts=16)
        assert reduces(problem), seed
        check_against_backends(problem, brute=False)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["unit", "one-partner"])
def test_large_reducible_rounds_agree_with_cpsat_and_milp(kind: str) -> None:
    """20 seeded rounds of each kind, 1-40 jobs and 1-60 hosts."""
    for seed in range(20):
        problem = reducible(2000 + seed, kind, jobs=40, hosts=60)
        assert reduces(problem), seed
        check_against_backends(problem, brute=False)


# -- each condition, by hand -----------------------------------------------------------------------
def job(
    job_id: int, gpus: int, options: tuple[int, ...] = (1,), memory: tuple[float, ...] = ()
) -> RoundJob:
    return RoundJob(job_id, gpus, options, memory or tuple(4.0 for _ in options))


def host(host_id: int, gpus: int, room: float = 8.0) -> RoundHost:
    return RoundHost(host_id, gpus, room)


def one_job(
    gpus: int, hosts: dict[int, int], benefit: dict[int, float], **kw: object
) -> RoundProblem:
    """Job 1 (``gpus`` GPUs, option s = 1), hosts ``{id: GPUs}``, benefits ``{host id: sec}``."""
    return RoundProblem(
        (job(1, gpus),),
        tuple(host(h, g) for h, g in hosts.items()),
        benefit={(1, 1, h): b for h, b in benefit.items()},
        **{"idle": 0, **kw},  # type: ignore[arg-type]
    )


SEVERAL = "job 1 at s=1 can take GPUs from several hosts (10, 11)"
REFUSED = [
    pytest.param(
        one_job(2, {10: 2}, {10: 5.0}, idle=1),
        "job 1 at s=1 can take idle GPUs beside host 10 (1 idle)",
        id="idle-gpu",
    ),
    pytest.param(one_job(2, {10: 1, 11: 1}, {10: 5.0, 11: 3.0}), SEVERAL, id="two-hosts-needed"),
    # equal GPU counts, no idle GPU: still 1 GPU from each of two hosts
    pytest.param(one_job(2, {10: 2, 11: 2}, {10: 5.0, 11: 3.0}), SEVERAL, id="two-hosts-possible"),
    # θ' = 16 ms: one host (10 ms) is below it, two (20 ms) are above
    pytest.param(
        one_job(2, {10: 2, 11: 2}, {10: 0.010, 11: 0.010}, threshold=0.015),
        SEVERAL,
        id="threshold-reached-by-two",
    ),
    # three hosts, at most two partners, three GPUs: two hosts reach them
    pytest.param(
        one_job(3, {10: 1, 11: 2, 12: 1}, {10: 1.0, 11: 1.0, 12: 1.0}, max_partners=2),
        SEVERAL,
        id="partner-limit-two",
    ),
    pytest.param(  # s=1 fits beside host 10 only; s=2 (less memory) beside both
        RoundProblem(
            (job(1, 2, (1, 2), (7.0, 3.0)),),
            (host(10, 2, 8.0), host(11, 2, 4.0)),
            idle=0,
            benefit={(1, 1, 10): 5.0, (1, 2, 10): 4.0, (1, 2, 11): 4.0},
        ),
        "job 1 at s=2 can take GPUs from several hosts (10, 11)",
        id="second-option",
    ),
]


@pytest.mark.parametrize(("problem", "reason"), REFUSED)
def test_round_breaking_a_condition_is_refused_with_its_reason(
    problem: RoundProblem, reason: str
) -> None:
    assert reduction_failure(problem) == reason
    with pytest.raises(ValueError) as error:
        solve(problem, "matching")
    message = str(error.value)
    assert message == f"matching: the round does not reduce to an assignment: {reason}"
    assert "\n" not in message
    assert non_assignment_share(problem)
    assert solve(problem, "cpsat").status is SolveStatus.OPTIMAL  # the other solvers still work


ONE_GPU_JOBS = RoundProblem(
    (job(1, 1), job(2, 1)),
    (host(10, 4), host(11, 1)),
    idle=0,
    benefit={(1, 1, 10): 5.0, (1, 1, 11): 3.0, (2, 1, 10): 2.0, (2, 1, 11): 7.0},
)
ACCEPTED = [
    # the two-hosts-possible round with one partner: host 10 or 11, all 2 GPUs (12 is too small)
    pytest.param(
        one_job(2, {10: 2, 11: 2, 12: 1}, {10: 5.0, 11: 3.0, 12: 9.0}, max_partners=1),
        {(1, 10): 5000, (1, 11): 3000},
        id="one-partner",
    ),
    pytest.param(  # 1-GPU jobs take one GPU from one host, whatever its size
        ONE_GPU_JOBS,
        {(1, 10): 5000, (1, 11): 3000, (2, 10): 2000, (2, 11): 7000},
        id="one-gpu-jobs",
    ),
    # host 11's benefit is not positive and host 12 is forbidden: one candidate
    pytest.param(
        one_job(2, {10: 2, 11: 2, 12: 2}, {10: 5.0, 11: -3.0}, forbidden={(1, 1, 12)}),
        {(1, 10): 5000},
        id="one-candidate",
    ),
    # θ' = 26 ms: two hosts (20 ms) do not reach it, so nobody can share
    pytest.param(
        one_job(2, {10: 2, 11: 2}, {10: 0.010, 11: 0.010}, threshold=0.025),
        {},
        id="threshold-blocks-two",
    ),
    # θ' = 6 s: host 10 (5 s) is not an edge, host 11 (7 s) is
    pytest.param(
        one_job(1, {10: 1, 11: 1}, {10: 5.0, 11: 7.0}, threshold=6.0),
        {(1, 11): 7000},
        id="threshold-as-edges",
    ),
    # 1 idle GPU, but 1 idle + 1 GPU < 3: nobody can share, everyone waits
    pytest.param(one_job(3, {10: 1}, {10: 5.0}, idle=1), {}, id="idle-but-nobody-shares"),
    # the host is too small for the job alone (and it has no other way)
    pytest.param(one_job(2, {10: 1}, {10: 5.0}), {}, id="host-too-small"),
]


@pytest.mark.parametrize(("problem", "weights"), ACCEPTED)
def test_round_meeting_the_conditions_is_accepted_with_its_edges(
    problem: RoundProblem, weights: dict[tuple[int, int], int]
) -> None:
    assert reduction_failure(problem) is None
    assert not non_assignment_share(problem)
    assert {key: e.coef for key, e in edges(preprocess(problem)).items()} == weights
    result = solve(problem, "matching")
    assert result.objective == pytest.approx(solve(problem, "brute").objective, rel=REL)
    assert violations(problem, result.solution) == []


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
