"""Random round problems (for tests, cross-checks and the solve-time benchmark)."""

from __future__ import annotations

import numpy as np

from formulations.round.problem import RoundHost, RoundJob, RoundProblem, fits


def random_round(
    rng: np.random.Generator,
    *,
    jobs: int,
    hosts: int,
    max_host_gpus: int = 3,
    max_idle: int = 3,
    max_extra_gpus: int = 4,
    options: int = 3,
    grid: float | None = 0.001,
    max_partners: int | None = None,
    threshold: float = 0.0,
) -> RoundProblem:
    """A random round problem drawn with ``rng``.

    Benefits are uniform in [-40, 100] s (about 30% not positive), rounded to ``grid`` seconds
    (``None``: left as drawn). Memory is 2-8 GB at the first option, shrinking by 25% per
    option; host room is 1-9 GB, so some triples do not fit.
    """
    idle = int(rng.integers(0, max_idle + 1))
    round_jobs = []
    for a in range(jobs):
        n_opts = int(rng.integers(1, options + 1))
        mem0 = float(rng.uniform(2.0, 8.0))
        round_jobs.append(
            RoundJob(
                id=a,
                gpus=idle + int(rng.integers(1, max_extra_gpus + 1)),
                options=tuple(2**k for k in range(n_opts)),
                memory=tuple(mem0 * 0.75**k for k in range(n_opts)),
            )
        )
    round_hosts = [
        RoundHost(
            id=100 + b,
            gpus=int(rng.integers(1, max_host_gpus + 1)),
            room=float(rng.uniform(1.0, 9.0)),
        )
        for b in range(hosts)
    ]
    benefit = {}
    for job in round_jobs:
        for s, mem in zip(job.options, job.memory, strict=True):
            for host in round_hosts:
                if fits(host.room, mem):
                    value = float(rng.uniform(-40.0, 100.0))
                    benefit[(job.id, s, host.id)] = (
                        value if grid is None else round(value / grid) * grid
                    )
    return RoundProblem(
        jobs=tuple(round_jobs),
        hosts=tuple(round_hosts),
        idle=idle,
        benefit=benefit,
        max_partners=max_partners,
        threshold=threshold,
    )
