"""What a policy does and which options it takes, read from its code (``sjfbsbf policies``).

The sentence is the first paragraph of the factory's docstring; each option's type and default
come from the constructor's signature and annotations, its meaning from the numpydoc
``Parameters`` section. An entry that documents several names by reference ("As for
:class:`X`", "See :class:`X`") takes each name's own entry from ``X`` where ``X`` has one. Sphinx
markup is removed, so the text reads plainly in a terminal. Nothing is written twice, so nothing
can drift.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import typing
from dataclasses import dataclass
from typing import Any

from sjfbsbf.policies.options import _describe, _type_hints
from sjfbsbf.policies.registry import policy_factory

#: Section headers that end a numpydoc ``Parameters`` section.
_SECTIONS = ("Attributes", "Returns", "Raises", "Notes", "Examples", "See Also", "Methods")
_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc|obj):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_REFERENCE = re.compile(r":class:`~?([\w.]+)`")


@dataclass(frozen=True, slots=True)
class OptionDoc:
    """One option: its name, type and default (as text) and meaning (plain text)."""

    name: str
    type: str
    default: str
    meaning: str


@dataclass(frozen=True, slots=True)
class PolicyDoc:
    """A policy's one-sentence summary and its options, in the constructor's order."""

    name: str
    summary: str
    options: tuple[OptionDoc, ...]


def plain(text: str) -> str:
    """``text`` without Sphinx markup: roles keep their last dotted part, literals their text;
    whitespace is collapsed."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = _LITERAL.sub(r"\1", text)
    return " ".join(text.split())


def policy_doc(name: str) -> PolicyDoc:
    """The summary and options of the registered policy ``name``.

    Raises
    ------
    ValueError
        For an unknown policy (or a plugin that does not load).
    """
    factory = policy_factory(name)
    doc = inspect.getdoc(factory) or ""
    summary = plain(doc.split("\n\n", 1)[0])
    entries = _parameters(doc)
    hints = _type_hints(factory)
    options = []
    for key, parameter in inspect.signature(factory).parameters.items():
        meaning = entries.get(key, "")
        if _REFERENCE.search(meaning) and _is_group(doc, key):
            meaning = _referenced(meaning, key, factory) or meaning
        options.append(
            OptionDoc(
                key,
                _type_text(hints.get(key, Any)),
                "required" if parameter.default is inspect.Parameter.empty else _value(parameter),
                plain(meaning) or "(not documented)",
            )
        )
    return PolicyDoc(name, summary, tuple(options))


def _type_text(hint: Any) -> str:
    if typing.get_origin(hint) in (tuple, list):  # "numbers", not "a number"
        item = (
            _describe((typing.get_args(hint) or (Any,))[0]).removeprefix("a ").removeprefix("an ")
        )
        return f"a list of {item}s"
    text = _describe(hint)
    if type(None) in typing.get_args(hint):
        text += " or none"
    return text


def _value(parameter: inspect.Parameter) -> str:
    value = parameter.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value)
    return str(value)


def _parameters(doc: str) -> dict[str, str]:
    """Name -> raw description of each entry of the docstring's ``Parameters`` section (an
    entry of several comma-separated names gives each the same text)."""
    lines = doc.splitlines()
    try:
        start = next(
            i for i, line in enumerate(lines[:-1])
            if line.strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}
        )  # fmt: skip
    except StopIteration:
        return {}
    entries: dict[str, str] = {}
    names: list[str] = []
    body: list[str] = []

    def close() -> None:
        for key in names:
            entries[key] = " ".join(body)

    for i, line in enumerate(lines[start + 2 :], start + 2):
        if (
            line.strip() in _SECTIONS
            and i + 1 < len(lines)
            and lines[i + 1].strip().startswith("-")
        ):
            break
        if line and not line[0].isspace():  # an entry's header: "a, b : type"
            close()
            names = [n.strip() for n in line.split(":")[0].split(",") if n.strip()]
            body = []
        elif line.strip():
            body.append(line.strip())
    close()
    return entries


def _is_group(doc: str, key: str) -> bool:
    """Whether ``key`` is documented only as one of several names of one entry."""
    return not any(
        line.strip().split(":")[0].strip() == key for line in doc.splitlines() if line.strip()
    )


def _referenced(meaning: str, key: str, factory: Any) -> str | None:
    """``key``'s own entry in the first class ``meaning`` refers to, if it has one."""
    for target in _REFERENCE.findall(meaning):
        found = _resolve(target, factory)
        if found is None:
            continue
        doc = inspect.getdoc(found) or ""
        own = _parameters(doc).get(key)
        if own and not _is_group(doc, key):  # its own entry, not another reference
            return own
    return None


def _resolve(target: str, factory: Any) -> Any:
    """The object a Sphinx target names: a dotted path, or a name in the factory's module."""
    module_name, _, attribute = target.rpartition(".")
    try:
        if module_name:
            return getattr(importlib.import_module(module_name), attribute, None)
    except ImportError:
        return None
    module = sys.modules.get(getattr(factory, "__module__", ""), None)
    return getattr(module, attribute, None) if module is not None else None
