"""The instance JSON contract (docs/model.md §1): valid files, malformed ones, round trips.

Malformed files live in ``tests/data/bad_*.json``; each must raise
:class:`~sjfbsbf.core.errors.InstanceError` naming the file (``.source``), the job (``.row``, the
job's id) and the field (``.field``), and its message must say all three.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.instance_io import (
    instance_from_dict,
    instance_to_dict,
    read_instance,
    write_instance,
)
from sjfbsbf.core.model import SCHEMA, Cluster, Instance, Job
from sjfbsbf.workloads import default_workload

DATA = Path(__file__).resolve().parents[1] / "data"


def test_read_valid_small() -> None:
    """valid_small.json: 2 × 2 GPUs, three jobs, integer JSON numbers read as floats."""
    inst = read_instance(DATA / "valid_small.json")
    assert inst.name == "valid-small"
    assert inst.cluster == Cluster(nodes=2, gpus_per_node=2, gpu_mem_gb=12.0)
    assert inst.catalog == "default"
    # Stored by (arrival, id): job 0 at 0, job 2 at 10, job 1 at 30.5.
    assert [j.id for j in inst.jobs] == [0, 2, 1]
    assert inst.job(0) == Job(0, 0.0, 2, "resnet18", 128, 500)
    assert inst.job(1) == Job(1, 30.5, 1, duration=600.0)
    assert inst.job(2) == Job(2, 10.0, 4, "gpt2", 4, 100)
    assert isinstance(inst.job(0).arrival, float)
    assert isinstance(inst.job(1).duration, float)
    assert inst.job(1).is_duration_only and not inst.job(0).is_duration_only


#: file -> (job the error is about, field at fault, words the message must contain)
MALFORMED = {
    "bad_missing_gpus.json": (7, "gpus", "missing"),
    "bad_negative_duration.json": (3, "duration", "positive"),
    "bad_job_too_large.json": (5, "gpus", "8 GPUs"),
    "bad_unknown_model.json": (2, "model", "resnet1000"),
    "bad_unknown_key_job.json": (4, "priority", "unknown key"),
    "bad_memory.json": (6, "batch", "GB"),
    "bad_duration_and_model.json": (1, "duration", "not both"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_job_names_file_job_and_field(name: str) -> None:
    """A bad job is reported with the file, the job id and the field."""
    path = DATA / name
    job_id, field, words = MALFORMED[name]
    with pytest.raises(InstanceError) as info:
        read_instance(path)
    err = info.value
    assert err.source == str(path)
    assert err.row == job_id
    assert err.field == field
    text = str(err)
    assert str(path) in text
    assert f"job {job_id}" in text
    assert f"field '{field}'" in text
    assert words in text


#: file -> (row, field, words) for errors not about one job.
MALFORMED_TOP = {
    "bad_unknown_key_top.json": (None, "seed", "unknown key"),
    "bad_schema.json": (None, "schema", "sjfbsbf.instance/0"),
    "bad_cluster_missing_mem.json": ("cluster", "gpu_mem_gb", "missing"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED_TOP))
def test_malformed_top_level_names_file_and_field(name: str) -> None:
    """Top-level and cluster errors name the file and the key (and 'cluster' where relevant)."""
    path = DATA / name
    row, field, words = MALFORMED_TOP[name]
    with pytest.raises(InstanceError) as info:
        read_instance(path)
    err = info.value
    assert (err.source, err.row, err.field) == (str(path), row, field)
    text = str(err)
    assert str(path) in text and f"field '{field}'" in text and words in text
    if row is not None:
        assert str(row) in text


def test_not_json() -> None:
    """A file that is not JSON names the file and the position of the syntax error."""
    path = DATA / "bad_not_json.json"
    with pytest.raises(InstanceError) as info:
        read_instance(path)
    err = info.value
    assert err.source == str(path)
    assert (err.row, err.field) == (None, None)
    assert str(path) in str(err) and "not valid JSON" in str(err) and "line 3" in str(err)


def test_missing_file() -> None:
    """A missing file is an InstanceError naming it (not a bare OSError)."""
    path = DATA / "does_not_exist.json"
    with pytest.raises(InstanceError) as info:
        read_instance(path)
    assert info.value.source == str(path)


def test_every_data_file_is_covered() -> None:
    """Each bad_*.json in tests/data has an expectation here (guards against dead fixtures)."""
    bad = {p.name for p in DATA.glob("bad_*.json")}
    assert bad == set(MALFORMED) | set(MALFORMED_TOP) | {"bad_not_json.json"}


def test_round_trip_file(tmp_path: Path) -> None:
    """write_instance then read_instance gives an equal Instance (name, bandwidths included)."""
    inst = Instance(
        Cluster(nodes=2, gpus_per_node=4, gpu_mem_gb=24.0, intra_bw_gbps=20.0, inter_bw_gbps=3.5),
        (
            Job(3, 12.25, 2, "bert", 4, 1000),
            Job(0, 0.0, 8, duration=1e-3),
            Job(1, 0.0, 1, duration=123456.789),
            Job(2, 7.0, 4, "shufflenet_v2", 128, 1),
        ),
        name="round-trip",
    )
    path = tmp_path / "sub" / "inst.json"
    write_instance(inst, path)
    back = read_instance(path)
    assert back == inst
    assert back.jobs == inst.jobs and back.name == "round-trip"
    data = json.loads(path.read_text())
    assert data["schema"] == SCHEMA
    assert [j["id"] for j in data["jobs"]] == [0, 1, 2, 3]
    assert not list(tmp_path.glob("sub/.*.tmp")), "atomic write leaves no temporary file"


def test_round_trip_default_workload(tmp_path: Path) -> None:
    """The 200-job default workload survives write/read (and dict form) unchanged."""
    inst = default_workload(3)
    path = tmp_path / "default.json"
    write_instance(inst, path)
    assert read_instance(path) == inst
    assert instance_from_dict(json.loads(json.dumps(instance_to_dict(inst)))) == inst


def test_from_dict_without_source_has_no_file() -> None:
    """In-memory data: the error names job and field, and source stays None."""
    data = {
        "schema": SCHEMA,
        "cluster": {"nodes": 1, "gpus_per_node": 1, "gpu_mem_gb": 12},
        "jobs": [{"id": 9, "arrival": -1, "gpus": 1, "duration": 5}],
    }
    with pytest.raises(InstanceError) as info:
        instance_from_dict(data)
    assert (info.value.source, info.value.row, info.value.field) == (None, 9, "arrival")
    assert str(info.value).startswith("job 9, field 'arrival'")


def test_optional_job_keys_round_trip(tmp_path: Path) -> None:
    """estimate, vc and user are read and written back; a whole-number estimate becomes a float;
    a job without them is written with exactly the keys it had before they existed."""
    data = {
        "schema": SCHEMA,
        "cluster": {"nodes": 1, "gpus_per_node": 4, "gpu_mem_gb": 24},
        "jobs": [
            {"id": 0, "arrival": 0, "gpus": 1, "duration": 600, "estimate": 900, "vc": "vcA"},
            {
                "id": 1,
                "arrival": 5.5,
                "gpus": 2,
                "model": "dqn",
                "batch": 128,
                "iterations": 10,
                "estimate": 1e4,
                "user": "u é 1",
            },
            {"id": 2, "arrival": 7.0, "gpus": 1, "duration": 60.0, "vc": None, "user": None},
        ],
    }
    inst = instance_from_dict(data)
    assert (inst.job(0).estimate, inst.job(0).vc, inst.job(0).user) == (900.0, "vcA", None)
    assert isinstance(inst.job(0).estimate, float)
    assert (inst.job(1).estimate, inst.job(1).vc, inst.job(1).user) == (1e4, None, "u é 1")
    assert inst.job(2) == Job(2, 7.0, 1, duration=60.0)
    out = instance_to_dict(inst)
    assert out["jobs"] == [
        {"id": 0, "arrival": 0.0, "gpus": 1, "duration": 600.0, "estimate": 900.0, "vc": "vcA"},
        {
            "id": 1,
            "arrival": 5.5,
            "gpus": 2,
            "model": "dqn",
            "batch": 128,
            "iterations": 10,
            "estimate": 1e4,
            "user": "u é 1",
        },
        {"id": 2, "arrival": 7.0, "gpus": 1, "duration": 60.0},
    ]
    path = tmp_path / "optional.json"
    write_instance(inst, path)
    text = path.read_text(encoding="utf-8")
    assert read_instance(path) == inst
    write_instance(read_instance(path), path)
    assert path.read_text(encoding="utf-8") == text  # stable: the second write is identical


def test_files_without_the_optional_keys_round_trip_byte_identically(tmp_path: Path) -> None:
    """Every instance file of instances/ (written by write_instance before the optional job keys
    existed) is written back byte for byte."""
    suite = sorted(DATA.parents[1].joinpath("instances").glob("*.json"))
    checked = 0
    for path in suite:
        text = path.read_text(encoding="utf-8")
        if json.loads(text).get("schema") != SCHEMA:
            continue  # not an instance (e.g. the optima table)
        out = tmp_path / path.name
        write_instance(read_instance(path), out)
        assert out.read_text(encoding="utf-8") == text, path.name
        checked += 1
    assert checked >= 10
