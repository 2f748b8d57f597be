"""A duration-only job accepted by the constructor's fast path passes every check (model.py).

``Job.__post_init__`` accepts a well-formed duration-only job without the detailed checks (a
1,000,000-job file builds twice as fast); anything else goes through ``Job._validate``, whose
refusals name the field. Here: whatever the fast path accepts, the full checks accept too, over
values at and beyond every limit (bools, NaN, infinities, negative zero, the largest id and time).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.model import MAX_JOB_ID, MAX_TIME_S, Job

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


def test_a_refused_duration_only_job_names_the_field() -> None:
    for kwargs, field in [
        ({"job_id": True}, "id"),
        ({"arrival": math.nan}, "arrival"),
        ({"gpus": 0}, "gpus"),
        ({"duration": 0.0}, "duration"),
    ]:
        args = {"job_id": 3, "arrival": 0.0, "gpus": 1, "duration": 10.0} | kwargs
        try:
            Job(args["job_id"], args["arrival"], args["gpus"], duration=args["duration"])
        except InstanceError as exc:
            assert exc.field == field
        else:
            raise AssertionError(f"{kwargs} accepted")
