"""The recorded suite (docs/formulations.md §2.8): its size and proofs, optima never beaten by a
non-preemptive policy, recorded schedules replaying to their scores, and regressions.
"""

from __future__ import annotations

import pytest
from offline_cases import recorded_suite

from formulations.offline import replay, solve_offline
from formulations.offline.heuristic import NON_PREEMPTIVE
from formulations.result import SolveStatus
from sjfbsbf.experiments.compare import run_policies

# -- the suite ----------------------------------------------------------------------------------


def test_suite_is_large_and_mostly_proven() -> None:
    """At least 30 instances, most with a proven optimum; every one records a schedule."""
    suite = recorded_suite()
    assert len(suite) >= 30
    proven = [opt for opt, _ in suite.values() if opt.proven]
    assert len(proven) >= 30
    for opt, _ in suite.values():
        assert opt.schedule


def test_non_preemptive_policies_never_beat_the_optimum() -> None:
    """fifo, sjf, sjf-ffs, sjf-bsbf (default options) at the same dt: avg JCT ≥ optimum."""
    for opt, instance in recorded_suite().values():
        if not opt.proven:
            continue
        reference = opt.replayed_avg_jct
        tolerance = opt.tolerance_s + 1e-6 * reference
        for result in run_policies(instance, list(NON_PREEMPTIVE), dt=opt.dt):
            assert result.avg_jct >= reference - tolerance, (opt.name, result.policy)


def test_recorded_schedules_replay_to_recorded_scores() -> None:
    """Each recorded schedule, replayed by ``planned``, scores its recorded average JCT."""
    for opt, instance in recorded_suite().values():
        result = replay(instance, opt.schedule, opt.dt)
        assert float(result.jobs["jct"].mean()) == pytest.approx(opt.replayed_avg_jct, rel=1e-9)


def _fast_subset(count: int) -> list[str]:
    proven = [
        (opt.details.get("runtime_s", 1e9), name)
        for name, (opt, _) in recorded_suite().items()
        if opt.proven
    ]
    return [name for _, name in sorted(proven)[:count]]


@pytest.mark.parametrize("position", range(4))
def test_regression_cpsat_matches_recorded_optimum(position: int) -> None:
    """Re-solving the fastest suite instances gives the recorded optimum."""
    name = _fast_subset(4)[position]
    opt, instance = recorded_suite()[name]
    result = solve_offline(instance, "cpsat", dt=opt.dt, time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)


def test_regression_milp_matches_recorded_optimum() -> None:
    """The MILP proves the same optimum on the fastest suite instance."""
    name = _fast_subset(1)[0]
    opt, instance = recorded_suite()[name]
    result = solve_offline(instance, "milp", dt=opt.dt, time_limit=30)
    assert result.status is SolveStatus.OPTIMAL
    assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)


@pytest.mark.slow
def test_regression_whole_suite() -> None:
    """Every proven suite instance re-solves to its recorded optimum (CP-SAT, 4 workers); one
    proven by the placement-free bound (docs/formulations.md §2.10 item 6) re-proves its bound
    the same way, to its recorded schedule's value."""
    from formulations.bounds import placement_free_bound
    from formulations.offline.preprocess import preprocess

    for opt, instance in recorded_suite().values():
        if not opt.proven:
            continue
        proof = opt.details.get("placement_free")
        if proof is not None:
            found = placement_free_bound(
                preprocess(instance, opt.dt), time_limit=proof["time_limit_s"]
            )
            assert found.bound is not None and opt.replayed_avg_jct is not None
            assert found.bound >= opt.replayed_avg_jct - opt.tolerance_s - 1e-6 * found.bound
            continue
        result = solve_offline(instance, "cpsat", dt=opt.dt, time_limit=120, num_workers=4)
        assert result.status is SolveStatus.OPTIMAL, opt.name
        assert result.replayed_avg_jct == pytest.approx(opt.replayed_avg_jct, abs=opt.tolerance_s)
