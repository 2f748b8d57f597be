"""SenseTime's Helios traces (S-Lab-System-Group/HeliosData, SC '21) into an instance.

``data.zip`` holds ``data/<cluster>/cluster_log.csv`` for the clusters Earth, Saturn, Uranus and
Venus: one line per Slurm job with a header (the repository's README): ``job_id``, ``user``,
``vc``, ``gpu_num``, ``cpu_num``, ``node_num``, ``state`` (``COMPLETED``, ``CANCELLED``,
``FAILED``, ``TIMEOUT``, ``NODE_FAIL``), ``submit_time``, ``start_time``, ``end_time``
(``YYYY-MM-DD HH:MM:SS``), ``duration`` (s, end − start) and ``queue`` (s, start − submit). The
rules are in :func:`load_helios_log` and docs/model.md §8. The archive has no published checksum:
the dataset ``helios`` is unverified, and :func:`check_helios_archive` checks a copy's format.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Collection
from pathlib import Path, PurePosixPath

import numpy as np

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.inputs import MAX_LINE_BYTES
from sjfbsbf.core.model import Cluster, Instance
from sjfbsbf.workloads.file_lines import file_lines
from sjfbsbf.workloads.trace_csv import (
    labels,
    numbers,
    read_table,
    reopen_member,
    screen_rows,
    timestamps,
)
from sjfbsbf.workloads.trace_window import TraceOptions, TraceReport, build_instance

#: The columns of ``cluster_log.csv`` (README of HeliosData).
COLUMNS = (
    "job_id",
    "user",
    "vc",
    "gpu_num",
    "cpu_num",
    "node_num",
    "state",
    "submit_time",
    "start_time",
    "end_time",
    "duration",
    "queue",
)
#: The columns the loader needs; it also keeps ``user`` when present, and ignores the others.
REQUIRED = ("vc", "gpu_num", "state", "submit_time", "duration")
#: The clusters of ``data.zip``.
CLUSTERS = ("Earth", "Saturn", "Uranus", "Venus")
#: Why a line is skipped, in the order the rules are tried.
SKIP_REASONS = ("other_vc", "other_state", "no_submit_time", "cpu_only", "no_run_time")


def load_helios_log(
    path: str | os.PathLike[str],
    cluster: Cluster,
    *,
    helios_cluster: str | None = None,
    vc: str | None = None,
    states: Collection[str] | None = None,
    options: TraceOptions | None = None,
    rng: np.random.Generator | None = None,
) -> tuple[Instance, TraceReport]:
    """Read a Helios ``cluster_log.csv`` (or the one of ``helios_cluster`` in ``data.zip``).

    Each line becomes a duration-only job: id = its data row (0-based; line = id + 2), arrival =
    ``submit_time``, GPUs = ``gpu_num``, duration = ``duration`` (s), and the job keeps ``vc``
    and ``user`` (if the file has that column) as its ``vc`` and ``user`` (an empty value: none).
    Skipped, in this order (the report lists them by reason): another ``vc`` or a state not in
    ``states`` (when given), no ``submit_time``, a CPU job (``gpu_num`` 0), an empty or zero
    ``duration`` (a job that never ran).

    Parameters
    ----------
    path
        ``cluster_log.csv``, or ``data.zip``.
    cluster
        The cluster to schedule on.
    helios_cluster
        In ``data.zip``, which cluster's log (``Earth``, ``Saturn``, ``Uranus``, ``Venus``).
    vc
        Keep only this virtual cluster.
    states
        Keep only these final states (default: all).
    options
        Window, sample, target load and oversize jobs (:class:`TraceOptions`).
    rng
        Generator for a random window or sample.

    Raises
    ------
    InstanceError
        One line naming the file, line and column: a missing column, a ``gpu_num`` that is not
        a whole number ≥ 0, a ``duration`` that is not a number ≥ 0, a time not in the
        ``YYYY-MM-DD HH:MM:SS`` form, a ``vc`` or ``user`` longer than 128 characters or with
        control characters (on any line); or as :func:`~sjfbsbf.workloads.trace_window.
        build_instance`.
    """
    member = "cluster_log.csv" if helios_cluster is None else f"{helios_cluster}/cluster_log.csv"
    frame, source, first = read_table(path, member, required=REQUIRED)
    with file_lines(reopen_member(path, member), source):  # refusals name the file's lines
        gpus = numbers(frame, "gpu_num", source, first, integer=True)
        if np.isnan(gpus).any():
            line = first + int(np.argmax(np.isnan(gpus)))
            raise InstanceError("missing value", source=source, row=f"line {line}", field="gpu_num")
        duration = numbers(frame, "duration", source, first)
        submit = timestamps(frame, "submit_time", source, first)
        vcs = labels(frame, "vc", source, first)
        users = labels(frame, "user", source, first)
        none = np.zeros(len(frame), dtype=bool)
        rules = [  # in the order of SKIP_REASONS; the first that applies is the reason
            none if vc is None else (frame["vc"].str.strip() != vc).to_numpy(),
            none if states is None else (~frame["state"].str.strip().isin(list(states))).to_numpy(),
            np.isnan(submit),
            gpus == 0,
            ~(duration > 0),
        ]
        trace, skipped = screen_rows(
            rules, SKIP_REASONS, submit, gpus, duration, vc=vcs, user=users
        )
        name = "helios" if helios_cluster is None else f"helios-{helios_cluster}"
        if vc is not None:
            name = f"{name}-{vc}"
        return build_instance(
            trace,
            cluster,
            source=source,
            name=name,
            records=len(frame),
            skipped=skipped,
            options=options,
            rng=rng,
        )


def check_helios_archive(path: Path) -> str | None:
    """Why ``path`` is not a plausible Helios ``data.zip``, or ``None``.

    It must be a zip archive holding at least one ``cluster_log.csv``, and each one's header must
    name the columns the loader reads (:data:`REQUIRED`).
    """
    try:
        with zipfile.ZipFile(path) as archive:
            logs = [n for n in archive.namelist() if PurePosixPath(n).name == "cluster_log.csv"]
            if not logs:
                return "no cluster_log.csv in the archive"
            for log in logs:
                with archive.open(log) as handle:
                    head = handle.readline(MAX_LINE_BYTES + 1)
                if len(head) > MAX_LINE_BYTES:
                    return f"{log}: the header line is longer than {MAX_LINE_BYTES:,} bytes"
                header = head.decode("utf-8", "replace")
                columns = {c.strip() for c in header.split(",")}
                missing = [c for c in REQUIRED if c not in columns]
                if missing:
                    return f"{log} has no column {', '.join(missing)}"
    except (OSError, EOFError, zipfile.BadZipFile) as exc:
        return f"not a readable zip archive ({type(exc).__name__})"
    return None
