"""The checks' results that diagrams and the report show: the last verify's, or fresh ones.

`make verify` writes `reports/verify.json` first; the diagram and report
commands that follow read it rather than prove everything again. The file is
used only while it is *fresh*: newer than every source file under `models/`,
so a changed row or property is never shown with an old verdict. A spec the file
does not cover (or every spec, when it is stale or missing) is checked on the spot.

Results are typed from checker to page: verify.json's entries are read back into
the kernel's `CheckResult` and `Trace` (`values.decode`, the inverse of the one
encoder `trace_json`, check-trace and ITF share), so the page and the diagrams
print traces with the kernel's own `render_trace` and never rebuild them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.kernel.checks import CheckResult
from models.kernel.checks import SpecReport
from models.kernel.checks import verify
from models.kernel.diagram import Finding
from models.kernel.spec import Spec
from models.kernel.trace import Step
from models.kernel.trace import Trace
from models.kernel.trace import trace_json
from models.kernel.values import decode

REPORT = Path("reports/verify.json")
MODELS = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class SpecResults:
    """One spec's results, typed: what verify.json holds, read back into the kernel's types."""

    spec: Spec
    reachable_states: int
    checks: tuple[CheckResult, ...]

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    def of(cls, r: SpecReport) -> SpecResults:
        return cls(r.spec, len(r.exploration.states), tuple(r.checks))

    def to_json(self) -> dict[str, Any]:
        """One spec's entry of verify.json (README "Reading the report"); traces as
        `trace_json` writes them, with the one encoder check-trace and ITF use."""
        return {
            "name": self.spec.name,
            "source": self.spec.source,
            "reachable_states": self.reachable_states,
            "rows": len(self.spec.rows),
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
                    "expected": c.expected,
                    "detail": c.detail,
                    "cite": c.cite,
                    "trace": None if c.trace is None else trace_json(self.spec, c.trace),
                    "loop": c.loop,
                }
                for c in self.checks
            ],
        }

    @classmethod
    def from_json(cls, spec: Spec, obj: Mapping[str, Any]) -> SpecResults:
        """The entry read back; `KeyError`, `TypeError` or `BadValue` when it is not one."""
        if obj["name"] != spec.name or obj["rows"] != len(spec.rows):
            raise KeyError(spec.name)
        return cls(
            spec,
            int(obj["reachable_states"]),
            tuple(
                CheckResult(
                    id=c["id"],
                    kind=c["kind"],
                    verdict=c["verdict"],
                    method=c["method"],
                    bound=c["bound"],
                    seconds=float(c["seconds"]),
                    certificate=c["certificate"],
                    expected=c["expected"],
                    trace=None if c["trace"] is None else read_trace(spec, c["trace"]),
                    detail=c["detail"],
                    cite=c["cite"],
                    basis=c["basis"],
                    states=c["states"],
                    basis_text=c["basis_text"],
                    loop=c.get("loop"),
                )
                for c in obj["checks"]
            ),
        )


def spec_json(r: SpecReport) -> dict[str, Any]:
    """One spec's entry of verify.json."""
    return SpecResults.of(r).to_json()


def read_trace(spec: Spec, entries: Sequence[Mapping[str, Any]]) -> Trace:
    """`trace_json`'s entries back into a `Trace` (values.decode, the encoder's inverse)."""

    def values(raw: Mapping[str, Any], domain_of: Any) -> dict[str, Any]:
        return {k: decode(domain_of(k).domain, v) for k, v in raw.items()}

    steps = []
    for e in entries[1:]:
        row = spec.row(e["action"])
        params = {p.name: p.domain for p in spec.trigger(row.trigger).params}
        steps.append(
            Step(
                row.name,
                row.trigger,
                {k: decode(params[k], v) for k, v in e["args"].items()},
                values(e["state"], spec.var),
                values(e["outputs"], spec.output),
            )
        )
    return Trace(values(entries[0]["state"], spec.var), tuple(steps))


# The modules that only present results: editing them changes no verdict.
_PRESENTERS = {
    "__init__.py",
    "__main__.py",
    "cli/diagram.py",
    "cli/diff.py",
    "cli/model_diff.py",
    "cli/report.py",
    "cli/report_assets.py",
    "cli/report_cards.py",
    "cli/report_figures.py",
    "cli/results.py",
    "cli/snapshot.py",
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
    stored: dict[str, Any] = {}
    if is_fresh(path):
        try:
            stored = {s["name"]: s for s in json.loads(path.read_text())["specs"]}
        except (ValueError, KeyError, TypeError):
            stored = {}  # unreadable: check afresh rather than fail
    found: dict[str, SpecResults] = {}
    checked = []
    for spec in specs:
        try:
            found[spec.name] = SpecResults.from_json(spec, stored[spec.name])
        except (KeyError, TypeError, ValueError):  # missing, or not this spec's (BadValue too)
            found[spec.name] = SpecResults.of(verify(spec))
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
        Finding(c.id, c.kind, c.verdict, c.expected, None if c.trace is None else len(c.trace))
        for c in results.checks
    ]
