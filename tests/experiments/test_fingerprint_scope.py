"""What a sweep run's code hash covers (:mod:`sjfbsbf.experiments.fingerprint`).

``code_version`` must change with any edit of a ``.py`` file of either package, ``sjfbsbf`` or
``formulations`` (a row computed before an edit of ``formulations/`` must not be reused), with a
file's name and package as well as its content, and with the release; it must not change with
files that are not Python or with the order the file system lists files in. The packages are
stand-in trees here, found through a stub of ``importlib.util.find_spec``. ``file_digest`` is
checked against SHA-256's published test vector.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
from collections.abc import Iterator
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import SimpleNamespace

import pytest

from sjfbsbf.experiments import fingerprint
from sjfbsbf.experiments.fingerprint import code_version, file_digest


class Packages:
    """Stand-in package trees under ``root``, found by the stubbed ``find_spec``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.found: dict[str, str] = {}  # package name -> directory

    def write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def find_spec(self, name: str) -> ModuleSpec | None:
        if name not in self.found:
            return None
        spec = ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(self.root / self.found[name])]
        return spec


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Packages]:
    trees = Packages(tmp_path)
    trees.found = {"sjfbsbf": "sjfbsbf", "formulations": "formulations"}
    trees.write("sjfbsbf/__init__.py", "")
    trees.write("sjfbsbf/core/model.py", "X = 1\n")
    trees.write("formulations/__init__.py", "")
    trees.write("formulations/offline/model.py", "Y = 2\n")
    monkeypatch.setattr(fingerprint, "util", SimpleNamespace(find_spec=trees.find_spec))
    yield trees


def _digest(version: str) -> str:
    return version.rpartition("+")[2]


def test_the_version_is_the_release_and_16_hex_digits() -> None:
    version = code_version()
    release, plus, digest = version.rpartition("+")
    assert plus == "+" and re.fullmatch(r"[0-9a-f]{16}", digest)
    assert release == importlib.metadata.version("sjfbsbf")


def test_the_same_sources_give_the_same_version(packages: Packages) -> None:
    assert code_version() == code_version()


@pytest.mark.parametrize(
    "relative",
    [
        "formulations/offline/model.py",
        "formulations/__init__.py",
        "sjfbsbf/core/model.py",
        "sjfbsbf/__init__.py",
    ],
)
def test_an_edit_of_any_module_of_either_package_changes_it(
    packages: Packages, relative: str
) -> None:
    before = code_version()
    packages.write(relative, (packages.root / relative).read_text(encoding="utf-8") + "# x\n")
    assert code_version() != before


def test_a_new_module_deep_in_either_package_changes_it(packages: Packages) -> None:
    before = code_version()
    packages.write("formulations/offline/deep/er/extra.py", "")
    after = code_version()
    assert after != before
    packages.write("sjfbsbf/a/b/c.py", "")
    assert code_version() not in (before, after)


def test_files_that_are_not_python_do_not_change_it(packages: Packages) -> None:
    before = code_version()
    packages.write("formulations/offline/notes.txt", "text")
    packages.write("sjfbsbf/data.json", "{}")
    packages.write("sjfbsbf/model.pyc", "")
    assert code_version() == before


def test_a_renamed_module_changes_it(packages: Packages) -> None:
    before = code_version()
    (packages.root / "sjfbsbf/core/model.py").rename(packages.root / "sjfbsbf/core/model2.py")
    assert code_version() != before


def test_a_module_moved_to_the_other_package_changes_it(packages: Packages) -> None:
    # Only the package differs: the same file names and contents, listed in the same order.
    for path in packages.root.rglob("*.py"):
        path.unlink()
    packages.write("sjfbsbf/__init__.py", "")
    packages.write("sjfbsbf/x.py", "Z = 3\n")
    before = code_version()
    (packages.root / "sjfbsbf/x.py").unlink()
    packages.write("formulations/x.py", "Z = 3\n")
    assert code_version() != before


def test_swapping_two_modules_contents_changes_it(packages: Packages) -> None:
    before = code_version()
    packages.write("sjfbsbf/core/model.py", "Y = 2\n")
    packages.write("formulations/offline/model.py", "X = 1\n")
    assert code_version() != before


def test_the_listing_order_does_not_matter(
    packages: Packages, monkeypatch: pytest.MonkeyPatch
) -> None:
    packages.write("sjfbsbf/a.py", "A = 1\n")
    packages.write("sjfbsbf/b.py", "B = 1\n")
    before = code_version()
    listed = Path.rglob

    def reversed_listing(self: Path, pattern: str) -> Iterator[Path]:
        return iter(sorted(listed(self, pattern), reverse=True))

    monkeypatch.setattr(Path, "rglob", reversed_listing)
    assert code_version() == before


def test_each_package_counts_even_when_the_other_is_not_found(packages: Packages) -> None:
    both = code_version()
    packages.found = {"formulations": "formulations"}
    only_formulations = code_version()
    assert only_formulations != both
    packages.write("formulations/offline/model.py", "Y = 3\n")
    assert code_version() != only_formulations
    packages.found = {"sjfbsbf": "sjfbsbf"}
    only_sjfbsbf = code_version()
    packages.write("sjfbsbf/core/model.py", "X = 2\n")
    assert code_version() != only_sjfbsbf


def test_a_plain_module_of_the_same_name_is_not_walked(
    packages: Packages, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module (no search locations) named like a package is skipped, not walked.
    found = packages.find_spec

    def plain_formulations(name: str) -> ModuleSpec | None:
        return ModuleSpec(name, None) if name == "formulations" else found(name)

    packages.found = {"sjfbsbf": "sjfbsbf"}
    without = code_version()
    monkeypatch.setattr(fingerprint, "util", SimpleNamespace(find_spec=plain_formulations))
    assert code_version() == without


def test_the_release_is_part_of_the_hash(
    packages: Packages, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.0")
    one = code_version()
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.0")
    two = code_version()
    assert one.startswith("1.0+") and two.startswith("2.0+")
    assert _digest(one) != _digest(two)


def test_an_unknown_release_is_named_so(
    packages: Packages, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    version = code_version()
    assert version.startswith("unknown+") and len(_digest(version)) == 16


def test_file_digest_is_the_sha256_of_the_content_with_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "abc.txt"
    path.write_bytes(b"abc")
    os.utime(path, ns=(1_000_000_000, 1_234_567_890_123_456_789))
    digest, (size, mtime_ns) = file_digest(str(path))
    # FIPS 180-2's example: SHA-256("abc").
    assert digest == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert (size, mtime_ns) == (3, 1_234_567_890_123_456_789)
