"""The drawing (`models/kernel/diagram.py`) of small specs, text for text.

The committed diagrams (diagrams/*.dot, pinned by tests/test_diagrams.py) have no
faulty channel, no `compare` with a lost state or a struck footnote, and few trace
overlays; the small pictures here draw those. The .dot files in tests/pictures/ are
what `dot_source` printed for the pictures below, read line by line when written. After
a deliberate change to the drawing, write them again from `dot_source(...)` and read
the diff before committing it.
"""

from __future__ import annotations

import enum
from dataclasses import replace
from pathlib import Path

import graphviz
import pytest
from systems import CTL
from systems import DEV
from systems import LAMP
from systems import SYSTEM
from systems import Cmd
from systems import Device
from systems import Lamp
from systems import Light
from systems import Switch
from systems import link

from models.kernel import TRUE
from models.kernel import Bool
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import and_
from models.kernel import eq
from models.kernel import ge
from models.kernel import ignore
from models.kernel import is_in
from models.kernel import ite
from models.kernel import le
from models.kernel import ne
from models.kernel import not_
from models.kernel import or_
from models.kernel import others
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import var
from models.kernel.compose import channel
from models.kernel.compose import compose
from models.kernel.diagram import DotMissing
from models.kernel.diagram import Finding
from models.kernel.diagram import Mark
from models.kernel.diagram import _Survey
from models.kernel.diagram import compare
from models.kernel.diagram import dot_source
from models.kernel.diagram import footnote_numbers
from models.kernel.diagram import guard_lines
from models.kernel.diagram import locate
from models.kernel.diagram import marks
from models.kernel.diagram import overlay
from models.kernel.diagram import picture
from models.kernel.diagram import pictures
from models.kernel.diagram import render
from models.kernel.diagram import split
from models.kernel.diagram import state_id
from models.kernel.diagram import trace_marks
from models.kernel.diagram import write
from models.kernel.explore import explore
from models.kernel.layout import Layout

GOLDEN = Path(__file__).parent / "pictures"
IDLE, RUN = Device.IDLE, Device.RUN
ARMED = var("armed")
SAYS = 'say "hi" \\ bye'  # a value to escape in a label
LEVEL = Finite("Level", (1, 2), namer=lambda v: f"L{v}")
TOGGLE = ite(eq(var("level"), 1), 1, 2)  # an update that reads in the spec's labels
Clusters = tuple[tuple[str, tuple[enum.Enum, ...]], ...]


def _golden(name: str) -> str:
    return (GOLDEN / f"{name}.dot").read_text()


def _finding(id_: str, verdict: str, expected: str = "hold") -> Finding:
    return Finding(id_, "always" if verdict != "witnessed" else "sometimes", verdict, expected)


# Twenty checks, more than are listed one a line: the system's own, and the ones each
# component's spec brings (`ctl-…`, `dev-…`), some holding, some not.
PLANT_FINDINGS = [
    _finding("no-deadlock", "proved"),
    _finding("lit-once", "witnessed"),
    *(_finding(f"ctl-safe-{k}", "proved") for k in range(5)),
    *(_finding(f"dev-safe-{k}", "proved") for k in range(4)),
    _finding("dev-reach", "witnessed"),
    _finding("dev-slow", "unknown"),
    _finding("dev-stuck", "unknown"),
    _finding("ctl-broken", "violated", "violate"),
    _finding("lost-start", "violated", "violate"),
    *(_finding(f"a-check-with-a-long-name-{k}", "unknown") for k in range(3)),
    _finding("dev-bad", "violated"),
    _finding("ctl-odd", "unknown"),
    _finding("lamp-late", "unknown"),
]


def test_a_system_with_a_lossy_channel_and_many_checks_is_drawn_exactly() -> None:
    """Each component in its box, each channel a node with its arrows in and out and its
    fault looping on it; the checks that hold counted by whose they are, the rest grouped
    by verdict, a component's inherited ones collapsed into one entry."""
    (pic,) = pictures(SYSTEM, PLANT_FINDINGS)
    assert dot_source(pic) == _golden("plant")
    # Sixteen are listed one a line, each by its name.
    (few,) = pictures(SYSTEM, PLANT_FINDINGS[:16])
    dot = dot_source(few)
    assert [f.id for f in PLANT_FINDINGS[:16] if f'<TD ALIGN="LEFT">{f.id}</TD>' in dot] == [
        f.id for f in PLANT_FINDINGS[:16]
    ]


