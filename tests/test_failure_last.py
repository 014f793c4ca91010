"""A failure comes last: when a run fails, pytest's failure report and short summary are the
last thing printed, after the conformance coverage tables (conformance/conftest.py); in
`make verify`, a failed phase's output comes after every other phase's (tests/gate.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A plugin that fails one conformance test, so the run has coverage to print and a failure.
PLANTED = """
def pytest_runtest_call(item):
    if item.name.endswith("[erl_update]"):
        raise AssertionError("planted failure")
"""


def test_the_failure_and_its_summary_are_printed_last(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text(PLANTED)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "HYPOTHESIS_PROFILE": "dev"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "planted", "-p", "no:cacheprovider"]
        + ["conformance/test_duplex.py::test_replay_row_witness"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout
    assert done.returncode == 1, out
    coverage, failures = out.index("conformance coverage"), out.index("FAILURES")
    assert coverage < failures, "the coverage tables come after the failure"
    tail = out.rstrip().splitlines()
    assert "short test summary info" in tail[-3], tail[-3:]
    assert tail[-2].startswith("FAILED conformance/test_duplex.py::test_replay_row_witness[erl_")
    assert "1 failed" in tail[-1]


def test_the_gate_shows_a_failed_phase_last(capsys: pytest.CaptureFixture[str]) -> None:
    """`make verify` (tests/gate.py) shows each phase as it ends, in order, but a failed
    phase's output only after every other phase's, so its failure summary closes the run."""
    import gate

    failing = gate.Run(gate.Phase("pytest", [], "pytest failed (above)"), status=1)
    failing.out += b"FAILED tests/test_x.py::test_y - assert 1 == 2\n1 failed\n"
    passing = gate.Run(gate.Phase("mypy", [], "run mypy"), status=0)
    passing.out += b"Success: no issues found\n"
    gate.show(1, 2, failing)
    gate.show(2, 2, passing)
    gate.show_failures([failing])
    out = capsys.readouterr().out.splitlines()
    assert out.index("Success: no issues found") < out.index("1 failed")
    assert out[-2:] == ["1 failed", "verify: pytest: pytest failed (above)"]
