"""Lucid's packing of compatible jobs, by hand (docs/model.md §5, "lucid").

Under the ``mps`` interference model the mean speed of DQN next to the reference models is 0.928
(score 1: two DQNs may pack, 1 + 1 ≤ 2) and of ResNet-18 0.846 (score 2: it packs with
nothing but a score-0 job); under the default time-slicing model every catalog model scores 2.
"""

from __future__ import annotations

import numpy as np
import pytest

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.perf import step_time
from sjfbsbf.core.presets import make_interference
from sjfbsbf.policies import make_policy
from sjfbsbf.policies.lucid import Lucid, reference_occupants, sharing_score
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.simulator import simulate

TWO_GPUS = Cluster(nodes=1, gpus_per_node=2)
MPS = make_interference("mps")


def _job(i: int, arrival: float, model: str, seconds: float, gpus: int = 1) -> Job:
    probe = Job(i, arrival, gpus, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    step = step_time(probe, get_catalog("default")[model], 1, False, TWO_GPUS)
    return Job(
        i, arrival, gpus, model=model, batch=DEFAULT_BATCH[model], iterations=round(seconds / step)
    )


def _mean_speed(model: str, interference: str) -> float:
    from sjfbsbf.core.interference import occupant

    job = Job(0, 0.0, 1, model=model, batch=DEFAULT_BATCH[model], iterations=1)
    occ = occupant(job, get_catalog("default")[model], 1)
    belief = make_interference(interference)
    return float(np.mean([1 / belief.slowdown(occ, ref) for ref in reference_occupants()]))


def test_the_score_is_lucids_label_of_the_mean_speed() -> None:
    assert [sharing_score(x) for x in (0.5, 0.8499, 0.85, 0.9499, 0.95, 1.0)] == [2, 2, 1, 1, 0, 0]
    assert sharing_score(_mean_speed("dqn", "mps")) == 1
    assert sharing_score(_mean_speed("resnet18", "mps")) == 2
    assert len(reference_occupants()) == len(get_catalog("default"))


def test_a_compatible_pair_is_packed_even_with_an_idle_gpu() -> None:
    """DQN 0 at 0 and DQN 1 at 10 (scores 1 + 1 = 2): 1 joins 0's GPU though GPU 1 is idle
    (Lucid packs first). With ``pack_first=False`` it takes the idle GPU."""
    jobs = (_job(0, 0.0, "dqn", 600.0), _job(1, 10.0, "dqn", 600.0))
    policy = Lucid()
    result = simulate(Instance(TWO_GPUS, jobs), policy, interference=MPS)
    assert result.jobs["partners"].tolist() == ["1", "0"]
    assert result.placements["gpus"].tolist() == ["0", "0"]
    assert policy.stats()["outcomes"] == {"alone": 1, "packed": 1}
    alone = simulate(
        Instance(TWO_GPUS, jobs), make_policy("lucid", pack_first=False), interference=MPS
    )
    assert alone.jobs["partners"].tolist() == ["", ""]


def test_an_incompatible_pair_is_not_packed() -> None:
    """ResNet-18 (score 2) then DQN (1): 2 + 1 > 2, so the DQN starts alone on GPU 1; under the
    time-slicing world every model scores 2 and nothing packs."""
    jobs = (_job(0, 0.0, "resnet18", 600.0), _job(1, 10.0, "dqn", 600.0))
    result = simulate(Instance(TWO_GPUS, jobs), make_policy("lucid"), interference=MPS)
    assert result.jobs["partners"].tolist() == ["", ""]
    assert result.placements["gpus"].tolist() == ["0", "1"]
    dqns = (_job(0, 0.0, "dqn", 600.0), _job(1, 10.0, "dqn", 600.0))
    result = simulate(Instance(TWO_GPUS, dqns), make_policy("lucid"))
    assert result.metrics["shared_gpu_time_share"] == 0.0


def test_a_job_packs_only_with_a_host_of_at_least_half_its_priority() -> None:
    """DQN 0 (100 s) at 0; DQN 1 (300 s, priority 3× the host's) at 10 is not packed with it
    and takes GPU 1; DQN 2 (200 s, exactly 2×) at 20 is packed with job 0."""
    jobs = (_job(0, 0.0, "dqn", 100.0), _job(1, 10.0, "dqn", 300.0), _job(2, 20.0, "dqn", 200.0))
    result = simulate(Instance(TWO_GPUS, jobs), make_policy("lucid"), interference=MPS)
    table = result.jobs.set_index("job_id")
    assert table.loc[1, "partners"] == "2" or table.loc[1, "partners"] == ""
    assert "0" not in table.loc[1, "partners"].split(";")
    assert table.loc[2, "partners"] == "0"


def test_the_queue_is_ordered_by_estimated_duration_times_gpus() -> None:
    """One GPU busy with ResNet-18 (score 2, so nothing packs) until about 500 s; waiting: a
    2-GPU... no: on a 1-GPU cluster, a 1,000 s job and a 300 s job both wait; the shorter starts
    first. Believing every length ×3 for job 1 only (estimate of the ``user`` estimator) swaps
    them."""
    cluster = Cluster(nodes=1, gpus_per_node=1)
    jobs = (
        Job(0, 0.0, 1, duration=500.0, estimate=500.0),
        Job(1, 1.0, 1, duration=1000.0, estimate=1000.0),
        Job(2, 2.0, 1, duration=300.0, estimate=300.0),
    )
    result = simulate(Instance(cluster, jobs), make_policy("lucid"))
    table = result.jobs.set_index("job_id")
    assert table.loc[2, "start"] < table.loc[1, "start"]
    wrong = tuple(j if j.id != 2 else Job(2, 2.0, 1, duration=300.0, estimate=3000.0) for j in jobs)
    result = simulate(
        Instance(cluster, wrong), make_policy("lucid"), beliefs=Beliefs(estimator="user")
    )
    table = result.jobs.set_index("job_id")
    assert table.loc[1, "start"] < table.loc[2, "start"]


def test_the_score_follows_the_interference_belief() -> None:
    """A time-slicing world believed to be ``mps``: the DQNs are scored 1 and packed."""
    jobs = (_job(0, 0.0, "dqn", 600.0), _job(1, 10.0, "dqn", 600.0))
    believed = simulate(
        Instance(TWO_GPUS, jobs), make_policy("lucid"), beliefs=Beliefs(interference=MPS)
    )
    assert believed.jobs["partners"].tolist() == ["1", "0"]


@pytest.mark.parametrize("value", [1, "yes", None])
def test_pack_first_must_be_a_bool(value: object) -> None:
    with pytest.raises(ValueError, match="pack_first must be true or false"):
        Lucid(pack_first=value)  # type: ignore[arg-type]
