"""The time-stepped simulator and its contract with policies (docs/model.md §4).

:func:`simulate` runs a :class:`Policy` on an instance; a policy reads a read-only
:class:`ClusterView` (arrived jobs as :class:`JobInfo`, observed progress, and
:class:`Beliefs` about lengths and interference, docs/model.md §4.1) and returns a
:class:`Decision`, which :func:`check_decision` checks against the truth (:class:`WorldView`)
before it is applied. Built on :mod:`sjfbsbf.core` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from sjfbsbf.core.errors import FeasibilityError, SchedulingError
    from sjfbsbf.sim.beliefs import Beliefs
    from sjfbsbf.sim.decision import Decision, Start
    from sjfbsbf.sim.feasibility import check_decision
    from sjfbsbf.sim.policy import Policy
    from sjfbsbf.sim.result import SimResult
    from sjfbsbf.sim.simulator import simulate
    from sjfbsbf.sim.view import ClusterView, JobInfo
    from sjfbsbf.sim.world import WorldView

#: Public name -> module that defines it (imported on first use, PEP 562).
_EXPORTS = {
    "simulate": "sjfbsbf.sim.simulator",
    "SimResult": "sjfbsbf.sim.result",
    "Policy": "sjfbsbf.sim.policy",
    "Decision": "sjfbsbf.sim.decision",
    "Start": "sjfbsbf.sim.decision",
    "ClusterView": "sjfbsbf.sim.view",
    "JobInfo": "sjfbsbf.sim.view",
    "WorldView": "sjfbsbf.sim.world",
    "Beliefs": "sjfbsbf.sim.beliefs",
    "check_decision": "sjfbsbf.sim.feasibility",
    "SchedulingError": "sjfbsbf.core.errors",
    "FeasibilityError": "sjfbsbf.core.errors",
}

__all__ = [
    "Beliefs",
    "ClusterView",
    "Decision",
    "FeasibilityError",
    "JobInfo",
    "Policy",
    "SchedulingError",
    "SimResult",
    "Start",
    "WorldView",
    "check_decision",
    "simulate",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
