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
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from formulations.offline.result import OfflineResult
from sjfbsbf.core.atomic import write_text_atomic
from sjfbsbf.core.instance_io import read_instance
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
    """Read an optima file.

    Raises
    ------
    ValueError
        If the file is not an optima file of a known schema.
    OSError
        If it cannot be read.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("schema") != OPTIMA_SCHEMA:
        raise ValueError(f"{path}: not an optima file (schema {OPTIMA_SCHEMA!r} expected)")
    out = {}
    for name, entry in data["instances"].items():
        schedule = tuple(
            PlannedStart(
                int(e["job_id"]), float(e["start"]), tuple(e["gpus"]), int(e["accumulation"])
            )
            for e in entry.get("schedule", [])
        )
        known = {"file", "status", "objective", "bound", "replayed_avg_jct", "dt", "tolerance_s"}
        out[name] = Optimum(
            name=name,
            file=entry["file"],
            status=entry["status"],
            bound=entry.get("bound"),
            replayed_avg_jct=entry.get("replayed_avg_jct", entry.get("objective")),
            dt=float(entry["dt"]),
            tolerance_s=float(entry.get("tolerance_s") or 0.0),
            schedule=schedule,
            details={k: v for k, v in entry.items() if k not in known and k != "schedule"},
        )
    return out


def load_suite(suite: str | os.PathLike[str]) -> list[tuple[Optimum, Instance]]:
    """Every recorded instance of a suite directory with its optimum, by name.

    Raises
    ------
    OSError
        If the directory has no optima file.
    """
    directory = Path(suite)
    optima = read_optima(directory / OPTIMA_FILE)
    return [(opt, read_instance(directory / opt.file)) for _, opt in sorted(optima.items())]
