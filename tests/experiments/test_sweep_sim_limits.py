"""A sweep's ``[sim]`` keys at their limits (sjfbsbf.experiments.sweep_sim): the defaults filled
in, ``oracle`` beliefs left out, the throughputs table only where it is read, each refusal word
for word and under its key, and the models a run builds from its options."""

from __future__ import annotations

import inspect

import pytest

from sjfbsbf.core.catalog import MAX_ALPHA_SHARE
from sjfbsbf.core.presets import make_interference
from sjfbsbf.experiments import sweep_sim
from sjfbsbf.experiments.sweep_params import ParamError
from sjfbsbf.experiments.sweep_sim import (
    BELIEF_KEYS,
    SIM_PARAMS,
    belief_text,
    run_sim_options,
    sim_models,
)
from sjfbsbf.sim.beliefs import Beliefs
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS

_SIGNATURE = inspect.signature(simulate).parameters


def _defaults() -> dict:
    return {
        "dt": float(_SIGNATURE["dt"].default),
        "interval": float(_SIGNATURE["interval"].default),
        "restart_overhead": float(_SIGNATURE["restart_overhead"].default),
        "interference": "time-slicing",
    }


def test_belief_text_refuses_what_is_not_text_and_canonicalises_text() -> None:
    check = belief_text(lambda value: f"<{value}>")
    assert check("history") == "<history>"
    with pytest.raises(ValueError) as info:
        check(3)
    assert str(info.value) == "must be a text NAME[:KEY=VALUE,...], got 3"
    assert BELIEF_KEYS == ("estimator", "interference_belief")


def test_the_sim_keys_check_their_bounds() -> None:
    assert SIM_PARAMS["dt"].default == _defaults()["dt"]
    assert SIM_PARAMS["interval"].default == _defaults()["interval"]
    assert SIM_PARAMS["restart_overhead"].default == _defaults()["restart_overhead"]
    assert SIM_PARAMS["interference"].default == "time-slicing"
    assert SIM_PARAMS["throughputs"].is_file
    for key in ("alpha", "kappa", "eps", "estimator", "interference_belief", "throughputs"):
        assert SIM_PARAMS[key].default is None
    assert SIM_PARAMS["restart_overhead"].check(0) == 0.0
    with pytest.raises(ValueError):
        SIM_PARAMS["dt"].check(0)
    with pytest.raises(ValueError):
        SIM_PARAMS["interval"].check(0)
    assert SIM_PARAMS["alpha"].check(0) == 0.0
    assert SIM_PARAMS["alpha"].check(MAX_ALPHA_SHARE) == MAX_ALPHA_SHARE
    with pytest.raises(ValueError):
        SIM_PARAMS["alpha"].check(MAX_ALPHA_SHARE * 1.01)
    assert SIM_PARAMS["kappa"].check(0) == 0.0
    assert SIM_PARAMS["eps"].check(0) == 0.0
    assert SIM_PARAMS["interference"].check("gavel-measured") == "gavel-measured"
    with pytest.raises(ValueError):
        SIM_PARAMS["interference"].check("nope")
    assert SIM_PARAMS["estimator"].check("oracle") == "oracle"
    assert SIM_PARAMS["interference_belief"].check("oracle") == "oracle"
    with pytest.raises(ValueError):
        SIM_PARAMS["estimator"].check(1)
    with pytest.raises(ValueError):
        SIM_PARAMS["interference_belief"].check(1)


def test_the_defaults_are_filled_in_and_oracle_beliefs_left_out() -> None:
    assert run_sim_options({}) == _defaults()
    given = {"dt": 1.0, "estimator": "oracle", "interference_belief": "oracle"}
    assert run_sim_options(given) == _defaults() | {"dt": 1.0}
    assert run_sim_options({"estimator": "history"}) == _defaults() | {"estimator": "history"}


def test_the_table_is_filled_in_for_a_world_or_belief_that_reads_it() -> None:
    world = run_sim_options({"interference": "gavel-measured"})
    assert world == _defaults() | {
        "interference": "gavel-measured",
        "throughputs": DEFAULT_THROUGHPUTS,
    }
    mine = run_sim_options({"interference": "gavel-measured", "throughputs": "mine.json"})
    assert mine["throughputs"] == "mine.json"
    belief = run_sim_options({"interference_belief": "gavel-measured"})
    assert belief == _defaults() | {
        "interference_belief": "gavel-measured",
        "throughputs": DEFAULT_THROUGHPUTS,
    }


