"""Where the suite of small instances is, from any working folder (docs/formulations.md §2.8).

The suite (``instances/``: the JSON instances and their ``optima.json``) ships with the
repository, not inside the installed packages. :func:`suite_dir` finds it, first match wins:

1. the folder named by the environment variable ``SJFBSBF_SUITE``;
2. ``instances/`` beside the installed ``formulations`` package (an editable install, or the
   source tree on ``sys.path``);
3. ``instances/`` of the local folder pip installed the distribution from (``pip install .``
   records it in the distribution's ``direct_url.json``).

A folder counts only if it holds ``optima.json``; with none found, the refusal says how to
point at one. :func:`suite_instance` reads one instance by name.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from formulations.offline.suite import OPTIMA_FILE, natural_key, read_optima
from sjfbsbf.core.instance_io import read_instance
from sjfbsbf.core.model import Instance

#: The environment variable that names the suite folder.
SUITE_ENV = "SJFBSBF_SUITE"
#: The distribution whose install record may name the checkout.
DISTRIBUTION = "sjfbsbf"


def suite_dir() -> Path:
    """The suite folder (module docstring's order).

    Raises
    ------
    FileNotFoundError
        One line: ``SJFBSBF_SUITE`` names a folder without ``optima.json``, or no suite was found.
    """
    named = os.environ.get(SUITE_ENV)
    if named:
        folder = Path(named)
        if not (folder / OPTIMA_FILE).is_file():
            raise FileNotFoundError(f"{SUITE_ENV}={named}: no {OPTIMA_FILE} in that folder")
        return folder
    for found in (_beside_package(), _installed_from()):
        if found is not None and (found / OPTIMA_FILE).is_file():
            return found
    raise FileNotFoundError(
        "the suite of instances ships with the repository, not with the installed package: set "
        f"{SUITE_ENV} to the checkout's instances/ folder"
    )


def suite_instance(name: str) -> Instance:
    """The suite instance ``name`` (e.g. ``"n6-g4-all-a"``), by its entry in ``optima.json``.

    Raises
    ------
    FileNotFoundError
        Without a suite (:func:`suite_dir`).
    KeyError
        For a name the suite does not have (the message lists a few that it has).
    """
    folder = suite_dir()
    optima = read_optima(folder / OPTIMA_FILE)
    if name not in optima:
        known = sorted(optima)
        shown = ", ".join(sorted(known, key=natural_key)[:5]) + (", ..." if len(known) > 5 else "")
        raise KeyError(f"no suite instance {name!r} in {folder} ({len(known)} of them: {shown})")
    return read_instance(folder / optima[name].file)


def _beside_package() -> Path | None:
    """``instances/`` beside the ``formulations`` package (this file is
    ``formulations/offline/suite_files.py``)."""
    return Path(__file__).resolve().parents[2] / "instances"


def _installed_from() -> Path | None:
    """``instances/`` of the local folder the distribution was installed from, if recorded."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        url = json.loads(text).get("url", "")
    except (ValueError, AttributeError):
        return None
    parsed = urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path)) / "instances"
