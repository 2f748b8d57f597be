"""Accumulation options keep the global batch (docs/model.md §2).

The feasibility checker accepts an accumulation factor s only if it is one of the job's options,
so the rule "b · s = B with b a whole micro-batch the profile allows" rests on how the options are
built: checked here for every model of the catalog and every per-GPU batch up to 512.
"""

from __future__ import annotations

import pytest

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.model import Job
from sjfbsbf.core.perf import micro_batch_options

CATALOG = get_catalog("default")


@pytest.mark.parametrize("model", sorted(CATALOG))
def test_every_option_splits_the_batch_exactly(model: str) -> None:
    profile = CATALOG[model]
    for batch in range(1, 513):
        options = profile.micro_batches(batch)
        assert options[1] == batch
        for s, b in options.items():
            assert s in (1, *profile.accumulation)
            assert b * s == batch
            assert s == 1 or b >= profile.min_micro_batch
        expected = {
            s
            for s in profile.accumulation
            if batch % s == 0 and batch // s >= profile.min_micro_batch
        } | {1}
        assert set(options) == expected


def test_duration_only_jobs_have_the_full_batch_only() -> None:
    job = Job(0, 0.0, 1, duration=60.0)
    assert micro_batch_options(job, generic_profile(CATALOG)) == {1: None}
