"""``sjf-bsbf-plus``: our variant of SJF-BSBF, beyond the paper (docs/model.md §6.1).

SJF-BSBF whose decisions are **backfill first**: every pending job that fits on idle GPUs starts
alone, in SJF order, before any sharing plan is made, so a plan mixes in only the idle GPUs no
job could run alone on. The paper's greedy goes job by job, and a multi-GPU job that does not fit
swallows idle GPUs into its share that the shorter-running jobs behind it would have used. The
benefit estimate, the sub-batch choice, the threshold and SJF order are the paper's; the paper's
policy stays as published under ``sjf-bsbf``.
"""

from __future__ import annotations

from sjfbsbf.policies.sjf_bsbf import SjfBsbf


class SjfBsbfPlus(SjfBsbf):
    """SJF-BSBF with backfill-first decisions (``backfill_first=True``, fixed).

    Parameters
    ----------
    threshold, max_partners, retune, sub_batch
        As for :class:`~sjfbsbf.policies.sjf_bsbf.SjfBsbf`; ``wait_aware`` and ``mix_idle`` keep
        the paper's values (off, on) and ``backfill_first`` is on: that is what makes this policy.
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
            sub_batch=sub_batch,
            backfill_first=True,
        )
        self.name = "sjf-bsbf-plus"