def test_a_components_own_layout_is_left_out_and_its_receiver_starts_where_the_system_does() -> (
    None
):
    """A device that also wakes by itself (the system's first step, before the switch's):
    the channel's arrow still enters the device's initial state. The device's own picture
    has footnotes, a box and outcome arms; as a component it is drawn plain. Two faults
    loop on the lane as one arrow."""
    wakes = replace(
        DEV,
        triggers=(Trigger("wake", group="itself"), *DEV.triggers),
        rows=(row("wake", "wake", IDLE, RUN, emits={"light": some(Light.ON)}, cite="t"), *DEV.rows),
        layout=Layout(footnotes=True, clusters=(("asleep", (IDLE,)),), arms=("light", RUN)),
    )
    lane = link(capacity=2, faults=("duplication", "reordering"))
    pair = compose("pair", {"dev": wakes, "ctl": CTL}, [lane], source="t")
    (pic,) = pictures(pair)
    # The device's steps of its own group and of none are told apart by decider.
    assert [(a.id, a.src, a.dst, a.rows, a.decider, a.tooltip) for a in pic.arrows] == [
        ("dev__e0", "dev__s_IDLE", "dev__s_RUN", ("wake",), "dev: itself", "wake: t"),
        ("dev__e1", "dev__s_IDLE", "dev__s_RUN", ("run",), "dev", "run: t"),
        ("dev__e2", "dev__s_RUN", "dev__s_IDLE", ("halt",), "dev", "halt: t"),
        ("ctl__e0", "ctl__s_OFF", "ctl__s_ON", ("on",), "ctl", "on: t"),
        ("ctl__e1", "ctl__s_ON", "ctl__s_OFF", ("off",), "ctl", "off: t"),
        ("c0", "ctl__s_OFF", "ch_link", ("link",), "channel", "link: t"),
        ("c1", "ch_link", "dev__s_IDLE", ("link",), "channel", "link: t"),
        ("f0", "ch_link", "ch_link", ("link",), "fault", "link: t"),
    ]
    assert not pic.footnotes
    assert dot_source(pic) == _golden("pair")


class Knob(enum.Enum):
    LOW = "low"
    HIGH = "high"


def test_a_channel_of_numbers_names_each_message_by_its_value() -> None:
    knob = Spec(
        name="knob",
        source="t",
        control="k",
        vars=(Var("k", Finite.of_enum(Knob), Knob.LOW),),
        triggers=(Trigger("turn"),),
        outputs=(Output("level", Option(IntRange(1, 2)), None),),
        rows=(
            row("up", "turn", Knob.LOW, Knob.HIGH, emits={"level": some(2)}, cite="t"),
            row("down", "turn", Knob.HIGH, Knob.LOW, emits={"level": some(1)}, cite="t"),
        ),
    )
    wire = channel("wire", ("knob", "level"), "lamp", {2: "on", 1: "off"}, cite="t")
    (pic,) = pictures(compose("dimmer", {"knob": knob, "lamp": LAMP}, [wire], source="t"))
    assert [(a.src, a.dst, a.lines) for a in pic.arrows if a.decider == "channel"] == [
        ("knob__s_LOW", "ch_wire", ("2, 1",)),
        ("ch_wire", "lamp__s_DARK", ("2: on, 1: off",)),
    ]


class Old(enum.Enum):
    OFF = "off"
    ON = "on"
    SPARE = "spare"


class New(enum.Enum):
    OFF = "off"
    ON = "on"
    BROKEN = "broken"


def _lamp(states: type[enum.Enum], rows: tuple[Row, ...], clusters: Clusters) -> Spec:
    """A footnoted lamp: `switch` turns it on and off, `kick` (the environment's) more."""
    return Spec(
        name="lamp",
        source="tests/test_diagram_pictures.py",
        control="state",
        vars=(Var("state", Finite.of_enum(states), states["OFF"]),),
        triggers=(Trigger("switch"), Trigger("tap"), Trigger("kick", group="env")),
        rows=(
            row("switch_on", "switch", states["OFF"], states["ON"], cite="t"),
            row("switch_off", "switch", states["ON"], states["OFF"], cite="t"),
            *rows,
        ),
        layout=Layout(footnotes=True, clusters=clusters),
    )


# BASE: `tap` turns the lamp on too (one arrow with `switch_on`), `kick` leaves any state
# for SPARE. HEAD: no `tap`, no SPARE; `kick` breaks the lamp when it is off.
BASE = _lamp(
    Old,
    (
        row("tap_on", "tap", Old.OFF, Old.ON, cite="t"),
        row("kick", "kick", None, Old.SPARE, cite="t"),
    ),
    (("lit", (Old.ON,)), ("spare", (Old.SPARE,))),
)
HEAD = _lamp(New, (row("kick", "kick", New.OFF, New.BROKEN, cite="t"),), (("lit", (New.ON,)),))


def test_compare_strikes_a_removed_rows_footnote_and_keeps_the_lost_state_in_its_box() -> None:
    # The base picture with a trace over it: what `compare` draws again is not on the trace.
    path = [("init", "OFF"), ("tap_on", "ON"), ("switch_off", "OFF")]
    base = overlay(picture(BASE), marks(BASE, [(r, {"state": c}, {}) for r, c in path]), "t")
    # HEAD keeps BASE's footnote numbers, as a variant's picture beside its base does.
    (head,) = pictures(HEAD, numbering=footnote_numbers(base))
    out = compare(base, head, {"switch_off"})
    assert [(a.id, a.src, a.dst, a.rows, a.lines, a.marks, a.change) for a in out.arrows] == [
        ("e0", "s_OFF", "s_ON", ("switch_on",), ("switch (1)",), (), ""),
        ("e1", "s_ON", "s_OFF", ("switch_off",), ("switch (2)",), (), "changed"),
        ("e2", "s_OFF", "s_BROKEN", ("kick",), ("kick (4)",), (), "added"),
        # Of an arrow of two rows, the one gone is drawn again, named.
        ("removed0", "s_OFF", "s_ON", ("tap_on",), ("tap_on",), (), "removed"),
        ("removed2", "any_state", "s_SPARE", ("kick",), ("kick (4)",), (), "removed"),
    ]
    # A state HEAD lacks is drawn again, lost, in its old box (and the "any state" node).
    assert [(n.id, n.cluster, n.greyed, n.change) for n in out.nodes] == [
        ("s_OFF", "", False, ""),
        ("s_ON", "cluster_0", False, ""),
        ("s_BROKEN", "", False, "gained"),
        ("s_SPARE", "cluster_1", True, "lost"),
        ("any_state", "", True, "lost"),
    ]
    assert out.clusters == [("cluster_0", "lit"), ("cluster_1", "spare")]
    # `tap_on` is gone: its footnote stays, struck, under its old number; `kick` is still
    # drawn, so its footnote is HEAD's.
    assert out.footnotes == [
        (1, "switch_on", ["switch_on: OFF → ON"]),
        (2, "switch_off", ["switch_off: ON → OFF"]),
        (3, "tap_on", ["t̶a̶p̶_̶o̶n̶:̶ ̶O̶F̶F̶ ̶→̶ ̶O̶N̶"]),
        (4, "kick", ["kick: OFF → BROKEN"]),
    ]
    assert dot_source(out) == _golden("lamp-compare")
    # A removed row's footnote with no lines reads "removed", struck.
    bare = replace(base, footnotes=[(n, r, []) for n, r, _ in base.footnotes])
    assert compare(bare, head).footnotes[2] == (3, "tap_on", ["r̶e̶m̶o̶v̶e̶d̶"])


