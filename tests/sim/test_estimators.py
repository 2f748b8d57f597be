"""Duration estimators, interference beliefs and the overrun rule, by hand (docs/model.md §4.1)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.interference import ContentionModel, occupant
from sjfbsbf.core.interference_noisy import noisy_contention
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import gavel_fitted, time_slicing
from sjfbsbf.sim.beliefs import Beliefs, believed_interference, canonical_interference_belief
from sjfbsbf.sim.decision import Decision, Start
from sjfbsbf.sim.estimators import (
    History,
    canonical_estimator,
    lognormal_factors,
    make_estimator,
    parse_estimator,
    quantile_sorted,
)
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView, overrun

# -- specifications ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("orcale", "unknown estimator 'orcale'; choose from oracle, lognormal, history, user"),
        ("lognormal", "estimator 'lognormal' needs sigma="),
        ("lognormal:sigma=x", "estimator 'lognormal': sigma must be a number, got 'x'"),
        ("lognormal:sigma=-1", r"sigma must be in \[0, 5\], got -1"),
        ("lognormal:sigma=nan", r"sigma must be in \[0, 5\], got nan"),
        ("lognormal:sigma=1,sigma=2", "parameter 'sigma' given twice"),
        ("lognormal:sgma=1", r"unknown parameter 'sgma' \(allowed: sigma, seed\)"),
        ("lognormal:sigma=1,seed=-3", "seed must be a whole number"),
        ("lognormal:sigma", "expected KEY=VALUE, got 'sigma'"),
        ("history:q=1", r"q must be in \(0, 1\), got 1"),
        ("history:by=team", "by must be one of none, vc, user, got 'team'"),
        ("oracle:x=1", r"unknown parameter 'x' \(allowed: none\)"),
    ],
)
def test_a_bad_estimator_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_estimator(text)
    assert "\n" not in str(info.value)


def test_canonical_texts_leave_out_defaults_and_spell_numbers_one_way() -> None:
    assert canonical_estimator("lognormal:sigma=1.0") == "lognormal:sigma=1"
    assert canonical_estimator(" lognormal : sigma = 1 ") == "lognormal:sigma=1"
    assert canonical_estimator("history:q=0.5,prior=3600") == "history"
    assert canonical_estimator("history:by=vc") == "history:by=vc"
    assert canonical_interference_belief("noisy:sigma=0.50,base=world") == "noisy:sigma=0.5"
    with pytest.raises(ValueError, match="unknown interference belief 'fitted'"):
        Beliefs(interference="fitted")
    with pytest.raises(ValueError, match="reads no throughput table"):
        Beliefs(interference="mps", throughputs="x.json")


# -- the overrun rule --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("work", "progress", "believed", "k"),
    [
        (100.0, 0.0, 100.0, 0),
        (100.0, 99.999, 100.0, 0),
        (100.0, 100.0, 200.0, 1),  # at the estimate: twice it
        (100.0, 150.0, 200.0, 1),
        (100.0, 200.0, 400.0, 2),
        (100.0, 250.0, 400.0, 2),
        (100.0, 1e6, 100.0 * 2**14, 14),
        (0.1, 0.1 * 2**40, 0.1 * 2**41, 41),  # exact powers: the float fix-up
    ],
)
def test_overrun_doubles_the_belief_until_it_exceeds_the_progress(
    work: float, progress: float, believed: float, k: int
) -> None:
    got, ks = overrun(np.array([work]), np.array([progress]))
    assert (got[0], ks[0]) == (believed, k)
    assert got[0] > progress


def test_overrun_at_and_next_to_every_power_of_two_is_the_smallest_k() -> None:
    """Progress at W·2^m, one ulp either side of it, and between, for m up to 59 and four works:
    k is the smallest with W·2^k > progress, found by counting (the logarithm's first guess is
    corrected where it is off, e.g. one ulp below a power; mutation gaps of the view rerun)."""
    works, progress = [], []
    for work in (1.0, 3.7, 1e-3, 12345.678):
        for m in range(60):
            at = work * 2.0**m
            for value in (at, np.nextafter(at, 0.0), np.nextafter(at, np.inf), 0.75 * at, 1.5 * at):
                works.append(work)
                progress.append(float(value))
    believed, ks = overrun(np.array(works), np.array(progress))
    for work, done, got, k in zip(works, progress, believed, ks, strict=True):
        want = 0
        while work * 2.0**want <= done:
            want += 1
        assert (int(k), float(got)) == (want, work * 2.0**want), (work, done)


class Probe:
    """One job at a time on GPU 0 in id order; records ``look(view)`` at each asked time."""

    name = "test-probe"
    preemptive = False
    sharing = False

    def __init__(self, times: list[float], look: Any) -> None:
        self.times = times
        self.look = look
        self.seen: dict[float, Any] = {}

    def decide(self, view: ClusterView) -> Decision:
        if view.time in self.times:
            self.seen[view.time] = self.look(view)
        later = [t for t in self.times if t > view.time]
        start = ()
        if not view.running() and view.pending():
            start = (Start(min(view.pending()), (0,)),)
        return Decision(start, wake_at=min(later) if later else None)

    def stats(self) -> dict[str, Any]:
        return {}


def test_a_job_that_overruns_its_estimate_is_believed_longer_each_time() -> None:
    """Job 0: 100 s alone, the user says 40 s. At 30 s: 10 s left. At 40 s it reaches its
    estimate: believed 80 s, 40 s left. At 79 s: 1 s left; at 80 s: 160 s believed, 80 left."""
    job = Job(0, 0.0, 1, duration=100.0, estimate=40.0)
    probe = Probe([30.0, 40.0, 79.0, 80.0, 90.0], lambda v: (v.remaining_exclusive(0), v.epoch))
    simulate(Instance(Cluster(1, 1, 12.0), (job,)), probe, beliefs=Beliefs("user"))
    left = {t: seen[0] for t, seen in probe.seen.items()}
    assert left == {30.0: 10.0, 40.0: 40.0, 79.0: 1.0, 80.0: 80.0, 90.0: 70.0}
    epochs = [probe.seen[t][1] for t in (30.0, 40.0, 79.0, 80.0, 90.0)]
    # The epoch moves at each overrun (40 s, 80 s) and only then.
    assert epochs[1] == epochs[0] + 1 and epochs[2] == epochs[1]
    assert epochs[3] == epochs[2] + 1 and epochs[4] == epochs[3]


# -- lognormal ---------------------------------------------------------------------------------


def test_lognormal_errors_depend_on_the_seed_and_the_job_id_only() -> None:
    a = lognormal_factors([0, 1, 2, 7], 1.0, seed=5)
    b = lognormal_factors([7, 2, 99, 1, 0], 1.0, seed=5)  # more jobs, another order
    assert dict(zip([0, 1, 2, 7], a, strict=True)) == {
        k: v for k, v in zip([7, 2, 99, 1, 0], b, strict=True) if k != 99
    }
    assert not np.allclose(a, lognormal_factors([0, 1, 2, 7], 1.0, seed=6))
    # exp(σZ) with the stream's own normal draw:
    z = np.random.default_rng([5, 0, 7]).standard_normal()
    assert a[3] == math.exp(z)
    assert np.all(lognormal_factors([0, 1, 2], 0.0, seed=5) == 1.0)


def test_lognormal_errors_are_the_same_for_every_policy() -> None:
    """Two different policies on one instance see the same believed lengths at t = 0."""
    jobs = tuple(Job(i, 0.0, 1, duration=100.0 * (i + 1)) for i in range(4))
    instance = Instance(Cluster(1, 1, 12.0), jobs)
    seen = []
    for name in ("first", "second"):
        probe = Probe([0.0], lambda v: v.exclusive_durations(v.pending()).tolist())
        probe.name = name
        simulate(instance, probe, beliefs=Beliefs("lognormal:sigma=1", seed=9))
        seen.append(probe.seen[0.0])
    factors = lognormal_factors([0, 1, 2, 3], 1.0, 9)
    assert seen[0] == seen[1]
    assert seen[0] == pytest.approx([100.0 * (i + 1) * factors[i] for i in range(4)], rel=1e-12)


# -- history -----------------------------------------------------------------------------------


def _history(jobs: tuple[Job, ...], exclusive: list[float], by: str = "none") -> History:
    instance = Instance(Cluster(1, 8, 48.0), jobs)
    return History(instance, np.array(exclusive), q=0.5, prior=3600.0, by=by)


def test_history_starts_at_the_prior_and_falls_back_key_by_key() -> None:
    """Jobs: 0 resnet18×1, 1 resnet18×1, 2 vgg16×1, 3 resnet18×2, 4 duration-only×2."""
    jobs = (
        Job(0, 0.0, 1, "resnet18", 128, 100),
        Job(1, 0.0, 1, "resnet18", 128, 200),
        Job(2, 0.0, 1, "vgg16", 16, 300),
        Job(3, 0.0, 2, "resnet18", 128, 400),
        Job(4, 0.0, 2, duration=500.0),
    )
    history = _history(jobs, [100.0, 200.0, 300.0, 400.0, 500.0])
    everyone = np.arange(5)
    assert history.believed(everyone).tolist() == [3600.0] * 5  # no history: the prior
    history.learn([2])  # vgg16 on 1 GPU took 300 s
    # resnet18×1 has no finished job: same GPU count (300); 2-GPU jobs: every job (300).
    assert history.believed(everyone).tolist() == [300.0] * 5
    history.learn([0])  # resnet18×1: 100 s
    assert history.believed(everyone).tolist() == [100.0, 100.0, 300.0, 200.0, 200.0]
    history.learn([4])  # the duration-only 2-GPU job: 500 s (key: no model, 2 GPUs)
    # resnet18×2: no own key; 2 GPUs: {500}; the duration-only key has {500}.
    assert history.believed(everyone).tolist() == [100.0, 100.0, 300.0, 500.0, 500.0]
    history.learn([1])  # resnet18×1: {100, 200}: median 150
    assert history.believed(np.array([0, 1])).tolist() == [150.0, 150.0]
    assert history.version == 4


def test_history_by_vc_keys_the_vc_first() -> None:
    jobs = tuple(Job(i, 0.0, 1, duration=10.0, vc="ab"[i % 2]) for i in range(4))
    history = _history(jobs, [10.0, 20.0, 30.0, 40.0], by="vc")
    history.learn([0])  # vc a: 10 s
    assert history.believed(np.arange(4)).tolist() == [10.0, 10.0, 10.0, 10.0]
    history.learn([1])  # vc b: 20 s
    assert history.believed(np.arange(4)).tolist() == [10.0, 20.0, 10.0, 20.0]
    plain = _history(jobs, [10.0, 20.0, 30.0, 40.0])
    plain.learn([0, 1])
    assert plain.believed(np.arange(4)).tolist() == [15.0] * 4


def test_quantiles_interpolate_between_order_statistics_as_numpy_does() -> None:
    values = [1.0, 2.0, 7.0, 10.0]
    for q in (0.1, 0.25, 0.5, 0.9):
        assert quantile_sorted(values, q) == pytest.approx(np.quantile(values, q), rel=1e-15)
    assert quantile_sorted([4.0], 0.5) == 4.0


def test_history_learns_a_job_only_once_it_has_finished() -> None:
    """One GPU, jobs of 100, 300 and 50 s (duration-only, 1 GPU): at 50 s nothing has finished
    (prior); at 150 s job 0 (100 s) has; at 420 s jobs 0 and 1: median 200."""
    jobs = (Job(0, 0.0, 1, duration=100.0), Job(1, 0.0, 1, duration=300.0))
    jobs += (Job(2, 0.0, 1, duration=50.0),)
    probe = Probe([50.0, 150.0, 420.0], lambda v: v.exclusive_duration(2))
    simulate(Instance(Cluster(1, 1, 12.0), jobs), probe, beliefs=Beliefs("history:prior=999"))
    assert probe.seen == {50.0: 999.0, 150.0: 100.0, 420.0: 200.0}


def test_user_estimates_are_required_of_every_job() -> None:
    jobs = (Job(0, 0.0, 1, duration=10.0, estimate=5.0), Job(7, 0.0, 1, duration=10.0))
    instance = Instance(Cluster(1, 1, 12.0), jobs)
    with pytest.raises(InstanceError, match="job 7, field 'estimate': missing"):
        make_estimator(parse_estimator("user"), instance, np.array([10.0, 10.0]), 0)


# -- interference beliefs ----------------------------------------------------------------------


def test_a_noisy_belief_is_a_contention_model_whose_scales_carry_their_own_errors() -> None:
    from sjfbsbf.core.catalog import generic_profile, get_catalog

    catalog = get_catalog("default")
    profiles = [*catalog.values(), generic_profile(catalog)]
    exact = noisy_contention(time_slicing(), profiles, 0.0, seed=1)
    model = noisy_contention(time_slicing(), profiles, 1.0, seed=1)
    assert isinstance(model, ContentionModel) and model.kappa == 1.5
    a = occupant(Job(0, 0.0, 1, "vgg16", 16, 10), catalog["vgg16"], 2)
    b = occupant(Job(1, 0.0, 1, "gpt2", 4, 10), catalog["gpt2"], 1)
    # σ = 0: the default model written out per model (u_max · shape: the same up to rounding).
    assert exact.slowdown(a, b) == pytest.approx(time_slicing().slowdown(a, b), rel=1e-12)
    assert model.slowdown(a, b) != pytest.approx(time_slicing().slowdown(a, b), rel=1e-3)
    # A model's factors depend on the seed and its name only:
    fewer = noisy_contention(time_slicing(), [catalog["vgg16"]], 1.0, seed=1)
    assert fewer.sensitivity(a) == model.sensitivity(a)
    assert noisy_contention(gavel_fitted(), profiles, 0.0, 1).scales == gavel_fitted().scales


def test_the_belief_of_a_measured_world_starts_from_the_fitted_model() -> None:
    from sjfbsbf.core.catalog import get_catalog

    class Measured:
        def slowdown(self, victim: Any, other: Any) -> float:
            return 3.0

    profiles = list(get_catalog("default").values())
    world = Measured()
    assert believed_interference(Beliefs(), world, profiles) is world  # type: ignore[arg-type]
    model = believed_interference(
        Beliefs(interference="noisy:sigma=0"),
        world,  # type: ignore[arg-type]
        profiles,
    )
    assert isinstance(model, ContentionModel)
    assert dict(model.scales or {}) == dict(gavel_fitted().scales or {})


@pytest.mark.parametrize(
    ("text", "accepted"),
    [
        ("lognormal:sigma=0", True),
        ("lognormal:sigma=-0.000001", False),
        ("lognormal:sigma=5", True),
        ("lognormal:sigma=5.000001", False),
        ("lognormal:sigma=inf", False),
        ("lognormal:sigma=1,seed=0", True),
        (f"lognormal:sigma=1,seed={2**63 - 1}", True),
        (f"lognormal:sigma=1,seed={2**63}", False),
        ("lognormal:sigma=1,seed=1.0", False),
        ("history:q=0", False),
        ("history:q=0.000001", True),
        ("history:q=0.999999", True),
        ("history:q=1", False),
        ("history:prior=0", False),
        ("history:prior=0.000001", True),
        ("history:prior=1e12", True),
        ("history:prior=1.000001e12", False),
        ("history:by=vc", True),
        ("history:by=VC", False),
    ],
)
def test_every_parameter_limit_at_and_beside_its_boundary(text: str, accepted: bool) -> None:
    if accepted:
        parse_estimator(text)
    else:
        with pytest.raises(ValueError, match="must be"):
            parse_estimator(text)
