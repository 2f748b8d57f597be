"""Every Python block of README.md and docs/architecture.md runs as written, in order, in one
namespace per file.

The README is the first thing a user runs, and the architecture page's extension examples are
how they extend it; this keeps both from drifting from the code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, ROOT / "docs" / "architecture.md"]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[str]:
    """The bodies of the ```python fenced blocks of a Markdown text, in order."""
    return [m.group(1) for m in _BLOCK.finditer(text)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_has_python_blocks(doc: Path) -> None:
    assert len(python_blocks(doc.read_text(encoding="utf-8"))) >= 2


def test_block_parser_finds_only_python_blocks() -> None:
    text = "a\n```bash\nls\n```\n```python\nx = 1\n```\n```json\n{}\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "y = 2\n"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_python_blocks_run_in_order(doc: Path, tmp_path: Path) -> None:
    # A fresh interpreter, as a reader has: nothing registered or imported by other tests.
    blocks = python_blocks(doc.read_text(encoding="utf-8"))
    runner = (
        "import json, sys\n"
        "namespace = {'__name__': '__doc__'}\n"
        "for number, block in enumerate(json.load(sys.stdin), 1):\n"
        f"    exec(compile(block, f'{doc.name} python block {{number}}', 'exec'), namespace)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", runner],
        input=json.dumps(blocks),
        cwd=tmp_path,  # blocks may write files (e.g. a figure)
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
