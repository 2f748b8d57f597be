"""The offline result's gap and its re-scoring (:mod:`formulations.offline.result`).

The gap is relative to the replayed average JCT (the value every comparison uses), not to the
bound: ``|replayed - bound| / max(|replayed|, 1e-9)``. It is checked on hand-computed values on
both sides of the bound, at the 1e-9 floor of the scale and either side of it, and is ``None``
when either value is unknown. ``replay`` and ``rescore`` simulate the schedule again on the
result's instance, tick and interference model (a hand case of two jobs sharing one GPU).
"""

from __future__ import annotations

import pytest

from formulations.offline.result import OfflineResult
from formulations.result import SolveStatus
from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.policies.planned import PlannedStart, Schedule, as_schedule


def _result(
    replayed: float | None,
    bound: float | None,
    *,
    schedule: Schedule | None = None,
    instance: Instance | None = None,
    interference: object = None,
    dt: float = 60.0,
) -> OfflineResult:
    return OfflineResult(
        status=SolveStatus.FEASIBLE,
        schedule=schedule,
        objective=None,
        replayed_avg_jct=replayed,
        bound=bound,
        runtime_s=0.0,
        solver="brute",
        dt=dt,
        instance=instance,
        interference=interference,  # type: ignore[arg-type]
    )


# -- the gap ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("replayed", "bound", "gap"),
    [
        (110.0, 100.0, 10.0 / 110.0),  # relative to the replayed 110, not the bound (0.1)
        (100.0, 110.0, 10.0 / 100.0),  # a bound above the value still gives a positive gap
        (200.0, 200.0, 0.0),
        (-4.0, -3.0, 1.0 / 4.0),  # the scale is the magnitude
        (4.0, -4.0, 8.0 / 4.0),
    ],
)
def test_the_gap_is_relative_to_the_replayed_average(
    replayed: float, bound: float, gap: float
) -> None:
    assert _result(replayed, bound).gap == pytest.approx(gap, rel=1e-12)


@pytest.mark.parametrize(
    ("replayed", "gap"),
    [
        (0.5e-9, 0.5e-9 / 1e-9),  # one below the floor: the floor is the scale
        (1e-9, 1.0),  # at the floor
        (2e-9, 1.0),  # above it: the value itself is the scale
        (0.0, 0.0),  # both zero: no division by zero
    ],
)
def test_the_scale_has_a_floor_of_1e_9(replayed: float, gap: float) -> None:
    bound = 0.0
    assert _result(replayed, bound).gap == pytest.approx(gap, rel=1e-12)


def test_a_tiny_bound_against_a_zero_value_is_measured_on_the_floor() -> None:
    assert _result(0.0, 3e-10).gap == pytest.approx(0.3, rel=1e-12)
    assert _result(-1e-10, 2e-10).gap == pytest.approx(0.3, rel=1e-12)


@pytest.mark.parametrize(("replayed", "bound"), [(None, 5.0), (5.0, None), (None, None)])
def test_no_gap_without_both_values(replayed: float | None, bound: float | None) -> None:
    assert _result(replayed, bound).gap is None


# -- replay and rescore ----------------------------------------------------------------------------
class Twice:
    """Every job runs at half speed next to another."""

    def slowdown(self, victim: Occupant, other: Occupant) -> float:
        return 2.0


def _sharing() -> tuple[Instance, Schedule]:
    one = Cluster(1, 1, 48.0)
    jobs = (Job(0, 0.0, 1, duration=120.0), Job(1, 0.0, 1, duration=60.0))
    return Instance(one, jobs), as_schedule(
        [PlannedStart(0, 0.0, (0,)), PlannedStart(1, 0.0, (0,))]
    )


def test_replay_uses_the_results_instance_tick_and_interference() -> None:
    # Both jobs start on the one GPU at 0 at half speed: job 1's 60 s take 120 s; job 0 has done
    # 60 of its 120 s by then and runs the rest alone, finishing at 180 s. Average JCT 150 s.
    instance, schedule = _sharing()
    result = _result(150.0, 100.0, schedule=schedule, instance=instance, interference=Twice())
    jobs = result.replay().jobs.set_index("job_id")
    assert list(jobs["finish"]) == [180.0, 120.0]
    assert result.rescore() == 150.0
    assert result.replay().segments is None
    segments = result.replay(record_segments=True).segments
    assert segments is not None and len(segments) == 3  # 0-120 for both, then job 0 alone


def test_replay_on_a_coarser_tick_rounds_to_it() -> None:
    # At a 100 s tick, job 1 finishes at 120 s but leaves the GPU only at the next tick, 200 s
    # (docs/model.md); until then job 0 runs at half speed (100 of its 120 s done) and does its
    # last 20 s alone: it finishes at 220 s. Average JCT (120 + 220) / 2 = 170 s.
    instance, schedule = _sharing()
    result = _result(
        170.0, 100.0, schedule=schedule, instance=instance, interference=Twice(), dt=100.0
    )
    assert list(result.replay().jobs.set_index("job_id")["finish"]) == [220.0, 120.0]
    assert result.rescore() == 170.0


@pytest.mark.parametrize("missing", ["schedule", "instance"])
def test_no_replay_without_a_schedule_or_an_instance(missing: str) -> None:
    instance, schedule = _sharing()
    kept = {"schedule": schedule, "instance": instance}
    kept[missing] = None
    result = _result(None, None, **kept)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^no schedule to replay \(status feasible\)$"):
        result.replay()
