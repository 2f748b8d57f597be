"""Checks ``simulate`` and ``compare`` make before running: the tick count, exact-round's
whole-run budget and that the instance names VCs where a per-VC table is asked for."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from sjfbsbf.core.model import Instance


def check_dt(instance: Instance, options: dict[str, Any]) -> None:
    """Refuse a ``--dt`` too fine for the instance, in one line, before anything runs."""
    from sjfbsbf.sim.simulator import check_tick_count

    try:
        check_tick_count(instance, float(options.get("dt", 1.0)))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--dt'") from None


def warn_budget(names: Sequence[str], chosen: Mapping[str, Mapping[str, Any]], n_jobs: int) -> None:
    """One warning line when ``exact-round`` is run and its estimated worst-case solving time
    exceeds its whole-run budget (formulations/policy.py, docs/formulations.md §1.6)."""
    if "exact-round" not in names:
        return
    from formulations.policy import budget_warning, exact_round

    defaults = inspect.signature(exact_round).parameters
    given = chosen.get("exact-round", {})
    time_limit = given.get("time_limit", defaults["time_limit"].default)
    budget = given.get("budget", defaults["budget"].default)
    line = budget_warning(n_jobs, time_limit, budget)
    if line is not None:
        warnings.warn(line, UserWarning, stacklevel=2)


def check_vcs(instance: Instance, source: str) -> None:
    """Refuse ``--vc-csv`` in one line when no job of the instance names a VC."""
    if not any(job.vc is not None for job in instance.jobs):
        raise typer.BadParameter(
            f"{source}: no job names a virtual cluster (field vc)", param_hint="'--vc-csv'"
        )
