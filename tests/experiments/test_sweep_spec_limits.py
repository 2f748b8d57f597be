"""What a sweep file's checks accept and refuse, word for word (issue 35, mutation gaps): the
run's configuration and key, ``alpha`` on instance files of each catalog (or none), the ``user``
estimator on the kinds that carry estimates, the input files' own checks (size, kind, a dataset
file that cannot be read), the simulator options' refusals naming ``sim``."""

from __future__ import annotations

import hashlib
import json
import re
import tarfile
from pathlib import Path

import pytest

from sjfbsbf.core import inputs
from sjfbsbf.core.errors import SweepError
from sjfbsbf.experiments import sweep_spec
from sjfbsbf.experiments.fingerprint import code_version
from sjfbsbf.experiments.sweep import Sweep, load_sweep
from sjfbsbf.experiments.sweep_workloads import WORKLOAD_PARAMS

DATA = Path(__file__).resolve().parents[1] / "data"
EIGHT = DATA / "traces" / "eight_jobs.csv"
PHILLY = DATA / "philly" / "cluster_job_log"

SWEEP = """\
seeds = [0]
[[workloads]]
{workload}
[sim]
dt = 10.0
{sim}
[[variants]]
policy = "fifo"
"""
DEFAULT = 'kind = "default"\nn_jobs = 8\nnodes = 1\ngpus_per_node = 4'


def sweep_file(tmp_path: Path, workload: str = DEFAULT, sim: str = "") -> Path:
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(workload=workload, sim=sim), encoding="utf-8")
    return path


def load(tmp_path: Path, workload: str = DEFAULT, sim: str = "") -> Sweep:
    return load_sweep(sweep_file(tmp_path, workload, sim))


def refusal(tmp_path: Path, workload: str = DEFAULT, sim: str = "") -> str:
    path = sweep_file(tmp_path, workload, sim)
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    text = str(info.value)
    assert text.startswith(f"{path}, key '")
    return text[len(f"{path}, ") :]


def instance_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "inst.json"
    path.write_text(text, encoding="utf-8")
    return f'kind = "file"\npath = "{path}"'


def test_a_runs_configuration_names_each_part_by_its_field_and_keys_it(tmp_path: Path) -> None:
    """The record's ``config`` holds the run's fields (not its label, sweep name or stamps), the
    inputs as a mapping; the key is the first 16 hex digits of its canonical JSON's SHA-256."""
    run = load(tmp_path).runs[0]
    config = run.config()
    assert config == {
        "workload": run.workload,
        "seed": run.seed,
        "policy": run.policy,
        "options": run.options,
        "sim": run.sim,
        "inputs": dict(run.inputs),
        "code": run.code,
    }
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    assert run.key == hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize(
    "text",
    [
        '{"cluster": {}, "jobs": []}',  # no catalog: the default one
        '{"catalog": "default", "cluster": {}, "jobs": []}',
        "[]",  # not an instance: refused when the run reads it, not by the alpha check
    ],
)
def test_alpha_applies_to_an_instance_file_of_the_default_catalog(
    tmp_path: Path, text: str
) -> None:
    sweep = load(tmp_path, instance_file(tmp_path, text), "alpha = 0.1")
    assert [run.sim["alpha"] for run in sweep.runs] == [0.1]


def test_alpha_on_an_instance_file_that_is_not_json_names_the_path(tmp_path: Path) -> None:
    workload = instance_file(tmp_path, "{")
    path = tmp_path / "inst.json"
    assert refusal(tmp_path, workload, "alpha = 0.1") == (
        f"key 'workloads[0].path': {path}: not valid JSON (line 1, column 2: Expecting property "
        "name enclosed in double quotes)"
    )


