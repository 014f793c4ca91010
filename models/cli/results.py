"""The checks' results that diagrams and the report show: the last verify's, or fresh ones.

`make verify` writes `reports/verify.json` first; the diagram and report
commands that follow read it rather than prove everything again. The file is
used only while it is *fresh*: newer than every source file under `models/`,
so a changed row or property is never shown with an old verdict. A spec the file
does not cover (or every spec, when it is stale or missing) is checked on the spot.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.kernel.checks import SpecReport, verify
from models.kernel.diagram import Finding
from models.kernel.spec import Spec
from models.kernel.trace import trace_json

REPORT = Path("reports/verify.json")
MODELS = Path(__file__).resolve().parent

SpecResults = dict[str, Any]  # one spec's entry of verify.json


def spec_json(r: SpecReport) -> SpecResults:
    """One spec's entry of verify.json (README "Reading the report")."""
    return {
        "name": r.spec.name,
        "source": r.spec.source,
        "reachable_states": len(r.exploration.states),
        "rows": len(r.spec.rows),
        "checks": [
            {
                "id": c.id,
                "kind": c.kind,
                "verdict": c.verdict,
                "method": c.method,
                "bound": c.bound,
                "seconds": round(c.seconds, 4),
                "certificate": c.certificate,
                "basis": c.basis,
                "states": c.states,
                "basis_text": c.basis_text,
                "detail": c.detail,
                "expected": c.expected,
                "trace": None if c.trace is None else trace_json(r.spec, c.trace),
            }
            for c in r.checks
        ],
    }


# The modules that only present results: editing them changes no verdict.
_PRESENTERS = {
    "__init__.py",
    "__main__.py",
    "cli.py",
    "diagram_cli.py",
    "report.py",
    "results.py",
    "kernel/diagram.py",
    "kernel/layout.py",
    "kernel/mermaid.py",
    "kernel/printer.py",
}


def is_fresh(path: Path) -> bool:
    """Newer than every file that decides a verdict: the kernel and the spec modules."""
    if not path.exists():
        return False
    sources = [
        p for p in MODELS.rglob("*.py") if p.relative_to(MODELS).as_posix() not in _PRESENTERS
    ]
    return path.stat().st_mtime >= max(p.stat().st_mtime for p in sources)


def load(specs: Sequence[Spec], path: Path = REPORT) -> tuple[dict[str, SpecResults], str]:
    """Each spec's results, and where they came from (for the page and the diagrams' panel)."""
    stored: dict[str, SpecResults] = {}
    if is_fresh(path):
        try:
            stored = {s["name"]: s for s in json.loads(path.read_text())["specs"]}
        except (ValueError, KeyError, TypeError):
            stored = {}  # unreadable: check afresh rather than fail
    found: dict[str, SpecResults] = {}
    checked = []
    for spec in specs:
        if spec.name in stored:
            found[spec.name] = stored[spec.name]
        else:
            found[spec.name] = spec_json(verify(spec))
            checked.append(spec.name)
    if not checked:
        origin = f"{path} (fresh)"
    elif len(checked) == len(specs):
        origin = "checked now"
    else:
        origin = f"{path}, and checked now: {', '.join(checked)}"
    return found, origin


def findings(results: SpecResults) -> list[Finding]:
    return [
        Finding(
            c["id"],
            c["kind"],
            c["verdict"],
            c.get("expected", "hold"),
            None if c.get("trace") is None else len(c["trace"]) - 1,
        )
        for c in results["checks"]
    ]
