"""The geometry of a message-sequence chart drawn as SVG (models/kernel/sequence.py).

Each test parses the SVG of a small chart and checks where things stand, from the
module's constants (SIZE, LINE, CHAR, MARGIN, GUTTER, HEAD, BOX):

- the lifelines in their order, one column apart, the column sized by the widest
  head or state text between a floor and a cap;
- each arrow from its sender's lifeline to its receiver's (short of it by the
  arrowhead; three quarters of the way when the message is lost), a step of a
  party's own a loop on its lifeline; the rows going down in step order, a step's
  number once, faults on a red band, long labels wrapped to the room they have;
- the state boxes, the ending, the markers, the escaping of every text;
- the width, height and viewBox holding every element, wide texts on the last
  lifeline and a long title included.
"""

from __future__ import annotations

import enum
import math
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping

import pytest
from systems import SYSTEM
from systems import trace_of

from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel.compose import channel
from models.kernel.compose import compose
from models.kernel.domains import Value
from models.kernel.explore import explore
from models.kernel.sequence import BOX
from models.kernel.sequence import CHAR
from models.kernel.sequence import FAULT
from models.kernel.sequence import FONT
from models.kernel.sequence import GREY
from models.kernel.sequence import GUTTER
from models.kernel.sequence import HEAD
from models.kernel.sequence import INK
from models.kernel.sequence import LINE
from models.kernel.sequence import MARGIN
from models.kernel.sequence import SIZE
from models.kernel.sequence import Chart
from models.kernel.sequence import Event
from models.kernel.sequence import Lifeline
from models.kernel.sequence import _message
from models.kernel.sequence import _same
from models.kernel.sequence import chart
from models.kernel.sequence import sequence_svg
from models.kernel.trace import Trace

NS = "{http://www.w3.org/2000/svg}"
FLOOR, CAP = 150.0, 320.0  # a column's narrowest and widest
LOSS = ("ctl_on", "link_deliver_START__dev_run__lamp_light", "ctl_off", "link_lose")


def _px(v: float) -> str:
    return f"{v:.1f}"


def _svg(c: Chart, prefix: str | None = None) -> ET.Element:
    """The chart's SVG, parsed; it holds nothing but its elements (no stray text)."""
    root = ET.fromstring(sequence_svg(c) if prefix is None else sequence_svg(c, prefix))
    for e in root.iter():
        assert not (e.tail or "").strip(), e.tail
        if e.tag not in (f"{NS}text", f"{NS}title"):
            assert not (e.text or "").strip(), e.text
    return root


def _body(root: ET.Element) -> list[ET.Element]:
    """The elements after the title, the markers, the background, the title's text and the
    lifelines' dashed lines: the heads, then the rows in order."""
    n = sum(1 for e in root if e.tag == f"{NS}line" and e.get("stroke-dasharray") == "3 3")
    return list(root)[4 + n :]


def _dashes(root: ET.Element) -> list[ET.Element]:
    return [e for e in root if e.tag == f"{NS}line" and e.get("stroke-dasharray") == "3 3"]


def _text(e: ET.Element, x: float, y: float, text: str, **attrs: str) -> None:
    assert e.tag == f"{NS}text"
    want = {"x": _px(x), "y": _px(y), "text-anchor": "start", "fill": INK, **attrs}
    assert dict(e.attrib) == want
    assert (e.text or "") == text


def _rect(e: ET.Element, **attrs: str) -> None:
    assert e.tag == f"{NS}rect"
    assert dict(e.attrib) == attrs


LIFELINES = (
    Lifeline("env", "environment", "environment"),
    Lifeline("c_a", "a"),
    Lifeline("q_l", "l (FIFO of 1)", "channel"),
)
LONG = "take the message from the link, then answer the caller at once"
ENDING = (
    "fails: the message M was lost on the link and the party a never learns that it "
    "was sent, so it waits for ever"
)


