"""What ``sjfbsbf policies`` says is read from the code (issue 36): one plain sentence per policy,
and each option's type, default and meaning from the signature and the numpydoc."""

from __future__ import annotations

import inspect

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.policies import policy_factory, policy_names
from sjfbsbf.policies.describe import _parameters, plain, policy_doc

runner = CliRunner()


@pytest.mark.parametrize("name", policy_names())
def test_every_option_of_every_policy_is_documented_plainly(name: str) -> None:
    doc = policy_doc(name)
    assert doc.summary.endswith(".") and len(doc.summary.split()) >= 5, doc.summary
    parameters = list(inspect.signature(policy_factory(name)).parameters)
    assert [o.name for o in doc.options] == parameters
    for text in (doc.summary, *(o.meaning for o in doc.options)):
        assert "``" not in text and ":class:" not in text and ":meth:" not in text, text
    undocumented = [o.name for o in doc.options if o.meaning == "(not documented)"]
    assert undocumented == []  # a new option without its numpydoc entry fails here


def test_types_and_defaults_come_from_the_signature() -> None:
    options = {o.name: o for o in policy_doc("sjf-bsbf").options}
    assert (options["threshold"].type, options["threshold"].default) == ("a number", "0.0")
    assert (options["max_partners"].type, options["max_partners"].default) == (
        "an integer or none",
        "none",
    )
    assert (options["mix_idle"].type, options["mix_idle"].default) == ("true or false", "true")
    assert options["sub_batch"].default == "benefit"
    thresholds = policy_doc("tiresias").options[0]
    assert (thresholds.type, thresholds.default) == ("a list of numbers", "3250.0, 7200.0")
    assert policy_doc("planned").options[0].default == "required"


def test_an_entry_by_reference_takes_the_referenced_entry() -> None:
    """sjf-bsbf-plus documents four options "As for SjfBsbf": each gets SjfBsbf's own text."""
    plus = {o.name: o.meaning for o in policy_doc("sjf-bsbf-plus").options}
    base = {o.name: o.meaning for o in policy_doc("sjf-bsbf").options}
    for key in ("threshold", "max_partners", "retune", "sub_batch"):
        assert plus[key] == base[key]
    exact = {o.name: o.meaning for o in policy_doc("exact-round").options}
    assert exact["budget"].startswith("Wall-clock seconds for all rounds of one run")
    assert exact["solver"].startswith('"cpsat" (default), "milp" or "brute"')
    # its own entry is kept where it has one (sub_batch: two values only)
    assert exact["sub_batch"] == '"benefit" (every option) or "full" (only the full batch).'


def test_plain_removes_sphinx_markup() -> None:
    assert plain("see :class:`~a.b.Thing` and ``x=1``") == "see Thing and x=1"
    assert plain(":meth:`~sjfbsbf.sim.view.ClusterView.remaining`,\n   next") == "remaining, next"
    assert plain(":func:`f` :mod:`pkg.mod`") == "f mod"


def test_the_parameters_section_is_read_entry_by_entry() -> None:
    doc = """Summary.

    Parameters
    ----------
    a, b : int
        Shared
        text.
    c
        Own.

    Attributes
    ----------
    d
        Not a parameter.
    """
    entries = _parameters(inspect.cleandoc(doc))
    assert entries == {"a": "Shared text.", "b": "Shared text.", "c": "Own."}
    assert _parameters("No sections.") == {}


def test_cli_lists_summaries_and_options() -> None:
    result = runner.invoke(app, ["policies"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "Strict FIFO: jobs start in (arrival, id) order" in text
    assert "threshold=0.0, max_partners=none" in text
    assert "SJF-BSBF." not in text and "Discretised 2D-LAS." not in text  # the old stubs


def test_cli_shows_one_policy_in_full() -> None:
    result = runner.invoke(app, ["policies", "sjf-bsbf"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("sjf-bsbf: Shortest job first;")
    assert lines[1] == "preemptive: no, shares GPUs: yes"
    assert lines[2].split() == ["option", "type", "default", "meaning"]
    assert lines[3].split()[:4] == ["threshold", "a", "number", "0.0"]
    fifo = runner.invoke(app, ["policies", "fifo"])
    assert fifo.exit_code == 0 and fifo.stdout.splitlines()[-1] == "no options"


def test_cli_refuses_an_unknown_name_with_a_suggestion() -> None:
    result = runner.invoke(app, ["policies", "tiresia"])
    assert result.exit_code == 2
    assert "unknown policy 'tiresia'; did you mean 'tiresias'?" in " ".join(result.output.split())
