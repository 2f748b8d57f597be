"""Measured-table interference in the simulator: pairs measured out of memory never share.

A tiny in-memory Gavel table (no real data needed) where ResNet-50 at batch 16 — what VGG19
(B = 16) stands for through ``CATALOG_ALIASES`` — and A3C (A2C) did not fit on one GPU. The
``gavel-measured`` preset on the real table is tested where the data is present.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from formulations.offline.preprocess import preprocess
from formulations.round.problem import RoundHost, RoundJob, RoundProblem
from sjfbsbf.core.errors import FeasibilityError, InstanceError
from sjfbsbf.core.instance_io import write_instance
from sjfbsbf.core.interference import ContentionModel, can_share, sharing_rule
from sjfbsbf.core.interference_measured import MeasuredTableModel, gavel_occupant
from sjfbsbf.core.interference_table import GavelThroughputs
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import gavel_fitted, make_interference
from sjfbsbf.experiments.sweep import RunSpec, execute
from sjfbsbf.policies import SjfBsbf, make_policy
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.workloads import default_workload
from sjfbsbf.workloads.gavel import CATALOG_ALIASES, throughputs_from_dict

THROUGHPUTS = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "data"
    / "gavel"
    / "simulation_throughputs.json"
)
R50_8, R50_16, A3C = "ResNet-50 (batch size 8)", "ResNet-50 (batch size 16)", "A3C"


#: R50 bs8 + A3C fit (ξ 2 and 2.5); R50 bs16 + A3C measured [0, 0]; self-pairs fit.
TINY = {
    "v100": {
        f"('{R50_8}', 1)": {
            "null": 20.0,
            f"('{A3C}', 1)": [10.0, 2.0],
            f"('{R50_8}', 1)": [10.0, 10.0],
        },
        f"('{R50_16}', 1)": {
            "null": 10.0,
            f"('{A3C}', 1)": [0.0, 0.0],
            f"('{R50_16}', 1)": [5.0, 5.0],
        },
        f"('{A3C}', 1)": {
            "null": 5.0,
            f"('{R50_8}', 1)": [2.0, 10.0],
            f"('{R50_16}', 1)": [0.0, 0.0],
            f"('{A3C}', 1)": [2.5, 2.5],
        },
    }
}


def tiny_table() -> GavelThroughputs:
    return throughputs_from_dict(TINY, source="tiny")


@pytest.fixture
def measured() -> MeasuredTableModel:
    return MeasuredTableModel(tiny_table(), aliases=CATALOG_ALIASES)


ONE_GPU = Cluster(nodes=1, gpus_per_node=1)
# VGG19 (10,000 steps: 1,210 s alone) from 0; A2C (1,000 steps: 517 s alone) arrives at 100.
JOBS = (Job(0, 0.0, 1, "vgg19", 16, 10_000), Job(1, 100.0, 1, "a2c", 64, 1_000))


def test_sharing_rule_protocol(measured: MeasuredTableModel) -> None:
    vgg16b, vgg8b, a2c = (
        gavel_occupant("vgg19", 16),
        gavel_occupant("vgg19", 8),
        gavel_occupant("a2c", 64),
    )
    assert measured.job_type_of(vgg16b) == R50_16 and measured.job_type_of(a2c) == A3C
    assert not measured.can_share(vgg16b, a2c) and not measured.can_share(a2c, vgg16b)
    assert measured.can_share(vgg8b, a2c)
    assert measured.slowdown(vgg8b, a2c) == 2.0 and measured.slowdown(a2c, vgg8b) == 2.5
    assert sharing_rule(ContentionModel()) is None and sharing_rule(gavel_fitted()) is None
    assert can_share(ContentionModel(), vgg16b, a2c)
    assert not can_share(measured, vgg16b, a2c)


@pytest.mark.parametrize("policy", ["sjf-ffs", "sjf-bsbf", "exact-round"])
def test_forbidden_pair_never_shares(policy: str, measured: MeasuredTableModel) -> None:
    """The only sharing option is the pair measured [0, 0] at every accumulation of A2C
    (A3C has one measured size) and at VGG19's full batch (it runs alone at s = 1), so A2C waits
    for VGG19 (1,210 s) and then runs alone: finish 1,210 + 517 = 1,727."""
    res = simulate(Instance(ONE_GPU, JOBS), make_policy(policy), interference=measured)
    jobs = res.jobs.set_index("job_id")
    assert jobs.loc[1, "start"] == pytest.approx(1210.0)
    assert jobs.loc[1, "finish"] == pytest.approx(1210.0 + 517.0, rel=1e-9)
    assert (jobs["shared_s"] == 0).all()
    assert jobs["partners"].tolist() == ["", ""]  # never co-located
    assert res.metrics["shared_gpu_time_share"] == 0.0
    assert measured.fallback_pairs() == ()


@pytest.mark.parametrize("policy", ["sjf-ffs", "sjf-bsbf", "exact-round"])
@pytest.mark.parametrize("belief", ["time-slicing", "gavel-fitted", "noisy:sigma=1"])
def test_the_sharing_rule_is_the_worlds_whatever_the_belief(
    policy: str, belief: str, measured: MeasuredTableModel
) -> None:
    """Under an interference belief without a sharing rule (a contention model), the policies
    still never propose the pair the world forbids (docs/model.md §4.1): the run ends with the
    schedule of the test above, no refused decision; the belief is what the view shows."""
    from sjfbsbf.sim.beliefs import Beliefs

    shown = []

    class Watching:
        name = policy
        preemptive = False
        sharing = True

        def __init__(self) -> None:
            self.inner = make_policy(policy)

        def decide(self, view: ClusterView) -> Decision:
            shown.append((view.sharing_rule, view.interference))
            return self.inner.decide(view)

        def stats(self) -> dict[str, Any]:
            return {}

    res = simulate(
        Instance(ONE_GPU, JOBS),
        Watching(),
        interference=measured,
        beliefs=Beliefs(interference=belief),
    )
    jobs = res.jobs.set_index("job_id")
    assert jobs.loc[1, "start"] == pytest.approx(1210.0)
    assert jobs["partners"].tolist() == ["", ""]
    rule, model = shown[0]
    assert rule == measured.can_share and isinstance(model, ContentionModel)


def test_sjf_bsbf_estimates_with_numpy_under_a_sharing_rule(measured: MeasuredTableModel) -> None:
    """The compiled estimate serves contention models only: with it forced on, SJF-BSBF under a
    measured table (a sharing rule, no contention parameters) decides as with numpy alone."""
    results = []
    for compiled in (True, False):
        policy = SjfBsbf()
        policy.compiled = compiled
        res = simulate(Instance(ONE_GPU, JOBS), policy, interference=measured)
        results.append((res.jobs, res.stats))
    (jobs, stats), (numpy_jobs, numpy_stats) = results
    assert jobs.equals(numpy_jobs) and stats == numpy_stats
    assert jobs["partners"].tolist() == ["", ""]


class Scripted:
    """Test-only policy: returns the given decisions at its first decisions, then nothing."""

    name = "test-scripted"
    preemptive = False
    sharing = True

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)

    def decide(self, view: ClusterView) -> Decision:
        while self.decisions:
            decision = self.decisions.pop(0)
            if all(s.job_id in view.pending() for s in decision.starts):
                return decision
            self.decisions.insert(0, decision)
            break
        return Decision()

    def stats(self) -> dict[str, Any]:
        return {}


@pytest.mark.parametrize("accumulation", [1, 2])
def test_checker_rejects_a_forbidden_start(accumulation: int, measured: MeasuredTableModel) -> None:
    policy = Scripted(Decision((Start(0, (0,), 1),)), Decision((Start(1, (0,), accumulation),)))
    with pytest.raises(FeasibilityError, match="job 1 may not share GPU 0 with job 0"):
        simulate(Instance(ONE_GPU, JOBS), policy, interference=measured)


def test_checker_rejects_a_retune_into_a_forbidden_pair(measured: MeasuredTableModel) -> None:
    """VGG19 at s = 2 (b = 8: ResNet-50 bs 8) may share with A2C; retuned to s = 1 (bs 16) not."""
    jobs = (Job(0, 0.0, 1, "vgg19", 16, 10_000), Job(1, 0.0, 1, "a2c", 64, 1_000))
    both = Decision((Start(0, (0,), 2), Start(1, (0,), 1)), wake_at=10.0)
    policy = Scripted(both, Decision(retunes=((0, 1),)))
    with pytest.raises(FeasibilityError, match="job 0 retuned to accumulation 1 may not share"):
        simulate(Instance(ONE_GPU, jobs), policy, interference=measured)


def test_offline_preprocess_marks_forbidden_pairs(measured: MeasuredTableModel) -> None:
    data = preprocess(Instance(ONE_GPU, JOBS), 10.0, interference=measured)
    (pair,) = data.pairs
    # VGG19's micro-batch b = 16 / s stands for ResNet-50 at the nearest measured size (8 or
    # 16, log2 distance, ties to the smaller): s = 1 -> bs 16 (forbidden beside A3C), s = 2, 4,
    # 8 (b = 8, 4, 2) -> bs 8 (allowed; memory 4.30 + 2.09 GB fits at every option).
    allowed = {1: False, 2: True, 4: True, 8: True}
    seen = set()
    for c in pair.options:
        s0 = data.jobs[0].options[c.first_option].accumulation
        seen.add(s0)
        assert c.fits == allowed[s0]
        assert (c.first_slowdown == float("inf")) == (not allowed[s0])
        if allowed[s0]:
            assert (c.first_slowdown, c.second_slowdown) == (2.0, 2.5)
    assert seen == {1, 2, 4, 8}


def test_forbidden_pair_shares_under_contention() -> None:
    """Control: with the default contention model the same instance shares (sjf-ffs), so the
    test above is about the sharing rule, not memory."""
    res = simulate(Instance(ONE_GPU, JOBS), make_policy("sjf-ffs"))
    assert res.jobs.set_index("job_id").loc[1, "start"] == 100.0
    assert res.jobs["partners"].tolist() == ["1", "0"]


def test_round_problem_forbidden_triples() -> None:
    job, host = RoundJob(1, 1, (1,), (2.0,)), RoundHost(0, 1, 10.0)
    RoundProblem((job,), (host,), idle=0, forbidden=frozenset({(1, 1, 0)}))
    with pytest.raises(ValueError, match="no benefit for memory-feasible triple"):
        RoundProblem((job,), (host,), idle=0)
    with pytest.raises(ValueError, match="forbidden triple"):
        RoundProblem((job,), (host,), idle=0, benefit={(1, 1, 0): 5.0}, forbidden={(1, 1, 0)})


def test_measured_preset_errors(tmp_path: Path) -> None:
    with pytest.raises(InstanceError, match="no such file") as err:
        make_interference("gavel-measured", throughputs=tmp_path / "absent.json")
    assert str(tmp_path / "absent.json") in str(err.value)
    assert len(str(err.value).splitlines()) == 1
    with pytest.raises(ValueError, match="reads no data file"):
        make_interference("time-slicing", throughputs=tmp_path / "absent.json")


def test_fallback_is_counted(measured: MeasuredTableModel) -> None:
    generic = gavel_occupant("generic")
    assert measured.fallback_summary() is None
    # Fallback: the median measured ξ of the fitting pairs: A3C|A3C 5/2.5 = 2; R50-8|A3C
    # 20/10 = 2 and 5/2 = 2.5; R50-8|R50-8 2; R50-16|R50-16 2 -> median of (2, 2, 2.5, 2, 2) = 2.
    assert measured.slowdown(generic, gavel_occupant("a2c", 64)) == 2.0
    assert measured.slowdown(gavel_occupant("vgg19", 8), gavel_occupant("a2c", 64)) == 2.0
    assert measured.fallback_pairs() == (("generic", A3C),)  # the measured pair is not counted
    summary = measured.fallback_summary()
    assert summary is not None and "1 ordered pair " in summary


def test_gavel_measured_preset_on_real_data() -> None:
    if not THROUGHPUTS.is_file():
        pytest.skip(f"Gavel data not found at {THROUGHPUTS}")
    model = make_interference("gavel-measured", throughputs=THROUGHPUTS)
    assert isinstance(model, MeasuredTableModel)
    instance = default_workload(0)
    res = simulate(instance, make_policy("sjf-bsbf"), interference=model)
    assert res.jobs["finish"].notna().all()
    # Every fallback pair involves a job type with suspicious V100 entries (ResNet-18) or the
    # duration-only profile; no catalog model is unknown to the table.
    for victim, other in model.fallback_pairs():
        assert model.table.is_suspicious(victim, other) or "generic" in (victim, other)


def test_sweep_selects_interference(tmp_path: Path) -> None:
    """A sweep's [sim] interference (and throughputs, read by gavel-measured only)."""
    instance_path, table_path = tmp_path / "one.json", tmp_path / "tiny.json"
    write_instance(Instance(ONE_GPU, JOBS), instance_path)
    table_path.write_text(json.dumps(TINY), encoding="utf-8")
    workload = {"kind": "file", "path": str(instance_path)}

    def row(**sim: Any) -> dict[str, Any]:
        return execute(RunSpec("t", workload, 0, "x", "sjf-ffs", sim=sim))

    # gavel-fitted: the hand-computed finishes of tests/core/test_asymmetric_interference.py.
    fitted = row(interference="gavel-fitted")
    expected = simulate(
        Instance(ONE_GPU, JOBS), make_policy("sjf-ffs"), interference=gavel_fitted()
    )
    assert fitted["avg_jct"] == pytest.approx(expected.metrics["avg_jct"], rel=1e-12)
    assert fitted["avg_jct"] == pytest.approx((1844.030 + 1863.710) / 2, abs=1e-3)
    assert "interference_fallback_pairs" not in fitted
    # gavel-measured on the tiny table: A2C waits for VGG19 (1,210 s): JCTs 1,210 and 1,627.
    measured = row(interference="gavel-measured", throughputs=str(table_path))
    assert measured["avg_jct"] == pytest.approx((1210.0 + 1627.0) / 2, rel=1e-9)
    assert measured["interference_fallback_pairs"] == 0
    # throughputs is read by the data presets only: with time slicing it is an error, not
    # silently ignored (a sweep file is refused at validation, see
    # tests/experiments/test_sweep_validation.py).
    with pytest.raises(ValueError, match="reads no data file"):
        row(interference="time-slicing", throughputs=str(table_path))
