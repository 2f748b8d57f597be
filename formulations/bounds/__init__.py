"""Lower bounds on the offline optimum (docs/formulations.md §2.10).

:func:`relaxation_bound` solves the placement-free relaxation of the offline model,
:func:`lp_bound` the LP relaxation of the offline MILP with its valid inequalities,
:func:`fluid_bound` the fluid LP that scales to 50 jobs, :func:`pairwise_bound` the
relaxation with pairs and options kept for life (as strong as the model on the suite's proven
instances, and as slow; not run by ``solve_offline``), :func:`placement_free_bound` the offline
CP-SAT model without GPU ids (the same idea in CP-SAT, faster; run by ``solve_offline`` when
asked, ``placement_free=S``), :func:`colgen_bound` the column-generation bound over whole
non-preemptive job schedules (for study: on the suite it is within 2% of the fluid LP; not run
by ``solve_offline``); the
combinatorial bounds (Σ_j LB_j and SRPT, §2.2) are computed by the preprocessing
(``OfflineData.lower_bound_total``). Each is ≤ the model's optimum, hence ≤ every schedule's
simulated average JCT up to the tolerance of §2.5.
"""

from formulations.bounds.colgen import ColgenRun, colgen_bound, full_master
from formulations.bounds.fluid import build_fluid, fluid_bound
from formulations.bounds.lp import lp_bound
from formulations.bounds.pairwise import build_pairwise, pairwise_bound
from formulations.bounds.placement_free import build_placement_free, placement_free_bound
from formulations.bounds.relaxation import RelaxationBound, build_relaxation, relaxation_bound

__all__ = [
    "ColgenRun",
    "RelaxationBound",
    "build_fluid",
    "build_pairwise",
    "build_placement_free",
    "build_relaxation",
    "colgen_bound",
    "fluid_bound",
    "full_master",
    "lp_bound",
    "pairwise_bound",
    "placement_free_bound",
    "relaxation_bound",
]
