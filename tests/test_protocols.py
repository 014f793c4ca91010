"""The classic protocol fixtures (`tests/protocols/`) against TLC's recorded results.

Each port must reach exactly TLC's distinct-state count (`manifest.json`), hold every
invariant its `.cfg` checks on every reachable state, have no deadlock where TLC
checks for one, never step into an undefined sequence operation, and declare the
settings the `.cfg` implies. The invariants are decided on the explorer's complete
graph; z3 gets a small budget on the small fixtures, where it must agree (never a
violation, and the explorer's reachable set is z3's). Every `.cfg` PROPERTY is ported
and holds, as TLC recorded (its run of that `.cfg` succeeded), and fails without the
spec's fairness. SPIN's verdicts and counts are checked in `test_spin.py`'s style where
spin is installed, liveness included.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from protocols import FIXTURES
from protocols import Fixture

from models.kernel import Seq
from models.kernel import Var
from models.kernel import row
from models.kernel.checks import Checker
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.expr import And
from models.kernel.expr import Enabled
from models.kernel.expr import Expr
from models.kernel.expr import Not
from models.kernel.liveness import Graph
from models.kernel.liveness import check_liveness
from models.kernel.smt import Encoding
from models.kernel.spec import Fairness
from models.kernel.spin import disagreements
from models.kernel.spin import find_deadlock
from models.kernel.spin import run_spin
from models.kernel.spin import spin_liveness
from models.kernel.spin import tools_missing

PROTOCOLS = Path(__file__).resolve().parents[2] / "shared" / "protocols"
IDS = [f.spec.name for f in FIXTURES]
_GRAPHS: dict[str, Exploration] = {}


def graph(fixture: Fixture) -> Exploration:
    if fixture.spec.name not in _GRAPHS:
        _GRAPHS[fixture.spec.name] = explore(fixture.spec)
    return _GRAPHS[fixture.spec.name]


def first_deadlock(fixture: Fixture) -> int | None:
    """The shallowest reachable non-terminal state where no row of any trigger is enabled."""
    spec = fixture.spec
    live = spec.expand(Enabled(tuple(t.name for t in spec.triggers)))
    stuck: Expr = Not(live) if spec.terminal is None else And((Not(live), Not(spec.terminal)))
    return graph(fixture).first_state(stuck)


def holds_everywhere(g: Exploration, pred: Expr) -> bool:
    return g.first_state(Not(pred)) is None


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_state_count_is_tlcs(fixture: Fixture) -> None:
    assert len(graph(fixture).states) == fixture.tlc_states
    manifest = PROTOCOLS / fixture.folder / "manifest.json"
    if manifest.exists():  # the figure pinned here is the one TLC recorded
        recorded = [
            m["distinctStates"]
            for module in json.loads(manifest.read_text())["modules"]
            for m in module["models"]
            if "distinctStates" in m
        ]
        assert fixture.tlc_states in recorded


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_invariants_hold_on_every_reachable_state(fixture: Fixture) -> None:
    spec, g = fixture.spec, graph(fixture)
    for name in fixture.invariants:
        if name == "TypeOK" and name not in {p.name for p in spec.properties}:
            # TypeOK is the declared domains: every reachable value lies in them.
            for i in range(len(g.states)):
                state = g.as_dict(i)
                assert all(v.domain.contains(state[v.name]) for v in spec.vars), state
            continue
        assert holds_everywhere(g, spec.prop(name).pred), name


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_deadlock_as_tlc_checks_it(fixture: Fixture) -> None:
    spec, g = fixture.spec, graph(fixture)
    assert spec.check_deadlock == fixture.check_deadlock
    assert spec.totality == "enabled-only"
    stuck_at = first_deadlock(fixture)
    if fixture.check_deadlock:
        assert stuck_at is None, g.as_dict(stuck_at or 0)
    else:
        # TLC is told not to look: these protocols do stop (a node waits forever).
        assert stuck_at is not None


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_no_undefined_step(fixture: Fixture) -> None:
    spec, g = fixture.spec, graph(fixture)
    for r in spec.rows:
        when = spec.defined(r)
        if when is not None:
            bad = spec.for_some_arguments(r.trigger, And((spec.source_expr(r), Not(when))))
            assert g.first_state(bad) is None, r.name


def test_invariants_and_bounds_have_teeth() -> None:
    """Break a port and its checks fail: a writer that ignores readers breaks Safety,
    and a queue one request too short overflows (reported with its trace)."""
    rw = next(f.spec for f in FIXTURES if f.spec.name == "ReadersWriters")
    write = rw.row("write")
    careless = row(
        "write",
        "ReadOrWrite",
        None,
        guard=write.guard.args[0] if isinstance(write.guard, And) else write.guard,
        sets=dict(write.updates),
        cite=write.cite,
    )
    broken = replace(rw, rows=tuple(careless if r.name == "write" else r for r in rw.rows))
    g = explore(broken)
    assert not holds_everywhere(g, broken.prop("Safety").pred)

    queue = rw.var("waiting")
    assert isinstance(queue.domain, Seq)
    short = Var("waiting", Seq(queue.domain.element, queue.domain.max_len - 1), ())
    cramped = replace(rw, vars=tuple(short if v.name == "waiting" else v for v in rw.vars))
    g = explore(cramped)  # the overflowing append is not taken: it is reported
    overflow = [
        g.first_state(
            cramped.for_some_arguments(r.trigger, And((cramped.source_expr(r), Not(when))))
        )
        for r in cramped.rows
        if (when := cramped.defined(r)) is not None and r.name.startswith("try_")
    ]
    hits = [i for i in overflow if i is not None]
    assert hits and min(g.depth[i] for i in hits) == queue.domain.max_len - 1


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_every_fixture_translates_to_z3(fixture: Fixture) -> None:
    """z3's encoding takes every row and property of every fixture (no solving here)."""
    enc = Encoding(fixture.spec)
    pre, post, act = enc.frame("a"), enc.frame("b"), enc.action("a")
    assert enc.trans(pre, post, act) is not None
    assert enc.init(pre) is not None
    for p in fixture.spec.properties:
        if p.over_steps:  # Quiescence reads the step's after-state
            assert enc.expr(p.pred, pre=pre, post=post, act=act) is not None
        else:
            assert enc.expr(p.pred, pre=pre) is not None


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_verify_passes_every_fixture(fixture: Fixture) -> None:
    """Every check `verify` runs: each invariant proved, deadlock checked as TLC does, no
    undefined step, and z3 never contradicting the explorer (its certificates and its
    reachable set within their budgets; a budget spent is an honest `unknown`)."""
    results = {r.id: r for r in Checker(fixture.spec).run()}
    for name in fixture.invariants:
        if name in results:
            assert results[name].verdict == "proved", (name, results[name].detail)
    assert ("no-deadlock" in results) == fixture.check_deadlock
    assert "totality" not in results  # enabled-only
    for r in results.values():
        assert "disagree" not in r.detail, (r.id, r.detail)
        if r.id == "reachable-set" and r.verdict == "unknown":
            assert "budget" in r.detail or "canceled" in r.detail, r.detail
            continue
        assert r.ok, (r.id, r.verdict, r.detail)


