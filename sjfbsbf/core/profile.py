"""A model's performance profile: the parameters of one catalog entry (docs/model.md §2).

:class:`ModelProfile` holds the per-model constants of the performance model and the formulas
that need nothing but them (step time, memory and utilisation at a micro-batch). The functions
of a job on a cluster are in :mod:`sjfbsbf.core.perf`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Links(Protocol):
    """The interconnect of a cluster, as the all-reduce time needs it (GB/s)."""

    @property
    def intra_bw_gbps(self) -> float: ...

    @property
    def inter_bw_gbps(self) -> float: ...


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

    def allreduce_s(self, gpus: int, spans_nodes: bool, cluster: Links) -> float:
        """All-reduce time of one step (s)."""
        if gpus == 1 or self.generic:
            return 0.0
        bandwidth = cluster.inter_bw_gbps if spans_nodes else cluster.intra_bw_gbps
        return 2.0 * (gpus - 1) / gpus * self.grad_gb / bandwidth

    def step_time(
        self, batch: int, accumulation: int, gpus: int, spans_nodes: bool, cluster: Links
    ) -> float:
        """Time of one optimizer step alone (s) with ``accumulation`` micro-batches."""
        return accumulation * self.compute_s(batch / accumulation) + self.allreduce_s(
            gpus, spans_nodes, cluster
        )
