"""Prints row coverage (replay) and hit counts (lockstep) at the end of a run.

The one-line summaries always; the per-row hit tables only on request
(`pytest -v`, or `STATECHECK_HITS=1`) or when the run failed. They come before
pytest's failures and short summary, so a failure is the last thing printed. The hit counts
are also written to reports/conformance.json for the verification report.

Under pytest-xdist (`make verify` runs `pytest -n 2`) each worker hands its hit
counts to the controller, which adds them up, prints and writes them once.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from conformance.harness import COVERAGE
from conformance.harness import coverage_for
from conformance.harness import write_coverage
from models.cli.registry import UnknownSpec
from models.cli.registry import lookup

# The row hit counts of the last run, which the verification report shows.
CONFORMANCE_JSON = Path(__file__).resolve().parent.parent / "reports" / "conformance.json"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller writes the file
        workeroutput["coverage"] = {
            kind: {name: dict(cov.hits) for name, cov in specs.items()}
            for kind, specs in COVERAGE.items()
        }
    elif any(COVERAGE.values()):
        write_coverage(CONFORMANCE_JSON)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist's controller: add a finished worker's hit counts to the session's."""
    for kind, specs in getattr(node, "workeroutput", {}).get("coverage", {}).items():
        for name, hits in specs.items():
            try:
                spec = lookup(name)
            except UnknownSpec:  # a spec built by a test (the README's example), not a model
                continue
            coverage_for(kind, spec).hits.update(hits)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(
    terminalreporter: Any, exitstatus: int, config: Any
) -> Generator[None, None, None]:
    """Written before pytest's own summary (this wrapper runs outside the terminal
    reporter's), so that a failure's report and the short summary come last."""
    _coverage_section(terminalreporter, exitstatus, config)
    yield


def _coverage_section(terminalreporter: Any, exitstatus: int, config: Any) -> None:
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
