"""Scheduling policies behind one Protocol (:class:`~sjfbsbf.sim.policy.Policy`), with an
explicit registry of the built-ins and entry-point plugins (:mod:`sjfbsbf.policies.registry`).

>>> from sjfbsbf.policies import make_policy
>>> make_policy("sjf").name
'sjf'
"""

from __future__ import annotations

from sjfbsbf.policies.fifo import Fifo
from sjfbsbf.policies.gandiva import Gandiva
from sjfbsbf.policies.lucid import Lucid
from sjfbsbf.policies.planned import Planned, PlannedStart
from sjfbsbf.policies.registry import (
    PolicyFactory,
    discover_plugins,
    make_policy,
    needs_options,
    policy_factory,
    policy_names,
    register,
)
from sjfbsbf.policies.sjf import Sjf
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.policies.sjf_bsbf_plus import SjfBsbfPlus
from sjfbsbf.policies.sjf_ffs import SjfFfs
from sjfbsbf.policies.srtf import Srtf
from sjfbsbf.policies.tiresias import Tiresias
from sjfbsbf.sim.policy import Policy

for _name, _factory in (
    ("fifo", Fifo),
    ("sjf", Sjf),
    ("srtf", Srtf),
    ("tiresias", Tiresias),
    ("sjf-ffs", SjfFfs),
    ("sjf-bsbf", SjfBsbf),
):
    register(_name, _factory)
# Ours, beyond the paper: named in sweeps and --policies, not in the default comparison.
register("sjf-bsbf-plus", SjfBsbfPlus, default=False)
# The sharing schedulers SJF-BSBF competes with (docs/model.md §5): not in the paper's comparison.
register("gandiva", Gandiva, default=False)
register("lucid", Lucid, default=False)
register("planned", Planned, needs_options=True, default=False)


__all__ = [
    "Fifo",
    "Gandiva",
    "Lucid",
    "Planned",
    "PlannedStart",
    "Policy",
    "PolicyFactory",
    "Sjf",
    "SjfBsbf",
    "SjfBsbfPlus",
    "SjfFfs",
    "Srtf",
    "Tiresias",
    "discover_plugins",
    "make_policy",
    "needs_options",
    "policy_factory",
    "policy_names",
    "register",
]