def _walk_chart() -> Chart:
    return Chart(
        'walk <a & "b">',
        LIFELINES,
        (
            Event(1, "env", "c_a", "go"),
            Event(1, "c_a", "q_l", "M", states=(("c_a", "RUN"), ("q_l", "[M]"))),
            Event(2, "q_l", "c_a", "M: take"),
            Event(3, "c_a", "c_a", "tick"),
            Event(4, "q_l", "q_l", "M again", "duplicated", states=(("q_l", "[M, M]"),)),
            Event(5, "q_l", "c_a", "M", "lost", True, states=(("q_l", "[M]"),)),
            Event(6, "env", "q_l", LONG),
        ),
        initial=(("c_a", "IDLE"),),
        ending=ENDING,
    )


def test_every_element_of_a_chart_stands_where_its_meaning_puts_it() -> None:
    c = _walk_chart()
    root = _svg(c, "p-")
    column = FLOOR  # every head and state text is narrower than the floor
    x = {ln.id: MARGIN + GUTTER + column * (k + 0.5) for k, ln in enumerate(LIFELINES)}
    assert list(x.values()) == [125.0, 275.0, 425.0]
    right = MARGIN + GUTTER + column * 3
    body = iter(_body(root))

    # The heads: a box per lifeline, grey but for a component's, its label bold inside.
    y = MARGIN + 22.0  # under the title
    w = column - 16
    for ln in LIFELINES:
        fill = "#FFFFFF" if ln.kind == "component" else "#F2F2F2"
        _rect(
            next(body),
            x=_px(x[ln.id] - w / 2),
            y=_px(y),
            width=_px(w),
            height=str(HEAD),
            rx="4",
            fill=fill,
            stroke=INK,
        )
        _text(
            next(body),
            x[ln.id],
            y + HEAD / 2 + 4,
            ln.label,
            **{"text-anchor": "middle"},
            **{"font-weight": "bold"},
        )
    top = y + HEAD

    def state(lane: str, y: float, text: str) -> None:
        w = CHAR * len(text) + 16
        box = {"x": _px(x[lane] - w / 2), "y": _px(y), "width": _px(w), "height": str(BOX)}
        _rect(next(body), **box, rx="8", fill="#FFF5AD", stroke=GREY)
        _text(next(body), x[lane], y + BOX / 2 + 4, text, **{"text-anchor": "middle"})

    def number(y: float, step: int) -> None:
        _text(next(body), MARGIN + 4, y + LINE, str(step), fill=GREY)

    def arrow(y: float, src: str, end: float, marker: str, colour: str = INK) -> None:
        e = next(body)
        assert e.tag == f"{NS}line"
        dash = {"stroke-dasharray": "5 3"} if colour == FAULT else {}
        assert dict(e.attrib) == {
            "x1": _px(x[src]),
            "y1": _px(y),
            "x2": _px(end),
            "y2": _px(y),
            "stroke": colour,
            **dash,
            "marker-end": f"url(#p-{marker})",
        }

    def loop(y: float, lane: str, marker: str, colour: str = INK) -> None:
        e = next(body)
        assert e.tag == f"{NS}path"
        dash = {"stroke-dasharray": "5 3"} if colour == FAULT else {}
        assert dict(e.attrib) == {
            "d": f"M{_px(x[lane])},{_px(y)} h28 v8 h-26",
            "fill": "none",
            "stroke": colour,
            **dash,
            "marker-end": f"url(#p-{marker})",
        }

    def band(y: float, height: float) -> None:
        _rect(
            next(body),
            x=_px(MARGIN),
            y=_px(y),
            width=_px(right - MARGIN),
            height=_px(height),
            fill="#FBE9ED",
        )

    middle = {"text-anchor": "middle"}
    y = top + 10
    state("c_a", y, "IDLE")  # the initial states, under the heads
    y += BOX + 8

    # 1: env → a, rightwards: from env's lifeline to the arrowhead's length short of a's.
    number(y, 1)
    _text(next(body), (x["env"] + x["c_a"]) / 2, y + LINE - 2, "go", **middle)
    ay = y + LINE + 4
    arrow(ay, "env", x["c_a"] - 6, "head")
    y = ay + 10
    # 1 again: the same step's second arrow has no number; then both new states, one row.
    _text(next(body), (x["c_a"] + x["q_l"]) / 2, y + LINE - 2, "M", **middle)
    ay = y + LINE + 4
    arrow(ay, "c_a", x["q_l"] - 6, "head")
    y = ay + 10
    state("c_a", y, "RUN")
    state("q_l", y, "[M]")
    y += BOX + 8
    # 2: leftwards, short of a's lifeline on its right.
    number(y, 2)
    _text(next(body), (x["q_l"] + x["c_a"]) / 2, y + LINE - 2, "M: take", **middle)
    ay = y + LINE + 4
    arrow(ay, "q_l", x["c_a"] + 6, "head")
    y = ay + 10
    # 3: a step of a's own, a loop on its lifeline, labelled to its right.
    number(y, 3)
    _text(next(body), x["c_a"] + 10, y + LINE - 2, "tick")
    ay = y + LINE + 4
    loop(ay, "c_a", "head")
    y = ay + 8 + 10
    # 4: a fault of the link's own: a red band as tall as its rows and loop, a dashed loop;
    # the label wraps to one column.
    dup = ["✗ duplicated: M", "again"]
    assert textwrap.wrap("✗ duplicated: M again", int((column - 24) / CHAR)) == dup
    band(y, LINE * 2 + 14 + 8)
    number(y, 4)
    for k, text in enumerate(dup, start=1):
        _text(next(body), x["q_l"] + 10, y + LINE * k - 2, text, fill=FAULT)
    ay = y + LINE * 2 + 4
    loop(ay, "q_l", "head-fault", FAULT)
    y = ay + 8 + 10
    state("q_l", y, "[M, M]")
    y += BOX + 8
    # 5: a lost message: dashed, three quarters of the way, ending in the red cross.
    band(y, LINE + 14)
    number(y, 5)
    _text(next(body), (x["q_l"] + x["c_a"]) / 2, y + LINE - 2, "✗ lost: M", fill=FAULT, **middle)
    ay = y + LINE + 4
    arrow(ay, "q_l", x["q_l"] + (x["c_a"] - x["q_l"]) * 0.75, "cross-fault", FAULT)
    y = ay + 10
    state("q_l", y, "[M]")
    y += BOX + 8
    # 6: across two columns, the label wraps to the room between the two lifelines.
    number(y, 6)
    lines = textwrap.wrap(LONG, int((2 * column - 24) / CHAR))
    assert lines == [
        "take the message from the link, then",
        "answer the caller at once",
    ]
    for k, text in enumerate(lines, start=1):
        _text(next(body), x["c_a"], y + LINE * k - 2, text, **middle)
    ay = y + LINE * 2 + 4
    arrow(ay, "env", x["q_l"] - 6, "head")
    y = ay + 10
    # The ending, under the last row, wrapped to the chart's width, bold red.
    ending = textwrap.wrap(ENDING, int((right - MARGIN) / CHAR))
    assert len(ending) == 2
    for k, text in enumerate(ending, start=1):
        _text(next(body), MARGIN, y + LINE * k, text, fill=FAULT, **{"font-weight": "bold"})
    y += LINE * 2 + 6
    assert next(body, None) is None

    # The lifelines run from under their heads to under the last row.
    bottom = y + 8
    dashes = _dashes(root)
    assert [dict(d.attrib) for d in dashes] == [
        {
            "x1": _px(x[ln.id]),
            "y1": _px(top),
            "x2": _px(x[ln.id]),
            "y2": _px(bottom),
            "stroke": GREY,
            "stroke-dasharray": "3 3",
        }
        for ln in LIFELINES
    ]
    # The link's own fault is labelled right of the last lifeline, past the columns: the
    # chart is wide enough for it.
    width = math.ceil(x["q_l"] + 10 + CHAR * len(dup[0]) + MARGIN)
    height = math.ceil(bottom + MARGIN)
    assert width > right + MARGIN
    assert root.attrib == {
        "class": "sequence",
        "width": str(width),
        "height": str(height),
        "viewBox": f"0 0 {width} {height}",
        "role": "img",
        "aria-label": 'walk <a & "b">',
        "font-family": FONT,
        "font-size": str(SIZE),
    }


