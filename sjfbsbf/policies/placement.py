"""Placement of a job on idle GPUs: the fewest nodes, then the tightest fit, then lowest ids."""

from __future__ import annotations


def place_on_free(free_by_node: list[list[int]], gpus: int) -> tuple[int, ...] | None:
    """Choose ``gpus`` idle GPUs on as few nodes as possible, or ``None`` if too few are idle.

    If one node can hold the job, the node with the fewest idle GPUs that still fits is taken
    (best fit, keeping large holes for large jobs); otherwise nodes are taken in order of most
    idle GPUs first, which minimises the number of nodes. Ties break by node id, GPUs within a
    node by id.

    Parameters
    ----------
    free_by_node
        Idle GPU ids per node (ascending within a node).
    gpus
        Number of GPUs wanted.
    """
    if sum(len(f) for f in free_by_node) < gpus:
        return None
    fitting = [(len(f), n) for n, f in enumerate(free_by_node) if len(f) >= gpus]
    if fitting:
        _, node = min(fitting)
        return tuple(free_by_node[node][:gpus])
    chosen: list[int] = []
    for _, node in sorted((-len(f), n) for n, f in enumerate(free_by_node) if f):
        take = free_by_node[node][: gpus - len(chosen)]
        chosen.extend(take)
        if len(chosen) == gpus:
            break
    return tuple(sorted(chosen))


def take(
    free_by_node: list[list[int]], placement: tuple[int, ...], gpus_per_node: int | None = None
) -> None:
    """Remove the GPUs of ``placement`` from ``free_by_node`` (in place).

    With ``gpus_per_node``, GPU g is removed from node ``g // gpus_per_node`` directly (it must
    be idle there); without it, every node's list is filtered.
    """
    if gpus_per_node is not None:
        for g in placement:
            free_by_node[g // gpus_per_node].remove(g)
        return
    used = set(placement)
    for node_free in free_by_node:
        node_free[:] = [g for g in node_free if g not in used]
