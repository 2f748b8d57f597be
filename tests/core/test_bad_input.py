"""Bad input files: refused with one line naming the file (and line / job / field), no traceback,
nothing written; the same message from Python (:func:`read_instance`) and from the command line.

Each class has a file in ``tests/data/bad_input/`` (the 100k-deep JSON is generated); the
expected text is the exact message after ``sjfbsbf: error: <file>``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sjfbsbf.cli import app
from sjfbsbf.core.errors import InstanceError, escape
from sjfbsbf.core.instance_io import read_instance
from sjfbsbf.core.jsonio import MAX_DEPTH, loads, read_json
from sjfbsbf.core.model import MAX_TIME_S, Cluster, Instance, Job
from sjfbsbf.workloads.gavel import load_gavel_trace, load_throughputs, throughputs_from_dict

DATA = Path(__file__).resolve().parents[1] / "data" / "bad_input"
runner = CliRunner()

#: file in tests/data -> exact message after "<path>"
BAD_INPUT = {
    "binary.json": ": binary file, not text (NUL byte at byte offset 8)",
    "latin1.json": ": not UTF-8 text (byte 0xe9 at byte offset 110)",
    "utf16.json": ": UTF-16 text (byte-order mark at byte offset 0); save it as UTF-8",
    "lone_surrogate.json": ", line 3, field 'name': lone surrogate in a string (not Unicode text)",
    "nan.json": ", line 4, field 'arrival': NaN is not a finite number (JSON numbers must be "
    "finite)",
    "infinity.json": ", line 5, field 'duration': Infinity is not a finite number (JSON "
    "numbers must be finite)",
    "float_overflow.json": ", line 3, field 'duration': number 1e400 is out of range "
    "(overflows a float)",
    "huge_integer.json": ", line 3, field 'duration': integer of 5001 digits is out of range "
    "(at most 30)",
    "duplicate_key.json": ", line 5, field 'arrival': duplicate key in one object",
    "duplicate_key_top.json": ", line 4, field 'jobs': duplicate key in one object",
    "arrival_limit.json": ", job 4, field 'arrival': must be at most 315,576,000 s (10 years), "
    "got 1e+300",
    "duration_limit.json": ", job 3, field 'duration': must be at most 315,576,000 s "
    "(10 years), got 400000000.0",
    "iterations_limit.json": ", job 5, field 'iterations': must be at most "
    "1,000,000,000,000, got 1,000,000,000,000,000,000",
    "id_limit.json": ", jobs[0], field 'id': must be at most 9,007,199,254,740,991, got "
    "9,007,199,254,740,992",
    "cluster_limit.json": ", cluster, field 'nodes': must be at most 100,000, got 1,000,000",
    "cluster_gpus_limit.json": ", cluster, field 'nodes': 100,000 nodes × 1,024 GPUs per node = "
    "102,400,000 GPUs; a cluster has at most 4,194,304",
    "generic_memory.json": ", job 0, field 'duration': a duration-only job needs 4.78 GB per "
    "GPU (the generic profile of catalog 'default'), more than the cluster's 4 GB",
    "control_chars.json": ", job 6, field 'pri\\x1b[31mority\\n': unknown key (allowed: "
    "arrival, batch, duration, estimate, gpus, id, iterations, model, user, vc)",
    "estimate_negative.json": ", job 2, field 'estimate': must be a positive number, got -5.0",
    "estimate_string.json": ", job 3, field 'estimate': must be a positive number, got '3600'",
    "vc_empty.json": ", job 4, field 'vc': must be a non-empty string, got ''",
    "vc_control_char.json": ", job 5, field 'vc': must be printable text (no control "
    "characters), got 'vc\\x1b[31mA'",
    "user_too_long.json": ", job 7, field 'user': must be at most 128 characters, got 129",
}


@pytest.fixture(scope="module")
def deep_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON file nested 100,000 levels deep (Python's parser overflows the C stack guard)."""
    path = tmp_path_factory.mktemp("deep") / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return path


DEEP_MESSAGE = f", line 1: JSON nested deeper than {MAX_DEPTH} levels (column {MAX_DEPTH + 1})"


def _cases(deep: Path) -> list[tuple[Path, str]]:
    return [(DATA / name, message) for name, message in sorted(BAD_INPUT.items())] + [
        (deep, DEEP_MESSAGE)
    ]


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_read_instance_raises_one_line(name: str) -> None:
    path = DATA / name
    with pytest.raises(InstanceError) as info:
        read_instance(path)
    assert str(info.value) == f"{path}{BAD_INPUT[name]}"
    assert info.value.source == str(path)
    assert "\n" not in str(info.value) and str(info.value).isprintable()


def test_every_file_is_covered() -> None:
    assert {p.name for p in DATA.iterdir()} == set(BAD_INPUT)


def test_deep_json_is_refused_before_recursion(deep_json: Path) -> None:
    with pytest.raises(InstanceError) as info:
        read_instance(deep_json)
    assert str(info.value) == f"{deep_json}{DEEP_MESSAGE}"
    objects = '{"a":' * 70 + "1" + "}" * 70
    with pytest.raises(InstanceError, match="nested deeper than 64"):
        loads(objects, "x.json")
    # Brackets inside strings do not count; the limit itself is accepted.
    assert loads(json.dumps(["[" * 500]), "x.json") == ["[" * 500]
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH, "x.json") is not None


