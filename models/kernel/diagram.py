"""The diagram face of a spec: a picture drawn from the rows and the explorer's graph.

One picture per view (duplex under AUDIO and under TEXT). Nodes are the
control values; a value the explorer never reaches in the view is greyed, never
hidden by hand. Edges are the rows that fire there (explorer edges), labelled
`trigger [guard] / outputs`; a row that never fires in the view but names a
target is drawn greyed. Folding keeps the picture readable: ignore rows and rows
that only refresh data in every state become notes, and a row that leaves every
state for one target is drawn once, from "any state". Edges are coloured by who
decides the trigger (its group, or the spec's `Layout.deciders`). A spec without
a control variable (admission) is drawn as its decision table. Each picture has a
legend and a panel of the spec's checks with the verdicts they were given, and
`overlay` draws a trace over it as a numbered, highlighted path.

`Picture` is the one model; `dot_source` (graphviz) and `mermaid.py` print it.
"""

from __future__ import annotations

import enum
import html
import re
from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Protocol

import graphviz

from .domains import Value
from .explore import Edge
from .explore import Exploration
from .explore import explore
from .expr import TRUE
from .expr import And
from .expr import Const
from .expr import Env
from .expr import Expr
from .expr import In
from .expr import Not
from .expr import Or
from .expr import Ref
from .expr import Some
from .expr import evaluate
from .files import write_atomic
from .printer import flat
from .printer import paren
from .printer import show
from .printer import wrap
from .spec import Row
from .spec import Spec
from .trace import Trace

if TYPE_CHECKING:
    from .compose import Part
    from .compose import System

WIDTH = 34  # characters per edge-label line
FOOTNOTE_WIDTH = 46  # characters per footnote line
# Colour-blind safe (Okabe-Ito hues, darkened to a contrast of at least 4.5:1 on white).
COLOURS = ("#0072B2", "#00785A", "#A8447F", "#9A5B00", "#1F6FA6")
STYLES = ("solid", "dashed", "dotted", "bold", "dashed")  # the decider without colour too
DASHES = {"solid": "━━", "dashed": "╍╍", "dotted": "┅┅", "bold": "▬▬"}  # the legend's samples
TRACE = "#B3123A"
GREY = "#6E6E6E"
VERDICT_COLOURS = {
    "proved": "#1B7837",
    "witnessed": "#2166AC",
    "violated": "#B2182B",
    "unknown": "#666666",
}
FONT = "Helvetica"


class DotMissing(RuntimeError):
    """graphviz's `dot` executable is not installed."""


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Finding:
    """One check as the last verify found it (the panel's line)."""

    id: str
    kind: str
    verdict: str
    expected: str = "hold"
    steps: int | None = None  # the witness's or counterexample's length

    @property
    def shown(self) -> str:
        what = self.verdict + ("" if self.steps is None else f" (k={self.steps})")
        return what + (" as expected" if self.expected == "violate" else "")


@dataclass(frozen=True)
class Mark:
    """One entry of a trace in diagram terms: the row taken (`init` first), the control
    value after it, and the outputs, all as labels."""

    row: str
    control: str
    outputs: Mapping[str, str] = field(default_factory=dict)
    text: str = ""  # how the step reads in the trace panel


# ---------------------------------------------------------------- the model


@dataclass(frozen=True)
class Node:
    id: str
    label: str
    kind: str = "state"  # state | arm | any
    initial: bool = False
    provisional: bool = False
    greyed: bool = False
    cluster: str = ""
    change: str = ""  # against another picture (`compare`): "gained" or "lost"


@dataclass(frozen=True)
class Arrow:
    id: str
    src: str
    dst: str
    rows: tuple[str, ...]
    lines: tuple[str, ...]
    decider: str
    tooltip: str
    greyed: bool = False
    marks: tuple[int, ...] = ()  # trace steps that take this arrow
    change: str = ""  # against another picture (`compare`): "added", "changed" or "removed"
    # the boxes (cluster ids) the arrow leaves and enters at their border (a system's channels)
    tail_box: str = ""
    head_box: str = ""


@dataclass(frozen=True)
class Decision:
    """A row of a decision-table picture."""

    row: str
    trigger: str
    when: tuple[str, ...]
    answers: str
    cite: str
    marks: tuple[int, ...] = ()  # trace steps that take this row


@dataclass
class Picture:
    name: str  # the file stem: duplex-audio, wave
    title: str
    source: str
    nodes: list[Node] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    note_titles: list[str] = field(default_factory=list)  # per note: the rows it folds
    deciders: list[tuple[str, str]] = field(default_factory=list)  # (decider, meaning)
    clusters: list[tuple[str, str]] = field(default_factory=list)  # (id, title)
    findings: list[Finding] = field(default_factory=list)
    table: list[Decision] = field(default_factory=list)
    footnotes: list[tuple[int, str, list[str]]] = field(default_factory=list)
    rankdir: str = "LR"
    # where each row's step lands when it is not an arrow (folded into a note or the table)
    folded: dict[str, str] = field(default_factory=dict)
    arm_state: str = ""  # the control value drawn once per value of `arm_output`
    arm_output: str = ""
    trace_title: str = ""
    trace_steps: list[str] = field(default_factory=list)
    path_nodes: tuple[str, ...] = ()
    # a system's components: their inherited checks (`daemon-…`) are counted, not listed
    components: tuple[str, ...] = ()
    # a lasso's (the step its loop starts from, its last step): the last state is that
    # step's state again, and the steps after it repeat forever (equal: it stutters there)
    lasso: tuple[int, int] | None = None
    ranksep: str = ""  # graphviz's, when not the default (a part of a `split` picture)
    nodesep: str = ""  # graphviz's, when not the default (a system's, drawn close)

    def node(self, node_id: str) -> Node:
        return next(n for n in self.nodes if n.id == node_id)

    def has_node(self, node_id: str) -> bool:
        return any(n.id == node_id for n in self.nodes)


class Graph(Protocol):
    """What a drawing reads of a reachable graph: an `Exploration`, or a component's share
    of a system's (`_Share`)."""

    @property
    def edges(self) -> Sequence[Edge]: ...

    @property
    def depth(self) -> Sequence[int]: ...

    @property
    def states(self) -> Sequence[object]: ...

    def as_dict(self, i: int) -> Mapping[str, Value]: ...


def views(spec: Spec) -> Mapping[str, Expr]:
    return spec.views or {"": TRUE}


def file_stem(spec: Spec, view: str) -> str:
    base = spec.name.replace(":", "--")
    return f"{base}-{view}" if view else base


