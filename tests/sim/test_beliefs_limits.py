"""What :class:`~sjfbsbf.sim.beliefs.Beliefs` accepts and refuses, its labels, and the model
each interference belief resolves to (docs/model.md §4.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sjfbsbf.core.catalog import generic_profile, get_catalog
from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.interference_noisy import noisy_contention
from sjfbsbf.core.presets import DATA_PRESETS, make_interference, time_slicing
from sjfbsbf.sim.beliefs import Beliefs, believed_interference

MAX_SEED = 2**63 - 1


def test_a_throughput_table_for_a_belief_that_reads_none_is_refused_naming_who_reads_one() -> None:
    readers = ", ".join(sorted(DATA_PRESETS))
    with pytest.raises(ValueError) as info:
        Beliefs(interference="noisy:sigma=1", throughputs="x.json")
    assert str(info.value) == (
        f"interference belief 'noisy' reads no throughput table (only {readers} does)"
    )


def test_an_interference_model_object_is_accepted_and_anything_else_refused_by_type() -> None:
    model = time_slicing()
    assert Beliefs(interference=model).interference is model
    with pytest.raises(ValueError) as info:
        Beliefs(interference=3)  # type: ignore[arg-type]
    assert str(info.value) == "interference belief must be a text or an interference model, got int"


@pytest.mark.parametrize("seed", [0, 200, MAX_SEED])
def test_every_whole_seed_up_to_2_to_the_63_less_one_is_accepted(seed: int) -> None:
    assert Beliefs(seed=seed).seed == seed


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.5, 2**64])
def test_a_seed_below_zero_beyond_2_to_the_63_less_one_or_not_whole_is_refused(
    seed: float,
) -> None:
    with pytest.raises(ValueError) as info:
        Beliefs(seed=seed)  # type: ignore[arg-type]
    assert str(info.value) == f"beliefs seed must be a whole number >= 0, got {seed!r}"


def test_the_label_names_an_interference_model_object_by_its_type() -> None:
    beliefs = Beliefs("lognormal:sigma=1.0", time_slicing())
    assert beliefs.label() == "estimator=lognormal:sigma=1, interference belief=ContentionModel"
    assert not beliefs.interference_is_oracle


@pytest.mark.parametrize(
    ("beliefs", "short"),
    [
        (Beliefs(), "oracle"),
        (Beliefs("lognormal:sigma=1.0"), "estimator=lognormal:sigma=1"),
        (Beliefs(interference="mps"), "interference belief=mps"),
        (
            Beliefs("history:q=0.5", "noisy:sigma=0.50,base=world"),
            "estimator=history, interference belief=noisy:sigma=0.5",
        ),
    ],
)
def test_the_short_label_keeps_only_what_is_not_oracle(beliefs: Beliefs, short: str) -> None:
    assert beliefs.short_label() == short


def test_a_noisy_belief_applies_its_errors_to_its_base_under_its_own_or_the_runs_seed() -> None:
    catalog = get_catalog("default")
    profiles = [*catalog.values(), generic_profile(catalog)]
    world = ContentionModel(kappa=0.4, eps=0.2)
    # base=world: the world's own contention model; no seed given: the beliefs' seed.
    got = believed_interference(Beliefs(interference="noisy:sigma=1", seed=4), world, profiles)
    assert got == noisy_contention(world, profiles, 1.0, 4)
    # A seed given in the text wins over the beliefs' seed; seed=0 is a seed too.
    for key in (0, 9):
        text = f"noisy:sigma=1,seed={key}"
        got = believed_interference(Beliefs(interference=text, seed=4), world, profiles)
        assert got == noisy_contention(world, profiles, 1.0, key)
    # Another base: that preset's model, not the world's.
    got = believed_interference(Beliefs(interference="noisy:sigma=1,base=mps"), world, profiles)
    mps = make_interference("mps")
    assert isinstance(mps, ContentionModel)
    assert got == noisy_contention(mps, profiles, 1.0, 0)


def test_a_preset_belief_is_that_preset_whatever_the_world() -> None:
    world = ContentionModel(kappa=0.4, eps=0.2)
    got = believed_interference(Beliefs(interference="mps"), world, [])
    assert got == make_interference("mps") and got != world


def test_a_measured_belief_reads_the_throughput_table_it_was_given(tmp_path: Path) -> None:
    table = tmp_path / "absent.json"
    beliefs = Beliefs(interference="gavel-measured", throughputs=table)
    with pytest.raises(InstanceError, match="no such file") as info:
        believed_interference(beliefs, time_slicing(), [])
    assert str(table) in str(info.value)
