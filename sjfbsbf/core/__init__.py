"""The problem data: cluster, jobs and instances, the model catalog and performance model,
interference models and their presets, instance files, errors (docs/model.md §1–§3, §8).

The bottom layer: it imports nothing else from the toolkit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from sjfbsbf.core.catalog import get_catalog
    from sjfbsbf.core.errors import InstanceError
    from sjfbsbf.core.instance_io import read_instance, write_instance
    from sjfbsbf.core.interference import ContentionModel, Interference
    from sjfbsbf.core.model import Cluster, Instance, Job
    from sjfbsbf.core.presets import INTERFERENCE_PRESETS, make_interference

#: Public name -> module that defines it (imported on first use, PEP 562).
_EXPORTS = {
    "Cluster": "sjfbsbf.core.model",
    "Job": "sjfbsbf.core.model",
    "Instance": "sjfbsbf.core.model",
    "read_instance": "sjfbsbf.core.instance_io",
    "write_instance": "sjfbsbf.core.instance_io",
    "InstanceError": "sjfbsbf.core.errors",
    "get_catalog": "sjfbsbf.core.catalog",
    "Interference": "sjfbsbf.core.interference",
    "ContentionModel": "sjfbsbf.core.interference",
    "make_interference": "sjfbsbf.core.presets",
    "INTERFERENCE_PRESETS": "sjfbsbf.core.presets",
}

__all__ = [
    "INTERFERENCE_PRESETS",
    "Cluster",
    "ContentionModel",
    "Instance",
    "InstanceError",
    "Interference",
    "Job",
    "get_catalog",
    "make_interference",
    "read_instance",
    "write_instance",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
