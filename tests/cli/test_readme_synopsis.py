"""The README's command-line synopsis lists every flag of every command once (issue 36: solve's
--prove-free, --lb-tree and --search were missing, --search documented nowhere)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer

from sjfbsbf.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, Any]]:
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        return [(" ".join(path), command)]
    return [c for name, sub in subcommands.items() for c in _commands(sub, (*path, name))]


COMMANDS = _commands(typer.main.get_command(app))


def _synopsis() -> dict[str, str]:
    """Command -> its synopsis entry (from 'sjfbsbf CMD' to the next 'sjfbsbf ')."""
    text = README.read_text(encoding="utf-8")
    block = text[text.index("## Command line") :]
    block = block[block.index("```text") : block.index("```", block.index("```text") + 7)]
    entries = re.split(r"^sjfbsbf ", block, flags=re.MULTILINE)[1:]
    out: dict[str, str] = {}
    for entry in entries:
        words = entry.split()
        name = " ".join(words[:2]) if words[0] == "data" else words[0]
        out[name] = entry
    return out


def test_every_command_has_a_synopsis() -> None:
    assert sorted(_synopsis()) == sorted(name for name, _ in COMMANDS)


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[n for n, _ in COMMANDS])
def test_every_flag_is_in_its_commands_synopsis(name: str, command: Any) -> None:
    entry = _synopsis()[name]
    for param in command.params:
        flags = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("-")]
        if not flags or "--help" in flags:
            continue
        assert any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", entry) for f in flags), (
            name,
            flags,
        )