def test_a_systems_graph_is_read_as_each_components_own() -> None:
    """Each component's share: its states each once at its shallowest depth, an edge per
    component row a system step fires (each once), with the component's outputs; and each
    system row that fires with the source of its first edge."""
    assert SYSTEM.system is not None
    survey = _Survey.of(SYSTEM.system, explore(SYSTEM))
    shares = {
        name: (
            s.names,
            s.states,
            s.depth,
            [(e.source, e.row, e.trigger, e.params, e.target, e.outputs) for e in s.edges],
        )
        for name, s in survey.shares.items()
    }
    assert shares == {
        "ctl": (
            ("s",),
            [(Switch.OFF,), (Switch.ON,)],
            [0, 1],
            [
                (0, "on", "press", {}, 1, {"cmd": Cmd.START, "step": "press"}),
                (1, "off", "press", {}, 0, {"cmd": Cmd.STOP, "step": "press"}),
            ],
        ),
        "dev": (
            ("d",),
            [(Device.IDLE,), (Device.RUN,)],
            [0, 2],
            [
                (0, "run", "start", {}, 1, {"light": Light.ON, "step": "start"}),
                (1, "halt", "stop", {}, 0, {"light": Light.OFF, "step": "stop"}),
                (0, "halted", "stop", {}, 0, {"light": None, "step": None}),
                (1, "running", "start", {}, 1, {"light": None, "step": None}),
            ],
        ),
        "lamp": (
            ("l",),
            [(Lamp.DARK,), (Lamp.LIT,)],
            [0, 2],
            [(0, "light", "on", {}, 1, {"step": "on"}), (1, "dark", "off", {}, 0, {"step": "off"})],
        ),
    }
    assert survey.first == [
        ("ctl_on", 0),
        ("link_deliver_START__dev_run__lamp_light", 1),
        ("link_lose", 1),
        ("ctl_off", 2),
        ("link_deliver_STOP__dev_halt__lamp_dark", 4),
        ("link_deliver_STOP__dev_halted", 5),
        ("link_deliver_START__dev_running", 7),
    ]


class Phase(enum.Enum):
    IDLE = "idle"
    WORK = "work"
    WAIT = "wait"
    DONE = "done"
    SPARE = "spare"
    LIMBO = "limbo"
    HOLD = "hold"
    AFTER = "after"


class Note(enum.Enum):
    NONE = "none"
    ABC = "abc"


class Outcome(enum.Enum):
    NONE = "none"
    OK = "ok"
    FAIL = "fail"
    LOST = "lost"
    ODD = "odd"


