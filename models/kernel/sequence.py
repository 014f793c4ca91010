"""Message-sequence charts: a trace of a system of machines, drawn as who told whom what.

A `Chart` has a lifeline per party and one event per trace step: a message is
an arrow from one lifeline to another, a step a party takes on its own is an
arrow to itself, and a fault (a lost, duplicated or reordered message, a link
that fails) is marked: drawn in red, flagged `fault`, and a message that never
arrives ends in a cross. After each step, the parties whose state it changed
show their new state in a box on their lifeline.

`sequence_svg` draws a chart as standalone SVG (the report's cards);
`mermaid.sequence_source` prints the same chart as a Mermaid `sequenceDiagram`.
The chart itself is derived from a spec's composition metadata and a trace
(`chart`), so neither renderer knows a spec.
"""

from __future__ import annotations

import enum
import html
import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import replace

from .compose import STEP
from .domains import Value
from .spec import Spec
from .trace import Trace

# The diagrams' palette (diagram.py): the trace red for faults, a grey for what is quiet.
FAULT = "#B3123A"
GREY = "#6E6E6E"
INK = "#1A1A1A"
FONT = "Helvetica, Arial, sans-serif"


@dataclass(frozen=True)
class Lifeline:
    id: str  # an identifier: letters, digits and underscores
    label: str
    kind: str = "component"  # component | channel | environment


@dataclass(frozen=True)
class Event:
    """One trace step: an arrow from `src` to `dst` (the same lifeline: a step of its own)."""

    step: int
    src: str
    dst: str
    label: str
    fault: str = ""  # what went wrong, when the step is a fault (`lost`, `link lost`, ...)
    lost: bool = False  # the message never arrives: the arrow ends in a cross
    states: tuple[tuple[str, str], ...] = ()  # (lifeline, its state after the step)


@dataclass(frozen=True)
class Chart:
    title: str
    lifelines: tuple[Lifeline, ...]
    events: tuple[Event, ...]
    initial: tuple[tuple[str, str], ...] = ()  # (lifeline, its initial state)
    ending: str = ""  # under the last step: what the trace shows (a counterexample's `fails:`)


# ---------------------------------------------------------------- from a trace

ENVIRONMENT = "env"