def test_the_frame_the_title_and_the_markers() -> None:
    root = _svg(_walk_chart(), "p-")
    title, defs, background, heading = list(root)[:4]
    assert title.tag == f"{NS}title" and title.text == 'walk <a & "b">'
    assert background.tag == f"{NS}rect"
    assert background.attrib == {"width": "100%", "height": "100%", "fill": "#FFFFFF"}
    _text(heading, MARGIN, MARGIN + 8, 'walk <a & "b">', **{"font-weight": "bold"})
    assert defs.tag == f"{NS}defs"
    markers = [(m.attrib, [dict(p.attrib) for p in m]) for m in defs]
    head = {"viewBox": "0 0 10 10", "refX": "9", "refY": "5", "orient": "auto"}
    cross = {"viewBox": "0 0 10 10", "refX": "5", "refY": "5", "orient": "auto"}
    assert markers == [
        (
            {"id": f"p-head{suffix}", **head, "markerWidth": "8", "markerHeight": "8"},
            [{"d": "M0,0 L10,5 L0,10 z", "fill": colour}],
        )
        if kind == "head"
        else (
            {"id": f"p-cross{suffix}", **cross, "markerWidth": "10", "markerHeight": "10"},
            [{"d": "M1,1 L9,9 M9,1 L1,9", "stroke": colour, "stroke-width": "2"}],
        )
        for suffix, colour in (("", INK), ("-fault", FAULT))
        for kind in ("head", "cross")
    ]
    # No prefix (the diagram command's single chart): the plain ids.
    plain = _svg(_walk_chart())
    assert [m.get("id") for m in plain.iter(f"{NS}marker")] == [
        "head",
        "cross",
        "head-fault",
        "cross-fault",
    ]