@pytest.mark.slow  # SPIN's agreement: `make test`, not the gate
@pytest.mark.skipif(bool(tools_missing()), reason="SPIN needs spin and gcc: `make spin`")
@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_spin_agrees(fixture: Fixture) -> None:
    """SPIN, through the Promela export: TLC's state count, every invariant proved, and
    every verdict and count as the explorer's."""
    result = run_spin(fixture.spec)
    assert result.states == fixture.tlc_states
    for p in fixture.spec.properties:
        assert result.verdicts[p.name].verdict == "proved", p.name
    assert disagreements(fixture.spec, result, graph(fixture)) == []


@pytest.mark.slow  # SPIN's agreement: `make test`, not the gate
@pytest.mark.skipif(bool(tools_missing()), reason="SPIN needs spin and gcc: `make spin`")
@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_spin_finds_deadlock_as_the_explorer_does(fixture: Fixture) -> None:
    """pan's invalid end states are the kernel's deadlocks: none where TLC checks for them,
    and where TLC is told not to look, the same shortest one."""
    found = find_deadlock(fixture.spec)
    stuck_at = first_deadlock(fixture)
    assert found.found == (stuck_at is not None) == (not fixture.check_deadlock)
    if stuck_at is not None:
        assert found.trace is not None
        assert len(found.trace) == graph(fixture).depth[stuck_at]


# ---------------------------------------------------------------- the .cfg's PROPERTY lines

# A PROPERTY the vocabulary has no form for, with the reason.
NOT_PORTED = {
    ("EWD840", "TDSpec"): "a refinement mapping (EWD840 implements SyncTerminationDetection)",
}
_CFG_KEYWORDS = re.compile(
    r"^(SPECIFICATION|INIT|NEXT|INVARIANTS?|PROPERTY|PROPERTIES|CONSTANTS?|"
    r"CHECK_DEADLOCK|SYMMETRY|VIEW|CONSTRAINTS?|ACTION_CONSTRAINTS?)\b"
)


