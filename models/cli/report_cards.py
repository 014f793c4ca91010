"""The report's card per check (issue 19): what was checked, and what the verdict rests on.

A card gives the property as written (`readable.show`) and as a sentence, its
cite (a doc in ../shared/docs linked, and the cited section shown once in the
page's Sources), the verdict with its method and basis, the readable
certificate `explain` prints (`readable.read_certificate`), and a witness or
counterexample as numbered steps (`render_trace`) with its `fails:` line
(`readable.why`); a system's (compose.py) trace is also drawn as a message-sequence
chart (`sequence.py`). Proved checks are collapsed; every card has an anchor
(`c-SPEC-CHECK`) and carries its spec, kind and verdict for the filter bar.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from models.kernel.checks import CheckResult
from models.kernel.printer import show
from models.kernel.readable import read_certificate
from models.kernel.readable import why
from models.kernel.sequence import chart
from models.kernel.sequence import sequence_svg
from models.kernel.spec import Kind
from models.kernel.spec import Property
from models.kernel.spec import Spec
from models.kernel.trace import plural
from models.kernel.trace import render_trace

DOCS = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "docs"

# The structural checks, in words (their cite names the kernel rule).
STRUCTURAL = {
    "determinism": "No two rows of one trigger are enabled in the same state.",
    "totality": "Every trigger has a row or an ignore row enabled in every state.",
    "no-deadlock": "Every reachable state that is not terminal enables a row that is not an "
    "ignore row.",
    "terminal-absorbing": "A terminal state, once reached, is never left.",
    "rows-fire": "Every row, ignore rows too, fires on some reachable state.",
    "vacuity": "Every implication's premise holds on some reachable state or step, so no "
    "property holds only because its premise never does.",
    "reachable-set": "z3's transition relation and the explorer reach the same states.",
}

# What each basis of a verdict means (checks.py, issue 16 §3).
BASIS = {
    "exhaustive": "the explorer visited every reachable state of this finite model and it "
    "holds on each: a proof for every trace length, as TLC's and SPIN's are",
    "certificate": "z3 found an inductive invariant (the certificate): it holds initially, "
    "every step keeps it, and it excludes every bad state",
    "trace": "a trace (below), shortest first, each step confirmed by z3 against the rows",
    "cross-check": "z3 and the explorer computed the same answer side by side",
    "sampled": "only the explorer answers, on the real variable's samples: evidence, not a proof",
}


def anchor(spec: str, check: str) -> str:
    return "c-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{spec}-{check}").strip("-")


def sentence(spec: Spec, prop: Property) -> str:
    """The property in words: its kind over states or steps, then the doc if it has one."""
    where = "step" if prop.over_steps else "reachable state"
    text = show(spec, prop.as_written)
    said = {
        Kind.ALWAYS: f"In every {where}, {text} holds.",
        Kind.NEVER: f"No {where} has {text}.",
        Kind.SOMETIMES: f"Some {where} has {text}.",
    }[prop.kind]
    return said + (f" {prop.doc}" if prop.doc else "")


@dataclass
class Sources:
    """The doc sections cited on the page, each shown once (`sources_html`)."""

    out: Path  # where the page is written: doc links are relative to it
    cited: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # id: file, head, text

    def link(self, cite: str) -> str:
        """`cite` as HTML: each `doc.md §N` it names linked to its section in the page's
        Sources (and the doc itself), when the doc is in ../shared/docs."""
        parts: list[str] = []
        last = 0
        for m in re.finditer(r"([\w-]+\.md)(?: §(\d+))?", cite):
            parts.append(_e(cite[last : m.start()]))
            found = self._section(m.group(1), m.group(2))
            parts.append(
                f'<a href="#{found}" class="cite">{_e(m.group(0))}</a>' if found else _e(m.group(0))
            )
            last = m.end()
        parts.append(_e(cite[last:]))
        return "".join(parts)

    def _section(self, name: str, number: str | None) -> str | None:
        path = DOCS / name
        try:
            text = path.read_text()
        except OSError:
            return None
        key = "src-" + re.sub(r"[^A-Za-z0-9]+", "-", f"{name}-{number or 'all'}")
        if key in self.cited:
            return key
        head, body = name, ""
        if number is not None:
            m = re.search(rf"^(##+) {number}\. .*$", text, re.M)
            if m is None:
                return None
            level = len(m.group(1))
            end = re.search(rf"^#{{1,{level}}} ", text[m.end() :], re.M)
            head = m.group(0).lstrip("# ")
            body = text[m.end() : m.end() + end.start() if end else len(text)].strip()
        self.cited[key] = (name, head, body)
        return key

    def html(self) -> str:
        if not self.cited:
            return ""
        items = []
        for key, (name, head, body) in sorted(self.cited.items()):
            href = os.path.relpath(DOCS / name, self.out)
            items.append(
                f'<details class="source" id="{key}"><summary><a href="{_e(href)}">{_e(name)}</a>'
                f" — {_e(head)}</summary><pre>{_e(body)}</pre></details>"
            )
        return (
            '<section id="sources"><h2>Sources</h2><p>The doc sections the checks cite, as '
            f"they read in {_e(os.path.relpath(DOCS, self.out))}/ when the page was written."
            f"</p>{''.join(items)}</section>"
        )


def card(spec: Spec, c: CheckResult, sources: Sources, trace_key: str | None) -> str:
    """One check's card; `trace_key` names its trace for the player (None: no trace)."""
    prop = next((p for p in spec.properties if p.name == c.id), None)
    live = next((p for p in spec.liveness if p.name == c.id), None)
    rows: list[tuple[str, str]] = []
    if prop is not None:
        rows.append(("property", f"<code>{_e(show(spec, prop.as_written))}</code>"))
        rows.append(("in words", _e(sentence(spec, prop))))
    elif live is not None:
        then = "" if live.then is None else f" leads to {show(spec, live.then)}"
        fair = ", ".join(str(f) for f in spec.fairness_of(live)) or "none"
        rows.append(
            ("property", f"<code>{_e(f'{live.kind} {show(spec, live.pred)}{then}')}</code>")
        )
        rows.append(("in words", _e(f"{live.doc} Fairness: {fair}.".strip())))
        if c.loop is not None:
            rows.append(("lasso", _e(c.basis_text)))
    else:
        rows.append(("in words", _e(STRUCTURAL.get(c.id, c.cite))))
    cite = prop.cite if prop is not None else live.cite if live is not None else c.cite
    if cite:
        rows.append(("source", sources.link(cite)))
    how = c.method + ("" if c.bound is None else f", k={c.bound}")
    expected = " — expected: this variant must violate it" if c.expected == "violate" else ""
    basis = BASIS.get(c.basis, c.basis)
    rows.append(
        (
            "verdict",
            f'<span class="verdict v-{_e(c.verdict)}">{_e(c.verdict)}</span> by {_e(how)}'
            f"{_e(expected)}; in {c.seconds:.3f}s. Basis: <b>{_e(c.basis_text)}</b> — {_e(basis)}."
            + (f"<br>{_e(c.detail)}" if c.detail else ""),
        )
    )
    if c.certificate:
        cert = read_certificate(spec, c.certificate)
        lines = cert.lines() if cert else [f"certificate: {c.certificate}"]
        rows.append(
            (
                "certificate",
                f'<pre class="cert">{_e(chr(10).join(lines))}</pre>'
                + (
                    f"<details><summary>as z3 gave it</summary><pre>{_e(c.certificate)}</pre>"
                    "</details>"
                    if cert
                    else ""
                ),
            )
        )
    if c.trace is not None:
        what = "counterexample" if c.verdict == "violated" else "witness"
        steps = render_trace(spec, c.trace)
        items = "".join(
            f'<li data-step="{k}"><a href="#play={_e(trace_key or "")}/{k}">{_e(s[4:])}</a></li>'
            if trace_key
            else f"<li>{_e(s[4:])}</li>"
            for k, s in enumerate(steps)
        )
        reason = why(spec, prop, c.trace) if prop is not None and c.verdict == "violated" else None
        play = (
            f' <a class="play" href="#play={_e(trace_key)}/0" data-trace="{_e(trace_key)}">'
            "play on the diagram</a>"
            if trace_key
            else ""
        )
        rows.append(
            (
                what,
                f"{plural(len(c.trace), 'step')}{play}"
                f'<ol start="0" class="steps">{items}</ol>'
                + (f'<p class="fails">{_e(reason)}</p>' if reason else ""),
            )
        )
        if spec.system is not None:
            # A system's trace read as who told whom what: a lifeline per component.
            drawn = chart(spec, c.trace, f"{spec.name}: {what} of {c.id}", reason or "")
            prefix = anchor(spec.name, c.id) + "-"
            rows.append(
                (
                    "sequence chart",
                    f'<figure class="sequence">{sequence_svg(drawn, prefix)}</figure>',
                )
            )
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    ok = "ok" if c.ok else "bad"
    opened = "" if c.verdict == "proved" and c.ok else " open"
    name = anchor(spec.name, c.id)
    return (
        f'<details class="card {ok}" id="{name}" data-spec="{_e(spec.name)}" '
        f'data-kind="{_e(c.kind)}" data-verdict="{_e(c.verdict)}"{opened}>'
        f'<summary><span class="verdict v-{_e(c.verdict)}">{_e(c.verdict)}</span> '
        f"<b>{_e(c.id)}</b> <span class=kind>{_e(c.kind)}</span>"
        f' <a class="anchor" href="#{name}" title="link to this check">¶</a></summary>'
        f'<table class="card">{body}</table></details>'
    )


def filter_bar(specs: Mapping[str, object]) -> str:
    """Selects by spec, kind and verdict; `not proved` hides the proved cards."""
    names = "".join(f"<option>{_e(n)}</option>" for n in specs)
    kinds = "".join(f"<option>{k}</option>" for k in ("always", "sometimes", "never", "structural"))
    verdicts = "".join(
        f"<option>{v}</option>"
        for v in ("not proved", "proved", "witnessed", "violated", "unknown", "failed")
    )
    return (
        '<form class="filter" id="filter" aria-label="filter the checks">'
        f'<label>spec <select name="spec"><option value="">all</option>{names}</select></label>'
        f'<label>kind <select name="kind"><option value="">all</option>{kinds}</select></label>'
        f'<label>verdict <select name="verdict"><option value="">all</option>{verdicts}'
        '</select></label> <output name="shown"></output></form>'
    )


def _e(s: str) -> str:
    return html.escape(str(s), quote=True)
