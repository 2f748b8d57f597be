"""Run several policies on one instance, the same way (the engine of ``sjfbsbf compare``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from sjfbsbf.core.model import Instance
from sjfbsbf.policies import make_policy
from sjfbsbf.sim.result import SimResult
from sjfbsbf.sim.simulator import simulate

if TYPE_CHECKING:
    import pandas as pd

#: ``progress(policy, finished_jobs, total_jobs)``; called with 0 finished when a policy starts.
PolicyProgress = Callable[[str, int, int], None]


def run_policies(
    instance: Instance,
    names: Sequence[str],
    *,
    progress: PolicyProgress | None = None,
    policy_options: Mapping[str, Mapping[str, Any]] | None = None,
    **options: Any,
) -> list[SimResult]:
    """Simulate each named policy, freshly made, on ``instance``.

    Parameters
    ----------
    instance
        The problem.
    names
        Registry names of the policies (see :func:`sjfbsbf.policies.policy_names`), in order.
    progress
        Optional callback ``progress(policy, finished, total)``.
    policy_options
        Options of each policy's constructor, by name (default: none).
    **options
        Passed to :func:`sjfbsbf.sim.simulator.simulate` (``dt``, ``interval``,
        ``restart_overhead``, ``interference``, ...).

    Returns
    -------
    list of SimResult
        One per name, in the order given.

    Raises
    ------
    ValueError
        If a name is not registered.
    """
    given = policy_options or {}
    # Fail on a bad name or option before simulating anything.
    policies = [make_policy(name, **given.get(name, {})) for name in names]
    results = []
    for name, policy in zip(names, policies, strict=True):
        callback = None
        if progress is not None:
            progress(name, 0, instance.num_jobs)
            callback = partial(progress, name)
        results.append(simulate(instance, policy, progress=callback, **options))
    return results


def compare(
    instance: Instance,
    policies: Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Simulate policies on one instance and tabulate their metrics (``sjfbsbf compare``).

    Parameters
    ----------
    instance
        The problem.
    policies
        Registry names, in order (default: every policy that runs on an instance alone,
        :func:`sjfbsbf.policies.policy_names`).
    **options
        Passed to :func:`sjfbsbf.sim.simulator.simulate` (``dt``, ``interval``,
        ``restart_overhead``, ``interference``).

    Returns
    -------
    pandas.DataFrame
        One row per policy (index ``policy``), the metrics of
        :func:`sjfbsbf.experiments.report.compare_table` as columns.
    """
    from sjfbsbf.experiments.report import compare_table
    from sjfbsbf.policies import policy_names

    names = list(policy_names() if policies is None else policies)
    return compare_table(run_policies(instance, names, **options))


def vc_comparison(results: Sequence[SimResult]) -> pd.DataFrame:
    """Per policy and virtual cluster: jobs, average JCT, stretch and queueing delay and the
    largest finish-time fairness ρ (:func:`sjfbsbf.sim.fairness.vc_table`, docs/model.md §4.2).

    Returns
    -------
    pandas.DataFrame
        Columns ``policy`` then :data:`~sjfbsbf.sim.fairness.VC_COLUMNS`; the results' order,
        then VC name.
    """
    import pandas as pd

    from sjfbsbf.sim.fairness import vc_table

    frames = [vc_table(result.jobs).assign(policy=result.policy) for result in results]
    table = pd.concat(frames, ignore_index=True)
    return table[["policy", *table.columns.drop("policy")]]
