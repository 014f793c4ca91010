"""`python -m models report [SPEC ...] -o reports/`: the verification report, one HTML page.

`index.html` stands alone (inline SVG, CSS and a little JS; no network, no
external script) so a reviewer can open it from a PR or attach it to an ADR.
It opens with its provenance (commit, date, Python, z3, graphviz, SPIN) and a
filter bar; then, per spec and variant: a summary table (every figure with what
it means: report_figures.py), each view's diagram, a card per check
(report_cards.py: the property as written and in words, its cite, the verdict
with method and basis, the readable certificate, the witness or counterexample
with its `fails:` line), and the rows. A trace plays on its diagram: previous
and next, the whole state at each step with what changed marked, the step's row
lit on the picture, and the step in the URL (`#play=SPEC/CHECK/K`) so a link
opens that state. Results come from `models/cli/results.py` (the fresh
reports/verify.json, or the checks run now). Exit codes: 0 written, 1 some check
did not match its expectation or a spec module is broken (the page is still
written, without it), 2 a wrong command.
"""

from __future__ import annotations

import argparse
import html
import json
import platform
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC
from datetime import datetime
from pathlib import Path
from typing import Any

from models.cli import report_figures
from models.cli.diff import diff
from models.cli.diff import diff_html
from models.cli.diff import snapshot
from models.cli.kit import Beside
from models.cli.kit import UsageError
from models.cli.kit import add_jobs
from models.cli.kit import forked_map
from models.cli.kit import output_dir
from models.cli.kit import reason
from models.cli.model_diff import changes_html
from models.cli.model_diff import row_changes
from models.cli.model_diff import rows_of
from models.cli.registry import expand
from models.cli.registry import load as load_registry
from models.cli.report_assets import CSS
from models.cli.report_assets import JS
from models.cli.report_cards import Sources
from models.cli.report_cards import anchor
from models.cli.report_cards import card
from models.cli.report_cards import filter_bar
from models.cli.report_figures import CONFORMANCE
from models.cli.report_figures import MUTANTS
from models.cli.results import SpecResults
from models.cli.results import findings
from models.cli.results import load
from models.kernel.checks import CheckResult
from models.kernel.diagram import Picture
from models.kernel.diagram import compare
from models.kernel.diagram import dot_source
from models.kernel.diagram import footnote_numbers
from models.kernel.diagram import locate
from models.kernel.diagram import picture
from models.kernel.diagram import render
from models.kernel.diagram import split
from models.kernel.diagram import trace_marks
from models.kernel.diagram import views
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.expr import Env
from models.kernel.expr import evaluate
from models.kernel.files import write_atomic
from models.kernel.smt import z3_version
from models.kernel.spec import Spec
from models.kernel.trace import Trace
from models.kernel.trace import plural
from models.kernel.trace import state_count

PAGE = "index.html"
TITLE = re.compile(r'(<g id="([^"]+)" class="(?:edge|node)[^"]*">\s*)<title>[^<]*</title>')
ROOT = Path(__file__).resolve().parent.parent.parent


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
    p.add_argument(
        "--baseline",
        metavar="BASE",
        help="a git revision: add what changed in the models since it (python -m models diff)",
    )
    add_jobs(p, "processes drawing the specs, each base spec with its variants; the same page")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    registry = load_registry()
    broken = [b for m, b in registry.broken.items() if not args.specs or m in args.specs]
    for b in broken:  # a broken spec module leaves the others' report whole (issue 11 §1)
        print(f"error: models/{b.module}.py is broken, not reported: {b.error}", file=sys.stderr)
    named = [n for n in args.specs if n.partition(":")[0] not in registry.broken]
    specs = expand(named, registry) if named or not args.specs else []
    changes = ""
    if args.baseline:
        changes = diff_html(diff(snapshot(args.baseline), snapshot(None)), args.baseline, "HEAD")
    results, origin = load(specs)
    page = build(specs, results, origin, out=args.out, changes=changes, jobs=args.jobs)
    path = args.out / PAGE
    try:
        write_atomic(path, page)  # never a half-written page
    except OSError as err:
        raise UsageError(f"cannot write {path}: {reason(err)}") from None
    bad = [f"{name} {c.id}" for name, r in results.items() for c in r.checks if not c.ok]
    seconds = time.perf_counter() - started
    print(f"report: {path} ({len(specs)} specs, {seconds:.2f}s; results: {origin})")
    if bad:
        print(f"report: {len(bad)} checks did not match their expectation: {', '.join(bad)}")
        return 1
    return 1 if broken else 0


