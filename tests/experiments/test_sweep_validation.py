"""Sweep files are checked whole before anything runs: one error naming the file and the key.

Each bad case is the small valid sweep below with one edit; the command line prints the same
message on one line, exits 1 and writes nothing (neither ``--out`` nor ``results/``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments.sweep import RunSpec, Sweep, default_out_dir, load_sweep

runner = CliRunner()

BASE = """\
name = "tiny"
seeds = [0, 1]

[[workloads]]
kind = "default"
n_jobs = 8
nodes = 1
gpus_per_node = 4

[sim]
dt = 10.0

[[variants]]
policy = "fifo"

[[variants]]
label = "bsbf"
policy = "sjf-bsbf"
options = { wait_aware = false }
"""


def edit(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


#: id -> (sweep text, key named, words of the message)
BAD_SWEEPS = {
    "unknown top key": ("seed = 3\n" + BASE, "seed", "unknown key (allowed: name, description"),
    "unknown workload key": (
        edit("n_jobs = 8", "n_jobs = 8\nn_job = 9"),
        "workloads[0].n_job",
        "unknown key for kind 'default'",
    ),
    "unknown model mix": (
        edit("n_jobs = 8", 'n_jobs = 8\nmix = "medium"'),
        "workloads[0].mix",
        "must be one of 'light', 'heavy', 'full'",
    ),
    "unknown sim key": (edit("dt = 10.0", "dt = 10.0\ntick = 1"), "sim.tick", "unknown key"),
    "unknown variant key": (
        edit('label = "bsbf"', 'lable = "bsbf"'),
        "variants[1].lable",
        "unknown key (allowed: label, policy, options, sim)",
    ),
    "unknown variant sim key": (
        edit('policy = "fifo"', 'policy = "fifo"\nsim = { tick = 1 }'),
        "variants[0].sim.tick",
        "unknown key",
    ),
    "unknown policy": (
        edit('policy = "fifo"', 'policy = "fifoo"'),
        "variants[0].policy",
        "unknown policy 'fifoo'",
    ),
    "planned needs a schedule": (
        edit('policy = "fifo"', 'policy = "planned"'),
        "variants[0].options",
        "policy 'planned' needs option 'schedule'",
    ),
    "unknown option": (
        edit("wait_aware = false", "wait_awre = false"),
        "variants[1].options.wait_awre",
        "unknown option of policy 'sjf-bsbf'",
    ),
    "option of wrong type": (
        edit("wait_aware = false", 'wait_aware = "no"'),
        "variants[1].options.wait_aware",
        "must be true or false, got 'no'",
    ),
    "option refused by the policy": (
        edit("wait_aware = false", 'sub_batch = "some"'),
        "variants[1].options",
        "sub_batch must be 'benefit', 'largest' or 'full'",
    ),
    "options not a table": (
        edit("options = { wait_aware = false }", "options = 3"),
        "variants[1].options",
        "must be a table",
    ),
    "workload value of wrong type": (
        edit("n_jobs = 8", 'n_jobs = "8"'),
        "workloads[0].n_jobs",
        "must be an integer, got '8'",
    ),
    "list element of wrong type": (
        edit("n_jobs = 8", "n_jobs = [8, 9.5]"),
        "workloads[0].n_jobs[1]",
        "must be an integer, got 9.5",
    ),
    "sim value of wrong type": (edit("dt = 10.0", 'dt = "10"'), "sim.dt", "must be a number"),
    "sim value not finite": (edit("dt = 10.0", "dt = nan"), "sim.dt", "must be a finite number"),
    "unknown interference": (
        edit("dt = 10.0", 'interference = "mps2"'),
        "sim.interference",
        "must be one of 'time-slicing', 'mps'",
    ),
    "empty workload list": (
        edit("n_jobs = 8", "n_jobs = []"),
        "workloads[0].n_jobs",
        "empty list: the sweep would have no runs",
    ),
    "empty sim list": (edit("dt = 10.0", "dt = []"), "sim.dt", "empty list"),
    "empty seeds": (edit("seeds = [0, 1]", "seeds = []"), "seeds", "non-empty list"),
    "seed of wrong type": (edit("seeds = [0, 1]", 'seeds = [0, "1"]'), "seeds[1]", "integer"),
    "negative seed": (edit("seeds = [0, 1]", "seeds = [-1]"), "seeds[0]", "integer >= 0"),
    "duplicate seeds": (
        edit("seeds = [0, 1]", "seeds = [0, 1, 0]"),
        "seeds[2]",
        "duplicate seed 0",
    ),
    "duplicate list value": (
        edit("n_jobs = 8", "n_jobs = [8, 8]"),
        "workloads[0].n_jobs[1]",
        "duplicate value 8",
    ),
    "duplicate labels": (
        edit('label = "bsbf"', 'label = "fifo"'),
        "variants[1].label",
        "duplicate label 'fifo'",
    ),
    "same variant twice": (
        BASE + '\n[[variants]]\nlabel = "again"\npolicy = "fifo"\n',
        "variants[2]",
        "same policy, options and sim as 'fifo'",
    ),
    "same workload twice": (
        BASE + '\n[[workloads]]\nkind = "default"\nn_jobs = 8\nnodes = 1\ngpus_per_node = 4\n',
        "workloads[1]",
        "gives the same workload as workloads[0]",
    ),
    "list in a variant's sim": (
        edit('policy = "fifo"', 'policy = "fifo"\nsim = { dt = [1.0, 2.0] }'),
        "variants[0].sim",
        "lists sweep only in [sim]",
    ),
    "missing kind": (edit('kind = "default"\n', ""), "workloads[0].kind", "missing workload kind"),
    "unknown kind": (edit('kind = "default"', 'kind = "defualt"'), "workloads[0].kind", "unknown"),
    "testbed size": (
        edit('kind = "default"\nn_jobs = 8', 'kind = "testbed"\nn_jobs = 31'),
        "workloads[0].n_jobs",
        "must be one of 30, 61, got 31",
    ),
    "gavel without trace": (
        edit('kind = "default"\nn_jobs = 8\nnodes = 1\ngpus_per_node = 4', 'kind = "gavel"'),
        "workloads[0].trace",
        "missing (kind 'gavel' needs it)",
    ),
    "missing input file": (
        edit(
            'kind = "default"\nn_jobs = 8\nnodes = 1\ngpus_per_node = 4',
            'kind = "file"\npath = "nope.json"',
        ),
        "workloads[0].path",
        "cannot read nope.json: No such file or directory",
    ),
    "no variants": (BASE.split("[[variants]]")[0], "variants", "needs at least one [[variants]]"),
    "name escapes results/": (
        edit('name = "tiny"', 'name = "../../x"'),
        "name",
        "is not a plain directory name",
    ),
    "name with a separator": (edit('name = "tiny"', 'name = "a/b"'), "name", "plain directory"),
    "name of wrong type": (edit('name = "tiny"', "name = 3"), "name", "plain directory name"),
    "description of wrong type": ("description = 1\n" + BASE, "description", "must be a string"),
}


@pytest.mark.parametrize("case", sorted(BAD_SWEEPS))
def test_bad_sweep_names_file_and_key(case: str, tmp_path: Path) -> None:
    text, key, words = BAD_SWEEPS[case]
    path = tmp_path / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert (info.value.source, info.value.key) == (str(path), key)
    assert str(info.value).startswith(f"{path}, key '{key}': ")
    assert words in str(info.value)


@pytest.mark.parametrize("case", ["unknown workload key", "unknown option", "duplicate seeds"])
def test_bad_sweep_cli_one_line_nothing_written(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text, key, words = BAD_SWEEPS[case]
    Path("sweep.toml").write_text(text, encoding="utf-8")
    for extra in ([], ["--out", "out"]):
        result = runner.invoke(app, ["sweep", "sweep.toml", *extra])
        assert isinstance(result.exception, SystemExit)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"sjfbsbf: error: sweep.toml, key '{key}': ")
        assert words in result.stderr and result.stderr.count("\n") == 1
        assert result.stdout == ""
        assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'name = "x"\n\xff\n', "not UTF-8 text (byte 0xff at byte offset 11)"),
        (b"\x00\x01binary", "binary file, not text (NUL byte at byte offset 0)"),
        (b"name = \n", "not valid TOML (Invalid value (at line 1, column 8))"),
        (b"a = " + b"[" * 100_000 + b"]" * 100_000, "not valid TOML (nested too deeply)"),
    ],
)
def test_unreadable_sweep_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "s.toml"
    path.write_bytes(content)
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "out")])
    assert isinstance(result.exception, SystemExit)
    assert result.exit_code == 1
    assert result.stderr == f"sjfbsbf: error: {path}: {message}\n"
    assert not (tmp_path / "out").exists()


def test_missing_sweep_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sweep", str(tmp_path / "none.toml")])
    assert result.exit_code == 1
    assert result.stderr == (
        f"sjfbsbf: error: {tmp_path / 'none.toml'}: cannot read: No such file or directory\n"
    )


def test_default_name_must_be_a_plain_name(tmp_path: Path) -> None:
    path = tmp_path / "my sweep.toml"
    path.write_text(edit('name = "tiny"\n', ""), encoding="utf-8")
    with pytest.raises(SweepError, match="the file name 'my sweep' is not a plain directory"):
        load_sweep(path)
    path = tmp_path / "ok-name.toml"
    path.write_text(edit('name = "tiny"\n', ""), encoding="utf-8")
    assert load_sweep(path).name == "ok-name"


def test_out_dir_stays_under_results() -> None:
    built = Sweep(name="../../x", runs=(), source="mem", text="")
    with pytest.raises(SweepError, match="would write outside results/"):
        default_out_dir(built)
    assert default_out_dir(Sweep(name="a.b", runs=(), source="", text="")) == Path("results/a.b")


def test_defaults_are_filled_in(tmp_path: Path) -> None:
    """Spelling out a default is the same run; an int where a float is expected too."""
    path = tmp_path / "a.toml"
    path.write_text(BASE, encoding="utf-8")
    plain = load_sweep(path)
    path.write_text(
        edit("dt = 10.0", 'dt = 10\ninterval = 60\ninterference = "time-slicing"').replace(
            "n_jobs = 8", "n_jobs = 8\nload = 0.8\nrate_factor = 1"
        ),
        encoding="utf-8",
    )
    spelled = load_sweep(path)
    assert [r.key for r in plain.runs] == [r.key for r in spelled.runs]
    run: RunSpec = plain.runs[0]
    assert run.sim == {"dt": 10.0, "interference": "time-slicing", "interval": 60.0,
                       "restart_overhead": 30.0}  # fmt: skip
    assert len(plain.runs) == 4 and {r.label for r in plain.runs} == {"fifo", "bsbf"}


def test_model_mix_draws_from_its_pool() -> None:
    """``mix`` changes only which models are drawn: arrivals, GPUs and the count stay; no ``mix``
    is the whole catalog (the runs of sweeps written before the key keep their keys)."""
    from sjfbsbf.experiments.sweep_workloads import build_instance, canonical_workload
    from sjfbsbf.workloads.generators import MODEL_MIXES

    base = {"kind": "default", "n_jobs": 60}
    plain = build_instance(base, 3)
    assert "mix" not in canonical_workload(base)
    assert build_instance({**base, "mix": "full"}, 3) == plain
    for mix in ("light", "heavy"):
        inst = build_instance({**base, "mix": mix}, 3)
        assert {j.model for j in inst.jobs} <= set(MODEL_MIXES[mix])
        assert [j.gpus for j in inst.jobs] == [j.gpus for j in plain.jobs]
        assert len({j.model for j in inst.jobs}) == len(MODEL_MIXES[mix])


@pytest.mark.parametrize(
    "toml", sorted(Path(__file__).resolve().parents[2].glob("experiments/*.toml"))
)
def test_shipped_experiments_are_valid(toml: Path, request: pytest.FixtureRequest) -> None:
    """Every shipped sweep loads; those naming datasets (``data:``, or the measured table by
    default through ``gavel-measured``) once Gavel's files are registered in the cache from the
    reference copy (skipped where it is absent)."""
    text = toml.read_text(encoding="utf-8")
    if "data:" in text or "gavel-measured" in text:
        request.getfixturevalue("gavel_data")
    sweep = load_sweep(toml)
    assert sweep.runs and len({r.key for r in sweep.runs}) == len(sweep.runs)


def test_plugin_policy_in_a_sweep(tmp_path: Path) -> None:
    """exact-round (an entry-point plugin) is a sweep variant like any policy: its options are
    checked against its factory, and it runs."""
    import pandas as pd

    variant = '[[variants]]\npolicy = "exact-round"\noptions = { solver = "milp", seed = 2 }\n'
    good = edit("[[variants]]\nlabel", variant + "\n[[variants]]\nlabel")
    path = tmp_path / "s.toml"
    path.write_text(good, encoding="utf-8")
    exact = [r for r in load_sweep(path).runs if r.policy == "exact-round"]
    assert len(exact) == 2 and exact[0].options == {"solver": "milp", "seed": 2}
    result = runner.invoke(app, ["sweep", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    rows = pd.read_parquet(tmp_path / "o" / "results.parquet")
    assert (rows["policy"] == "exact-round").sum() == 2
    path.write_text(good.replace("seed = 2", "sed = 2"), encoding="utf-8")
    with pytest.raises(SweepError, match=r"variants\[1\]\.options\.sed.*unknown option"):
        load_sweep(path)
