"""Shared test configuration and fixtures.

Hypothesis profiles: ``dev`` (default) draws new examples on every run, so local runs keep
exploring; ``ci`` (``HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``) is derandomized, so a CI run is
reproducible and a failure seen there can be replayed exactly.

Fixtures used across packages: the repository root, small instances (duration-only jobs on one
GPU, and a 13-job instance file on 2 × 4 GPUs), the offline solver backends as a parametrized
fixture, and the datasets' cache: empty for every test (the user's own cache is never read),
or holding Gavel's files registered from the reference copy beside the repository
(``gavel_data``, skipped cleanly where that copy is absent; no network).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import Phase, settings

from sjfbsbf.core.instance_io import instance_to_dict
from sjfbsbf.core.model import Cluster, Instance, Job
from sjfbsbf.workloads import WorkloadSpec, generate

settings.register_profile("dev", settings.get_profile("default"))
settings.register_profile("ci", derandomize=True, print_blob=True)
# Mutation testing (docs/testing.md): the ci examples, no example database and no shrinking. A
# mutant only needs a failing example; shrinking one through whole simulations took minutes and
# turned quick kills into CPU-time "timeouts".
settings.register_profile(
    "mutation", derandomize=True, database=None, phases=[Phase.explicit, Phase.generate]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

#: The repository's root directory.
ROOT = Path(__file__).resolve().parents[1]
#: The reference copy of Gavel's files, beside the repository (``../shared/data/gavel``).
GAVEL_COPY = ROOT.parent / "shared" / "data" / "gavel"
#: What the tests set SJFBSBF_DATA_DIR to (``sjfbsbf.workloads.datasets.CACHE_ENV``).
CACHE_ENV = "SJFBSBF_DATA_DIR"


@pytest.fixture(autouse=True, scope="session")
def _empty_data_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every test starts from an empty datasets cache, whatever the user has fetched."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("empty-data-cache")))
        yield


@pytest.fixture(scope="session")
def _gavel_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding gavel-throughputs and gavel-traces, registered once from the copy."""
    if not GAVEL_COPY.is_dir():
        pytest.skip(f"Gavel's files are not beside the repository ({GAVEL_COPY})")
    from sjfbsbf.workloads import datasets

    folder = tmp_path_factory.mktemp("gavel-data-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(folder))
        datasets.fetch("gavel-throughputs", source=GAVEL_COPY)
        datasets.fetch("gavel-traces", source=GAVEL_COPY / "traces")
    return folder


@pytest.fixture
def gavel_data(_gavel_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The datasets cache of this test holds Gavel's files (``data:gavel-throughputs``,
    ``data:gavel-traces/<vc>.trace``); skipped where the reference copy is absent."""
    monkeypatch.setenv(CACHE_ENV, str(_gavel_cache))
    return _gavel_cache


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root directory (instances/, experiments/, docs/, ...)."""
    return ROOT


def one_gpu_instance(*jobs: tuple[float, float]) -> Instance:
    """Duration-only 1-GPU jobs ``(arrival, duration)`` with ids 0, 1, … on one 12 GB GPU."""
    cluster = Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=12.0)
    return Instance(cluster, tuple(Job(i, a, 1, duration=d) for i, (a, d) in enumerate(jobs)))


@pytest.fixture
def one_gpu() -> Callable[..., Instance]:
    """:func:`one_gpu_instance`: ``one_gpu((arrival, duration), ...)``."""
    return one_gpu_instance


@pytest.fixture(scope="session")
def small_instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file: 12 catalog jobs on 2 × 4 GPUs (12 GB), seed 7, plus one duration-only job."""
    spec = WorkloadSpec(
        n_jobs=12,
        cluster=Cluster(nodes=2, gpus_per_node=4, gpu_mem_gb=12),
        duration_min_s=60.0,
        duration_max_s=900.0,
    )
    data = instance_to_dict(generate(spec, np.random.default_rng(7)))
    data["name"] = "cli-small"
    data["jobs"].append({"id": 99, "arrival": 30.0, "gpus": 2, "duration": 600.0})
    path = tmp_path_factory.mktemp("instances") / "small.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(params=["cpsat", "milp"])
def offline_backend(request: pytest.FixtureRequest) -> str:
    """Each backend of the offline model in turn (CP-SAT, then the MILP with HiGHS)."""
    return str(request.param)