def _job(**layout: object) -> Spec:
    """A job that settles in DONE, drawn once per outcome (`arms`) and per box it settles
    from (HOLD is in none; nothing settles from LIMBO's). SPARE and LIMBO are never
    reached and `odd` never fires (`armed` stays false), so those rows are drawn greyed
    where they would go: into an arm, or from every state for `bail`."""
    p, o = Phase, Outcome
    return Spec(
        name="job",
        source="tests/test_diagram_pictures.py",
        control="phase",
        vars=(
            Var("phase", Finite.of_enum(p), p.IDLE),
            # With "armed: ", the note is 61 characters: one more than a line of the side's.
            Var(
                "armed", Bool(), False, doc="never set by a row here.  The rows it guards never run"
            ),
            Var("level", LEVEL, 1, doc="fixed"),
        ),
        triggers=(
            Trigger("go", group="user"),
            Trigger("tick", group="time"),
            Trigger("end", group="worker"),
            Trigger("panic", group="user"),
            Trigger("abort", group="user"),
            Trigger("poll", group="time"),
        ),
        outputs=(
            Output("result", Finite.of_enum(o), o.NONE),
            Output("note", Finite.of_enum(Note), Note.NONE),
            Output("says", Finite("Says", ("", SAYS)), ""),
        ),
        rows=(
            row("start", "go", p.IDLE, p.WORK, emits={"says": SAYS}, cite="t"),
            row("park", "tick", p.IDLE, p.HOLD, cite="t"),
            row("unpark", "end", p.HOLD, p.DONE, emits={"result": o.OK}, cite="t"),
            row(
                "odd",
                "end",
                p.HOLD,
                p.DONE,
                guard=eq(ARMED, True),
                emits={"result": o.ODD},
                cite="t",
            ),
            # From the arms' state (a note) and from AFTER, first reached after it.
            row("again", "go", (p.DONE, p.AFTER), p.IDLE, cite="t"),
            row("archive", "end", p.DONE, p.AFTER, cite="t"),
            row("pause", "tick", p.WORK, p.WAIT, cite="t"),
            row("resume", "tick", p.WAIT, p.WORK, sets={"level": TOGGLE}, cite="t"),
            row(
                "linger",
                "tick",
                p.DONE,
                guard=and_(eq(ARMED, False), eq(var("level"), 1)),
                sets={"level": TOGGLE},
                cite="t",
            ),
            row("finish", "end", p.WORK, p.DONE, emits={"result": o.OK}, cite="t"),
            row(
                "give_up",
                "end",
                p.WAIT,
                p.DONE,
                guard=and_(eq(ARMED, False), eq(var("level"), 1)),
                emits={"result": o.FAIL},
                cite="t",
            ),
            row(
                "drop",
                "panic",
                p.WAIT,
                p.DONE,
                emits={"result": o.LOST, "note": Note.ABC},
                cite="t",
            ),
            row("salvage", "end", p.SPARE, p.DONE, emits={"result": o.LOST}, cite="t"),
            row("stray", "end", p.LIMBO, p.DONE, emits={"result": o.ODD}, cite="t"),
            # Its result does not make SPARE an arm: it is drawn into SPARE.
            row(
                "bail",
                "panic",
                None,
                p.SPARE,
                guard=eq(ARMED, True),
                emits={"result": o.FAIL},
                cite="t",
            ),
            row("abort", "abort", None, p.IDLE, cite="t"),
            row(
                "poll",
                "poll",
                others(p.DONE),  # settled, it is not polled
                guard=and_(eq(ARMED, False), eq(var("level"), 1)),
                cite="t",
            ),
        ),
        layout=Layout(
            clusters=(
                ("front", (p.IDLE, p.WORK)),
                ("back", (p.WAIT, p.SPARE)),
                ("limbo", (p.LIMBO,)),
            ),
            arms=("result", p.DONE),
            updates=("level",),
            **layout,  # type: ignore[arg-type]
        ),
    )


def test_a_job_settles_in_arms_per_box_and_its_rows_that_never_fire_are_drawn_greyed() -> None:
    pic = picture(_job(footnotes=True))
    assert [(a.src, a.dst, a.rows, a.greyed) for a in pic.arrows] == [
        ("s_IDLE", "s_WORK", ("start",), False),
        ("s_IDLE", "s_HOLD", ("park",), False),
        ("s_HOLD", "a_DONE__OK", ("unpark",), False),
        # Into the arm its constant names, in the box its source settles from (none here).
        ("s_HOLD", "a_DONE__ODD", ("odd",), True),
        # `again` from DONE is a note; the rest of it, after, is drawn.
        ("s_AFTER", "s_IDLE", ("again",), False),
        ("s_WORK", "s_WAIT", ("pause",), False),
        ("s_WAIT", "s_WORK", ("resume",), False),
        ("s_WORK", "a_DONE__OK__cluster_0", ("finish",), False),
        ("s_WAIT", "a_DONE__FAIL__cluster_1", ("give_up",), False),
        ("s_WAIT", "a_DONE__LOST__cluster_1", ("drop",), False),
        ("s_SPARE", "a_DONE__LOST__cluster_1", ("salvage",), True),
        # From every state but the arms' (whose rows start nowhere), those after it too.
        ("s_IDLE", "s_SPARE", ("bail",), True),
        ("s_WORK", "s_SPARE", ("bail",), True),
        ("s_WAIT", "s_SPARE", ("bail",), True),
        ("s_SPARE", "s_SPARE", ("bail",), True),
        ("s_LIMBO", "s_SPARE", ("bail",), True),
        ("s_HOLD", "s_SPARE", ("bail",), True),
        ("s_AFTER", "s_SPARE", ("bail",), True),
        ("any_state", "s_IDLE", ("abort",), False),
    ]
    # An arm per box it is entered from; OK also from HOLD, in no box, with ODD, never
    # reached; no box of arms for LIMBO's, from which nothing settles.
    assert pic.clusters[3:] == [
        ("cluster_arms_cluster_0", "DONE from the front"),
        ("cluster_arms_cluster_1", "DONE from the back"),
        ("cluster_arms", "DONE, by result"),
    ]
    assert [(n.id, n.greyed) for n in pic.nodes if n.kind == "arm"] == [
        ("a_DONE__OK__cluster_0", False),
        ("a_DONE__FAIL__cluster_1", False),
        ("a_DONE__LOST__cluster_1", False),
        ("a_DONE__OK", False),
        ("a_DONE__ODD", True),
    ]
    assert dot_source(pic) == _golden("job")


