"""Small named instances for the offline model: whole-slot jobs drawn from explicit seeds.

Every instance is drawn from its own seed (``numpy.random.default_rng(seed)``): catalog jobs (or
duration-only jobs) on one node (two for the spanning cases) with whole-slot durations and
arrivals at ``dt`` = 60 s. A catalog job's iterations are the largest count whose exclusive
duration at the full batch stays at least 0.1% of a slot below its whole number of slots, so it
holds its GPUs for exactly that many slots when alone and never ends on a tick boundary by
float noise. :data:`SPECS` is the suite of ``instances/`` (``instances/make_suite.py`` writes and
solves it); the specs vary the load (how closely arrivals follow each other), the GPU mix, the
model pool (memory pressure: the "heavy" pool makes most pairs need a sub-batch or not fit in
12 GB) and the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sjfbsbf.core.catalog import DEFAULT_BATCH, get_catalog
from sjfbsbf.core.model import Cluster, Instance, Job

#: Slot length of the suite (s).
DT = 60.0
#: Model pools: light sharers, memory-heavy models, all eight.
POOLS = {
    "light": ("dqn", "a2c", "shufflenet_v2", "vgg16", "vgg19"),
    "heavy": ("bert", "gpt2", "resnet18", "shufflenet_v2"),
    "all": tuple(sorted(DEFAULT_BATCH)),
}


@dataclass(frozen=True)
class Spec:
    """One suite instance.

    Attributes
    ----------
    name
        File stem.
    seed
        Seed of its generator.
    jobs
        Number of jobs.
    gpus_per_node, nodes
        Cluster shape (12 GB GPUs).
    pool
        Model pool (:data:`POOLS`), or ``"duration"`` for duration-only jobs.
    gpu_mix
        GPU counts drawn uniformly.
    slots
        Whole-slot durations drawn uniformly from this inclusive range.
    arrival_span
        Arrival slots drawn uniformly from 0..arrival_span.
    """

    name: str
    seed: int
    jobs: int
    gpus_per_node: int
    pool: str
    gpu_mix: tuple[int, ...] = (1,)
    slots: tuple[int, int] = (1, 5)
    arrival_span: int = 4
    nodes: int = 1


def _specs() -> list[Spec]:
    """The suite: two seeds per grid point, then duration-only and two-node cases."""
    out = []
    seed = 1000
    grid = [
        # (jobs, GPUs per node, pool, GPU mix, arrival span, durations)
        (4, 2, "all", (1, 1, 2), 2, (1, 4)),
        (4, 2, "heavy", (1,), 1, (1, 4)),
        (4, 2, "light", (1, 2), 2, (1, 4)),
        (5, 2, "all", (1, 1, 2), 4, (1, 5)),
        (5, 2, "heavy", (1,), 3, (1, 5)),
        (5, 2, "light", (1,), 2, (1, 4)),
        (6, 2, "all", (1,), 6, (1, 5)),
        (6, 2, "light", (1, 1, 2), 6, (1, 4)),
        (4, 4, "all", (1, 2, 4), 2, (1, 5)),
        (5, 4, "heavy", (1, 2), 2, (1, 5)),
        (6, 4, "all", (1, 1, 2), 4, (1, 5)),
        (6, 4, "light", (1, 2, 4), 4, (1, 5)),
        (7, 4, "all", (1, 1, 2), 6, (1, 5)),
        (7, 4, "heavy", (1,), 4, (1, 5)),
        (8, 4, "light", (1,), 8, (1, 5)),
        (6, 8, "all", (1, 2, 4), 2, (1, 5)),
        (8, 8, "all", (1, 2, 4), 4, (1, 5)),
        (8, 8, "heavy", (1, 2), 4, (1, 5)),
        (10, 8, "all", (1, 1, 2, 4), 8, (1, 5)),
        (10, 8, "light", (1, 2), 6, (1, 5)),
    ]
    for jobs, gpus, pool, mix, span, slots in grid:
        for variant in ("a", "b"):
            name = f"n{jobs}-g{gpus}-{pool}-{variant}"
            out.append(Spec(name, seed, jobs, gpus, pool, mix, slots, span))
            seed += 1
    out.append(Spec("n4-g2-duration-a", seed, 4, 2, "duration", (1, 2), (1, 4), 2))
    out.append(Spec("n5-g2-duration-a", seed + 1, 5, 2, "duration", (1,), (1, 4), 3))
    out.append(Spec("n4-2x2-all-a", seed + 2, 4, 2, "all", (1, 2, 3), (1, 4), 2, nodes=2))
    out.append(Spec("n5-2x2-light-a", seed + 3, 5, 2, "light", (1, 2, 3), (1, 4), 3, nodes=2))
    # 12 jobs: the densest 8-GPU spec (n10-g8-all) at the same load, seeds 2000-2005
    # (docs/formulations.md §2.10).
    for variant, seed12 in zip("abcdef", range(2000, 2006), strict=True):
        name = f"n12-g8-all-{variant}"
        out.append(Spec(name, seed12, 12, 8, "all", (1, 1, 2, 4), (1, 5), 10))
    # 20, 30 and 50 jobs at the same load (arrival span ≈ 5/6 of the job count), on one node of
    # 8 GPUs and on two nodes of 4 (spanning options), seeds 2100-2105 (§2.10).
    big = [(20, 1, 2100, "a"), (30, 1, 2101, "a"), (50, 1, 2102, "a"), (20, 2, 2103, "a")]
    big += [(30, 1, 2104, "b"), (50, 2, 2105, "a")]
    for jobs, nodes, seed_big, variant in big:
        shape = "g8" if nodes == 1 else "2x4"
        name = f"n{jobs}-{shape}-all-{variant}"
        span = round(jobs * 10 / 12)
        out.append(
            Spec(name, seed_big, jobs, 8 // nodes, "all", (1, 1, 2, 4), (1, 5), span, nodes=nodes)
        )
    return out


SPECS: tuple[Spec, ...] = tuple(_specs())


def iterations_for(model: str, gpus: int, slots: int, cluster: Cluster, dt: float = DT) -> int:
    """Iterations whose full-batch exclusive duration is just under ``slots`` whole slots."""
    profile = get_catalog("default")[model]
    batch = DEFAULT_BATCH[model]
    step = profile.step_time(batch, 1, gpus, gpus > cluster.gpus_per_node, cluster)
    iterations = int(slots * dt / step)
    while slots * dt - iterations * step < 1e-3 * dt:
        iterations -= 1
    return max(1, iterations)


def make_instance(spec: Spec) -> Instance:
    """Draw the instance of ``spec`` from its seed."""
    rng = np.random.default_rng(spec.seed)
    cluster = Cluster(nodes=spec.nodes, gpus_per_node=spec.gpus_per_node, gpu_mem_gb=12.0)
    jobs = []
    mix = [g for g in spec.gpu_mix if g <= cluster.num_gpus]
    for job_id in range(spec.jobs):
        gpus = int(rng.choice(mix))
        slots = int(rng.integers(spec.slots[0], spec.slots[1] + 1))
        arrival = float(int(rng.integers(0, spec.arrival_span + 1)) * DT)
        if spec.pool == "duration":
            jobs.append(Job(job_id, arrival, gpus, duration=slots * DT))
            continue
        pool = POOLS[spec.pool]
        model = pool[int(rng.integers(len(pool)))]
        iterations = iterations_for(model, gpus, slots, cluster)
        jobs.append(Job(job_id, arrival, gpus, model, DEFAULT_BATCH[model], iterations))
    return Instance(cluster, tuple(jobs), name=spec.name)