def test_every_text_is_escaped() -> None:
    odd = '<b>&"x"'
    c = Chart(
        odd,
        (Lifeline("a", odd), Lifeline("b", "b")),
        (Event(1, "a", "b", odd, states=(("b", odd),)),),
        initial=(("a", odd),),
        ending=odd,
    )
    svg = sequence_svg(c)
    assert "<b>" not in svg and '"x"' not in svg  # escaped, quotes too
    root = ET.fromstring(svg)
    assert root.get("aria-label") == odd
    texts = [t.text for t in root.iter(f"{NS}text")]
    # the title, the head, the initial state, the arrow's label, the new state, the ending
    assert texts.count(odd) == 6
    title = root.find(f"{NS}title")
    assert title is not None and title.text == odd


@pytest.mark.parametrize(
    ("where", "column"),
    [
        ("nothing wide", FLOOR),
        ("a head", CHAR * 20 + 24),
        ("an initial state", CHAR * 20 + 20),
        ("a state after a step", CHAR * 20 + 20),
        ("a head past the cap", CAP),
    ],
)
def test_the_column_holds_the_widest_head_or_state_between_a_floor_and_a_cap(
    where: str, column: float
) -> None:
    wide = "w" * (60 if where == "a head past the cap" else 20)
    head = wide if where.startswith("a head") else "a"
    initial = (("a", wide),) if where == "an initial state" else ()
    states = (("a", wide),) if where == "a state after a step" else ()
    c = Chart(
        "t",
        (Lifeline("a", head), Lifeline("b", "b")),
        (Event(1, "b", "a", "m", states=states),),
        initial=initial,
    )
    root = _svg(c)
    xs = [float(d.get("x1", "")) for d in _dashes(root)]
    assert xs == [MARGIN + GUTTER + column / 2, MARGIN + GUTTER + column * 3 / 2]
    heads = _body(root)[::2][:2]
    assert [e.get("width") for e in heads] == [_px(column - 16)] * 2
    assert root.get("width") == str(math.ceil(MARGIN + GUTTER + 2 * column + MARGIN))
    if where == "a head past the cap":
        # The head's text is wider than its box; the box keeps to its column.
        assert CHAR * len(wide) > column
    boxes = [e for e in root.iter(f"{NS}rect") if e.get("fill") == "#FFF5AD"]
    if initial or states:
        # The text that sets the column fills its box, which keeps 8 px inside the column.
        assert [b.get("width") for b in boxes] == [_px(column - 16)]
    else:
        assert boxes == []


