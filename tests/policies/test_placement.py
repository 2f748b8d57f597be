"""Placement on idle GPUs (docs/model.md §5): fewest nodes, then best fit, then lowest ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sjfbsbf.policies.placement import place_on_free, take


def test_one_node_that_fits_best_is_taken() -> None:
    free = [[0, 1, 2], [4, 5], [8, 9, 10, 11]]
    assert place_on_free(free, 2) == (4, 5)  # the tightest node that holds 2
    assert place_on_free(free, 3) == (0, 1, 2)
    assert place_on_free(free, 4) == (8, 9, 10, 11)
    assert place_on_free(free, 1) == (4,)


def test_equal_fits_go_to_the_lowest_node_and_lowest_gpus() -> None:
    assert place_on_free([[], [5, 6, 7], [1, 2, 3]], 2) == (5, 6)
    assert place_on_free([[2, 3], [4, 5]], 1) == (2,)


def test_too_few_idle_gpus_gives_none_and_exactly_enough_fits() -> None:
    assert place_on_free([[0], [4]], 3) is None
    assert place_on_free([[0], [4, 5]], 3) == (0, 4, 5)
    assert place_on_free([[], []], 1) is None
    assert place_on_free([[0, 1]], 2) == (0, 1)


def test_across_nodes_the_fullest_nodes_come_first() -> None:
    # 5 GPUs: node 1 (3 idle) then node 2 (2 idle); node 0's single GPU is not needed.
    assert place_on_free([[0], [4, 5, 6], [8, 9]], 5) == (4, 5, 6, 8, 9)
    # Ties between equally idle nodes go to the lower node id.
    assert place_on_free([[0, 1], [4, 5], [8, 9]], 3) == (0, 1, 4)
    # Only as many GPUs of the last node as still needed, lowest ids first.
    assert place_on_free([[0, 1, 2], [4, 5, 6]], 4) == (0, 1, 2, 4)


@pytest.mark.parametrize("per_node", [None, 4])
def test_take_removes_exactly_the_placement(per_node: int | None) -> None:
    free = [[0, 1, 2], [4, 5]]
    take(free, (1, 5), per_node)
    assert free == [[0, 2], [4]]
    take(free, (), per_node)
    assert free == [[0, 2], [4]]


@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=4),
    st.integers(1, 12),
)
def test_placement_uses_the_fewest_nodes(idle_per_node: list[int], gpus: int) -> None:
    per = 4
    free = [[n * per + k for k in range(c)] for n, c in enumerate(idle_per_node)]
    placement = place_on_free([list(f) for f in free], gpus)
    if sum(idle_per_node) < gpus:
        assert placement is None
        return
    assert placement is not None and len(placement) == gpus == len(set(placement))
    assert list(placement) == sorted(placement)
    assert set(placement) <= {g for f in free for g in f}
    nodes = {g // per for g in placement}
    counts = sorted(idle_per_node, reverse=True)
    fewest = next(k for k in range(1, len(counts) + 1) if sum(counts[:k]) >= gpus)
    assert len(nodes) == fewest
