"""The incumbent search (formulations.offline.search, docs/formulations.md §2.2): ranked policies
reproduce SJF order, every candidate replays to its own JCT, the budget counts simulations, the
result is reproducible and never worse than the heuristics, and it tightens what depends on it."""

from __future__ import annotations

import pytest

import formulations.offline.search as search_module
from formulations.offline import preprocess, solve_offline
from formulations.offline.heuristic import HeuristicRun, best_heuristic, run_heuristic, run_policy
from formulations.offline.replay import replay_value
from formulations.offline.search import (
    VARIANTS,
    OrderSearch,
    RankedSjf,
    RankedSjfBsbf,
    search_incumbent,
    sjf_ranking,
    variant_label,
)
from sjfbsbf.core.presets import time_slicing
from sjfbsbf.policies.sjf_bsbf import SjfBsbf
from tests.offline_cases import suite_instance

MODEL = time_slicing()
DT = 60.0


@pytest.mark.parametrize("name", ["n8-g8-all-a", "n12-g8-all-c", "n20-g8-all-a"])
def test_the_sjf_ranking_reproduces_sjf_and_sjf_bsbf(name: str) -> None:
    """A ranked policy given SJF order makes exactly the plain policy's decisions."""
    instance = suite_instance(name)
    rank = {job: place for place, job in enumerate(sjf_ranking(instance))}
    for plain, ranked in (("sjf", RankedSjf(rank)), ("sjf-bsbf", RankedSjfBsbf(rank))):
        expected = run_heuristic(instance, plain, DT, MODEL)
        got = run_policy(instance, ranked, plain, DT, MODEL)
        assert got.schedule == expected.schedule
        assert got.total_jct == expected.total_jct


def test_a_reversed_ranking_changes_the_schedule() -> None:
    """The ranking is read: reversing SJF order gives another schedule."""
    instance = suite_instance("n12-g8-all-c")
    order = sjf_ranking(instance)[::-1]
    rank = {job: place for place, job in enumerate(order)}
    plain = run_heuristic(instance, "sjf", DT, MODEL)
    assert run_policy(instance, RankedSjf(rank), "sjf", DT, MODEL).schedule != plain.schedule


def test_variants_are_the_48_option_combinations_defaults_first() -> None:
    assert len(VARIANTS) == 48
    assert len({tuple(sorted(v.items(), key=str)) for v in VARIANTS}) == 48
    assert variant_label(VARIANTS[0]) == "sjf-bsbf"
    assert variant_label({**VARIANTS[0], "sub_batch": "full"}) == "sjf-bsbf(sub_batch=full)"


def _search(name: str, evaluations: int, seed: int = 0) -> tuple[HeuristicRun, HeuristicRun]:
    instance = suite_instance(name)
    start = best_heuristic(instance, DT, MODEL)
    return start, search_incumbent(instance, DT, MODEL, start, evaluations, seed=seed)


@pytest.mark.parametrize("name", ["n12-g8-all-c", "n20-g8-all-a", "n50-g8-all-a"])
def test_the_search_replays_to_its_value_and_beats_the_heuristics(name: str) -> None:
    """On these instances the four heuristics leave room (the model's recorded schedules are
    better); the search finds a better schedule, which the simulator replays to the same JCT."""
    start, found = _search(name, 120)
    assert found.total_jct < start.total_jct
    replayed, finish = replay_value(suite_instance(name), found.schedule, DT, MODEL)
    assert replayed is not None
    assert replayed * len(found.schedule) == pytest.approx(found.total_jct, abs=1e-6)
    assert finish == found.finish
    assert sorted(s.job_id for s in found.schedule) == sorted(finish)


def test_the_order_search_finds_what_no_variant_does() -> None:
    """n20-g8-all-a: the best of 120 simulations comes from a searched order and beats all 48
    variants (the order search's acceptance rule at work)."""
    _, found = _search("n20-g8-all-a", 120)
    assert found.policy.endswith(", searched order")
    _, only_variants = _search("n20-g8-all-a", len(VARIANTS))
    assert found.total_jct < only_variants.total_jct


def test_the_search_is_reproducible_and_never_worse() -> None:
    start, first = _search("n20-g8-all-a", 90, seed=3)
    _, again = _search("n20-g8-all-a", 90, seed=3)
    assert first.schedule == again.schedule and first.policy == again.policy
    assert first.total_jct <= start.total_jct
    _, none = _search("n20-g8-all-a", 0)
    assert none.schedule == start.schedule


def test_more_budget_is_never_worse() -> None:
    """The search with a larger budget runs the smaller one's simulations first."""
    values = [_search("n20-g8-all-a", budget)[1].total_jct for budget in (20, 60, 120)]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("evaluations", [1, 48, 50, 75])