def _ident(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") or "x"


def state_id(label: str) -> str:
    return "s_" + _ident(label)


def arm_id(state: str, arm: str, group: str = "") -> str:
    """An outcome arm's node: one per arm and per cluster the run settles from."""
    return "a_" + _ident(state) + "__" + _ident(arm) + (f"__{group}" if group else "")


def table_row_id(row: str) -> str:
    """The SVG id of a decision-table row's cell (graphviz prefixes a cell's ID with `a_`)."""
    return "a_t_" + _ident(row)


ANY = "any_state"
NOTES = "notes"
PANEL = "panel"
TABLE = "table"


# ---------------------------------------------------------------- building


def picture(
    spec: Spec,
    view: str = "",
    graph: Exploration | None = None,
    findings: Sequence[Finding] = (),
    numbering: Mapping[str, int] | None = None,
) -> Picture:
    """The picture of one view, from the rows, the explorer's graph and the checks' verdicts;
    `numbering`: footnote numbers to keep (a variant keeps its base spec's)."""
    graph = graph or explore(spec)
    title = spec.name + (f" ({view})" if view else "")
    pic = Picture(file_stem(spec, view), title, spec.source, findings=list(findings))
    pic.rankdir = spec.layout.rankdir
    if spec.system is not None:
        pic.components = tuple(p.name for p in spec.system.parts)
        pic.rankdir = "TB"  # components one under another: side by side, they outgrow a page
        pic.ranksep, pic.nodesep = "0.25", "0.2"  # and close, so that adr068 fits a page
        _system(spec.system, graph, pic)
        return pic
    if spec.control is None:
        _decision_table(spec, pic)
        return pic
    _state_machine(spec, view, graph, pic, numbering)
    return pic


def note_id(k: int) -> str:
    """The SVG id of note `k` (graphviz prefixes `a_` to a table cell's ID)."""
    return f"a_note{k}"


def _add_note(pic: Picture, text: str, rows: Sequence[str], title: str = "") -> None:
    """A note line of its own (an element of its own in the SVG), titled by its rows."""
    for r in rows:
        pic.folded[r] = note_id(len(pic.notes))
    pic.notes.append(text)
    pic.note_titles.append(title or ", ".join(rows))


def _panel_over(pic: Picture) -> bool:
    """Is the text drawn as one panel over the graph (`_below`), not beside it? So for a
    system, whose components' notes beside it would make it wider than a page."""
    return pic.rankdir == "TB" and (bool(pic.footnotes) or bool(pic.components))


def _decision_table(spec: Spec, pic: Picture) -> None:
    for r in spec.rows:
        if r.ignore:
            continue
        answers = ", ".join(_outputs(spec, r)) or "-"
        when = guard_lines(spec, r.guard, 48)
        pic.table.append(Decision(r.name, r.trigger, when, answers, r.cite))
        pic.folded[r.name] = table_row_id(r.name)


# ---------------------------------------------------------------- systems

CHANNEL = "channel"  # the decider of the arrows to and from a channel
FAULT = "fault"


@dataclass
class _Share:
    """One component's share of a system's reachable graph, read as the component's own:
    its variables' values in each system state (each once, at its shallowest depth) and
    an edge for each component row a system step fires (compose's `Origin.parts`)."""

    names: tuple[str, ...]
    states: list[tuple[Value, ...]] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def as_dict(self, i: int) -> dict[str, Value]:
        return dict(zip(self.names, self.states[i], strict=True))


@dataclass
class _Survey:
    """A system's reachable graph read in one pass over its moves (no edge's outputs built
    but the few each share keeps): each component's share, and each system row that fires
    with the source of its first edge, in the order of those edges (all `_channels` reads:
    a row's later edges send and deliver the same messages)."""

    shares: dict[str, _Share]
    first: list[tuple[str, int]]

    @classmethod
    def of(cls, system: System, graph: Exploration) -> _Survey:
        parts = system.parts
        shares = [_Share(tuple(p.vars)) for p in parts]
        of: list[list[int]] = []  # per part: system state -> the component's
        for part, share in zip(parts, shares, strict=True):
            index: dict[object, int] = {}
            mine = []
            for i, c in enumerate(graph.classes([part.vars[n] for n in share.names])):
                found = index.get(c)
                if found is None:  # BFS order: the first time is the shallowest
                    found = index[c] = len(share.states)
                    state = graph.as_dict(i)
                    share.states.append(tuple(state[part.vars[n]] for n in share.names))
                    share.depth.append(graph.depth[i])
                mine.append(found)
            of.append(mine)
        number = {p.name: k for k, p in enumerate(parts)}
        rows = [r.name for r in graph.code.rows]
        fires = [  # per system row: (part, its row) for each component row it fires
            [(of[number[c]], number[c], row) for c, row in system.origins[r].parts] for r in rows
        ]
        first: dict[int, int] = {}  # system row -> the source of its first edge
        seen: set[tuple[int, int, str, int]] = set()
        for i in range(len(graph.states)):
            for firing, r, t in graph.moves(i):
                if r not in first:
                    first[r] = i
                for mine, k, row in fires[r]:
                    key = (k, mine[i], row, mine[t])
                    if key in seen:
                        continue
                    seen.add(key)
                    part = parts[k]
                    full = graph.edge_of(i, firing, r, t).outputs
                    outputs = {o: full[name] for o, name in part.outputs.items()}
                    shares[k].edges.append(
                        Edge(key[1], row, part.spec.row(row).trigger, {}, key[3], outputs)
                    )
        return cls(
            {p.name: s for p, s in zip(parts, shares, strict=True)},
            [(rows[r], i) for r, i in first.items()],
        )


class _States:
    """A system graph's states as dicts, each made once (a step reads its two ends)."""

    def __init__(self, graph: Exploration) -> None:
        self.graph = graph
        self.made: dict[int, Mapping[str, Value]] = {}

    def __call__(self, i: int) -> Mapping[str, Value]:
        if i not in self.made:
            self.made[i] = self.graph.as_dict(i)
        return self.made[i]


def _system(system: System, graph: Exploration, pic: Picture) -> None:
    """A system (compose.py): one machine per component, each in its own box and drawn by
    the component's own rules over what the system reaches of it; each channel a node
    between them, with an arrow from every state that sends on it and an arrow to every
    state a message it carries leaves its receiver in (unless the receiver ignores it)."""
    survey = _Survey.of(system, graph)
    for part in system.parts:
        _component(part, survey.shares[part.name], pic)
    pic.deciders = list(dict.fromkeys(pic.deciders))
    _channels(system, survey.first, _States(graph), pic)


def _prefix(component: str) -> str:
    return _ident(component) + "__"


def _component(part: Part, share: _Share, pic: Picture) -> None:
    spec, pre = part.spec, _prefix(part.name)
    cluster = _box(part.name)
    # Its name, and its spec's where that differs (the source is in the spec's own picture).
    title = part.name + (f" ({spec.name})" if spec.name != part.name else "")
    if spec.control is None:
        # A component without a control state: one node (no box), its rows in the notes.
        pic.nodes.append(Node(pre + "self", title, kind="arm"))
        pic.deciders.append((part.name, f"a step of {part.name}"))
        for r in spec.rows:
            if not r.ignore:
                _add_note(pic, f"{part.name}: {_note(spec, r, TRUE)}", [])
        return
    pic.clusters.append((cluster, title))
    # Its own rules, without what a box inside a box or a numbered label would need.
    own = replace(
        spec, views={}, layout=replace(spec.layout, footnotes=False, clusters=(), arms=None)
    )
    sub = Picture(pic.name, pic.title, pic.source)
    _state_machine(own, "", share, sub)
    many = len(sub.deciders) > 1

    def who(decider: str) -> str:
        return f"{part.name}: {decider}" if many and decider else part.name

    pic.nodes += [replace(n, id=pre + n.id, cluster=cluster) for n in sub.nodes]
    pic.arrows += [
        replace(a, id=pre + a.id, src=pre + a.src, dst=pre + a.dst, decider=who(a.decider))
        for a in sub.arrows
    ]
    pic.deciders += [(who(d), m if many else f"a step of {part.name}") for d, m in sub.deciders]
    for note in sub.notes:
        _add_note(pic, f"{part.name}: {note}", [])


def _channels(
    system: System, rows: Sequence[tuple[str, int]], whole: _States, pic: Picture
) -> None:
    """Each channel a node, joined to the boxes of its sender and its receiver: the arrow
    in names the messages that reach it, the arrow out each message with the trigger it
    fires (one its receiver ignores there, never). An arrow is drawn from the first state
    that sends on the channel and to the receiver's initial state, and clipped at the box,
    so that the boxes stack in the order the messages flow. A channel's faults loop on
    its node. `rows`: each system row that fires and the source of its first edge."""

    def node(component: str, state: Mapping[str, Value]) -> str:
        part = system.part(component)
        domain = part.spec.control_domain
        if part.control is None or domain is None:
            return _prefix(component) + "self"
        return _prefix(component) + state_id(domain.label(state[part.control]))

    start = {p.name: node(p.name, whole(0)) for p in system.parts}  # state 0 is initial
    carried: dict[tuple[str, str], list[str]] = {}  # (from, to) -> messages, in order
    ends: dict[tuple[str, str], tuple[str, str]] = {}  # (from, to) -> the nodes drawn
    faults: dict[tuple[str, str], list[str]] = {}

    def carry(src: str, dst: str, label: str, first: tuple[str, str]) -> None:
        _carry(carried, src, dst, label)
        ends.setdefault((src, dst), first)

    for row, source in rows:
        origin = system.origins[row]
        heeded = {c: r for c, r in origin.parts if not system.part(c).spec.row(r).ignore}
        for name, message in origin.sends:
            ch, lane = system.channel(name), _channel_id(name)
            carry(ch.source, lane, _message(message), (node(ch.source, whole(source)), lane))
            if ch.synchronous and ch.target in heeded:
                fired = system.part(ch.target).spec.row(heeded[ch.target]).trigger
                label = f"{_message(message)}: {fired}"
                carry(lane, ch.target, label, (lane, start[ch.target]))
        if origin.delivers is not None:
            name, message = origin.delivers
            target, lane = system.channel(name).target, _channel_id(name)
            if target in heeded:
                fired = system.part(target).spec.row(heeded[target]).trigger
                label = f"{_message(message)}: {fired}"
                carry(lane, target, label, (lane, start[target]))
        if origin.fault is not None:
            name, fault = origin.fault
            _carry(faults, name, "", fault)
    for ch in system.channels:
        how = "synchronous" if ch.synchronous else f"FIFO of {ch.capacity}"
        may = f", may suffer {', '.join(ch.faults)}" if ch.faults else ""
        pic.nodes.append(Node(_channel_id(ch.name), f"{ch.name}: {how}{may}", kind="channel"))
    tooltips = {_channel_id(ch.name): f"{ch.name}: {ch.cite}" for ch in system.channels}
    boxed = {c for c, _ in pic.clusters}
    for k, ((src, dst), messages) in enumerate(carried.items()):
        tip = tooltips.get(src) or tooltips[dst]
        first = ends[(src, dst)]
        pic.arrows.append(
            Arrow(
                f"c{k}",
                first[0],
                first[1],
                (tip.split(":")[0],),
                tuple(wrap(messages, WIDTH, ", ")),
                CHANNEL,
                tip,
                tail_box=_box(src) if _box(src) in boxed else "",
                head_box=_box(dst) if _box(dst) in boxed else "",
            )
        )
    for k, ((name, _), kinds) in enumerate(faults.items()):
        ch_id = _channel_id(name)
        lines = tuple(wrap(kinds, WIDTH, ", "))
        pic.arrows.append(Arrow(f"f{k}", ch_id, ch_id, (name,), lines, FAULT, tooltips[ch_id]))
    pic.deciders.append((CHANNEL, "a message on a channel, from its sender to its receiver"))
    if faults:
        pic.deciders.append((FAULT, "a channel's fault, which the environment may fire"))


def _box(component: str) -> str:
    return "cluster_" + _ident(component)


def _message(value: Value) -> str:
    return str(value.name) if isinstance(value, enum.Enum) else str(value)


def _channel_id(name: str) -> str:
    return "ch_" + _ident(name)


def _carry(carried: dict[tuple[str, str], list[str]], src: str, dst: str, label: str) -> None:
    messages = carried.setdefault((src, dst), [])
    if label not in messages:
        messages.append(label)


@dataclass(frozen=True)
class _Scene:
    """What one view of a state machine is drawn from: its states, by control label."""

    pred: Expr  # the view's predicate
    inside: frozenset[int]  # the explorer's states in the view
    ctrl: Mapping[int, str]  # each such state's control label
    reached: frozenset[str]
    initial: frozenset[str]
    arm_output: str  # the output whose value names the arm a settled state is drawn in
    arm_state: str
    cluster_of: Mapping[str, str]


def _state_machine(
    spec: Spec,
    view: str,
    graph: Graph,
    pic: Picture,
    numbering: Mapping[str, int] | None = None,
) -> None:
    scene = _scene(spec, view, graph)
    pic.clusters = [(f"cluster_{k}", t) for k, (t, _) in enumerate(spec.layout.clusters)]
    fired, arms_seen = _walk(spec, graph, scene)
    _state_nodes(spec, scene, arms_seen, pic)
    drawn = _drafts(spec, scene, fired, pic)
    numbers = _footnotes(spec, scene, drawn, pic, numbering) if spec.layout.footnotes else {}
    # One arrow per source, target and decider: the rows between them are stacked on it.
    groups: dict[tuple[str, str, str, bool], list[_Draft]] = {}
    for d in drawn:
        groups.setdefault((d.src, d.dst, d.decider, d.greyed), []).append(d)
    pic.arrows = [
        Arrow(
            f"e{k}",
            src,
            dst,
            tuple(d.row.name for d in group),
            _numbered(group, numbers) if numbers else _stack(group),
            decider,
            "; ".join(f"{d.row.name}: {d.row.cite}" for d in group),
            greyed,
        )
        for k, ((src, dst, decider, greyed), group) in enumerate(groups.items())
    ]


def _scene(spec: Spec, view: str, graph: Graph) -> _Scene:
    layout = spec.layout
    control = spec.control
    domain = spec.control_domain
    assert control is not None and domain is not None and domain.values is not None
    pred = views(spec)[view]
    ctrl: dict[int, str] = {}
    for i in range(len(graph.states)):
        state = graph.as_dict(i)
        if evaluate(pred, Env(pre=state)):
            ctrl[i] = domain.label(state[control])
    inside = list(ctrl)
    arm_output, arm_state = (
        (layout.arms[0], domain.label(layout.arms[1])) if layout.arms else ("", "")
    )
    return _Scene(
        pred,
        frozenset(inside),
        ctrl,
        frozenset(ctrl[i] for i in inside),
        frozenset(ctrl[i] for i in inside if graph.depth[i] == 0),
        arm_output,
        arm_state,
        {domain.label(v): f"cluster_{k}" for k, (_, vs) in enumerate(layout.clusters) for v in vs},
    )


def _state_nodes(
    spec: Spec, scene: _Scene, arms_seen: Sequence[tuple[str, str]], pic: Picture
) -> None:
    """Every control value, greyed where the explorer never reaches it in this view. The
    arms state is drawn once per output value and per cluster it is entered from."""
    domain = spec.control_domain
    assert domain is not None and domain.values is not None
    provisional = {domain.label(v) for v in spec.layout.provisional}
    for v in domain.values:
        label = domain.label(v)
        if label == scene.arm_state:
            _arm_nodes(spec, scene, arms_seen, pic)
            continue
        pic.nodes.append(
            Node(
                state_id(label),
                label,
                initial=label in scene.initial,
                provisional=label in provisional,
                greyed=label not in scene.reached,
                cluster=scene.cluster_of.get(label, ""),
            )
        )


def _arm_nodes(
    spec: Spec, scene: _Scene, arms_seen: Sequence[tuple[str, str]], pic: Picture
) -> None:
    """The arms state: one node per output value, in a box per cluster it is entered from
    (`arms_seen`: each arm and the cluster it is entered from, as `_walk` meets them)."""
    label, arm_output = scene.arm_state, scene.arm_output
    out_domain = spec.output(arm_output).domain
    pic.arm_state, pic.arm_output = label, arm_output
    assert out_domain.values is not None
    arms = [out_domain.label(o) for o in out_domain.values if o != spec.output(arm_output).default]
    titles = dict(pic.clusters)
    arm_groups = [*(c for c, _ in pic.clusters), ""]
    never = [a for a in arms if all(a != seen for seen, _ in arms_seen)]
    for group in arm_groups:
        box = f"cluster_arms{'_' + group if group else ''}"
        here = [a for a in arms if (a, group) in arms_seen]
        if group == arm_groups[-1]:
            here += never
        if not here:
            continue
        title = f"{label} from the {titles[group]}" if group else f"{label}, by {arm_output}"
        if not group and len(arm_groups) > 1 and set(here) <= set(never):
            title = f"{label}, never reached"
        pic.clusters.append((box, title))
        for arm in here:
            node_id = arm_id(label, arm, group if arm not in never else "")
            pic.nodes.append(Node(node_id, arm, kind="arm", greyed=arm in never, cluster=box))


def _walk(
    spec: Spec, graph: Graph, scene: _Scene
) -> tuple[dict[str, list[tuple[str, str]]], list[tuple[str, str]]]:
    """One pass over the edges inside the view, in order: which rows fire from which node
    to which node, and which arms are entered from which cluster. An edge's outputs are
    read only where it enters the arms state, whose arm they name, and a row's edge
    between two nodes already drawn is skipped unread."""
    ids = {label: state_id(label) for label in scene.ctrl.values()}
    arm_domain = spec.output(scene.arm_output).domain if scene.arm_output else None
    fired: dict[str, list[tuple[str, str]]] = {}
    arms_seen: list[tuple[str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for i, row, t, outputs in _moves(graph, scene.inside):
        src, label = scene.ctrl[i], scene.ctrl[t]
        if label == scene.arm_state and arm_domain is not None:
            arm = arm_domain.label(outputs()[scene.arm_output])
            group = scene.cluster_of.get(src, "")
            if (arm, group) not in arms_seen:
                arms_seen.append((arm, group))
            dst = arm_id(label, arm, group)
        elif (row, src, label) in seen:
            continue
        else:
            seen.add((row, src, label))
            dst = ids[label]
        # Which arm a settled state is in is not in the state: its rows start nowhere.
        pair = ("" if src == scene.arm_state else ids[src], dst)
        pairs = fired.setdefault(row, [])
        if pair not in pairs:
            pairs.append(pair)
    return fired, arms_seen


Outputs = Callable[[], Mapping[str, Value]]


def _moves(graph: Graph, inside: Collection[int]) -> Iterator[tuple[int, str, int, Outputs]]:
    """(source, row, target, its outputs on demand) of each edge from a state `inside`, in
    the graph's order. An `Exploration` answers from its compiled successors and computes
    no outputs until asked: its `edges` would build them all (~78,000 in policy-concrete)."""
    if not isinstance(graph, Exploration):
        for e in graph.edges:
            if e.source in inside:
                yield e.source, e.row, e.target, _given(e)
        return
    rows = [r.name for r in graph.code.rows]
    for i in sorted(inside):
        for k, r, t in graph.moves(i):
            yield i, rows[r], t, _asked(graph, i, k, r, t)


def _given(e: Edge) -> Outputs:
    return lambda: e.outputs


def _asked(graph: Exploration, source: int, firing: int, row: int, target: int) -> Outputs:
    return lambda: graph.edge_of(source, firing, row, target).outputs


def _drafts(
    spec: Spec, scene: _Scene, fired: Mapping[str, list[tuple[str, str]]], pic: Picture
) -> list[_Draft]:
    """Each row's edges; a row that stays put wherever it fires, or fires only from the arms
    state, goes to the notes instead, and the ignore rows that fire are named there."""
    layout = spec.layout
    states = sorted({state_id(s) for s in scene.reached if s != scene.arm_state})
    deciders = _deciders(spec)
    pic.deciders = [(d, layout.meanings.get(d, d or "(no group)")) for d in deciders.values()]
    pic.deciders = list(dict.fromkeys(pic.deciders))
    ignored: dict[str, list[str]] = {}
    drawn: list[_Draft] = []
    any_node = False
    for r in spec.rows:
        pairs = fired.get(r.name, [])
        if r.ignore:
            if pairs:
                ignored.setdefault(r.trigger, []).append(r.name)
            continue
        guard, tail = _label(spec, r, scene.pred)
        draft = _Draft("", "", deciders[r.trigger], False, r, guard, tail)
        if not pairs:
            static = _static_pairs(spec, r, scene.arm_state, scene.arm_output, scene.cluster_of)
            for src, dst in static:
                if pic.has_node(src) and pic.has_node(dst):
                    drawn.append(replace(draft, src=src, dst=dst, greyed=True))
            continue
        sources = {s for s, _ in pairs}
        everywhere = len(states) >= 2 and sources >= set(states)
        if all(s == d for s, d in pairs) and (everywhere or len(pairs) >= 3):
            # Stays put wherever it fires: a refresh, or an output in several states.
            where = "every state" if everywhere else ", ".join(_names(pic, sources))
            _add_note(pic, f"{_note(spec, r, scene.pred)} — in {where}, staying there", [r.name])
            continue
        if everywhere and len({d for _, d in pairs}) == 1:
            any_node = True
            drawn.append(replace(draft, src=ANY, dst=pairs[0][1]))
            continue
        for src, dst in pairs:
            if not src:
                _add_note(pic, f"{_note(spec, r, scene.pred)} — from {scene.arm_state}", [r.name])
                continue
            drawn.append(replace(draft, src=src, dst=dst))
    if any_node:
        pic.nodes.append(Node(ANY, "any state", kind="any"))
    if layout.variables:
        for v in spec.vars:
            if v.name != spec.control:
                _add_note(pic, f"{v.name}: {v.doc}", [], v.name)
    if ignored:
        names = ", ".join(ignored)
        rows = [r for folded in ignored.values() for r in folded]
        _add_note(pic, f"not drawn, no-ops where no edge shows them (ignore rows): {names}", rows)
    return drawn


def _footnotes(
    spec: Spec,
    scene: _Scene,
    drawn: list[_Draft],
    pic: Picture,
    numbering: Mapping[str, int] | None,
) -> dict[str, int]:
    """Each drawn row's number, and its footnote: [guard] / outputs, FOOTNOTE_WIDTH wide.
    A variant keeps its base's numbers (`numbering`); its own rows come after them."""
    numbers: dict[str, int] = {}
    given = dict(numbering or {})
    free = max(given.values(), default=0) + 1
    edges: dict[str, list[tuple[str, str]]] = {}
    for d in drawn:
        edges.setdefault(d.row.name, []).append((d.src, d.dst))
    for d in drawn:
        if d.row.name in numbers:
            continue
        if d.row.name not in given:
            given[d.row.name], free = free, free + 1
        numbers[d.row.name] = given[d.row.name]
        when = _under(d.row.guard, scene.pred)
        found = guard_lines(spec, when, FOOTNOTE_WIDTH) if when != TRUE else ()
        outs = _outputs(spec, d.row)
        # The footnote names its row and edges: it reads without hovering the picture.
        body = _edge_names(pic, d.row.name, edges[d.row.name])
        body += _bracket(found, "") if found else []
        after = ["/ " + x for x in wrap(outs, FOOTNOTE_WIDTH, ", ")] if outs else []
        if body and after and len(body[-1]) + 1 + len(after[0]) <= FOOTNOTE_WIDTH:
            body[-1] += " " + after.pop(0)
        body += after
        pic.footnotes.append((numbers[d.row.name], d.row.name, body))
    pic.footnotes.sort()
    return numbers


def _edge_names(pic: Picture, row: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """`row: FROM → TO; ...`, wrapped FOOTNOTE_WIDTH wide; an arm reads `SETTLED/OK`."""

    def name(node_id: str) -> str:
        n = pic.node(node_id)
        return (
            "any state"
            if n.kind == "any"
            else f"{pic.arm_state}/{n.label}"
            if n.kind == "arm"
            else n.label
        )

    edges = [f"{name(src)} → {name(dst)}" for src, dst in pairs]
    first = f"{row}: {edges[0]}"
    if len(first) > FOOTNOTE_WIDTH:
        return [f"{row}:", *("  " + line for line in wrap(edges, FOOTNOTE_WIDTH - 2, ", "))]
    lines = wrap([first, *edges[1:]], FOOTNOTE_WIDTH, ", ")
    return [lines[0], *("  " + line for line in lines[1:])]


@dataclass(frozen=True)
class _Draft:
    """One row's edge before edges between the same states are merged."""

    src: str
    dst: str
    decider: str
    greyed: bool
    row: Row
    guard: tuple[str, ...]  # the guard's lines, without brackets
    tail: tuple[str, ...]  # outputs and updates


def _stack(group: Sequence[_Draft]) -> tuple[str, ...]:
    """The label of merged rows: each trigger once, then each row's [guard] and outputs."""
    lines: list[str] = []
    by_trigger: dict[str, list[_Draft]] = {}
    for d in group:
        by_trigger.setdefault(d.row.trigger, []).append(d)
    for trigger, drafts in by_trigger.items():
        tails = {d.tail for d in drafts}
        shared = len(tails) == 1
        if len(drafts) == 1 or not all(d.guard for d in drafts):
            for d in drafts:
                lines += _one(trigger, d.guard, d.tail)
            continue
        lines.append(trigger)
        for d in drafts:
            lines += _bracket(d.guard, "  ")
            if not shared:
                lines += ["  " + t for t in d.tail]
        if shared:
            lines += list(drafts[0].tail)
    return tuple(lines)


def _numbered(group: Sequence[_Draft], numbers: Mapping[str, int]) -> tuple[str, ...]:
    by_trigger: dict[str, list[str]] = {}
    for d in group:
        by_trigger.setdefault(d.row.trigger, []).append(f"({numbers[d.row.name]})")
    return tuple(f"{t} {' '.join(ns)}" for t, ns in by_trigger.items())


def _one(trigger: str, guard: tuple[str, ...], tail: tuple[str, ...]) -> list[str]:
    if not guard:
        return [trigger, *tail]
    if len(trigger) + len(guard[0]) + 3 <= WIDTH or not trigger:
        first, *rest = _bracket(guard, "")
        return [f"{trigger} {first}".strip(), *rest, *tail]
    return [trigger, *_bracket(guard, "  "), *tail]


def _bracket(guard: tuple[str, ...], indent: str) -> list[str]:
    lines = [f"{indent}  {g}" for g in guard]
    lines[0] = f"{indent}[{guard[0]}"
    lines[-1] += "]"
    return lines


def _names(pic: Picture, ids: set[str]) -> list[str]:
    return [n.label for n in pic.nodes if n.id in ids]


def _note(spec: Spec, r: Row, view: Expr) -> str:
    """A folded row in one line: its label, with every update it makes."""
    guard, tail = _label(spec, r, view)
    head = r.trigger + (f" [{' '.join(guard)}]" if guard else "")
    outs = [t for t in tail if t.startswith("/ ")]
    sets = [f"{k} := {show(spec, v)}" for k, v in r.updates.items()]
    return " ".join([head, *outs]) + (f"; sets {', '.join(sets)}" if sets else "")


def _deciders(spec: Spec) -> dict[str, str]:
    return {t.name: spec.layout.deciders.get(t.name, t.group) for t in spec.triggers}


def _static_pairs(
    spec: Spec, r: Row, arm_state: str, arm_output: str, cluster_of: Mapping[str, str]
) -> list[tuple[str, str]]:
    """Where a row that never fires would go: its declared sources to its target."""
    domain = spec.control_domain
    assert domain is not None and domain.values is not None
    if r.target is None:
        return []
    dst_label = domain.label(r.target)
    arm = r.outputs.get(arm_output)
    if dst_label == arm_state and not isinstance(arm, Const):
        return []
    pairs = []
    for s in r.source if r.source is not None else domain.values:
        src = domain.label(s)
        if src == arm_state:
            continue
        if dst_label == arm_state and isinstance(arm, Const):
            group = cluster_of.get(src, "")
            dst = arm_id(dst_label, spec.output(arm_output).domain.label(arm.value), group)
        else:
            dst = state_id(dst_label)
        pairs.append((state_id(src), dst))
    return pairs


def _label(spec: Spec, r: Row, view: Expr) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The row's guard lines and its `/ outputs` and `updates` lines, about WIDTH wide."""
    guard = _under(r.guard, view)
    lines = guard_lines(spec, guard, WIDTH - 4) if guard != TRUE else ()
    tail: list[str] = []
    outs = _outputs(spec, r)
    if outs:
        tail += ["/ " + line for line in wrap(outs, WIDTH, ", ")]
    sets = [f"{k} := {show(spec, v)}" for k, v in r.updates.items() if k in spec.layout.updates]
    if sets:
        tail += wrap(sets, WIDTH, "; ")
    return lines, tuple(tail)


def guard_lines(spec: Spec, guard: Expr, width: int) -> tuple[str, ...]:
    """A guard in lines of about `width`, broken between its top-level conjuncts (or
    disjuncts); a part still too long is broken the same way, in parentheses, indented."""
    if not isinstance(guard, And | Or):
        return tuple(_block(spec, guard, width))
    joiner = " ∧ " if isinstance(guard, And) else " ∨ "
    lines: list[str] = []
    joinable = False
    for part in flat(guard):
        block = _block(spec, part, width)
        if len(block) == 1 and joinable and len(lines[-1]) + len(joiner) + len(block[0]) <= width:
            lines[-1] += joiner + block[0]
            continue
        lines.append(block[0] if not lines else f"{joiner.strip()} {block[0]}")
        lines += block[1:]
        joinable = len(block) == 1
    return tuple(lines)


def _block(spec: Spec, part: Expr, width: int) -> list[str]:
    one = paren(spec, part)
    negated = isinstance(part, Not) and isinstance(part.arg, And | Or)
    member = isinstance(part.arg if isinstance(part, Not) else part, In) and "{" in one
    if len(one) > width and member:
        return _set_lines(one, width)
    if len(one) <= width or not (isinstance(part, And | Or) or negated):
        return [one]
    inner = guard_lines(spec, part.arg if isinstance(part, Not) else part, width - 2)
    block = [("¬(" if negated else "(") + inner[0], *("  " + x for x in inner[1:])]
    block[-1] += ")"
    return block


def _set_lines(one: str, width: int) -> list[str]:
    """`x ∈ {A, B, …}` too long for a line: the set broken after a comma, each
    continuation under its first member (a wide set would widen the whole panel)."""
    head, _, rest = one.partition("{")
    lines = wrap(rest.split(", "), max(width - len(head) - 1, 12), ", ")
    pad = " " * (len(head) + 1)
    return [head + "{" + lines[0], *(pad + line for line in lines[1:])]


def _under(guard: Expr, view: Expr) -> Expr:
    """The guard with the view's own conjuncts dropped: under AUDIO, `payload = AUDIO` is true."""
    known = set(view.args) if isinstance(view, And) else {view}
    if guard in known:
        return TRUE
    if isinstance(guard, And):
        rest = tuple(a for a in guard.args if a not in known)
        return TRUE if not rest else rest[0] if len(rest) == 1 else And(rest)
    return guard


def _outputs(spec: Spec, r: Row) -> list[str]:
    shown = spec.layout.edge_outputs
    parts = []
    for name, expr in r.outputs.items():
        if shown is not None and name not in shown:
            continue
        if shown is None and not _plain(expr):
            continue
        if isinstance(expr, Const) and expr.value == spec.output(name).default:
            continue
        parts.append(f"{name}={show(spec, expr)}")
    return parts


def _plain(output: Expr) -> bool:
    """A value or a state variable; echoed parameters would swamp an edge."""
    inner = output.arg if isinstance(output, Some) else output
    return isinstance(inner, Const) or (isinstance(inner, Ref) and inner.scope == "pre")


# ---------------------------------------------------------------- traces


def marks(
    spec: Spec, states: Sequence[tuple[str, Mapping[str, str], Mapping[str, str]]]
) -> list[Mark]:
    """A trace given as (row, state labels, output labels) entries (entry 0 is `init`)."""
    control = spec.control
    found = []
    for k, (row, state, outputs) in enumerate(states):
        label = state.get(control, "") if control else ""
        found.append(Mark(row, str(label), dict(outputs), f"{k}. {row}"))
    return found


def trace_marks(spec: Spec, trace: Trace) -> list[Mark]:
    """A kernel trace as marks: the control value and outputs by their labels."""
    entries = [("init", trace.init, {}), *((s.row, s.state, s.outputs) for s in trace.steps)]
    return marks(
        spec,
        [
            (
                row,
                {k: spec.var(k).domain.label(v) for k, v in state.items()},
                {k: spec.output(k).domain.label(v) for k, v in outputs.items()},
            )
            for row, state, outputs in entries
        ],
    )


def overlay(pic: Picture, path: Sequence[Mark], title: str, loop: int | None = None) -> Picture:
    """The picture with `path` drawn over it: each step's arrow numbered and highlighted.
    A lasso (`loop`: the step its last state repeats) has its loop's arrows dashed and its
    last one, back to step `loop`, labelled so (`_edge_attrs`)."""
    out = replace(pic, arrows=list(pic.arrows), table=list(pic.table), trace_title=title)
    steps = locate(pic, path)
    nodes: list[str] = []
    for k, (mark, (src, dst, arrow)) in enumerate(zip(path, steps, strict=True)):
        if k == 0:
            nodes.append(dst)
            continue
        nodes += [src, dst]
        if arrow is not None and arrow in {a.id for a in out.arrows}:
            out.arrows = [
                replace(a, marks=(*a.marks, k)) if a.id == arrow else a for a in out.arrows
            ]
        elif arrow is not None and arrow.startswith("a_t_"):
            out.table = [
                replace(d, marks=(*d.marks, k)) if table_row_id(d.row) == arrow else d
                for d in out.table
            ]
        elif src and dst:
            # A folded row (a note, or an ignore row) taken by the trace: draw that one step.
            out.arrows.append(
                Arrow(f"t{k}", src, dst, (mark.row,), (mark.row,), "", "", marks=(k,))
            )
    out.path_nodes = tuple(dict.fromkeys(n for n in nodes if n))
    out.trace_steps = [m.text for m in path]
    if loop is not None:
        last = len(path) - 1
        out.lasso = (loop, last)
        out.trace_steps.append(
            f"↺ loop back to step {loop}: steps {loop}..{last} repeat forever"
            if loop < last
            else f"then it stutters at step {last} forever"
        )
    return out


def locate(pic: Picture, path: Sequence[Mark]) -> list[tuple[str, str, str | None]]:
    """For each entry: (source node, target node, the arrow or fold it takes, if any)."""
    result: list[tuple[str, str, str | None]] = []
    current = ""
    for k, mark in enumerate(path):
        if not mark.control:
            target = ""
        elif mark.control == pic.arm_state:
            group = pic.node(current).cluster if pic.has_node(current) else ""
            label = mark.outputs.get(pic.arm_output, "")
            arm = arm_id(mark.control, label, group)
            if not pic.has_node(arm):
                arm = arm_id(mark.control, label)  # an arm the explorer never reaches
            # Still settled after settling: the arm it settled in.
            target = current if current.startswith("a_") or not pic.has_node(arm) else arm
        else:
            target = state_id(mark.control)
        if k == 0:
            result.append(("", target, None))
        else:
            arrow = next(
                (
                    a.id
                    for a in pic.arrows
                    if mark.row in a.rows and a.dst == target and a.src in (current, ANY)
                ),
                pic.folded.get(mark.row),
            )
            result.append((current, target, arrow))
        current = target
    return result


# ---------------------------------------------------------------- DOT


def _html(s: str) -> str:
    return html.escape(s, quote=True)


def dot_source(pic: Picture) -> str:
    dot = graphviz.Digraph(name=_ident(pic.name))
    under = _below(pic) if _panel_over(pic) else []
    dot.attr(
        label=f"{pic.title} — {pic.source}" + (f"\n{pic.trace_title}" if pic.trace_title else ""),
        labelloc="t",
        fontname=FONT,
        fontsize="14",
        rankdir=pic.rankdir,
        nodesep=pic.nodesep or "0.3",
        # The panel above takes height from the ranks; a part of a split picture has room.
        ranksep=pic.ranksep or ("0.3" if under else "0.45"),
        newrank="true",
        forcelabels="true",
    )
    dot.attr("node", shape="box", style="rounded", fontname=FONT, fontsize="11")
    dot.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.7")
    side = [] if under else _side(pic)
    on_path = set(pic.path_nodes)
    colours = {d: k for k, (d, _) in enumerate(pic.deciders)}
    by_cluster: dict[str, list[Node]] = {}
    for n in pic.nodes:
        by_cluster.setdefault(n.cluster, []).append(n)
    for cid, title in [("", ""), *pic.clusters]:
        members = by_cluster.get(cid, [])
        if not members:
            continue
        target = dot
        sub = None
        if cid:
            sub = graphviz.Digraph(name=cid)
            sub.attr(label=title, style="rounded,dashed", color=GREY, fontsize="10", fontname=FONT)
            target = sub
        for n in members:
            target.node(n.id, **_node_attrs(n, n.id in on_path))
        if sub is not None:
            dot.subgraph(sub)
    if any(a.tail_box or a.head_box for a in pic.arrows):
        dot.attr(compound="true")  # an arrow may leave or enter a box at its border
    for a in pic.arrows:
        key = "xlabel" if pic.footnotes else "label"
        attrs = _edge_attrs(a, colours, key, pic.lasso)
        attrs.update({k: v for k, v in (("ltail", a.tail_box), ("lhead", a.head_box)) if v})
        dot.edge(a.src, a.dst, **attrs)
    if pic.table:
        dot.node(TABLE, _table_label(pic), shape="plain", id=TABLE)
    for name, attrs in side:
        dot.node(name, **attrs)
    if pic.rankdir == "TB":
        for (first, _), (second, _) in zip(side, side[1:], strict=False):
            dot.edge(first, second, style="invis", weight="10")
    if under:
        # Above every node no arrow enters (the initial state, an unreached arm): the panel
        # is the first rank alone, and the graph hangs under it within its width.
        targets = {a.dst for a in pic.arrows}
        # A system's panel is centred over its first component's initial state, the middle
        # of the first box, not over the median of the hanging nodes (off to the right).
        centre = next((n.id for n in pic.nodes if n.initial), "") if pic.components else ""
        for name, attrs in under:
            dot.node(name, **attrs)
            for n in pic.nodes:
                if n.id not in targets or n.initial:
                    weight = {"weight": "10"} if n.id == centre else {}
                    dot.edge(name, n.id, style="invis", **weight)
    return str(dot.source)


def _wrap_note(note: str, width: int = 60) -> str:
    """A note as HTML-label lines, the lines after the first indented."""
    lines = wrap(note.split(" "), width, " ")
    lines = [lines[0], *("   " + line for line in lines[1:])]
    return "<BR/>".join(_html(line) for line in lines)


def _note_cell(pic: Picture, k: int) -> str:
    """Note `k`'s cell attributes: its own SVG element, titled by the rows it folds, so a
    trace through one of them lights up that line (a link, for graphviz to keep the id)."""
    title = _html(pic.note_titles[k])
    return f'BALIGN="LEFT" ID="{note_id(k)[2:]}" HREF="#" TITLE="{title}"'


def _strike(s: str) -> str:
    """Struck-through text (a combining long stroke after each character)."""
    return "".join(c + "\u0336" for c in s)


def graphviz_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _node_attrs(n: Node, on_path: bool) -> dict[str, str]:
    attrs: dict[str, str] = {"label": n.label, "id": n.id, "tooltip": n.label}
    classes = [n.kind]
    if n.kind == "any":
        attrs.update(shape="plaintext", style="", fontcolor="#444444", label="any state")
    elif n.kind == "arm":
        attrs.update(shape="box", style="rounded,filled", fillcolor="#F2F2F2", fontsize="10")
    elif n.kind == "channel":
        attrs.update(shape="box", style="filled", fillcolor="#E8F1FA", fontsize="10")
    if n.initial:
        attrs["peripheries"] = "2"
        classes.append("initial")
    if n.provisional:
        attrs.update(style="rounded,dashed,filled", fillcolor="#FFF4CC")
        attrs["label"] = f"{n.label}\nprovisional"
        classes.append("provisional")
    if n.greyed:
        attrs.update(style="rounded,dashed", color=GREY, fontcolor=GREY)
        attrs["label"] = f"{n.label}\nunreachable"
        attrs["tooltip"] = f"{n.label}: the explorer never reaches it here"
        classes.append("unreachable")
    if n.change == "gained":
        attrs.update(penwidth="3", style=attrs.get("style", "rounded") + ",bold")
        attrs["label"] = f"+ {n.label}\n(new state)"
    elif n.change == "lost":
        attrs.update(style="rounded,dotted", color=GREY, fontcolor=GREY)
        attrs["label"] = f"− {n.label}\n(state lost)"
    if n.change:
        classes.append(n.change)
    if on_path:
        attrs.update(color=TRACE, penwidth="2.5")
        classes.append("path")
    attrs["class"] = " ".join(classes)
    return attrs


def _edge_attrs(
    a: Arrow,
    colours: Mapping[str, int],
    key: str = "label",
    lasso: tuple[int, int] | None = None,
) -> dict[str, str]:
    """`key` is `xlabel` for footnoted edges: placed after layout, a label takes no room.
    On a lasso's loop (`Picture.lasso`) a trace arrow is dashed, and the loop's last arrow
    says where it goes back to: `↺ to step k`."""
    k = colours.get(a.decider, 0)
    label = "\\l".join(graphviz_escape(line) for line in a.lines) + "\\l"
    attrs: dict[str, str] = {
        key: label,
        "id": a.id,
        "tooltip": a.tooltip or a.rows[0],
        "color": COLOURS[k % len(COLOURS)],
        "fontcolor": COLOURS[k % len(COLOURS)],
        "style": STYLES[k % len(STYLES)],
        "class": "edge-" + _ident(a.decider or "none"),
    }
    if a.greyed:
        attrs.update(
            color=GREY, fontcolor=GREY, style="dashed", tooltip=a.tooltip + " (never fires here)"
        )
        attrs["class"] = "unreachable"
    if a.change in ("added", "changed"):
        # Thick and flagged in the label: the change reads without colour too.
        attrs.update(penwidth="3.5", style="bold")
        attrs[key] = f"{'+ added' if a.change == 'added' else '~ changed'}\\l" + attrs[key]
        attrs["tooltip"] = f"{a.change}: {attrs['tooltip']}"
    elif a.change == "removed":
        struck = "\\l".join(_strike(graphviz_escape(line)) for line in a.lines) + "\\l"
        attrs.update(style="dotted", color=GREY, fontcolor=GREY, penwidth="2")
        attrs[key] = "− removed\\l" + struck
        attrs["tooltip"] = f"removed: {attrs['tooltip']}"
    if a.change:
        attrs["class"] += " " + a.change
    if a.marks:
        steps = ",".join(str(m) for m in a.marks)
        looped = lasso is not None and any(m > lasso[0] for m in a.marks)
        closes = lasso is not None and lasso[0] < lasso[1] and lasso[1] in a.marks
        back = f"↺ to step {lasso[0]} " if lasso is not None and closes else ""
        style = "dashed" if looped else "solid"
        attrs.update(color=TRACE, fontcolor=TRACE, penwidth="2.5", style=style)
        attrs[key] = f"#{steps} {back}" + attrs[key]
        attrs["class"] = attrs["class"] + " path" + (" loop" if looped else "")
    return attrs


_ONE_OUTPUT = re.compile(r", (?=[A-Za-z_][A-Za-z0-9_]*=)")


def _table_label(pic: Picture) -> str:
    head = (
        "<TR><TD><B>#</B></TD><TD><B>trigger</B></TD><TD><B>row</B></TD>"
        "<TD><B>when (first match wins)</B></TD><TD><B>answers</B></TD></TR>"
    )
    rows = []
    for k, d in enumerate(pic.table, start=1):
        when = '<BR ALIGN="LEFT"/>'.join(_html(x) for x in d.when)
        # one output a line (a value's own ", " stays on its line)
        answers = '<BR ALIGN="LEFT"/>'.join(_html(x) for x in _ONE_OUTPUT.split(d.answers))
        bg = ' BGCOLOR="#FBD5D5"' if d.marks else ""
        mark = f"#{','.join(str(m) for m in d.marks)} " if d.marks else ""
        rows.append(
            f"<TR><TD{bg}>{k}</TD><TD{bg}>{_html(d.trigger)}</TD>"
            f'<TD ALIGN="LEFT" ID="{table_row_id(d.row).removeprefix("a_")}" HREF="#" '
            f'TITLE="{_html(d.cite)}"{bg}>'
            f"{_html(mark + d.row)}</TD>"
            f'<TD ALIGN="LEFT">{when}<BR ALIGN="LEFT"/></TD>'
            f'<TD ALIGN="LEFT">{answers}</TD></TR>'
        )
    return (
        '<<TABLE BORDER="1" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
        f"{head}{''.join(rows)}</TABLE>>"
    )


def _footnote_rows(pic: Picture) -> list[str]:
    rows = ['<TR><TD COLSPAN="3"><B>edges: (n) row: from → to [guard] / outputs</B></TD></TR>']
    for n, row, lines in pic.footnotes:
        body = '<BR ALIGN="LEFT"/>'.join(_html(x) for x in lines or ["-"]) + '<BR ALIGN="LEFT"/>'
        rows.append(
            f'<TR><TD ALIGN="RIGHT" VALIGN="TOP">({n})</TD>'
            # A link, so that graphviz keeps the title: hovering a footnote names its row.
            f'<TD ALIGN="LEFT" VALIGN="TOP" COLSPAN="2" HREF="#" TITLE="{_html(row)}">'
            f"{body}</TD></TR>"
        )
    return rows


SIDE_ROWS = 9  # table rows per side node in a top-to-bottom picture


Side = list[tuple[str, dict[str, str]]]


def _tables(pic: Picture) -> list[tuple[str, list[str], str]]:
    """The side tables, in reading order: (node name, table rows, border colour)."""
    tables: list[tuple[str, list[str], str]] = [("legend", _side_rows(pic), "#BBBBBB")]
    if pic.findings:
        tables.append(("checks", _check_rows(pic), "#BBBBBB"))
    if pic.trace_steps:
        steps = [
            f'<TR><TD ALIGN="LEFT" COLSPAN="3"><FONT COLOR="{TRACE}">{_html(s)}</FONT></TD></TR>'
            for s in pic.trace_steps
        ]
        title = f'<TR><TD COLSPAN="3"><B>{_html(pic.trace_title)}</B></TD></TR>'
        tables.append(("trace", [title, *steps], TRACE))
    if pic.footnotes:
        tables.append(("footnotes", _footnote_rows(pic), "#BBBBBB"))
    return tables


def _side(pic: Picture) -> Side:
    """Legend, checks, trace steps, footnotes and notes: one column beside the graph (a
    top-to-bottom picture with footnotes has its panel over the graph instead, `_below`).

    Top to bottom, the column is cut into short tables chained by invisible edges, so
    that it runs down one side rank by rank instead of making the top rank tall.
    """
    size = SIDE_ROWS if pic.rankdir == "TB" else 10_000
    column: Side = []
    for name, rows, colour in _tables(pic):
        chunks: list[list[str]] = [[]]
        lines = 0
        for row in rows:
            height = row.count("<BR") or 1  # a footnote counts its lines
            if chunks[-1] and lines + height > size:
                chunks.append([])
                lines = 0
            chunks[-1].append(row)
            lines += height
        for k, chunk in enumerate(chunks):
            node = name if k == 0 else f"{name}{k}"
            body = "".join(chunk)
            label = (
                f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1" '
                f'COLOR="{colour}">{body}</TABLE>>'
            )
            column.append((node, {"label": label, "shape": "plain", "id": node, "fontsize": "9"}))
    if pic.notes:
        cells = "".join(
            f'<TR><TD ALIGN="LEFT" {_note_cell(pic, k)}>{_wrap_note(n)}</TD></TR>'
            for k, n in enumerate(pic.notes)
        )
        notes = f'<<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'
        attrs = {"label": notes, "shape": "note", "fontsize": "9", "id": NOTES, "style": ""}
        column.append((NOTES, {**attrs, "class": "note"}))
    return column


BELOW_COLUMNS = 3  # the panel over a footnoted picture, in this many columns
NOTE_WIDTH = 56  # characters per line of a note in that panel


def _below(pic: Picture) -> Side:
    """The side tables and notes as one panel of columns over the graph, for a
    top-to-bottom picture whose edges are footnoted (wave: ~45 footnotes, ~40 checks).
    Beside the graph, that much text makes the picture taller than 1100 pt, and two
    columns of it wider; over the graph it shares the graph's width. Rows keep their
    order, columns are filled to an even height, each table keeps its name as its id."""
    items = [(name, row, colour) for name, rows, colour in _tables(pic) for row in rows]
    for k, note in enumerate(pic.notes):
        text = _wrap_note(note, NOTE_WIDTH)
        cell = f'<TR><TD ALIGN="LEFT" {_note_cell(pic, k)}>{text}</TD></TR>'
        items.append((NOTES, cell, "#444444"))
    heights = [row.count("<BR") or 1 for _, row, _ in items]
    per_column = -(-sum(heights) // BELOW_COLUMNS)
    columns: list[list[tuple[str, str, str]]] = [[]]
    filled = 0
    for item, height in zip(items, heights, strict=True):
        if columns[-1] and filled + height > per_column and len(columns) < BELOW_COLUMNS:
            columns.append([])
            filled = 0
        columns[-1].append(item)
        filled += height
    seen: set[str] = set()
    cells: list[str] = []
    for column in columns:
        parts = []
        for (name, colour), group in groupby(column, key=lambda x: (x[0], x[2])):
            # Only the notes need an id; each note line has its own (`_note_cell`).
            anchor = f' ID="{NOTES}"' if name == NOTES and name not in seen else ""
            seen.add(name)
            body = "".join(row for _, row, _ in group)
            parts.append(
                f'<TR><TD{anchor}><TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" '
                f'CELLPADDING="1" COLOR="{colour}">{body}</TABLE></TD></TR>'
            )
        cells.append(
            f'<TD VALIGN="TOP"><TABLE BORDER="0" CELLSPACING="4">{"".join(parts)}</TABLE></TD>'
        )
    label = f'<<TABLE BORDER="0" CELLSPACING="0"><TR>{"".join(cells)}</TR></TABLE>>'
    return [(PANEL, {"label": label, "shape": "plain", "id": PANEL, "fontsize": "9"})]


def _side_rows(pic: Picture) -> list[str]:
    rows = ['<TR><TD COLSPAN="3"><B>legend</B></TD></TR>']
    for k, (_, meaning) in enumerate(pic.deciders):
        colour = COLOURS[k % len(COLOURS)]
        dash = DASHES[STYLES[k % len(STYLES)]]
        rows.append(
            f'<TR><TD><FONT COLOR="{colour}">{dash}</FONT></TD>'
            f'<TD COLSPAN="2" ALIGN="LEFT">{_html(meaning)}</TD></TR>'
        )
    if any(n.initial for n in pic.nodes):
        rows.append(
            '<TR><TD>◎</TD><TD COLSPAN="2" ALIGN="LEFT">initial state (double border)</TD></TR>'
        )
    if any(n.provisional for n in pic.nodes):
        rows.append(
            '<TR><TD BGCOLOR="#FFF4CC">  </TD>'
            '<TD COLSPAN="2" ALIGN="LEFT">provisional state</TD></TR>'
        )
    if any(n.greyed for n in pic.nodes) or any(a.greyed for a in pic.arrows):
        rows.append(
            f'<TR><TD><FONT COLOR="{GREY}">╍╍</FONT></TD>'
            '<TD COLSPAN="2" ALIGN="LEFT">unreachable here (explorer)</TD></TR>'
        )
    if pic.path_nodes:
        rows.append(
            f'<TR><TD><FONT COLOR="{TRACE}">━━</FONT></TD>'
            '<TD COLSPAN="2" ALIGN="LEFT">the trace, its steps numbered #1, #2, …</TD></TR>'
        )
    if pic.lasso is not None and pic.lasso[0] < pic.lasso[1]:
        rows.append(
            f'<TR><TD><FONT COLOR="{TRACE}">╍╍</FONT></TD><TD COLSPAN="2" ALIGN="LEFT">'
            f"the loop, repeated forever (↺: back to step {pic.lasso[0]})</TD></TR>"
        )
    changes = {a.change for a in pic.arrows} | {n.change for n in pic.nodes}
    if changes - {""}:
        for marks, meaning in (
            ("━━", "+ added / ~ changed row (thick, flagged)"),
            ("┅┅", "− removed row (dotted, struck through)"),
            ("▭", "+ state now reached (bold) / − no longer (dotted)"),
        ):
            rows.append(
                f'<TR><TD>{marks}</TD><TD COLSPAN="2" ALIGN="LEFT">{_html(meaning)}</TD></TR>'
            )
    return rows


CHECKS_LISTED = 16  # up to this many checks, one line each; more are grouped by verdict
GROUP_WIDTH = 72  # characters per line of a group's check names


def _collapsed(pic: Picture, ids: list[str]) -> tuple[list[str], dict[str, str]]:
    """A system's inherited checks, one entry per component (`daemon-… (22)`), and per
    component the names it stands for (the entry's tooltip)."""
    inherited = {c: [i for i in ids if i.startswith(c + "-")] for c in pic.components}
    own = [i for i in ids if not any(i in names for names in inherited.values())]
    shown = own + [f"{c}-… ({len(names)})" for c, names in inherited.items() if names]
    return shown, {c: ", ".join(names) for c, names in inherited.items() if names}


def _counted(pic: Picture) -> tuple[list[str], list[Finding]]:
    """A system's checks that hold as expected, one row per kind and verdict counting them
    by whose they are (the system's own, then each component's inherited `daemon-…`), their
    names in the row's tooltip; and the other checks, which `_check_rows` names. Named, the
    65 checks of adr068 made its picture wider than a page; the report has a card for each."""
    groups: dict[tuple[str, str], list[str]] = {}
    rest = []
    for f in pic.findings:
        if f.verdict in ("proved", "witnessed") and f.expected == "hold":
            groups.setdefault((f.kind, f.verdict), []).append(f.id)
        else:
            rest.append(f)
    rows = []
    for (kind, verdict), ids in groups.items():
        whose = {c: sum(i.startswith(c + "-") for i in ids) for c in pic.components}
        own = len(ids) - sum(whose.values())
        counts = [f"the system's own {own}"] if own else []
        counts += [f"{c} {n}" for c, n in whose.items() if n]
        rows.append(
            f'<TR><TD ALIGN="LEFT">{_html(kind)}</TD><TD ALIGN="LEFT"><FONT '
            f'COLOR="{VERDICT_COLOURS[verdict]}">{verdict}</FONT> ({len(ids)})</TD><TD '
            f'ALIGN="LEFT" TITLE="{_html(", ".join(ids))}">{_html(", ".join(counts))}</TD></TR>'
        )
    return rows, rest


def _check_rows(pic: Picture) -> list[str]:
    rows = ['<TR><TD COLSPAN="3"><B>checks (last verify)</B></TD></TR>']
    findings = pic.findings
    if pic.components and len(findings) > CHECKS_LISTED:
        counted, findings = _counted(pic)
        rows += counted
    if (_panel_over(pic) or len(pic.table) > CHECKS_LISTED) and len(pic.findings) > CHECKS_LISTED:
        # One line per check would make the panel taller than fits (wave has ~40, a system's
        # decision table is itself tall):
        # each kind and verdict once, its checks' names wrapped beside it.
        groups: dict[tuple[str, str], list[str]] = {}
        for f in findings:
            groups.setdefault((f.kind, f.shown), []).append(f.id)
        for (kind, shown), ids in groups.items():
            colour = VERDICT_COLOURS.get(shown.split()[0], "#000000")
            head = (
                f'<TD ALIGN="LEFT">{_html(kind)}</TD>'
                f'<TD ALIGN="LEFT"><FONT COLOR="{colour}">{_html(shown)}</FONT> ({len(ids)})</TD>'
            )
            shown_ids, hidden = _collapsed(pic, ids)
            for k, line in enumerate(wrap(shown_ids, GROUP_WIDTH, ", ")):
                # A row per line, so that a long group still splits into short tables.
                first = head if k == 0 else '<TD COLSPAN="2"></TD>'
                names = [h for c, h in hidden.items() if f"{c}-… (" in line]
                title = f' TITLE="{_html(", ".join(names))}"' if names else ""
                rows.append(f'<TR>{first}<TD ALIGN="LEFT"{title}>{_html(line)}</TD></TR>')
        return rows
    if findings:
        for f in findings:
            colour = VERDICT_COLOURS.get(f.verdict, "#000000")
            rows.append(
                f'<TR><TD ALIGN="LEFT">{_html(f.kind)}</TD><TD ALIGN="LEFT">{_html(f.id)}</TD>'
                f'<TD ALIGN="LEFT"><FONT COLOR="{colour}">{_html(f.shown)}</FONT></TD></TR>'
            )
    return rows


# ---------------------------------------------------------------- files


def pictures(
    spec: Spec,
    findings: Sequence[Finding] = (),
    graph: Exploration | None = None,
    numbering: Mapping[str, int] | None = None,
) -> list[Picture]:
    """One picture per view; `numbering`: footnote numbers to keep (a base spec's)."""
    graph = graph or explore(spec)
    return [
        part
        for view in views(spec)
        for part in split(spec, picture(spec, view, graph, findings, numbering))
    ]


SPLIT_RANKSEP = "0.75"  # a part's arrows get room for their labels, within 1100 pt


def split(spec: Spec, pic: Picture) -> list[Picture]:
    """`pic` as one picture per cluster when the spec's layout asks (`Layout.split`: wave's
    front and back half), else `[pic]`. A part holds its cluster's states and the arms
    entered from it, every arrow from or into them, and the other clusters' states those
    arrows join, in their own box: an arrow between two halves is drawn in both. Node and
    arrow ids and footnote numbers are the whole picture's, so a trace located on the whole
    picture (`locate`) lights the same elements on a part. States in no cluster and arms
    never reached go with the last part."""
    names = spec.layout.split
    if not names or pic.table:
        return [pic]
    ids = [cid for cid, _ in pic.clusters[: len(names)]]
    titles = dict(pic.clusters)

    def owner(n: Node) -> int:
        return next(
            (k for k, c in enumerate(ids) if n.cluster in (c, f"cluster_arms_{c}")), len(ids) - 1
        )

    owned = {n.id: owner(n) for n in pic.nodes}
    parts = []
    for k, suffix in enumerate(names):
        mine = {i for i, o in owned.items() if o == k}
        arrows = [a for a in pic.arrows if a.src in mine or a.dst in mine]
        ends = mine | {a.src for a in arrows} | {a.dst for a in arrows}
        nodes = [n for n in pic.nodes if n.id in ends]
        rows = {r for a in arrows for r in a.rows}
        parts.append(
            replace(
                pic,
                name=f"{pic.name}-{suffix}",
                title=f"{pic.title}: the {titles[ids[k]]}",
                nodes=nodes,
                arrows=arrows,
                clusters=[c for c in pic.clusters if any(n.cluster == c[0] for n in nodes)],
                footnotes=[f for f in pic.footnotes if f[1] in rows],
                path_nodes=tuple(n for n in pic.path_nodes if n in ends),
                ranksep=SPLIT_RANKSEP,
            )
        )
    return parts


def footnote_numbers(pic: Picture) -> dict[str, int]:
    """A picture's footnote number per row, for a variant drawn beside it to keep."""
    return {row: n for n, row, _ in pic.footnotes}


def compare(before: Picture, after: Picture, changed: Collection[str] = ()) -> Picture:
    """`after` with what differs from `before` marked, never by colour alone: an edge
    (a row between two states) that is new is "added", a row in `changed` on an edge both
    have is "changed", and an edge or state `before` has and `after` lacks is drawn again
    as "removed" or "lost" (dotted, struck through); a new state is "gained"."""
    had = {(r, a.src, a.dst) for a in before.arrows for r in a.rows}
    has = {(r, a.src, a.dst) for a in after.arrows for r in a.rows}
    arrows = []
    for a in after.arrows:
        if any((r, a.src, a.dst) not in had for r in a.rows):
            arrows.append(replace(a, change="added"))
        elif any(r in changed for r in a.rows):
            arrows.append(replace(a, change="changed"))
        else:
            arrows.append(a)
    # A state is gained when HEAD reaches it and BASE did not (drawn greyed, or not at all).
    live = {n.id for n in before.nodes if not n.greyed}
    ids = {n.id for n in after.nodes}
    nodes = [
        replace(n, change="gained")
        if not n.greyed and n.id not in live
        else replace(n, change="lost")
        if n.greyed and n.id in live
        else n
        for n in after.nodes
    ]
    lost = [replace(n, change="lost", greyed=True) for n in before.nodes if n.id not in ids]
    for k, a in enumerate(before.arrows):
        gone = tuple(r for r in a.rows if (r, a.src, a.dst) not in has)
        if gone:
            lines = a.lines if len(gone) == len(a.rows) else tuple(gone)
            arrows.append(
                replace(a, id=f"removed{k}", rows=gone, lines=lines, change="removed", marks=())
            )
    out = replace(after, nodes=nodes + lost, arrows=arrows)
    out.clusters = list(dict.fromkeys([*after.clusters, *before.clusters]))
    # A removed row's footnote stays, struck, under its old number.
    removed = {r for a in arrows if a.change == "removed" for r in a.rows}
    listed = {r for _, r, _ in after.footnotes}
    out.footnotes = sorted(
        [
            *after.footnotes,
            *(
                (n, r, [_strike(line) for line in body] or [_strike("removed")])
                for n, r, body in before.footnotes
                if r in removed and r not in listed
            ),
        ]
    )
    return out


def render(source: str, fmt: str = "svg") -> bytes:
    try:
        return bytes(graphviz.pipe("dot", fmt, source.encode()))
    except graphviz.ExecutableNotFound:
        raise DotMissing(
            "graphviz's `dot` is not installed: run `apt-get install graphviz` "
            "(or your system's equivalent), or `make diagrams`, which installs it"
        ) from None


def write(path: Path, data: bytes | str) -> None:
    """Write a whole file or nothing: a reader never sees half a diagram."""
    write_atomic(path, data)