def cfg_properties(fixture: Fixture) -> list[str]:
    """The names after PROPERTY/PROPERTIES in the fixture's .cfg, up to the next keyword."""
    names: list[str] = []
    reading = False
    for line in (PROTOCOLS / fixture.folder / fixture.cfg).read_text().splitlines():
        words = line.split("\\*")[0].split()
        if not words:
            continue
        if _CFG_KEYWORDS.match(words[0]):
            reading = words[0] in ("PROPERTY", "PROPERTIES")
            words = words[1:]
        if reading:
            names += words
    return names


def tlc_result(fixture: Fixture) -> str:
    """TLC's recorded result for the fixture's .cfg (manifest.json): "success" means every
    PROPERTY it names held."""
    manifest = json.loads((PROTOCOLS / fixture.folder / "manifest.json").read_text())
    (result,) = [
        m["result"]
        for module in manifest["modules"]
        for m in module["models"]
        if m["path"].endswith("/" + fixture.cfg)
    ]
    return str(result)


def ported(fixture: Fixture, name: str) -> list[str]:
    """Our properties carrying the .cfg's `name`: itself, or one per process (`name-p`)."""
    spec = fixture.spec
    ours = [p.name for p in spec.properties] + [p.name for p in spec.liveness]
    return [n for n in ours if n == name or n.startswith(name + "-")]


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_every_cfg_property_is_ported(fixture: Fixture) -> None:
    names = cfg_properties(fixture)
    for name in names:
        if (fixture.spec.name, name) in NOT_PORTED:
            continue
        assert ported(fixture, name), f"{fixture.cfg} PROPERTY {name} is not ported"
    # And every liveness property comes from the .cfg (Echo's names none: TLC checks none).
    carried = {n for name in names for n in ported(fixture, name)}
    assert {p.name for p in fixture.spec.liveness} <= carried
    assert bool(fixture.spec.liveness) == (fixture.spec.name != "Echo")


LIVE_FIXTURES = [
    pytest.param(f, id=f.spec.name, marks=[pytest.mark.slow] if f.tlc_states > 10_000 else [])
    for f in FIXTURES
    if f.spec.liveness
]


@pytest.mark.parametrize("fixture", LIVE_FIXTURES)
def test_liveness_holds_as_tlc_recorded(fixture: Fixture) -> None:
    """TLC's run of the .cfg succeeded, so each PROPERTY held; so must ours, exhaustively,
    and each must fail without the spec's fairness (a run may then stop anywhere)."""
    assert tlc_result(fixture) == "success"
    spec = fixture.spec
    live = Graph(graph(fixture))
    for p in spec.liveness:
        assert check_liveness(live, p).holds, p.name
    bare = replace(spec, fairness=())
    for p in spec.liveness:
        found = check_liveness(live, replace(p, fairness=()), spec=bare)
        assert not found.holds and found.lasso is not None, p.name


# A fair process is fair per process: the same fairness over all processes together lets
# one process run while another starves. (ChangRoberts's election needs no more than that.)
PER_PROCESS = {
    "DiningPhilosophers": {"NobodyStarves-1"},
    "Prisoners": {"Liveness"},
    "ReadersWriters": {"Liveness-reads-1", "Liveness-writes-1"},
    "SingleLaneBridge": {"CarsEnterBridge-r1", "CarsEnterBridge-l1"},
}


@pytest.mark.parametrize(
    "fixture", [f for f in FIXTURES if f.spec.name in PER_PROCESS], ids=lambda f: f.spec.name
)
def test_a_fair_process_is_fair_per_process(fixture: Fixture) -> None:
    spec = fixture.spec
    assert any(f.each is not None for f in spec.fairness)
    whole = replace(spec, fairness=tuple(Fairness(f.kind, f.name) for f in spec.fairness))
    live = Graph(graph(fixture))
    for name in PER_PROCESS[spec.name]:
        assert not check_liveness(live, spec.live(name), spec=whole).holds, name


@pytest.mark.slow  # SPIN's agreement: `make test`, not the gate
@pytest.mark.skipif(bool(tools_missing()), reason="SPIN needs spin and gcc: `make spin`")
@pytest.mark.parametrize(
    "fixture", [f for f in FIXTURES if f.spec.liveness], ids=lambda f: f.spec.name
)
def test_spin_agrees_on_liveness(fixture: Fixture) -> None:
    """SPIN proves every ported liveness property too, and refutes the first without the
    spec's fairness."""
    spec = fixture.spec
    for p in spec.liveness:
        assert spin_liveness(spec, p.name).holds, p.name
    first = spec.liveness[0]
    bare = replace(spec, fairness=(), liveness=(replace(first, fairness=()),))
    assert not spin_liveness(bare, first.name).holds