def test_the_user_estimator_reads_instance_files_and_trace_tables_only(tmp_path: Path) -> None:
    table = f'kind = "table"\npath = "{EIGHT}"\nnodes = 1\ngpus_per_node = 8'
    assert load(tmp_path, table, 'estimator = "user"').runs[0].sim["estimator"] == "user"
    inst = instance_file(tmp_path, '{"cluster": {}, "jobs": []}')
    assert load(tmp_path, inst, 'estimator = "user"').runs[0].sim["estimator"] == "user"
    assert refusal(tmp_path, DEFAULT, 'estimator = "user"') == (
        "key 'workloads[0].kind': estimator 'user' reads every job's estimate; workload kind "
        "'default' has none (instance files and trace tables may)"
    )


def test_a_file_read_whole_is_held_to_the_size_limit_and_an_archive_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An instance file is read whole, a trace archive streamed (docs/security.md)."""
    archive = tmp_path / "log.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(PHILLY, arcname="cluster_job_log")
    big = '{"cluster": {}, "jobs": []}' + " " * 300  # longer than the sweep file
    workload = instance_file(tmp_path, big)
    limit = len(big) - 1
    assert archive.stat().st_size > limit
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", limit)
    assert refusal(tmp_path, workload) == (
        f"key 'workloads[0].path': {tmp_path / 'inst.json'}: {len(big):,} bytes: larger than "
        f"the {limit:,}-byte limit of a file read whole"
    )
    philly = f'kind = "philly-jobs"\nlog = "{archive}"\nnodes = 1\ngpus_per_node = 8'
    assert len(load(tmp_path, philly).runs) == 1


def test_an_input_that_is_not_a_file_is_refused_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    assert refusal(tmp_path, f'kind = "file"\npath = "{folder}"') == (
        f"key 'workloads[0].path': {folder}: is a directory, not a file"
    )


def test_a_dataset_file_that_cannot_be_read_names_the_reference_and_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference resolved to a file that is gone (e.g. removed from the cache meanwhile)."""
    gone = tmp_path / "cache" / "trace-data.tar.gz"
    monkeypatch.setattr(sweep_spec, "resolve_data_path", lambda ref: gone)
    ref = "data:philly-jobs/trace-data.tar.gz"
    assert refusal(tmp_path, f'kind = "philly-jobs"\nlog = "{ref}"') == (
        f"key 'workloads[0].log': cannot read {ref} ({gone}): No such file or directory"
    )


def test_what_the_simulator_would_refuse_names_the_sim_table(tmp_path: Path) -> None:
    assert refusal(tmp_path, DEFAULT, "interval = 5.0") == (
        "key 'sim': dt (10 s) must be at most the decision interval (5 s)"
    )


VARIANT_SWEEP = f"seeds = [0]\n[[workloads]]\n{DEFAULT}\n[[variants]]\n"


