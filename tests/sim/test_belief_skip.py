"""SJF-BSBF's skip and caches follow the beliefs (docs/model.md §4.1, §6).

Under every estimator (and a wrong interference belief) SJF-BSBF's per-job tables are the same
with the skip of unchanged decisions on and off, and with its per-waiting-job caches kept and
dropped at every decision. ``user`` estimates half and twice the truth make jobs overrun;
``history`` changes beliefs at every completion.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import pytest

from sjfbsbf.core.model import Instance
from sjfbsbf.core.perf import exclusive_duration
from sjfbsbf.policies import SjfBsbf, make_policy
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.sim.view import ClusterView
from sjfbsbf.workloads import default_workload

ESTIMATORS = ["oracle", "lognormal:sigma=1", "lognormal:sigma=2", "history", "user"]
COLUMNS = ["job_id", "start", "finish", "accumulation", "partners", "shared_s"]


def with_estimates(instance: Instance) -> Instance:
    """Each job's estimate: half its true length (even ids) or twice it (odd ids)."""
    from sjfbsbf.core.catalog import generic_profile, get_catalog

    catalog = get_catalog(instance.catalog)
    jobs = []
    for job in instance.jobs:
        profile = generic_profile(catalog) if job.model is None else catalog[job.model]
        true = exclusive_duration(job, profile, instance.cluster)
        jobs.append(replace(job, estimate=true * (0.5 if job.id % 2 == 0 else 2.0)))
    return replace(instance, jobs=tuple(jobs))


class Forgetful(SjfBsbf):
    """SJF-BSBF that drops its per-waiting-job caches before every decision."""

    def decide(self, view: ClusterView) -> Decision:
        self._pending_facts.clear()
        self.waiting_rows.clear()
        return super().decide(view)


def table(instance: Instance, policy: Any, beliefs: Beliefs) -> pd.DataFrame:
    result = simulate(instance, policy, beliefs=beliefs, record_segments=False)
    return result.jobs[COLUMNS]


@pytest.fixture(scope="module")
def busy() -> Instance:
    """60 jobs of the default workload at twice the load: queues form, jobs share."""
    return with_estimates(default_workload(seed=4, n_jobs=60, load=1.6))


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("compiled", [False, True])
def test_skipping_and_caching_change_no_schedule(
    busy: Instance, estimator: str, compiled: bool
) -> None:
    beliefs = Beliefs(estimator, seed=2)
    policy = make_policy("sjf-bsbf")
    policy.compiled = compiled  # type: ignore[attr-defined]
    reference = table(busy, policy, beliefs)
    assert policy.stats()["skipped_unchanged"] > 0  # the skip is exercised
    no_skip = make_policy("sjf-bsbf")
    no_skip.compiled = compiled  # type: ignore[attr-defined]
    no_skip.round_solver.skip_unchanged = False  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(table(busy, no_skip, beliefs), reference)
    forgetful = Forgetful()
    forgetful.compiled = compiled
    pd.testing.assert_frame_equal(table(busy, forgetful, beliefs), reference)


def test_beliefs_change_the_schedule_and_oracle_does_not(busy: Instance) -> None:
    """The test above would pass if beliefs were ignored: they are not."""
    reference = table(busy, make_policy("sjf-bsbf"), Beliefs())
    same = table(busy, make_policy("sjf-bsbf"), Beliefs("oracle", interference="oracle"))
    pd.testing.assert_frame_equal(same, reference)
    for estimator in ESTIMATORS[1:]:
        other = table(busy, make_policy("sjf-bsbf"), Beliefs(estimator, seed=2))
        assert not other.equals(reference), estimator


def test_a_wrong_interference_belief_keeps_the_skip_exact(busy: Instance) -> None:
    beliefs = Beliefs("lognormal:sigma=1", interference="noisy:sigma=1", seed=2)
    reference = table(busy, make_policy("sjf-bsbf"), beliefs)
    no_skip = make_policy("sjf-bsbf")
    no_skip.round_solver.skip_unchanged = False  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(table(busy, no_skip, beliefs), reference)
    oracle = table(busy, make_policy("sjf-bsbf"), Beliefs("lognormal:sigma=1", seed=2))
    assert not oracle.equals(reference)
