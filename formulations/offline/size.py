"""How large the time-indexed offline model would be, estimated before it is built.

The model has, per job, a few variables per slot and per GPU, and per pair of jobs a few per slot
in which both may run (docs/formulations.md §2.3), so its size grows like

    cells = jobs × slots × GPUs + jobs·(jobs − 1)/2 × slots.

:func:`check_size` refuses a model above :data:`MAX_MODEL_CELLS` before any of it is built (a
2-job instance of year-long jobs at dt = 60 s would otherwise allocate gigabytes), and says what
would fit: a coarser ``dt`` or fewer jobs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

#: Largest model :func:`check_size` accepts (cells as in the module docstring). Measured on
#: duration-only jobs on 8 GPUs (2-core machine): 87,000 cells build in 5 s and 0.23 GB,
#: 700,000 in 91 s and 1.6 GB, 2.6 million in 410 s and 6.4 GB; at this limit building takes
#: about half a minute and under 1 GB. The suite's models have fewer than 2,000 cells.
MAX_MODEL_CELLS = 300_000


class ModelTooLarge(ValueError):
    """The offline model would exceed the size limit; the message says what would fit."""


@dataclass(frozen=True, slots=True)
class ModelSize:
    """An estimate of the offline model's size.

    Attributes
    ----------
    jobs, slots, gpus
        Jobs, modelled slots (estimated from the best heuristic's schedule) and GPUs.
    dt
        Slot length (s).
    slots_at
        The same estimate's slots at another slot length (``None``: assumed to shrink as
        1/dt); what the refusal's dt hint is computed from, so that the dt it names fits.
    """

    jobs: int
    slots: int
    gpus: int
    dt: float
    slots_at: Callable[[float], int] | None = field(default=None, compare=False)

    @property
    def cells(self) -> int:
        """jobs × slots × GPUs + job pairs × slots."""
        return cells(self.jobs, self.slots, self.gpus)


def cells(jobs: int, slots: int, gpus: int) -> int:
    """Model size of ``jobs`` jobs over ``slots`` slots on ``gpus`` GPUs."""
    return jobs * slots * gpus + jobs * (jobs - 1) // 2 * slots


def check_size(size: ModelSize, limit: int | None = MAX_MODEL_CELLS) -> None:
    """Raise :class:`ModelTooLarge` if ``size`` exceeds ``limit`` (``None``: no limit)."""
    if limit is None or size.cells <= limit:
        return
    hints = []
    coarser = coarser_dt(size, limit)
    if coarser is not None:
        shown = f"{coarser:,.0f}" if coarser >= 10 else f"{coarser:g}"
        hints.append(f"a coarser dt ({shown} s or more)")
    fewer = _most_jobs(size, limit)
    if 0 < fewer < size.jobs:
        hints.append(f"at most {fewer} jobs at this dt")
    raise ModelTooLarge(
        f"the offline model would have about {size.cells:,} cells ({size.jobs} jobs × "
        f"{size.slots:,} slots of {size.dt:g} s × {size.gpus} GPUs, plus job pairs × slots), "
        f"above the limit of {limit:,}; what would fit: " + " or ".join(hints)
    )


#: Most candidate slot lengths :func:`coarser_dt` tries (1, 2, 5 × 10^k from dt up: 60 decades).
MAX_CANDIDATES = 180


def coarser_dt(size: ModelSize, limit: int) -> float | None:
    """The smallest of 1, 2, 5 × 10^k above ``size.dt`` at which the same estimate fits
    ``limit`` (``None`` if none does: e.g. one slot per job already exceeds it, or a given
    horizon fixes the slots). With ``slots_at`` the estimate is recomputed at each candidate, so
    a second refusal at the dt named never names a larger one; without it, slots are assumed to
    shrink as 1/dt."""
    candidate = _nice_ceil(size.dt * (1 + 1e-9))
    for _ in range(MAX_CANDIDATES):
        if candidate > size.dt:
            slots = (
                math.ceil(size.slots * size.dt / candidate)
                if size.slots_at is None
                else size.slots_at(candidate)
            )
            if cells(size.jobs, slots, size.gpus) <= limit:
                return candidate
        candidate = _nice_ceil(candidate * (1 + 1e-9))
    return None


#: Most heuristic runs :func:`confirmed` spends on one refusal's hint.
MAX_HINT_RUNS = 8


def confirmed(
    size: ModelSize,
    run: Callable[[float], int],
    limit: int | None,
    runs: int = MAX_HINT_RUNS,
) -> ModelSize:
    """``size`` whose slots at another dt also count ``run(dt)`` (the heuristic run again at
    that dt: a coarser run may finish later), wherever the estimate alone would fit the limit.

    At most ``runs`` runs, from the finest candidate up; past them the estimate alone is used
    (the hint is then unconfirmed, as without ``run``).
    """
    estimate = size.slots_at
    if estimate is None or limit is None:
        return size
    left = [runs]

    def at(d: float) -> int:
        slots = estimate(d)
        if left[0] <= 0 or cells(size.jobs, slots, size.gpus) > limit:
            return slots
        left[0] -= 1
        return max(slots, run(d))

    return ModelSize(size.jobs, size.slots, size.gpus, size.dt, at)


def _most_jobs(size: ModelSize, limit: int) -> int:
    """Largest job count whose model fits, with the same slots and GPUs (slots shrink too)."""
    count = size.jobs
    while count > 0 and cells(count, size.slots, size.gpus) > limit:
        count -= 1
    return count


def _nice_ceil(value: float) -> float:
    """The smallest of 1, 2, 5 × 10^k that is ≥ ``value``."""
    if value <= 0 or not math.isfinite(value):
        return value
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * power >= value * (1 - 1e-12):
            return step * power
    return 10.0 * power