def test_a_state_box_is_at_most_its_column_less_its_margins() -> None:
    wide = "s" * 60
    c = Chart("t", (Lifeline("a", "a"), Lifeline("b", "b")), (), initial=(("a", wide),))
    root = _svg(c)
    (box,) = [e for e in root.iter(f"{NS}rect") if e.get("fill") == "#FFF5AD"]
    assert box.get("width") == _px(CAP - 16)
    assert box.get("x") == _px(MARGIN + GUTTER + CAP / 2 - (CAP - 16) / 2)


def test_an_empty_label_is_one_empty_line() -> None:
    c = Chart("t", (Lifeline("a", "a"), Lifeline("b", "b")), (Event(1, "a", "b", ""),))
    body = _body(_svg(c))
    number, label, line = body[4:]
    assert number.text == "1"
    assert label.text is None and label.get("y") == _px(MARGIN + 22 + HEAD + 10 + LINE - 2)
    assert line.get("y1") == _px(MARGIN + 22 + HEAD + 10 + LINE + 4)


def test_a_label_wraps_to_its_arrows_span() -> None:
    words = " ".join(["word"] * 12)  # 59 characters
    lifelines = tuple(Lifeline(n, n) for n in "abc")

    def lines(src: str, dst: str) -> list[str]:
        c = Chart("t", lifelines, (Event(1, src, dst, words),))
        return [t.text or "" for t in _body(_svg(c))[7:] if t.tag == f"{NS}text"]

    one, two = int((FLOOR - 24) / CHAR), int((2 * FLOOR - 24) / CHAR)
    assert (one, two) == (18, 40)
    assert lines("a", "b") == textwrap.wrap(words, one)
    assert lines("b", "a") == textwrap.wrap(words, one)
    assert lines("a", "c") == textwrap.wrap(words, two)
    assert lines("c", "a") == textwrap.wrap(words, two)
    assert lines("b", "b") == textwrap.wrap(words, one)  # a loop has its own column
    assert len(lines("a", "b")) == 4 and len(lines("a", "c")) == 2


def _box(e: ET.Element) -> tuple[float, float, float, float]:
    """An element's extent (left, top, right, bottom); a text's by CHAR per character."""
    g = {k: v for k, v in e.attrib.items()}
    if e.tag == f"{NS}rect":
        x, y = float(g["x"]), float(g["y"])
        return x, y, x + float(g["width"]), y + float(g["height"])
    if e.tag == f"{NS}line":
        xs, ys = (float(g["x1"]), float(g["x2"])), (float(g["y1"]), float(g["y2"]))
        return min(xs), min(ys), max(xs), max(ys)
    if e.tag == f"{NS}path":  # the loop: M x,y h28 v8 h-26
        x, y = (float(v) for v in g["d"].split()[0][1:].split(","))
        return x, y, x + 28, y + 8
    assert e.tag == f"{NS}text"
    x, y, w = float(g["x"]), float(g["y"]), CHAR * len(e.text or "")
    left = x - w / 2 if g["text-anchor"] == "middle" else x
    return left, y - SIZE, left + w, y


def _inside(root: ET.Element) -> None:
    width, height = float(root.get("width", "")), float(root.get("height", ""))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    for e in [*list(root)[3:]]:
        if e.tag == f"{NS}defs":
            continue
        left, top, right, bottom = _box(e)
        assert left >= 0 and right <= width, (e.attrib, e.text, width)
        assert top >= 0 and bottom <= height, (e.attrib, e.text, height)


def test_a_real_trace_fits_its_box() -> None:
    c = chart(SYSTEM, trace_of(*LOSS), "plant: a lost STOP", "fails: the device keeps running")
    _inside(_svg(c))
    _inside(_svg(_walk_chart()))


WIDE = "x" * 60  # wider than a capped column's half, and than a state box


