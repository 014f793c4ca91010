"""A failure comes last: when a run fails, pytest's failure report and short summary are the
last thing printed, after the conformance coverage tables (conformance/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
