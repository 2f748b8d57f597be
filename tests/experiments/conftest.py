"""Fixtures of the experiment tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sjfbsbf.experiments import sweep_records


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Labels of the runs executed in this process (serial sweeps)."""
    executed: list[str] = []
    original = sweep_records.execute

    def counting(run: Any, details: dict[str, Any] | None = None) -> dict[str, Any]:
        executed.append(f"{run.label}/{run.seed}")
        return original(run, details)

    monkeypatch.setattr(sweep_records, "execute", counting)
    yield executed
