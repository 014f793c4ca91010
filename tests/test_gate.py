"""tests/gate.py's schedule (`make verify`): the longest phases start alone, a phase waits
for what it reads, and the report waits for every phase whose figures it shows."""

from __future__ import annotations

import sys
from pathlib import Path

import gate
import pytest

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


def test_the_longest_phases_have_the_cores_until_one_of_them_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`long` ends only once `next` has run: had `next` started beside the two first phases,
    before `short` ended, the events would say so (no timing: the order is the gate's)."""
    release = tmp_path / "release"
    wait = (
        "import pathlib, sys, time\n"
        f"for _ in range(6000):  # a hang guard, not a verdict\n"
        f"    if pathlib.Path({str(release)!r}).exists(): sys.exit(0)\n"
        "    time.sleep(0.01)\n"
        "sys.exit(1)"
    )
    py = sys.executable
    fakes = [
        gate.Phase("long", [py, "-c", wait], "", first=True),
        gate.Phase("short", [py, "-c", "pass"], "", first=True),
        gate.Phase("next", [py, "-c", f"open({str(release)!r}, 'w')"], ""),
        gate.Phase("last", [py, "-c", "pass"], "", after=("long", "next")),
    ]
    monkeypatch.setattr(gate, "phases", lambda: fakes)
    events: list[str] = []
    start, poll = gate.start, gate.poll

    def started(run: gate.Run, fresh: bool, env: dict[str, str]) -> None:
        events.append(f"start {run.phase.name}")
        start(run, fresh, env)

    def polled(run: gate.Run, fresh: bool) -> None:
        poll(run, fresh)
        if run.status is not None:
            events.append(f"end {run.phase.name}")

    monkeypatch.setattr(gate, "start", started)
    monkeypatch.setattr(gate, "poll", polled)
    assert gate.gate(fresh=True) == 0
    assert "all green" in capsys.readouterr().out
    assert events[:2] == ["start long", "start short"]
    assert events.index("start next") > events.index("end short")
    assert events.index("start last") > max(events.index("end long"), events.index("end next"))
