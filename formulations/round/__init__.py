"""The round model (docs/formulations.md §1): pairing and sub-batch selection at one decision.

>>> from formulations.round import RoundHost, RoundJob, RoundProblem, solve
>>> problem = RoundProblem(
...     jobs=(RoundJob(id=5, gpus=2, options=(1, 2), memory=(6.0, 4.0)),),
...     hosts=(RoundHost(id=1, gpus=1, room=8.0), RoundHost(id=2, gpus=2, room=5.0)),
...     idle=1,
...     benefit={(5, 1, 1): 30.0, (5, 2, 1): 20.0, (5, 2, 2): 25.0},
... )
>>> result = solve(problem, "cpsat")
>>> result.status.value, result.objective
('optimal', 45.0)
>>> result.solution.shares[0].hosts
((1, 1), (2, 1))
"""

from formulations.round.assignment import RoundAssignment, RoundShare, violations
from formulations.round.build import round_problem
from formulations.round.greedy import greedy_round
from formulations.round.matching import reduces, reduction_failure
from formulations.round.preprocess import SCALE, RoundData, preprocess
from formulations.round.problem import RoundHost, RoundJob, RoundProblem
from formulations.round.solve import SOLVERS, solve

__all__ = [
    "SCALE",
    "SOLVERS",
    "RoundAssignment",
    "RoundData",
    "RoundHost",
    "RoundJob",
    "RoundProblem",
    "RoundShare",
    "greedy_round",
    "preprocess",
    "reduces",
    "reduction_failure",
    "round_problem",
    "solve",
    "violations",
]