def test_a_trace_over_the_job_settles_lingers_and_loops_back() -> None:
    """Each step lights its arrow, numbered; a step folded into a note (from the arms
    state) is drawn for the trace, from the arm it settled in; the lasso's loop is dashed
    and its last arrow says where it goes back to."""
    spec = _job(footnotes=True)
    steps = [
        ("init", "IDLE", ""),
        ("start", "WORK", ""),
        ("pause", "WAIT", ""),
        ("drop", "DONE", "LOST"),
        ("linger", "DONE", ""),
        ("again", "IDLE", ""),
    ]
    path = marks(spec, [(r, {"phase": c}, {"result": o} if o else {}) for r, c, o in steps])
    pic = picture(spec)
    assert locate(pic, path) == [
        ("", "s_IDLE", None),
        ("s_IDLE", "s_WORK", "e0"),
        ("s_WORK", "s_WAIT", "e5"),
        ("s_WAIT", "a_DONE__LOST__cluster_1", "e9"),
        # Still settled: the arm it settled in; its rows from there are notes.
        ("a_DONE__LOST__cluster_1", "a_DONE__LOST__cluster_1", "a_note2"),
        ("a_DONE__LOST__cluster_1", "s_IDLE", "a_note0"),
    ]
    shown = overlay(pic, path, "a lasso", loop=0)
    assert dot_source(shown) == _golden("job-trace")
    # A footnote without lines (one given by hand) reads "-".
    bare = dot_source(replace(shown, footnotes=[(1, "start", [])]))
    assert 'TITLE="start">-<BR ALIGN="LEFT"/></TD></TR></TABLE>>' in bare
    # Top to bottom, the text is one panel over the graph, the trace's steps in it.
    tall = overlay(picture(_job(footnotes=True, rankdir="TB")), path, "a lasso", loop=0)
    assert dot_source(tall) == _golden("job-trace-tb")


def test_top_to_bottom_the_side_tables_are_cut_into_short_ones_chained_down() -> None:
    checks = [Finding(f"check-{k}", "always", "proved") for k in range(12)]
    # The variables in the notes; a value's quote and backslash escaped in its edge's label.
    tb = picture(_job(rankdir="TB", variables=True), findings=checks)
    assert dot_source(tb) == _golden("job-tb")


def test_a_step_into_an_arm_not_drawn_from_its_box_is_located_at_the_arm_drawn() -> None:
    pic = picture(_job())
    steps = [("init", "IDLE", ""), ("stray", "DONE", "ODD"), ("finish", "DONE", "OK")]
    path = marks(_job(), [(r, {"phase": c}, {"result": o} if o else {}) for r, c, o in steps])
    # ODD is drawn once, never reached, outside the front's box; a step on from an arm
    # stays in it.
    assert locate(pic, path) == [
        ("", "s_IDLE", None),
        ("s_IDLE", "a_DONE__ODD", None),
        ("a_DONE__ODD", "a_DONE__ODD", None),
    ]


def test_an_arms_box_is_titled_never_reached_only_beside_other_boxes() -> None:
    """In a view where `armed` holds, the explorer reaches nothing: every arm is never
    reached. Alone, its box is titled by the output; beside one box or more, so."""
    titles = {}
    for k in (0, 1, 3):
        spec = _job()
        clusters = spec.layout.clusters[:k]
        armed = replace(spec, views={"armed": eq(ARMED, True)})
        pic = picture(replace(armed, layout=replace(spec.layout, clusters=clusters)), "armed")
        titles[k] = [t for c, t in pic.clusters if c.startswith("cluster_arms")]
    assert titles == {
        0: ["DONE, by result"],
        1: ["DONE, never reached"],
        3: ["DONE, never reached"],
    }


def test_write_puts_the_text_or_the_bytes_whole(tmp_path: Path) -> None:
    write(tmp_path / "job.dot", "digraph job {}\n")
    write(tmp_path / "job.svg", b"<svg/>")
    assert (tmp_path / "job.dot").read_text() == "digraph job {}\n"
    assert (tmp_path / "job.svg").read_bytes() == b"<svg/>"


def test_under_a_view_a_guard_drops_what_the_view_says_and_reads_in_the_specs_labels() -> None:
    spec = replace(_job(), views={"calm": eq(ARMED, False)})
    drawn = picture(spec, "calm")
    assert [a.lines for a in drawn.arrows if "give_up" in a.rows] == [
        ("end [level = L1]", "/ result=FAIL")
    ]
    # A row folded into a note too.
    assert drawn.notes[3] == "poll [level = L1] — in every state, staying there"
    assert drawn.notes[2] == (
        "tick [level = L1]; sets level := (if level = L1 then 1 else 2) — from DONE"
    )
    # A view of two conjuncts drops each; what is left of a guard is drawn as itself.
    both = and_(eq(ARMED, False), ne(var("level"), 2))
    either = and_(eq(ARMED, False), or_(eq(var("level"), 1), eq(var("level"), 2)))
    rows = tuple(replace(r, guard=either) if r.name == "give_up" else r for r in spec.rows)
    pic = picture(replace(spec, rows=rows, views={"both": both}), "both")
    assert [a.lines for a in pic.arrows if "give_up" in a.rows] == [
        ("end [level = L1 ∨ level = L2]", "/ result=FAIL")
    ]
    footnoted = replace(spec, layout=replace(spec.layout, footnotes=True))
    assert [f for f in picture(footnoted, "calm").footnotes if f[1] == "give_up"] == [
        (9, "give_up", ["give_up: WAIT → DONE/FAIL", "[level = L1] / result=FAIL"])
    ]


class Why(enum.Enum):
    NONE = "none"
    FITS = "fits"
    TOO_BIG = "too big"