def chart(spec: Spec, trace: Trace, title: str, ending: str = "") -> Chart:
    """The chart of a trace of a system (`spec.system`, compose.py): the environment, each
    component and, after its sender, each FIFO channel get a lifeline. Each step is read
    from its row's `Origin`: a free trigger is an arrow from the environment, a delivery
    one from the FIFO, each message it sends one from its sender (to the receiver over a
    synchronous channel, to the FIFO otherwise), and a fault is marked on its channel (a
    lost message's arrow ends in a cross before its receiver; so does one sent to a full
    FIFO that drops it, and a FIFO cleared with its connection shows what it lost)."""
    system = spec.system
    if system is None:
        raise ValueError(f"spec {spec.name!r} is not a system of machines (compose.py)")
    comp = {p.name: f"c_{p.name}" for p in system.parts}
    fifo = {c.name: f"q_{c.name}" for c in system.channels if not c.synchronous}
    lifelines = [Lifeline(ENVIRONMENT, "environment", "environment")]
    for part in system.parts:
        lifelines.append(Lifeline(comp[part.name], part.name))
        lifelines += [
            Lifeline(fifo[c.name], f"{c.name} (FIFO of {c.capacity})", "channel")
            for c in system.channels
            if c.source == part.name and c.name in fifo
        ]
    fed = {(c.source, c.output) for c in system.channels}

    def arrives(component: str, row: str, outputs: Mapping[str, Value], args: str = "") -> str:
        """The trigger a component's row answers, with what it emits besides its messages:
        `vad_onset / impulse=TURN_CLAIM`."""
        part = system.part(component)
        shown = [
            f"{o}={spec.output(name).domain.label(outputs[name])}"
            for o, name in part.outputs.items()
            # `<c>_step` is the trigger itself, already the arrow's name
            if (component, o) not in fed
            and o != STEP
            and outputs[name] != spec.output(name).default
        ]
        call = part.spec.row(row).trigger + (f"({args})" if args else "")
        return call + (f" / {', '.join(shown)}" if shown else "")

    events: list[Event] = []
    before = trace.init
    for k, step in enumerate(trace.steps, start=1):
        origin = system.origins[step.row]
        parts = list(origin.parts)
        mine: list[Event] = []
        if origin.fault is not None:
            name, fault = origin.fault
            queue = before[name]
            assert isinstance(queue, tuple) and queue
            head = _message(queue[0])
            if fault == "loss":
                target = comp[system.channel(name).target]
                mine.append(Event(k, fifo[name], target, head, fault="lost", lost=True))
            elif fault == "duplication":
                mine.append(Event(k, fifo[name], fifo[name], f"{head} again", fault="duplicated"))
            else:
                mine.append(Event(k, fifo[name], fifo[name], f"{head} last", fault="reordered"))
        elif origin.delivers is not None:
            name, message = origin.delivers
            component, row = parts.pop(0)
            label = f"{_message(message)}: {arrives(component, row, step.outputs)}"
            mine.append(Event(k, fifo[name], comp[component], label))
        else:
            component, row = parts.pop(0)
            args = ", ".join(
                f"{p.name}={p.domain.label(step.params[p.name])}"
                for p in spec.trigger(step.trigger).params
            )
            call = arrives(component, row, step.outputs, args)
            mine.append(Event(k, ENVIRONMENT, comp[component], call))
        # A FIFO a component's trigger clears (a lost connection) loses what it held.
        held = {n: len(q) for n, q in before.items() if n in fifo and isinstance(q, tuple)}
        for c, row in origin.parts:
            fired = system.part(c).spec.row(row).trigger
            for ch in system.channels:
                if (c, fired) in ch.cleared_by and held.get(ch.name):
                    gone = _contents(before[ch.name])
                    mine.append(Event(k, fifo[ch.name], fifo[ch.name], f"{gone} gone", "cleared"))
                    held[ch.name] = 0
        for name, message in origin.sends:
            ch = system.channel(name)
            if ch.synchronous:
                component, row = parts.pop(0)
                label = f"{_message(message)}: {arrives(component, row, step.outputs)}"
                mine.append(Event(k, comp[ch.source], comp[component], label))
            elif ch.overflow == "drop" and held[name] >= ch.capacity:
                # No room: the message is lost on the way in (compose's `overflow="drop"`).
                lost = Event(
                    k, comp[ch.source], fifo[name], _message(message), "dropped, no room", True
                )
                mine.append(lost)
            else:
                held[name] += 1
                mine.append(Event(k, comp[ch.source], fifo[name], _message(message)))
        changed = _changes(spec, comp, fifo, before, step.state)
        mine[-1] = replace(mine[-1], states=changed)
        events += mine
        before = step.state
    initial = tuple(
        (comp[p.name], p.spec.control_domain.label(trace.init[p.control]))
        for p in system.parts
        if p.control is not None and p.spec.control_domain is not None
    )
    return Chart(title, tuple(lifelines), tuple(events), initial, ending)


def _changes(
    spec: Spec,
    comp: Mapping[str, str],
    fifo: Mapping[str, str],
    before: Mapping[str, Value],
    after: Mapping[str, Value],
) -> tuple[tuple[str, str], ...]:
    """Each party whose state a step changed, with its state after: a component's control
    value then each other variable that changed, a FIFO's contents."""
    system = spec.system
    assert system is not None
    found: list[tuple[str, str]] = []
    for part in system.parts:
        moved = [
            (own, name) for own, name in part.vars.items() if not _same(before[name], after[name])
        ]
        if not moved:
            continue
        words = []
        if part.control is not None:
            words.append(spec.var(part.control).domain.label(after[part.control]))
        words += [
            f"{own}={spec.var(name).domain.label(after[name])}"
            for own, name in moved
            if name != part.control
        ]
        found.append((comp[part.name], ", ".join(words)))
    for name, lane in fifo.items():
        if before[name] != after[name]:
            queue = after[name]
            assert isinstance(queue, tuple)
            found.append((lane, _contents(queue)))
    return tuple(found)


