"""Performance model of one job (DESIGN §1.3).

Per optimizer step on G GPUs, with the per-GPU batch B computed as s micro-batches of size
b = B / s (gradient accumulation)::

    step_time = s * (alpha + beta * b) + allreduce(G, placement)
    allreduce = 0 if G == 1 else 2 (G - 1) / G * grad_gb / bandwidth(placement spans > 1 node?)
    memory(b) = mem_fixed + mem_per_sample * b                     (GB, per GPU)
    util(b)   = u_max * b / (b + B / 4)                            (share of the step busy)

Accumulation pays ``alpha`` once per micro-batch but all-reduce once per step.
"""

from __future__ import annotations

from dataclasses import dataclass

from sjfbsbf.model import Cluster, Job

#: Accumulation factors tried by default: b = B / s.
DEFAULT_ACCUMULATION = (1, 2, 4, 8)


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """Performance parameters of one model (one catalog entry).

    Parameters
    ----------
    name
        Catalog key.
    alpha_s
        Fixed cost of one micro-batch (s).
    beta_s
        Cost per sample of a micro-batch (s).
    grad_gb
        Effective gradient volume exchanged by all-reduce (GB); divided by a bandwidth in GB/s.
    mem_fixed_gb
        Memory per GPU independent of the micro-batch (GB).
    mem_per_sample_gb
        Memory per sample of the micro-batch (GB).
    u_max
        Contention scale: ``util(b) = u_max * b / (b + B/4)``.
    min_micro_batch
        Smallest allowed micro-batch size.
    accumulation
        Accumulation factors s to consider.
    generic
        True for the profile of duration-only jobs (no sub-batch options, no all-reduce).
    """

    name: str
    alpha_s: float
    beta_s: float
    grad_gb: float
    mem_fixed_gb: float
    mem_per_sample_gb: float
    u_max: float
    min_micro_batch: int = 1
    accumulation: tuple[int, ...] = DEFAULT_ACCUMULATION
    generic: bool = False

    def micro_batches(self, batch: int) -> dict[int, int]:
        """Valid accumulation factors for a per-GPU batch: ``{s: b}`` with b = batch / s.

        b must be an integer no smaller than :attr:`min_micro_batch`; s = 1 is always valid.
        """
        options = {1: batch}
        for s in self.accumulation:
            if s > 1 and batch % s == 0 and batch // s >= self.min_micro_batch:
                options[s] = batch // s
        return options

    def compute_s(self, micro_batch: float) -> float:
        """Compute time of one micro-batch (s)."""
        return self.alpha_s + self.beta_s * micro_batch

    def memory_gb(self, micro_batch: float) -> float:
        """GPU memory used at a micro-batch size (GB per GPU)."""
        return self.mem_fixed_gb + self.mem_per_sample_gb * micro_batch

    def util(self, micro_batch: float, batch: float) -> float:
        """Share of the step the job keeps a GPU busy at micro-batch ``micro_batch``."""
        return self.u_max * micro_batch / (micro_batch + batch / 4.0)

    def allreduce_s(self, gpus: int, spans_nodes: bool, cluster: Cluster) -> float:
        """All-reduce time of one step (s)."""
        if gpus == 1 or self.generic:
            return 0.0
        bandwidth = cluster.inter_bw_gbps if spans_nodes else cluster.intra_bw_gbps
        return 2.0 * (gpus - 1) / gpus * self.grad_gb / bandwidth

    def step_time(
        self, batch: int, accumulation: int, gpus: int, spans_nodes: bool, cluster: Cluster
    ) -> float:
        """Time of one optimizer step alone (s) with ``accumulation`` micro-batches."""
        return accumulation * self.compute_s(batch / accumulation) + self.allreduce_s(
            gpus, spans_nodes, cluster
        )


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
