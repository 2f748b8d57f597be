"""The ``sjfbsbf`` command line (entry point ``sjfbsbf = sjfbsbf.cli:app``).

Importing this package registers every command on :data:`app`: :mod:`sjfbsbf.cli.run`
(``simulate``, ``compare``, ``policies``), :mod:`sjfbsbf.cli.research` (``sweep``, ``solve``,
``gap``) and :mod:`sjfbsbf.cli.figs` (``figs``). Start-up stays light: heavy packages are
imported inside the commands.
"""

from sjfbsbf.cli import figs, research, run
from sjfbsbf.cli.common import app

__all__ = ["app", "figs", "research", "run"]