def test_the_budget_counts_simulations(evaluations: int, monkeypatch: pytest.MonkeyPatch) -> None:
    instance = suite_instance("n12-g8-all-c")
    start = best_heuristic(instance, DT, MODEL)
    calls = []
    real = search_module.run_policy

    def counted(*args: object, **kwargs: object) -> HeuristicRun:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "run_policy", counted)
    search_incumbent(instance, DT, MODEL, start, evaluations)
    assert len(calls) <= evaluations
    assert len(calls) >= min(evaluations, len(VARIANTS))


def test_a_negative_budget_is_refused() -> None:
    instance = suite_instance("n8-g8-all-a")
    start = best_heuristic(instance, DT, MODEL)
    with pytest.raises(ValueError, match="evaluations"):
        search_incumbent(instance, DT, MODEL, start, -1)
    with pytest.raises(ValueError, match="search"):
        solve_offline(instance, "bounds", search=-1)


def test_a_better_incumbent_tightens_the_windows() -> None:
    """n12-g8-all-c: the searched schedule is ~7 s better on average, so every deadline moves
    in and the horizon shrinks; the searched run is the data's heuristic."""
    instance = suite_instance("n12-g8-all-c")
    plain = preprocess(instance, DT)
    searched = preprocess(instance, DT, search=100)
    assert plain.heuristic is not None and searched.heuristic is not None
    assert searched.heuristic.total_jct < plain.heuristic.total_jct
    assert searched.horizon < plain.horizon
    assert all(a.last_end <= b.last_end for a, b in zip(searched.jobs, plain.jobs, strict=True))


def test_the_bounds_solver_reports_the_searched_schedule() -> None:
    instance = suite_instance("n12-g8-all-c")
    plain = solve_offline(instance, "bounds", search=0, colgen=False)  # its bound: not the point
    searched = solve_offline(instance, "bounds", colgen=False)
    assert searched.replayed_avg_jct is not None and plain.replayed_avg_jct is not None
    assert searched.replayed_avg_jct < plain.replayed_avg_jct
    assert searched.info["source"] == f"heuristic:{searched.info['heuristic']}"
    assert searched.info["heuristic"] != plain.info["heuristic"]
    assert searched.bound is not None and searched.bound <= searched.replayed_avg_jct


def test_an_order_search_keeps_the_best_order_it_has_seen() -> None:
    """First improvement: after every move the current run is the best of all runs so far, and
    the order changes exactly when the move's run is better."""
    instance = suite_instance("n20-g8-all-a")
    search = OrderSearch(instance, DT, MODEL, "sjf", {}, sjf_ranking(instance))
    seen = [search.current.total_jct]
    for source, target in [(0, 19), (19, 0), (3, 7), (12, 2), (5, 6), (18, 1), (9, 14), (1, 0)]:
        before, order = search.current.total_jct, list(search.order)
        run = search.try_move(source, target)
        seen.append(run.total_jct)
        assert search.current.total_jct == min(seen)
        assert (search.order != order) == (run.total_jct < before)
    assert min(seen) < seen[0], "some move improves SJF order here"


def test_the_sjf_bsbf_order_search_starts_from_the_best_variant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    instance = suite_instance("n20-g8-all-a")
    totals = [
        run_policy(instance, SjfBsbf(**options), "v", DT, MODEL).total_jct for options in VARIANTS
    ]
    expected = VARIANTS[totals.index(min(totals))]
    built: list[tuple[str, dict[str, object]]] = []
    real = search_module.OrderSearch

    def recorded(*args: object) -> OrderSearch:
        built.append((str(args[3]), dict(args[4])))  # type: ignore[call-overload]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "OrderSearch", recorded)
    start = best_heuristic(instance, DT, MODEL)
    search_incumbent(instance, DT, MODEL, start, len(VARIANTS) + 2)
    assert built == [("sjf", {}), ("sjf-bsbf", expected)]
    assert expected != VARIANTS[0], "the defaults are not the best variant here"


def test_ties_keep_the_earlier_run() -> None:
    """n12-g8-all-e: no candidate beats sjf-bsbf's defaults, several variants tie with it; the
    heuristics' run comes back itself."""
    start, found = _search("n12-g8-all-e", len(VARIANTS))
    instance = suite_instance("n12-g8-all-e")
    ties = [
        o
        for o in VARIANTS[1:]
        if run_policy(instance, SjfBsbf(**o), "v", DT, MODEL).total_jct == start.total_jct
    ]
    assert ties, "some variant ties with the heuristics' best here"
    assert found is start
