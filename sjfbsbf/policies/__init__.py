"""Scheduling policies behind one Protocol, with an explicit registry.

>>> from sjfbsbf.policies import make_policy
>>> make_policy("sjf").name
'sjf'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sjfbsbf.policies.fifo import Fifo
from sjfbsbf.policies.planned import Planned, PlannedStart
from sjfbsbf.policies.sjf import Sjf
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.policies.sjf_ffs import SjfFfs
from sjfbsbf.policies.srtf import Srtf
from sjfbsbf.policies.tiresias import Tiresias
from sjfbsbf.sim.policy import Policy

PolicyFactory = Callable[..., Policy]

_REGISTRY: dict[str, PolicyFactory] = {
    "fifo": Fifo,
    "sjf": Sjf,
    "srtf": Srtf,
    "tiresias": Tiresias,
    "sjf-ffs": SjfFfs,
    "sjf-bsbf": SjfBsbf,
}


#: Registered policies that cannot run on an instance alone (``planned`` needs a schedule):
#: reachable through :func:`make_policy`, never listed by :func:`policy_names`.
_REPLAY_ONLY: set[str] = set()
#: Registered policies that run on an instance alone but are left out of default comparisons
#: (e.g. ``exact-round``, which needs the solver packages and is slow).
_NOT_DEFAULT: set[str] = set()


def register(
    name: str,
    factory: PolicyFactory,
    *,
    needs_options: bool = False,
    default: bool = True,
) -> None:
    """Add a policy factory under ``name`` (an error if the name is taken).

    Parameters
    ----------
    name
        Registry name.
    factory
        Called with the policy's options; returns a fresh policy.
    needs_options
        The policy cannot run on an instance alone (e.g. ``planned`` needs a schedule): it is
        reachable through :func:`make_policy` but not listed by :func:`policy_names`, so no
        "run every policy" loop can pick it up.
    default
        Whether ``sjfbsbf compare`` runs it when no ``--policies`` is given
        (``policy_names(defaults_only=True)``).
    """
    if name in _REGISTRY:
        raise ValueError(f"policy {name!r} is already registered")
    _REGISTRY[name] = factory
    if needs_options:
        _REPLAY_ONLY.add(name)
    if not default:
        _NOT_DEFAULT.add(name)


def policy_names(*, defaults_only: bool = False) -> list[str]:
    """Names of the registered policies that run on an instance alone, in registration order.

    Policies that need options to run at all (``planned``) are never listed. With
    ``defaults_only``, only those a default comparison runs (what ``sjfbsbf compare`` runs when
    no ``--policies`` is given).
    """
    return [
        n for n in _REGISTRY if n not in _REPLAY_ONLY and not (defaults_only and n in _NOT_DEFAULT)
    ]


def needs_options(name: str) -> bool:
    """Whether a registered policy cannot run on an instance alone (e.g. ``planned``)."""
    return name in _REPLAY_ONLY


register("planned", Planned, needs_options=True, default=False)


def policy_factory(name: str) -> PolicyFactory:
    """The factory registered under ``name`` (its signature lists the policy's options).

    Raises
    ------
    ValueError
        If no policy is registered under ``name``.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; registered: {', '.join(_REGISTRY)}") from None


def make_policy(name: str, **options: Any) -> Policy:
    """A fresh policy object by registry name, with options passed to its constructor."""
    return policy_factory(name)(**options)


__all__ = [
    "Fifo",
    "Planned",
    "PlannedStart",
    "Policy",
    "Sjf",
    "SjfBsbf",
    "SjfFfs",
    "Srtf",
    "Tiresias",
    "make_policy",
    "needs_options",
    "policy_factory",
    "policy_names",
    "register",
]
