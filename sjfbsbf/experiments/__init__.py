"""Experiments over the simulator: compare policies on an instance, sweeps (local processes or
Ray), gaps to recorded optima, reports and calibration. Above the policies, workloads and
formulations; below the command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sjfbsbf.experiments.compare import compare, run_policies
    from sjfbsbf.experiments.gap import GAP_POLICIES, gap_summary, gap_table
    from sjfbsbf.experiments.sweep import collect, load_sweep, run_sweep

#: Public name -> module that defines it (imported on first use, PEP 562).
_EXPORTS = {
    "compare": "sjfbsbf.experiments.compare",
    "run_policies": "sjfbsbf.experiments.compare",
    "load_sweep": "sjfbsbf.experiments.sweep",
    "run_sweep": "sjfbsbf.experiments.sweep",
    "collect": "sjfbsbf.experiments.sweep",
    "gap_table": "sjfbsbf.experiments.gap",
    "gap_summary": "sjfbsbf.experiments.gap",
    "GAP_POLICIES": "sjfbsbf.experiments.gap",
}

__all__ = [
    "GAP_POLICIES",
    "collect",
    "compare",
    "gap_summary",
    "gap_table",
    "load_sweep",
    "run_policies",
    "run_sweep",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