def test_a_trace_over_a_decision_table_marks_the_rows_it_takes() -> None:
    """A spec without a control variable is drawn as its table, first match first; a
    trace marks each row it takes with its steps (an ignore row, not in the table, none)."""
    size, height = param("size"), param("height")
    gate = Spec(
        name="gate",
        source="tests/test_diagram_pictures.py",
        vars=(),
        triggers=(
            Trigger("ask", (Param("size", IntRange(0, 3)), Param("height", IntRange(0, 3)))),
            Trigger("knock", (Param("level", LEVEL),)),
        ),
        outputs=(Output("ok", Bool(), False), Output("why", Finite.of_enum(Why), Why.NONE)),
        rows=(
            ignore("nothing", "ask", None, guard=and_(le(size, 0), le(height, 0)), cite="t"),
            row(
                "small",
                "ask",
                None,
                guard=and_(le(size, 1), le(height, 2), ne(size, height), ge(height, 0)),
                emits={"ok": True, "why": Why.FITS},
                cite="a <b> & c",
            ),
            row("big", "ask", None, emits={"why": Why.TOO_BIG}, cite="t"),
            row("low", "knock", None, guard=eq(param("level"), 1), cite="t"),
        ),
    )
    steps = ["init", "big", "small", "nothing", "big"]
    path = marks(gate, [(r, {}, {}) for r in steps])
    assert locate(picture(gate), path) == [
        ("", "", None),
        ("", "", "a_t_big"),
        ("", "", "a_t_small"),
        ("", "", None),
        ("", "", "a_t_big"),
    ]
    shown = overlay(picture(gate), path, "four asks")
    assert [(d.row, d.when, d.answers, d.marks) for d in shown.table] == [
        (
            "small",
            ("?size ≤ 1 ∧ ?height ≤ 2 ∧ ?size ≠ ?height", "∧ ?height ≥ 0"),
            "ok=true, why=FITS",
            (2,),
        ),
        ("big", ("true",), "why=TOO_BIG", (1, 4)),
        # The parameter's value by its domain's label; no answer but the defaults.
        ("low", ("?level = L1",), "-", ()),
    ]
    assert dot_source(shown) == _golden("gate-trace")


