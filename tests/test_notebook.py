"""The quick-start notebook (docs/quickstart.ipynb) runs as written: every cell executes without
error in a fresh kernel, from a folder outside the checkout (issue 36: it found instances/ by
walking up from the working folder), and produces what it promises."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "quickstart.ipynb"


def test_quickstart_notebook_runs_as_written(tmp_path: Path) -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = [cell.get("outputs", []) for cell in notebook.cells if cell.cell_type == "code"]
    texts = [
        "".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in cell)
        for cell in outputs
    ]
    assert "60 jobs on" in texts[0]
    assert "average JCT: sjf" in texts[1]
    assert "sjf-bsbf" in texts[2]
    assert any("image/png" in o.get("data", {}) for o in outputs[3])  # the Gantt chart
    assert "optimal" in texts[4] and "gap in [" in texts[4]
    assert "sjf-bsbf" in texts[5] and "wl_rate_factor" in texts[5]
    errors = [o for cell in outputs for o in cell if o.get("output_type") == "error"]
    assert not errors


def test_the_notebook_imports_no_internals() -> None:
    """Its solver cell uses the public face: ``import formulations as fm`` and ``sjfbsbf``."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "formulations." not in code.replace("import formulations as fm", "")
    assert "sjfbsbf.experiments.gap" not in code and ".parents" not in code
