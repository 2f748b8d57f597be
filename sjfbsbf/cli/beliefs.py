"""The ``--estimator`` and ``--interference-belief`` options of ``simulate`` and ``compare``
(docs/model.md §4.1): what the policies believe about job lengths and interference.

Both take ``NAME[:KEY=VALUE,...]``; without them the policies believe the truth (``oracle``), as
before. A bad name, parameter or value is refused in one line naming the option.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sjfbsbf.core.model import Instance
    from sjfbsbf.sim.beliefs import Beliefs

EstimatorOption = Annotated[
    str | None,
    typer.Option(
        "--estimator",
        metavar="NAME[:K=V,...]",
        help="What policies believe about job lengths: oracle (the truth), "
        "lognormal:sigma=S[,seed=K] (true length × exp(S·Z)), history[:q=Q,prior=P,by=vc|user] "
        "(quantile of finished jobs' lengths) or user (each job's 'estimate' field).",
        show_default="oracle",
    ),
]
BeliefOption = Annotated[
    str | None,
    typer.Option(
        "--interference-belief",
        metavar="NAME[:K=V,...]",
        help="The interference model policies believe: oracle (the simulated one), a preset "
        "(time-slicing, mps, gavel-fitted, gavel-measured) or noisy:sigma=S[,seed=K][,base=B].",
        show_default="oracle",
    ),
]


def belief_reads_table(belief: str | None) -> bool:
    """Whether ``--interference-belief`` names a preset that reads Gavel's table."""
    from sjfbsbf.core.presets import DATA_PRESETS

    return belief is not None and belief.partition(":")[0].strip() in DATA_PRESETS


def beliefs_option(
    estimator: str | None, belief: str | None, throughputs: str | None, seed: int
) -> Beliefs | None:
    """The :class:`~sjfbsbf.sim.beliefs.Beliefs` of the options (``None`` when neither is
    given); ``seed``: the stream key K where a specification gives none.

    Raises
    ------
    typer.BadParameter
        An unknown estimator or belief, or a bad parameter, naming the option.
    InstanceError
        A gavel-measured belief whose table is not fetched, missing or malformed.
    """
    if estimator is None and belief is None:
        return None
    from sjfbsbf.sim.beliefs import Beliefs, parse_interference_belief
    from sjfbsbf.sim.estimators import parse_estimator

    for option, text, parse in (
        ("--estimator", estimator, parse_estimator),
        ("--interference-belief", belief, parse_interference_belief),
    ):
        if text is not None:
            try:
                parse(text)
            except ValueError as exc:
                raise typer.BadParameter(str(exc), param_hint=f"'{option}'") from None
    table = None
    if belief_reads_table(belief):
        from sjfbsbf.workloads.datasets import DEFAULT_THROUGHPUTS, resolve_data_path

        table = resolve_data_path(DEFAULT_THROUGHPUTS if throughputs is None else throughputs)
    return Beliefs(estimator or "oracle", belief or "oracle", seed, table)


def check_beliefs_fit(beliefs: Beliefs | None, instance: Instance, source: str) -> None:
    """Refuse, in one line naming the file, the job and the field, an estimator that needs a
    field some job lacks (``user``: every job's ``estimate``).

    Raises
    ------
    InstanceError
        The first job without an ``estimate`` under ``user``.
    """
    if beliefs is None or beliefs.estimator_spec.name != "user":
        return
    from sjfbsbf.core.errors import InstanceError

    for job in instance.jobs:
        if job.estimate is None:
            raise InstanceError(
                "missing: --estimator user reads every job's estimate",
                source=source,
                row=job.id,
                field="estimate",
            )