def test_render_draws_svg_unless_told_and_names_the_fix_when_dot_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    svg = render("digraph a { x }")
    assert svg.startswith(b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE svg')
    assert render("digraph a { x }", "plain").startswith(b"graph 1 ")

    def missing(*args: object) -> bytes:
        raise graphviz.ExecutableNotFound(["dot"])

    monkeypatch.setattr(graphviz, "pipe", missing)
    with pytest.raises(DotMissing) as raised:
        render("digraph a { x }")
    assert str(raised.value) == (
        "graphviz's `dot` is not installed: run `apt-get install graphviz` "
        "(or your system's equivalent), or `make diagrams`, which installs it"
    )


class Far(enum.Enum):
    AAAAAAAAA = "a"
    CCCCCCCCC = "c"
    BBBBBBBBB = "b"


def test_a_footnote_too_wide_for_its_rows_first_edge_lists_the_edges_under_it() -> None:
    """Its edges are wrapped two narrower than a footnote, under the row's name: two of
    21 characters fit one line of 44 exactly."""
    a, c, b = Far
    name = "a_row_with_a_long_enough_name"
    spec = Spec(
        name="far",
        source="t",
        control="at",
        vars=(Var("at", Finite.of_enum(Far), a),),
        triggers=(Trigger("hop"), Trigger("jump")),
        rows=(row("hop", "hop", a, c, cite="t"), row(name, "jump", (a, c), b, cite="t")),
        layout=Layout(footnotes=True),
    )
    assert picture(spec).footnotes[1] == (
        2,
        name,
        [f"{name}:", "  AAAAAAAAA → BBBBBBBBB, CCCCCCCCC → BBBBBBBBB"],
    )


def test_a_job_split_in_halves_keeps_each_halfs_boxes_and_its_share_of_the_trace() -> None:
    spec = _job(footnotes=True, split=("front", "back"))
    steps = [("init", "IDLE", ""), ("start", "WORK", ""), ("finish", "DONE", "OK")]
    path = marks(spec, [(r, {"phase": c}, {"result": o} if o else {}) for r, c, o in steps])
    parts = split(spec, overlay(picture(spec), path, "t"))
    assert [(p.name, p.title, p.clusters, p.path_nodes) for p in parts] == [
        (
            "job-front",
            "job: the front",
            [
                ("cluster_0", "front"),
                ("cluster_1", "back"),
                ("cluster_arms_cluster_0", "DONE from the front"),
            ],
            ("s_IDLE", "s_WORK", "a_DONE__OK__cluster_0"),
        ),
        (
            "job-back",
            "job: the back",
            [
                ("cluster_0", "front"),
                ("cluster_1", "back"),
                ("cluster_2", "limbo"),
                ("cluster_arms_cluster_1", "DONE from the back"),
                ("cluster_arms", "DONE, by result"),
            ],
            # The trace's states the back half draws: the ends of arrows into it.
            ("s_IDLE", "s_WORK"),
        ),
    ]


def test_an_overlay_leaves_the_picture_under_it_as_it_was() -> None:
    """A trace (given by hand) that first takes a step folded into a note draws that step
    on the overlay only; a trace of no step lights its initial state."""
    spec = _job()
    pic = picture(spec)
    arrows = list(pic.arrows)
    settled = [("init", "DONE", "OK"), ("linger", "DONE", "")]
    path = marks(spec, [(r, {"phase": c}, {"result": o} if o else {}) for r, c, o in settled])
    shown = overlay(pic, path, "t")
    assert [(a.id, a.src, a.dst, a.marks) for a in shown.arrows[len(arrows) :]] == [
        ("t1", "a_DONE__OK", "a_DONE__OK", (1,))
    ]
    assert pic.arrows == arrows
    assert overlay(pic, path[:1], "t").path_nodes == ("a_DONE__OK",)


def test_a_kernel_trace_reads_as_marks_by_its_labels() -> None:
    spec = _job()
    graph = explore(spec)
    finish = next(e for e in graph.iter_edges() if e.row == "finish")
    assert trace_marks(spec, graph.path_through(finish)) == [
        Mark("init", "IDLE", {}, "0. init"),
        Mark("start", "WORK", {"result": "NONE", "note": "NONE", "says": SAYS}, "1. start"),
        Mark("finish", "DONE", {"result": "OK", "note": "NONE", "says": ""}, "2. finish"),
    ]


class Door(enum.Enum):
    SHUT = "shut"
    OPEN = "open"


class Bell(enum.Enum):
    NONE = "none"
    DING = "ding"
    DONG = "dong"


def _door(ding: Bell, dong: Bell, again: Expr) -> Spec:
    """A door two rows of `push` open, by a counter `n` (its rows are notes)."""
    n = var("n")
    return Spec(
        name="door",
        source="t",
        control="door",
        vars=(Var("door", Finite.of_enum(Door), Door.SHUT), Var("n", IntRange(0, 1), 0)),
        triggers=(Trigger("push"), Trigger("pull"), Trigger("count")),
        outputs=(Output("bell", Finite.of_enum(Bell), Bell.NONE),),
        rows=(
            row("up", "count", None, guard=eq(n, 0), sets={"n": 1}, cite="t"),
            row("down", "count", None, guard=eq(n, 1), sets={"n": 0}, cite="t"),
            row(
                "first",
                "push",
                Door.SHUT,
                Door.OPEN,
                guard=eq(n, 0),
                emits={"bell": ding},
                cite="t",
            ),
            row("again", "push", Door.SHUT, Door.OPEN, guard=again, emits={"bell": dong}, cite="t"),
            row("pull", "pull", Door.OPEN, Door.SHUT, cite="t"),
        ),
    )


def test_rows_of_one_trigger_on_one_arrow_share_it_by_their_guards() -> None:
    """Guarded rows of one trigger between the same states: the trigger once, each guard
    under it, and their outputs once if the same, else each under its guard. A row
    without a guard among them: each row's label in full."""
    at_one = eq(var("n"), 1)
    arrows = {
        name: picture(spec).arrows[0].lines
        for name, spec in (
            ("same", _door(Bell.DING, Bell.DING, at_one)),
            ("apart", _door(Bell.DING, Bell.DONG, at_one)),
            ("unguarded", _door(Bell.DING, Bell.DONG, TRUE)),
        )
    }
    assert arrows == {
        "same": ("push", "  [n = 0]", "  [n = 1]", "/ bell=DING"),
        "apart": ("push", "  [n = 0]", "  / bell=DING", "  [n = 1]", "  / bell=DONG"),
        "unguarded": ("push [n = 0]", "/ bell=DING", "push", "/ bell=DONG"),
    }


def test_a_guard_goes_beside_its_trigger_while_the_line_fits_the_width() -> None:
    # With " [n = 0]", the first trigger's line is 34 characters, the width; the second's 35.
    t26, t27 = "t" * 26, "u" * 27
    at_zero = eq(var("n"), 0)
    spec = Spec(
        name="knock",
        source="t",
        control="door",
        vars=(Var("door", Finite.of_enum(Door), Door.SHUT), Var("n", IntRange(0, 1), 0)),
        triggers=(Trigger(t26), Trigger(t27)),
        rows=(
            row("opens", t26, Door.SHUT, Door.OPEN, guard=at_zero, cite="t"),
            row("shuts", t27, Door.OPEN, Door.SHUT, guard=at_zero, cite="t"),
        ),
    )
    assert [a.lines for a in picture(spec).arrows] == [(f"{t26} [n = 0]",), (t27, "  [n = 0]")]


def test_a_job_that_reaches_what_a_view_of_it_did_not_gains_its_arms_bold() -> None:
    spec = _job(footnotes=True)
    before = picture(replace(spec, views={"armed": eq(ARMED, True)}), "armed")
    assert dot_source(compare(before, picture(spec))) == _golden("job-compare")


def test_an_arrow_taken_twice_is_numbered_with_both_steps() -> None:
    spec = _job()
    steps = [("init", "IDLE"), ("start", "WORK"), ("pause", "WAIT"), ("resume", "WORK")]
    path = marks(spec, [(r, {"phase": c}, {}) for r, c in [*steps, ("pause", "WAIT")]])
    dot = dot_source(overlay(picture(spec), path, "t"))
    assert [line for line in dot.splitlines() if "s_WORK -> s_WAIT" in line] == [
        '\ts_WORK -> s_WAIT [label="#2,4 tick\\l" class="edge-time path" color="#B3123A" '
        'fontcolor="#B3123A" id=e5 penwidth=2.5 style=solid tooltip="pause: t"]'
    ]


def test_a_removed_arrow_of_two_lines_is_struck_line_by_line() -> None:
    spec = _job()
    after = replace(spec, rows=tuple(r for r in spec.rows if r.name != "drop"))
    dot = dot_source(compare(picture(spec), picture(after)))
    # Without `drop`, LOST is not reached from the back: `salvage`'s greyed arrow goes too.
    assert [line for line in dot.splitlines() if "removed" in line and " -> " in line] == [
        '\ts_WAIT -> a_DONE__LOST__cluster_1 [label="− removed\\lp̶a̶n̶i̶c̶\\l'
        '/̶ ̶r̶e̶s̶u̶l̶t̶=̶L̶O̶S̶T̶,̶ ̶n̶o̶t̶e̶=̶A̶B̶C̶\\l" class="edge-user removed" color="#6E6E6E" '
        'fontcolor="#6E6E6E" id=removed9 penwidth=2 style=dotted tooltip="removed: drop: t"]',
        '\ts_SPARE -> a_DONE__LOST__cluster_1 [label="− removed\\le̶n̶d̶\\l/̶ ̶r̶e̶s̶u̶l̶t̶=̶L̶O̶S̶T̶\\l" '
        'class="unreachable removed" color="#6E6E6E" fontcolor="#6E6E6E" id=removed10 '
        'penwidth=2 style=dotted tooltip="removed: salvage: t (never fires here)"]',
    ]


def test_a_guard_is_broken_where_it_outgrows_its_width_and_not_before() -> None:
    spec = _job()
    member = is_in(var("phase"), Phase.IDLE, Phase.WORK, Phase.WAIT)
    assert guard_lines(spec, member, 26) == ("phase ∈ {IDLE, WORK, WAIT}",)
    assert guard_lines(spec, member, 25) == ("phase ∈ {IDLE, WORK,", "         WAIT}")
    # A part still too long is broken the same way, inside, in the spec's labels.
    level = var("level")
    nested = and_(eq(ARMED, False), not_(or_(eq(level, 1), eq(level, 2))))
    assert guard_lines(spec, nested, 20) == ("armed = false", "∧ ¬(level = L1", "  ∨ level = L2)")
    # Inside, two narrower: "level = L1 ∨ level = L2" fits 23 exactly.
    assert guard_lines(spec, nested, 25) == ("armed = false", "∧ ¬(level = L1 ∨ level = L2)")
    # A set's members take at least 12 characters a line ("SPARE, AFTER}" is 13).
    spare = is_in(var("phase"), Phase.SPARE, Phase.AFTER)
    assert guard_lines(spec, spare, 20) == ("phase ∈ {SPARE,", "         AFTER}")


def test_a_labels_id_keeps_its_letters_and_digits_only() -> None:
    assert [state_id(label) for label in ("(X)", "∅", "a b-c")] == ["s_X", "s_x", "s_a_b_c"]


def test_an_edges_guard_is_broken_beyond_its_width_and_not_before() -> None:
    # With "w = " and " ∧ n = 0", the first guard is 30 characters, the width; the second 32.
    short, long = "s" * 18, "l" * 20
    w, n = var("w"), var("n")
    spec = Spec(
        name="say",
        source="t",
        control="door",
        vars=(
            Var("door", Finite.of_enum(Door), Door.SHUT),
            Var("n", IntRange(0, 1), 0),
            Var("w", Finite("Word", (short, long)), short),
        ),
        triggers=(Trigger("a"), Trigger("b")),
        rows=(
            row("opens", "a", Door.SHUT, Door.OPEN, guard=and_(eq(w, short), eq(n, 0)), cite="t"),
            row("shuts", "b", Door.OPEN, Door.SHUT, guard=and_(eq(w, long), eq(n, 0)), cite="t"),
        ),
    )
    assert [a.lines for a in picture(spec).arrows] == [
        (f"a [w = {short} ∧ n = 0]",),
        (f"b [w = {long}", "  ∧ n = 0]"),
    ]


def test_beside_a_table_of_sixteen_rows_seventeen_checks_are_listed_one_a_line() -> None:
    size = param("size")
    table = Spec(
        name="sizes",
        source="t",
        vars=(),
        triggers=(Trigger("ask", (Param("size", IntRange(0, 15)),)),),
        rows=tuple(row(f"is_{k}", "ask", None, guard=eq(size, k), cite="t") for k in range(16)),
    )
    checks = [Finding(f"check-{k}", "always", "proved") for k in range(17)]
    dot = dot_source(picture(table, findings=checks))
    assert [f.id for f in checks if f'<TD ALIGN="LEFT">{f.id}</TD>' in dot] == [
        f.id for f in checks
    ]


def test_a_variants_picture_is_named_for_a_file() -> None:
    variant = replace(_job(), name="job:late", views={"calm": eq(ARMED, False)})
    assert picture(variant, "calm").name == "job--late-calm"


def test_an_edge_draws_the_outputs_its_layout_names_in_the_specs_labels() -> None:
    dial = Spec(
        name="dial",
        source="t",
        control="door",
        vars=(Var("door", Finite.of_enum(Door), Door.SHUT), Var("level", LEVEL, 1)),
        triggers=(Trigger("turn"),),
        outputs=(Output("bell", Finite.of_enum(Bell), Bell.NONE), Output("echo", LEVEL, 1)),
        rows=(
            row(
                "turn",
                "turn",
                Door.SHUT,
                Door.OPEN,
                emits={"bell": Bell.DING, "echo": TOGGLE},
                cite="t",
            ),
        ),
        layout=Layout(edge_outputs=("echo",)),
    )
    assert picture(dial).arrows[0].lines == ("turn", "/ echo=(if level = L1 then 1 else 2)")
