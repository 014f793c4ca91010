"""Mermaid `stateDiagram-v2` text of a diagram picture, for ADRs written in Markdown.

GitHub and GitLab render a ```mermaid block inline. It prints the same
`Picture` as the DOT face: the same states (greyed ones in the `unreachable`
class, provisional ones in `provisional`), the same edges and labels, the same
notes; clusters are listed in the note, since Mermaid cannot draw transitions
between the states of two composite states. A decision table (admission)
becomes a choice node with one arrow per row, in match order. Mermaid's state
diagrams cannot style a single transition, so who decides an edge is the first
line of its label (`by runner`), the deciders listed in a note. Characters
Mermaid would parse are written as its entity codes (`#58;` for `:`), never as
look-alikes; every node class sets its text colour, so the dark theme keeps it.

A trace of a system of machines (sequence.py's `Chart`) prints as a
`sequenceDiagram`: a participant per lifeline, an arrow per step (a message
that never arrives ends in a cross, `-x`), each party's new state in a note
over it, and each fault in a `critical` box titled with what went wrong.
"""

from __future__ import annotations

import json
import re

from .diagram import Picture
from .sequence import Chart

# Notes dark on light in every theme (the dark theme's own note colours reach only 4.49:1).
NOTE_COLOURS = (
    "config:",
    "  themeVariables:",
    '    noteBkgColor: "#FFF5AD"',
    '    noteTextColor: "#1A1A1A"',
)
_UNSAFE = re.compile(r"[:;#{}<>\"]")


def _safe(text: str) -> str:
    """Label text Mermaid parses as text: no statement separators, comments or markup."""
    replacements = {
        ":": "#58;",
        ";": "#59;",
        "#": "#35;",
        "{": "#123;",
        "}": "#125;",
        "<": "#lt;",
        ">": "#gt;",
        '"': "#quot;",
    }
    return _UNSAFE.sub(lambda m: replacements[m.group(0)], text)


