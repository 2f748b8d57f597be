"""Experiments over the simulator: compare policies on an instance, sweeps (local processes or
Ray), gaps to recorded optima, reports and calibration. Above the policies, workloads and
formulations; below the command line. (``compare``, the function, is ``sjfbsbf.compare``: here
the name is the submodule.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from sjfbsbf.experiments.compare import run_policies
    from sjfbsbf.experiments.gantt import plot_gantt
    from sjfbsbf.experiments.gap import GAP_POLICIES, gap_summary, gap_table
    from sjfbsbf.experiments.sweep import collect, load_sweep, run_sweep

#: Public name -> module that defines it (imported on first use, PEP 562).
_EXPORTS = {
    "run_policies": "sjfbsbf.experiments.compare",
    "load_sweep": "sjfbsbf.experiments.sweep",
    "run_sweep": "sjfbsbf.experiments.sweep",
    "collect": "sjfbsbf.experiments.sweep",
    "gap_table": "sjfbsbf.experiments.gap",
    "gap_summary": "sjfbsbf.experiments.gap",
    "GAP_POLICIES": "sjfbsbf.experiments.gap",
    "plot_gantt": "sjfbsbf.experiments.gantt",
}

__all__ = [
    "GAP_POLICIES",
    "collect",
    "gap_summary",
    "gap_table",
    "load_sweep",
    "plot_gantt",
    "run_policies",
    "run_sweep",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
