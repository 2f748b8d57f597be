"""The ``gavel-fitted`` (asymmetric) contention model end to end, against hand-computed cases.

Shared constants (docs/model.md §2, §3; ``catalog.GAVEL_FITTED_SCALES``):

* VGG19 (B = 16): 1-GPU step 0.205 − 0.084 = 0.121 s; scales (0.947, 2.689).
* A2C (B = 64): 1-GPU step 0.517 s, α = 0.09 · 0.517; scales (1.229, 0.546). At s micro-batches
  its step is s · α + β · B = 0.517 · (1 + 0.09 (s − 1)).
* Full batch: shape b / (b + B/4) = 0.8. κ = 1.5, ε = 0.05.
* ξ(VGG19 next to A2C) = 1.05 · (1 + 1.5 · (0.947 · 0.8) · (0.546 · 0.8)) = 1.571198496;
  ξ(A2C next to VGG19) = 1.05 · (1 + 1.5 · (1.229 · 0.8) · (2.689 · 0.8)) = 4.381219248.
* The default time-slicing model (u_max 1.0 and 0.3) gives both
  ξ = 1.05 · (1 + 1.5 · 0.8 · 0.24) = 1.3524.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sjfbsbf.core.interference import Occupant
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import gavel_fitted, time_slicing
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.benefit import pair_benefit
from sjfbsbf.policies.board import HostTable
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView

STEP_VGG19 = 0.205 - 0.084
STEP_A2C = 0.517
XI_VGG = 1.05 * (1 + 1.5 * (0.947 * 0.8) * (0.546 * 0.8))
XI_A2C = 1.05 * (1 + 1.5 * (1.229 * 0.8) * (2.689 * 0.8))
XI_SYM = 1.05 * (1 + 1.5 * 0.8 * (0.3 * 0.8))
ONE_GPU = Cluster(nodes=1, gpus_per_node=1)


def finish(result: SimResult, job_id: int) -> float:
    return float(result.jobs.set_index("job_id").loc[job_id, "finish"])


def start(result: SimResult, job_id: int) -> float:
    return float(result.jobs.set_index("job_id").loc[job_id, "start"])


def test_hand_constants() -> None:
    assert abs(XI_VGG - 1.571198496) < 1e-9
    assert abs(XI_A2C - 4.381219248) < 1e-9
    model = gavel_fitted()
    vgg = Occupant("vgg19", 16, 16, 4.304, 0.8, 0.8)
    a2c = Occupant("a2c", 64, 64, 2.094, 0.24, 0.24)
    assert model.slowdown(vgg, a2c) == pytest.approx(XI_VGG, rel=1e-12)
    assert model.slowdown(a2c, vgg) == pytest.approx(XI_A2C, rel=1e-12)
    assert time_slicing().slowdown(vgg, a2c) == time_slicing().slowdown(a2c, vgg)


def test_simulator_applies_each_jobs_own_slowdown() -> None:
    """sjf-ffs on 1 GPU: VGG19 (10,000 steps, 1,210 s alone) from 0; A2C (1,000 steps, 517 s
    alone) arrives at 100 and shares at once (4.30 + 2.09 GB fit in 12 GB).

    Asymmetric: VGG19 has 1,210 − 100 = 1,110 s of solo work left, slowed by 1.5712:
    finish = 100 + 1,110 · 1.571198496 = 1,844.030. A2C needs 517 · 4.3812 = 2,265 s shared,
    so VGG19 ends first; its GPU share is released at tick 1,845, by when A2C has done
    1,745 / 4.381219248 = 398.290 s of solo work; it finishes alone:
    1,845 + 517 − 1,745 / 4.381219248 = 1,963.710.

    Symmetric (default model), for contrast: A2C ends first at 100 + 517 · 1.3524 = 799.191,
    released at 800; VGG19 did 700 / 1.3524 s of solo work shared, then
    finish = 800 + 1,110 − 700 / 1.3524 = 1,392.402.
    """
    jobs = (Job(0, 0.0, 1, "vgg19", 16, 10_000), Job(1, 100.0, 1, "a2c", 64, 1_000))
    inst = Instance(ONE_GPU, jobs)
    res = simulate(inst, make_policy("sjf-ffs"), interference=gavel_fitted())
    assert start(res, 1) == 100.0
    assert finish(res, 0) == pytest.approx(100 + 1110 * XI_VGG, rel=1e-9)
    assert finish(res, 0) == pytest.approx(1844.030, abs=1e-3)
    assert finish(res, 1) == pytest.approx(1845 + 517 - 1745 / XI_A2C, rel=1e-9)
    assert finish(res, 1) == pytest.approx(1963.710, abs=1e-3)

    sym = simulate(inst, make_policy("sjf-ffs"))
    assert finish(sym, 1) == pytest.approx(100 + 517 * XI_SYM, rel=1e-9)
    assert finish(sym, 0) == pytest.approx(800 + 1110 - 700 / XI_SYM, rel=1e-9)
    assert finish(sym, 0) == pytest.approx(1392.402, abs=1e-3)


class RecordingBsbf(SjfBsbf):
    """sjf-bsbf that records every benefit vector it computes for job 1 beside its one host,
    and the scalar path's (``host_options``) value for the same host."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.seen: list[tuple[float, int | None, float, float]] = []

    def _benefits(
        self,
        view: ClusterView,
        occ_a: Occupant,
        table: HostTable,
        t_full: float,
        t_sub: float,
        wait: float | None,
    ) -> np.ndarray:
        vector = super()._benefits(view, occ_a, table, t_full, t_sub, wait)
        s = occ_a.batch // occ_a.micro_batch if occ_a.micro_batch and occ_a.batch else None
        by_host = dict(zip(table.ids, table.infos, strict=True))
        hosts = self.host_options(view, 1, s or 1, by_host, t_full, wait)
        assert len(vector) == len(hosts) == 1
        self.seen.append((view.time, s, float(vector[0]), hosts[0].benefit))
        return vector


