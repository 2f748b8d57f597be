"""The parameters of sweep workloads: :class:`Param` (a checker, required or not, a default,
whether it names a file), the checkers, the cluster keys, and :class:`ParamError`.

Shared by the workload kinds of :mod:`sjfbsbf.experiments.sweep_workloads` and the trace kinds
of :mod:`sjfbsbf.experiments.sweep_traces`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import MAX_GPU_MEM_GB, MAX_GPUS_PER_NODE, MAX_NODES, Cluster
from sjfbsbf.workloads.datasets import data_ref_file, is_data_ref


class ParamError(ValueError):
    """A bad key of a sweep table: ``key`` and ``reason``."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


@dataclass(frozen=True)
class Param:
    """One key of a sweep table.

    Parameters
    ----------
    check
        Returns the canonical value, or raises :class:`ValueError` saying what is expected.
    required
        The key must be given.
    default
        Filled in when the key is absent (``None``: left absent).
    is_file
        The value is the path of a file the run reads.
    """

    check: Callable[[Any], Any]
    required: bool = False
    default: Any = None
    is_file: bool = False


def integer(low: int, high: int | None = None, *, choices: tuple[int, ...] = ()) -> Callable:
    """Checker of an integer in ``[low, high]`` (or one of ``choices``)."""

    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"must be an integer, got {value!r}")
        if choices and value not in choices:
            raise ValueError(f"must be one of {', '.join(map(str, choices))}, got {value}")
        if value < low or (high is not None and value > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high:,}"
            raise ValueError(f"must be {bound}, got {value}")
        return value

    return check


def number(low: float = 0.0, high: float = math.inf, *, strict: bool = True) -> Callable:
    """Checker of a finite number ``> low`` (``strict``) or ``>= low``, at most ``high``."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"must be a number, got {value!r}")
        if not math.isfinite(value) or value < low or (strict and value == low) or value > high:
            bound = f"{'>' if strict else '>='} {low:g}" + (
                f" and <= {high:g}" if math.isfinite(high) else ""
            )
            raise ValueError(f"must be a finite number {bound}, got {value!r}")
        return float(value)

    return check


def text(*choices: str) -> Callable:
    """Checker of a non-empty string (one of ``choices`` if given)."""

    def check(value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise ValueError(f"must be a non-empty string, got {value!r}")
        if choices and value not in choices:
            raise ValueError(f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value

    return check


def data_file(value: Any) -> str:
    """Checker of a file: a non-empty path, or a reference to a registered dataset's file
    (``data:NAME/FILE``; whether it is fetched is checked when a sweep hashes its inputs)."""
    path = text()(value)
    if is_data_ref(path):
        try:
            data_ref_file(path)
        except InstanceError as exc:
            raise ValueError(str(exc)) from None
    return path


#: The cluster keys: nodes, GPUs per node, GPU memory (GB).
CLUSTER_PARAMS: Mapping[str, Param] = {
    "nodes": Param(integer(1, MAX_NODES), default=4),
    "gpus_per_node": Param(integer(1, MAX_GPUS_PER_NODE), default=8),
    "gpu_mem_gb": Param(number(0.0, MAX_GPU_MEM_GB), default=12.0),
}


def make_cluster(params: Mapping[str, Any], nodes: int | None = None) -> Cluster:
    """The cluster of a canonical workload's cluster keys (``nodes`` overridden if given)."""
    return Cluster(
        nodes=params["nodes"] if nodes is None else nodes,
        gpus_per_node=params["gpus_per_node"],
        gpu_mem_gb=params["gpu_mem_gb"],
    )
