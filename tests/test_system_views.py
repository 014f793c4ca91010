"""The views of a system of machines (compose.py): its diagram and its traces as charts.

On the three-machine plant of tests/systems.py (a FIFO that loses, a synchronous
hand-over, a state no step reaches):

- the diagram draws one machine per component in its own box, by that component's
  own rules over what the system reaches of it, and each channel as a node between
  them, with an arrow from each state that sends on it and to each state a message
  leaves its receiver in; DOT and Mermaid (a composite state per component);
- a trace is a message-sequence chart: a lifeline per party, the steps as arrows,
  each party's new state after a step, faults marked (a lost message's arrow ends
  in a cross), as SVG and as a Mermaid `sequenceDiagram`;
- `python -m models diagram SYSTEM --trace CHECK` draws the chart.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import replace

import pytest
from systems import CTL
from systems import DEV
from systems import LAMP
from systems import SYSTEM
from systems import Device
from systems import Light
from systems import link
from systems import trace_of

from models.cli.main import main
from models.cli.report import build
from models.cli.results import load
from models.kernel import always
from models.kernel import eq
from models.kernel import ne
from models.kernel import sometimes
from models.kernel import var
from models.kernel.compose import channel
from models.kernel.compose import compose
from models.kernel.diagram import dot_source
from models.kernel.diagram import pictures
from models.kernel.diagram import render
from models.kernel.domains import Value
from models.kernel.explore import explore
from models.kernel.mermaid import _safe
from models.kernel.mermaid import mermaid_source
from models.kernel.mermaid import sequence_source
from models.kernel.sequence import Chart
from models.kernel.sequence import Event
from models.kernel.sequence import Lifeline
from models.kernel.sequence import chart
from models.kernel.sequence import sequence_svg
from models.kernel.spec import Spec
from models.kernel.trace import Trace

DELIVER_START = "link_deliver_START__dev_run__lamp_light"
LOSS = ("ctl_on", DELIVER_START, "ctl_off", "link_lose")


def test_each_component_is_a_box_of_its_own_states() -> None:
    (pic,) = pictures(SYSTEM)
    # Each box is titled by the component, and by its spec where that differs.
    assert pic.clusters == [
        ("cluster_ctl", "ctl (switch)"),
        ("cluster_dev", "dev (device)"),
        ("cluster_lamp", "lamp"),
    ]
    boxes = {(n.cluster, n.label, n.initial, n.greyed) for n in pic.nodes if n.kind != "channel"}
    assert boxes == {
        ("cluster_ctl", "OFF", True, False),
        ("cluster_ctl", "ON", False, False),
        ("cluster_dev", "IDLE", True, False),
        ("cluster_dev", "RUN", False, False),
        ("cluster_lamp", "DARK", True, False),
        ("cluster_lamp", "LIT", False, False),
        # The lamp's own rules can break it; the system never does.
        ("cluster_lamp", "BROKEN", False, True),
    }
    inside = {(a.src, a.dst, a.lines) for a in pic.arrows if a.decider in ("ctl", "dev", "lamp")}
    assert inside == {
        ("ctl__s_OFF", "ctl__s_ON", ("press", "/ cmd=START")),
        ("ctl__s_ON", "ctl__s_OFF", ("press", "/ cmd=STOP")),
        ("dev__s_IDLE", "dev__s_RUN", ("start", "/ light=ON")),
        ("dev__s_RUN", "dev__s_IDLE", ("stop", "/ light=OFF")),
        ("lamp__s_DARK", "lamp__s_LIT", ("on",)),
        ("lamp__s_LIT", "lamp__s_DARK", ("off",)),
    }
    # A component's ignore rows that fire in the system are folded into a note, as alone.
    assert pic.notes == [
        "dev: not drawn, no-ops where no edge shows them (ignore rows): start, stop"
    ]


def test_channels_are_drawn_between_the_boxes_with_their_messages_and_faults() -> None:
    (pic,) = pictures(SYSTEM)
    channels = {n.id: n.label for n in pic.nodes if n.kind == "channel"}
    assert channels == {
        "ch_link": "link: FIFO of 1, may suffer loss",
        "ch_wire": "wire: synchronous",
    }
    carried = {
        (a.tail_box, a.src, a.dst, a.head_box, a.lines)
        for a in pic.arrows
        if a.decider == "channel"
    }
    # Box to channel to box: from the first state that sends on it, into the receiver's
    # initial state, each clipped at its box; the arrow out names the trigger each fires.
    assert carried == {
        ("cluster_ctl", "ctl__s_OFF", "ch_link", "", ("START, STOP",)),
        ("", "ch_link", "dev__s_IDLE", "cluster_dev", ("START: start, STOP: stop",)),
        ("cluster_dev", "dev__s_IDLE", "ch_wire", "", ("ON, OFF",)),
        ("", "ch_wire", "lamp__s_DARK", "cluster_lamp", ("ON: on, OFF: off",)),
    }
    assert [(a.src, a.dst, a.lines) for a in pic.arrows if a.decider == "fault"] == [
        ("ch_link", "ch_link", ("loss",))
    ]
    assert [d for d, _ in pic.deciders] == ["ctl", "dev", "lamp", "channel", "fault"]


def test_the_system_diagram_in_dot_and_mermaid() -> None:
    (pic,) = pictures(SYSTEM)
    dot = dot_source(pic)
    for cluster in ("cluster_ctl", "cluster_dev", "cluster_lamp"):
        assert f"subgraph {cluster} {{" in dot
    assert re.search(
        r'ch_link \[label="link: FIFO of 1, may suffer loss"[^]]*fillcolor="#E8F1FA"', dot
    )
    assert render(dot, "svg").startswith(b"<?xml")
    mmd = mermaid_source(pic)
    # Components only meet at channels, so each is a composite state with its own start.
    block = mmd[mmd.index('state "dev (device)"') : mmd.index('state "lamp"')]
    assert block.splitlines() == [
        'state "dev (device)" as cluster_dev {',
        '        state "IDLE" as dev__s_IDLE',
        '        state "RUN" as dev__s_RUN',
        "        [*] --> dev__s_IDLE",
        "    }",
        "    ",
    ]
    assert '    state "link#58; FIFO of 1, may suffer loss" as ch_link' in mmd
    assert "    ch_link --> cluster_dev : by channel<br/>START#58; start, STOP#58; stop" in mmd
    assert "compound=true" in dot and "lhead=cluster_dev" in dot
    assert "    class ch_link,ch_wire channel" in mmd
    assert "    classDef channel fill:#E8F1FA,color:#1A1A1A" in mmd.splitlines()
    assert dot == dot_source(pictures(SYSTEM)[0]) and mmd == mermaid_source(pictures(SYSTEM)[0])


def test_a_one_lifeline_chart_and_its_ending_in_mermaid() -> None:
    one = Chart(
        "lamp — a step of its own",
        (Lifeline("lamp", "lamp"),),
        (Event(1, "lamp", "lamp", "ON: on"),),
        ending="",
    )
    lines = sequence_source(one).splitlines()
    assert lines[1] == 'title: "lamp — a step of its own"'  # YAML reads UTF-8: no \u escape
    assert lines[-1] == "    p_lamp->>p_lamp: 1. ON#58; on"  # no ending, no note under it
    ended = sequence_source(replace(one, ending="stops")).splitlines()
    assert ended[-1] == "    Note over p_lamp: stops"
    two = replace(one, lifelines=(*one.lifelines, Lifeline("dev", "dev")), ending="stops")
    assert sequence_source(two).splitlines()[-1] == "    Note over p_lamp,p_dev: stops"
    assert _safe('a:b;c#d{e}f<g>h"i') == "a#58;b#59;c#35;d#123;e#125;f#lt;g#gt;h#quot;i"


def test_a_trace_is_a_chart_of_who_told_whom_what() -> None:
    c = chart(SYSTEM, trace_of(*LOSS), "plant: a lost STOP", "the device keeps running")
    assert c.lifelines == (
        Lifeline("env", "environment", "environment"),
        Lifeline("c_ctl", "ctl"),
        Lifeline("q_link", "link (FIFO of 1)", "channel"),
        Lifeline("c_dev", "dev"),
        Lifeline("c_lamp", "lamp"),
    )
    assert c.initial == (("c_ctl", "OFF"), ("c_dev", "IDLE"), ("c_lamp", "DARK"))
    assert c.events == (
        Event(1, "env", "c_ctl", "press"),
        Event(1, "c_ctl", "q_link", "START", states=(("c_ctl", "ON"), ("q_link", "[START]"))),
        Event(2, "q_link", "c_dev", "START: start"),
        # one step of the system: the synchronous hand-over fires the lamp with the device
        Event(
            2,
            "c_dev",
            "c_lamp",
            "ON: on",
            states=(("c_dev", "RUN"), ("c_lamp", "LIT"), ("q_link", "[]")),
        ),
        Event(3, "env", "c_ctl", "press"),
        Event(3, "c_ctl", "q_link", "STOP", states=(("c_ctl", "OFF"), ("q_link", "[STOP]"))),
        Event(4, "q_link", "c_dev", "STOP", fault="lost", lost=True, states=(("q_link", "[]"),)),
    )
    assert c.ending == "the device keeps running"


def test_the_chart_as_mermaid_marks_the_fault() -> None:
    text = sequence_source(chart(SYSTEM, trace_of(*LOSS), "plant: a lost STOP", "keeps running"))
    lines = text.splitlines()
    assert lines[: lines.index("sequenceDiagram")] == [
        "---",
        'title: "plant: a lost STOP"',
        "config:",
        "  themeVariables:",
        '    noteBkgColor: "#FFF5AD"',
        '    noteTextColor: "#1A1A1A"',
        "---",
    ]
    assert "    participant p_q_link as link (FIFO of 1)" in lines
    assert "    p_c_dev->>p_c_lamp: 2. ON#58; start" not in lines  # the lamp's trigger, not dev's
    assert "    p_c_dev->>p_c_lamp: 2. ON#58; on" in lines
    at = lines.index("    critical fault 4#58; lost")
    assert lines[at + 1 : at + 3] == ["        p_q_link-xp_c_dev: 4. STOP", "    end"]
    assert lines[-1] == "    Note over p_env,p_c_lamp: keeps running"


def test_the_chart_as_svg_is_well_formed_readable_and_marks_the_fault() -> None:
    svg = sequence_svg(chart(SYSTEM, trace_of(*LOSS), "plant: a lost STOP", "x"), "k-")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    for label in ("environment", "ctl", "link (FIFO of 1)", "dev", "lamp", "press", "[START]"):
        assert label in texts
    assert "✗ lost: STOP" in texts
    assert root.get("font-size") == "12"  # 9 pt, the diagrams' floor
    assert all(t.get("font-size") is None for t in root.iter(f"{ns}text"))
    faulty = [t for t in root.iter(f"{ns}text") if t.text == "✗ lost: STOP"]
    assert faulty[0].get("fill") == "#B3123A"
    # The lost message's arrow ends in the red cross; the markers carry the page prefix.
    ids = {m.get("id") for m in root.iter(f"{ns}marker")}
    assert ids == {"k-head", "k-cross", "k-head-fault", "k-cross-fault"}
    assert svg.count('marker-end="url(#k-cross-fault)"') == 1


def test_only_a_system_has_a_chart() -> None:
    from models import duplex

    plain: Spec = duplex.SPEC
    with pytest.raises(ValueError, match="is not a system of machines"):
        chart(plain, trace_of(), "t")


def test_diagram_trace_of_a_system_draws_its_chart(
    spec_module: Callable[[str, str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`diagram SPEC --trace CHECK` on a system: Mermaid by default, SVG on request, and
    a refusal (exit 2, one line) for a format a chart has not."""
    name = spec_module(
        "zz_plant",
        "from dataclasses import replace\n"
        "from models.kernel import eq, sometimes, var\n"
        "from systems import SYSTEM, Device\n"
        "RUNS = sometimes('runs', eq(var('dev_d'), Device.RUN), cite='t')\n"
        "SPECS = [replace(SYSTEM, name='zz_plant', properties=(RUNS,), system=SYSTEM.system)]\n",
    )
    assert main(["diagram", name, "--trace", "runs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('---\ntitle: "zz_plant: witness of runs: witnessed, 2 steps"')
    assert "    p_q_link->>p_c_dev: 2. START#58; start" in out
    assert main(["diagram", name, "--trace", "runs", "--format", "svg"]) == 0
    assert capsys.readouterr().out.startswith("<svg")
    assert main(["diagram", name, "--trace", "runs", "--format", "dot"]) == 2
    got = capsys.readouterr()
    assert got.out == ""
    assert got.err == (
        "error: 'zz_plant' is a system: its trace is a sequence chart, drawn as mermaid or svg\n"
    )


def test_the_report_draws_each_trace_of_a_system_as_a_chart() -> None:
    runs = sometimes("runs", eq(var("dev_d"), Device.RUN), cite="t")
    never = always("never_runs", ne(var("dev_d"), Device.RUN), cite="t")
    spec = replace(SYSTEM, properties=(runs, never), system=SYSTEM.system)
    results, origin = load([spec])
    page = build([spec], results, origin)
    charts = re.findall(r'<figure class="sequence">(<svg .*?</svg>)</figure>', page)
    assert len(charts) == 2  # the witness of runs, the counterexample of never_runs
    assert 'aria-label="plant: witness of runs"' in charts[0]
    assert 'aria-label="plant: counterexample of never_runs"' in charts[1]
    # The counterexample's `fails:` line closes its chart.
    assert 'font-weight="bold">fails: dev_d ≠ RUN is false</text>' in charts[1]
    ids = re.findall(r'<marker id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 8  # each chart's arrowheads are its own


def test_a_duplicated_or_reordered_message_is_marked_on_its_fifo() -> None:
    twice = compose(
        "twice",
        {"ctl": CTL, "dev": DEV, "lamp": LAMP},
        [
            link(capacity=2, faults=("duplication", "reordering")),
            channel("wire", ("dev", "light"), "lamp", {Light.ON: "on", Light.OFF: "off"}, cite="t"),
        ],
        source="t",
    )
    rows = ("ctl_on", "ctl_off", "link_reorder", "link_deliver_STOP__dev_halted", "link_duplicate")
    c = chart(twice, trace_of(*rows, spec=twice), "t")
    assert c.events[4:] == (
        Event(
            3, "q_link", "q_link", "START last", "reordered", states=(("q_link", "[STOP, START]"),)
        ),
        Event(4, "q_link", "c_dev", "STOP: stop", states=(("q_link", "[START]"),)),
        Event(
            5,
            "q_link",
            "q_link",
            "START again",
            "duplicated",
            states=(("q_link", "[START, START]"),),
        ),
    )
    assert "    critical fault 5#58; duplicated" in sequence_source(c).splitlines()


def _adr068_trace(pred: Callable[[Mapping[str, Value], str], bool]) -> tuple[Spec, Trace]:
    """The shortest trace of the ADR-068 loop that ends in a step `pred` picks."""
    from models import adr068

    graph = explore(adr068.SPEC)
    # iter_edges, not edges: the first hit is near the start, and all 285,520 cost seconds.
    edge = next(e for e in graph.iter_edges() if pred(graph.as_dict(e.source), e.row))
    return adr068.SPEC, graph.path_through(edge)


def test_a_full_lane_drops_and_a_lost_connection_clears_and_both_are_marked() -> None:
    """ADR-068's control lane loses a command that does not fit (`overflow="drop"`) and
    what it holds when the link goes down (`cleared_by`): both marked as faults."""
    spec, full = _adr068_trace(lambda s, row: len(s["control"]) == 1 and "takes_floor" in row)
    *_, kept, dropped = chart(spec, full, "t").events
    assert (kept.label, kept.fault, dropped.label, dropped.lost) == ("MUTE", "", "CANCEL", True)
    assert dropped.fault == "dropped, no room" and dropped.dst == "q_control"
    spec, lost = _adr068_trace(
        lambda s, row: len(s["control"]) == 2 and row.startswith("link_goes_down")
    )
    events = chart(spec, lost, "t").events
    gone = next(e for e in events if e.fault)
    assert (gone.src, gone.dst, gone.fault) == ("q_control", "q_control", "cleared")
    assert gone.label.endswith("] gone") and gone.step == len(lost)