def test_sjf_bsbf_estimate_uses_asymmetric_slowdowns() -> None:
    """1 GPU: host VGG19 (10,000 steps) from 0; A2C (2,000 steps: T_a = 1,034 s) arrives at 210,
    when the host has T_b = 1,210 − 210 = 1,000 s left.

    Asymmetric, s = 1: ξ_a = 4.3812 (A2C), ξ_b = 1.5712 (VGG19). ξ_b · T_b = 1,571.2 ≤
    ξ_a · T_a = 4,530.2, so b ends first: C_b = 1,571.198; C_a = 1,571.198 + 1,034 −
    1,571.198 / 4.381219 = 2,246.577. Waiting: 1,000 + (1,000 + 1,034) = 3,034. Benefit =
    3,034 − 3,817.776 = −783.776 s. Every other option is negative too (s = 2, 4, 8), so A2C
    waits and starts when VGG19 ends, at 1,210.

    Symmetric, s = 1: ξ = 1.3524 both; b ends first at 1,352.4, C_a = 1,352.4 + 1,034 − 1,000 =
    1,386.4; benefit = 3,034 − 2,738.8 = +295.2 s: the decision flips, A2C shares at 210.
    """
    jobs = (Job(0, 0.0, 1, "vgg19", 16, 10_000), Job(1, 210.0, 1, "a2c", 64, 2_000))
    inst = Instance(ONE_GPU, jobs)
    t_a, t_b = 2000 * STEP_A2C, 1210.0 - 210.0
    c_b = XI_VGG * t_b
    c_a = c_b + t_a - c_b / XI_A2C
    hand = (t_b + t_b + t_a) - (c_a + c_b)
    assert hand == pytest.approx(-783.776, abs=1e-3)
    assert pair_benefit(t_a, t_a, t_b, XI_A2C, XI_VGG) == pytest.approx(hand, rel=1e-12)

    policy = RecordingBsbf()
    res = simulate(inst, policy, interference=gavel_fitted())
    first = {s: (vec, scalar) for time, s, vec, scalar in policy.seen if time == 210.0}
    assert sorted(first) == [1, 2, 4, 8]
    assert first[1][0] == pytest.approx(hand, rel=1e-9)
    for vec, scalar in first.values():
        assert vec == pytest.approx(scalar, rel=1e-12)  # vectorised == scalar path
        assert vec < 0
    assert start(res, 1) == pytest.approx(1210.0)
    assert finish(res, 1) == pytest.approx(1210.0 + t_a, rel=1e-9)

    sym_hand = 3034.0 - (XI_SYM * t_b + (XI_SYM * t_b + t_a - t_b))
    assert sym_hand == pytest.approx(295.2, abs=1e-3)
    policy = RecordingBsbf()
    sym = simulate(inst, policy, interference=time_slicing())
    first = {s: (vec, scalar) for time, s, vec, scalar in policy.seen if time == 210.0}
    assert first[1][0] == pytest.approx(sym_hand, rel=1e-9)
    assert start(sym, 1) == 210.0
    assert max(vec for vec, _ in first.values()) > 0
