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

from models.cli.registry import all_specs, expand, lookup
from models.cli.results import SpecResults, findings, load
from models.kernel.diagram import (
    ANY,
    Picture,
    dot_source,
    marks,
    overlay,
    pictures,
    render,
    trace_marks,
    views,
)
from models.kernel.explore import explore
from models.kernel.expr import Env, evaluate
from models.kernel.mermaid import mermaid_source
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


@cache
def _svg(name: str, k: int) -> bytes:
    return render(dot_source(_pictures(name)[k]), "svg")


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
    root = ET.fromstring(_svg(name, k))  # well-formed XML, or this raises
    nodes = _node_texts(root)
    for _, t in nodes:
        assert t.strip(), "a node without text"
    if spec.system is not None:
        _check_system(spec, root)
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


@pytest.mark.parametrize(("name", "k"), VIEWS, ids=[f"{n}-{k}" for n, k in VIEWS])
def test_each_svg_fits_and_no_font_is_below_9pt(name: str, k: int) -> None:
    svg = _svg(name, k).decode()
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
    (wave,) = _pictures("wave")
    text = " ".join(line for _, _, lines in wave.footnotes for line in lines)
    assert "[?answer = NULL]" in text and "¬aborted" in text
    (policy,) = _pictures("policy")
    labels = {r: a.lines for a in policy.arrows for r in a.rows}
    assert any("wave_start := pending" in line for line in labels["wave_takes_arrival"])
    assert any("wave_start" in n and "ghost" in n for n in policy.notes)


def test_wave_is_clustered_by_half_and_settles_in_outcome_arms() -> None:
    (wave,) = _pictures("wave")
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
    trace = next(c for c in results.checks if c.id == check).trace
    assert trace is not None
    path = trace_marks(spec, trace)
    pic = _pictures(name)[0]  # the first view: duplex's variant draws audio, where Overlap is
    shown = overlay(pic, path, f"counterexample of {check}")
    steps = len(trace)
    numbered = sorted(
        [m for a in shown.arrows for m in a.marks] + [m for d in shown.table for m in d.marks]
    )
    assert numbered == list(range(1, steps + 1))  # every step drawn, each once
    dot = dot_source(shown)  # the CLI and browser tests render overlays; this pins the text
    assert f"counterexample of {check}" in dot
    assert dot.count("penwidth=2.5") >= len(shown.path_nodes)


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
                assert f"{a.src} --> {a.dst} :" in text
            for line in text.splitlines()[4:]:
                # Mermaid's syntax characters only as its entity codes (or a class's colours).
                bare = re.sub(r"#(\d+|lt|gt|quot);|#[0-9A-F]{6}\b", "", line)
                assert ";" not in bare and "#" not in bare, line
            assert not set(text) & set("꞉‹›"), "a look-alike character stands in for syntax"


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
    assert written == dict(sorted(here.items())) and len(written) == 2 * len(VIEWS)


def test_the_readmes_mermaid_block_is_the_committed_policy_diagram() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == (ROOT / "diagrams" / "policy.mmd").read_text()
