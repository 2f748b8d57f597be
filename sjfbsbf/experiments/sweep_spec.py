"""Sweep files: parse and check the whole definition before anything runs; key every run.

A run's key hashes everything that determines its result: the policy and its options, the
workload (defaults filled in), the content of every file the run reads, the seed, the simulator
options (defaults filled in) and the code (package version + a hash of the package sources).
A file named by dataset reference (``data:NAME/FILE``) is keyed by the reference and the content
of the fetched file, so a key does not depend on where the cache is. The label and the sweep's
name are not part of it: they are attached when results are collected, so renaming a variant
relabels its rows without running anything again.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sjfbsbf.core.errors import InstanceError, SweepError
from sjfbsbf.core.inputs import check_input
from sjfbsbf.core.jsonio import read_json, read_text
from sjfbsbf.experiments.fingerprint import code_version, file_digest
from sjfbsbf.experiments.sweep_sim import SIM_PARAMS, run_sim_options
from sjfbsbf.experiments.sweep_workloads import (
    WORKLOAD_PARAMS,
    Param,
    ParamError,
    canonical_workload,
    check_inputs,
    input_files,
)
from sjfbsbf.policies import policy_factory
from sjfbsbf.policies.options import OptionError, check_options
from sjfbsbf.workloads.archive import is_archive
from sjfbsbf.workloads.datasets import resolve_data_path

_TOP_KEYS = ("name", "description", "seeds", "workloads", "sim", "variants")
_VARIANT_KEYS = ("label", "policy", "options", "sim")
#: A sweep name: it becomes a directory under ``results/``.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_MAX_SEED = 2**63 - 1
#: Most runs a sweep file may expand to without ``--max-runs`` (docs/security.md).
MAX_RUNS = 100_000
#: Input file (path or dataset reference) -> (the file read, its size, its mtime in ns).
_Stamps = dict[str, tuple[str, int, int]]


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a sweep: a workload, a seed, a policy variant, simulator parameters.

    ``inputs`` pairs every file the run reads (its path or dataset reference, as written) with
    the SHA-256 of its content; ``code`` is :func:`code_version`. ``stamps`` (the file read, its
    size and modification time when it was hashed) let a run notice an input edited while the
    sweep runs; they are not part of the key.
    """

    sweep: str
    workload: dict[str, Any]
    seed: int
    label: str
    policy: str
    options: dict[str, Any] = field(default_factory=dict)
    sim: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[tuple[str, str], ...] = ()
    code: str = ""
    stamps: tuple[tuple[str, int, int], ...] = field(default=(), compare=False)

    def config(self) -> dict[str, Any]:
        """Everything that determines the run's outcome (not the label, not the sweep name)."""
        return {
            "workload": self.workload,
            "seed": self.seed,
            "policy": self.policy,
            "options": self.options,
            "sim": self.sim,
            "inputs": dict(self.inputs),
            "code": self.code,
        }

    @cached_property
    def key(self) -> str:
        """Stable hash of :meth:`config`."""
        text = json.dumps(self.config(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> str:
        """Short human description: label, seed, key."""
        return f"{self.label} seed {self.seed} [{self.key}]"


@dataclass(frozen=True)
class Sweep:
    """A parsed, checked sweep file.

    ``inputs`` maps every file a run reads to the SHA-256 of its content; ``code`` is
    :func:`code_version` at load time.
    """

    name: str
    runs: tuple[RunSpec, ...]
    source: str
    text: str
    inputs: Mapping[str, str] = field(default_factory=dict)
    code: str = ""

    @property
    def config_hash(self) -> str:
        """Hash of the sweep file's text."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def load_sweep(path: str | os.PathLike[str], *, max_runs: int | None = None) -> Sweep:
    """Parse and check a sweep TOML file; hash its input files and the code once.

    ``max_runs`` (default :data:`MAX_RUNS`): the most runs the file may expand to; counted before
    anything is expanded, so a small file of huge lists is refused at once (docs/security.md).

    Raises
    ------
    SweepError
        Naming the file and the key at fault: unreadable or not UTF-8 TOML, unknown keys at any
        level, unknown policies or policy options, wrong types, empty lists, duplicate seeds,
        labels or runs, a name that is not a plain directory name, an unreadable input file, a
        dataset reference to an unknown or not yet fetched dataset, a trace window larger than
        its trace, more runs than ``max_runs``.
    """
    source = str(path)
    try:
        text = read_text(path)
    except InstanceError as exc:
        raise SweepError(exc.message, source=source) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"not valid TOML ({exc})", source=source) from None
    except RecursionError:
        raise SweepError("not valid TOML (nested too deeply)", source=source) from None
    return _Parser(source, MAX_RUNS if max_runs is None else max_runs).sweep(
        data, text, Path(path).stem
    )


class _Parser:
    """Checks a parsed sweep file; every error names the file and the dotted key."""

    def __init__(self, source: str, max_runs: int = 0) -> None:
        self.source = source
        self.max_runs = max_runs or MAX_RUNS
        self.catalogs: dict[str, Any] = {}  # instance file -> its "catalog" value (check_alpha)

    def error(self, message: str, key: str | None = None) -> SweepError:
        return SweepError(message, source=self.source, key=key)

    def sweep(self, data: dict[str, Any], text_: str, stem: str) -> Sweep:
        self.keys(data, _TOP_KEYS, None)
        name = self.name(data.get("name", stem), "name" in data)
        if not isinstance(data.get("description", ""), str):
            raise self.error("must be a string", "description")
        seeds = self.seeds(data.get("seeds", [0]))
        sims = self.points(self.table(data.get("sim", {}), "sim"), SIM_PARAMS, "sim")
        variants = self.variants(self.tables(data, "variants"))
        workloads = self.workloads(self.tables(data, "workloads"))
        self.cap(len(workloads) * len(sims) * len(seeds) * len(variants), None)
        hashes, stamps = self.hash_inputs(workloads)
        code = code_version()
        runs: list[RunSpec] = []
        for workload, where in workloads:
            for sim_point, seed, (label, policy, options, sim) in itertools.product(
                sims, seeds, variants
            ):
                run_sim = self.run_sim(sim_point | sim)
                self.check_estimates(workload, where, run_sim)
                if "alpha" in run_sim:
                    self.check_alpha(workload, where, hashes, stamps)
                files = input_files(workload, run_sim)
                table = run_sim.get("throughputs")  # read by the measured interference
                if table is not None and table not in hashes:
                    self.hash_file(table, "sim.throughputs", hashes, stamps)
                runs.append(
                    RunSpec(
                        sweep=name,
                        workload=workload,
                        seed=seed,
                        label=label,
                        policy=policy,
                        options=options,
                        sim=dict(sorted(run_sim.items())),
                        inputs=tuple((f, hashes[f]) for f in files),
                        code=code,
                        stamps=tuple(stamps[f] for f in files),
                    )
                )
        seen: dict[str, RunSpec] = {}
        for run in runs:
            if run.key in seen:
                raise self.error(
                    f"runs {seen[run.key].describe()} and {run.describe()} are the same run "
                    "(same workload, simulator options, seed, policy and options)"
                )
            seen[run.key] = run
        return Sweep(name, tuple(runs), self.source, text_, dict(sorted(hashes.items())), code)

    def run_sim(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A run's ``[sim]`` options (:func:`~sjfbsbf.experiments.sweep_sim.run_sim_options`)."""
        try:
            return run_sim_options(given)
        except ParamError as exc:
            raise self.error(exc.reason, _join("sim", exc.key) if exc.key else "sim") from None

    def check_estimates(
        self, workload: Mapping[str, Any], where: str, sim: Mapping[str, Any]
    ) -> None:
        """The ``user`` estimator reads every job's ``estimate``: refuse it on a generated
        workload or a Gavel trace, which carry none (instance files and trace tables may)."""
        estimator = sim.get("estimator", "oracle")
        if estimator.partition(":")[0] == "user" and workload["kind"] not in ("file", "table"):
            raise self.error(
                f"estimator 'user' reads every job's estimate; workload kind "
                f"{workload['kind']!r} has none (instance files and trace tables may)",
                f"{where}.kind",
            )

    def check_alpha(
        self, workload: Mapping[str, Any], where: str, hashes: dict[str, str], stamps: _Stamps
    ) -> None:
        """``alpha`` rebuilds a ``default``-catalog instance: refuse an instance file naming
        another catalog (every other kind builds its instance on ``default``)."""
        if workload["kind"] != "file":
            return
        ref = str(workload["path"])
        if ref not in self.catalogs:
            if ref not in stamps:
                self.hash_file(ref, f"{where}.path", hashes, stamps)
            try:
                data = read_json(stamps[ref][0])
            except InstanceError as exc:
                raise self.error(str(exc), f"{where}.path") from None
            given = data.get("catalog", "default") if isinstance(data, dict) else "default"
            self.catalogs[ref] = given
        catalog = self.catalogs[ref]
        if catalog != "default":
            raise self.error(
                f"applies only to instances of catalog 'default'; {where} ({ref}) is of "
                f"catalog {catalog!r}",
                "sim.alpha",
            )

    def hash_file(
        self,
        ref: str,
        key: str,
        hashes: dict[str, str],
        stamps: _Stamps,
    ) -> None:
        """Hash the file ``ref`` names (a path, or a fetched dataset's file) under ``ref``."""
        try:
            path = str(resolve_data_path(ref))
        except InstanceError as exc:  # unknown, or not fetched: say how to fetch it
            raise self.error(str(exc), key) from None
        if os.path.exists(path):  # a FIFO would block the hash, a 2 GB table take 9 s first
            try:
                check_input(path, whole=not is_archive(path))
            except InstanceError as exc:
                raise self.error(str(exc), key) from None
        try:
            hashes[ref], (size, mtime_ns) = file_digest(path)
        except OSError as exc:
            shown = path if path == ref else f"{ref} ({path})"
            raise self.error(f"cannot read {shown}: {exc.strerror or exc}", key) from None
        stamps[ref] = (path, size, mtime_ns)

    def keys(self, table: Mapping[str, Any], allowed: tuple[str, ...], where: str | None) -> None:
        for key in table:
            if key not in allowed:
                raise self.error(f"unknown key (allowed: {', '.join(allowed)})", _join(where, key))

    def name(self, name: Any, given: bool) -> str:
        if isinstance(name, str) and _NAME.fullmatch(name) and ".." not in name:
            return name
        why = "the file name" if not given else "the name"
        raise self.error(
            f"{why} {name!r} is not a plain directory name (letters, digits, '.', '_', '-'; "
            "no path separators, no '..'); give name = \"...\"",
            "name",
        )

    def cap(self, count: int, where: str | None) -> None:
        """Refuse ``count`` runs (or points of one table) above :attr:`max_runs`."""
        if count > self.max_runs:
            raise self.error(
                f"expands to {count:,} runs, more than the limit of {self.max_runs:,} "
                "(sjfbsbf sweep --max-runs N raises it)",
                where,
            )

    def seeds(self, seeds: Any) -> list[int]:
        if not isinstance(seeds, list) or not seeds:
            raise self.error(f"must be a non-empty list of integers, got {seeds!r}", "seeds")
        self.cap(len(seeds), "seeds")
        seen: set[int] = set()
        for index, seed in enumerate(seeds):
            if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _MAX_SEED:
                raise self.error(f"must be an integer >= 0, got {seed!r}", f"seeds[{index}]")
            if seed in seen:
                raise self.error(f"duplicate seed {seed}", f"seeds[{index}]")
            seen.add(seed)
        return seeds

    def table(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(f"must be a table, got {value!r}", where)
        return value

    def tables(self, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
        value = data.get(key)
        if not isinstance(value, list) or not value:
            raise self.error(f"needs at least one [[{key}]] table", key)
        return [self.table(item, f"{key}[{i}]") for i, item in enumerate(value)]

    def points(
        self, table: Mapping[str, Any], params: Mapping[str, Param], where: str
    ) -> list[dict[str, Any]]:
        """The product over list values of ``table`` (each value checked, lists non-empty)."""
        self.keys(table, tuple(params), where)
        count = math.prod(len(v) if isinstance(v, list) else 1 for v in table.values())
        self.cap(count, where)  # before anything is expanded
        axes: list[list[Any]] = []
        for key in table:
            value = table[key]
            values = value if isinstance(value, list) else [value]
            if not values:
                raise self.error("empty list: the sweep would have no runs", _join(where, key))
            checked: list[Any] = []
            seen: set[str] = set()
            for index, item in enumerate(values):
                at = _join(where, key) + (f"[{index}]" if isinstance(value, list) else "")
                try:
                    checked.append(params[key].check(item))
                except ValueError as exc:
                    raise self.error(str(exc), at) from None
                marker = repr(checked[-1])
                if marker in seen:
                    raise self.error(f"duplicate value {item!r}", at)
                seen.add(marker)
            axes.append(checked)
        return [dict(zip(table, combo, strict=True)) for combo in itertools.product(*axes)]

    def workloads(self, tables: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
        out: list[tuple[dict[str, Any], str]] = []
        seen: dict[str, str] = {}  # canonical workload -> where it was given
        for index, table in enumerate(tables):
            where = f"workloads[{index}]"
            kind = table.get("kind")
            if not isinstance(kind, str) or kind not in WORKLOAD_PARAMS:
                known = ", ".join(WORKLOAD_PARAMS)
                reason = f"unknown or missing workload kind {kind!r} (known: {known})"
                raise self.error(reason, f"{where}.kind")
            rest = {k: v for k, v in table.items() if k != "kind"}
            for key in rest:
                if key not in WORKLOAD_PARAMS[kind]:
                    allowed = ", ".join(["kind", *WORKLOAD_PARAMS[kind]])
                    reason = f"unknown key for kind {kind!r} (allowed: {allowed})"
                    raise self.error(reason, f"{where}.{key}")
            for point in self.points(rest, WORKLOAD_PARAMS[kind], where):
                try:
                    workload = canonical_workload({"kind": kind, **point})
                except ParamError as exc:
                    raise self.error(exc.reason, f"{where}.{exc.key}") from None
                marker = json.dumps(workload, sort_keys=True, default=str)
                if marker in seen:
                    raise self.error(f"gives the same workload as {seen[marker]}", where)
                seen[marker] = where
                out.append((workload, where))
        return out

    def variants(self, tables: list[dict[str, Any]]) -> list[tuple[str, str, dict, dict]]:
        out: list[tuple[str, str, dict, dict]] = []
        for index, table in enumerate(tables):
            where = f"variants[{index}]"
            self.keys(table, _VARIANT_KEYS, where)
            policy = table.get("policy")
            if not isinstance(policy, str):
                raise self.error(f"missing or not a string: {policy!r}", f"{where}.policy")
            try:
                policy_factory(policy)
            except ValueError as exc:
                raise self.error(str(exc), f"{where}.policy") from None
            label = table.get("label", policy)
            if not isinstance(label, str) or not label or not label.isprintable():
                raise self.error(
                    f"must be a non-empty printable string, got {label!r}", f"{where}.label"
                )
            options_table = self.table(table.get("options", {}), f"{where}.options")
            options = self.options(policy, options_table, where)
            sim_table = self.table(table.get("sim", {}), f"{where}.sim")
            for value in sim_table.values():
                if isinstance(value, list):
                    raise self.error("lists sweep only in [sim], not in a variant", f"{where}.sim")
            (sim,) = self.points(sim_table, SIM_PARAMS, f"{where}.sim")
            for other_label, other_policy, other_options, other_sim in out:
                if other_label == label:
                    raise self.error(f"duplicate label {label!r}", f"{where}.label")
                if (other_policy, other_options, other_sim) == (policy, options, sim):
                    raise self.error(f"same policy, options and sim as {other_label!r}", where)
            out.append((label, policy, options, sim))
        return out

    def options(self, policy: str, options: dict[str, Any], where: str) -> dict[str, Any]:
        try:
            return check_options(policy, options)
        except OptionError as exc:
            key = f"{where}.options" + ("" if exc.key is None else f".{exc.key}")
            raise self.error(exc.reason, key) from None

    def hash_inputs(
        self, workloads: list[tuple[dict[str, Any], str]]
    ) -> tuple[dict[str, str], _Stamps]:
        """SHA-256 of every input file (once each), and the file read with its size and
        modification time; then the workload checks that need the files' content."""
        hashes: dict[str, str] = {}
        stamps: _Stamps = {}
        for workload, where in workloads:
            params = WORKLOAD_PARAMS[workload["kind"]]
            for ref in input_files(workload, {}):
                if ref not in hashes:
                    key = next(
                        k for k in sorted(params) if params[k].is_file and workload[k] == ref
                    )
                    self.hash_file(ref, f"{where}.{key}", hashes, stamps)
            try:
                check_inputs(workload, {ref: stamps[ref][0] for ref in input_files(workload, {})})
            except ParamError as exc:
                raise self.error(exc.reason, f"{where}.{exc.key}") from None
            except InstanceError as exc:  # a malformed trace, found while counting its jobs
                raise self.error(str(exc), f"{where}.trace") from None
        return hashes, stamps


def _join(where: str | None, key: str) -> str:
    return key if where is None else f"{where}.{key}"
