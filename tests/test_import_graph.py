"""No import cycle between any two modules of the toolkit, TYPE_CHECKING imports included.

The layers contract (``lint-imports``, pyproject.toml) forbids imports that go up a layer; this
also forbids cycles inside a layer (a local or TYPE_CHECKING import that would hide one).
"""

from __future__ import annotations

import networkx as nx
import pytest

grimp = pytest.importorskip("grimp")  # installed with import-linter (the dev extra)


def test_no_import_cycle() -> None:
    graph = grimp.build_graph("sjfbsbf", "formulations")
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    cycles = sorted(sorted(c) for c in nx.simple_cycles(edges) if len(c) > 1)
    assert not cycles, cycles
