"""The offline model's data, computed once and read by both backends (docs/formulations.md §2.2).

:class:`OfflineData` holds the instance, the slot length, one :class:`JobData` per job (its
:class:`OptionData` and windows) and one :class:`PairData` per pair of jobs that may co-run (its
:class:`PairOption` combinations). :func:`formulations.offline.preprocess.preprocess` fills it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from formulations.offline.heuristic import HeuristicRun
from sjfbsbf.core.interference import Interference
from sjfbsbf.core.model import Instance


@dataclass(frozen=True, slots=True)
class OptionData:
    """One way of running a job: accumulation factor and whether its placement spans nodes.

    Attributes
    ----------
    accumulation
        Accumulation factor s (micro-batch B / s).
    spans
        Whether the placement spans nodes (slower all-reduce).
    duration_s
        Exclusive duration of the whole job with this option (s).
    memory_gb
        Memory per GPU (GB).
    alone
        Work units one full slot brings alone.
    """

    accumulation: int
    spans: bool
    duration_s: float
    memory_gb: float
    alone: int


@dataclass(frozen=True, slots=True)
class PairOption:
    """Two jobs' options side by side on a GPU.

    Attributes
    ----------
    first_option, second_option
        Option indices of the pair's first and second job.
    fits
        Whether their memory fits in one GPU and the interference model lets them share.
    first_progress, second_progress
        Work units one full slot brings each while they co-run (each job's ``alone`` if they
        do not fit: they never co-run then).
    first_slowdown, second_slowdown
        ξ of each beside the other (``inf`` for a pair the interference model forbids).
    """

    first_option: int
    second_option: int
    fits: bool
    first_progress: int
    second_progress: int
    first_slowdown: float
    second_slowdown: float

    def progress(self, first: bool) -> int:
        """Full-slot progress of the first (or second) job."""
        return self.first_progress if first else self.second_progress

    def option(self, first: bool) -> int:
        """Option index of the first (or second) job."""
        return self.first_option if first else self.second_option


@dataclass(frozen=True)
class JobData:
    """Everything the model needs about one job (positions follow ``instance.jobs``).

    Attributes
    ----------
    job_id, arrival, gpus
        From the instance.
    work
        Work units of the whole job.
    options
        Its options.
    link_spans
        Whether the model must tie the option's ``spans`` to the placement (the job has options
        with and without spanning).
    min_jct_s
        Lower bound on its JCT in the model (s).
    first_start, last_start, first_end, last_end
        Slot windows of its start and of its last occupied slot.
    """

    job_id: int
    arrival: float
    gpus: int
    work: int
    options: tuple[OptionData, ...]
    link_spans: bool
    min_jct_s: float
    first_start: int
    last_start: int
    first_end: int
    last_end: int

    @property
    def max_progress(self) -> int:
        """Most work units one slot can bring (alone, fastest option)."""
        return max(o.alone for o in self.options)

    @property
    def slots(self) -> range:
        """Slots in which the job may hold GPUs."""
        return range(self.first_start, self.last_end + 1)

    @property
    def start_slots(self) -> range:
        """Slots in which the job may start."""
        return range(self.first_start, self.last_start + 1)

    @property
    def end_slots(self) -> range:
        """Slots that may be its last occupied one."""
        return range(self.first_end, self.last_end + 1)

    @property
    def accumulations(self) -> tuple[int, ...]:
        """Its distinct accumulation factors, ascending."""
        return tuple(sorted({o.accumulation for o in self.options}))

    def options_with(self, accumulation: int) -> tuple[int, ...]:
        """Indices of the options with accumulation factor ``accumulation``."""
        return tuple(i for i, o in enumerate(self.options) if o.accumulation == accumulation)


@dataclass(frozen=True)
class PairData:
    """Two jobs whose windows overlap, so they might share a GPU.

    Attributes
    ----------
    first, second
        Job positions, ``first < second``.
    overlap
        Slots in which both may hold GPUs (empty if their windows only touch).
    options
        Every combination of their options (first-major order).
    """

    first: int
    second: int
    overlap: range
    options: tuple[PairOption, ...]

    @property
    def any_fit(self) -> bool:
        """Whether some option pair fits in memory (otherwise they never co-run on a GPU)."""
        return bool(self.overlap) and any(c.fits for c in self.options)

    @property
    def conflicts(self) -> tuple[int, ...]:
        """Indices of the option pairs that do not fit."""
        return tuple(n for n, c in enumerate(self.options) if not c.fits)

    def other(self, position: int) -> int:
        """The pair's job that is not ``position``."""
        return self.second if position == self.first else self.first


@dataclass(frozen=True)
class OfflineData:
    """The preprocessed offline problem, read by both backends.

    Attributes
    ----------
    instance, dt, interference
        The problem, its slot length (the simulator's tick) and interference model.
    jobs
        Per-job data, by position in ``instance.jobs``.
    pairs
        Pairs of jobs that may co-run.
    nodes
        GPU ids per node.
    horizon
        Number of slots modelled (every job's ``last_end`` < horizon).
    work_units_per_slot, time_units_per_slot
        L and F of the module docstring.
    upper_bound_total
        Upper bound on the model's total JCT used for the deadlines (``None`` if none).
    heuristic
        The best heuristic run (its schedule is the solvers' hint), if one was used.
    identical
        Position pairs ``(i, k)``, ``i < k``, of identical jobs: ``start_i <= start_k`` is imposed.
    lex_rows
        Job positions whose rows order the GPU columns of each node lexicographically.
    tolerance_s
        Bound on |model average JCT − simulated average JCT| for one schedule (s).
    throughput
        θ ≥ 1: most work one GPU does in a slot, in fastest-alone slots of its residents (a pair
        that fits may exceed 1: sharing gains throughput when 1/ξ_a + 1/ξ_b > 1).
    lower_bound_total
        A lower bound on the total JCT (s): the larger of Σ_j LB_j and the SRPT bound.
    infeasible
        Why the model has no solution, when that is known before solving (else ``None``).
    """

    instance: Instance
    dt: float
    interference: Interference
    jobs: tuple[JobData, ...]
    pairs: tuple[PairData, ...]
    nodes: tuple[tuple[int, ...], ...]
    horizon: int
    work_units_per_slot: int
    time_units_per_slot: int
    upper_bound_total: float | None
    heuristic: HeuristicRun | None
    identical: tuple[tuple[int, int], ...]
    lex_rows: tuple[int, ...]
    tolerance_s: float
    infeasible: str | None = None
    job_tolerance_s: tuple[float, ...] = field(default=())
    throughput: float = 1.0
    lower_bound_total: float = 0.0

    def present(self, t: int) -> list[int]:
        """Positions of the jobs that may hold GPUs in slot ``t``."""
        return [i for i, job in enumerate(self.jobs) if t in job.slots]

    @property
    def gpus(self) -> tuple[int, ...]:
        """All GPU ids."""
        return tuple(g for node in self.nodes for g in node)

    @property
    def arrival_total(self) -> float:
        """Sum of the arrival times (s)."""
        return sum(j.arrival for j in self.jobs)

    def position(self, job_id: int) -> int:
        """Position of job ``job_id``."""
        return self.instance.index_of(job_id)
