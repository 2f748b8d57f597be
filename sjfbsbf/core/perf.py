"""Performance model of one job (docs/model.md §2, §3).

Per optimizer step on G GPUs, with the per-GPU batch B computed as s micro-batches of size
b = B / s (gradient accumulation)::

    step_time = s * (alpha + beta * b) + allreduce(G, placement)
    allreduce = 0 if G == 1 else 2 (G - 1) / G * grad_gb / bandwidth(placement spans > 1 node?)
    memory(b) = mem_fixed + mem_per_sample * b                     (GB, per GPU)
    util(b)   = u_max * b / (b + B / 4)                            (share of the step busy)

Accumulation pays ``alpha`` once per micro-batch but all-reduce once per step.
"""

from __future__ import annotations

from sjfbsbf.core.model import Cluster, Job
from sjfbsbf.core.profile import ModelProfile


def work(job: Job) -> float:
    """Amount of work of a job, in steps (a duration-only job has one 'step' of its duration)."""
    return 1.0 if job.iterations is None else float(job.iterations)


def step_time(
    job: Job, profile: ModelProfile, accumulation: int, spans_nodes: bool, cluster: Cluster
) -> float:
    """Solo time of one unit of :func:`work` for ``job`` (s)."""
    if job.duration is not None:
        return job.duration
    assert job.batch is not None
    return profile.step_time(job.batch, accumulation, job.gpus, spans_nodes, cluster)


def exclusive_duration(
    job: Job,
    profile: ModelProfile,
    cluster: Cluster,
    accumulation: int = 1,
    spans_nodes: bool | None = None,
) -> float:
    """Exclusive run time of the whole job (s).

    By default on the fewest nodes that can hold it (spanning nodes only if G > GPUs per node).
    """
    if spans_nodes is None:
        spans_nodes = job.gpus > cluster.gpus_per_node
    return work(job) * step_time(job, profile, accumulation, spans_nodes, cluster)


def micro_batch_options(job: Job, profile: ModelProfile) -> dict[int, int | None]:
    """Accumulation options ``{s: b}`` of a job (duration-only jobs: ``{1: None}``)."""
    if job.batch is None or profile.generic:
        return {1: None}
    return dict(profile.micro_batches(job.batch))


def memory_gb(job: Job, profile: ModelProfile, accumulation: int) -> float:
    """Memory per GPU of a job at accumulation factor ``accumulation`` (GB)."""
    if job.batch is None or profile.generic:
        return profile.mem_fixed_gb
    return profile.memory_gb(job.batch / accumulation)
