"""The report's figures from outside `verify` (issue 10 §2): conformance row coverage and
the mutant gate.

Both are files the merge gate writes: `reports/conformance.json` when the pytest suite
drives the lockstep and replay harness (conformance/conftest.py), `reports/mutants.json`
from `python -m models mutants --json` (shape in issue 7). A file that is missing or
unreadable is said to be so ("not measured yet: run make verify"), never an error: the
report is useful before the slow parts have run.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from models.kernel.spec import Spec

REPORTS = Path(__file__).resolve().parent.parent / "reports"
CONFORMANCE = REPORTS / "conformance.json"
MUTANTS = REPORTS / "mutants.json"
NOT_MEASURED = "not measured yet: run make verify"


def read(path: Path) -> Mapping[str, Any] | None:
    """The JSON object in `path`, or None when it is missing or not a JSON object."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def conformance_html(spec: Spec, data: Mapping[str, Any] | None) -> str:
    """The conformance row coverage of `spec`'s base spec: hits per row, replay and lockstep."""
    if spec.expect_violated:
        return ""  # a historical variant has no implementation to conform
    specs = data.get("specs") if data else None
    entry = specs.get(spec.name.partition(":")[0]) if isinstance(specs, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("rows"), dict):
        why = (
            f"{NOT_MEASURED} (no {CONFORMANCE.name})"
            if data is None
            else "no conformance test drove this spec in the last pytest run"
        )
        return f'<p class="conformance">conformance row coverage: {_e(why)}</p>'
    rows: Mapping[str, Mapping[str, int]] = entry["rows"]
    kinds = sorted({k for hits in rows.values() for k in hits})
    lines = []
    for r in spec.rows:
        hits = rows.get(r.name, {})
        cells = "".join(
            f'<td class="{"v-violated" if not hits.get(k) else ""}">{int(hits.get(k, 0))}</td>'
            for k in kinds
        )
        lines.append(f"<tr><td>{_e(r.name)}</td>{cells}</tr>")
    totals = "; ".join(
        f"{k}: {sum(1 for r in spec.rows if rows.get(r.name, {}).get(k))} of "
        f"{len(spec.rows)} rows hit"
        for k in kinds
    )
    head = "".join(f"<th>{_e(k)} hits</th>" for k in kinds)
    return (
        f'<details class="conformance"><summary>conformance row coverage '
        f"(HYPOTHESIS_PROFILE={_e(str(entry.get('profile', '?')))}): {_e(totals)}</summary>"
        f'<table class="checks"><thead><tr><th>row</th>{head}</tr></thead><tbody>'
        + "".join(lines)
        + "</tbody></table></details>"
    )


def mutants_html(spec: Spec, data: Mapping[str, Any] | None) -> str:
    """The mutant gate's figures for `spec` (a base spec; variants have none)."""
    if spec.expect_violated or ":" in spec.name:
        return ""
    if data is None:
        return f'<p class="mutants">mutant gate: {_e(NOT_MEASURED)} (no {MUTANTS.name})</p>'
    entry = next(
        (s for s in data.get("specs", []) if isinstance(s, dict) and s.get("name") == spec.name),
        None,
    )
    if entry is None:
        return f'<p class="mutants">mutant gate: {_e(NOT_MEASURED)} (no figures for this spec)</p>'
    killed = entry.get("killed", {})
    rate = entry.get("model_kill_rate")
    figures = (
        f"{entry.get('generated', 0)} generated, {entry.get('skipped', 0)} skipped; killed by "
        f"model {killed.get('model', 0)}, conformance {killed.get('conformance', 0)}, "
        f"seed {killed.get('seed', 0)}; {entry.get('equivalent', 0)} equivalent (proved); "
        f"{entry.get('survived', 0)} survived"
        + (f"; model-layer kill rate {100 * rate:.0f}%" if isinstance(rate, int | float) else "")
    )
    survivors = [
        m
        for m in entry.get("mutants", [])
        if isinstance(m, dict) and m.get("verdict") == "survived"
    ]
    listing = "".join(
        f"<li>{_e(str(m.get('id')))}: {_e(str(m.get('operator')))} on "
        f"{_e(str(m.get('row') or 'the initial state'))}</li>"
        for m in survivors
    )
    status = "bad" if entry.get("survived") else "ok"
    return f'<p class="mutants {status}">mutant gate: {_e(figures)}</p>' + (
        f'<ul class="survivors">{listing}</ul>' if listing else ""
    )


def _e(s: str) -> str:
    return html.escape(s, quote=True)