@pytest.mark.parametrize(
    "where", ["title", "last head", "last initial state", "last state after a step", "last loop"]
)
def test_the_chart_widens_for_a_text_wider_than_the_columns(where: str) -> None:
    """A wide text on the last lifeline, or a long title, reaches past the last column: the
    chart's width holds it (it was cut off)."""
    last = WIDE if where == "last head" else "b"
    c = Chart(
        WIDE * 4 if where == "title" else "t",
        (Lifeline("a", "a"), Lifeline("b", last)),
        (
            Event(1, "a", "b", "m", states=(("b", WIDE),) if "after" in where else ()),
            Event(2, "b", "b", "l" * 40 if where == "last loop" else "l"),
        ),
        initial=(("b", WIDE),) if "initial" in where else (),
    )
    root = _svg(c)
    _inside(root)
    column = CAP if where != "title" and where != "last loop" else FLOOR
    x_last = MARGIN + GUTTER + column * 1.5
    reach = {
        "title": MARGIN + CHAR * 240,
        # the label wraps to a column's room: 18 characters
        "last loop": x_last + 10 + CHAR * int((FLOOR - 24) / CHAR),
    }.get(where, x_last + CHAR * 30)
    assert reach > MARGIN + GUTTER + 2 * column
    assert root.get("width") == str(math.ceil(reach + MARGIN))


def test_a_label_and_the_ending_wrap_to_the_exact_room_they_have() -> None:
    """A 20-character head makes a 160 px column: a one-column label wraps at 20
    characters, the ending at the chart's width less its margin, 52."""
    head = "h" * 20
    column = CHAR * 20 + 24
    right = MARGIN + GUTTER + 2 * column
    assert (int((column - 24) / CHAR), int((right - MARGIN) / CHAR)) == (20, 52)
    label = "abcde fghij klmnopqr stu"  # a first line of exactly 20 characters
    ending = "a" * 26 + " " + "b" * 25 + " c"  # a first line of exactly 52
    c = Chart(
        "t",
        (Lifeline("a", head), Lifeline("b", "b")),
        (Event(1, "a", "b", label), Event(2, "b", "b", label)),
        ending=ending,
    )
    texts = [t.text for t in _body(_svg(c)) if t.tag == f"{NS}text"][2:]
    assert texts == [
        "1",
        "abcde fghij klmnopqr",
        "stu",
        "2",
        "abcde fghij klmnopqr",
        "stu",
        "a" * 26 + " " + "b" * 25,
        "c",
    ]


class Phase(enum.Enum):
    IDLE = "idle"
    SENT = "sent"


class Msg(enum.Enum):
    HI = "hi"
    BYE = "bye"


class Got(enum.Enum):
    NONE = "none"
    SOME = "some"


def _relay(cleared_by: tuple[tuple[str, str], ...] = (("dst", "reset"),)) -> Spec:
    """A source that sends HI on a FIFO of one that drops what does not fit, with two
    parameters and two outputs no channel carries; a sink, with an output of its own,
    whose `reset` clears the FIFO.
    Built in the test, so that it is built under each mutant."""
    src = Spec(
        name="source",
        source="t",
        control="p",
        vars=(Var("p", Finite.of_enum(Phase), Phase.IDLE), Var("k", IntRange(0, 3), 0)),
        triggers=(Trigger("send", (Param("m", Finite.of_enum(Msg)), Param("n", IntRange(0, 3)))),),
        outputs=(
            Output("msg", Option(Finite.of_enum(Msg)), None),
            Output("tone", IntRange(0, 3), 0),
            Output("echo", IntRange(0, 3), 0),
        ),
        rows=(
            row(
                "send",
                "send",
                None,
                Phase.SENT,
                sets={"k": param("n")},
                emits={"msg": some(Msg.HI), "tone": param("n"), "echo": param("n")},
                cite="t",
            ),
        ),
    )
    dst = Spec(
        name="sink",
        source="t",
        control="g",
        vars=(Var("g", Finite.of_enum(Got), Got.NONE),),
        triggers=(Trigger("hi"), Trigger("bye"), Trigger("reset")),
        outputs=(Output("seen", IntRange(0, 3), 0),),
        rows=(
            row("hi", "hi", None, Got.SOME, emits={"seen": 1}, cite="t"),
            row("bye", "bye", None, Got.NONE, cite="t"),
            row("reset", "reset", None, Got.NONE, cite="t"),
        ),
    )
    q = channel(
        "q",
        ("src", "msg"),
        "dst",
        {Msg.HI: "hi", Msg.BYE: "bye"},
        capacity=1,
        overflow="drop",
        cleared_by=cleared_by,
        cite="t",
    )
    return compose("relay", {"src": src, "dst": dst}, [q], source="t")


