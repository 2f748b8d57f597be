"""The model's constants as parameters (docs/model.md §2, §3, §7, §9): the catalog
``default:alpha=X``, κ/ε of the contention presets, the sweep keys ``alpha``, ``kappa``,
``eps`` and the duration keys of the ``default`` workload.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sjfbsbf.core.catalog import (
    ALPHA_SHARE,
    MAX_ALPHA_SHARE,
    TESTBED,
    CatalogError,
    catalog_name,
    get_catalog,
)
from sjfbsbf.core.errors import InstanceError, SweepError
from sjfbsbf.core.instance_io import instance_from_dict, instance_to_dict
from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.core.presets import make_interference
from sjfbsbf.experiments.constants import (
    CONTENTION_PRESETS,
    ConstantError,
    with_alpha,
    with_constants,
    with_contention,
)
from sjfbsbf.experiments.sweep import execute, load_sweep
from sjfbsbf.experiments.sweep_workloads import build_instance, canonical_workload
from sjfbsbf.workloads import default_workload
from sjfbsbf.workloads.generators import WorkloadSpec, generate

SWEEP = """\
name = "constants"
seeds = [0]

[[workloads]]
kind = "default"
n_jobs = 20
nodes = 1
gpus_per_node = 4

[sim]
dt = 10.0

