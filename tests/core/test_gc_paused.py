"""The cyclic collector is paused while JSON is read and an instance built, then restored."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sjfbsbf.core.errors import InstanceError
from sjfbsbf.core.instance_io import read_instance
from sjfbsbf.core.jsonio import gc_paused, loads


def _instance_text() -> str:
    return json.dumps(
        {
            "schema": "sjfbsbf.instance/1",
            "cluster": {"nodes": 1, "gpus_per_node": 8, "gpu_mem_gb": 48},
            "jobs": [{"id": 0, "arrival": 0, "gpus": 1, "duration": 60}],
        }
    )


@pytest.fixture
def gc_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_inside_and_restored_after(gc_enabled: None) -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_error(gc_enabled: None, tmp_path: Path) -> None:
    with pytest.raises(InstanceError):
        loads('{"a": 1, "a": 2}', "x.json")
    assert gc.isenabled()
    bad = tmp_path / "bad.json"
    bad.write_text(_instance_text().replace('"gpus": 1', '"gpus": 0'))
    with pytest.raises(InstanceError, match="gpus"):
        read_instance(bad)
    assert gc.isenabled()


def test_left_disabled_when_it_was_disabled(gc_enabled: None, tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text(_instance_text())
    gc.disable()
    try:
        with gc_paused():
            pass
        assert read_instance(path).num_jobs == 1
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_reading_pauses_the_collector(
    gc_enabled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse and the build run with the collector off (the reason the pause exists)."""
    import sjfbsbf.core.instance_io as instance_io

    seen: list[bool] = []
    build = instance_io.instance_from_dict

    def spy(data: object, source: str | None = None) -> object:
        seen.append(gc.isenabled())
        return build(data, source)

    monkeypatch.setattr(instance_io, "instance_from_dict", spy)
    path = tmp_path / "ok.json"
    path.write_text(_instance_text())
    read_instance(path)
    assert seen == [False]
    assert gc.isenabled()


def test_parsing_pauses_the_collector(gc_enabled: None, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    parse = json.loads

    def spy(text: str, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return parse(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(json, "loads", spy)
    assert loads('{"a": [1, 2.5]}', "x.json") == {"a": [1, 2.5]}
    assert seen == [False]
    assert gc.isenabled()
