"""``sjf-bsbf-plus``: our variant of SJF-BSBF, beyond the paper (docs/model.md §6.1).

SJF-BSBF with two changes that measured better on the default workload and the testbed shape
(docs/results.md): a sharing plan takes **host GPUs only** (never idle ones, which stay for the
jobs behind it in SJF order), and the wait in the benefit estimate is **wait-aware** (until any
G_a GPUs free up, not until this host ends). Everything else, the benefit estimate, the
sub-batch choice and the threshold, is the paper's. The paper's policy stays as published under
``sjf-bsbf``.
"""

from __future__ import annotations

from sjfbsbf.policies.sjf_bsbf import SjfBsbf


class SjfBsbfPlus(SjfBsbf):
    """SJF-BSBF with host-only sharing and the wait-aware waiting estimate.

    Parameters
    ----------
    threshold, max_partners, retune, sub_batch
        As for :class:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf`; ``wait_aware`` and ``mix_idle`` are
        fixed (``True`` and ``False``): they are what makes this policy.
    """

    def __init__(
        self,
        threshold: float = 0.0,
        max_partners: int | None = None,
        retune: bool = False,
        sub_batch: str = "benefit",
    ) -> None:
        super().__init__(
            threshold=threshold,
            max_partners=max_partners,
            retune=retune,
            wait_aware=True,
            sub_batch=sub_batch,
            mix_idle=False,
        )
        self.name = "sjf-bsbf-plus"
