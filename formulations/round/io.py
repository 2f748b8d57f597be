"""Round problems as files: the ``sjfbsbf.round/1`` JSON schema (docs/formulations.md §1.8).

::

    {"schema": "sjfbsbf.round/1",
     "jobs": [{"id": 7, "gpus": 2, "options": [1, 2], "memory": [9.5, 6.1]}],
     "hosts": [{"id": 3, "gpus": 4, "room": 6.5}],
     "idle": 1,
     "benefit": [[7, 2, 3, 41.25]],
     "max_partners": null, "threshold": 0.0, "forbidden": [],
     "meta": {"source": "exact-round on default-seed2", "time": 4380.0, "greedy": 12.5,
              "exact": 41.25}}

``benefit`` lists ``[job id, s, host id, benefit (s)]``; ``forbidden`` ``[job id, s, host id]``;
``meta`` is free (where the round came from and what was measured on it) and optional. Read
strictly (:func:`sjfbsbf.core.jsonio.read_json`): unknown keys, wrong types and every problem
:class:`~formulations.round.problem.RoundProblem` refuses are one-line
:class:`~sjfbsbf.core.errors.InstanceError` naming the file and the field.
"""

from __future__ import annotations

import json
import os
from typing import Any

from formulations.round.problem import RoundHost, RoundJob, RoundProblem
from sjfbsbf.core.atomic import write_text_atomic
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.jsonio import read_json

SCHEMA = "sjfbsbf.round/1"
_KEYS = {"schema", "jobs", "hosts", "idle", "benefit", "max_partners", "threshold", "forbidden"}
_OPTIONAL = {"max_partners", "threshold", "forbidden", "meta"}


def round_to_dict(problem: RoundProblem, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON form of ``problem`` (benefits sorted by key), with optional ``meta``."""
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "jobs": [
            {"id": j.id, "gpus": j.gpus, "options": list(j.options), "memory": list(j.memory)}
            for j in problem.jobs
        ],
        "hosts": [{"id": h.id, "gpus": h.gpus, "room": h.room} for h in problem.hosts],
        "idle": problem.idle,
        "benefit": [[a, s, b, value] for (a, s, b), value in sorted(problem.benefit.items())],
        "max_partners": problem.max_partners,
        "threshold": problem.threshold,
        "forbidden": [list(key) for key in sorted(problem.forbidden)],
    }
    if meta:
        out["meta"] = meta
    return out


def round_from_dict(data: Any, source: str | None = None) -> RoundProblem:
    """Build a round problem from its JSON form, checking every key.

    Raises
    ------
    InstanceError
        Naming ``source`` and the field at fault.
    """

    def fail(message: str, field: str | None = None) -> InstanceError:
        return InstanceError(message, source=source, field=field)

    if not isinstance(data, dict):
        raise fail("the top level must be a JSON object")
    for key in data:
        if key not in _KEYS | {"meta"}:
            raise fail(f"unknown key (allowed: {', '.join(sorted(_KEYS | {'meta'}))})", key)
    for key in sorted(_KEYS - _OPTIONAL - data.keys()):
        raise fail("missing", key)
    if data["schema"] != SCHEMA:
        raise fail(f"unsupported schema {data['schema']!r}, expected {SCHEMA!r}", "schema")
    try:
        jobs = tuple(
            RoundJob(
                _int(j, "id"),
                _int(j, "gpus"),
                tuple(_ints(j["options"])),
                tuple(float(m) for m in _numbers(j["memory"])),
            )
            for j in _records(data["jobs"], {"id", "gpus", "options", "memory"})
        )
        hosts = tuple(
            RoundHost(_int(h, "id"), _int(h, "gpus"), float(_number(h["room"])))
            for h in _records(data["hosts"], {"id", "gpus", "room"})
        )
        benefit = {}
        for entry in _list(data["benefit"]):
            if not isinstance(entry, list) or len(entry) != 4:
                raise ValueError("benefit entries are [job id, s, host id, benefit]")
            a, s, b = _ints(entry[:3])
            benefit[a, s, b] = float(_number(entry[3]))
        forbidden = set()
        for entry in _list(data.get("forbidden", [])):
            if not isinstance(entry, list) or len(entry) != 3:
                raise ValueError("forbidden entries are [job id, s, host id]")
            a, s, b = _ints(entry)
            forbidden.add((a, s, b))
        partners = data.get("max_partners")
        return RoundProblem(
            jobs=jobs,
            hosts=hosts,
            idle=_int(data, "idle"),
            benefit=benefit,
            max_partners=None if partners is None else _int(data, "max_partners"),
            threshold=float(_number(data.get("threshold", 0.0))),
            forbidden=frozenset(forbidden),
        )
    except (ValueError, TypeError, KeyError) as exc:
        message = (
            str(exc).removeprefix("round problem: ")
            if not isinstance(exc, KeyError)
            else (f"missing key {exc.args[0]!r}")
        )
        raise fail(message) from None


def read_round(path: str | os.PathLike[str]) -> tuple[RoundProblem, dict[str, Any]]:
    """Read a round file: the problem and its ``meta`` (``{}`` without one)."""
    data = read_json(path)
    problem = round_from_dict(data, source=str(path))
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise InstanceError("must be an object", source=str(path), field="meta")
    return problem, meta


def write_round(
    problem: RoundProblem, path: str | os.PathLike[str], meta: dict[str, Any] | None = None
) -> None:
    """Write a round file atomically."""
    write_text_atomic(path, json.dumps(round_to_dict(problem, meta), indent=1) + "\n")


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return value


def _records(value: Any, keys: set[str]) -> list[dict[str, Any]]:
    records = _list(value)
    for record in records:
        if not isinstance(record, dict) or set(record) != keys:
            raise ValueError(f"each entry needs exactly the keys {', '.join(sorted(keys))}")
    return records


def _int(record: dict[str, Any], key: str) -> int:
    value = record[key]
    if type(value) is not int:
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return value


def _ints(values: Any) -> list[int]:
    out = _list(values)
    if any(type(v) is not int for v in out):
        raise ValueError(f"expected integers, got {out!r}")
    return out


def _number(value: Any) -> float:
    if type(value) not in (int, float):
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


def _numbers(values: Any) -> list[float]:
    return [_number(v) for v in _list(values)]