def _cli(args: list[str]) -> tuple[int, str, str]:
    result = runner.invoke(app, args)
    assert isinstance(result.exception, SystemExit), result.exception  # no uncaught exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_cli_one_line_and_nothing_written(command: str, deep_json: Path, tmp_path: Path) -> None:
    for path, message in _cases(deep_json):
        out = tmp_path / "out"
        if command == "simulate":
            args = ["simulate", str(path), "--policy", "sjf", "--jobs-csv", str(out / "jobs.csv")]
        else:
            args = ["compare", str(path), "--out", str(out)]
        code, stdout, stderr = _cli(args)
        assert code == 1, (path, stderr)
        assert stderr == f"sjfbsbf: error: {path}{message}\n"
        assert "Traceback" not in stdout + stderr
        assert not out.exists(), path


def test_solve_refuses_generic_memory_at_load(tmp_path: Path) -> None:
    """Used to pass validation and fail inside the offline model; now refused when loaded."""
    path = DATA / "generic_memory.json"
    code, _, stderr = _cli(["solve", str(path)])
    assert code == 1
    assert stderr == f"sjfbsbf: error: {path}{BAD_INPUT['generic_memory.json']}\n"


@pytest.mark.parametrize("name", ["binary.json", "control_chars.json", "deep"])
def test_console_script_no_traceback(name: str, deep_json: Path) -> None:
    script = Path(sys.executable).with_name("sjfbsbf")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    path = deep_json if name == "deep" else DATA / name
    message = DEEP_MESSAGE if name == "deep" else BAD_INPUT[name]
    done = subprocess.run(
        [str(script), "simulate", str(path), "--policy", "sjf"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == f"sjfbsbf: error: {path}{message}\n"


def test_limits_hold_for_instances_built_in_python() -> None:
    with pytest.raises(InstanceError, match="at most 315,576,000 s"):
        Job(0, arrival=MAX_TIME_S * 2, gpus=1, duration=60.0)
    with pytest.raises(InstanceError, match="at most 1,000,000,000,000"):
        Job(0, arrival=0.0, gpus=1, model="dqn", batch=128, iterations=10**13)
    with pytest.raises(InstanceError, match=r"field 'duration'.*generic profile"):
        Instance(Cluster(nodes=1, gpus_per_node=1, gpu_mem_gb=1.0), (Job(0, 0.0, 1, duration=1.0),))
    # A job running for months is fine.
    Job(0, arrival=MAX_TIME_S, gpus=1, duration=131 * 86400.0)


def test_escape_keeps_one_printable_line() -> None:
    assert escape("ok é ü") == "ok é ü"
    assert escape("a\nb\r\x1b[0m\x00\u2028\ud800") == "a\\nb\\r\\x1b[0m\\x00\\u2028\\ud800"
    err = InstanceError("bad\nthing", source="f\n.json", row="line\t2", field="k\x07")
    assert str(err) == "f\\n.json, line\\t2, field 'k\\x07': bad\\nthing"


def test_throughput_table_and_trace_are_read_strictly(tmp_path: Path) -> None:
    table = tmp_path / "throughputs.json"
    table.write_text('{"v100": {"(\'A\', 1)": {"null": NaN}}}', encoding="utf-8")
    with pytest.raises(InstanceError) as info:
        load_throughputs(table)
    assert str(info.value) == (
        f"{table}, line 1, field 'null': NaN is not a finite number (JSON numbers must be finite)"
    )
    table.write_text('{"v100": {}, "v100": {}}', encoding="utf-8")
    with pytest.raises(InstanceError, match="line 1, field 'v100': duplicate key"):
        read_json(table)

    trace = tmp_path / "t.trace"
    trace.write_bytes(b"ResNet-18 (batch size 32)\tpython x\t--steps\t1\t100\t0\t1\n\xff\xfe\n")
    tiny = throughputs_from_dict({"v100": {"('ResNet-18 (batch size 32)', 1)": {"null": 10.0}}})
    with pytest.raises(InstanceError) as info:
        load_gavel_trace(trace, tiny, cluster=Cluster())
    assert str(info.value) == f"{trace}: not UTF-8 text (byte 0xff at byte offset 53)"
    trace.write_text(
        "ResNet-18 (batch size 32)\tpython x\t--steps\t1\t100\t0\t1\n"
        "ResNet-18 (batch size 32)\tpython x\t--steps\t1\t100\t1e300\t1\n",
        encoding="utf-8",
    )
    with pytest.raises(InstanceError) as info:
        load_gavel_trace(trace, tiny, cluster=Cluster())
    assert str(info.value) == (
        f"{trace}, line 2, field 'arrival_time_s': must be at most 315,576,000 s (10 years), "
        "got 1e+300"
    )
    trace.write_text(
        "ResNet-18 (batch size 32)\tpython x\t--steps\t1\t10000000000000\t0\t1\n", encoding="utf-8"
    )
    with pytest.raises(InstanceError) as info:
        load_gavel_trace(trace, tiny, cluster=Cluster(), mode="duration")
    assert str(info.value) == (
        f"{trace}, line 1, field 'total_steps': gives a job duration that must be at most "
        "315,576,000 s (10 years), got 1000000000000.0"
    )
