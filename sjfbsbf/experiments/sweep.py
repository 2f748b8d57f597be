"""Sweeps: a TOML file of workloads × seeds × policy variants × parameters (docs/model.md §9).

A sweep file looks like::

    name = "testbed"          # the output goes to results/<name>: a plain directory name
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

The whole file is checked before anything runs (:mod:`sjfbsbf.experiments.sweep_spec`):
unknown keys at every level, unknown policies and options, wrong types, empty lists, duplicate
seeds, labels or runs are one :class:`~sjfbsbf.core.errors.SweepError` naming the file and the key.

Every run is identified by a key that hashes everything that determines its result, the content
of the files it reads and the code included, but not its label. Each run ends as
``runs/<key>.json`` (``ok`` with its row, or ``failed`` with its error), written at once and
atomically, so a killed sweep loses nothing finished and a rerun skips what is done and retries
what failed; ``results.parquet`` (and ``results.csv``) and ``manifest.json`` are rewritten at the
end from the records of the current file's keys (:mod:`sjfbsbf.experiments.sweep_run`).

This module gathers the public names of :mod:`sjfbsbf.experiments.sweep_spec`,
:mod:`sjfbsbf.experiments.sweep_workloads` and :mod:`sjfbsbf.experiments.sweep_run`.
"""

from __future__ import annotations

import os
from pathlib import Path

from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments.sweep_records import RUN_SCHEMA, attempt, execute, read_record
from sjfbsbf.experiments.sweep_run import collect, run_sweep
from sjfbsbf.experiments.sweep_spec import SIM_PARAMS, RunSpec, Sweep, code_version, load_sweep
from sjfbsbf.experiments.sweep_workloads import (
    WORKLOAD_PARAMS,
    WORKLOADS,
    build_instance,
    input_files,
)
from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS

#: Where sweeps write by default: ``results/<sweep name>``.
RESULTS_DIR = Path("results")

__all__ = [
    "DEFAULT_THROUGHPUTS",
    "RESULTS_DIR",
    "RUN_SCHEMA",
    "SIM_PARAMS",
    "WORKLOADS",
    "WORKLOAD_PARAMS",
    "RunSpec",
    "Sweep",
    "attempt",
    "build_instance",
    "code_version",
    "collect",
    "default_out_dir",
    "execute",
    "input_files",
    "load_sweep",
    "read_record",
    "run_sweep",
]


def default_out_dir(sweep: Sweep, root: Path = RESULTS_DIR) -> Path:
    """``root/<sweep name>``, refusing a name that would place it anywhere else.

    Raises
    ------
    SweepError
        If the name is not a single plain path component inside ``root``.
    """
    target = root / sweep.name
    inside = Path(os.path.abspath(target)).parent == Path(os.path.abspath(root))
    if not inside or sweep.name in ("", ".", "..") or Path(sweep.name).name != sweep.name:
        raise SweepError(
            f"sweep name {sweep.name!r} would write outside {root}/",
            source=sweep.source,
            key="name",
        )
    return target
