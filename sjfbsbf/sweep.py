"""Sweeps: a TOML file of workloads × seeds × policy variants × parameters (DESIGN §6).

A sweep file looks like::

    name = "testbed"
    seeds = [0, 1, 2]

    [[workloads]]
    kind = "testbed"          # default | testbed | gavel | file
    n_jobs = [30, 61]         # a list sweeps over its values

    [sim]                     # simulate() parameters (lists sweep too)
    interference = "time-slicing"

    [[variants]]              # one per policy setting compared
    label = "sjf-bsbf"
    policy = "sjf-bsbf"
    options = { wait_aware = false }

Every run is identified by a hash of its full configuration. Each finished run is written at once,
atomically, as ``runs/<key>.json`` under the output directory, so a killed sweep loses nothing
finished and a rerun skips what is done; ``results.parquet`` (and ``results.csv``) and
``manifest.json`` are rewritten atomically from those files at the end.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import platform
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sjfbsbf.atomic import atomic_path, write_text_atomic
from sjfbsbf.instance_io import read_instance
from sjfbsbf.interference import make_interference
from sjfbsbf.model import Cluster, Instance
from sjfbsbf.policies import make_policy
from sjfbsbf.simulator import DEFAULT_RESTART_OVERHEAD, check_sim_parameters, simulate
from sjfbsbf.ticks import DEFAULT_INTERVAL
from sjfbsbf.workloads.gavel import (
    GavelThroughputs,
    load_gavel_trace,
    load_throughputs,
    slice_trace,
)
from sjfbsbf.workloads.generators import (
    WorkloadSpec,
    generate,
    offered_load,
    testbed_workload,
)

_SIM_KEYS = {"dt", "interval", "restart_overhead", "interference"}


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a sweep: a workload, a seed, a policy variant, simulator parameters."""

    sweep: str
    workload: dict[str, Any]
    seed: int
    label: str
    policy: str
    options: dict[str, Any] = field(default_factory=dict)
    sim: dict[str, Any] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        """Everything that determines the run's outcome."""
        return {
            "workload": self.workload,
            "seed": self.seed,
            "policy": self.policy,
            "options": self.options,
            "sim": self.sim,
        }

    @property
    def key(self) -> str:
        """Stable hash of :meth:`config`."""
        text = json.dumps(self.config(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep file."""

    name: str
    runs: tuple[RunSpec, ...]
    source: str
    text: str

    @property
    def config_hash(self) -> str:
        """Hash of the sweep file's text."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Parse a sweep TOML file into its runs.

    Raises
    ------
    ValueError
        Naming the file and the offending key.
    """
    source = str(path)
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML ({exc})") from None
    unknown = set(data) - {"name", "seeds", "workloads", "sim", "variants", "description"}
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {sorted(unknown)}")
    name = str(data.get("name", Path(path).stem))
    seeds = data.get("seeds", [0])
    if not isinstance(seeds, list) or not all(isinstance(s, int) for s in seeds):
        raise ValueError(f"{source}: 'seeds' must be a list of integers")
    workloads = data.get("workloads")
    variants = data.get("variants")
    if not workloads or not variants:
        raise ValueError(f"{source}: needs at least one [[workloads]] and one [[variants]]")
    sim = data.get("sim", {})
    if set(sim) - _SIM_KEYS:
        raise ValueError(f"{source}: unknown [sim] key(s) {sorted(set(sim) - _SIM_KEYS)}")
    runs: list[RunSpec] = []
    for workload in workloads:
        if "kind" not in workload:
            raise ValueError(f"{source}: every [[workloads]] needs a 'kind'")
        for wl in _expand(workload):
            for sim_point in _expand(sim):
                for seed in seeds:
                    for variant in variants:
                        if "policy" not in variant:
                            raise ValueError(f"{source}: every [[variants]] needs a 'policy'")
                        _check_sim(source, {**sim_point, **variant.get("sim", {})})
                        runs.append(
                            RunSpec(
                                sweep=name,
                                workload=wl,
                                seed=seed,
                                label=str(variant.get("label", variant["policy"])),
                                policy=str(variant["policy"]),
                                options=dict(variant.get("options", {})),
                                sim={**sim_point, **variant.get("sim", {})},
                            )
                        )
    return Sweep(name=name, runs=tuple(runs), source=source, text=text)


def _check_sim(source: str, sim: dict[str, Any]) -> None:
    """Refuse simulator parameters :func:`simulate` would reject (e.g. dt > interval)."""
    try:
        check_sim_parameters(
            float(sim.get("dt", 1.0)),
            float(sim.get("interval", DEFAULT_INTERVAL)),
            float(sim.get("restart_overhead", DEFAULT_RESTART_OVERHEAD)),
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{source}: [sim] {exc}") from None


def _expand(table: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Cartesian product over the list-valued entries of ``table``."""
    keys = sorted(table)
    values = [v if isinstance(v, list) else [v] for v in (table[k] for k in keys)]
    for combo in itertools.product(*values):
        yield dict(zip(keys, combo, strict=True))


# -- workloads --------------------------------------------------------------------------------
def _cluster(params: dict[str, Any]) -> Cluster:
    return Cluster(
        nodes=int(params.get("nodes", 4)),
        gpus_per_node=int(params.get("gpus_per_node", 8)),
        gpu_mem_gb=float(params.get("gpu_mem_gb", 12.0)),
    )


def _default(params: dict[str, Any], seed: int) -> Instance:
    spec = WorkloadSpec(
        n_jobs=int(params.get("n_jobs", 200)),
        cluster=_cluster(params),
        load=float(params.get("load", 0.8)) * float(params.get("rate_factor", 1.0)),
    )
    return generate(spec, np.random.default_rng(seed))


def _testbed(params: dict[str, Any], seed: int) -> Instance:
    return testbed_workload(
        int(params.get("n_jobs", 30)), np.random.default_rng(seed), cluster=_cluster(params)
    )


#: Where the shared reference data sits, relative to the repository root.
DEFAULT_THROUGHPUTS = "../shared/data/gavel/simulation_throughputs.json"


@functools.lru_cache(maxsize=4)
def _throughputs(path: str) -> GavelThroughputs:
    return load_throughputs(path)


def _gavel(params: dict[str, Any], seed: int) -> Instance:
    """A Gavel/Philly trace (optionally its ``first`` N jobs) on a cluster sized for
    ``target_load`` (default 0.75).

    The cluster gets the fewest whole nodes whose offered load (exclusive GPU-time ÷ GPUs ×
    arrival span) is at most ``target_load``; jobs larger than it are capped to its size
    (:class:`~sjfbsbf.workloads.gavel.LoadReport` counts them). The seed does not change a
    trace: sweep over ``trace`` files instead.
    """
    del seed
    table = _throughputs(str(params.get("throughputs", DEFAULT_THROUGHPUTS)))
    per_node = int(params.get("gpus_per_node", 8))
    mode = str(params.get("mode", "catalog"))
    path = str(params["trace"])
    first = params.get("first")
    mem = float(params.get("gpu_mem_gb", 12.0))

    def load(cluster: Cluster) -> Instance:
        instance = load_gavel_trace(path, table, cluster=cluster, mode=mode)  # type: ignore[arg-type]
        return instance if first is None else slice_trace(instance, first=int(first))

    probe = load(Cluster(nodes=1024, gpus_per_node=per_node, gpu_mem_gb=mem))
    target = float(params.get("target_load", 0.75))
    nodes = max(1, math.ceil(offered_load(probe, per_node) / target))
    return load(Cluster(nodes=nodes, gpus_per_node=per_node, gpu_mem_gb=mem))


def _file(params: dict[str, Any], seed: int) -> Instance:
    del seed
    return read_instance(params["path"])


WORKLOADS: dict[str, Callable[[dict[str, Any], int], Instance]] = {
    "default": _default,
    "testbed": _testbed,
    "file": _file,
    "gavel": _gavel,
}


def build_instance(workload: dict[str, Any], seed: int) -> Instance:
    """The instance a workload description and seed stand for."""
    params = dict(workload)
    kind = params.pop("kind")
    try:
        builder = WORKLOADS[kind]
    except KeyError:
        raise ValueError(f"unknown workload kind {kind!r}; known: {sorted(WORKLOADS)}") from None
    return builder(params, seed)


# -- running ----------------------------------------------------------------------------------
def execute(run: RunSpec) -> dict[str, Any]:
    """Simulate one run and return its results row (plain JSON-able values)."""
    instance = build_instance(run.workload, run.seed)
    sim = dict(run.sim)
    interference = make_interference(str(sim.pop("interference", "time-slicing")))
    policy = make_policy(run.policy, **run.options)
    started = time.perf_counter()
    result = simulate(instance, policy, interference=interference, record_segments=False, **sim)
    runtime = time.perf_counter() - started
    row: dict[str, Any] = {
        "key": run.key,
        "sweep": run.sweep,
        "label": run.label,
        "policy": run.policy,
        "options": json.dumps(run.options, sort_keys=True),
        "seed": run.seed,
        "n_jobs": instance.num_jobs,
        "num_gpus": instance.cluster.num_gpus,
        "runtime_s": runtime,
        "stats": json.dumps(result.stats, sort_keys=True, default=str),
    }
    row.update({f"wl_{k}": v for k, v in run.workload.items()})
    row.update({f"sim_{k}": v for k, v in run.sim.items()})
    row.update(result.metrics)
    return row


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    *,
    workers: int = 1,
    backend: str = "local",
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Run every unfinished run of ``sweep``; return the full results table.

    Parameters
    ----------
    sweep
        The sweep.
    out_dir
        Output directory: ``runs/`` (one JSON per finished run), ``results.parquet``,
        ``results.csv``, ``manifest.json``.
    workers
        Parallel processes (``local``) or concurrent tasks (``ray``).
    backend
        ``"local"`` (processes) or ``"ray"`` (needs the ``ray`` extra; uses the cluster that
        ``ray.init()`` connects to, e.g. via ``RAY_ADDRESS``).
    progress
        Called as ``progress(done, total)`` after each run.
    """
    out = Path(out_dir)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    todo = [r for r in sweep.runs if not (runs_dir / f"{r.key}.json").exists()]
    done = len(sweep.runs) - len(todo)
    total = len(sweep.runs)
    if progress is not None:
        progress(done, total)

    def finished(row: dict[str, Any]) -> None:
        nonlocal done
        write_text_atomic(runs_dir / f"{row['key']}.json", json.dumps(row, default=float))
        done += 1
        if progress is not None:
            progress(done, total)

    if backend == "ray":
        _run_ray(todo, workers, finished)
    elif backend == "local":
        _run_local(todo, workers, finished)
    else:
        raise ValueError(f"unknown backend {backend!r}; use 'local' or 'ray'")
    table = collect(sweep, out)
    _write_manifest(sweep, out, backend)
    return table


def _run_local(
    todo: list[RunSpec], workers: int, finished: Callable[[dict[str, Any]], None]
) -> None:
    if workers <= 1:
        for run in todo:
            finished(execute(run))
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(execute, run) for run in todo]
        for future in as_completed(futures):
            finished(future.result())


def _run_ray(todo: list[RunSpec], workers: int, finished: Callable[[dict[str, Any]], None]) -> None:
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "the ray backend needs the optional extra: pip install 'sjfbsbf[ray]'"
        ) from None
    if not ray.is_initialized():
        ray.init()
    remote = ray.remote(execute)
    pending = [remote.remote(run) for run in todo[: max(workers, 1)]]
    queue = list(todo[max(workers, 1) :])
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        finished(ray.get(ready[0]))
        if queue:
            pending.append(remote.remote(queue.pop(0)))


def collect(sweep: Sweep, out_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Gather the finished runs of ``sweep`` into ``results.parquet`` and ``results.csv``."""
    out = Path(out_dir)
    rows = []
    for run in sweep.runs:
        path = out / "runs" / f"{run.key}.json"
        if path.exists():
            rows.append(json.loads(path.read_text(encoding="utf-8")))
    table = pd.DataFrame(rows)
    _write_table_atomic(table, out / "results.parquet")
    write_text_atomic(out / "results.csv", table.to_csv(index=False))
    return table


def _write_table_atomic(table: pd.DataFrame, path: Path) -> None:
    with atomic_path(path) as tmp:
        table.to_parquet(tmp, index=False)


def _write_manifest(sweep: Sweep, out: Path, backend: str) -> None:
    from importlib.metadata import PackageNotFoundError, version

    versions: dict[str, str | None] = {}
    for package in ("sjfbsbf", "numpy", "pandas", "ortools", "pulp", "highspy"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    manifest = {
        "sweep": sweep.name,
        "source": sweep.source,
        "config_hash": sweep.config_hash,
        "config": sweep.text,
        "runs": len(sweep.runs),
        "seeds": sorted({r.seed for r in sweep.runs}),
        "backend": backend,
        "python": platform.python_version(),
        "versions": versions,
    }
    write_text_atomic(out / "manifest.json", json.dumps(manifest, indent=1))
