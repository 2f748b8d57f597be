"""The policy registry: built-in policies registered explicitly, plugins found by entry point.

Built-ins are registered by :mod:`sjfbsbf.policies` with :func:`register`. A package adds a policy
without touching this repository by declaring a factory under the ``sjfbsbf.policies``
entry-point group (``exact-round`` is declared that way by this distribution)::

    [project.entry-points."sjfbsbf.policies"]
    my-policy = "my_package.module:MyPolicy"

Plugins are listed by :func:`policy_names` (never in default comparisons) and their module is
imported only when the policy is made, so listing them stays fast. A plugin that fails to load
is reported in one line when it is used; one whose name is already taken is refused.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from sjfbsbf.sim.policy import Policy

PolicyFactory = Callable[..., Policy]
#: Entry-point group of policy plugins.
PLUGIN_GROUP = "sjfbsbf.policies"

_REGISTRY: dict[str, PolicyFactory] = {}
#: Registered policies that cannot run on an instance alone (``planned`` needs a schedule):
#: reachable through :func:`make_policy`, never listed by :func:`policy_names`.
_REPLAY_ONLY: set[str] = set()
#: Registered policies that run on an instance alone but are left out of default comparisons.
_NOT_DEFAULT: set[str] = set()
#: Plugins found but not loaded yet: name -> entry point.
_PLUGINS: dict[str, EntryPoint] = {}
#: Plugins loaded into the registry: name -> entry-point value.
_LOADED: dict[str, str] = {}
_discovered = False


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
    if name in _REGISTRY or name in _PLUGINS:
        raise ValueError(f"policy {name!r} is already registered")
    _REGISTRY[name] = factory
    if needs_options:
        _REPLAY_ONLY.add(name)
    if not default:
        _NOT_DEFAULT.add(name)


def discover_plugins(*, again: bool = False) -> None:
    """Find the policies declared under :data:`PLUGIN_GROUP` (once; ``again`` to look anew).

    Raises
    ------
    ValueError
        If two plugins, or a plugin and a registered policy, share a name.
    """
    global _discovered
    if _discovered and not again:
        return
    _PLUGINS.clear()
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=PLUGIN_GROUP):
        other = found.get(point.name)
        if other is not None and other.value != point.value:
            raise ValueError(
                f"policy plugins {other.value!r} and {point.value!r} are both named {point.name!r}"
            )
        found[point.name] = point
    for name, point in found.items():
        if name in _REGISTRY:
            if _LOADED.get(name) == point.value:
                continue  # loaded already
            raise ValueError(f"policy plugin {point.value!r} takes the name {name!r} of a policy")
        _PLUGINS[name] = point
    _discovered = True


def _load(name: str) -> PolicyFactory:
    point = _PLUGINS[name]
    try:
        factory = point.load()
    except Exception as exc:  # a broken third-party plugin: one line, naming it
        raise ValueError(
            f"policy plugin {name!r} ({point.value}) failed to load: {type(exc).__name__}: {exc}"
        ) from None
    if not callable(factory):
        raise ValueError(f"policy plugin {name!r} ({point.value}) is not callable")
    del _PLUGINS[name]
    _REGISTRY[name] = factory
    _NOT_DEFAULT.add(name)
    _LOADED[name] = point.value
    return factory


def policy_names(*, defaults_only: bool = False) -> list[str]:
    """Names of the policies that run on an instance alone: built-ins in registration order,
    then plugins by name.

    Policies that need options to run at all (``planned``) are never listed. With
    ``defaults_only``, only those a default comparison runs (what ``sjfbsbf compare`` runs when
    no ``--policies`` is given): never plugins.
    """
    discover_plugins()
    names = [
        n for n in _REGISTRY if n not in _REPLAY_ONLY and not (defaults_only and n in _NOT_DEFAULT)
    ]
    return names if defaults_only else names + sorted(_PLUGINS)


def needs_options(name: str) -> bool:
    """Whether a registered policy cannot run on an instance alone (e.g. ``planned``)."""
    return name in _REPLAY_ONLY


def policy_factory(name: str) -> PolicyFactory:
    """The factory registered under ``name`` (its signature lists the policy's options).

    Raises
    ------
    ValueError
        If no policy is registered under ``name``, or its plugin fails to load.
    """
    discover_plugins()
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _PLUGINS:
        return _load(name)
    raise ValueError(unknown_policy(name, [*_REGISTRY, *sorted(_PLUGINS)]))


def unknown_policy(name: str, known: list[str]) -> str:
    """The refusal of an unknown policy name: the closest registered name, if one is close
    (:func:`difflib.get_close_matches`, cutoff 0.6, ignoring case), then every registered name."""
    lowered = {k.lower(): k for k in reversed(known)}  # the first of names equal but for case
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
    return f"unknown policy {name!r}{hint} (registered: {', '.join(known)})"


def make_policy(name: str, **options: Any) -> Policy:
    """A fresh policy object by registry name, with options passed to its constructor."""
    return policy_factory(name)(**options)