[[variants]]
policy = "sjf-bsbf"
"""


def load(tmp_path: Path, text: str) -> list:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return list(load_sweep(path).runs)


# -- the catalog ----------------------------------------------------------------------------------
def test_default_catalog_is_unchanged_and_parametric_ones_are_cached() -> None:
    default = get_catalog("default")
    assert get_catalog("default") is default
    for name, entry in TESTBED.items():
        assert default[name].alpha_s == ALPHA_SHARE * entry.step_1gpu_s
    other = get_catalog("default:alpha=0.15")
    assert get_catalog("default:alpha=0.15") is other  # built once
    assert catalog_name(0.15) == "default:alpha=0.15" and catalog_name(0) == "default:alpha=0.0"
    same = get_catalog("default:alpha=0.09")  # ALPHA_SHARE spelled out: the same values
    assert dict(same) == dict(default)


@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.15, 0.25, MAX_ALPHA_SHARE])
def test_alpha_changes_only_sub_batched_steps(alpha: float) -> None:
    """β = (step − α)/B: the full-batch step is the testbed's for every α; a sub-batched step
    pays (s − 1) more α."""
    catalog = get_catalog(catalog_name(alpha))
    cluster = Cluster()
    for name, entry in TESTBED.items():
        profile = catalog[name]
        assert profile.alpha_s == pytest.approx(alpha * entry.step_1gpu_s, rel=1e-15, abs=0)
        full = profile.step_time(entry.batch, 1, 1, False, cluster)
        assert full == pytest.approx(entry.step_1gpu_s, rel=1e-14)
        for s, _ in profile.micro_batches(entry.batch).items():
            step = profile.step_time(entry.batch, s, 1, False, cluster)
            assert step == pytest.approx(entry.step_1gpu_s + (s - 1) * profile.alpha_s, rel=1e-14)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("nope", "unknown catalog 'nope'; known: default, or default:alpha=X"),
        ("gavel:alpha=0.1", "unknown catalog 'gavel' in 'gavel:alpha=0.1'"),
        ("default:alpha=", "malformed catalog name 'default:alpha='"),
        ("default:alpha=abc", "malformed catalog name 'default:alpha=abc'"),
        ("default:beta=0.1", "malformed catalog name 'default:beta=0.1'"),
        ("default:alpha=-0.1", "malformed catalog name 'default:alpha=-0.1'"),
        ("default:alpha=nan", "malformed catalog name"),
        ("default:alpha=0.1 ", "malformed catalog name"),
        ("default:alpha=0.6", "catalog 'default:alpha=0.6': alpha must be between 0 and 0.5"),
        ("default:alpha=1e9", "alpha must be between 0 and 0.5"),
    ],
)
def test_bad_catalog_names_are_refused_naming_them(name: str, words: str) -> None:
    """A :class:`CatalogError` is a KeyError (as an unknown name always was) and a ValueError;
    an instance naming such a catalog is an InstanceError on the field ``catalog``."""
    with pytest.raises(CatalogError) as info:
        get_catalog(name)
    assert words in str(info.value)
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    job = Job(0, 0.0, 1, duration=60.0)
    with pytest.raises(InstanceError, match="field 'catalog'") as err:
        Instance(Cluster(), (job,), catalog=name)
    assert words in str(err.value)


def test_catalog_name_refuses_out_of_range() -> None:
    for alpha in (-0.01, 0.51, float("nan"), float("inf")):
        with pytest.raises(CatalogError, match=r"alpha must be between 0 and 0\.5"):
            catalog_name(alpha)
    assert catalog_name(-0.0) == "default:alpha=0.0"


def test_instance_files_take_a_parametric_catalog() -> None:
    """instance_io only checks that ``catalog`` is a string; the Instance asks get_catalog."""
    data = instance_to_dict(default_workload(0))
    data["catalog"] = "default:alpha=0.2"
    inst = instance_from_dict(data)
    assert inst.catalog == "default:alpha=0.2"
    assert instance_to_dict(inst)["catalog"] == "default:alpha=0.2"
    data["catalog"] = "default:alpha=0.9"
    with pytest.raises(InstanceError, match=r"field 'catalog'.*between 0 and 0\.5"):
        instance_from_dict(data)


# -- with_constants ------------------------------------------------------------------------------
def test_with_constants() -> None:
    inst = default_workload(0)
    model = make_interference("time-slicing")
    same = with_constants(inst, model)
    assert same[0] is inst and same[1] is model
    rebuilt, changed = with_constants(inst, model, alpha=0.2, kappa=0.8)
    assert rebuilt.catalog == "default:alpha=0.2"
    assert rebuilt.jobs == inst.jobs and rebuilt.name == inst.name
    assert changed == ContentionModel(kappa=0.8, eps=0.05)
    fitted = with_contention(make_interference("gavel-fitted"), eps=0.1)
    assert isinstance(fitted, ContentionModel)
    assert (fitted.kappa, fitted.eps) == (1.5, 0.1) and fitted.scales is not None
    assert CONTENTION_PRESETS == ("time-slicing", "mps", "gavel-fitted")


def test_with_constants_refusals_name_the_key() -> None:
    inst = default_workload(0)
    with pytest.raises(ConstantError, match=r"^alpha: applies only to an instance of catalog"):
        with_alpha(with_alpha(inst, 0.2), 0.3)
    with pytest.raises(ConstantError, match=r"^alpha: must be between 0 and 0.5"):
        with_alpha(inst, 0.7)
    with pytest.raises(ConstantError, match=r"^kappa: must be a finite number >= 0"):
        with_contention(ContentionModel(), kappa=-1.0)

    class Table:  # not a ContentionModel, as gavel-measured's MeasuredTableModel
        def slowdown(self, victim: object, other: object) -> float:
            return 1.0

    with pytest.raises(ConstantError, match=r"^eps: applies only to a contention model"):
        with_constants(inst, Table(), eps=0.1)


# -- sweep keys: [sim] alpha, kappa, eps --------------------------------------------------------
def test_run_keys_of_a_sweep_without_the_new_keys_do_not_change(tmp_path: Path) -> None:
    """No default: a sweep that does not name them has no alpha/kappa/eps in its run config,
    so its keys (and the rows of existing results folders) are what they were; each value of
    a key that is given is its own run."""
    (plain,) = load(tmp_path, SWEEP)
    assert set(plain.sim) == {"dt", "interference", "interval", "restart_overhead"}
    assert not {"alpha", "kappa", "eps"} & set(json.loads(json.dumps(plain.config()))["sim"])
    runs = load(
        tmp_path,
        SWEEP.replace("dt = 10.0", "dt = 10.0\nalpha = [0.05, 0.15]\nkappa = [0.4, 1.5]\neps = 0"),
    )
    assert len(runs) == 4 and len({r.key for r in runs} | {plain.key}) == 5
    assert {(r.sim["alpha"], r.sim["kappa"], r.sim["eps"]) for r in runs} == {
        (0.05, 0.4, 0.0),
        (0.05, 1.5, 0.0),
        (0.15, 0.4, 0.0),
        (0.15, 1.5, 0.0),
    }
    # in a variant's sim too
    (variant,) = load(tmp_path, SWEEP.replace('policy = "sjf-bsbf"', "policy = 'sjf-bsbf'\n"
                                              "sim = { kappa = 3.0 }"))  # fmt: skip
    assert variant.sim["kappa"] == 3.0 and variant.key != plain.key


def test_constants_apply_when_a_run_executes(tmp_path: Path) -> None:
    """The stated values (α = 0.09, κ = 1.5, ε = 0.05 of time-slicing) reproduce the run
    without the keys; another κ changes it; the row records the keys as sim_*."""
    (plain,) = load(tmp_path, SWEEP)
    spelled, other = load(
        tmp_path,
        SWEEP.replace("dt = 10.0", "dt = 10.0\nalpha = 0.09\neps = 0.05\nkappa = [1.5, 0.0]"),
    )
    base, same, changed = execute(plain), execute(spelled), execute(other)
    assert same["avg_jct"] == base["avg_jct"] and same["makespan"] == base["makespan"]
    assert (same["sim_alpha"], same["sim_kappa"], same["sim_eps"]) == (0.09, 1.5, 0.05)
    assert "sim_alpha" not in base
    assert changed["avg_jct"] != base["avg_jct"]


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        ("alpha = 0.6", "sim.alpha", "must be a finite number >= 0 and <= 0.5, got 0.6"),
        ("alpha = [0.1, -0.1]", "sim.alpha[1]", "must be a finite number >= 0"),
        ("kappa = -1", "sim.kappa", "must be a finite number >= 0, got -1"),
        ('eps = "0.1"', "sim.eps", "must be a number, got '0.1'"),
        (
            'interference = "gavel-measured"\nkappa = 0.4',
            "sim.kappa",
            "interference 'gavel-measured' has no kappa (a measured table, not a contention "
            "model); it applies to 'time-slicing', 'mps', 'gavel-fitted'",
        ),
        ('interference = "gavel-measured"\neps = 0.1', "sim.eps", "'gavel-measured' has no eps"),
    ],
)
def test_bad_constant_keys(tmp_path: Path, edit: str, key: str, words: str) -> None:
    with pytest.raises(SweepError) as info:
        load(tmp_path, SWEEP.replace("dt = 10.0", f"dt = 10.0\n{edit}"))
    assert info.value.key == key and words in str(info.value)
    assert "\n" not in str(info.value)


def test_alpha_refused_for_an_instance_file_of_another_catalog(tmp_path: Path) -> None:
    data = instance_to_dict(default_workload(0, n_jobs=5))
    data["catalog"] = "default:alpha=0.2"
    (tmp_path / "inst.json").write_text(json.dumps(data), encoding="utf-8")
    text = SWEEP.replace(
        'kind = "default"\nn_jobs = 20\nnodes = 1\ngpus_per_node = 4',
        f'kind = "file"\npath = "{tmp_path / "inst.json"}"',
    )
    assert load(tmp_path, text)  # without alpha the file runs as it is
    with pytest.raises(SweepError) as info:
        load(tmp_path, text.replace("dt = 10.0", "dt = 10.0\nalpha = 0.1"))
    assert info.value.key == "sim.alpha"
    assert "applies only to instances of catalog 'default'" in str(info.value)
    assert "of catalog 'default:alpha=0.2'" in str(info.value)


# -- workload keys: durations, duration_shape, duration_min_s, duration_max_s -------------------
def test_duration_keys_only_when_given() -> None:
    base = {"kind": "default", "n_jobs": 40}
    plain = canonical_workload(base)
    assert not {"durations", "duration_shape", "duration_min_s", "duration_max_s"} & set(plain)
    assert build_instance({**base, "durations": "log-uniform"}, 2) == build_instance(base, 2)
    heavy = {**base, "durations": "pareto", "duration_shape": 1.0, "duration_max_s": 86_400}
    assert canonical_workload(heavy)["duration_max_s"] == 86_400.0
    spec = WorkloadSpec(n_jobs=40, duration_dist="pareto", duration_max_s=86_400.0)
    assert build_instance(heavy, 2) == generate(spec, np.random.default_rng(2))
    assert build_instance({**base, "durations": "pareto"}, 2) != build_instance(heavy, 2)


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        ('durations = "lognormal"', "durations", "must be one of 'log-uniform', 'pareto'"),
        ("duration_shape = 1.0", "duration_shape", "applies only to durations = 'pareto'"),
        (
            'durations = "log-uniform"\nduration_shape = 1.0',
            "duration_shape",
            "applies only to durations = 'pareto'",
        ),
        ('durations = "pareto"\nduration_shape = 0', "duration_shape", "finite number > 0"),
        ("duration_min_s = 0", "duration_min_s", "must be a finite number > 0"),
        ("duration_max_s = 1e12", "duration_max_s", "<= 3.15576e+08"),
        (
            "duration_min_s = 7200",
            "duration_min_s",
            "duration_min_s = 7200 s is above duration_max_s = 3600 s (the default)",
        ),
        (
            "duration_max_s = 60",
            "duration_max_s",
            "duration_min_s = 120 s (the default) is above duration_max_s = 60 s",
        ),
        (
            "duration_min_s = 600\nduration_max_s = [300, 900]",
            "duration_min_s",
            "duration_min_s = 600 s is above duration_max_s = 300 s",
        ),
    ],
)
def test_bad_duration_keys(tmp_path: Path, edit: str, key: str, words: str) -> None:
    with pytest.raises(SweepError) as info:
        load(tmp_path, SWEEP.replace("n_jobs = 20", f"n_jobs = 20\n{edit}"))
    assert info.value.key == f"workloads[0].{key}", str(info.value)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_duration_keys_belong_to_the_default_kind(tmp_path: Path) -> None:
    text = SWEEP.replace('kind = "default"\nn_jobs = 20', 'kind = "testbed"\nn_jobs = 30')
    with pytest.raises(SweepError, match="unknown key for kind 'testbed'"):
        load(tmp_path, text.replace("n_jobs = 30", 'n_jobs = 30\ndurations = "pareto"'))