def _same(a: Value, b: Value) -> bool:
    return bool(a == b or (a != a and b != b))  # NaN is NaN


def _contents(queue: Value) -> str:
    assert isinstance(queue, tuple)
    return "[" + ", ".join(_message(m) for m in queue) + "]"


def _message(value: Value) -> str:
    return str(value.name) if isinstance(value, enum.Enum) else str(value)


# ---------------------------------------------------------------- SVG

SIZE = 12  # px: every text of the chart (9 pt)
LINE = 15  # px per text line
CHAR = 6.8  # px: a generous average width of a character at SIZE
MARGIN = 16
GUTTER = 34  # the step numbers' column
HEAD = 30  # a lifeline's head box
BOX = 20  # a state box on a lifeline


def sequence_svg(chart: Chart, prefix: str = "") -> str:
    """The chart as standalone SVG, every text at 12 px; faults in the trace red. `prefix`
    opens the ids of its arrowheads, so that many charts can share one HTML page."""
    lanes = {ln.id: k for k, ln in enumerate(chart.lifelines)}
    width_of = max(
        [
            150.0,
            *(CHAR * len(ln.label) + 24 for ln in chart.lifelines),
            *(CHAR * len(s) + 20 for _, s in chart.initial),
            *(CHAR * len(s) + 20 for e in chart.events for _, s in e.states),
        ]
    )
    column = min(width_of, 320.0)
    x = {
        ln.id: MARGIN + GUTTER + column * (k + 0.5)
        for ln, k in zip(chart.lifelines, lanes.values(), strict=True)
    }
    right = MARGIN + GUTTER + column * len(chart.lifelines)
    # The title, or a text centred on a lifeline (its head, a state), may be wider than the
    # columns: the chart widens to hold it, as it does for a step of its own's label below.
    reach = max(
        right,
        MARGIN + CHAR * len(chart.title),
        *(x[ln.id] + CHAR * len(ln.label) / 2 for ln in chart.lifelines),
        *(x[lane] + CHAR * len(s) / 2 for lane, s in chart.initial),
        *(x[lane] + CHAR * len(s) / 2 for e in chart.events for lane, s in e.states),
    )
    out: list[str] = []
    y: float = MARGIN + 22  # under the title
    for ln in chart.lifelines:
        w = column - 16
        out.append(
            f'<rect x="{x[ln.id] - w / 2:.1f}" y="{y:.1f}" width="{w:.1f}" height="{HEAD}" rx="4" '
            f'fill="{"#F2F2F2" if ln.kind != "component" else "#FFFFFF"}" stroke="{INK}"/>'
        )
        out.append(_text(x[ln.id], y + HEAD / 2 + 4, ln.label, anchor="middle", bold=True))
    top = y + HEAD
    y = top + 10
    y = _states(out, x, column, y, chart.initial)
    numbered = 0
    for e in chart.events:
        span = abs(lanes[e.dst] - lanes[e.src]) or 1
        chars = max(12, int((column * span - 24) / CHAR))
        words = (f"✗ {e.fault}: " if e.fault else "") + e.label
        lines = textwrap.wrap(words, chars) or [""]
        band = LINE * len(lines) + 14
        colour = FAULT if e.fault else INK
        if e.fault:
            out.append(
                f'<rect x="{MARGIN:.1f}" y="{y:.1f}" width="{right - MARGIN:.1f}" '
                f'height="{band + (8 if e.src == e.dst else 0):.1f}" fill="#FBE9ED"/>'
            )
        if e.step != numbered:  # a step's number once, on its first arrow
            out.append(_text(MARGIN + 4, y + LINE, str(e.step), colour=GREY))
            numbered = e.step
        x1, x2 = x[e.src], x[e.dst]
        label_x = (x1 + x2) / 2 if x1 != x2 else x1 + 10
        anchor = "middle" if x1 != x2 else "start"
        for k, text in enumerate(lines):
            out.append(_text(label_x, y + LINE * (k + 1) - 2, text, anchor=anchor, colour=colour))
        if x1 == x2:  # it runs right from its lifeline, past the column's edge on the last
            reach = max(reach, label_x + CHAR * max(len(text) for text in lines))
        ay = y + LINE * len(lines) + 4
        dash = ' stroke-dasharray="5 3"' if e.fault else ""
        if x1 == x2:
            out.append(
                f'<path d="M{x1:.1f},{ay:.1f} h28 v8 h-26" fill="none" stroke="{colour}"{dash} '
                f'marker-end="url(#{prefix}{_marker(e)})"/>'
            )
            ay += 8
        else:
            end = x2 - (6 if x2 > x1 else -6) if not e.lost else x1 + (x2 - x1) * 0.75
            out.append(
                f'<line x1="{x1:.1f}" y1="{ay:.1f}" x2="{end:.1f}" y2="{ay:.1f}" '
                f'stroke="{colour}"{dash} marker-end="url(#{prefix}{_marker(e)})"/>'
            )
        y = ay + 10
        y = _states(out, x, column, y, e.states)
    if chart.ending:
        ending = textwrap.wrap(chart.ending, int((right - MARGIN) / CHAR))
        for k, text in enumerate(ending, start=1):
            out.append(_text(MARGIN, y + LINE * k, text, colour=FAULT, bold=True))
        y += LINE * len(ending) + 6
    bottom = y + 8
    lifelines = [
        f'<line x1="{x[ln.id]:.1f}" y1="{top:.1f}" x2="{x[ln.id]:.1f}" y2="{bottom:.1f}" '
        f'stroke="{GREY}" stroke-dasharray="3 3"/>'
        for ln in chart.lifelines
    ]
    # Whole pixels, rounded up: the box holds every element.
    width, height = math.ceil(reach + MARGIN), math.ceil(bottom + MARGIN)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sequence" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{_e(chart.title)}" font-family="{FONT}" font-size="{SIZE}">'
        f"<title>{_e(chart.title)}</title>{_markers(prefix)}"
        f'<rect width="100%" height="100%" fill="#FFFFFF"/>'
        + _text(MARGIN, MARGIN + 8, chart.title, bold=True)
        + "".join(lifelines)
        + "".join(out)
        + "</svg>"
    )


