"""Policy options given as plain data, checked against the policy's signature.

:func:`check_options` (a sweep file's TOML values) refuses unknown options, values whose type
does not fit the constructor's annotation, and missing required options, then builds the policy
once so its own checks run. :func:`parse_options` does the same for ``KEY=VALUE`` texts (the
command line's ``-o``), each value parsed by the type of its option.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from sjfbsbf.policies import make_policy, policy_factory


class OptionError(ValueError):
    """A bad option: ``key`` (``None`` for the options as a whole) and ``reason``."""

    def __init__(self, key: str | None, reason: str) -> None:
        super().__init__(reason if key is None else f"{key}: {reason}")
        self.key = key
        self.reason = reason


def check_options(policy: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical options (sorted; ints as floats where a float is expected) of ``policy``.

    Raises
    ------
    ValueError
        For an unknown policy.
    OptionError
        For an unknown option, a value of the wrong type, a missing required option, or a
        value the policy itself refuses (``key=None``).
    """
    factory = policy_factory(policy)
    parameters = inspect.signature(factory).parameters
    hints = _type_hints(factory)
    out: dict[str, Any] = {}
    for key, value in sorted(options.items()):
        if key not in parameters:
            known = ", ".join(parameters) or "none"
            raise OptionError(key, f"unknown option of policy {policy!r} (options: {known})")
        hint = hints.get(key, Any)
        ok, out[key] = _conform(hint, value)
        if not ok:
            raise OptionError(key, f"must be {_describe(hint)}, got {value!r}")
    for key, parameter in parameters.items():
        if parameter.default is inspect.Parameter.empty and key not in out:
            raise OptionError(None, f"policy {policy!r} needs option {key!r}")
    try:
        make_policy(policy, **out)
    except (TypeError, ValueError) as exc:
        raise OptionError(None, str(exc)) from None
    return out


def _type_hints(factory: Any) -> dict[str, Any]:
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        return typing.get_type_hints(target)
    except Exception:  # unresolvable annotations: the policy's own checks still run
        return {}


def _conform(hint: Any, value: Any) -> tuple[bool, Any]:
    """Whether a plain value fits a type hint, and its canonical form."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True, value
    if hint is bool:
        return isinstance(value, bool), value
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            return True, float(value)
        return False, value
    if hint is str:
        return isinstance(value, str), value
    if origin in (typing.Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                ok, canonical = _conform(arg, value)
                if ok:
                    return True, canonical
        return False, value
    if origin in (tuple, list) and isinstance(value, list):
        if origin is tuple and args and (len(args) != 2 or args[1] is not Ellipsis):
            return False, value
        results = [_conform(args[0] if args else Any, v) for v in value]
        return all(ok for ok, _ in results), [v for _, v in results]
    return False, value


def _describe(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(hint) if a is not type(None))
    if typing.get_origin(hint) in (tuple, list):
        return f"a list of {_describe((typing.get_args(hint) or (Any,))[0])}"
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    return names.get(hint, f"a {getattr(hint, '__name__', hint)} (not possible in a sweep file)")


def parse_options(policy: str, texts: Sequence[str]) -> dict[str, Any]:
    """Options of ``policy`` from ``KEY=VALUE`` texts, each value parsed by its option's type.

    ``bool``: ``true`` / ``false``; ``int`` and ``float``: a number; ``str``: the text as is;
    an optional option (``X | None``) also takes ``none``. A key given twice keeps the last.

    Raises
    ------
    ValueError
        For an unknown policy.
    OptionError
        For a text that is not ``KEY=VALUE``, an unknown option (the message lists the valid
        ones), a value its type cannot parse, or a value the policy itself refuses.
    """
    factory = policy_factory(policy)
    parameters = inspect.signature(factory).parameters
    hints = _type_hints(factory)
    out: dict[str, Any] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionError(None, f"expected KEY=VALUE, got {text!r}")
        if key not in parameters:
            known = ", ".join(parameters) or "none"
            raise OptionError(key, f"unknown option of policy {policy!r} (options: {known})")
        hint = hints.get(key, Any)
        ok, out[key] = _parse(hint, value.strip())
        if not ok:
            raise OptionError(key, f"must be {_describe(hint)}, got {value!r}")
    try:
        make_policy(policy, **out)
    except (TypeError, ValueError) as exc:
        raise OptionError(None, str(exc)) from None
    return out


def _parse(hint: Any, text: str) -> tuple[bool, Any]:
    """Whether a command-line text parses as a value of a type hint, and the value."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is str:
        return True, text
    if hint is bool:
        lowered = text.lower()
        return lowered in ("true", "false"), lowered == "true"
    if hint is int:
        try:
            return True, int(text)
        except ValueError:
            return False, text
    if hint is float:
        try:
            value = float(text)
        except ValueError:
            return False, text
        return math.isfinite(value), value
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and text.lower() in ("none", "null"):
            return True, None
        for arg in args:
            if arg is not type(None):
                ok, value = _parse(arg, text)
                if ok:
                    return True, value
    return False, text
