"""Prints row coverage (replay) and hit counts (lockstep) at the end of a run.

The one-line summaries always; the per-row hit tables only on request
(`pytest -v`, or `STATECHECK_HITS=1`) or when the run failed. The hit counts
are also written to reports/conformance.json for the verification report.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from conformance.harness import COVERAGE, write_coverage

# The row hit counts of the last run, which the verification report shows.
CONFORMANCE_JSON = Path(__file__).resolve().parent.parent / "reports" / "conformance.json"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if any(COVERAGE.values()):
        write_coverage(CONFORMANCE_JSON)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    if not any(COVERAGE.values()):
        return
    write = terminalreporter.write_line
    tables = config.option.verbose > 0 or os.environ.get("STATECHECK_HITS") == "1" or exitstatus
    terminalreporter.section("conformance coverage")
    for cov in COVERAGE["replay"].values():
        write(f"replay   {cov.summary()}")
    for cov in COVERAGE["lockstep"].values():
        write(f"lockstep {cov.summary()}" + ("; hits per row:" if tables else ""))
        if tables:
            for row in cov.spec.rows:
                write(f"    {cov.hits[row.name]:7d}  {row.name}")
