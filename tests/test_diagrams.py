"""The diagrams: what they show is derived from the spec and the checker, and it renders.

Each spec view is rendered to SVG and read back as XML: every control value
the explorer reaches is a node outside the greyed style, every one it does not
reach is greyed, the picture fits 1100 pt and no text is below 9 pt. Folding,
colours, the decision table, the trace overlay (every violated variant's
counterexample) and byte-identical output across PYTHONHASHSEED are pinned too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from families import swing

from models.cli.registry import all_specs
from models.cli.registry import expand
from models.cli.registry import lookup
from models.cli.results import SpecResults
from models.cli.results import findings
from models.cli.results import load
from models.kernel.checks import Checker
from models.kernel.diagram import ANY
from models.kernel.diagram import Picture
from models.kernel.diagram import dot_source
from models.kernel.diagram import marks
from models.kernel.diagram import overlay
from models.kernel.diagram import picture
from models.kernel.diagram import pictures
from models.kernel.diagram import render
from models.kernel.diagram import split
from models.kernel.diagram import trace_marks
from models.kernel.diagram import views
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.expr import Env
from models.kernel.expr import evaluate
from models.kernel.mermaid import mermaid_source
from models.kernel.mermaid import sequence_source
from models.kernel.sequence import chart
from models.kernel.spec import Spec

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
LIMIT = 1100.0


@cache
def _results() -> dict[str, SpecResults]:
    return load(expand([]))[0]


@cache
def _pictures(name: str) -> tuple[Picture, ...]:
    spec = lookup(name)
    return tuple(pictures(spec, findings(_results()[name])))


def _whole(name: str, k: int = 0) -> Picture:
    """View `k` of spec `name` as one picture, before any split."""
    spec = lookup(name)
    return picture(spec, list(views(spec))[k], findings=findings(_results()[name]))


@cache
def _parts(name: str, k: int) -> tuple[Picture, ...]:
    """View `k` of spec `name`, in the parts it is drawn in (wave: its two halves)."""
    return tuple(split(lookup(name), _whole(name, k)))


@cache
def _svgs(name: str, k: int) -> tuple[bytes, ...]:
    return tuple(render(dot_source(pic), "svg") for pic in _parts(name, k))


VIEWS = [(name, k) for name, spec in all_specs().items() for k in range(len(views(spec)))]


def _reached(spec: Spec, view: str) -> set[str]:
    g = explore(spec)
    pred = views(spec)[view]
    assert spec.control is not None and spec.control_domain is not None
    return {
        spec.control_domain.label(g.as_dict(i)[spec.control])
        for i in range(len(g.states))
        if evaluate(pred, Env(pre=g.as_dict(i)))
    }


def _node_texts(root: ET.Element) -> list[tuple[set[str], str]]:
    """(classes, text) of every graph node in the SVG."""
    nodes = []
    for g in root.iter(f"{SVG}g"):
        classes = set(g.get("class", "").split())
        if "node" in classes:
            nodes.append((classes, " ".join(t.text or "" for t in g.iter(f"{SVG}text"))))
    return nodes


@pytest.mark.parametrize(("name", "k"), VIEWS, ids=[f"{n}-{k}" for n, k in VIEWS])
def test_each_view_renders_every_reachable_state_and_greys_the_rest(name: str, k: int) -> None:
    spec = lookup(name)
    view = list(views(spec))[k]
    # Well-formed XML, or this raises; a view drawn in parts has its states across them.
    nodes = [n for svg in _svgs(name, k) for n in _node_texts(ET.fromstring(svg))]
    for _, t in nodes:
        assert t.strip(), "a node without text"
    if spec.system is not None:
        (svg,) = _svgs(name, k)  # a system is one picture
        _check_system(spec, ET.fromstring(svg))
        return
    if spec.control is None:
        # A decision table: every non-ignore row is a line of it.
        table = " ".join(t for _, t in nodes)
        for r in spec.rows:
            assert r.ignore or r.name in table, r.name
        return
    assert spec.control_domain is not None and spec.control_domain.values is not None
    reached = _reached(spec, view)
    arms = spec.layout.arms
    arm_state = spec.control_domain.label(arms[1]) if arms else None
    for value in spec.control_domain.values:
        label = spec.control_domain.label(value)
        if label == arm_state:
            continue  # drawn once per outcome arm, checked below
        holding = [c for c, t in nodes if label in t.split()]
        assert holding, f"{label} is not drawn"
        greyed = all("unreachable" in c for c in holding)
        assert greyed == (label not in reached), f"{label}: greyed={greyed}"
    if arms:
        g = explore(spec)
        seen = {
            spec.output(arms[0]).domain.label(e.outputs[arms[0]])
            for e in g.edges
            if arm_state == spec.control_domain.label(g.as_dict(e.target)[spec.control])
        }
        for classes, t in nodes:
            if "arm" in classes:
                assert ("unreachable" in classes) == (t.split()[0] not in seen), t


def _check_system(spec: Spec, root: ET.Element) -> None:
    """A system: a box per component holding each of its states, greyed where the system
    never takes it, and a node per channel."""
    assert spec.system is not None
    g = explore(spec)
    drawn = {
        g_.get("id", ""): set(g_.get("class", "").split())
        for g_ in root.iter(f"{SVG}g")
        if "node" in g_.get("class", "").split()
    }
    clusters = {
        g_.findtext(f"{SVG}title") for g_ in root.iter(f"{SVG}g") if g_.get("class") == "cluster"
    }
    for part in spec.system.parts:
        domain = part.spec.control_domain
        if part.control is None or domain is None or domain.values is None:
            assert f"{part.name}__self" in drawn
            continue
        assert f"cluster_{part.name}" in clusters, part.name
        reached = {domain.label(g.as_dict(i)[part.control]) for i in range(len(g.states))}
        for value in domain.values:
            label = domain.label(value)
            classes = drawn.get(f"{part.name}__s_{label}")
            assert classes is not None, f"{part.name}: {label} is not drawn"
            assert ("unreachable" in classes) == (label not in reached), f"{part.name}: {label}"
    for ch in spec.system.channels:
        assert f"ch_{ch.name}" in drawn, ch.name


def test_a_system_is_drawn_component_by_component() -> None:
    from systems import SYSTEM

    (pic,) = pictures(SYSTEM)
    _check_system(SYSTEM, ET.fromstring(render(dot_source(pic), "svg")))
    # The check has teeth: the lamp's BROKEN, never reached, must be greyed.
    ungreyed = replace(
        pic, nodes=[replace(n, greyed=False) if n.label == "BROKEN" else n for n in pic.nodes]
    )
    with pytest.raises(AssertionError, match="lamp: BROKEN"):
        _check_system(SYSTEM, ET.fromstring(render(dot_source(ungreyed), "svg")))


def test_a_system_is_drawn_from_one_pass_over_its_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    # Building every edge with its outputs, once per component, made adr068's views (285,520
    # edges, and each variant's) take 40 s of the report: its moves are read once instead.
    from systems import SYSTEM

    graph = explore(SYSTEM)
    read: list[int] = []
    moves = Exploration.moves

    def counted(self: Exploration, i: int) -> list[tuple[int, int, int]]:
        read.append(i)
        return moves(self, i)

    def refused(self: Exploration) -> None:
        raise AssertionError("a system's views built every edge")

    monkeypatch.setattr(Exploration, "moves", counted)
    monkeypatch.setattr(Exploration, "edges", property(refused))
    monkeypatch.setattr(Exploration, "iter_edges", refused)
    (pic,) = pictures(SYSTEM, graph=graph)
    assert sorted(read) == list(range(len(graph.states)))
    assert any(n.id.endswith("self") or n.cluster for n in pic.nodes)


@pytest.mark.parametrize(("name", "k"), VIEWS, ids=[f"{n}-{k}" for n, k in VIEWS])
def test_each_svg_fits_and_no_font_is_below_9pt(name: str, k: int) -> None:
    for part in _svgs(name, k):
        _fits_and_no_font_is_below_9pt(part.decode())


def _fits_and_no_font_is_below_9pt(svg: str) -> None:
    root = ET.fromstring(svg)
    sizes = [float(s) for s in re.findall(r'font-size="([0-9.]+)"', svg)]
    assert sizes and min(sizes) >= 9.0
    scale = re.search(r'transform="scale\(([0-9.]+) ([0-9.]+)\)', svg)
    assert scale and float(scale.group(1)) == 1.0 == float(scale.group(2))  # no shrinking
    width, height = (float(root.get(a, "0").removesuffix("pt")) for a in ("width", "height"))
    assert width <= LIMIT and height <= LIMIT, (width, height)


def test_duplex_folds_refresh_and_any_state_rows() -> None:
    audio, text = _pictures("duplex")
    for pic in (audio, text):
        rows = [r for a in pic.arrows for r in a.rows]
        assert "erl_update" not in rows  # a refresh in every state: a note
        assert any("erl" in n and "every state" in n for n in pic.notes)
        lost = [a for a in pic.arrows if "heartbeat_lost_degrades" in a.rows]
        assert [(a.src, a.dst) for a in lost] == [(ANY, "s_DEGRADED")]  # drawn once
        assert not any(r.endswith("_ignored") for r in rows)  # ignore rows are notes
    # Edges are coloured by who decides: the ECC through apply, the daemon through
    # observe, the edge reflex for link loss and restore.
    deciders = {r: a.decider for a in audio.arrows for r in a.rows}
    assert deciders["grant_user_takes_floor"] == "apply"
    assert deciders["onset_claims_idle"] == "observe"
    assert deciders["link_restored_resets"] == "reflex"
    assert audio.node("s_OVERLAP").provisional and not audio.node("s_IDLE").provisional
    # Under TEXT, Overlap and Backchannel are unreachable, and so are the rows into them.
    assert text.node("s_OVERLAP").greyed and text.node("s_BACKCHANNEL").greyed
    greyed = {r for a in text.arrows if a.greyed for r in a.rows}
    assert {"onset_enters_overlap", "backchannel_continues"} <= greyed
    assert not any(a.greyed for a in audio.arrows)


def test_guards_read_in_the_specs_vocabulary() -> None:
    text = " ".join(
        line for pic in _pictures("wave") for _, _, lines in pic.footnotes for line in lines
    )
    assert "[?answer = NULL]" in text and "¬aborted" in text
    (policy,) = _pictures("policy")
    labels = {r: a.lines for a in policy.arrows for r in a.rows}
    assert any("wave_start := pending" in line for line in labels["wave_takes_arrival"])
    assert any("wave_start" in n and "ghost" in n for n in policy.notes)


def test_wave_is_clustered_by_half_and_settles_in_outcome_arms() -> None:
    wave = _whole("wave")
    assert wave.node("s_PRECHECK").cluster != wave.node("s_WAIT").cluster != ""
    arms = [n for n in wave.nodes if n.kind == "arm"]
    assert {n.label for n in arms if not n.greyed} >= {
        "OK",
        "UNAVAILABLE",
        "SPAWN_FAILED",
        "TIMEOUT",
        "CANCELLED",
        "RUN_FAILED",
        "AGGREGATE_UNREADABLE",
    }
    assert [n.label for n in arms if n.greyed] == ["REJECTED"]  # never-throws is proved


def test_admission_is_a_decision_table_in_match_order() -> None:
    (pic,) = _pictures("admission")
    spec = lookup("admission")
    assert [d.row for d in pic.table] == [r.name for r in spec.rows if not r.ignore]
    assert not pic.nodes and not pic.arrows


def test_the_panel_lists_every_check_with_its_verdict() -> None:
    for name in all_specs():
        checks = _results()[name].checks
        for pic in _pictures(name):
            assert [f.id for f in pic.findings] == [c.id for c in checks]
            dot = dot_source(pic)
            for c in checks:
                assert c.id in dot and c.verdict in dot


VIOLATED = [
    (spec.name, c.id)
    for spec in expand([])
    if spec.expect_violated
    for c in _results()[spec.name].checks
    if c.verdict == "violated" and c.trace
]


@pytest.mark.parametrize(("name", "check"), VIOLATED, ids=[f"{n}/{c}" for n, c in VIOLATED])
def test_every_violated_variants_counterexample_overlays_as_a_numbered_path(
    name: str, check: str
) -> None:
    spec = lookup(name)
    results = _results()[name]
    found = next(c for c in results.checks if c.id == check)
    trace = found.trace
    assert trace is not None
    if spec.system is not None:
        # A system's counterexample is a sequence chart (issue 18 §1): every step on it.
        drawn = chart(spec, trace, f"counterexample of {check}")
        assert sorted({e.step for e in drawn.events}) == list(range(1, len(trace) + 1))
        assert f"counterexample of {check}" in sequence_source(drawn)
        return
    path = trace_marks(spec, trace)
    # The first view, whole (duplex's variant draws audio, where Overlap is; wave's both
    # halves): a trace is drawn on all of it.
    pic = _whole(name)
    shown = overlay(pic, path, f"counterexample of {check}", found.loop)
    steps = len(trace)
    numbered = sorted(
        [m for a in shown.arrows for m in a.marks] + [m for d in shown.table for m in d.marks]
    )
    assert numbered == list(range(1, steps + 1))  # every step drawn, each once
    dot = dot_source(shown)  # the CLI and browser tests render overlays; this pins the text
    assert f"counterexample of {check}" in dot
    assert dot.count("penwidth=2.5") >= len(shown.path_nodes)
    if found.loop is not None:  # a lasso says how it goes on forever
        assert shown.lasso == (found.loop, steps) and "forever" in shown.trace_steps[-1]


def test_a_folded_step_is_drawn_for_its_trace() -> None:
    (audio, _) = _pictures("duplex")
    spec = lookup("duplex")
    path = marks(
        spec,
        [
            ("init", {"state": "IDLE"}, {}),
            ("erl_update", {"state": "IDLE"}, {}),
            ("heartbeat_lost_degrades", {"state": "DEGRADED"}, {}),
        ],
    )
    shown = overlay(audio, path, "t")
    taken = {m: (a.src, a.dst, a.id) for a in shown.arrows for m in a.marks}
    assert taken[1][:2] == ("s_IDLE", "s_IDLE") and taken[1][2].startswith("t")  # the note's row
    assert taken[2][:2] == (ANY, "s_DEGRADED")
    assert audio.folded["erl_update"].startswith("a_note")  # its own line of the notes


def test_mermaid_has_every_state_and_edge() -> None:
    for name in all_specs():
        for pic in _pictures(name):
            text = mermaid_source(pic)
            assert text.startswith("---\ntitle:") and "stateDiagram-v2" in text
            for n in pic.nodes:
                assert f" as {n.id}" in text
            for a in pic.arrows:
                # an arrow clipped at a box (a system's channel) joins the box itself
                assert f"{a.tail_box or a.src} --> {a.head_box or a.dst} :" in text
            for line in text.splitlines()[4:]:
                # Mermaid's syntax characters only as its entity codes (or a class's colours).
                bare = re.sub(r"#(\d+|lt|gt|quot);|#[0-9A-F]{6}\b", "", line)
                assert ";" not in bare and "#" not in bare, line
            assert not set(text) & set("꞉‹›"), "a look-alike character stands in for syntax"


def test_the_committed_mermaid_is_what_the_printer_prints() -> None:
    """`diagram --check`, in this process: each committed .mmd (rendered and looked at in a
    browser by test_mermaid_render.py) is what mermaid_source prints for its picture now."""
    drawn = {pic.name: mermaid_source(pic) for name in all_specs() for pic in _pictures(name)}
    committed = {p.stem: p.read_text() for p in (ROOT / "diagrams").glob("*.mmd")}
    assert drawn == committed


def test_each_committed_dot_is_what_dot_source_draws() -> None:
    """`diagram --check`, in this process: each committed .dot is what dot_source prints for
    its picture now, text for text: every label, cluster, colour and footnote pinned. The
    pictures are drawn here, not taken from the cache, so mutation testing sees this test
    call the drawing."""
    drawn = {
        pic.name: dot_source(pic)
        for name, spec in all_specs().items()
        for pic in pictures(spec, findings(_results()[name]))
    }
    committed = {p.stem: p.read_text() for p in (ROOT / "diagrams").glob("*.dot")}
    assert drawn == committed


def test_mermaid_notes_clusters_with_states_and_edges_no_group_decides() -> None:
    (pic, *_) = _pictures("wave")  # its halves meet: clusters are listed in the note
    assert mermaid_source(replace(pic, clusters=[*pic.clusters, ("c_none", "empty")])) == (
        mermaid_source(pic)
    )
    free = [replace(a, decider="") for a in pic.arrows]
    text = mermaid_source(replace(pic, deciders=[("runner", "it"), ("", "anyone")], arrows=free))
    assert "        by no group#58; anyone" in text.splitlines()
    edges = [line for line in text.splitlines() if " --> " in line and "[*]" not in line]
    assert edges and all(" : by no group<br/>" in line for line in edges)


def test_output_is_identical_across_hash_seeds(tmp_path: Path) -> None:
    """This process's hash seed is random; a second process runs with another one."""
    # The verdicts the diagrams show, as a fresh verify.json, so the process re-checks nothing.
    (tmp_path / "reports").mkdir()
    specs = [_results()[s.name].to_json() for s in expand([])]
    (tmp_path / "reports" / "verify.json").write_text(json.dumps({"specs": specs}))
    seed = "1" if os.environ.get("PYTHONHASHSEED") == "0" else "0"
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "models", "diagram", "--out", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    written = {p.name: p.read_text() for p in sorted((tmp_path / "out").iterdir())}
    here = {}
    for name in all_specs():
        for pic in _pictures(name):
            here[f"{pic.name}.dot"] = dot_source(pic)
            here[f"{pic.name}.mmd"] = mermaid_source(pic)
    parts = sum(len(_parts(name, k)) for name, k in VIEWS)
    assert written == dict(sorted(here.items())) and len(written) == 2 * parts


