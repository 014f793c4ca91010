"""Prints row coverage (replay) and hit counts (lockstep) at the end of a run."""

from __future__ import annotations

from typing import Any

from conformance.harness import COVERAGE


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not any(COVERAGE.values()):
        return
    write = terminalreporter.write_line
    terminalreporter.section("conformance coverage")
    for cov in COVERAGE["replay"].values():
        write(f"replay   {cov.summary()}")
    for cov in COVERAGE["lockstep"].values():
        write(f"lockstep {cov.summary()}; hits per row:")
        for row in cov.spec.rows:
            write(f"    {cov.hits[row.name]:7d}  {row.name}")
