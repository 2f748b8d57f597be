"""Shared test configuration.

Hypothesis profiles: ``dev`` (default) draws new examples on every run, so local runs keep
exploring; ``ci`` (``HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``) is derandomized, so a CI run is
reproducible and a failure seen there can be replayed exactly.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", settings.get_profile("default"))
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
