"""Citations point at the model of record, and at sections that exist.

The model of record is docs/model.md with docs/formulations.md. So:

* no file cites the external design document the model was first written against (its
  capitalised name, matched as a whole word by :data:`EXTERNAL_DOC`), outside the folders in
  :data:`EXTERNAL_DOC_EXEMPT_DIRS`;
* every citation ``docs/model.md §N`` or ``docs/formulations.md §N.M`` in the repository (lists
  and ranges too: ``§3, §8``, ``§4–§5``), in every folder, names a numbered heading of that file:
  ``## N.`` for §N, ``### N.M`` for §N.M.

The files checked are those git tracks or would track (``git ls-files --cached --others
--exclude-standard``), so build outputs, caches and virtual environments are left out.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The external document's name, built in two pieces so that this file does not cite it.
EXTERNAL_DOC = re.compile(r"\b" + "DES" + "IGN" + r"\b")

#: Top-level folders not yet checked for citations of the external document (being fixed
#: separately). Remove an entry once its folder is clean; an empty tuple checks everything.
EXTERNAL_DOC_EXEMPT_DIRS: tuple[str, ...] = ()

#: The documents that may be cited by section, relative to the repository root.
CITED_DOCS = ("docs/model.md", "docs/formulations.md")

_SECTION = r"§\d+(?:\.\d+)?"
#: ``docs/model.md §4``, ``docs/model.md §3, §8``, ``docs/model.md §4–§5``,
#: ``[docs/formulations.md](docs/formulations.md) §2``; the section may follow a line break.
_CITATION = re.compile(
    r"(docs/(?:model|formulations)\.md)\)?\s+"
    rf"({_SECTION}(?:\s*(?:,|–|-|and|or)\s*{_SECTION})*)"
)
_HEADING = re.compile(r"^(#{2,3})\s+(\d+(?:\.\d+)?)\.?\s", re.MULTILINE)

_SKIP_DIRS = {".git", "__pycache__", "build", "dist", "out", "results", "mutants"}


def repository_files() -> list[Path]:
    """Every file of the repository (tracked or not ignored), relative to :data:`ROOT`."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        return sorted(Path(name) for name in listed.split("\0") if name)
    except (OSError, subprocess.CalledProcessError):  # no git, or not a checkout
        found = []
        for folder, dirs, files in os.walk(ROOT):
            dirs[:] = [
                d
                for d in dirs
                if d not in _SKIP_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
            ]
            found += [Path(folder, f).relative_to(ROOT) for f in files]
        return sorted(found)


def read_text(path: Path) -> str | None:
    """The file's text (undecodable bytes replaced), or None if it is gone or not a file.

    Not a file: a symbolic link to a folder, e.g. the ``shared`` link to the data that
    docs/testing.md suggests, which git lists as one entry.
    """
    try:
        return (ROOT / path).read_bytes().decode("utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):  # deleted in the work tree, or a folder
        return None


def headings(text: str) -> set[str]:
    """Numbered sections of Markdown text: ``"2"`` for ``## 2. ...``, ``"2.5"`` for ``### 2.5``.

    Only ``##`` headings number sections and only ``###`` headings number subsections.
    """
    found = set()
    for hashes, number in _HEADING.findall(text):
        if (len(hashes) == 2) == ("." not in number):
            found.add(number)
    return found


def citations(text: str) -> list[tuple[int, str, str]]:
    """``(line, document, section)`` for every section cited in ``text``."""
    out = []
    for match in _CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for section in re.findall(r"§(\d+(?:\.\d+)?)", match.group(2)):
            out.append((line, match.group(1), section))
    return out


def test_parsers() -> None:
    text = (
        "see docs/model.md §3, §8 and [docs/formulations.md](docs/formulations.md) §2.\n"
        "(docs/model.md\n    §4–§5); docs/formulations.md §2.9, docs/model.md section 1\n"
    )
    assert citations(text) == [
        (1, "docs/model.md", "3"),
        (1, "docs/model.md", "8"),
        (1, "docs/formulations.md", "2"),
        (2, "docs/model.md", "4"),
        (2, "docs/model.md", "5"),
        (3, "docs/formulations.md", "2.9"),
    ]
    doc = "# T\n\n## 1. A\n\n### 1.1 B\n\n## 2. C (`x.py`)\n\n### Unnumbered\n    ## 9. code\n"
    assert headings(doc) == {"1", "1.1", "2"}
    assert EXTERNAL_DOC.search("as the " + "DES" + "IGN §2 says")
    assert not EXTERNAL_DOC.search("the design; " + "DES" + "IGNED; X_" + "DES" + "IGN_Y")


def test_no_citation_of_the_external_design_document() -> None:
    offenders = []
    for path in repository_files():
        if path.parts and path.parts[0] in EXTERNAL_DOC_EXEMPT_DIRS:
            continue
        text = read_text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if EXTERNAL_DOC.search(line):
                offenders.append(f"{path}:{number}: {line.strip()}")
    assert not offenders, (
        "cite docs/model.md or docs/formulations.md (by section) instead:\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize("doc", CITED_DOCS)
def test_cited_documents_have_numbered_sections(doc: str) -> None:
    assert "1" in headings((ROOT / doc).read_text(encoding="utf-8"))


def test_every_section_citation_exists() -> None:
    sections = {doc: headings((ROOT / doc).read_text(encoding="utf-8")) for doc in CITED_DOCS}
    found = 0
    missing = []
    for path in repository_files():
        text = read_text(path)
        if text is None:
            continue
        for line, doc, section in citations(text):
            found += 1
            if section not in sections[doc]:
                missing.append(f"{path}:{line}: {doc} §{section}")
    assert found > 50, f"only {found} citations found: is the pattern still right?"
    assert not missing, "cited sections that do not exist:\n" + "\n".join(missing)
