"""SJF-BSBF's compiled estimate (sjfbsbf/policies/benefit_kernel.py) against numpy (model.md §6).

The compiled loops must give numpy's floats to the last bit and the same decisions: the pair
benefit over random hosts (ties, the boundary where both jobs end together, retune and a wait
included), the hosts a plan takes, and whole runs of every SJF-BSBF variant, compiled and numpy
only, compared job by job and outcome by outcome.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import example, given, settings
from test_properties import PROPERTY_SETTINGS, instances

from sjfbsbf.core.interference import ContentionModel
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies import SjfBsbf
from sjfbsbf.policies.benefit import pair_benefit
from sjfbsbf.policies.benefit_kernel import best_hosts, greedy, host_benefits
from sjfbsbf.policies.plans import HostOption, better_plan, build_plan
from sjfbsbf.sim.simulator import simulate
from sjfbsbf.workloads.generators import default_workload

TIMES = st.sampled_from([0.0, 1.0, 2.0, 3.0, 10.0, 59.5, 600.0, 1e-9, 7e5])
POSITIVE_TIMES = st.sampled_from([1.0, 2.0, 3.0, 10.0, 59.5, 600.0, 1e-9, 7e5])  # T_a' of a job
UNIT = st.floats(0.0, 1.0, allow_nan=False)
# (T_a, T_a', memory, sensitivity, pressure) of an option; (T_b, sens, press, room, GPUs) of a host
OPTION = st.tuples(POSITIVE_TIMES, POSITIVE_TIMES, st.sampled_from([4.0, 12.0, 30.0]), UNIT, UNIT)
HOST = st.tuples(TIMES, UNIT, UNIT, st.sampled_from([4.0, 12.0]), st.integers(1, 3))


@settings(max_examples=300, deadline=None)
@given(
    t_full=POSITIVE_TIMES,
    t_sub=POSITIVE_TIMES,
    wait=st.none() | TIMES,
    retune=st.booleans(),
    sens_a=UNIT,
    press_a=UNIT,
    hosts=st.lists(st.tuples(TIMES, UNIT, UNIT, st.sampled_from([4.0, 11.9, 12.0])), max_size=9),
    memory=st.sampled_from([0.0, 12.0, 12.0 + 1e-9, 20.0]),
)
def test_the_compiled_benefits_are_numpys_floats(
    t_full: float,
    t_sub: float,
    wait: float | None,
    retune: bool,
    sens_a: float,
    press_a: float,
    hosts: list[tuple[float, float, float, float]],
    memory: float,
) -> None:
    model = ContentionModel(kappa=1.5, eps=0.05)
    remaining = np.array([h[0] for h in hosts], dtype=float)
    sens = np.array([h[1] for h in hosts], dtype=float)
    press = np.array([h[2] for h in hosts], dtype=float)
    room = np.array([h[3] for h in hosts], dtype=float)
    count = np.arange(1, len(hosts) + 1, dtype=np.int64)
    expected = np.asarray(
        pair_benefit(
            t_full,
            t_sub,
            remaining,
            model.slowdowns(sens_a, press),
            model.slowdowns(sens, press_a),
            wait=wait,
            retune=retune,
        ),
        dtype=float,
    ).reshape(-1)
    benefit, positive, fit_hosts, fit_gpus, positive_gpus = host_benefits(
        model, (t_full, t_sub, wait, memory, sens_a, press_a), retune, 1e-9,
        (room, remaining, sens, press, count),
    )  # fmt: skip
    assert benefit.tobytes() == expected.tobytes()
    assert positive.dtype == np.bool_  # a mask, as documented (not 0.0 / 1.0 floats)
    fits = room + 1e-9 >= memory
    assert positive.tolist() == (fits & (expected > 0)).tolist()
    assert (fit_hosts, fit_gpus) == (int(fits.sum()), int(count[fits].sum()))
    assert positive_gpus == int(count[fits & (expected > 0)].sum())


@settings(max_examples=300, deadline=None)
@given(
    benefit=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0, 2.0, 3.0]), max_size=10),
    widths=st.data(),
    needed=st.integers(-1, 12),
    max_partners=st.sampled_from([None, 1, 2, 4]),
)
def test_the_hosts_taken_are_the_best_first_ties_to_the_lowest_row(
    benefit: list[float], widths: st.DataObject, needed: int, max_partners: int | None
) -> None:
    n = len(benefit)
    gpus = widths.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    values = np.array(benefit, dtype=float)
    order = sorted((k for k in range(n) if benefit[k] > 0), key=lambda k: (-benefit[k], k))
    expected: list[int] = []
    for k in order:
        if sum(gpus[e] for e in expected) >= needed:
            break
        if max_partners is not None and len(expected) >= max_partners:
            break
        expected.append(k)
    chosen = best_hosts(values, values > 0, np.array(gpus, dtype=np.int64), needed, max_partners)
    assert chosen.tolist() == expected


VARIANTS: list[dict[str, Any]] = [
    {},
    {"retune": True},
    {"sub_batch": "largest"},
    {"sub_batch": "full"},
    {"mix_idle": False},
    {"max_partners": 1},
    {"threshold": 60.0},
    {"wait_aware": True},
    {"wait_aware": True, "retune": True},  # step by step (not one pass), with retunes
]


def _run(instance: Any, options: dict[str, Any], compiled: bool) -> tuple[Any, Any]:
    policy = SjfBsbf(**options)
    policy.compiled = compiled
    result = simulate(instance, policy, interference=time_slicing(), record_segments=False)
    return result.jobs, result.stats


def _same(instance: Any, options: dict[str, Any]) -> None:
    jobs, stats = _run(instance, options, True)
    numpy_jobs, numpy_stats = _run(instance, options, False)
    assert jobs.equals(numpy_jobs), options
    assert stats == numpy_stats, options


@pytest.mark.parametrize("options", VARIANTS, ids=[str(v) or "default" for v in VARIANTS])
def test_every_variant_decides_the_same_compiled_and_with_numpy(options: dict[str, Any]) -> None:
    """A busy default workload (load 1.6: long queues, model jobs with sub-batch options and
    memory limits) on 8 GPUs, job by job and outcome by outcome."""
    instance = default_workload(3, n_jobs=120, load=1.6)
    _same(instance, options)


@PROPERTY_SETTINGS
@given(inst=instances(), options=st.sampled_from(VARIANTS))
def test_random_instances_decide_the_same_compiled_and_with_numpy(
    inst: Any, options: dict[str, Any]
) -> None:
    _same(inst, options)


@example(  # two equal hosts: the lower id is taken; two equal options: the first is kept
    jobs=[(1, [(600.0, 600.0, 4.0, 0.5, 0.5), (600.0, 600.0, 4.0, 0.5, 0.5)])],
    hosts=[(7e5, 0.5, 0.5, 12.0, 1), (7e5, 0.5, 0.5, 12.0, 1)],
    idle=0,
    first=0,
    rule=(0.0, None, False, False, True),
)
@example(  # a finished host (T_b = 0): benefit T_a - T_a' = 5, exactly the threshold: it waits
    jobs=[(1, [(6.0, 1.0, 4.0, 0.5, 0.5)])],
    hosts=[(0.0, 0.5, 0.5, 12.0, 1)],
    idle=0,
    first=0,
    rule=(5.0, None, False, False, True),
)
@example(  # a host that has finished (T_b = 0) beside T_a = T_a': a benefit of exactly 0
    jobs=[(1, [(1.0, 1.0, 4.0, 0.5, 0.5)])],
    hosts=[(0.0, 0.5, 0.5, 12.0, 1)],
    idle=0,
    first=0,
    rule=(0.0, None, False, False, True),
)
@settings(max_examples=300, deadline=None)
@given(
    jobs=st.lists(
        st.tuples(st.integers(1, 6), st.lists(OPTION, min_size=1, max_size=3)),
        min_size=1,
        max_size=6,
    ),
    hosts=st.lists(HOST, max_size=6),
    idle=st.integers(0, 3),
    first=st.integers(0, 6),
    rule=st.tuples(
        st.sampled_from([0.0, 0.0, 5.0]),
        st.sampled_from([None, None, 1, 2]),
        st.booleans(),
        st.booleans(),
        st.booleans(),
    ),
)
def test_the_compiled_greedy_is_the_greedy_written_out(
    jobs: list[tuple[int, list[tuple[float, float, float, float, float]]]],
    hosts: list[tuple[float, float, float, float, int]],
    idle: int,
    first: int,
    rule: tuple[float, int | None, bool, bool, bool],
) -> None:
    """Against the rule written with numpy and build_plan / better_plan: the greedy stops at the
    first job whose GPUs fit on the idle ones; before it, a job takes its best plan (over the
    options, or the first that fits beside a host with ``largest``) if its score exceeds the
    threshold, which ends its hosts and uses idle GPUs, else waits for want of a host, of a
    positive benefit or of memory."""
    threshold, max_partners, retune, largest, mix_idle = rule
    model = ContentionModel(kappa=1.5, eps=0.05)
    columns = tuple(
        np.array([h[c] for h in hosts], dtype=np.int64 if c == 4 else float) for c in range(5)
    )
    remaining, sens, press, room, count = columns
    alive = np.ones(len(hosts), dtype=bool)
    free = idle
    stop, plans, waits = len(jobs), [], [0, 0, 0]
    row = 0
    for j, (need, options) in enumerate(jobs):
        rows = range(row, row + len(options))
        row += len(options)
        if j < first:
            continue
        if need <= free:
            stop = j
            break
        if not alive.any():
            waits[0] += 1
            continue
        taken = list(range(free if mix_idle else 0))
        best, best_row, any_fit = None, -1, False
        for r, (t_full, t_sub, memory, sens_a, press_a) in zip(rows, options, strict=True):
            fits = alive & (room + 1e-9 >= memory)
            if not fits.any():
                continue
            any_fit = True
            benefit = np.asarray(
                pair_benefit(
                    t_full,
                    t_sub,
                    remaining,
                    model.slowdowns(sens_a, press),
                    model.slowdowns(sens, press_a),
                    retune=retune,
                )
            )
            plan = None
            positive = fits & (benefit > 0)
            if len(taken) + int(count[positive].sum()) >= need:
                choices = [
                    HostOption(k, float(benefit[k]), tuple(range(100 * k, 100 * k + count[k])))
                    for k in np.flatnonzero(positive)
                ]
                plan = build_plan(j, r, taken, choices, need, max_partners)
            if largest:
                best, best_row = plan, r if plan is not None else -1
                break
            if better_plan(best, plan) is not best:
                best, best_row = plan, r
        if best is not None and best.score > threshold:
            for k in best.hosts:
                alive[k] = False
            plans.append((j, best_row, best.idle_used, best.hosts, best.score))
            free -= best.idle_used
        else:
            waits[1 if any_fit else 2] += 1
    starts = np.cumsum([0] + [len(options) for _, options in jobs])
    got_stop, got_plans, got_scores, got_hosts, got_waits = greedy(
        model,
        first,
        (
            np.array([g for g, _ in jobs], dtype=np.int64),
            starts.astype(np.int64),
            np.array([o for _, options in jobs for o in options], dtype=float).reshape(-1, 5),
        ),
        rule,
        1e-9,
        idle,
        (room, remaining, sens, press, count),
    )
    got = [
        (j, r, used, tuple(got_hosts[a:b].tolist()), score)
        for (j, r, used, a, b), score in zip(got_plans.tolist(), got_scores.tolist(), strict=True)
    ]
    assert (got_stop, got, list(got_waits)) == (stop, plans, waits)
