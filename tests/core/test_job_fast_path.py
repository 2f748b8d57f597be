"""A duration-only job accepted by the constructor's fast path passes every check (model.py).

``Job.__post_init__`` accepts a well-formed duration-only job without the detailed checks (a
1,000,000-job file builds twice as fast); anything else goes through ``Job._validate``, whose
refusals name the field. Here: whatever the fast path accepts, the full checks accept too, over
values at and beyond every limit (bools, NaN, infinities, negative zero, the largest id and time),
the optional fields (``estimate``, ``vc``, ``user``) included.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import MAX_JOB_ID, MAX_LABEL_CHARS, MAX_TIME_S, Job

EDGES: list[Any] = [
    0,
    1,
    -1,
    0.0,
    -0.0,
    1.5,
    True,
    False,
    math.nan,
    math.inf,
    -math.inf,
    MAX_JOB_ID,
    MAX_JOB_ID + 1,
    MAX_TIME_S,
    math.nextafter(MAX_TIME_S, math.inf),
    5e-324,
    "1",
    None,
]
values = st.one_of(st.sampled_from(EDGES), st.integers(-5, 10**6), st.floats(allow_nan=True))


class Label(str):
    """A str subclass: not taken by the fast path, accepted by the full checks."""


LABEL_EDGES: list[Any] = [
    None,
    "vcA",
    "",
    " ",
    "a" * MAX_LABEL_CHARS,
    "a" * (MAX_LABEL_CHARS + 1),
    "é" * MAX_LABEL_CHARS,
    "vc\x1b[31m",
    "u\n",
    "\u2028",
    "\x00",
    Label("vcB"),
    5,
    True,
    b"vc",
]
labels = st.one_of(st.sampled_from(LABEL_EDGES), st.text(max_size=MAX_LABEL_CHARS + 2))


@settings(max_examples=2000, deadline=None)
@given(job_id=values, arrival=values, gpus=values, duration=values)
def test_whatever_the_fast_path_accepts_the_full_checks_accept(
    job_id: Any, arrival: Any, gpus: Any, duration: Any
) -> None:
    try:
        job = Job(job_id, arrival, gpus, duration=duration)
    except InstanceError:
        return  # refused: through the full checks, as before
    job._validate()  # accepted: the full checks must agree


@settings(max_examples=3000, deadline=None)
@given(
    duration=values,
    estimate=st.one_of(st.none(), values),
    vc=labels,
    user=labels,
)
def test_the_optional_fields_are_checked_on_both_paths(
    duration: Any, estimate: Any, vc: Any, user: Any
) -> None:
    """Fast path or not, a job is accepted exactly when the full checks accept it."""
    try:
        Job(3, 0.0, 1, duration=60.0, estimate=estimate, vc=vc, user=user)._validate()
        valid = True
    except InstanceError:
        valid = False
    for kwargs in ({"duration": duration}, {"model": "dqn", "batch": 128, "iterations": 10}):
        if "duration" in kwargs:
            try:
                Job(3, 0.0, 1, duration=duration)._validate()
            except InstanceError:
                continue  # the duration alone is refused
        try:
            job = Job(3, 0.0, 1, estimate=estimate, vc=vc, user=user, **kwargs)
        except InstanceError:
            assert not valid
            continue
        assert valid
        job._validate()


def test_a_refused_duration_only_job_names_the_field() -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"job_id": True}, "id"),
        ({"arrival": math.nan}, "arrival"),
        ({"gpus": 0}, "gpus"),
        ({"duration": 0.0}, "duration"),
        ({"estimate": 0}, "estimate"),
        ({"estimate": math.inf}, "estimate"),
        ({"vc": ""}, "vc"),
        ({"user": "a\tb"}, "user"),
    ]
    for kwargs, field in cases:
        args = {"job_id": 3, "arrival": 0.0, "gpus": 1, "duration": 10.0} | kwargs
        try:
            Job(
                args["job_id"],
                args["arrival"],
                args["gpus"],
                duration=args["duration"],
                estimate=args.get("estimate"),
                vc=args.get("vc"),
                user=args.get("user"),
            )
        except InstanceError as exc:
            assert exc.field == field and exc.row == (3 if field != "id" else None)
        else:
            raise AssertionError(f"{kwargs} accepted")


def test_the_optional_fields_keep_their_values_and_defaults() -> None:
    """Positional construction is unchanged; the new fields default to None; a catalog job may
    carry them too, and a refusal names the job and the field."""
    plain = Job(1, 0.0, 2, None, None, None, 60.0)
    assert (plain.estimate, plain.vc, plain.user) == (None, None, None)
    job = Job(1, 0.0, 2, duration=60.0, estimate=90, vc="vc é", user="u" * MAX_LABEL_CHARS)
    assert (job.estimate, job.vc, job.user) == (90, "vc é", "u" * MAX_LABEL_CHARS)
    assert job != plain and job == Job(1, 0.0, 2, None, None, None, 60.0, 90, "vc é", job.user)
    catalog = Job(2, 5.0, 1, "dqn", 128, 10, estimate=3600.0, vc="vcA", user="u1")
    assert catalog.estimate == 3600.0 and not catalog.is_duration_only
    cases: list[tuple[dict[str, Any], str]] = [
        ({"estimate": True}, "must be a positive number, got True"),
        ({"estimate": MAX_TIME_S * 2}, "must be at most 315,576,000 s (10 years)"),
        ({"vc": 7}, "must be a string, got 7"),
        ({"user": "x" * 200}, "must be at most 128 characters, got 200"),
        ({"vc": "a\x1bb"}, "must be printable text (no control characters), got 'a\\x1bb'"),
    ]
    bases: list[dict[str, Any]] = [
        {"duration": 60.0},
        {"model": "dqn", "batch": 128, "iterations": 10},
    ]
    for kwargs, message in cases:
        for base in bases:
            try:
                Job(9, 0.0, 1, **base, **kwargs)
            except InstanceError as exc:
                field = next(iter(kwargs))
                assert (exc.row, exc.field) == (9, field)
                assert str(exc).startswith(f"job 9, field '{field}': {message}")
            else:
                raise AssertionError(f"{kwargs} accepted")
