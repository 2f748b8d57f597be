"""The one status rule: what a solver reports, mapped to a :class:`SolveStatus`.

Every backend reduces its own outcome to four facts (docs/formulations.md §3 lists how each
solver's codes give them) and :func:`status_of` turns the facts into the status, the same way for
CP-SAT, HiGHS and CBC and for the round and the offline model.
"""

from __future__ import annotations

from formulations.result import SolveStatus


def status_of(*, optimal: bool, infeasible: bool, solution: bool, stopped: bool) -> SolveStatus:
    """The status of a solver run, from four facts, first match wins.

    Parameters
    ----------
    optimal
        The solver proved its solution optimal (within the gap the model asked for).
    infeasible
        The solver proved that the model has no solution.
    solution
        The solver returns a solution.
    stopped
        The solver stopped at a limit the caller set, before any proof.

    Returns
    -------
    SolveStatus
        ``OPTIMAL`` if proven optimal; ``INFEASIBLE`` if proven infeasible; ``FEASIBLE`` for a
        solution without a proof; ``TIME_LIMIT`` for no solution and a run stopped at its limit;
        ``UNKNOWN`` otherwise (a solver error, an unbounded model, a run that ended without an
        answer and without a limit).
    """
    if optimal:
        return SolveStatus.OPTIMAL
    if infeasible:
        return SolveStatus.INFEASIBLE
    if solution:
        return SolveStatus.FEASIBLE
    if stopped:
        return SolveStatus.TIME_LIMIT
    return SolveStatus.UNKNOWN