# ---------------------------------------------------------------- the page


def build(
    specs: Sequence[Spec],
    results: Mapping[str, SpecResults],
    origin: str,
    out: Path = Path("reports"),
    changes: str = "",
    jobs: int = 1,
) -> str:
    """The page; `out` is where it is written (doc links are relative to it); `changes`: the
    section `diff.diff_html` writes for `--baseline`; `jobs`: processes that draw the specs
    (each base spec with its variants in one), the page the same for any number."""
    figures = report_figures.read(CONFORMANCE), report_figures.read(MUTANTS)
    groups = _groups(specs)
    drawn = _drawn(groups, results, out, figures, jobs)
    body = "".join(html for group in drawn for html in group.html)
    traces = {key: data for group in drawn for key, data in group.traces.items()}
    sources = Sources(out.resolve())
    for group in drawn:
        sources.cited.update(group.cited)
    ok = all(c.ok for r in results.values() for c in r.checks)
    total = sum(len(r.checks) for r in results.values())
    nav = "".join(f'<li><a href="#{_anchor(s.name)}">{_e(s.name)}</a></li>' for s in specs)
    summary = f"{total} checks on {len(specs)} specs: " + (
        "every verdict matches its expectation" if ok else "SOME CHECKS FAILED"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>statecheck verification report</title>"
        f"<style>{CSS}</style></head><body>"
        f'<header><h1>statecheck verification report</h1><p class="{"ok" if ok else "bad"}">'
        f"{_e(summary)}</p>{provenance(origin)}"
        f'<nav><ul class="nav">{nav}<li><a href="#sources">sources</a></li></ul></nav>'
        f"{filter_bar({s.name: s for s in specs})}</header><main>"
        + changes
        + body
        + sources.html()
        + "</main>"
        + PLAYER
        + f"<script>const TRACES = {json.dumps(traces, sort_keys=True)};\n{JS}</script>"
        "</body></html>\n"
    )


@dataclass(frozen=True)
class _Drawn:
    """One group's sections (a base spec and its variants), as the page needs them."""

    html: list[str]
    traces: dict[str, dict[str, Any]]
    cited: dict[str, tuple[str, str, str]]


def _groups(specs: Sequence[Spec]) -> list[list[Spec]]:
    """The specs by base spec, in page order: a variant is drawn against its base's pictures,
    so the two are drawn in one process."""
    groups: dict[str, list[Spec]] = {}
    for spec in specs:
        groups.setdefault(spec.name.partition(":")[0], []).append(spec)
    return list(groups.values())


def _drawn(
    groups: list[list[Spec]],
    results: Mapping[str, SpecResults],
    out: Path,
    figures: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None],
    jobs: int,
) -> list[_Drawn]:
    def draw(group: list[Spec]) -> _Drawn:
        return _draw(group, results, out, figures)

    # A group's cost: its rows, a fair proxy for its states and its pictures.
    return forked_map(draw, groups, jobs, cost=lambda g: sum(len(s.rows) for s in g))


def _draw(
    group: Sequence[Spec],
    results: Mapping[str, SpecResults],
    out: Path,
    figures: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None],
) -> _Drawn:
    """A base spec and its variants: their sections' HTML with the layouts done, the traces
    the player needs and the doc sections the cards cite."""
    conformance, mutants = figures
    sections: list[str | Beside[str]] = []
    traces: dict[str, dict[str, Any]] = {}
    sources = Sources(out.resolve())
    drawn: dict[str, tuple[Spec, list[Picture]]] = {}  # each base spec and its pictures
    # graphviz lays the pictures out beside, while the next spec is explored and drawn.
    for spec in group:
        measured = report_figures.conformance_html(spec, conformance)
        measured += report_figures.mutants_html(spec, mutants)
        base = drawn.get(spec.name.partition(":")[0]) if ":" in spec.name else None
        figure = (conformance, mutants, measured)
        sections += _section(spec, results[spec.name], traces, sources, figure, base, drawn)
    html = [p if isinstance(p, str) else p.result() for p in sections]
    return _Drawn(html, traces, sources.cited)


