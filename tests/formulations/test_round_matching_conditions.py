"""Each condition of the assignment case (formulations/round/matching.py), by hand: a round that
breaks one is refused with its reason; rounds that meet them all are accepted with their edges.
"""

from __future__ import annotations

import pytest
from round_cases import ONE_GPU_JOBS, host, job, non_assignment_share, one_job

from formulations.result import SolveStatus
from formulations.round import RoundProblem, preprocess, reduction_failure, solve, violations
from formulations.round.matching import edges

#: Relative tolerance between float objectives (as in test_round_matching.py).
REL = 1e-9

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
