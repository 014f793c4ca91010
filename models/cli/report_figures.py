"""The report's figures from outside `verify` (issue 10 §2): conformance row coverage and
the mutant gate; and each spec's summary table (issue 19), every figure with what it means.

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
from typing import TYPE_CHECKING
from typing import Any

from models.kernel.spec import Spec

if TYPE_CHECKING:
    from models.cli.results import SpecResults

REPORTS = (
    Path(__file__).resolve().parents[2] / "reports"
)  # the checkout's, where make verify writes
CONFORMANCE = REPORTS / "conformance.json"
MUTANTS = REPORTS / "mutants.json"
SPIN = REPORTS / "spin.json"
SEEDS = REPORTS / "seeds.json"
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


def summary_html(
    spec: Spec,
    results: SpecResults,
    states: str,
    conformance: Mapping[str, Any] | None,
    mutants: Mapping[str, Any] | None,
) -> str:
    """One spec's figures as a table: the figure, then what it counts and how to read it;
    `states` is the reachable-state count in words (`trace.state_count`)."""
    verdicts: dict[str, int] = {}
    for c in results.checks:
        verdicts[c.verdict] = verdicts.get(c.verdict, 0) + 1
    failed = sum(not c.ok for c in results.checks)
    by = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
    rows = [
        (
            "reachable states",
            states,
            "states the explorer reaches from the initial ones (breadth first, every row, every "
            "argument); every verdict below holds on all of them",
        ),
        (
            "rows",
            str(len(spec.rows)),
            "the spec's transition rows (ignore rows included); the rows table below gives "
            "each one's shortest witness",
        ),
        (
            "checks",
            f"{len(results.checks)}: {by}",
            "properties and structural checks; proved = holds on every reachable state, "
            "witnessed = a trace reaches it, violated = a counterexample, unknown = an engine "
            "gave up (a failure). "
            + (
                f"{failed} did not match their expectation."
                if failed
                else "Every verdict matches its expectation"
                + (
                    " (this variant must violate the checks it names)."
                    if spec.expect_violated
                    else "."
                )
            ),
        ),
        ("SPIN agreement", *_spin(spec)),
        ("seed differential", *_seeds(spec)),
        ("conformance", *_coverage(spec, conformance)),
        ("mutant gate", *_mutants(spec, mutants)),
    ]
    body = "".join(
        f'<tr><th>{_e(k)}</th><td class="figure">{_e(v)}</td><td>{_e(why)}</td></tr>'
        for k, v, why in rows
    )
    return (
        f'<table class="summary" aria-label="{_e(spec.name)} summary">'
        "<thead><tr><th>figure</th><th>value</th><th>what it means</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _entry(data: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    specs = data.get("specs") if data else None
    if isinstance(specs, dict):
        found = specs.get(name)
    elif isinstance(specs, list):
        found = next((s for s in specs if isinstance(s, dict) and s.get("name") == name), None)
    else:
        found = None
    return found if isinstance(found, dict) else None


def _spin(spec: Spec) -> tuple[str, str]:
    entry = _entry(read(SPIN), spec.name)
    what = (
        "SPIN's exhaustive search of the exported Promela model against the explorer: "
        "states, every property's verdict and every trail must agree"
    )
    if entry is None:
        return (
            "not recorded",
            f"{what}. No {SPIN.name} in reports/: `python -m models spin --json "
            "reports/spin.json` writes it.",
        )
    return str(entry.get("summary", "?")), what


def _seeds(spec: Spec) -> tuple[str, str]:
    base = spec.name.partition(":")[0]
    entry = _entry(read(SEEDS), base)
    what = (
        "walks from the model run through the seed (the original code) and through impl; "
        "every log is checked by check-trace, and every seed/impl difference must be an "
        "allowed one"
    )
    if spec.expect_violated:
        return "-", "a variant has no seed run of its own; see its base spec"
    if entry is None:
        return "not recorded", f"{what}. No {SEEDS.name} in reports/: `make seeds` writes it."
    return str(entry.get("summary", "?")), what


def _coverage(spec: Spec, data: Mapping[str, Any] | None) -> tuple[str, str]:
    what = (
        "rows of the model that the conformance tests drove through impl (replay: along "
        "each row's shortest witness; lockstep: hypothesis walks); the table below has hits "
        "per row"
    )
    if spec.expect_violated:
        return "-", "a historical variant has no implementation to conform"
    entry = _entry(data, spec.name.partition(":")[0])
    if entry is None or not isinstance(entry.get("rows"), dict):
        return "not measured", f"{what}. {NOT_MEASURED}."
    rows: Mapping[str, Mapping[str, int]] = entry["rows"]
    kinds = sorted({k for hits in rows.values() for k in hits})
    hit = "; ".join(
        f"{k} {sum(1 for r in spec.rows if rows.get(r.name, {}).get(k))}/{len(spec.rows)}"
        for k in kinds
    )
    return hit, what


def _mutants(spec: Spec, data: Mapping[str, Any] | None) -> tuple[str, str]:
    if spec.expect_violated or ":" in spec.name:
        return "-", "variants are not mutated; see the base spec"
    entry = _entry(data, spec.name)
    if entry is None:
        return "not measured", NOT_MEASURED
    killed = entry.get("killed", {})
    judged = [m for m in entry.get("mutants", []) if isinstance(m, dict)]
    any_layer = sum(1 for m in judged if m.get("verdict") == "killed")
    figure = (
        f"{entry.get('generated', 0)} judged: {any_layer} killed, "
        f"{entry.get('equivalent', 0)} equivalent, {entry.get('survived', 0)} survived"
    )
    why = (
        "each mutant is the spec with one row changed (a guard, target or output); "
        f"{entry.get('skipped', 0)} skipped = candidate mutants not judged (refused by the "
        "spec's vocabulary, or beyond the seeded sample this run takes). Kills per layer: "
        f"model {killed.get('model', 0)}, conformance {killed.get('conformance', 0)}, "
        f"seed {killed.get('seed', 0)}; a mutant killed by several layers counts in each, so "
        f"these add up to more than the {any_layer} killed. Equivalent = z3 proved the mutant "
        "behaves as the spec; survived = no layer told it apart (a gap: the gate fails)"
    )
    return figure, why


def _e(s: str) -> str:
    return html.escape(s, quote=True)