def provenance(origin: str) -> str:
    """Where the page comes from: commit, date and the tools the verdicts rest on."""
    rows = [
        ("commit", _commit()),
        ("written", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("results", origin),
        ("Python", platform.python_version()),
        ("z3", z3_version()),
        ("graphviz", _tool(["dot", "-V"], r"version (\S+)")),
        ("SPIN", _tool(["spin", "-V"], r"Version (\S+)")),
    ]
    cells = "".join(f"<tr><th>{k}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    return f'<table class="provenance" aria-label="provenance">{cells}</table>'


def _commit() -> str:
    git = ["git", "-C", str(ROOT)]
    try:
        head = subprocess.run(
            [*git, "log", "-1", "--format=%h %cI %<(60,trunc)%s"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no", "--", "models"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return head + (" (models/ has uncommitted changes)" if dirty else "")


def _tool(command: list[str], pattern: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return f"not installed ({command[0]})"
    m = re.search(pattern, done.stdout + done.stderr)
    return m.group(1).rstrip(",") if m else (done.stdout + done.stderr).strip()[:60]


def _section(
    spec: Spec,
    results: SpecResults,
    traces: dict[str, dict[str, Any]],
    sources: Sources,
    figures: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None, str],
    base: tuple[Spec, list[Picture]] | None = None,
    drawn: dict[str, tuple[Spec, list[Picture]]] | None = None,
) -> list[str | Beside[str]]:
    """The section's HTML, its figures still being laid out (`Beside`). `figures`:
    conformance.json, mutants.json, and their HTML (report_figures); `base`: a variant's
    base spec and its pictures, which the variant is drawn against; `drawn` collects a base
    spec's pictures for its variants."""
    graph = explore(spec)
    counted = state_count(spec, graph.states)
    measured = report_figures.summary_html(spec, results, counted, *figures[:2]) + figures[2]
    header = ""
    if base is None:
        wholes = [picture(spec, view, graph, findings(results)) for view in views(spec)]
        if drawn is not None:
            drawn[spec.name] = (spec, wholes)
    else:
        header, wholes = _variant(spec, results, graph, *base)
    # A view is shown in parts where the layout splits it (wave: its front and back half);
    # a trace is located on the whole view and each step lit on the part that draws it.
    parts = {w.name: split(spec, w) for w in wholes}
    shown = [Beside(_figure, pic) for w in wholes for pic in parts[w.name]]
    cards = []
    for c in results.checks:
        key = None
        if c.trace:
            key = f"{spec.name}/{c.id}"
            traces[key] = _trace_data(spec, wholes, parts, c, c.trace)
        cards.append(card(spec, c, sources, key))
    return [
        f'<section id="{_anchor(spec.name)}" class="spec"><h2>{_e(spec.name)}</h2>'
        f'<p class="source">{_e(spec.source)} — {_e(counted)}, '
        f"{plural(len(spec.rows), 'row')}</p>" + header + measured,
        *shown,
        f'<div class="cards">{"".join(cards)}</div>' + _rows(spec, graph) + "</section>",
    ]


def _figure(pic: Picture) -> str:
    """The picture laid out by graphviz, inline: its ids prefixed, its titles row names."""
    prefix = _anchor(pic.name) + "-"
    svg = render(dot_source(pic), "svg").decode()
    svg = _titled(pic, svg[svg.index("<svg") :])  # no XML prolog: it is inline
    svg = re.sub(r'\bid="', f'id="{prefix}', svg)
    return (
        f'<figure class="diagram" id="d-{_anchor(pic.name)}" data-prefix="{prefix}">'
        f"{svg}<figcaption>{_e(pic.title)}</figcaption></figure>"
    )


def _titled(pic: Picture, svg: str) -> str:
    """The SVG with each edge titled by its rows and each state by its name (graphviz
    titles them by internal ids), which is what a screen reader and a hover read."""
    names = {a.id: "rows: " + ", ".join(a.rows) for a in pic.arrows}
    names |= {n.id: ("state " if n.kind == "state" else "") + n.label for n in pic.nodes}

    def title(m: re.Match[str]) -> str:
        name = names.get(m.group(2))
        return m.group(0) if name is None else f"{m.group(1)}<title>{_e(name)}</title>"

    return re.sub(
        r'(<g id="([^"]+)" class="(?:edge|node)[^"]*">\s*)<title>[^<]*</title>', title, svg
    )


def _variant(
    spec: Spec, results: SpecResults, graph: Exploration, base: Spec, base_pics: list[Picture]
) -> tuple[str, list[Picture]]:
    """A variant as changes to its base: the header (what it is, its cite, its rows side by
    side with the base's) and its pictures with the base's footnote numbers, changed rows
    drawn thick and flagged, removed ones dotted and struck (`diagram.compare`)."""
    variant = next(v for v in base.variants if spec.name == f"{base.name}:{v.name}")
    changes = row_changes(rows_of(base), rows_of(spec))
    pics = []
    for k, view in enumerate(views(spec)):
        before = base_pics[k] if k < len(base_pics) else base_pics[0]
        pic = picture(spec, view, graph, findings(results), footnote_numbers(before))
        pics.append(compare(before, pic, {c.row for c in changes}))
    header = (
        f'<div class="variant"><p><b>A variant of <a href="#{_anchor(base.name)}">'
        f"{_e(base.name)}</a></b>: {_e(variant.doc)}</p>"
        f"<p>source: {_e(variant.cite)}; it must violate: {_e(', '.join(variant.violates))}</p>"
        f"<p>{plural(len(changes), 'row')} differ from {_e(base.name)}; on the diagram, "
        "a changed or added row is thick and flagged <b>~ changed</b> or <b>+ added</b>, a "
        "removed one dotted and struck (<b>− removed</b>); footnotes keep the base's "
        "numbers.</p>" + changes_html(changes, base.name, spec.name) + "</div>"
    )
    return header, pics


def _trace_data(
    spec: Spec,
    wholes: Sequence[Picture],
    parts: Mapping[str, Sequence[Picture]],
    c: CheckResult,
    trace: Trace,
) -> dict[str, Any]:
    """What the player needs: per step its row, whole state (labels), what changed, the
    outputs it emitted, where it lands on the picture and which figure draws it; for a
    lasso, where its loop starts (the last state is that step's state again)."""
    pic = _picture_for(spec, wholes, trace)
    located = locate(pic, trace_marks(spec, trace))
    states = trace.states()
    rows = ["init", *(s.row for s in trace.steps)]
    outputs: list[dict[str, str]] = [{}]
    for s in trace.steps:
        outputs.append(
            {
                k: spec.output(k).domain.label(v)
                for k, v in s.outputs.items()
                if v != spec.output(k).default
            }
        )
    steps = []
    for k, (state, (src, dst, arrow)) in enumerate(zip(states, located, strict=True)):
        before = states[k - 1] if k else state
        nodes = [n for n in (src, dst) if n]
        part = _part_for(parts[pic.name], nodes, arrow)
        steps.append(
            {
                "row": rows[k],
                "figure": f"d-{_anchor(part.name)}",
                "prefix": _anchor(part.name) + "-",
                "nodes": nodes,
                "edge": arrow,
                "state": {v: spec.var(v).domain.label(x) for v, x in state.items()},
                "changed": [v for v, x in state.items() if k and before[v] != x],
                "outputs": outputs[k],
                "loop": c.loop is not None and k > c.loop,
            }
        )
    what = "counterexample" if c.verdict == "violated" else "witness"
    return {
        "title": f"{spec.name}: {what} of {c.id}",
        "card": anchor(spec.name, c.id),
        "figures": list(dict.fromkeys(s["figure"] for s in steps)),
        "loop": c.loop,
        "steps": steps,
    }


def _part_for(parts: Sequence[Picture], nodes: Sequence[str], arrow: str | None) -> Picture:
    """The first part that draws a step: both its nodes, and its arrow when it is one (a
    part may hold both ends of an arrow it does not draw: two of the other half's states;
    a row folded into a note or the table is in every part)."""
    drawn = [{a.id for a in p.arrows} for p in parts]
    is_arrow = any(arrow in ids for ids in drawn)
    return next(
        (
            p
            for p, ids in zip(parts, drawn, strict=True)
            if all(p.has_node(n) for n in nodes) and (not is_arrow or arrow in ids)
        ),
        parts[0],
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


def _picture_for(spec: Spec, pics: Sequence[Picture], trace: Trace) -> Picture:
    """The (whole) picture of the view the trace starts in."""
    for pic, (_, pred) in zip(pics, views(spec).items(), strict=True):
        if evaluate(pred, Env(pre=dict(trace.init))):
            return pic
    return pics[0]


def _anchor(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


def _e(s: str) -> str:
    return html.escape(str(s), quote=True)


PLAYER = (
    '<aside id="player" hidden aria-label="trace player">'
    '<div class="controls"><button type="button" id="prev">◀ previous</button>'
    '<span id="pos" aria-live="polite"></span>'
    '<button type="button" id="next">next ▶</button>'
    '<button type="button" id="close">close</button> <b id="ptitle"></b></div>'
    '<p id="prow"></p><p id="ploop"></p><table id="pstate"></table></aside>'
)
