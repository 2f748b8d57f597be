"""Offline-model test cases shared by tests/formulations, tests/policies and tests/cli.

Tiny hand-made instances (catalog jobs sized just under whole slots of :data:`DT`, and
duration-only jobs), and the recorded suite of ``instances/`` (read once).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from formulations.offline.suite import OPTIMA_FILE, Optimum, load_suite
from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job

DT = 60.0
SUITE = Path(__file__).resolve().parents[1] / "instances"


def catalog_job(
    job_id: int, arrival_slot: int, gpus: int, model: str, slots: int, cluster: Cluster
) -> Job:
    """A catalog job whose full-batch exclusive duration is just under ``slots`` slots."""
    profile = get_catalog("default")[model]
    batch = DEFAULT_BATCH[model]
    step = profile.step_time(batch, 1, gpus, gpus > cluster.gpus_per_node, cluster)
    iterations = int(slots * DT / step)
    while slots * DT - iterations * step < 1e-3 * DT:
        iterations -= 1
    return Job(job_id, arrival_slot * DT, gpus, model, batch, iterations)


def tiny(name: str) -> Instance:
    """A tiny hand-made case by name (:data:`FAST_TINY`, :data:`SLOW_TINY`)."""
    one = Cluster(1, 1, 12.0)
    two = Cluster(1, 2, 12.0)
    two_nodes = Cluster(2, 2, 12.0)
    cases = {
        # two light jobs share one GPU
        "share": lambda: (
            one,
            [catalog_job(0, 0, 1, "dqn", 2, one), catalog_job(1, 1, 1, "a2c", 1, one)],
        ),
        # a 2-GPU job shares with two partners on different GPUs
        "partners": lambda: (
            two,
            [
                catalog_job(0, 0, 2, "dqn", 2, two),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # a 1-GPU job shares with a 2-GPU job and a later job
        "mixed": lambda: (
            two,
            [
                catalog_job(0, 0, 1, "a2c", 2, two),
                catalog_job(1, 0, 2, "dqn", 1, two),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # the newcomer needs a sub-batch to fit beside the running job
        "sub-batch": lambda: (
            one,
            [catalog_job(0, 0, 1, "a2c", 3, one), catalog_job(1, 1, 1, "gpt2", 1, one)],
        ),
        # memory: both need a sub-batch to share
        "memory": lambda: (
            one,
            [catalog_job(0, 0, 1, "bert", 3, one), catalog_job(1, 1, 1, "bert", 1, one)],
        ),
        # sharing needs sub-batches and is slower than waiting: sequential
        "sequential": lambda: (
            one,
            [catalog_job(0, 0, 1, "gpt2", 1, one), catalog_job(1, 0, 1, "bert", 2, one)],
        ),
        # duration-only jobs end exactly on tick boundaries
        "duration": lambda: (
            one,
            [
                Job(0, 0.0, 1, duration=120.0),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 60.0, 1, duration=60.0),
            ],
        ),
        # slow cases
        "four-jobs": lambda: (
            two,
            [
                Job(0, 0.0, 1, duration=120.0),
                Job(1, 0.0, 2, duration=60.0),
                Job(2, 0.0, 1, duration=60.0),
                Job(3, 60.0, 1, duration=120.0),
            ],
        ),
        "three-catalog": lambda: (
            two,
            [
                catalog_job(0, 0, 2, "shufflenet_v2", 2, two),
                catalog_job(1, 0, 1, "dqn", 1, two),
                catalog_job(2, 1, 1, "resnet18", 1, two),
            ],
        ),
        "spans": lambda: (
            two_nodes,
            [
                catalog_job(0, 0, 2, "vgg16", 2, two_nodes),
                Job(1, 0.0, 1, duration=60.0),
                Job(2, 0.0, 2, duration=120.0),
            ],
        ),
    }
    cluster, jobs = cases[name]()
    return Instance(cluster, tuple(jobs), name=name)


FAST_TINY = ("share", "partners", "mixed", "sub-batch", "memory", "sequential", "duration")
SLOW_TINY = ("four-jobs", "three-catalog", "spans")


@cache
def recorded_suite() -> dict[str, tuple[Optimum, Instance]]:
    """The suite of ``instances/`` by name (read once; skipped without the optima file)."""
    if not (SUITE / OPTIMA_FILE).is_file():
        pytest.skip("instances/optima.json is missing")
    return {opt.name: (opt, inst) for opt, inst in load_suite(SUITE)}


def suite_instance(name: str) -> Instance:
    """One suite instance by name."""
    return recorded_suite()[name][1]
