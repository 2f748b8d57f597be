"""The bounds ``solve_offline`` computes besides the model (docs/formulations.md §2.10), under
either clock (§2.6): the relaxation, the fluid LP and (when asked) the column-generation bound
before it, the placement-free CP-SAT bound after an unproven solve."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from formulations.bounds.colgen import ColgenRun, colgen_bound
from formulations.bounds.fluid import SECONDS_PER_VARIABLE, fluid_bound, fluid_size
from formulations.bounds.placement_free import placement_free_bound
from formulations.bounds.relaxation import RelaxationBound, relaxation_bound
from formulations.offline.data import OfflineData
from formulations.offline.heuristic import HeuristicRun
from formulations.offline.observe import Tracker
from formulations.offline.preprocess import preprocess
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance


@dataclass(frozen=True)
class EarlyBounds:
    """What :func:`early_bounds` found: the data with its lower bound raised, the bounds
    (``None`` when not run) and why the fluid LP did not run (``None`` when it did)."""

    data: OfflineData
    relaxed: RelaxationBound | None
    fluid: RelaxationBound | None
    fluid_skipped: str | None
    colgen: ColgenRun | None = None
    colgen_skipped: str | None = None

    def values(self) -> dict[str, float | None]:
        """Each bound (average JCT, s; ``None``: not run or none), by :data:`EARLY_BOUNDS`."""
        generated = None if self.colgen is None else self.colgen.bound
        found = (self.relaxed, self.fluid, generated)
        return {k: None if b is None else b.bound for k, b in zip(EARLY_BOUNDS, found, strict=True)}

    def records(self) -> dict[str, Any]:
        """What ``solve_offline`` keeps in its ``info``: each bound's record, and why one was
        skipped."""
        out: dict[str, Any] = {}
        for key, text in (("fluid_skipped", self.fluid_skipped),
                          ("colgen_skipped", self.colgen_skipped)):  # fmt: skip
            if text is not None:
                out[key] = text
        for key, found in (("relaxation", self.relaxed), ("fluid", self.fluid)):
            if found is not None:
                out[key] = found.as_info()
        if self.colgen is not None:
            out["colgen"] = self.colgen.bound.as_info() | {
                "rounds": self.colgen.iterations,
                "columns": self.colgen.columns,
            }
        return out


#: The bounds :func:`early_bounds` may compute, as ``info["bounds"]`` names them.
EARLY_BOUNDS = ("relaxation", "fluid", "colgen")


def early_bounds(
    data: OfflineData, seed: int, deadline: float | None, tracker: Tracker, colgen: bool = False
) -> EarlyBounds:
    """The placement-free relaxation, the fluid LP and, with ``colgen``, the column-generation
    bound on ``data``; each bound that beats the preprocessing's raises
    ``data.lower_bound_total``.

    ``deadline`` (wall-clock mode; ``None``: each bound's own guard) cuts HiGHS's limits to the
    time left, the fluid LP runs only if building it, which cannot be stopped, is estimated
    at most half of the time left (``SECONDS_PER_VARIABLE`` per variable), and column
    generation stops at the first round that ends after it (its bound is valid at every round).
    """
    if data.infeasible is not None:
        return EarlyBounds(data, None, None, None)
    tracker.phase("relaxation")
    relaxed = relaxation_bound(data, seed=seed, deadline=deadline)
    tracker.observe("bound", relaxed.bound)
    fluid, skipped = None, None
    estimate = fluid_size(data) * SECONDS_PER_VARIABLE
    if deadline is None or estimate <= (deadline - time.monotonic()) / 2:
        tracker.phase("fluid")
        fluid = fluid_bound(data, seed=seed, deadline=deadline)
        tracker.observe("bound", fluid.bound)
    else:
        skipped = (
            f"building the fluid LP would take about {estimate:.0f} s, more than half the time left"
        )
    generated, colgen_skipped = None, None
    if colgen and deadline is not None and time.monotonic() >= deadline:
        colgen_skipped = "no time left for the column-generation bound"
    elif colgen:
        tracker.phase("column generation")
        generated = colgen_bound(data, deadline=deadline)
        tracker.observe("bound", generated.bound.bound)
    found = [relaxed, fluid, None if generated is None else generated.bound]
    for value in (None if bound is None else bound.bound for bound in found):
        if value is not None and value * len(data.jobs) > data.lower_bound_total:
            data = replace(data, lower_bound_total=value * len(data.jobs))
    return EarlyBounds(data, relaxed, fluid, skipped, generated, colgen_skipped)


def placement_free_step(
    instance: Instance,
    data: OfflineData,
    incumbent: HeuristicRun | None,
    seconds: float,
    wall: float,
    lb_tree: bool,
    *,
    seed: int,
    num_workers: int,
    horizon: int | None,
    interference: Interference,
    deterministic: bool,
    tracker: Tracker,
) -> tuple[OfflineData, RelaxationBound]:
    """The placement-free CP-SAT bound (§2.10 item 6) for ``seconds`` more: deterministic time
    (``deterministic``) or wall-clock seconds, stopped in any case after ``wall`` wall-clock
    seconds. Its windows come from ``incumbent``, the model's better schedule, if given (§2.2;
    preprocessed again without the heuristics, the pairs following the narrower windows).
    Returns the data it ran on and the bound."""
    tracker.phase("placement-free")
    free_data = data
    if incumbent is not None:
        free_data = preprocess(
            instance, data.dt, interference=interference, horizon=horizon, max_cells=None,
            incumbent=incumbent,
        )  # fmt: skip
    found = placement_free_bound(
        free_data,
        time_limit=seconds,
        workers=num_workers,
        seed=seed,
        deadline=time.monotonic() + wall,
        lb_tree_search=lb_tree,
        deterministic=deterministic,
    )
    tracker.observe("bound", found.bound)
    return free_data, found
