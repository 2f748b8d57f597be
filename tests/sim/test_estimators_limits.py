"""The readers of estimator and belief parameters, called directly (docs/model.md §4.1).

The registries build their readers at import, before mutation testing switches a mutant on, so
these tests build their own.
"""

from __future__ import annotations

import numpy as np
import pytest

from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.sim.estimators import (
    ESTIMATORS,
    choice_param,
    lognormal_factors,
    make_estimator,
    number_param,
    parse_estimator,
    parse_spec,
)


def test_a_number_reader_keeps_both_ends_unless_told_otherwise() -> None:
    read = number_param(1.0, 2.5)
    assert (read("1"), read("2.5"), read("1.75")) == (1.0, 2.5, 1.75)
    for text in ("0.999", "2.501"):
        with pytest.raises(ValueError) as info:
            read(text)
        assert str(info.value) == f"must be in [1, 2.5], got {text}"


def test_a_number_reader_leaves_out_the_end_it_is_told_to() -> None:
    low_open = number_param(1.0, 2.5, open_low=True)
    assert low_open("2.5") == 2.5
    with pytest.raises(ValueError) as info:
        low_open("1")
    assert str(info.value) == "must be in (1, 2.5], got 1"
    high_open = number_param(1.0, 2.5, open_high=True)
    assert high_open("1") == 1.0
    with pytest.raises(ValueError) as info:
        high_open("2.5")
    assert str(info.value) == "must be in [1, 2.5), got 2.5"


def test_a_choice_reader_takes_exactly_its_names() -> None:
    read = choice_param("none", "vc")
    assert (read("none"), read("vc")) == ("none", "vc")
    with pytest.raises(ValueError) as info:
        read("user")
    assert str(info.value) == "must be one of none, vc, got 'user'"


def test_a_lognormal_estimate_uses_the_seed_of_its_text_else_the_runs() -> None:
    jobs = tuple(Job(i, 0.0, 1, duration=100.0 * (i + 1)) for i in range(3))
    instance = Instance(Cluster(1, 1, 12.0), jobs)
    exclusive = np.array([100.0, 200.0, 300.0])
    ids, everyone = [0, 1, 2], np.arange(3)

    def believed(text: str) -> list[float]:
        estimator = make_estimator(parse_estimator(text), instance, exclusive, seed=5)
        assert estimator is not None
        return estimator.believed(everyone).tolist()

    assert believed("lognormal:sigma=1") == (exclusive * lognormal_factors(ids, 1.0, 5)).tolist()
    for key in (0, 9):  # 0 is a seed of its own, not "the run's"
        expected = exclusive * lognormal_factors(ids, 1.0, key)
        assert believed(f"lognormal:sigma=1,seed={key}") == expected.tolist()


def test_a_specification_that_is_not_text_is_refused_in_one_line_naming_what_it_is() -> None:
    with pytest.raises(ValueError) as info:
        parse_estimator(3)  # type: ignore[arg-type]
    assert str(info.value) == "estimator must be a text NAME[:KEY=VALUE,...], got 3"
    with pytest.raises(ValueError) as info:
        parse_spec("nope", ESTIMATORS)  # an estimator unless told otherwise
    assert (
        str(info.value) == "unknown estimator 'nope'; choose from oracle, lognormal, history, user"
    )


def test_a_value_holding_an_equals_sign_is_read_whole_after_the_first_one() -> None:
    with pytest.raises(ValueError) as info:
        parse_estimator("lognormal:sigma=1=2")
    assert str(info.value) == "estimator 'lognormal': sigma must be a number, got '1=2'"
