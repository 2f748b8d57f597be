"""Every Python block of README.md and docs/architecture.md runs as written and alone, each in a
fresh interpreter.

The README is the first thing a user runs, and the architecture page's extension examples are
how they extend it; this keeps both from drifting from the code.
"""

from __future__ import annotations

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


def _blocks() -> list[tuple[Path, int, str]]:
    return [
        (doc, number, block)
        for doc in DOCS
        for number, block in enumerate(python_blocks(doc.read_text(encoding="utf-8")), 1)
    ]


@pytest.mark.parametrize(
    ("doc", "number", "block"), _blocks(), ids=[f"{d.name}-{n}" for d, n, _ in _blocks()]
)
def test_each_python_block_runs_alone(doc: Path, number: int, block: str, tmp_path: Path) -> None:
    # A fresh interpreter per block, as a reader who copies one block has: nothing imported or
    # defined by another block or by other tests (issue 36: a block used the first one's `sb`).
    runner = (
        "import sys\n"
        f"exec(compile(sys.stdin.read(), '{doc.name} python block {number}', 'exec'), "
        "{'__name__': '__doc__'})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", runner],
        input=block,
        cwd=tmp_path,  # blocks may write files (e.g. a figure)
        env={**os.environ, "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
