"""Constraint families, listed once per model and provided once per backend.

Each model lists its constraint families in one ordered tuple (``formulations/round/families.py``,
``formulations/offline/families.py``): a name and the section of docs/formulations.md that states
the family. Each backend defines one function ``add_<name>(model, data, v)`` per family and no
other ``add_*`` function besides ``add_variables``; its builder calls them with :func:`apply`, in
the list's order. A family added to one backend only, or to none, fails the build or the tests
(``tests/formulations/test_formulations_round.py``,
``tests/formulations/test_offline_model.py``), so the MILP and CP-SAT models cannot drift apart.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Family:
    """One constraint family of a model.

    Attributes
    ----------
    name
        The family; each backend's function is ``add_<name>``.
    section
        Where docs/formulations.md states it (e.g. ``"§2.4"``).
    reduction
        Whether it only removes dominated schedules (a dominance rule, symmetry breaking or a
        bound), so the model without it has the same optimum: builders can leave it out.
    """

    name: str
    section: str
    reduction: bool = False

    @property
    def function(self) -> str:
        """Name of the family's function in every backend."""
        return f"add_{self.name}"


def functions(backend: ModuleType | str, families: Iterable[Family]) -> list[Callable[..., Any]]:
    """The functions of ``families`` in ``backend`` (a module or its name), in order.

    Raises
    ------
    AttributeError
        Naming the family, if the backend lacks its function.
    """
    module = importlib.import_module(backend) if isinstance(backend, str) else backend
    out = []
    for family in families:
        add = getattr(module, family.function, None)
        if add is None:
            raise AttributeError(
                f"{module.__name__} has no {family.function} for family {family.name!r} "
                f"(docs/formulations.md {family.section})"
            )
        out.append(add)
    return out


def apply(
    backend: ModuleType | str,
    families: Iterable[Family],
    *args: Any,
    reductions: bool = True,
) -> None:
    """Call ``backend``'s function of every family, in order, with ``args`` (model, data,
    variables); without ``reductions`` the families marked as reductions are left out."""
    families = tuple(families)
    for family, add in zip(families, functions(backend, families), strict=True):
        if reductions or not family.reduction:
            add(*args)


def defined(backend: ModuleType) -> set[str]:
    """Names of the family functions ``backend`` defines: its own ``add_*`` functions but
    ``add_variables``."""
    return {
        name
        for name, obj in vars(backend).items()
        if name.startswith("add_")
        and name != "add_variables"
        and inspect.isfunction(obj)
        and obj.__module__ == backend.__name__
    }
