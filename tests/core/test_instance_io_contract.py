"""The instance JSON contract key by key (:mod:`sjfbsbf.core.instance_io`, docs/model.md §1).

Each refusal is checked for its exact message, row and field: the top level, the cluster and each
job, with a key unknown or missing (the first missing one in alphabetical order), a value of the
wrong kind, and a job whose id cannot name it (then its position). Whole JSON numbers become
floats for the three times (never a bool); the written form has each key only when set.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.instance_io import instance_from_dict, instance_to_dict, write_instance
from sjfbsbf.core.model import SCHEMA, Cluster, Instance, Job

CLUSTER: dict[str, Any] = {"nodes": 1, "gpus_per_node": 2, "gpu_mem_gb": 24}
JOB: dict[str, Any] = {"id": 0, "arrival": 0.0, "gpus": 1, "duration": 60.0}
TOP_ALLOWED = "catalog, cluster, jobs, name, schema"
CLUSTER_ALLOWED = "gpu_mem_gb, gpus_per_node, inter_bw_gbps, intra_bw_gbps, nodes"
JOB_ALLOWED = "arrival, batch, duration, estimate, gpus, id, iterations, model, user, vc"


def _data(*jobs: Any, **top: Any) -> dict[str, Any]:
    return {"schema": SCHEMA, "cluster": dict(CLUSTER), "jobs": list(jobs) or [dict(JOB)]} | top


def _refusal(data: Any, source: str | None = "i.json") -> InstanceError:
    with pytest.raises(InstanceError) as info:
        instance_from_dict(data, source=source)
    assert info.value.source == source
    return info.value


def _where(error: InstanceError) -> tuple[str, Any, Any]:
    return error.message, error.row, error.field


# -- the top level ---------------------------------------------------------------------------------
@pytest.mark.parametrize("data", [[], "x", None, 3])
def test_the_top_level_must_be_an_object(data: Any) -> None:
    assert _where(_refusal(data)) == ("the top level must be a JSON object", None, None)


def test_the_first_missing_top_level_key_is_named() -> None:
    assert _where(_refusal({"jobs": []})) == ("missing", None, "cluster")
    assert _where(_refusal({"cluster": {}, "jobs": []})) == ("missing", None, "schema")
    assert _where(_refusal({"schema": SCHEMA, "cluster": {}})) == ("missing", None, "jobs")


def test_an_unknown_top_level_key_lists_the_allowed_ones() -> None:
    expected = (f"unknown key (allowed: {TOP_ALLOWED})", None, "seed")
    assert _where(_refusal(_data(seed=1))) == expected


def test_another_schema_is_refused() -> None:
    error = _refusal(_data(schema="sjfbsbf.instance/2"))
    assert _where(error) == (
        f"unsupported schema 'sjfbsbf.instance/2', expected {SCHEMA!r}",
        None,
        "schema",
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("name", 3, "must be a string"),
        ("catalog", None, "must be a string"),
        ("cluster", [1], "must be an object"),
        ("jobs", {"0": {}}, "must be a list"),
    ],
)
def test_a_top_level_value_of_the_wrong_kind_is_refused(key: str, value: Any, message: str) -> None:
    assert _where(_refusal(_data(**{key: value}))) == (message, None, key)


def test_name_and_catalog_are_read_and_default_to_empty_and_default() -> None:
    instance = instance_from_dict(_data())
    assert (instance.name, instance.catalog) == ("", "default")
    named = instance_from_dict(_data(name="n", catalog="default:alpha=0.5"))
    assert (named.name, named.catalog) == ("n", "default:alpha=0.5")


def test_without_a_source_no_file_is_named() -> None:
    error = _refusal(_data(seed=1), source=None)
    assert str(error).startswith("field 'seed': unknown key")


# -- the cluster -----------------------------------------------------------------------------------
def test_cluster_keys_are_checked_by_name() -> None:
    cluster = dict(CLUSTER) | {"bw": 1}
    assert _where(_refusal(_data(cluster=cluster))) == (
        f"unknown key (allowed: {CLUSTER_ALLOWED})",
        "cluster",
        "bw",
    )
    missing = {"gpu_mem_gb": 24}
    assert _where(_refusal(_data(cluster=missing))) == ("missing", "cluster", "gpus_per_node")


def test_a_bad_cluster_value_names_the_cluster_and_the_field() -> None:
    error = _refusal(_data(cluster=dict(CLUSTER) | {"nodes": 0}))
    assert (error.row, error.field) == ("cluster", "nodes")
    assert error.message.startswith("must be")


# -- jobs ------------------------------------------------------------------------------------------
def test_a_job_that_is_not_an_object_is_named_by_position() -> None:
    assert _where(_refusal(_data(dict(JOB), [1]))) == ("must be an object", "jobs[1]", None)


def test_a_jobs_unknown_key_is_named_with_its_id() -> None:
    job = dict(JOB) | {"id": 7, "prio": 1}
    assert _where(_refusal(_data(dict(JOB), job))) == (
        f"unknown key (allowed: {JOB_ALLOWED})",
        7,
        "prio",
    )


@pytest.mark.parametrize("job_id", ["7", 7.0, None])
def test_a_job_whose_id_cannot_name_it_is_named_by_position(job_id: Any) -> None:
    job = dict(JOB) | {"id": job_id, "prio": 1}
    assert _where(_refusal(_data(dict(JOB), job)))[1:] == ("jobs[1]", "prio")


def test_the_first_missing_job_key_is_named() -> None:
    assert _where(_refusal(_data({"id": 4, "gpus": 1})))[1:] == (4, "arrival")
    assert _where(_refusal(_data({"arrival": 0, "duration": 5})))[1:] == ("jobs[0]", "gpus")
    assert _where(_refusal(_data({"arrival": 0, "gpus": 1, "duration": 5})))[1:] == (
        "jobs[0]",
        "id",
    )


def test_a_bad_id_names_the_position_and_a_bad_value_the_id() -> None:
    bad_id = dict(JOB) | {"id": -1}
    assert _where(_refusal(_data(dict(JOB), bad_id)))[1:] == ("jobs[1]", "id")
    bad_gpus = dict(JOB) | {"id": 5, "gpus": 0}
    assert _where(_refusal(_data(dict(JOB), bad_gpus)))[1:] == (5, "gpus")


class Whole(enum.IntEnum):
    """An integer type other than int itself (as a caller building the dict might pass)."""

    TEN = 10


@pytest.mark.parametrize("key", ["arrival", "duration", "estimate"])
@pytest.mark.parametrize("value", [10, Whole.TEN])
def test_whole_times_become_floats(key: str, value: int) -> None:
    job = dict(JOB) | {key: value}
    read = instance_from_dict(_data(job)).jobs[0]
    assert getattr(read, key) == 10.0 and type(getattr(read, key)) is float
    others = {"arrival", "duration"} - {key}
    assert all(type(getattr(read, k)) is float for k in others)


def test_float_times_are_kept_as_they_are() -> None:
    job = dict(JOB) | {"arrival": 1.5, "duration": 2.5, "estimate": 3.5}
    read = instance_from_dict(_data(job)).jobs[0]
    assert (read.arrival, read.duration, read.estimate) == (1.5, 2.5, 3.5)


@pytest.mark.parametrize("key", ["arrival", "duration", "estimate"])
def test_a_bool_time_is_not_a_whole_number(key: str) -> None:
    error = _refusal(_data(dict(JOB) | {key: True}))
    assert (error.row, error.field) == (0, key)
    assert error.message.endswith("number, got True")


def test_a_model_job_keeps_its_whole_numbers() -> None:
    job = {"id": 1, "arrival": 3, "gpus": 1, "model": "resnet18", "batch": 64, "iterations": 9}
    read = instance_from_dict(_data(job)).jobs[0]
    assert read == Job(1, 3.0, 1, "resnet18", 64, 9) and type(read.arrival) is float
    assert type(read.batch) is int and type(read.iterations) is int


# -- the written form ------------------------------------------------------------------------------
def test_the_written_form_has_each_key_only_when_set() -> None:
    instance = Instance(
        Cluster(1, 2, 24.0),
        (
            Job(2, 5.0, 1, "resnet18", 64, 9),
            Job(1, 0.0, 2, duration=60.0, estimate=90.0, vc="a", user="u"),
        ),
    )
    out = instance_to_dict(instance)
    assert list(out) == ["schema", "cluster", "catalog", "jobs"]  # no name: it is empty
    assert out["cluster"] == {
        "nodes": 1,
        "gpus_per_node": 2,
        "gpu_mem_gb": 24.0,
        "intra_bw_gbps": Cluster(1, 2, 24.0).intra_bw_gbps,
        "inter_bw_gbps": Cluster(1, 2, 24.0).inter_bw_gbps,
    }
    assert out["jobs"] == [  # by id
        {
            "id": 1,
            "arrival": 0.0,
            "gpus": 2,
            "duration": 60.0,
            "estimate": 90.0,
            "vc": "a",
            "user": "u",
        },
        {"id": 2, "arrival": 5.0, "gpus": 1, "model": "resnet18", "batch": 64, "iterations": 9},
    ]
    named = Instance(instance.cluster, instance.jobs, name="n")
    assert list(instance_to_dict(named)) == ["schema", "name", "cluster", "catalog", "jobs"]


def test_a_written_file_is_json_indented_by_one_and_ends_with_a_newline(tmp_path: Path) -> None:
    instance = instance_from_dict(_data())
    path = tmp_path / "i.json"
    write_instance(instance, path)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0] == "{" and lines[1] == ' "schema": "sjfbsbf.instance/1",'
    assert text.endswith("}\n") and lines[-1] == ""
    assert json.loads(text) == instance_to_dict(instance)
