"""``sjf-ffs``: SJF with aggressive first-fit sharing (docs/model.md §5)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from sjfbsbf.policies.board import Board
from sjfbsbf.policies.sjf import sjf_order
from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.feasibility import MEMORY_TOLERANCE_GB
from sjfbsbf.sim.view import ClusterView


class SjfFfs:
    """SJF order, placement and backfilling of ``sjf``, plus always-on first-fit sharing.

    A job that does not find enough idle GPUs takes all idle GPUs and fills the rest with GPUs
    that hold exactly one job and have room in memory, lowest GPU id first, at the largest
    micro-batch (smallest accumulation) for which enough such GPUs exist. It never checks
    whether sharing pays, but respects the interference model's sharing rule (a GPU whose job
    it may not meet is skipped; docs/model.md §3).
    """

    name = "sjf-ffs"
    preemptive = False
    sharing = True

    def __init__(self) -> None:
        self._outcomes: Counter[str] = Counter()
        self._accumulation: Counter[int] = Counter()

    def decide(self, view: ClusterView) -> Decision:
        """Start alone what fits on idle GPUs; share first-fit what does not."""
        board = Board.from_view(view)
        rule = view.sharing_rule
        for job_id in sjf_order(view):
            gpus = view.job(job_id).gpus
            placement = board.place_alone(gpus)
            if placement is not None:
                board.start(job_id, placement, 1)
                self._outcomes["alone"] += 1
                continue
            singles, room = board.singles()
            if board.idle_count + len(singles) < gpus:  # too few GPUs at any option
                self._outcomes["wait"] += 1
                continue
            for s in sorted(view.accumulation_options(job_id)):
                mem = view.memory_gb(job_id, s)
                single = singles[room + MEMORY_TOLERANCE_GB >= mem].tolist()
                if rule is not None:
                    occ = view.occupant(job_id, s)
                    single = [g for g in single if rule(occ, board.occupant(board.residents(g)[0]))]
                idle = board.idle()
                if len(idle) + len(single) >= gpus:
                    chosen = (idle + single)[:gpus]
                    board.start(job_id, tuple(chosen), s)
                    self._outcomes["share"] += 1
                    self._accumulation[s] += 1
                    break
            else:
                self._outcomes["wait"] += 1
        return Decision(tuple(board.starts))

    def stats(self) -> dict[str, Any]:
        """How often a considered job ran alone, shared or waited; accumulation of shares."""
        return {
            "outcomes": dict(self._outcomes),
            "share_accumulation": dict(sorted(self._accumulation.items())),
        }