def test_the_readmes_mermaid_block_is_the_committed_policy_diagram() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == (ROOT / "diagrams" / "policy.mmd").read_text()


def test_wave_is_drawn_as_its_two_halves_cut_from_one_picture() -> None:
    """Issue 19 §5: each half is readable at normal zoom; both come from the one picture,
    with its ids and footnote numbers, and an arrow between the halves is in both."""
    whole = _whole("wave")
    front, back = _pictures("wave")
    assert (front.name, back.name) == ("wave-front", "wave-back")
    assert front.has_node("s_PRECHECK") and not back.has_node("s_PRECHECK")
    assert back.has_node("a_SETTLED__OK__cluster_1") and not front.has_node("s_TIMEOUT")
    ids = {a.id: a for a in whole.arrows}
    assert {a.id for a in front.arrows} | {a.id for a in back.arrows} == set(ids)
    across = {a.id for a in front.arrows} & {a.id for a in back.arrows}
    # Only SPAWN hands over to the back half: those arrows are drawn in both.
    assert across and all("s_SPAWN" in (ids[i].src, ids[i].dst) for i in across)
    numbered = {(n, r) for pic in (front, back) for n, r, _ in pic.footnotes}
    assert numbered == {(n, r) for n, r, _ in whole.footnotes}


def test_every_footnote_names_its_row_and_its_edges() -> None:
    whole = _whole("wave")
    notes = {row: " ".join(lines) for _, row, lines in whole.footnotes}
    for a in whole.arrows:
        src, dst = whole.node(a.src), whole.node(a.dst)
        names = [f"SETTLED/{n.label}" if n.kind == "arm" else n.label for n in (src, dst)]
        for r in a.rows:
            assert notes[r].startswith(f"{r}:"), notes[r]
            assert f"{names[0]} → {names[1]}" in notes[r], (r, names, notes[r])


