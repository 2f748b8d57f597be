"""The offline model's constraint families, listed once (docs/formulations.md §2.4).

Both backends (:mod:`formulations.offline.milp`, :mod:`formulations.offline.cpsat`) define one
``add_<name>`` per family and build the model from this list, in this order
(:mod:`formulations.families`). The reductions (dominance rules, symmetry breaking, the
heuristic's bound) are marked: ``build(data, reductions=False)`` leaves them out. The no-good
cuts of the replay loop come last, from the schedules cut off so far.
"""

from __future__ import annotations

from formulations.families import Family

FAMILIES: tuple[Family, ...] = (
    Family("start_end", "§2.4"),
    Family("options", "§2.4"),
    Family("placement", "§2.4"),
    Family("capacity", "§2.4"),
    Family("corun", "§2.4"),
    Family("no_idle_wait", "§2.4", reduction=True),
    Family("fastest_when_alone", "§2.4", reduction=True),
    Family("pair_options", "§2.4"),
    Family("memory", "§2.4"),
    Family("progress", "§2.4"),
    Family("last_slot", "§2.4"),
    Family("work", "§2.4"),
    Family("valid_cuts", "§2.4"),
    Family("finish_cuts", "§2.4"),
    Family("sharing_cuts", "§2.10"),
    Family("symmetry", "§2.4", reduction=True),
    Family("upper_bound", "§2.4", reduction=True),
    Family("lower_bound", "§2.10", reduction=True),
)

#: The no-good cuts of §2.9, ``add_exclusions(model, data, v, excluded)``: one per schedule the
#: replay cut off, added after the families.
EXCLUSIONS = Family("exclusions", "§2.9")
