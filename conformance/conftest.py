"""Prints row coverage (replay) and hit counts (lockstep) at the end of a run.

The one-line summaries always; the per-row hit tables only on request
(`pytest -v`, or `STATECHECK_HITS=1`) or when the run failed.
"""

from __future__ import annotations

import os
from typing import Any

from conformance.harness import COVERAGE


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
