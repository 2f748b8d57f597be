"""The checkers of sweep workload keys (sjfbsbf.experiments.sweep_params) at and around each
limit, with their exact refusals (issue 35, mutation gaps): integers between two bounds, at
least one, or one of a few; numbers above (or at least) a bound and at most another; non-empty
text, one of a few; files and dataset references; the cluster keys and their cluster."""

from __future__ import annotations

import math

import pytest

from sjfbsbf.core.model import MAX_GPU_MEM_GB, MAX_GPUS_PER_NODE, MAX_NODES, Cluster
from sjfbsbf.experiments.sweep_params import (
    CLUSTER_PARAMS,
    ParamError,
    data_file,
    integer,
    make_cluster,
    number,
    text,
)


def refusal(check, value) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as info:
        check(value)
    return str(info.value)


def test_an_integer_between_two_bounds() -> None:
    check = integer(1, 1000)
    assert (check(1), check(1000)) == (1, 1000)
    assert type(check(7)) is int
    assert refusal(check, 0) == "must be between 1 and 1,000, got 0"
    assert refusal(check, 1001) == "must be between 1 and 1,000, got 1001"
    assert refusal(check, 1.0) == "must be an integer, got 1.0"
    assert refusal(check, True) == "must be an integer, got True"


def test_an_integer_of_at_least_a_bound_or_one_of_a_few() -> None:
    assert integer(2)(2) == 2 and integer(2)(10**12) == 10**12
    assert refusal(integer(2), 1) == "must be at least 2, got 1"
    check = integer(1, choices=(30, 60))
    assert (check(30), check(60)) == (30, 60)
    assert refusal(check, 45) == "must be one of 30, 60, got 45"


def test_a_number_above_or_at_least_a_bound_and_at_most_another() -> None:
    check = number()
    assert check(1e-300) == 1e-300 and type(check(3)) is float
    assert refusal(check, 0.0) == "must be a finite number > 0, got 0.0"
    assert refusal(check, -1.0) == "must be a finite number > 0, got -1.0"
    assert refusal(check, math.inf) == "must be a finite number > 0, got inf"
    assert refusal(check, math.nan) == "must be a finite number > 0, got nan"
    assert refusal(check, True) == "must be a number, got True"
    assert refusal(check, "1") == "must be a number, got '1'"
    at_least = number(1.5, strict=False)
    assert at_least(1.5) == 1.5
    assert refusal(at_least, 1.4) == "must be a finite number >= 1.5, got 1.4"
    bounded = number(0.0, 5.0)
    assert bounded(5.0) == 5.0
    assert refusal(bounded, 5.5) == "must be a finite number > 0 and <= 5, got 5.5"


def test_text_is_non_empty_and_one_of_its_choices() -> None:
    assert text()("x") == "x"
    assert refusal(text(), "") == "must be a non-empty string, got ''"
    assert refusal(text(), 3) == "must be a non-empty string, got 3"
    check = text("a", "b")
    assert (check("a"), check("b")) == ("a", "b")
    assert refusal(check, "c") == "must be one of 'a', 'b', got 'c'"


def test_a_file_is_a_path_or_a_registered_datasets_file() -> None:
    assert data_file("x.csv") == "x.csv"
    assert data_file("data:philly-jobs/trace-data.tar.gz") == "data:philly-jobs/trace-data.tar.gz"
    assert refusal(data_file, "") == "must be a non-empty string, got ''"
    assert refusal(data_file, "data:nope/x").startswith("data:nope/x: unknown dataset 'nope'")


def test_a_param_error_names_its_key() -> None:
    error = ParamError("nodes", "must be at least 1, got 0")
    assert (error.key, error.reason) == ("nodes", "must be at least 1, got 0")
    assert str(error) == "nodes: must be at least 1, got 0"


def test_the_cluster_keys_and_their_cluster() -> None:
    nodes, per_node, memory = (CLUSTER_PARAMS[k] for k in ("nodes", "gpus_per_node", "gpu_mem_gb"))
    assert (nodes.default, per_node.default, memory.default) == (4, 8, 12.0)
    assert nodes.check(MAX_NODES) == MAX_NODES
    assert per_node.check(MAX_GPUS_PER_NODE) == MAX_GPUS_PER_NODE
    assert refusal(nodes.check, MAX_NODES + 1).startswith("must be between 1 and ")
    assert refusal(per_node.check, 0).startswith("must be between 1 and ")
    assert memory.check(MAX_GPU_MEM_GB) == MAX_GPU_MEM_GB
    assert refusal(memory.check, 0.0).startswith("must be a finite number > 0 and <= ")
    params = {"nodes": 2, "gpus_per_node": 4, "gpu_mem_gb": 16.0}
    assert make_cluster(params) == Cluster(nodes=2, gpus_per_node=4, gpu_mem_gb=16.0)
    assert make_cluster(params, nodes=3) == Cluster(nodes=3, gpus_per_node=4, gpu_mem_gb=16.0)