def mermaid_source(pic: Picture) -> str:
    title = json.dumps(f"{pic.title} — {pic.source}", ensure_ascii=False)  # YAML, quoted
    lines = ["---", f"title: {title}", *NOTE_COLOURS, "---", "stateDiagram-v2"]
    if pic.rankdir == "LR":
        lines.append("    direction LR")
    lines += [
        "    classDef provisional fill:#FFF4CC,color:#1A1A1A,stroke-dasharray:4 3",
        "    classDef unreachable fill:#FFFFFF,color:#6E6E6E,stroke:#6E6E6E,stroke-dasharray:4 3",
        "    classDef arm fill:#F2F2F2,color:#1A1A1A",
        "    classDef plain fill:#FFFFFF,color:#1A1A1A",
    ]
    if any(n.kind == "channel" for n in pic.nodes):
        lines.append("    classDef channel fill:#E8F1FA,color:#1A1A1A")
    if pic.table:
        lines.append("    state decide <<choice>>")
        triggers = list(dict.fromkeys(d.trigger for d in pic.table))
        for t in triggers:
            lines.append(f"    [*] --> {t}")
            lines.append(f"    {t} --> decide")
        for k, d in enumerate(pic.table, start=1):
            answer = f"a{k}"
            lines.append(f'    state "{_safe(d.answers)}" as {answer}')
            lines.append(
                f"    decide --> {answer} : {k}. {_safe(d.trigger)} [{_safe(' '.join(d.when))}]"
            )
    # Mermaid cannot draw a transition between states of two composite states: clusters
    # such a transition joins are listed in the note instead, and the states drawn flat.
    # A system's components only meet at its channels, so each is drawn as a box.
    cluster_of = {n.id: n.cluster for n in pic.nodes}
    boxed = not any(
        cluster_of.get(a.src) and cluster_of.get(a.dst) and cluster_of[a.src] != cluster_of[a.dst]
        for a in pic.arrows
    )
    for cid, title in [("", ""), *pic.clusters]:
        inside = [n for n in pic.nodes if n.cluster == cid]
        indent = "        " if cid and boxed else "    "
        if cid and boxed and inside:
            lines.append(f'    state "{_safe(title)}" as {cid} {{')
        for n in inside:
            lines.append(f'{indent}state "{_safe(n.label)}" as {n.id}')
        if cid and boxed and inside:
            # Each box its own start, so each component shows where it begins.
            lines += [f"        [*] --> {n.id}" for n in inside if n.initial]
            lines.append("    }")
    groups = [
        f"{title}: {', '.join(n.label for n in pic.nodes if n.cluster == cid)}"
        for cid, title in pic.clusters
        if any(n.cluster == cid for n in pic.nodes) and not boxed
    ]
    for n in pic.nodes:
        if n.initial and not (n.cluster and boxed):
            lines.append(f"    [*] --> {n.id}")
    deciders = len(pic.deciders) > 1
    for a in pic.arrows:
        label = "<br/>".join(_safe(line.strip()) for line in a.lines)
        if a.greyed:
            label = "never fires here<br/>" + label
        if deciders:
            label = f"by {_safe(a.decider or 'no group')}<br/>" + label
        lines.append(f"    {a.tail_box or a.src} --> {a.head_box or a.dst} : {label}")
    for cls, members in (
        ("provisional", [n.id for n in pic.nodes if n.provisional]),
        ("unreachable", [n.id for n in pic.nodes if n.greyed]),
        ("arm", [n.id for n in pic.nodes if n.kind == "arm" and not n.greyed]),
        ("channel", [n.id for n in pic.nodes if n.kind == "channel"]),
        (
            "plain",
            [
                n.id
                for n in pic.nodes
                if n.kind not in ("arm", "channel") and not n.greyed and not n.provisional
            ],
        ),
    ):
        if members:
            lines.append(f"    class {','.join(members)} {cls}")
    anchor = next((n.id for n in pic.nodes if n.initial), None)
    if deciders:
        groups = [f"by {d or 'no group'}: {meaning}" for d, meaning in pic.deciders] + groups
    if anchor and (pic.notes or groups):
        lines.append(f"    note right of {anchor}")
        lines += [f"        {_safe(note)}" for note in (*groups, *pic.notes)]
        lines.append("    end note")
    if anchor and pic.footnotes:
        lines.append(f"    note left of {anchor}")
        for number, _, body in pic.footnotes:  # the body's first line names the row
            lines.append(f"        ({number}) {_safe(' '.join(body))}")
        lines.append("    end note")
    return "\n".join(lines) + "\n"


def sequence_source(chart: Chart) -> str:
    """The chart as a Mermaid `sequenceDiagram` (participant ids are prefixed, so that no
    lifeline is named like a keyword: `end`, `loop`, `note`)."""
    title = json.dumps(chart.title, ensure_ascii=False)  # YAML, quoted
    lines = ["---", f"title: {title}", *NOTE_COLOURS, "---", "sequenceDiagram"]
    ids = {ln.id: f"p_{ln.id}" for ln in chart.lifelines}
    lines += [f"    participant {ids[ln.id]} as {_safe(ln.label)}" for ln in chart.lifelines]
    notes = [f"    Note over {ids[lane]}: {_safe(state)}" for lane, state in chart.initial]
    for e in chart.events:
        arrow = "-x" if e.lost else "->>"
        text = f"{e.step}. {_safe(e.label)}"
        step = [f"    {ids[e.src]}{arrow}{ids[e.dst]}: {text}"]
        if e.fault:
            step = [
                f"    critical fault {e.step}#58; {_safe(e.fault)}",
                "    " + step[0],
                "    end",
            ]
        notes += step + [f"    Note over {ids[lane]}: {_safe(state)}" for lane, state in e.states]
    if chart.ending and chart.lifelines:
        span = ids[chart.lifelines[0].id]
        if len(chart.lifelines) > 1:
            span += "," + ids[chart.lifelines[-1].id]
        notes.append(f"    Note over {span}: {_safe(chart.ending)}")
    return "\n".join(lines + notes) + "\n"
