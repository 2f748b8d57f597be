"""Scheduling policies behind one Protocol, with an explicit registry.

>>> from sjfbsbf.policies import make_policy
>>> make_policy("sjf").name
'sjf'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sjfbsbf.policies.base import Policy
from sjfbsbf.policies.fifo import Fifo
from sjfbsbf.policies.planned import Planned, PlannedStart
from sjfbsbf.policies.sjf import Sjf
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from sjfbsbf.policies.sjf_ffs import SjfFfs
from sjfbsbf.policies.srtf import Srtf
from sjfbsbf.policies.tiresias import Tiresias

PolicyFactory = Callable[..., Policy]

_REGISTRY: dict[str, PolicyFactory] = {
    "fifo": Fifo,
    "sjf": Sjf,
    "srtf": Srtf,
    "tiresias": Tiresias,
    "sjf-ffs": SjfFfs,
    "sjf-bsbf": SjfBsbf,
}


#: Registered policies that cannot run without options (e.g. ``planned`` needs a schedule) or
#: that need an optional component; they are left out of default comparisons.
_NEEDS_OPTIONS: set[str] = set()


def register(name: str, factory: PolicyFactory, *, needs_options: bool = False) -> None:
    """Add a policy factory under ``name`` (an error if the name is taken).

    Parameters
    ----------
    name
        Registry name.
    factory
        Called with the policy's options; returns a fresh policy.
    needs_options
        The policy cannot run with default options (it is then left out of
        ``policy_names(defaults_only=True)``).
    """
    if name in _REGISTRY:
        raise ValueError(f"policy {name!r} is already registered")
    _REGISTRY[name] = factory
    if needs_options:
        _NEEDS_OPTIONS.add(name)


def policy_names(*, defaults_only: bool = False) -> list[str]:
    """Names of the registered policies, in registration order.

    With ``defaults_only``, only those that run with default options (what ``sjfbsbf compare``
    runs when no ``--policies`` is given).
    """
    return [n for n in _REGISTRY if not (defaults_only and n in _NEEDS_OPTIONS)]


register("planned", Planned, needs_options=True)


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
    "policy_factory",
    "policy_names",
    "register",
]
