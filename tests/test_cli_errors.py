"""User mistakes on the command line: each gets one clear line and its exit code, no traceback.

Also: a broken spec module fails alone (verify, list, the other specs' commands).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from models.cli.main import main
from models.cli.registry import load

BROKEN = """
from models.kernel import Spec, Var, Bool, Trigger, row
SPECS = (Spec(name="zz", source="x", vars=(Var("b", Bool(), False),),
              triggers=(Trigger("t"),), rows=(row("r", "t", None, None, cite="   "),)),)
"""


@pytest.fixture
def broken_module(spec_module: Callable[[str, str], str]) -> str:
    """A spec module `models/zz_broken.py` whose spec is refused (a whitespace-only cite)."""
    return spec_module("zz_broken", BROKEN)


OVERFLOW = """
from models.kernel import IntRange, Spec, Trigger, Var, add, row, var
SPECS = (Spec(name="zz_overflow", source="x", vars=(Var("n", IntRange(0, 1), 0),),
              triggers=(Trigger("t"),),
              rows=(row("up", "t", None, None, sets={"n": add(var("n"), 1)}, cite="x"),)),)
"""


def test_a_spec_whose_checks_stop_fails_alone(
    spec_module: Callable[[str, str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    name = spec_module("zz_overflow", OVERFLOW)
    assert main(["verify", name, "policy:eager-reading", "--jobs", "1"]) == 1
    out, err = capsys.readouterr()
    stopped = "the checks stopped: OracleError: row 'up' sets 'n' to 2, outside int 0..1"
    assert f"  error: {stopped}" in out and f"  zz_overflow: {stopped}" in out
    assert "policy:eager-reading — " in out and no_traceback(out + err)
    summary = (
        "verify: FAILED — 1 spec stopped on an error; the other 1 check matched its expectation"
    )
    assert summary in out


def no_traceback(text: str) -> bool:
    return "Traceback" not in text and 'File "' not in text


def test_a_broken_module_is_recorded_with_its_one_line_error(broken_module: str) -> None:
    registry = load()
    error = registry.broken[broken_module].error
    assert error == (
        "SpecError: row 'r': no source citation (cite the ADR row or seed line it ports)"
    )
    assert "duplex" in registry.specs and "wave" in registry.specs


def test_list_shows_the_broken_module(
    broken_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["list"]) == 1
    out, err = capsys.readouterr()
    assert "zz_broken: BROKEN — models/zz_broken.py: SpecError: row 'r'" in out
    assert "duplex: seeds/duplex.rs" in out and no_traceback(out + err)


def test_diagram_reports_the_broken_module_and_draws_the_others(
    broken_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "pictures"
    assert main(["diagram", "duplex", "zz_broken", "--out", str(out_dir)]) == 1
    out, err = capsys.readouterr()
    assert "error: models/zz_broken.py is broken, not drawn: SpecError: row 'r'" in err
    assert (out_dir / "duplex-audio.dot").exists() and (out_dir / "duplex-text.mmd").exists()
    assert no_traceback(out + err)


def test_report_reports_the_broken_module_and_writes_the_others(
    broken_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "duplex", "zz_broken", "-o", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "error: models/zz_broken.py is broken, not reported: SpecError: row 'r'" in err
    assert 'id="duplex"' in (tmp_path / "index.html").read_text()
    assert no_traceback(out + err)


def test_verify_fails_the_broken_module_and_checks_the_others(
    broken_module: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    argv = ["verify", "policy:eager-reading", "zz_broken", "--jobs", "1", "--json", str(report)]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    assert "zz_broken — BROKEN: models/zz_broken.py: SpecError" in out
    summary = "verify: FAILED — 1 spec module broken; the other 1 check matched its expectation"
    assert summary in out and "policy:eager-reading — " in out
    assert no_traceback(out + err)
    data = json.loads(report.read_text())
    assert data["ok"] is False and data["broken"][0]["module"] == "zz_broken"
    assert [s["name"] for s in data["specs"]] == ["policy:eager-reading"]


def test_commands_about_another_spec_still_work(
    broken_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "policy:eager-reading", "--jobs", "1"]) == 0
    assert main(["explain", "policy:eager-reading", "calls-read-the-wave-start"]) == 0
    assert main(["explain", "zz_broken", "x"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "error: models/zz_broken.py is broken: SpecError: row 'r': no source citation "
        "(cite the ADR row or seed line it ports)"
    )


def test_traceback_flag_shows_where(broken_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--traceback"]) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verify", "--json", "{dir}"], "is a directory, not a regular file"),
        (["verify", "--json", "{file}/r.json"], "is not a directory"),
        (["diagram", "--out", "{file}"], "is not a directory"),
        (["diagram", "--out", "{file}/sub"], "is not a directory"),
        (["verify", "--json", "/proc/statecheck/r.json"], "cannot write in /proc"),
    ],
)
def test_an_unwritable_output_is_refused_before_any_check(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "f").write_text("")
    argv = [a.format(dir=tmp_path, file=tmp_path / "f") for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing ran
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and message in err


def test_json_dash_writes_the_report_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "policy:eager-reading", "--jobs", "1", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["ok"] is True
    assert "verify: ok — 1 check on 1 spec" in err


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_jobs_below_one_is_refused(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--jobs", jobs]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m models verify") and "argument --jobs" in err


def test_a_wrong_flag_shows_the_subcommands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "duplex", "x", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m models explain")
    assert "unrecognized arguments: --bogus" in err


def test_a_closed_pipe_ends_quietly() -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "models", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    child.stdout.close()  # the reader is gone before the first line is written
    _, err = child.communicate(timeout=60)
    assert err == "" and child.returncode == 1


def test_the_exit_codes_are_distinct(
    broken_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "policy:eager-reading", "--jobs", "1"]) == 0
    assert main(["verify", broken_module]) == 1
    assert main(["verify", "nope"]) == 2
    assert "; broken: models/zz_broken.py" in capsys.readouterr().err
