"""Lazy package exports (PEP 562): a package root names its public API without importing it.

A package's ``__init__`` calls :func:`lazy_exports` with ``{public name: "module"}`` (or
``"module:attribute"`` when the name differs) and binds the returned ``__getattr__`` and
``__dir__``; the module is imported on first access and the value cached in the package. This
keeps ``sjfbsbf --help`` from importing pandas, the simulator or the solvers.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], extra: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` exporting ``exports`` on first use.

    Parameters
    ----------
    package
        The package's ``__name__``.
    exports
        Public name -> ``"module"`` or ``"module:attribute"``.
    extra
        Further public names the package defines itself (listed by ``__dir__``).
    """

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports) | set(extra))

    return __getattr__, __dir__
