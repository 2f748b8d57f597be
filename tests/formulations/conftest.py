"""Fixtures of the formulations tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def backend(offline_backend: str) -> str:
    """Each offline backend in turn (the shared ``offline_backend``); the round tests override it
    by parametrizing ``backend`` directly."""
    return offline_backend
