"""Build a round problem from the simulator's view and a policy's board.

The benefit table comes from the sjf-bsbf greedy's own estimator
(:meth:`sjfbsbf.policies.sjf_bsbf.SjfBsbf.host_options`, which calls
:func:`sjfbsbf.policies.benefit.pair_benefit`), so the exact model and the heuristic read the
same numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from formulations.round.problem import RoundHost, RoundJob, RoundProblem, fits
from sjfbsbf.policies.board import Board
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.sim.view import ClusterView


def round_problem(
    view: ClusterView, board: Board, jobs: Sequence[int], estimator: SjfBsbf
) -> RoundProblem:
    """The round problem of ``jobs`` (pending, in SJF order) on ``board``.

    Parameters
    ----------
    view
        The simulator's view.
    board
        The decision under construction, after the SJF pass (hosts and idle GPUs as it leaves
        them).
    jobs
        Pending jobs that did not fit on idle GPUs, in SJF order.
    estimator
        The greedy whose estimate options (``wait_aware``, ``retune``, ``threshold``,
        ``max_partners``, ``mix_idle``, ``sub_batch="full"``) the round uses.

    Notes
    -----
    With ``wait_aware`` each job's waiting time is computed once, on the board after the SJF
    pass (the greedy recomputes it after each share it starts).
    """
    hosts = board.hosts()
    idle = board.idle_count if estimator.mix_idle else 0
    round_jobs = []
    benefit: dict[tuple[int, int, int], float] = {}
    forbidden: set[tuple[int, int, int]] = set()
    rule = view.sharing_rule  # the world's (docs/model.md §4.1)
    for job_id in jobs:
        gpus = view.job(job_id).gpus
        options = sorted(view.accumulation_options(job_id))
        if estimator.sub_batch == "full":
            options = options[:1]
        memory = tuple(view.memory_gb(job_id, s) for s in options)
        round_jobs.append(RoundJob(job_id, gpus, tuple(options), memory))
        wait = estimator.waiting_time(view, board, gpus) if estimator.wait_aware else None
        t_full = view.remaining_exclusive(job_id, 1)
        for s, mem in zip(options, memory, strict=True):
            occ = view.occupant(job_id, s)
            fitting = {}
            for h, info in hosts.items():
                if not fits(info.room, mem):
                    continue
                if rule is None or rule(occ, info.occupant):
                    fitting[h] = info
                else:  # the interference model forbids the pair (docs/model.md §3)
                    forbidden.add((job_id, s, h))
            for option in estimator.host_options(view, job_id, s, fitting, t_full, wait):
                benefit[(job_id, s, option.host)] = option.benefit
    return RoundProblem(
        jobs=tuple(round_jobs),
        hosts=tuple(RoundHost(h, len(info.gpus), info.room) for h, info in hosts.items()),
        idle=idle,
        benefit=benefit,
        max_partners=estimator.max_partners,
        threshold=estimator.threshold,
        forbidden=frozenset(forbidden),
    )