def test_a_lassos_loop_is_dashed_and_its_back_edge_says_where_it_returns() -> None:
    spec = swing()
    check = next(Checker(spec).run("finished"))
    assert check.verdict == "violated" and check.trace is not None and check.loop == 0
    assert [s.row for s in check.trace.steps] == ["a_to_b", "b_to_a"]
    shown = overlay(picture(spec), trace_marks(spec, check.trace), "lasso", check.loop)
    assert shown.lasso == (0, 2)
    assert shown.trace_steps[-1] == "↺ loop back to step 0: steps 0..2 repeat forever"
    dot = dot_source(shown)
    edges = {m.group(1): m.group(2) for m in re.finditer(r"(s_\w+ -> s_\w+) \[(.*)\]", dot)}
    back, out = edges["s_B -> s_A"], edges["s_A -> s_B"]
    assert 'label="#2 ↺ to step 0 ' in back and "style=dashed" in back and "loop" in back
    assert 'label="#1 ' in out and "↺" not in out and "loop" in out  # step 1 is in the loop
    assert "the loop, repeated forever (↺: back to step 0)" in dot  # the legend says so
    assert "b_done" in edges["s_B -> s_C"] and "path" not in edges["s_B -> s_C"]


def test_a_lasso_that_stutters_has_no_back_edge() -> None:
    spec = lookup("wave:seed")  # the seed's ping may never answer: it stays in PING
    check = next(c for c in _results()["wave:seed"].checks if c.id == "eventually-settles")
    assert check.trace is not None and check.loop == len(check.trace) == 1
    shown = overlay(_whole("wave:seed"), trace_marks(spec, check.trace), "t", check.loop)
    assert shown.trace_steps[-1] == "then it stutters at step 1 forever"
    dot = dot_source(shown)
    (taken,) = [line for line in dot.splitlines() if " path" in line and " -> " in line]
    assert "↺" not in taken and "loop" not in taken and "style=solid" in taken
    assert "the loop, repeated forever" not in dot
