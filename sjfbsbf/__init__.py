"""sjfbsbf: simulate and compare schedulers of deep-learning training jobs on shared GPU clusters.

The public API, loaded on first use (PEP 562) so that ``sjfbsbf --help`` stays fast::

    import sjfbsbf as sb

    instance = sb.read_instance("instances/n4-g2-all-a.json")
    result = sb.simulate(instance, sb.make_policy("sjf-bsbf"))
    table = sb.compare(instance, ["sjf", "sjf-bsbf"])
    sb.plot_gantt(result, "gantt.png")

Everything else is internal to its layer (docs/architecture.md): ``sjfbsbf.core`` (problem
data), ``sjfbsbf.sim`` (simulator), ``sjfbsbf.policies``, ``sjfbsbf.workloads``,
``sjfbsbf.experiments`` and ``sjfbsbf.cli``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sjfbsbf.core.lazy import lazy_exports

if TYPE_CHECKING:
    from sjfbsbf.core.instance_io import read_instance, write_instance
    from sjfbsbf.core.model import Cluster, Instance, Job
    from sjfbsbf.experiments.compare import compare
    from sjfbsbf.experiments.gantt import plot_gantt
    from sjfbsbf.policies import make_policy, policy_names
    from sjfbsbf.sim.beliefs import Beliefs
    from sjfbsbf.sim.result import SimResult
    from sjfbsbf.sim.simulator import simulate

#: Public name -> module that defines it (imported on first use).
_EXPORTS = {
    "Cluster": "sjfbsbf.core.model",
    "Job": "sjfbsbf.core.model",
    "Instance": "sjfbsbf.core.model",
    "read_instance": "sjfbsbf.core.instance_io",
    "write_instance": "sjfbsbf.core.instance_io",
    "simulate": "sjfbsbf.sim.simulator",
    "Beliefs": "sjfbsbf.sim.beliefs",
    "SimResult": "sjfbsbf.sim.result",
    "make_policy": "sjfbsbf.policies",
    "policy_names": "sjfbsbf.policies",
    "compare": "sjfbsbf.experiments.compare",
    "plot_gantt": "sjfbsbf.experiments.gantt",
}

__all__ = [
    "Beliefs",
    "Cluster",
    "Instance",
    "Job",
    "SimResult",
    "__version__",
    "compare",
    "make_policy",
    "plot_gantt",
    "policy_names",
    "read_instance",
    "simulate",
    "write_instance",
]

_exported, __dir__ = lazy_exports(__name__, _EXPORTS, extra=("__version__",))


def __getattr__(name: str) -> Any:
    if name != "__version__":
        return _exported(name)
    from importlib.metadata import version

    globals()[name] = value = version("sjfbsbf")
    return value
