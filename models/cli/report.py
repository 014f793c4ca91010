"""`python -m models report [SPEC ...] -o reports/`: the verification report, one HTML page.

`index.html` stands alone (inline SVG, CSS and a little JS; no network, no
external script) so a reviewer can open it from a PR or attach it to an ADR.
Per spec and variant: each view's diagram; the checks (kind, name, verdict,
method, bound, time, source, certificate or detail); each witness and
counterexample as numbered steps with state diffs, with a link that highlights
its path on the diagram; the conformance row coverage and the mutant gate's
figures from reports/ (report_figures.py). Results come from `models/cli/results.py` (the fresh
reports/verify.json, or the checks run now). Exit codes: 0 written, 1 some check
did not match its expectation or a spec module is broken (the page is still
written, without it), 2 a wrong command.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from models.cli import report_figures
from models.cli.kit import UsageError, output_dir, reason
from models.cli.registry import expand
from models.cli.registry import load as load_registry
from models.cli.report_figures import CONFORMANCE, MUTANTS
from models.cli.results import SpecResults, findings, load
from models.kernel.diagram import Picture, dot_source, locate, marks, pictures, render, views
from models.kernel.domains import Domain, Value
from models.kernel.explore import Exploration, explore
from models.kernel.expr import Env, evaluate
from models.kernel.files import write_atomic
from models.kernel.spec import Spec
from models.kernel.trace import plural, state_count

PAGE = "index.html"


def add_report(sub: Any) -> None:
    p = sub.add_parser(
        "report",
        help="write the verification report, one self-contained HTML page",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("specs", nargs="*", metavar="SPEC", help="spec names (default: all)")
    p.add_argument(
        "-o", "--out", type=output_dir, default="reports", help="directory (default: reports)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    registry = load_registry()
    broken = [b for m, b in registry.broken.items() if not args.specs or m in args.specs]
    for b in broken:  # a broken spec module leaves the others' report whole (issue 11 §1)
        print(f"error: models/{b.module}.py is broken, not reported: {b.error}", file=sys.stderr)
    named = [n for n in args.specs if n.partition(":")[0] not in registry.broken]
    specs = expand(named, registry) if named or not args.specs else []
    results, origin = load(specs)
    page = build(specs, results, origin)
    path = args.out / PAGE
    try:
        write_atomic(path, page)  # never a half-written page
    except OSError as err:
        raise UsageError(f"cannot write {path}: {reason(err)}") from None
    bad = [f"{name} {c['id']}" for name, r in results.items() for c in r["checks"] if not _ok(c)]
    seconds = time.perf_counter() - started
    print(f"report: {path} ({len(specs)} specs, {seconds:.2f}s; results: {origin})")
    if bad:
        print(f"report: {len(bad)} checks did not match their expectation: {', '.join(bad)}")
        return 1
    return 1 if broken else 0


def _ok(c: Mapping[str, Any]) -> bool:
    if c.get("expected") == "violate":
        return bool(c["verdict"] == "violated")
    return c["verdict"] in ("proved", "witnessed")


# ---------------------------------------------------------------- the page


def build(specs: Sequence[Spec], results: Mapping[str, SpecResults], origin: str) -> str:
    sections: list[str] = []
    traces: dict[str, dict[str, Any]] = {}
    conformance, mutants = report_figures.read(CONFORMANCE), report_figures.read(MUTANTS)
    for spec in specs:
        measured = report_figures.conformance_html(spec, conformance)
        measured += report_figures.mutants_html(spec, mutants)
        sections.append(_section(spec, results[spec.name], traces, measured))
    ok = all(_ok(c) for r in results.values() for c in r["checks"])
    total = sum(len(r["checks"]) for r in results.values())
    nav = "".join(f'<li><a href="#{_anchor(s.name)}">{_e(s.name)}</a></li>' for s in specs)
    summary = f"{total} checks on {len(specs)} specs: " + (
        "every verdict matches its expectation" if ok else "SOME CHECKS FAILED"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>statecheck verification report</title>"
        f"<style>{CSS}</style></head><body>"
        f'<header><h1>statecheck verification report</h1><p class="{"ok" if ok else "bad"}">'
        f'{_e(summary)}</p><p>results: {_e(origin)}</p><ul class="nav">{nav}</ul></header>'
        + "".join(sections)
        + f"<script>const TRACES = {json.dumps(traces, sort_keys=True)};\n{JS}</script>"
        "</body></html>\n"
    )


def _section(
    spec: Spec, results: SpecResults, traces: dict[str, dict[str, Any]], measured: str = ""
) -> str:
    """`measured`: the conformance coverage and mutant gate figures (report_figures.py)."""
    graph = explore(spec)
    pics = pictures(spec, findings(results), graph)
    figures = []
    for pic in pics:
        prefix = _anchor(pic.name) + "-"
        svg = render(dot_source(pic), "svg").decode()
        svg = svg[svg.index("<svg") :]  # drop the XML prolog and doctype: it is inline
        svg = re.sub(r'\bid="', f'id="{prefix}', svg)
        figures.append(
            f'<figure class="diagram" id="d-{_anchor(pic.name)}" data-prefix="{prefix}">'
            f"{svg}<figcaption>{_e(pic.title)}</figcaption></figure>"
        )
    rows = []
    for c in results["checks"]:
        link = ""
        steps = ""
        if c.get("trace"):
            key = f"{spec.name}/{c['id']}"
            pic = _picture_for(spec, pics, c["trace"])
            path = marks(spec, [(e["action"], e["state"], e["outputs"]) for e in c["trace"]])
            located = locate(pic, path)
            traces[key] = {
                "figure": f"d-{_anchor(pic.name)}",
                "prefix": _anchor(pic.name) + "-",
                "steps": [
                    {"nodes": [n for n in (src, dst) if n], "edge": arrow}
                    for src, dst, arrow in located
                ],
            }
            link = (
                f'<a class="show" href="#d-{_anchor(pic.name)}" data-trace="{_e(key)}">'
                "show on diagram</a>"
            )
            steps = (
                '<ol start="0" class="steps">'
                + "".join(f"<li>{_e(s)}</li>" for s in _steps(spec, c["trace"]))
                + "</ol>"
            )
        verdict = c["verdict"] + (" (expected)" if c.get("expected") == "violate" else "")
        evidence = c.get("certificate") or ""
        bound = "" if c.get("bound") is None else f"k={c['bound']}"
        rows.append(
            f'<tr class="{"ok" if _ok(c) else "bad"}"><td>{_e(c["kind"])}</td>'
            f'<td>{_e(c["id"])}</td><td class="v-{_e(c["verdict"])}">{_e(verdict)}</td>'
            f"<td>{_e(c['method'])}</td><td>{bound}</td><td>{c['seconds']:.3f}s</td>"
            f"<td>{_e(c.get('basis_text', ''))}</td><td>{_e(_cite(spec, c['id']))}</td>"
            f"<td><code>{_e(evidence)}</code>{link}{steps}</td></tr>"
        )
    return (
        f'<section id="{_anchor(spec.name)}"><h2>{_e(spec.name)}</h2>'
        f'<p class="source">{_e(spec.source)} — {_e(state_count(spec, graph.states))}, '
        f"{plural(results['rows'], 'row')}</p>"
        + "".join(figures)
        + '<table class="checks"><thead><tr><th>kind</th><th>check</th><th>verdict</th>'
        "<th>method</th><th>bound</th><th>time</th><th>basis</th><th>source</th>"
        "<th>evidence</th></tr>"
        "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + _rows(spec, graph)
        + measured
        + "</section>"
    )


def _rows(spec: Spec, graph: Exploration) -> str:
    """Each row with the length of its shortest witness: the trace conformance's replay
    drives through the implementation for that row (conformance/harness.py replay_row)."""
    first = graph.row_witnesses()
    lines = "".join(
        f"<tr><td>{_e(r.name)}</td><td>{_e(r.trigger)}</td>"
        f"<td>{'ignore' if r.ignore else 'row'}</td>"
        + (
            f"<td>{graph.depth[first[r.name].source] + 1}</td>"
            if r.name in first
            else '<td class="v-violated">never fires</td>'
        )
        + f"<td>{_e(r.cite)}</td></tr>"
        for r in spec.rows
    )
    fired = sum(r.name in first for r in spec.rows)
    return (
        f'<details class="rows"><summary>rows: {fired} of {len(spec.rows)} fire'
        + ("" if spec.expect_violated else "; conformance replays each along its shortest witness")
        + "</summary>"
        '<table class="checks"><thead><tr><th>row</th><th>trigger</th><th>kind</th>'
        "<th>shortest witness (steps)</th><th>source</th></tr></thead><tbody>"
        + lines
        + "</tbody></table></details>"
    )


def _cite(spec: Spec, check_id: str) -> str:
    try:
        return spec.prop(check_id).cite
    except KeyError:
        return "kernel (structural check)"


def _picture_for(
    spec: Spec, pics: Sequence[Picture], trace: Sequence[Mapping[str, Any]]
) -> Picture:
    """The picture of the view the trace starts in."""
    init = {v.name: _value(v.domain, trace[0]["state"][v.name]) for v in spec.vars}
    for pic, (_, pred) in zip(pics, views(spec).items(), strict=True):
        if evaluate(pred, Env(pre=init)):
            return pic
    return pics[0]


def _js(domain: Domain, v: Value) -> Any:
    """A value as verify.json writes it (trace.py's convention)."""
    if v is None or isinstance(v, bool) or (isinstance(v, int | float) and not hasattr(v, "name")):
        return v
    return domain.label(v)


def _value(domain: Domain, j: Any) -> Value:
    for v in domain.sample():
        if _js(domain, v) == j:
            return v
    return j


def _steps(spec: Spec, trace: Sequence[Mapping[str, Any]]) -> list[str]:
    """Numbered steps: the whole initial state, then each row with what changed and emitted."""
    first = trace[0]["state"]
    lines = ["init  " + " ".join(f"{k}={_show(v)}" for k, v in first.items())]
    before = first
    for entry in trace[1:]:
        changed = [
            f"{k} {_show(before[k])}→{_show(v)}"
            for k, v in entry["state"].items()
            if before[k] != v
        ]
        outs = [
            f"{k}={_show(v)}"
            for k, v in entry["outputs"].items()
            if v != _js(spec.output(k).domain, spec.output(k).default)
        ]
        args = ", ".join(f"{k}={_show(v)}" for k, v in entry["args"].items())
        text = f"{entry['action']}({args})  " + ("  ".join(changed) or "(no change)")
        if outs:
            text += "   out: " + " ".join(outs)
        lines.append(text)
        before = entry["state"]
    return lines


def _show(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _anchor(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


def _e(s: str) -> str:
    return html.escape(str(s), quote=True)


CSS = """
body{font:14px/1.4 Helvetica,Arial,sans-serif;margin:0 2em 4em;color:#222}
header{border-bottom:1px solid #ccc;margin-bottom:1em}
.nav{display:flex;flex-wrap:wrap;gap:1em;list-style:none;padding:0}
p.ok{color:#1B7837;font-weight:bold} p.bad{color:#B2182B;font-weight:bold}
section{margin:2em 0;border-top:2px solid #ddd}
figure.diagram{margin:1em 0;overflow:auto;border:1px solid #eee;padding:.5em}
figure.diagram svg{max-width:100%;height:auto}
table.checks{border-collapse:collapse;width:100%;font-size:12px}
table.checks td,table.checks th{border:1px solid #ddd;padding:3px 5px;vertical-align:top}
table.checks th{text-align:left}
tr.bad{background:#fde0dd}
.v-proved{color:#1B7837}.v-witnessed{color:#2166AC}.v-violated{color:#B2182B}.v-unknown{color:#7F7F7F}
code{white-space:pre-wrap;word-break:break-word}
ol.steps{font-family:monospace;font-size:11px;margin:.3em 0 0 1.5em;padding:0}
a.show{display:inline-block;margin:.2em 0 0 .5em}
.hl path,.hl polygon,.hl ellipse{stroke:#D62728 !important;stroke-width:3px !important}
.hl text{fill:#D62728 !important;font-weight:bold}
"""

JS = """
function clearPath(fig) {
  fig.querySelectorAll('.hl').forEach(function (el) { el.classList.remove('hl'); });
  fig.querySelectorAll('text[data-orig]').forEach(function (t) {
    t.textContent = t.getAttribute('data-orig'); t.removeAttribute('data-orig');
  });
}
function showTrace(key) {
  var t = TRACES[key]; if (!t) { return; }
  var fig = document.getElementById(t.figure); clearPath(fig);
  t.steps.forEach(function (step, k) {
    step.nodes.forEach(function (n) {
      var el = document.getElementById(t.prefix + n); if (el) { el.classList.add('hl'); }
    });
    if (step.edge) {
      var e = document.getElementById(t.prefix + step.edge);
      if (e) {
        e.classList.add('hl');
        var label = e.querySelector('text');
        if (label) {
          if (!label.hasAttribute('data-orig')) {
            label.setAttribute('data-orig', label.textContent);
          }
          label.textContent = '#' + k + ' ' + label.textContent;
        }
      }
    }
  });
  fig.scrollIntoView();
}
document.querySelectorAll('a.show').forEach(function (a) {
  a.addEventListener('click', function (ev) { ev.preventDefault(); showTrace(a.dataset.trace); });
});
"""