def test_a_table_nothing_reads_is_refused_under_its_key() -> None:
    with pytest.raises(ParamError) as info:
        run_sim_options({"throughputs": "mine.json"})
    assert info.value.key == "throughputs"
    assert info.value.reason == (
        "only applies to interference (or interference_belief) 'gavel-measured', not 'time-slicing'"
    )


def test_what_simulate_refuses_is_refused_under_the_sim_key() -> None:
    with pytest.raises(ParamError) as info:
        run_sim_options({"dt": 2.0, "interval": 1.0})
    assert info.value.key == ""
    assert info.value.reason == "dt (2 s) must be at most the decision interval (1 s)"
    assert run_sim_options({"dt": 1.0, "interval": 1.0})["dt"] == 1.0


@pytest.mark.parametrize("key", ["kappa", "eps"])
def test_kappa_and_eps_are_refused_with_a_measured_table(key: str) -> None:
    with pytest.raises(ParamError) as info:
        run_sim_options({"interference": "gavel-measured", key: 1.0})
    assert info.value.key == key
    assert info.value.reason.startswith(f"interference 'gavel-measured' has no {key} ")
    assert run_sim_options({"interference": "mps", key: 1.0})[key] == 1.0


def test_a_run_without_beliefs_has_its_world_only() -> None:
    sim = {"interference": "mps", "estimator": "oracle", "dt": 1.0}
    interference, beliefs = sim_models(sim, 7)
    assert beliefs is None
    assert interference == make_interference("mps")
    assert sim == {"dt": 1.0}
    interference, beliefs = sim_models({}, 7)
    assert beliefs is None
    assert interference == make_interference("time-slicing")


def test_the_beliefs_take_the_seed_and_the_table_they_read(monkeypatch) -> None:
    sim = {"estimator": "history", "interference_belief": "oracle"}
    interference, beliefs = sim_models(sim, 7)
    assert sim == {}
    assert interference == make_interference("time-slicing")
    assert beliefs == Beliefs("history", "oracle", 7, None)
    # The table's reference resolved, and given to the world or the belief that reads it.
    made = []
    monkeypatch.setattr(sweep_sim, "resolve_data_path", lambda ref: f"/resolved/{ref}")
    monkeypatch.setattr(
        sweep_sim, "make_interference", lambda name, throughputs: made.append((name, throughputs))
    )
    monkeypatch.setattr(sweep_sim, "Beliefs", lambda *args: args)
    sim = {"interference_belief": "gavel-measured"}
    assert sim_models(sim, 3)[1] == (
        "oracle",
        "gavel-measured",
        3,
        f"/resolved/{DEFAULT_THROUGHPUTS}",
    )
    assert made.pop() == ("time-slicing", None)
    assert sim_models({"interference": "gavel-measured"}, 3)[1] is None
    assert made.pop() == ("gavel-measured", f"/resolved/{DEFAULT_THROUGHPUTS}")
    sim = {"interference": "gavel-measured", "throughputs": "t.json", "estimator": "history"}
    assert sim_models(sim, 4)[1] == ("history", "oracle", 4, None)
    assert made.pop() == ("gavel-measured", "/resolved/t.json")
    sim = {"interference": "gavel-measured", "interference_belief": "gavel-measured"}
    assert sim_models(sim, 5)[1] == (
        "oracle",
        "gavel-measured",
        5,
        f"/resolved/{DEFAULT_THROUGHPUTS}",
    )
    assert made.pop() == ("gavel-measured", f"/resolved/{DEFAULT_THROUGHPUTS}")
    # A belief with parameters reads the table too (its name before the colon).
    sim = {"interference_belief": "gavel-measured:noise=0.1"}
    assert sim_models(sim, 6)[1][3] == f"/resolved/{DEFAULT_THROUGHPUTS}"
    assert made.pop() == ("time-slicing", None)
    options = run_sim_options({"interference_belief": "gavel-measured:noise=0.1"})
    assert options["throughputs"] == DEFAULT_THROUGHPUTS