def _walk(spec: Spec, *picks: tuple[str, Mapping[str, Value]]) -> Trace:
    graph = explore(spec)
    state = 0
    trace = Trace(graph.as_dict(0), ())
    for name, params in picks:
        edge = next(
            e for e in graph.successors(state) if e.row == name and graph.step(e).params == params
        )
        trace = Trace(trace.init, (*trace.steps, graph.step(edge)))
        state = edge.target
    return trace


def test_a_chart_shows_arguments_outputs_a_drop_and_a_clearing() -> None:
    relay = _relay()
    trace = _walk(
        relay,
        ("src_send", {"m": Msg.BYE, "n": 2}),
        ("src_send", {"m": Msg.HI, "n": 0}),  # the FIFO is full: dropped
        ("q_deliver_HI__dst_hi", {}),
        ("src_send", {"m": Msg.HI, "n": 1}),
        ("dst_reset", {}),  # clears the FIFO, which held HI
        ("dst_reset", {}),  # clears nothing: the FIFO is empty
    )
    c = chart(relay, trace, "relay", "the end")
    assert (c.title, c.ending) == ("relay", "the end")
    assert c.lifelines == (
        Lifeline("env", "environment", "environment"),
        Lifeline("c_src", "src"),
        Lifeline("q_q", "q (FIFO of 1)", "channel"),
        Lifeline("c_dst", "dst"),
    )
    assert c.initial == (("c_src", "IDLE"), ("c_dst", "NONE"))
    assert c.events == (
        # The arguments, then what the step emits that no channel carries (not its default).
        Event(1, "env", "c_src", "send(m=BYE, n=2) / tone=2, echo=2"),
        Event(1, "c_src", "q_q", "HI", states=(("c_src", "SENT, k=2"), ("q_q", "[HI]"))),
        Event(2, "env", "c_src", "send(m=HI, n=0)"),
        Event(2, "c_src", "q_q", "HI", "dropped, no room", True, (("c_src", "SENT, k=0"),)),
        Event(3, "q_q", "c_dst", "HI: hi / seen=1", states=(("c_dst", "SOME"), ("q_q", "[]"))),
        Event(4, "env", "c_src", "send(m=HI, n=1) / tone=1, echo=1"),
        Event(4, "c_src", "q_q", "HI", states=(("c_src", "SENT, k=1"), ("q_q", "[HI]"))),
        Event(5, "env", "c_dst", "reset"),
        Event(5, "q_q", "q_q", "[HI] gone", "cleared", states=(("c_dst", "NONE"), ("q_q", "[]"))),
        Event(6, "env", "c_dst", "reset"),
    )
    _inside(_svg(c))
    assert chart(relay, trace, "relay").ending == ""  # no ending unless one is given


def test_a_message_is_named_by_its_enum_name_or_its_value_and_nan_is_unchanged() -> None:
    assert [_message(v) for v in (Msg.HI, "go-now", 3, None)] == ["HI", "go-now", "3", "None"]
    nan = float("nan")
    assert [_same(*p) for p in ((nan, nan), (1.0, 1.0), (nan, 1.0), (1.0, nan), (1, 2))] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_fifo_cleared_by_its_senders_step_takes_that_steps_message() -> None:
    """The step that clears the FIFO also sends on it: what it held is gone, and the new
    message fits (the FIFO, full before, is not full once cleared)."""
    relay = _relay((("src", "send"),))
    trace = _walk(relay, ("src_send", {"m": Msg.HI, "n": 1}), ("src_send", {"m": Msg.HI, "n": 1}))
    assert chart(relay, trace, "t").events[2:] == (
        Event(2, "env", "c_src", "send(m=HI, n=1) / tone=1, echo=1"),
        Event(2, "q_q", "q_q", "[HI] gone", "cleared"),
        Event(2, "c_src", "q_q", "HI"),  # the FIFO holds [HI] again: no new state
    )
