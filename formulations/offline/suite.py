"""The suite of small named instances with recorded optima (docs/formulations.md §2.8,
``instances/``).

``instances/optima.json`` records, per instance file, the offline optimum a solver proved (or
the best schedule it found, with its status): the schedule, the simulator's average JCT of it
(``replayed_avg_jct``, the value gaps are measured against), the lower bound, the backend and its
settings, the runtime and the slot length ``dt``. The file's ``objective`` key predates the
result's field of that name and holds the *replayed* value too (kept so the file stays
compatible); the model's own value is not recorded. The gaps of policies to these optima are
computed in :mod:`sjfbsbf.experiments.gap`.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formulations.offline.result import OfflineResult
from sjfbsbf.core.atomic import write_text_atomic
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.instance_io import read_instance
from sjfbsbf.core.jsonio import read_json
from sjfbsbf.core.model import Instance
from sjfbsbf.policies.planned import PlannedStart, Schedule

#: Version tag of the optima file.
OPTIMA_SCHEMA = "sjfbsbf.optima/1"
#: File name of the recorded optima inside a suite directory.
OPTIMA_FILE = "optima.json"


@dataclass(frozen=True)
class Optimum:
    """One recorded solve of a suite instance.

    Attributes
    ----------
    name
        Instance name (the file's stem).
    file
        Instance file name, relative to the suite directory.
    status
        ``"optimal"`` when proven, else the solver's status.
    bound
        The proven lower bound (average JCT, s).
    replayed_avg_jct
        The simulator's average JCT of the recorded schedule (s): the reference for gaps (read
        from the file's ``replayed_avg_jct``, or its ``objective``, which holds the same value).
    dt
        Slot length = tick of every comparison (s).
    tolerance_s
        Bound on |objective − replayed| from the model's integer rounding (s).
    schedule
        The recorded schedule.
    details
        Everything else recorded (backend, workers, seed, runtime, sizes).
    """

    name: str
    file: str
    status: str
    bound: float | None
    replayed_avg_jct: float | None
    dt: float
    tolerance_s: float
    schedule: Schedule
    details: dict[str, Any]

    @property
    def proven(self) -> bool:
        """Whether the optimum was proven."""
        return self.status == "optimal"


def record(name: str, file: str, result: OfflineResult, **details: Any) -> dict[str, Any]:
    """The JSON entry of a solve of instance ``name`` (``objective``: the replayed value)."""
    info = result.info
    schedule = result.schedule or ()
    return {
        "file": file,
        "status": result.status.value,
        "objective": result.replayed_avg_jct,
        "bound": result.bound,
        "replayed_avg_jct": result.replayed_avg_jct,
        "dt": info["dt"],
        "tolerance_s": info.get("tolerance_s"),
        "backend": result.solver,
        "runtime_s": round(result.runtime_s, 3),
        "horizon": info.get("horizon"),
        "heuristic": info.get("heuristic"),
        "heuristic_avg_jct": info.get("heuristic_avg_jct"),
        **details,
        "schedule": [
            {
                "job_id": e.job_id,
                "start": e.start,
                "gpus": list(e.gpus),
                "accumulation": e.accumulation,
            }
            for e in schedule
        ],
    }


def write_optima(path: str | os.PathLike[str], entries: dict[str, dict[str, Any]]) -> None:
    """Write the optima file (entries sorted by name), atomically."""
    data = {"schema": OPTIMA_SCHEMA, "instances": dict(sorted(entries.items()))}
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def read_optima(path: str | os.PathLike[str]) -> dict[str, Optimum]:
    """Read an optima file, checking every entry (strict JSON, :func:`read_json`).

    Raises
    ------
    InstanceError
        (a :class:`ValueError`) One line naming the file, the instance and the field: not an
        optima file of the known schema, no ``instances`` table, an entry without its ``file``
        (a plain relative name) or ``status``, a ``dt`` that is not a positive finite number, a
        bound, value or tolerance that is not a finite number ≥ 0, a malformed schedule entry;
        or the file cannot be read.
    """
    source = str(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("schema") != OPTIMA_SCHEMA:
        raise InstanceError(
            f"not an optima file (schema {OPTIMA_SCHEMA!r} expected)", source=source
        )
    entries = data.get("instances")
    if not isinstance(entries, dict):
        raise InstanceError("no 'instances' table", source=source, field="instances")
    out = {}
    for name, entry in entries.items():

        def bad(field: str, why: str, name: str = name) -> InstanceError:
            return InstanceError(why, source=source, row=f"instance {name!r}", field=field)

        if not isinstance(entry, dict):
            raise bad("", "must be a table")
        file = entry.get("file")
        if (
            not isinstance(file, str)
            or not file
            or Path(file).is_absolute()
            or ".." in Path(file).parts
        ):
            raise bad("file", f"must be a file name inside the suite folder, got {file!r}")
        if not isinstance(entry.get("status"), str):
            raise bad("status", f"must be a text, got {entry.get('status')!r}")
        given_dt = entry.get("dt")
        if not _finite(given_dt) or float(given_dt) <= 0:  # type: ignore[arg-type]
            raise bad("dt", f"must be a positive number of seconds, got {given_dt!r}")
        dt = float(given_dt)  # type: ignore[arg-type]
        values = {}
        for key in ("bound", "replayed_avg_jct", "objective", "tolerance_s"):
            value = entry.get(key)
            if value is not None and (not _finite(value) or value < 0):
                raise bad(key, f"must be a number ≥ 0 (or absent), got {value!r}")
            values[key] = value
        schedule = []
        for index, e in enumerate(entry.get("schedule", [])):
            try:
                start = PlannedStart(
                    int(e["job_id"]), float(e["start"]), tuple(e["gpus"]), int(e["accumulation"])
                )
            except (KeyError, TypeError, ValueError):
                raise bad(
                    f"schedule[{index}]", "needs job_id, start, gpus and accumulation"
                ) from None
            schedule.append(start)
        known = {"file", "status", "objective", "bound", "replayed_avg_jct", "dt", "tolerance_s"}
        out[name] = Optimum(
            name=name,
            file=file,
            status=entry["status"],
            bound=values["bound"],
            replayed_avg_jct=(
                values["replayed_avg_jct"]
                if values["replayed_avg_jct"] is not None
                else values["objective"]
            ),
            dt=dt,
            tolerance_s=float(values["tolerance_s"] or 0.0),
            schedule=tuple(schedule),
            details={k: v for k, v in entry.items() if k not in known and k != "schedule"},
        )
    return out


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key reading each run of ASCII digits as a number: n4 < n10 (ties: the text)."""
    parts = re.split(r"([0-9]+)", name)  # digit runs at the odd positions
    key = [(0, int(part)) if i % 2 else (1, part) for i, part in enumerate(parts)]
    return (*key, (1, name))


def load_suite(suite: str | os.PathLike[str]) -> list[tuple[Optimum, Instance]]:
    """Every recorded instance of a suite directory with its optimum, by name in natural order
    (:func:`natural_key`: n4 before n10).

    Raises
    ------
    OSError
        If the directory has no optima file.
    """
    directory = Path(suite)
    optima = read_optima(directory / OPTIMA_FILE)
    names = sorted(optima, key=natural_key)
    return [(optima[name], read_instance(directory / optima[name].file)) for name in names]
