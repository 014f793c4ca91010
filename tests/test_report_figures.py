"""The report's conformance coverage and mutant gate figures (models/cli/report_figures.py,
conformance.harness.write_coverage): read when present, "not measured yet" when not."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conformance import harness
from models.cli import report_figures
from models.cli.registry import lookup


def _duplex_coverage(hits: dict[str, int]) -> harness.Coverage:
    return harness.Coverage(lookup("duplex"), Counter(hits))


def test_the_harness_writes_each_rows_hits_and_keeps_other_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "reports" / "conformance.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"specs": {"wave": {"rows": {"launch": {"lockstep": 3}}}}}))
    spec = lookup("duplex")
    first, second = spec.rows[0].name, spec.rows[1].name
    monkeypatch.setattr(
        harness,
        "COVERAGE",
        {
            "replay": {"duplex": _duplex_coverage({first: 1})},
            "lockstep": {"duplex": _duplex_coverage({first: 7, second: 2})},
        },
    )
    harness.write_coverage(path)
    specs = json.loads(path.read_text())["specs"]
    assert specs["wave"] == {"rows": {"launch": {"lockstep": 3}}}  # not driven: kept
    rows = specs["duplex"]["rows"]
    assert set(rows) == {r.name for r in spec.rows}
    assert rows[first] == {"replay": 1, "lockstep": 7}
    assert rows[second] == {"replay": 0, "lockstep": 2}


def test_missing_files_say_not_measured_yet() -> None:
    spec = lookup("duplex")
    assert "not measured yet: run make verify" in report_figures.conformance_html(spec, None)
    assert "not measured yet: run make verify" in report_figures.mutants_html(spec, None)
    assert report_figures.read(Path("/nonexistent/mutants.json")) is None


def test_conformance_coverage_counts_rows_hit_and_marks_the_missed() -> None:
    spec = lookup("duplex")
    first = spec.rows[0].name
    data = {"specs": {"duplex": {"rows": {first: {"lockstep": 5}}, "profile": "ci"}}}
    page = report_figures.conformance_html(spec, data)
    assert f"lockstep: 1 of {len(spec.rows)} rows hit" in page
    assert f'<td>{spec.rows[1].name}</td><td class="v-violated">0</td>' in page
    assert "HYPOTHESIS_PROFILE=ci" in page
    other = report_figures.conformance_html(lookup("wave"), data)
    assert "no conformance test drove this spec in the last pytest run" in other


def test_the_mutant_gate_figures_and_survivors_are_shown() -> None:
    data = {
        "ok": False,
        "specs": [
            {
                "name": "duplex",
                "generated": 40,
                "skipped": 2,
                "killed": {"model": 33, "conformance": 4, "seed": 0},
                "equivalent": 2,
                "survived": 1,
                "model_kill_rate": 0.8684,
                "mutants": [
                    {
                        "id": "duplex-17",
                        "operator": "drop-guard",
                        "row": "onset_claims_idle",
                        "killed_by": [],
                        "verdict": "survived",
                    },
                    {
                        "id": "duplex-18",
                        "operator": "retarget",
                        "row": "x",
                        "killed_by": [{"layer": "model", "check": "c", "trace_length": 3}],
                        "verdict": "killed",
                    },
                ],
            }
        ],
    }
    page = report_figures.mutants_html(lookup("duplex"), data)
    assert "40 generated, 2 skipped; killed by model 33, conformance 4, seed 0" in page
    assert "2 equivalent (proved); 1 survived; model-layer kill rate 87%" in page
    assert "duplex-17: drop-guard on onset_claims_idle" in page and "duplex-18" not in page
    assert "no figures for this spec" in report_figures.mutants_html(lookup("wave"), data)
    assert report_figures.mutants_html(lookup("wave:seed"), data) == ""  # a variant has none


def test_the_report_page_carries_both_figures_for_each_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from models.cli import report
    from models.cli.results import load

    monkeypatch.setattr(report, "CONFORMANCE", tmp_path / "missing.json")
    monkeypatch.setattr(report, "MUTANTS", tmp_path / "missing.json")
    spec = lookup("duplex")
    results, origin = load([spec])
    page = report.build([spec], results, origin)
    assert "conformance row coverage: not measured yet: run make verify" in page
    assert "mutant gate: not measured yet: run make verify" in page


def test_the_page_is_the_same_drawn_by_two_processes_as_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `report --jobs` draws each base spec with its variants in its own process; the page
    # (traces, cited sources and the order of the sections included) must not change.
    from models.cli import report
    from models.cli.registry import expand
    from models.cli.results import load

    monkeypatch.setattr(report, "provenance", lambda origin: origin)  # it holds the time
    specs = expand(["policy", "admission"])
    results, origin = load(specs)
    one = report.build(specs, results, origin, out=tmp_path, jobs=1)
    two = report.build(specs, results, origin, out=tmp_path, jobs=2)
    assert one == two
    assert one.index("<h2>policy:") < one.index("<h2>admission</h2>")  # policy's variants first


def test_the_report_reads_the_figures_where_the_gate_and_pytest_write_them() -> None:
    """The figures files are the checkout's reports/: models/cli/ once read models/reports/,
    which nothing writes, and the report said "not measured yet" for every spec."""
    from conformance.conftest import CONFORMANCE_JSON

    root = Path(__file__).resolve().parent.parent
    assert root / "reports" == report_figures.REPORTS
    assert CONFORMANCE_JSON == report_figures.CONFORMANCE
