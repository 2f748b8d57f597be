"""The policy Protocol every scheduler implements."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from sjfbsbf.sim.decision import Decision
from sjfbsbf.sim.view import ClusterView


@runtime_checkable
class Policy(Protocol):
    """A scheduling policy.

    A policy reads a :class:`~sjfbsbf.sim.state.ClusterView` and returns a
    :class:`~sjfbsbf.sim.decision.Decision`; it never mutates simulator state. A policy object is
    made fresh for every simulation (it may keep its own bookkeeping between decisions).

    Attributes
    ----------
    name
        Registry name.
    preemptive
        Whether it may preempt running jobs (the feasibility checker enforces it).
    sharing
        Whether it may place two jobs on one GPU (the feasibility checker enforces it).
    """

    name: str
    preemptive: bool
    sharing: bool

    def decide(self, view: ClusterView) -> Decision:
        """Decide what to start (and preempt) now."""
        ...

    def stats(self) -> dict[str, Any]:
        """Decision statistics gathered during the run (may be empty)."""
        ...
