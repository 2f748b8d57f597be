"""The ``sjfbsbf`` command line (entry point ``sjfbsbf = sjfbsbf.cli:app``).

Importing this package registers every command on :data:`app`: :mod:`sjfbsbf.cli.run`
(``simulate``, ``compare``), :mod:`sjfbsbf.cli.policies` (``policies``),
:mod:`sjfbsbf.cli.sweep` (``sweep``), :mod:`sjfbsbf.cli.research` (``solve``, ``gap``),
:mod:`sjfbsbf.cli.figs` (``figs``) and :mod:`sjfbsbf.cli.data` (``data``).
Start-up stays light: heavy packages are imported inside the commands.
"""

from sjfbsbf.cli import data, figs, policies, research, run, sweep
from sjfbsbf.cli.common import app

__all__ = ["app", "data", "figs", "policies", "research", "run", "sweep"]
