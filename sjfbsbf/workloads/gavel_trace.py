"""Gavel's job traces, line by line: parse and check each tab-separated row (I/O only).

A row has :data:`TRACE_FIELDS`; :func:`read_gavel_trace` returns the parsed rows of a file, and a
bad row raises :class:`~sjfbsbf.core.errors.InstanceError` naming the file, line and field.
Turning rows into an instance is :func:`sjfbsbf.workloads.gavel.load_gavel_trace`'s job.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.jsonio import read_text

#: The 7 tab-separated fields of a Gavel trace line, in order.
TRACE_FIELDS = (
    "job_type",
    "command",
    "num_steps_arg",
    "needs_data_dir",
    "total_steps",
    "arrival_time_s",
    "num_gpus",
)


# --- traces -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GavelTraceRow:
    """One parsed line of a Gavel trace.

    Parameters
    ----------
    line
        1-based line number in the file.
    job_type
        Gavel job type, e.g. ``"ResNet-50 (batch size 64)"``.
    command
        Shell command Gavel would run (kept, unused).
    num_steps_arg
        Command-line flag that sets the number of steps (kept, unused).
    needs_data_dir
        Whether the command needs a data directory (kept, unused).
    total_steps
        Number of training iterations of the job.
    arrival_s
        Arrival time in seconds.
    num_gpus
        GPU count the job asks for.
    """

    line: int
    job_type: str
    command: str
    num_steps_arg: str
    needs_data_dir: bool
    total_steps: int
    arrival_s: float
    num_gpus: int


def _parse_row(fields: list[str], line: int, source: str) -> GavelTraceRow:
    def error(message: str, name: str) -> InstanceError:
        return InstanceError(message, source=source, row=f"line {line}", field=name)

    if len(fields) < len(TRACE_FIELDS):
        missing = TRACE_FIELDS[len(fields)]
        raise error(
            f"missing column: the line has {len(fields)} tab-separated fields, expected "
            f"{len(TRACE_FIELDS)} ({', '.join(TRACE_FIELDS)})",
            missing,
        )
    if len(fields) > len(TRACE_FIELDS):
        raise error(
            f"the line has {len(fields)} tab-separated fields, expected {len(TRACE_FIELDS)}",
            f"column {len(TRACE_FIELDS) + 1}",
        )
    job_type, command, steps_arg, data_dir, steps_text, arrival_text, gpus_text = (
        f.strip() for f in fields
    )
    if not job_type:
        raise error("empty job type", "job_type")
    if data_dir not in ("0", "1"):
        raise error(f"must be 0 or 1, got {data_dir!r}", "needs_data_dir")
    try:
        total_steps = int(steps_text)
    except ValueError:
        raise error(f"not an integer: {steps_text!r}", "total_steps") from None
    if total_steps <= 0:
        raise error(f"must be a positive number of steps, got {total_steps}", "total_steps")
    try:
        arrival = float(arrival_text)
    except ValueError:
        raise error(f"not a number: {arrival_text!r}", "arrival_time_s") from None
    if not math.isfinite(arrival) or arrival < 0:
        raise error(f"must be a non-negative number, got {arrival_text!r}", "arrival_time_s")
    try:
        gpus = int(gpus_text)
    except ValueError:
        raise error(f"not an integer: {gpus_text!r}", "num_gpus") from None
    if gpus < 1:
        raise error(f"must be a positive number of GPUs, got {gpus}", "num_gpus")
    return GavelTraceRow(
        line, job_type, command, steps_arg, data_dir == "1", total_steps, arrival, gpus
    )


def read_gavel_trace(path: str | os.PathLike[str]) -> tuple[GavelTraceRow, ...]:
    """Parse and check a Gavel trace file (no throughput lookup). Blank lines are skipped.

    Raises
    ------
    InstanceError
        Naming the file, the line (``row="line <n>"``, 1-based) and the field: missing or extra
        column, non-numeric field, non-positive steps, negative arrival, GPU count < 1, an
        empty file, or a file that is not UTF-8 text (see :func:`sjfbsbf.core.jsonio.read_text`).
    """
    source = str(path)
    text = read_text(path)
    rows = [
        _parse_row(raw.split("\t"), number, source)
        for number, raw in enumerate(text.splitlines(), start=1)
        if raw.strip()
    ]
    if not rows:
        raise InstanceError("the trace has no jobs", source=source)
    return tuple(rows)
