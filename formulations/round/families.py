"""The round model's constraint families, listed once (docs/formulations.md §1.4).

Both backends (:mod:`formulations.round.milp`, :mod:`formulations.round.cpsat`) define one
``add_<name>`` per family and build the model from this list, in this order
(:mod:`formulations.families`).
"""

from __future__ import annotations

from formulations.families import Family

FAMILIES: tuple[Family, ...] = (
    Family("one_option", "§1.4"),
    Family("link", "§1.4"),
    Family("gpu_take", "§1.4"),
    Family("exact_gpus", "§1.4"),
    Family("host_capacity", "§1.4"),
    Family("idle_capacity", "§1.4"),
    Family("max_partners", "§1.4"),
    Family("threshold", "§1.4"),
)