@pytest.mark.parametrize(
    ("variant", "refused"),
    [
        ('label = "x"', "key 'variants[0].policy': missing or not a string: None"),
        (
            'policy = "fifo"\nlabel = "a\\tb"',
            "key 'variants[0].label': must be a non-empty printable string, got 'a\\tb'",
        ),
        (
            'policy = "fifo"\nlabel = 3',
            "key 'variants[0].label': must be a non-empty printable string, got 3",
        ),
        (
            'policy = "fifo"\nlabel = ""',
            "key 'variants[0].label': must be a non-empty printable string, got ''",
        ),
    ],
)
def test_a_variant_needs_a_policy_and_a_printable_label(
    tmp_path: Path, variant: str, refused: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(VARIANT_SWEEP + variant + "\n", encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == f"{path}, {refused}"


def test_an_unknown_kind_or_key_lists_what_is_known(tmp_path: Path) -> None:
    known = ", ".join(WORKLOAD_PARAMS)
    assert refusal(tmp_path, 'kind = "nope"') == (
        f"key 'workloads[0].kind': unknown or missing workload kind 'nope' (known: {known})"
    )
    allowed = ", ".join(["kind", *WORKLOAD_PARAMS["default"]])
    assert "nodes" in allowed and "n_jobs" in allowed
    assert refusal(tmp_path, DEFAULT + "\nzz = 1") == (
        f"key 'workloads[0].zz': unknown key for kind 'default' (allowed: {allowed})"
    )


def test_the_same_workload_in_another_key_order_is_refused_as_the_same(tmp_path: Path) -> None:
    again = 'kind = "default"\ngpus_per_node = 4\nnodes = 1\nn_jobs = 8'
    assert refusal(tmp_path, f"{DEFAULT}\n[[workloads]]\n{again}") == (
        "key 'workloads[1]': gives the same workload as workloads[0]"
    )


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("workloads = [1]", "key 'workloads[0]': must be a table, got 1"),
        ("workloads = []", "key 'workloads': needs at least one [[workloads]] table"),
        ("workloads = 3", "key 'workloads': needs at least one [[workloads]] table"),
        (
            f'[[workloads]]\n{DEFAULT}\n[[variants]]\npolicy = "fifo"\nsim = 3',
            "key 'variants[0].sim': must be a table, got 3",
        ),
        (
            f'[[workloads]]\n{DEFAULT}\n[[variants]]\npolicy = "fifo"\nsim = {{dt = [1.0, 2.0]}}',
            "key 'variants[0].sim': lists sweep only in [sim], not in a variant",
        ),
    ],
)
def test_tables_and_lists_where_they_belong(tmp_path: Path, text: str, refused: str) -> None:
    path = tmp_path / "s.toml"
    variants = "" if "[[variants]]" in text else '\n[[variants]]\npolicy = "fifo"'
    path.write_text(f"seeds = [0]\n{text}{variants}\n", encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == f"{path}, {refused}"


def test_a_sim_table_is_counted_against_the_limit_before_it_is_expanded(tmp_path: Path) -> None:
    """2 × 2 points: accepted with a limit of 4 runs, refused naming ``sim`` with 3."""
    path = sweep_file(tmp_path, DEFAULT, "dt = [1.0, 2.0]\ninterval = [60.0, 120.0]")
    path.write_text(path.read_text().replace("dt = 10.0\n", ""), encoding="utf-8")
    assert len(load_sweep(path, max_runs=4).runs) == 4
    with pytest.raises(SweepError) as info:
        load_sweep(path, max_runs=3)
    assert str(info.value) == (
        f"{path}, key 'sim': expands to 4 runs, more than the limit of 3 "
        "(sjfbsbf sweep --max-runs N raises it)"
    )


def test_an_empty_list_is_refused_naming_its_key(tmp_path: Path) -> None:
    path = sweep_file(tmp_path)
    path.write_text(path.read_text().replace("dt = 10.0", "dt = []"), encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == f"{path}, key 'sim.dt': empty list: the sweep would have no runs"


def seeds_file(tmp_path: Path, seeds: str) -> Path:
    path = sweep_file(tmp_path)
    path.write_text(path.read_text().replace("seeds = [0]", f"seeds = {seeds}"), encoding="utf-8")
    return path


def test_a_seed_is_at_most_2_to_the_63_minus_1(tmp_path: Path) -> None:
    """The largest seed (the largest signed 64-bit integer) is accepted, the next refused."""
    top = 2**63 - 1
    assert top == sweep_spec._MAX_SEED
    assert [run.seed for run in load_sweep(seeds_file(tmp_path, f"[{top}]")).runs] == [top]
    path = seeds_file(tmp_path, f"[{top + 1}]")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == f"{path}, key 'seeds[0]': must be an integer >= 0, got {top + 1}"


def test_too_many_seeds_are_refused_naming_the_seeds(tmp_path: Path) -> None:
    path = seeds_file(tmp_path, "[0, 1, 2]")
    assert len(load_sweep(path, max_runs=3).runs) == 3
    with pytest.raises(SweepError) as info:
        load_sweep(path, max_runs=2)
    assert str(info.value) == (
        f"{path}, key 'seeds': expands to 3 runs, more than the limit of 2 "
        "(sjfbsbf sweep --max-runs N raises it)"
    )


PLAIN = "(letters, digits, '.', '_', '-'; no path separators, no '..'); give name = \"...\""


@pytest.mark.parametrize(
    ("top", "refused"),
    [
        ('name = "a/b"', f"key 'name': the name 'a/b' is not a plain directory name {PLAIN}"),
        ('name = "a..b"', f"key 'name': the name 'a..b' is not a plain directory name {PLAIN}"),
        ("description = 1", "key 'description': must be a string"),
        ("sim = 3", "key 'sim': must be a table, got 3"),
    ],
)
def test_the_top_level_keys_are_refused_word_for_word(
    tmp_path: Path, top: str, refused: str
) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f'{top}\n[[workloads]]\n{DEFAULT}\n[[variants]]\npolicy = "fifo"\n')
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == f"{path}, {refused}"


def test_a_sweep_without_name_or_seeds_is_named_by_its_file_and_runs_seed_0(
    tmp_path: Path,
) -> None:
    text = f'[[workloads]]\n{DEFAULT}\n[[variants]]\npolicy = "fifo"\n'
    path = tmp_path / "plain-name.toml"
    path.write_text(text, encoding="utf-8")
    sweep = load_sweep(path)
    assert sweep.name == "plain-name" and [run.seed for run in sweep.runs] == [0]
    path = tmp_path / "a b.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    assert str(info.value) == (
        f"{path}, key 'name': the file name 'a b' is not a plain directory name {PLAIN}"
    )