def _states(
    out: list[str],
    x: dict[str, float],
    column: float,
    y: float,
    states: tuple[tuple[str, str], ...],
) -> float:
    """The boxes of the parties' new states, side by side on one line; the y under them."""
    if not states:
        return y
    for lane, text in states:
        w = min(column - 16, CHAR * len(text) + 16)
        out.append(
            f'<rect x="{x[lane] - w / 2:.1f}" y="{y:.1f}" width="{w:.1f}" height="{BOX}" rx="8" '
            f'fill="#FFF5AD" stroke="{GREY}"/>'
        )
        out.append(_text(x[lane], y + BOX / 2 + 4, text, anchor="middle"))
    return y + BOX + 8


def _marker(e: Event) -> str:
    return ("cross" if e.lost else "head") + ("-fault" if e.fault else "")


def _markers(prefix: str) -> str:
    heads = []
    for suffix, colour in (("", INK), ("-fault", FAULT)):
        heads.append(
            f'<marker id="{prefix}head{suffix}" viewBox="0 0 10 10" refX="9" refY="5" '
            f'markerWidth="8" markerHeight="8" orient="auto">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        )
        heads.append(
            f'<marker id="{prefix}cross{suffix}" viewBox="0 0 10 10" refX="5" refY="5" '
            f'markerWidth="10" markerHeight="10" orient="auto">'
            f'<path d="M1,1 L9,9 M9,1 L1,9" stroke="{colour}" stroke-width="2"/></marker>'
        )
    return "<defs>" + "".join(heads) + "</defs>"


def _text(
    x: float,
    y: float,
    text: str,
    *,
    anchor: str = "start",
    colour: str = INK,
    bold: bool = False,
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{colour}"{weight}>'
        f"{_e(text)}</text>"
    )


def _e(s: str) -> str:
    return html.escape(s, quote=True)
