"""tests/gate.py's schedule (`make verify`): the report waits for every phase whose figures
it shows."""

from __future__ import annotations

from pathlib import Path

import gate

from models.cli import report_figures
from models.cli import results

ROOT = Path(__file__).resolve().parent.parent


def test_the_report_waits_for_every_phase_whose_figures_it_reads() -> None:
    phases = {p.name: p for p in gate.phases()}
    writes: dict[str, str] = {}
    for phase in phases.values():
        for artifact in phase.artifacts:
            writes[artifact] = phase.name
        if "--json" in phase.command:
            writes[phase.command[phase.command.index("--json") + 1]] = phase.name
    read = [
        str(results.REPORT),
        *(
            str(path.relative_to(ROOT))
            for path in (report_figures.CONFORMANCE, report_figures.MUTANTS, report_figures.SEEDS)
        ),
    ]
    # SPIN's agreement (reports/spin.json) is make test's: the report says "not recorded".
    assert str(report_figures.SPIN.relative_to(ROOT)) not in writes
    report = phases["the verification report"]
    assert {f: writes.get(f) for f in read} == {
        "reports/verify.json": "model checks",
        "reports/conformance.json": "pytest",
        "reports/mutants.json": "mutant gate (fast)",
        "reports/seeds.json": "seed differential",
    }
    assert set(writes[f] for f in read) <= set(report.after)