def test_alpha_on_an_instance_of_another_catalog_names_the_workload(tmp_path: Path) -> None:
    workload = instance_file(
        tmp_path, '{"catalog": "default:alpha=0.2", "cluster": {}, "jobs": []}'
    )
    assert refusal(tmp_path, workload, "alpha = 0.1") == (
        "key 'sim.alpha': applies only to instances of catalog 'default'; workloads[0] "
        f"({tmp_path / 'inst.json'}) is of catalog 'default:alpha=0.2'"
    )


def test_the_sweep_holds_its_name_file_and_code_and_each_run_the_sweeps_name(
    tmp_path: Path,
) -> None:
    path = sweep_file(tmp_path)
    sweep = load_sweep(path)
    assert sweep.name == "s" and sweep.source == str(path)
    assert sweep.code == code_version() and [run.code for run in sweep.runs] == [sweep.code]
    assert [run.sweep for run in sweep.runs] == ["s"]


def test_a_variants_sim_that_repeats_a_point_gives_the_same_run_twice(tmp_path: Path) -> None:
    """``dt = 20`` in the variant overrides both points of ``dt = [10, 20]``."""
    path = sweep_file(tmp_path)
    text = path.read_text().replace("dt = 10.0", "dt = [10.0, 20.0]")
    path.write_text(text + "sim = { dt = 20.0 }\n", encoding="utf-8")
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    same = re.fullmatch(
        rf"{re.escape(str(path))}: runs fifo seed 0 \[([0-9a-f]{{16}})\] and fifo seed 0 \[\1\] "
        r"are the same run \(same workload, simulator options, seed, policy and options\)",
        str(info.value),
    )
    assert same is not None, str(info.value)


def test_the_runs_of_all_tables_together_are_counted_against_the_limit(tmp_path: Path) -> None:
    """2 sim points × 2 seeds × 2 variants = 8 runs, each table alone within 7."""
    path = sweep_file(tmp_path)
    text = path.read_text().replace("dt = 10.0", "dt = [10.0, 20.0]")
    text = text.replace("seeds = [0]", "seeds = [0, 1]")
    path.write_text(text + '[[variants]]\npolicy = "sjf"\n', encoding="utf-8")
    assert len(load_sweep(path, max_runs=8).runs) == 8
    with pytest.raises(SweepError) as info:
        load_sweep(path, max_runs=7)
    assert str(info.value) == (
        f"{path}: expands to 8 runs, more than the limit of 7 "
        "(sjfbsbf sweep --max-runs N raises it)"
    )
