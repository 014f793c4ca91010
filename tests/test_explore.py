"""The compiled explorer against the `transitions` oracle, on every spec and variant.

The explorer compiles rows into generated code; the oracle is the conformance
reference. From every reachable state, every firing must give the same row,
successor and outputs in both (or be undefined in both), and the initial
states must match: together that makes the two reachable graphs identical.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import random
import re
import types
from typing import Any

import pytest
from families import counters
from families import duplex_product
from protocols import FIXTURES

from models.cli.registry import expand
from models.kernel import FALSE
from models.kernel import TRUE
from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Domain
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Func
from models.kernel import FuncValue
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Real
from models.kernel import Seq
from models.kernel import Set
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import and_
from models.kernel import append
from models.kernel import at
from models.kernel import eq
from models.kernel import explore as explore_module
from models.kernel import func
from models.kernel import ge
from models.kernel import group_is
from models.kernel import gt
from models.kernel import head
from models.kernel import ignore
from models.kernel import implies
from models.kernel import index
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import ite
from models.kernel import le
from models.kernel import length
from models.kernel import lt
from models.kernel import member
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import row_is
from models.kernel import set_add
from models.kernel import set_remove
from models.kernel import size
from models.kernel import some
from models.kernel import sub
from models.kernel import tail
from models.kernel import trigger_is
from models.kernel import unwrap
from models.kernel import update
from models.kernel import var
from models.kernel.explore import Edge
from models.kernel.explore import Exploration
from models.kernel.explore import ExplorationLimit
from models.kernel.explore import explore
from models.kernel.explore import initial_states
from models.kernel.expr import And
from models.kernel.expr import Const
from models.kernel.expr import Enabled
from models.kernel.expr import Env
from models.kernel.expr import ExprTypeError
from models.kernel.expr import evaluate
from models.kernel.oracle import NotTotal
from models.kernel.oracle import Oracle
from models.kernel.oracle import OracleError

# Above this many states a seeded sample of states is compared (the oracle is slow).
SAMPLE = 120


def _scale() -> Spec:
    """A real computed by `add` leaves the samples: the explorer falls back to plain tuples."""
    weight = Real(samples=(1.0, 2.0))
    return Spec(
        name="scale",
        source="tests/test_explore.py",
        vars=(Var("w", Option(weight), None), Var("n", IntRange(0, 3), 0)),
        triggers=(Trigger("put", (Param("kg", weight),)), Trigger("tare")),
        rows=(
            row("put", "put", None, sets={"w": some(add(param("kg"), 0.5))}, cite="toy"),
            row(
                "tare",
                "tare",
                None,
                guard=lt(var("n"), 3),
                sets={"n": add(var("n"), 1)},
                cite="toy",
            ),
            ignore("tare_full", "tare", None, guard=eq(var("n"), 3), cite="toy"),
        ),
    )


SPECS = [*expand([]), counters(2), duplex_product(2), _scale()]


def _agree(spec: Spec) -> int:
    graph = explore(spec)
    oracle = Oracle(spec)
    names = graph.names
    assert {tuple(s[n] for n in names) for s in initial_states(spec)} == {
        graph.states[i] for i, d in enumerate(graph.depth) if d == 0
    }
    undefined = {(i, t, tuple(sorted(p.items()))) for i, t, p in graph.undefined}
    chosen = range(len(graph.states))
    if len(graph.states) > SAMPLE:
        chosen = sorted(random.Random(0).sample(chosen, SAMPLE))  # type: ignore[assignment]
    compared = 0
    for i in chosen:
        by_firing = {(e.trigger, tuple(sorted(e.params.items()))): e for e in graph.successors(i)}
        for t in spec.triggers:
            for params in spec.param_assignments(t.name):
                key = (t.name, tuple(sorted(params.items())))
                oracle.load(graph.as_dict(i))
                try:
                    fired = oracle.fire(t.name, **params)
                except NotTotal:
                    assert key not in by_firing and (i, *key) in undefined, (spec.name, i, key)
                    continue
                edge = by_firing[key]
                assert edge.row == fired.row, (spec.name, graph.as_dict(i), key)
                assert graph.as_dict(edge.target) == dict(fired.state), (spec.name, edge.row)
                assert dict(edge.outputs) == dict(fired.outputs), (spec.name, edge.row)
                compared += 1
    return compared


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_the_compiled_explorer_steps_exactly_like_the_oracle(spec: Spec) -> None:
    assert _agree(spec) > 0


def test_counters_have_ten_to_the_k_states_and_shortest_paths() -> None:
    graph = explore(counters(3))
    assert len(graph.states) == 1000
    # Every triple of 0..9, each as deep as its increments (resets only go back): the
    # set and the shortest paths themselves, not only their count.
    assert set(graph.states) == set(itertools.product(range(10), repeat=3))
    assert all(graph.depth[i] == sum(s) for i, s in enumerate(graph.states))
    assert graph.diameter == 27
    assert graph.edge_count == 1000 * 6
    top = graph.first_state(counters(3).prop("all-at-top").pred)
    assert top is not None
    assert len(graph.path_to(top)) == 27


def _dial() -> Spec:
    """x in 0..3, turned to any value at once: four states, three of them one step deep."""
    return Spec(
        name="dial",
        source="tests/test_explore.py",
        vars=(Var("x", IntRange(0, 3), 0),),
        triggers=(Trigger("turn", (Param("to", IntRange(0, 3)),)),),
        rows=(row("turn", "turn", None, sets={"x": param("to")}, cite="toy"),),
    )


def test_one_pass_finds_each_case_at_its_own_shallowest_state() -> None:
    # The structural checks decide all their cases in one pass over the states: a case
    # hit at once must not end the search for the others, and each keeps its arguments.
    graph = explore(_dial())
    hits = graph.first_states_with(
        [
            (eq(var("x"), 0), "turn"),
            (and_(eq(var("x"), 2), eq(param("to"), 1)), "turn"),
            (lt(param("to"), 0), "turn"),
        ]
    )
    assert hits[0] == (0, {})
    assert hits[1] is not None
    state, arguments = hits[1]
    assert (graph.as_dict(state), graph.depth[state], arguments) == ({"x": 2}, 1, {"to": 1})
    assert hits[2] is None


def test_specs_pack_into_ints_unless_a_value_leaves_the_layout() -> None:
    assert explore(counters(2)).code.layout is not None
    scale = explore(_scale())
    assert scale.code.layout is None
    assert {s[0] for s in scale.states} == {None, 1.5, 2.5}
    assert len(scale.states) == 3 * 4


def test_the_explorer_stops_at_its_state_limit() -> None:
    with pytest.raises(ExplorationLimit, match="more than 500 reachable states"):
        explore(counters(3), max_states=500)


def test_verify_reports_a_spec_too_big_for_the_explorer_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Too big to explore is that spec's checks stopping (exit 1), not a usage error (2):
    # the message is one line, no traceback, and the other specs are still checked.
    from models.cli import main as cli
    from models.cli import registry
    from models.kernel import checks

    monkeypatch.setattr(checks, "explore", functools.partial(explore, max_states=10))
    assert cli.main(["verify", "wave", "duplex", "--jobs", "1"]) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    lines = [line.strip() for line in out.splitlines()]
    for name in ("wave", "wave:seed", "duplex"):  # each variant is a spec of its own
        assert f"error: the checks stopped: spec {name!r}: more than 10 reachable states" in lines
        assert f"{name}: the checks stopped: spec {name!r}: more than 10 reachable states" in lines
    stopped = len(registry.expand(["wave", "duplex"], registry.load()))
    assert f"verify: FAILED — {stopped} specs stopped on an error" in out  # one did not stop all


@pytest.mark.parametrize(
    ("spec", "packed"), [(duplex_product(2), True), (_scale(), False)], ids=["packed", "tuples"]
)
def test_classes_are_equal_exactly_where_states_agree_on_the_variables(
    spec: Spec, packed: bool
) -> None:
    # A system's pictures project its states onto each component's variables with these.
    graph = explore(spec)
    assert (graph.code.layout is not None) == packed
    names = [v.name for v in spec.vars][::2]
    keys = graph.classes(names)
    values = [tuple(graph.as_dict(i)[n] for n in names) for i in range(len(graph.states))]
    pairs = set(zip(keys, values, strict=True))
    assert len(pairs) == len(set(keys)) == len(set(values)) < len(graph.states)


PROTOCOLS = [f.spec for f in FIXTURES]


@pytest.mark.parametrize("spec", [*SPECS, *PROTOCOLS], ids=lambda s: s.name)
def test_firings_specialised_or_in_a_loop_give_one_graph(
    spec: Spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The search starts with a loop per trigger over its parameters and may switch, at
    # any state, to code with the parameters as constants per firing: the graph, its
    # order, depths and parent links, the unanswered firings and the one-pass tests
    # must not tell which ran. Here every parameterised trigger is specialised (within
    # the size bound) from the first state, or half way, or never.
    monkeypatch.setattr(explore_module, "_hashed_in_python", lambda value: True)
    monkeypatch.setattr(explore_module, "_switch_pays", lambda unrolled, firings: unrolled > 0)
    runs: list[Exploration] = []
    for after in (10**9, 0, None):
        if after is None:
            after = len(runs[0].states) // 2
        monkeypatch.setattr(explore_module, "_SPECIALISE_AFTER", after)
        runs.append(explore(spec, keep_moves=after > 0))  # the edges recorded across a switch
    looped, chosen = runs[0], range(len(runs[0].states))
    if len(chosen) > SAMPLE:
        chosen = sorted(random.Random(0).sample(chosen, SAMPLE))  # type: ignore[assignment]
    cases = [(spec.step_guard(spec.rows_of(t.name)[0]), t.name) for t in spec.triggers]
    for other in runs[1:]:
        assert other._keys == looped._keys
        assert (other.depth, other._psrc, other._pcode) == (
            looped.depth,
            looped._psrc,
            looped._pcode,
        )
        assert other.undefined == looped.undefined
        assert [other.moves(i) for i in chosen] == [looped.moves(i) for i in chosen]
        assert other.first_states_with(cases) == looped.first_states_with(cases)
    if len(looped.states) <= 5000:
        assert runs[2].move_table() == looped.move_table() == runs[1].move_table()
    assert looped.code.budget == 0
    if looped.code.specialisable:
        blocks = runs[1].code.blocks
        assert any(not b.looped and b.bound for b in blocks), spec.name


# Functions, sequences and sets (SingleLaneBridge, Echo), and a spec stored as tuples.
DATA_SPECS = [f.spec for f in FIXTURES if f.spec.name in ("SingleLaneBridge", "Echo")]


@pytest.mark.parametrize("spec", [*DATA_SPECS, _scale()], ids=lambda s: s.name)
def test_a_state_mask_is_the_predicate_evaluated_at_each_state(spec: Spec) -> None:
    # The liveness checks read their predicates as masks, generated like the explorer's rows.
    graph = explore(spec)
    preds = [p.pred for p in spec.properties if not p.over_steps]
    preds += [q for p in spec.liveness for q in (p.pred, p.then) if q is not None]
    # Each trigger's enabledness: its guards, over the data, under quantified parameters.
    preds += [spec.expand(Enabled((t.name,))) for t in spec.triggers]
    states = [graph.as_dict(i) for i in range(len(graph.states))]
    mixed = 0
    for pred in preds:
        mask = graph.state_mask(pred)
        assert mask == [bool(evaluate(pred, Env(pre=s))) for s in states], pred
        mixed += 0 < sum(mask) < len(mask)
    assert mixed  # some predicate tells states apart


@pytest.mark.parametrize("spec", [*DATA_SPECS, duplex_product(2), _scale()], ids=lambda s: s.name)
def test_a_search_keeping_its_moves_records_every_edge_it_would_generate(spec: Spec) -> None:
    plain, keeping = explore(spec), explore(spec, keep_moves=True)
    assert plain._moves is None and keeping._moves is not None  # 8 bytes an edge: if asked
    assert keeping._keys == plain._keys and keeping.depth == plain.depth
    assert keeping._psrc == plain._psrc and keeping._pcode == plain._pcode
    starts, codes, targets = keeping.move_table()
    assert (starts, codes, targets) == plain.move_table()
    rows = len(plain.code.rows)
    recorded = [
        [(c // rows, c % rows, t) for c, t in zip(codes[a:b], targets[a:b], strict=True)]
        for a, b in itertools.pairwise(starts)
    ]
    assert recorded == [plain.moves(i) for i in range(len(plain.states))]
    if spec.name == "duplex2":  # its ignore rows: moves that stay, recorded too
        assert any(t == i for i, out in enumerate(recorded) for _, _, t in out)


@pytest.mark.parametrize("spec", [*SPECS, *PROTOCOLS], ids=lambda s: s.name)
def test_each_rows_witness_is_its_first_edge_in_bfs_then_firing_order(spec: Spec) -> None:
    # One generated pass finds them; here every edge is listed and the first of each row
    # taken, so a pass that stopped early or skipped a row would show.
    graph = explore(spec)
    first: dict[str, tuple[int, int, int]] = {}
    for i in range(len(graph.states)):
        for k, r, t in graph.moves(i):
            first.setdefault(graph.code.rows[r].name, (i, k, t))
    firing = {(f.trigger, *f.params.items()): k for k, f in enumerate(graph.code.firings)}
    witnesses = graph.row_witnesses()
    assert {
        name: (e.source, firing[(e.trigger, *e.params.items())], e.target)
        for name, e in witnesses.items()
    } == first
    assert list(witnesses) == [r.name for r in graph.code.rows if r.name in first]


# ---------------------------------------------------------------- folding, exactly

_P, _Q, _R = lt(var("x"), 1), lt(var("x"), 2), lt(var("x"), 3)
_SEVEN = [lt(var("x"), k) for k in range(1, 8)]  # _P first


@pytest.mark.parametrize(
    ("given", "folded"),
    [
        (and_(TRUE, _P), _P),
        (and_(_P, FALSE, _Q), FALSE),
        (and_(TRUE, TRUE), TRUE),
        (and_(_P, TRUE, _Q), and_(_P, _Q)),
        (or_(FALSE, _P), _P),
        (or_(_P, TRUE), TRUE),
        (or_(FALSE, FALSE), FALSE),
        (or_(_P, FALSE, _Q), or_(_P, _Q)),
        (implies(TRUE, _P), _P),
        (implies(FALSE, _P), TRUE),
        (implies(_P, TRUE), TRUE),
        (implies(_P, FALSE), not_(_P)),
        (implies(and_(_P, _Q), _Q), TRUE),  # `defined`'s `p /\ q => p`
        (implies(_P, _Q), implies(_P, _Q)),
        (not_(not_(_P)), _P),
        (not_(_P), not_(_P)),
        (ite(TRUE, var("x"), 0), var("x")),
        (ite(FALSE, var("x"), 0), Const(0)),
        (add(1, add(2, 3)), Const(6)),  # closed: evaluated
        (add(unwrap(Const(None)), 1), add(Const(None), 1)),  # a dead branch, left unevaluated
        (head(Const(())), head(Const(()))),  # undefined: left for the branch never taken
        (and_(_P, and_(_Q, _R)), and_(_P, _Q, _R)),  # flattened
        # A defined-ness condition before its guard: p, then q only where p holds.
        (and_(implies(_P, _Q), _R, _P), and_(_P, _Q, _R)),
        (and_(implies(_P, _Q), _R), and_(implies(_P, _Q), _R)),
        # Later arguments read with what the earlier ones say.
        (and_(_P, not_(_P)), FALSE),
        (and_(_P, _Q, or_(_P, _R)), and_(_P, _Q)),
        (and_(_P, _Q, or_(_Q, _R)), and_(_P, _Q)),  # what the second says too
        # Up to eight arguments: the ninth is not read with what the first says.
        (and_(*_SEVEN, not_(_P)), FALSE),
        (and_(*_SEVEN, _R, not_(_P)), and_(*_SEVEN, _R, not_(_P))),
        (and_(not_(_P), or_(_P, _Q)), and_(not_(_P), _Q)),
        (or_(_P, and_(_P, _Q)), _P),
        (or_(and_(_P, _Q), _Q), or_(and_(_P, _Q), _Q)),  # an Or's false And says nothing
        (or_(not_(_P), _P), TRUE),
        # An Or's false Or says each of its arguments is false; a false Not(And), each true.
        (or_(or_(_P, _Q), _P), or_(_P, _Q)),
        (or_(not_(and_(_P, _Q)), _Q), TRUE),
        (implies(_P, and_(_P, _Q)), implies(_P, _Q)),
        (implies(not_(_P), _P), _P),
    ],
)
def test_folding_simplifies_constants_and_what_earlier_arguments_decide(
    given: Expr, folded: Expr
) -> None:
    assert explore_module._fold(given) == folded


# ---------------------------------------------------------------- a spec of every layout


class _Lamp(enum.Enum):
    OFF = "off"
    DIM = "dim"
    BRIGHT = "bright"


class _Hue(enum.StrEnum):
    RED = "red"


def _as_tuples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The explorer keeps every state as a tuple of values instead of packing it."""
    monkeypatch.setattr(explore_module, "_few", lambda domain: False)
    monkeypatch.setattr(explore_module, "is_data", lambda domain: True)


def _panel(totality: str = "explicit") -> Spec:
    """Every kind of packed field: a control enum (looked up by id), a bool, an integer
    range not starting at 0, an optional one, and strings; a trigger with parameters."""
    lamp = Finite("lamp", tuple(_Lamp))
    return Spec(
        name="panel",
        source="tests/test_explore.py",
        control="lamp",
        vars=(
            Var("lamp", lamp, _Lamp.OFF),
            Var("armed", Bool(), False),
            Var("x", IntRange(2, 5), 2),
            Var("o", Option(IntRange(0, 2)), None),
            Var("tag", Finite("tag", ("a", "b")), "a"),
        ),
        outputs=(Output("said", IntRange(0, 9), 0),),
        triggers=(
            Trigger("flip"),
            Trigger("set", (Param("to", IntRange(0, 2)), Param("t", Finite("tag", ("a", "b"))))),
            Trigger("bump", group="knob"),
        ),
        rows=(
            row(
                "arm",
                "flip",
                _Lamp.OFF,
                _Lamp.DIM,
                guard=not_(var("armed")),
                sets={"armed": True},
                cite="toy",
            ),
            row(
                "glow",
                "flip",
                _Lamp.DIM,
                _Lamp.BRIGHT,
                sets={"o": some(0)},
                emits={"said": 1},
                cite="toy",
            ),
            row(
                "dark",
                "flip",
                (_Lamp.OFF, _Lamp.BRIGHT),
                _Lamp.OFF,
                sets={"armed": False, "tag": "b"},
                cite="toy",
            ),
            row(
                "set",
                "set",
                (_Lamp.DIM, _Lamp.BRIGHT),
                guard=is_some(var("o")),
                sets={"o": some(param("to")), "tag": param("t")},
                emits={"said": add(param("to"), 2)},
                cite="toy",
            ),
            ignore("set_off", "set", _Lamp.OFF, cite="toy"),
            ignore(
                "set_unset", "set", (_Lamp.DIM, _Lamp.BRIGHT), guard=is_none(var("o")), cite="toy"
            ),
            row(
                "bump",
                "bump",
                None,
                guard=and_(var("armed"), lt(var("x"), 5)),
                sets={"x": add(var("x"), 1)},
                cite="toy",
            ),
            # Its guard negates the row's before it: the code's `else`.
            ignore(
                "bump_idle",
                "bump",
                None,
                guard=not_(and_(var("armed"), lt(var("x"), 5))),
                cite="toy",
            ),
        ),
        totality=totality,  # type: ignore[arg-type]
    )


def test_the_panel_has_its_exact_graph() -> None:
    spec = _panel()
    graph = explore(spec)
    assert graph.code.layout is not None
    assert (len(graph.states), graph.diameter, graph.edge_count) == (65, 8, 65 * 8)
    assert list(graph.depth).count(0) == 1 and list(graph.depth).count(8) == 5
    assert list(graph.depth) == sorted(graph.depth)  # BFS order
    assert graph.states[0] == (_Lamp.OFF, False, 2, None, "a")
    assert graph.states[2] == (_Lamp.BRIGHT, True, 2, 0, "a")
    assert graph.undefined == []
    assert _agree(spec) == 65 * 8  # every firing of every state, as the oracle fires it
    # Each shortest path ends where it says, as deep as its state, one step at a time.
    for i in range(len(graph.states)):
        path = graph.path_to(i)
        assert len(path) == graph.depth[i]
        assert path.init == graph.as_dict(0)
        assert path.states()[-1] == graph.as_dict(i)
        parent = graph.parent[i]
        assert (parent is None) == (i == 0)
        if parent is not None:
            assert parent == graph.parent_of(i) and parent.target == i
            assert parent in graph.successors(parent.source)
            assert graph.depth[parent.source] == graph.depth[i] - 1
    assert graph.parent_of(len(graph.states)) is None
    assert (graph._psrc[0], graph._pcode[0]) == (-1, -1)  # the root's record: no parent
    edge = graph.successors(2)[1]  # `set` with to=0, t="a" from BRIGHT
    assert (edge.row, edge.trigger, dict(edge.params), dict(edge.outputs)) == (
        "set",
        "set",
        {"to": 0, "t": "a"},
        {"said": 2},
    )
    through = graph.path_through(edge)
    assert len(through) == 3 and through.steps[-1] == graph.step(edge)
    assert graph.step(edge).state == graph.as_dict(edge.target)
    env = graph.edge_env(edge)
    assert (env.pre, env.post, env.trigger, env.row) == (
        graph.as_dict(2),
        graph.as_dict(edge.target),
        "set",
        "set",
    )
    assert graph.edges == list(graph.iter_edges()) and len(graph.edges) == graph.edge_count
    assert graph.edges[0].source == 0 and graph.edges[-1].source == 64
    assert graph.edge_of(2, *graph.moves(2)[1]) == edge


_PANEL_PREDICATES = [
    var("armed"),
    not_(var("armed")),
    eq(var("lamp"), _Lamp.DIM),
    eq(_Lamp.BRIGHT, var("lamp")),
    is_in(var("lamp"), _Lamp.OFF, _Lamp.BRIGHT),
    is_in(var("x"), 2, 5, 9),
    is_in(var("x"), 9),
    is_in(var("x"), 6),  # one past the last code: never either
    is_in(var("tag"), "b", "z"),
    eq(var("x"), 3),
    eq(4, var("x")),
    eq(var("x"), 1),  # outside the range: never
    eq(var("x"), add(var("x"), 0)),
    eq(var("o"), None),
    eq(var("o"), 2),
    is_some(var("o")),
    is_none(var("o")),
    eq(var("tag"), "b"),
    and_(var("armed"), eq(var("x"), 3), eq(var("tag"), "a")),
    and_(eq(var("x"), 3), eq(var("x"), 4)),  # one field twice: cannot hold
    and_(eq(var("x"), 3), is_some(var("o")), lt(unwrap(var("o")), 2)),
    and_(var("armed"), is_some(var("o")), ge(var("x"), 4)),
    or_(eq(var("x"), 5), eq(var("lamp"), _Lamp.OFF)),
    implies(var("armed"), gt(var("x"), 2)),
    ite(var("armed"), eq(var("x"), 2), eq(var("tag"), "b")),
    le(add(var("x"), 1), 4),
    and_(is_some(var("o")), eq(unwrap(var("o")), 1)),
]


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_the_panels_masks_and_first_states_are_the_predicates_evaluated(
    packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    graph = explore(_panel())
    assert (graph.code.layout is not None) == packed
    states = [graph.as_dict(i) for i in range(len(graph.states))]
    for pred in _PANEL_PREDICATES:
        expected = [bool(evaluate(pred, Env(pre=s))) for s in states]
        assert graph.state_mask(pred) == expected, pred
        assert graph.first_state(pred) == (expected.index(True) if any(expected) else None)


_PANEL_STEPS = [
    row_is("set"),
    trigger_is("bump"),
    group_is("knob"),
    eq(out("said"), 3),
    eq(out("said"), 0),
    and_(eq(nxt("x"), 4), var("armed")),
    and_(eq(nxt("tag"), "b"), eq(var("tag"), "a"), row_is("set")),
    eq(nxt("lamp"), _Lamp.BRIGHT),
    and_(row_is("dark"), eq(var("lamp"), _Lamp.OFF)),  # never: `arm` answers there first
    and_(trigger_is("set"), eq(nxt("o"), some(2)), eq(param("t"), "b")),
]


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_a_prefetch_finds_what_each_search_finds_alone_and_answers_without_searching(
    packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    alone = explore(_panel())
    expected_states = [alone.first_state(p) for p in _PANEL_PREDICATES]
    expected_edges = [alone.first_edge(p) for p in _PANEL_STEPS]
    assert any(expected_states) and None in expected_states
    assert any(expected_edges) and None in expected_edges
    graph = explore(_panel())
    graph.prefetch(states=_PANEL_PREDICATES, steps=_PANEL_STEPS)

    def searched(*args: object) -> None:
        raise AssertionError("searched again")

    monkeypatch.setattr(graph.code, "state_test", searched)
    monkeypatch.setattr(graph.code, "step_test", searched)
    assert [graph.first_state(p) for p in _PANEL_PREDICATES] == expected_states
    assert [graph.first_edge(p) for p in _PANEL_STEPS] == expected_edges
    # An equal predicate that is another object was not prefetched: it is searched.
    with pytest.raises(AssertionError, match="searched again"):
        graph.first_state(eq(var("x"), 3))


def test_a_prefetch_that_raises_keeps_nothing_and_each_search_runs_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = _panel()
    graph = explore(spec)

    def broken(preds: object) -> object:
        def first(keys: object) -> None:
            raise RuntimeError("undefined somewhere")

        return first

    monkeypatch.setattr(graph.code, "state_tests", broken)
    monkeypatch.setattr(graph.code, "step_tests", broken)
    graph.prefetch(states=_PANEL_PREDICATES, steps=_PANEL_STEPS)
    alone = explore(spec)
    assert [graph.first_state(p) for p in _PANEL_PREDICATES] == [
        alone.first_state(p) for p in _PANEL_PREDICATES
    ]
    assert [graph.first_edge(p) for p in _PANEL_STEPS] == [
        alone.first_edge(p) for p in _PANEL_STEPS
    ]


def test_a_prefetch_of_two_answers_though_the_other_kind_has_one_or_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two step predicates that every row but `set`'s and `bump`'s makes false: those rows
    # test nothing.
    steps = [row_is("set"), trigger_is("bump")]
    alone = explore(_panel())
    expected = [alone.first_edge(p) for p in steps]
    assert None not in expected

    def searched(*args: object) -> None:
        raise AssertionError("searched alone")

    def broken(preds: object) -> object:
        def first(keys: object) -> None:
            raise RuntimeError("undefined somewhere")

        return first

    one = explore(_panel())
    one.prefetch(states=_PANEL_PREDICATES[:1], steps=steps)
    raised = explore(_panel())
    monkeypatch.setattr(raised.code, "state_tests", broken)
    raised.prefetch(states=_PANEL_PREDICATES[:2], steps=steps)
    for graph in (one, raised):
        monkeypatch.setattr(graph.code, "step_test", searched)
        assert [graph.first_edge(p) for p in steps] == expected
    # A single state predicate is not prefetched: it is searched.
    monkeypatch.setattr(one.code, "state_test", searched)
    with pytest.raises(AssertionError, match="searched alone"):
        one.first_state(_PANEL_PREDICATES[0])


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_the_panels_first_edges_are_the_first_in_bfs_then_firing_order(
    packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    spec = _panel()
    graph = explore(spec)
    assert (graph.code.layout is not None) == packed
    for pred in _PANEL_STEPS:
        expected = next((e for e in graph.iter_edges() if evaluate(pred, graph.edge_env(e))), None)
        assert graph.first_edge(pred) == expected, pred

        def holds(e: Edge, p: Expr = pred) -> bool:
            return bool(evaluate(p, graph.edge_env(e)))

        assert graph.first_edge(holds) == expected
    cases = [
        (and_(eq(var("lamp"), _Lamp.BRIGHT), eq(param("to"), 2)), "set"),
        (eq(var("x"), 5), "set"),  # reads no parameter: one empty argument list
        (and_(eq(param("t"), "b"), eq(var("tag"), "b"), eq(param("to"), var("x"))), "set"),
        (eq(param("to"), 7), "set"),  # folds to false: no code at all
        (and_(var("armed"), eq(param("t"), "a"), eq(var("o"), some(1))), "set"),
    ]
    found = graph.first_states_with(cases)
    assert found == [(2, {"to": 2}), (22, {}), (4, {"to": 2, "t": "b"}), None, (6, {"t": "a"})]
    for (pred, _), hit in zip(cases, found, strict=True):  # the same, state by state
        firsts = (
            (i, {n: a[n] for n in a if f"scope='param', name='{n}'" in repr(pred)})
            for i in range(len(graph.states))
            for a in spec.param_assignments("set")
            if evaluate(pred, Env(pre=graph.as_dict(i), params=a))
        )
        assert next(firsts, None) == hit
    assert graph.first_states_with([]) == []
    witnesses = graph.row_witnesses()
    assert {r: (e.source, e.target) for r, e in witnesses.items()} == {
        "arm": (0, 1),
        "glow": (1, 2),
        "bump": (1, 3),
        "dark": (2, 4),
        "set": (2, 2),
        "set_off": (0, 0),
        "set_unset": (1, 1),
        "bump_idle": (0, 0),
    }
    assert witnesses["set"].params == {"to": 0, "t": "a"}


def test_a_trigger_no_row_answers_is_undefined_where_disabled_is_not_enabled() -> None:
    base = _panel("enabled-only")
    spec = dataclasses.replace(
        base, rows=tuple(r for r in base.rows if r.name not in ("set_off", "bump_idle"))
    )
    graph = explore(spec)
    assert len(graph.states) == 65
    unanswered = [(i, t, dict(p)) for i, t, p in graph.undefined]
    # At OFF every `set` firing is unanswered; `bump` wherever it is not armed or x is 5.
    assert unanswered[:7] == [(0, "set", {"to": to, "t": t}) for to in range(3) for t in "ab"] + [
        (0, "bump", {})
    ]
    assert len(unanswered) == 65 * 8 - graph.edge_count
    assert graph.edge_count == sum(len(graph.moves(i)) for i in range(65))
    assert graph.undefined is graph.undefined  # spelt out once


@pytest.mark.parametrize("names", [["x", "tag"], ["armed"], ["lamp", "o"], []])
@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_the_panels_classes_tell_apart_exactly_the_named_variables(
    names: list[str], packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    graph = explore(_panel())
    assert (graph.code.layout is not None) == packed
    keys = graph.classes(names)
    values = [tuple(graph.as_dict(i)[n] for n in names) for i in range(len(graph.states))]
    assert len(set(zip(keys, values, strict=True))) == len(set(keys)) == len(set(values))


def test_the_states_and_index_read_packed_keys_as_tuples() -> None:
    graph = explore(_panel())
    states, index = graph.states, graph.index
    assert len(states) == len(index) == 65
    assert states[1:3] == [graph.as_dict(i) and states[i] for i in (1, 2)]
    assert states[-1] == (_Lamp.DIM, True, 5, 2, "b")
    assert list(index) == list(states[:]) and index[states[7]] == 7
    assert all(index[s] == i for i, s in enumerate(states))
    # Not a state: x has no code for 9 (its code once spilt into the next field, and 9
    # read as state 60, `(DIM, True, 5, 0, "a")`), nor for 6 (one past its last code), nor
    # for 1, nor `tag` for "c"; nor is a tuple of too few or too many values.
    for outside in [
        (_Lamp.DIM, True, 9, None, "a"),
        (_Lamp.DIM, True, 6, None, "a"),
        (_Lamp.DIM, True, 1, None, "a"),
        (_Lamp.DIM, True, 2, None, "c"),
        (_Lamp.OFF, False, 2, None),
        (_Lamp.OFF, False, 2, None, "a", "a"),
    ]:
        with pytest.raises(KeyError) as raised:
            index[outside]
        assert raised.value.args == (outside,)
        assert outside not in index and index.get(outside) is None
    unpacked = explore(_scale())
    assert unpacked.index is unpacked._index and unpacked.states is unpacked._keys


def test_the_state_limit_is_exact_in_the_search_and_at_the_initial_states(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert len(explore(counters(3), max_states=1000).states) == 1000
    with pytest.raises(ExplorationLimit, match=r"^spec 'counters3': more than 999 reachable"):
        explore(counters(3), max_states=999)
    spread = dataclasses.replace(_dial(), vars=(Var("x", IntRange(0, 3), AnyOf(0, 1, 2)),))
    assert list(explore(spread, max_states=4).depth) == [0, 0, 0, 1]
    with pytest.raises(ExplorationLimit, match=r"^spec 'dial': more than 3 reachable states$"):
        explore(spread, max_states=3)
    with pytest.raises(ExplorationLimit, match=r"^spec 'dial': more than 2 reachable states$"):
        explore(spread, max_states=2)  # among the initial states
    # Every state initial: the bound is met by the initial states alone.
    every = dataclasses.replace(_dial(), vars=(Var("x", IntRange(0, 3), AnyOf(0, 1, 2, 3)),))
    assert list(explore(every, max_states=4).depth) == [0, 0, 0, 0]
    with pytest.raises(ExplorationLimit, match=r"^spec 'dial': more than 3 reachable states$"):
        explore(every, max_states=3)
    # Past the switch to code specialised per firing, the same bound.
    monkeypatch.setattr(explore_module, "_hashed_in_python", lambda value: True)
    monkeypatch.setattr(explore_module, "_SPECIALISE_AFTER", 3)
    assert len(explore(_panel(), max_states=65).states) == 65
    with pytest.raises(ExplorationLimit, match=r"^spec 'panel': more than 64 reachable states$"):
        explore(_panel(), max_states=64, keep_moves=True)


def test_explore_times_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([10.0, 12.5])  # a fake clock: the search reads it at its start and end
    monkeypatch.setattr(
        explore_module, "time", types.SimpleNamespace(perf_counter=readings.__next__)
    )
    graph = explore(_dial())
    assert graph.seconds == 2.5
    assert explore_module.DEFAULT_MAX_STATES == 2_000_000


def _overflow(x: Domain, bump: Expr) -> Spec:
    return Spec(
        name="overflow",
        source="tests/test_explore.py",
        vars=(Var("x", x, AnyOf(*(v for v in x.values or () if v != 2))),),
        triggers=(Trigger("bump"),),
        rows=(row("up", "bump", None, sets={"x": bump}, cite="toy"),),
    )


@pytest.mark.parametrize(
    ("x", "bump", "message"),
    [
        (IntRange(0, 3), add(var("x"), 1), "row 'up' sets 'x' to 4, outside int 0..3"),
        (IntRange(1, 3), sub(var("x"), 1), "row 'up' sets 'x' to 0, outside int 1..3"),
        # A constant once folded: the spec's type check knows integers, not their ranges.
        (IntRange(0, 3), add(3, 4), "row 'up' sets 'x' to 7, outside int 0..3"),
        (
            Option(IntRange(0, 1)),
            ite(is_some(var("x")), some(add(unwrap(var("x")), 1)), some(0)),
            "row 'up' sets 'x' to 2, outside Option[int] (none, 0, 1)",
        ),
    ],
)
@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_arithmetic_leaving_its_range_is_the_rows_error(
    x: Domain, bump: Expr, message: str, packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    with pytest.raises(OracleError) as raised:
        explore(_overflow(x, bump))
    assert str(raised.value) == message


@pytest.mark.parametrize("hashed", [False, True], ids=["ints", "hashed-in-python"])
def test_a_search_switches_code_once_past_its_first_states_only_where_it_pays(
    hashed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dial's firings pass ints, which hash in C: its loop is never built again. Where the
    # parameters hash in Python, the search stops after `_SPECIALISE_AFTER` states and goes
    # on with code built again, specialised per firing.
    monkeypatch.setattr(explore_module, "_SPECIALISE_AFTER", 2)
    monkeypatch.setattr(explore_module, "_hashed_in_python", lambda value: hashed)
    builds: list[bool] = []
    build = explore_module._Compiled.__init__

    def counted(self: Any, spec: Spec, **options: Any) -> None:
        builds.append(options.get("reuse") is not None)
        build(self, spec, **options)

    monkeypatch.setattr(explore_module._Compiled, "__init__", counted)
    graph = explore(_dial())
    assert len(graph.states) == 4
    assert builds == ([False, True] if hashed else [False])


def test_the_specialising_thresholds() -> None:
    switch = explore_module._switch_pays
    assert (switch(0, 0), switch(1, 2), switch(1, 3), switch(2, 3)) == (False, True, False, True)
    budget = [6]
    assert not explore_module._specialise([(1,), (2,)], 3, budget)  # ints hash in C
    assert explore_module._specialise([(_Lamp.OFF,), (1,)], 3, budget) and budget == [0]
    assert explore_module._specialise([], 3, budget) is False  # nothing hashes in Python
    assert not explore_module._specialise([(_Lamp.OFF,)], 1, budget)  # over the budget
    hashed = explore_module._hashed_in_python
    assert hashed(_Lamp.OFF) and hashed((1, (2, _Lamp.DIM))) and hashed(frozenset({_Lamp.DIM}))
    assert not (hashed(1) or hashed("a") or hashed((1, "a")) or hashed(frozenset()) or hashed(None))
    by_id = explore_module._by_identity
    assert by_id([None, _Lamp.OFF]) and not by_id([]) and not by_id(["a"]) and not by_id([1])
    # An enum member with an equality of its own equals a plain value too; an object with
    # only object's equality is not an enum member: neither is looked up by id.
    assert not by_id([_Hue.RED]) and not by_id([object()])
    assert (explore_module._SPECIALISE_UP_TO, explore_module._SPECIALISE_AFTER) == (512, 1024)
    assert (explore_module._PACK_DATA_UP_TO, explore_module._GIVEN_UP_TO) == (1 << 16, 8)


def _shown(gen: object, source: str) -> str:
    """Generated source with each named constant written out, sorted where it is a set."""
    consts = vars(gen)["consts"]

    def value(m: re.Match[str]) -> str:
        v = consts[m.group(0)]
        return repr(sorted(v, key=repr)) if isinstance(v, frozenset) else repr(v)

    return re.sub(r"\bK\d+\b", value, source)


def test_packed_tests_read_bits_and_a_state_decodes_only_what_it_reads() -> None:
    # The layout: lamp in bits 0-1 (by id), armed bit 2, x - 2 in bits 3-4, o in 5-6
    # (None first), tag bit 7.
    code = explore(_panel()).code
    assert code.layout is not None
    assert [f[:3] for f in code.layout.fields] == [
        (0, 3, None),
        (2, 1, None),
        (3, 3, 2),
        (5, 3, None),
        (7, 1, None),
    ]
    assert [b is not None for b in code.layout.by_id] == [True, False, False, False, False]
    gen = code.gen
    gen.params = {}
    expected = [
        "((s & 4) == 4)",
        "(not ((s & 4) == 4))",
        "((s & 3) == 1)",
        "((s & 3) == 2)",
        "((s & 3) in [0, 2])",
        "((s & 24) in [0, 24])",
        "False",
        "False",
        "((s & 128) == 128)",
        "((s & 24) == 8)",
        "((s & 24) == 16)",
        "False",
        "(v2 == (v2 + 0))",
        "((s & 96) == 0)",
        "((s & 96) == 96)",
        "(not ((s & 96) == 0))",
        "(not (not ((s & 96) == 0)))",
        "((s & 128) == 128)",
        "(((s & 156) == 12))",  # three single-field tests, one test of `s`
        "(((s & 24) == 8) and ((s & 24) == 16))",  # one field twice: not merged
        "(((s & 24) == 8) and (not ((s & 96) == 0)) and (v3 < 2))",
        "(((s & 4) == 4) and (not ((s & 96) == 0)) and (v2 >= 4))",
        "(((s & 24) == 24) or ((s & 3) == 0))",
        "((not ((s & 4) == 4)) or bool((v2 > 2)))",
        "(((s & 24) == 0) if ((s & 4) == 4) else ((s & 128) == 128))",
        "((v2 + 1) <= 4)",
        "((not ((s & 96) == 0)) and (v3 == 1))",  # `o` read as a value: a field by its code
    ]
    shown = [_shown(gen, gen.cond(explore_module._fold(p))) for p in _PANEL_PREDICATES]
    assert shown == expected
    assert _shown(gen, gen.cond(and_(eq(var("x"), 3), var("armed"), lt(var("x"), 5)))) == (
        "(((s & 28) == 12) and (v2 < 5))"
    )
    assert _shown(gen, gen.cond(eq(var("x"), var("tag")))) == "(v2 == v4)"
    assert gen.cond(and_(eq(3, var("x")), eq(_Lamp.DIM, var("lamp")))) == "(((s & 27) == 9))"
    # One single-field test is left where it stands; no argument at all is true.
    assert gen.cond(and_(is_some(var("o")), var("armed"))) == (
        "((not ((s & 96) == 0)) and ((s & 4) == 4))"
    )
    assert gen.cond(And(())) == "True"
    assert _shown(gen, gen.cond(is_in(var("x"), 2.5))) == "(v2 in [2.5])"
    assert _shown(gen, gen.cond(eq(var("x"), True))) == "(v2 == True)"
    assert _shown(gen, gen.src(var("x"))) == "v2"
    assert _shown(gen, gen.cond(or_())) == "False"
    assert gen.cond(var("armed")) == "((s & 4) == 4)"
    assert _shown(gen, code._decode({0, 1, 2, 3, 4})) == (
        "v0 = (<_Lamp.OFF: 'off'>, <_Lamp.DIM: 'dim'>, <_Lamp.BRIGHT: 'bright'>)[(s & 3)]; "
        "v1 = (False, True)[((s >> 2) & 1)]; v2 = ((s >> 3) & 3) + 2; "
        "v3 = (None, 0, 1, 2)[((s >> 5) & 3)]; v4 = ('a', 'b')[((s >> 7) & 1)]"
    )
    assert (code._decode({2}), code._decode(set())) == ("v2 = ((s >> 3) & 3) + 2", "pass")
    # Per block of firings, its rows' guards, range checks and successors.
    blocks = [
        (
            b.looped,
            b.k,
            dict(b.params),
            [
                (c.row, _shown(gen, c.guard), c.checks, c.succ and _shown(gen, c.succ))
                for c in b.cases
            ],
        )
        for b in code.blocks
    ]
    assert blocks == [
        (
            False,
            "0",
            {},
            [
                (0, "(((s & 3) == 0) and (not ((s & 4) == 4)))", (), "(s & 248) | 5"),
                (1, "((s & 3) == 1)", (), "(s & 156) | 34"),
                (2, "((s & 3) in [0, 2])", (), "(s & 120) | 128"),
            ],
        ),
        (
            True,
            "k",
            {"to": "p0", "t": "p1"},
            [
                (
                    3,
                    "(((s & 3) in [1, 2]) and (not ((s & 96) == 0)))",
                    (),
                    "(s & 31) | ({None: 0, 0: 1, 1: 2, 2: 3}[p0] << 5)"
                    " | ({'a': 0, 'b': 1}[p1] << 7)",
                ),
                (4, "((s & 3) == 0)", (), None),
                (5, "(((s & 3) in [1, 2]) and (not (not ((s & 96) == 0))))", (), None),
            ],
        ),
        (
            False,
            "7",
            {},
            [
                (
                    6,
                    "(((s & 4) == 4) and (v2 < 5))",
                    ("u2 = (v2 + 1)", "if not (2 <= u2 <= 5): _bad(6, 2, u2)"),
                    "(s & 231) | ((u2 - 2) << 3)",
                ),
                (7, "True", (), None),
            ],
        ),
    ]


def _weights() -> Spec:
    """Reals that stay among the samples pack: a variable's own start, optional or not,
    joins its values."""
    kg = Real(samples=(2.0, 1.0))
    return Spec(
        name="weights",
        source="tests/test_explore.py",
        vars=(
            Var("w", kg, 0.5),
            Var("last", Option(kg), None),
            Var("one", Finite("one", ("only",)), "only"),
            Var("first", Option(kg), 3.0),
        ),
        triggers=(Trigger("put", (Param("kg", kg),)), Trigger("clear")),
        rows=(
            row("put", "put", None, sets={"last": some(param("kg")), "w": param("kg")}, cite="toy"),
            row("clear", "clear", None, sets={"last": None}, cite="toy"),
        ),
    )


def test_reals_pack_as_their_samples() -> None:
    graph = explore(_weights())
    layout = graph.code.layout
    assert layout is not None
    assert [(f[0], f[1], f[3]) for f in layout.fields] == [
        (0, 3, (1.0, 2.0, 0.5)),
        (2, 3, (None, 1.0, 2.0)),
        (4, 1, ("only",)),
        (5, 3, (None, 1.0, 2.0, 3.0)),
    ]
    assert set(graph.states) == {(0.5, None, "only", 3.0)} | {
        (w, last, "only", 3.0) for w in (1.0, 2.0) for last in (None, w)
    }
    assert len(graph.states) == 5 and graph.diameter == 2
    state = (2.0, 2.0, "only", 3.0)
    assert graph.index[state] == graph.states[:].index(state)


def test_a_real_variables_samples_pack_without_a_parameter_of_its_domain() -> None:
    tare = Real(samples=(0.25, 0.75))
    spec = Spec(
        name="tare",
        source="tests/test_explore.py",
        vars=(Var("t", tare, 0.25),),
        triggers=(Trigger("set"),),
        rows=(row("set", "set", None, sets={"t": 0.75}, cite="toy"),),
    )
    graph = explore(spec)
    assert graph.code.layout is not None and graph.code.layout.fields[0][3] == (0.25, 0.75)
    assert graph.states[:] == [(0.25,), (0.75,)]


def test_constants_are_written_inline_or_named_once() -> None:
    gen = explore(_dial()).code.gen
    assert [gen.const(v) for v in (None, True, 3, "a")] == ["None", "True", "3", "'a'"]
    half, pair = 0.5, (1, 2)
    name = gen.const(half)
    assert re.fullmatch(r"K\d+", name) and gen.consts[name] == 0.5
    assert gen.const(half) == name and gen.const(pair) != name
    assert gen.consts[gen.const(pair)] is pair
    # Options that do not hash are a tuple, tested by equality.
    gen.params = {}
    assert _shown(gen, gen.src(is_in(var("x"), [1], [2]))) == "(v0 in ([1], [2]))"


def test_an_exploration_compiles_its_spec_when_it_has_no_code() -> None:
    assert Exploration(_panel()).code.layout is not None
    # With no search to switch part way, its code is specialised per firing from the start.
    assert Exploration(_panel()).code.budget == 512
    assert Exploration(_scale()).code.layout is not None  # packs until a value leaves it
    fresh = Exploration(_panel())
    assert fresh.code is fresh.code


@pytest.mark.parametrize("ask", ["first_state", "state_mask"])
def test_a_state_predicate_reading_a_step_is_refused_by_name(ask: str) -> None:
    graph = explore(_panel())
    graph.first_states_with([(eq(param("to"), 1), "set")])  # leaves the parameters bound
    for pred, scope in [(eq(param("to"), 1), "param"), (eq(out("said"), 1), "out")]:
        with pytest.raises(ExprTypeError, match=f"^{scope} values are not available here$"):
            getattr(graph, ask)(pred)
    with pytest.raises(ExprTypeError, match="^cannot compile StepIs here$"):
        getattr(graph, ask)(row_is("set"))


def _mirror() -> Spec:
    """Copies between variables: a bit field moved where both code alike, else re-coded."""
    return Spec(
        name="mirror",
        source="tests/test_explore.py",
        vars=(
            Var("a", IntRange(0, 3), 1),
            Var("b", IntRange(0, 3), 0),
            Var("c", IntRange(0, 7), 0),
            Var("d", IntRange(2, 9), 2),
        ),
        triggers=(Trigger("inc"), Trigger("copy"), Trigger("wide")),
        rows=(
            row(
                "inc", "inc", None, guard=lt(var("a"), 3), sets={"a": add(var("a"), 1)}, cite="toy"
            ),
            row("wrap", "inc", None, sets={"a": 0, "b": var("b")}, cite="toy"),
            row("copy", "copy", None, sets={"b": var("a")}, cite="toy"),
            row("wide", "wide", None, sets={"c": var("b"), "d": add(var("a"), 2)}, cite="toy"),
        ),
    )


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_copies_move_bit_fields_or_values(packed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not packed:
        _as_tuples(monkeypatch)
    spec = _mirror()
    graph = explore(spec)
    assert (graph.code.layout is not None) == packed
    assert _agree(spec) == SAMPLE * 3 < len(graph.states) * 3
    expected = {(1, 0, 0, 2)}
    frontier = set(expected)
    while frontier:  # the reachable states, by the rows' meaning
        new = set()
        for a, b, c, d in frontier:
            new |= {((a + 1) if a < 3 else 0, b, c, d), (a, a, c, d), (a, b, b, a + 2)}
        frontier = new - expected
        expected |= new
    assert set(graph.states) == expected and len(expected) == len(graph.states)
    if packed:
        succ = [c.succ for b in graph.code.blocks for c in b.cases]
        assert succ == [
            "(s & 1020) | (u0)",
            "(s & 1020)",  # `b` set to itself: kept
            "(s & 1011) | (((s >> 0) & 3) << 2)",  # a's bits, moved to b's place
            "(s & 15) | (u2 << 4) | ((u3 - 2) << 7)",  # re-coded: other widths, other `lo`
        ]


_SIDE = Finite("side", ("l", "r"))
_SWITCHES = Func(_SIDE, Bool())


def _switches() -> Spec:
    """A function variable, read and updated at a parameter's key and at a constant one."""
    f = var("f")
    return Spec(
        name="switches",
        source="tests/test_explore.py",
        vars=(
            Var("f", _SWITCHES, FuncValue(("l", "r"), (False, False))),
            Var("pick", _SIDE, "l"),
        ),
        triggers=(Trigger("toggle", (Param("k", _SIDE),)), Trigger("right"), Trigger("pick")),
        rows=(
            row(
                "toggle",
                "toggle",
                None,
                sets={"f": update(f, param("k"), not_(at(f, param("k"))))},
                cite="toy",
            ),
            row(
                "right",
                "right",
                None,
                guard=not_(at(f, "r")),
                sets={"f": update(f, "r", True)},
                cite="toy",
            ),
            ignore("right_on", "right", None, guard=at(f, "r"), cite="toy"),
            row(
                "pick",
                "pick",
                None,
                sets={
                    "pick": ite(at(func(_SWITCHES, {"l": True, "r": False}), var("pick")), "r", "l")
                },
                cite="toy",
            ),
        ),
    )


def test_a_function_variable_is_read_by_its_key_index() -> None:
    spec = _switches()
    graph = explore(spec)
    assert len(graph.states) == 8 and graph.diameter == 3
    assert _agree(spec) == 8 * 4
    code = graph.code
    gen = code.gen
    gen.params = {"k": "p0"}
    f = var("f")
    assert gen.src(at(f, "r")) == "v0.vals[1]"
    assert _shown(gen, gen.src(at(f, param("k")))) == "v0.vals[{'l': 0, 'r': 1}[p0]]"
    constant = Const(FuncValue(("l", "r"), (True, False)))
    assert _shown(gen, gen.src(at(constant, var("pick")))) == "{'l': True, 'r': False}[v1]"
    by_key = gen.src(at(f, param("k")))
    assert gen.src(at(f, param("k"))) == by_key  # the key table made once, named once
    # An update of the function's own value: the new code found by its values, in place.
    codes = "{(False, False): 0, (False, True): 1, (True, False): 2, (True, True): 3}"
    at_k = "{'l': 0, 'r': 1}[p0]"
    assert [_shown(gen, c.succ or "") for b in code.blocks for c in b.cases] == [
        f"(s & 4) | {codes}[v0.vals[:{at_k}] + ((not v0.vals[{at_k}]),) + v0.vals[{at_k} + 1:]]",
        f"(s & 4) | {codes}[v0.vals[:1] + (True,) + v0.vals[1 + 1:]]",
        "",
        "(s & 3) | ({'l': 0, 'r': 1}[('r' if {'l': True, 'r': False}[v1] else 'l')] << 2)",
    ]


_DIGIT = IntRange(0, 2)


def _bag() -> Spec:
    """A queue and a set of digits, through every sequence and set operation."""
    q, s = var("q"), var("s")
    return Spec(
        name="bag",
        source="tests/test_explore.py",
        vars=(
            Var("q", Seq(_DIGIT, 2), ()),
            Var("s", Set(_DIGIT), frozenset()),
            Var("seen", IntRange(0, 3), 0),
        ),
        outputs=(Output("got", IntRange(0, 2), 0),),
        triggers=(Trigger("put", (Param("d", _DIGIT),)), Trigger("get"), Trigger("drop")),
        rows=(
            row(
                "put",
                "put",
                None,
                guard=lt(length(q), 2),
                sets={"q": append(q, param("d"))},
                cite="toy",
            ),
            ignore("put_full", "put", None, guard=eq(length(q), 2), cite="toy"),
            row(
                "get",
                "get",
                None,
                guard=and_(gt(length(q), 0), not_(member(head(q), s))),
                sets={
                    "q": tail(q),
                    "s": set_add(s, index(q, 1)),
                    "seen": ite(lt(var("seen"), 3), add(var("seen"), 1), 3),
                },
                emits={"got": head(q)},
                cite="toy",
            ),
            row("get_again", "get", None, guard=gt(length(q), 0), sets={"q": tail(q)}, cite="toy"),
            ignore("get_none", "get", None, guard=eq(length(q), 0), cite="toy"),
            row(
                "drop",
                "drop",
                None,
                guard=gt(size(s), 0),
                sets={"s": set_remove(s, ite(member(0, s), 0, ite(member(1, s), 1, 2)))},
                cite="toy",
            ),
            ignore("drop_none", "drop", None, guard=eq(size(s), 0), cite="toy"),
        ),
    )


@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_sequences_and_sets_step_as_the_oracle(
    packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not packed:
        monkeypatch.setattr(explore_module, "_few", lambda domain: False)
    spec = _bag()
    graph = explore(spec)
    assert (graph.code.layout is not None) == packed
    assert _agree(spec) == min(len(graph.states), SAMPLE) * 5
    assert (len(graph.states), graph.diameter, graph.edge_count) == (260, 11, 260 * 5)
    assert graph.states[:4] == [((), frozenset(), 0), ((0,), frozenset(), 0)] + [
        ((d,), frozenset(), 0) for d in (1, 2)
    ]
    got = graph.first_edge(eq(out("got"), 2))
    assert got is not None and graph.depth[got.source] == 1 and got.row == "get"


def test_a_row_that_never_fires_leaves_its_firings_unanswered() -> None:
    dead = Spec(
        name="dead",
        source="tests/test_explore.py",
        vars=(Var("x", IntRange(0, 3), 0),),
        triggers=(Trigger("turn", (Param("to", IntRange(0, 3)),)), Trigger("stay")),
        rows=(
            row("turn", "turn", None, guard=FALSE, sets={"x": param("to")}, cite="toy"),
            row("stay", "stay", None, guard=FALSE, cite="toy"),
        ),
        totality="enabled-only",
    )
    graph = explore(dead)
    assert [b.cases for b in graph.code.blocks] == [(), ()]
    assert len(graph.states) == 1 and graph.edge_count == 0
    assert [(i, t, dict(p)) for i, t, p in graph.undefined] == [
        *((0, "turn", {"to": to}) for to in range(4)),
        (0, "stay", {}),
    ]
    assert graph.successors(0) == [] and graph.row_witnesses() == {}
    assert graph.first_edge(TRUE) is None and graph.move_table() == ([0, 0], [], [])
    assert graph.first_states_with([(eq(param("to"), var("x")), "turn")]) == [(0, {"to": 0})]


def _lamps(wide: int) -> Spec:
    """Triggers whose parameters hash in Python (enum members) or not (ints)."""
    lamp = Finite("lamp", tuple(_Lamp))
    return Spec(
        name="lamps",
        source="tests/test_explore.py",
        vars=(Var("lamp", lamp, _Lamp.OFF), Var("n", IntRange(0, wide), 0)),
        triggers=(
            Trigger("light", (Param("to", lamp),)),
            Trigger("count", (Param("k", IntRange(0, wide)),)),
            Trigger("both", (Param("to", lamp), Param("k", IntRange(0, wide)))),
        ),
        rows=(
            row("light", "light", None, sets={"lamp": param("to")}, cite="toy"),
            row("count", "count", None, sets={"n": param("k")}, cite="toy"),
            row(
                "both",
                "both",
                None,
                guard=eq(param("to"), _Lamp.DIM),
                sets={"n": param("k")},
                cite="toy",
            ),
            ignore("both_else", "both", None, guard=not_(eq(param("to"), _Lamp.DIM)), cite="toy"),
        ),
    )


def test_firings_whose_parameters_hash_in_python_are_specialised_within_a_budget() -> None:
    def shape(code: Any) -> list[tuple[bool, int, dict[str, Any]]]:
        return [(b.looped, len(b.firings), dict(b.bound)) for b in code.blocks]

    small = _lamps(1)  # light: 3 firings, count: 2, both: 6
    looped = explore_module._Compiled(small, specialise=False)
    assert looped.budget == 0 and looped.specialisable  # 9 of 11 would unroll
    assert shape(looped) == [(True, 3, {}), (True, 2, {}), (True, 6, {})]
    # Summed over the triggers: with `light` last, still 9 of 11.
    light, count, both = small.triggers
    last = dataclasses.replace(small, triggers=(both, count, light))
    assert explore_module._Compiled(last, specialise=False).specialisable
    unrolled = explore_module._Compiled(small)
    assert unrolled.budget == 512 and not unrolled.specialisable  # none left to unroll
    assert shape(unrolled) == [
        *((False, 1, {"to": lamp}) for lamp in _Lamp),
        (True, 2, {}),
        *((False, 1, {"to": lamp, "k": k}) for lamp in _Lamp for k in (0, 1)),
    ]
    # The `both` firings folded per firing: DIM's rows fire, the others' are ignored.
    assert [len(b.cases) for b in unrolled.blocks[4:]] == [1, 1, 1, 1, 1, 1]
    assert [unrolled.rows[b.cases[0].row].name for b in unrolled.blocks[4:]] == [
        "both_else",
        "both_else",
        "both",
        "both",
        "both_else",
        "both_else",
    ]
    # 3 * 171 pairs for `both` pass what `light` leaves of the 512: it loops.
    wide = explore_module._Compiled(_lamps(170))
    assert shape(wide)[:3] == [(False, 1, {"to": lamp}) for lamp in _Lamp]
    assert shape(wide)[3:] == [(True, 171, {}), (True, 3 * 171, {})]
    assert not explore_module._Compiled(_lamps(170), specialise=False).specialisable
    # Both build one graph.
    a, b = explore(small), explore(small)
    b._code = unrolled
    assert [a.moves(i) for i in range(len(a.states))] == [b.moves(i) for i in range(len(a.states))]
    # Specialised, a case no firing can meet has no code at all; the others keep theirs.
    contradiction = and_(eq(param("to"), _Lamp.DIM), eq(param("to"), _Lamp.OFF))
    cases = [(contradiction, "light"), (eq(param("to"), _Lamp.BRIGHT), "light")]
    assert (
        a.first_states_with(cases)
        == b.first_states_with(cases)
        == [
            None,
            (0, {"to": _Lamp.BRIGHT}),
        ]
    )


def test_a_data_variable_with_too_many_values_to_number_is_kept_as_tuples() -> None:
    log = Seq(IntRange(0, 9), 5)  # 111,111 sequences: past the 65,536 the layout numbers
    spec = Spec(
        name="log",
        source="tests/test_explore.py",
        vars=(Var("log", log, ()),),
        triggers=(Trigger("note"),),
        rows=(
            row(
                "note",
                "note",
                None,
                guard=lt(length(var("log")), 2),
                sets={"log": append(var("log"), 7)},
                cite="toy",
            ),
            ignore("full", "note", None, guard=eq(length(var("log")), 2), cite="toy"),
        ),
    )
    assert explore_module._Compiled.of(spec).layout is None
    assert explore_module._Compiled.of(spec).budget == 512
    assert explore_module._Compiled.of(spec, specialise=False).budget == 0
    graph = explore(spec)
    assert graph.code.layout is None and graph.states == [((),), ((7,),), ((7, 7),)]
    assert explore_module._few(Seq(IntRange(0, 1), 15))  # 65,535 values: numbered
    assert not explore_module._few(Seq(IntRange(0, 1), 16))  # 131,071
    assert explore_module._few(Set(IntRange(0, 15)))  # 65,536: the bound itself
    assert not explore_module._few(Set(IntRange(0, 16)))


@pytest.mark.parametrize(
    "value",
    [var("a"), param("k"), ite(eq(var("a"), 3), var("a"), 0), some(var("a"))],
    ids=["copy", "parameter", "choice", "option"],
)
@pytest.mark.parametrize("packed", [True, False], ids=["packed", "tuples"])
def test_an_integer_leaving_a_narrower_range_is_the_rows_error(
    value: Expr, packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The type check knows integers, not ranges. Packed, `n`'s bits cannot simply move
    # (same width and `lo`, other values); as tuples, the plain tuples once took n = 3
    # where the oracle reports the row's error.
    if not packed:
        _as_tuples(monkeypatch)
    narrow = IntRange(0, 2)
    spec = Spec(
        name="narrow",
        source="tests/test_explore.py",
        vars=(
            Var("a", IntRange(0, 3), 3),
            Var("n", Option(narrow) if value == some(var("a")) else narrow, 0),
        ),
        triggers=(Trigger("narrow", (Param("k", IntRange(3, 3)),)),),
        rows=(row("narrow", "narrow", None, sets={"n": value}, cite="toy"),),
    )
    oracle = Oracle(spec)
    oracle.load({"a": 3, "n": 0})
    with pytest.raises(OracleError) as expected:
        oracle.fire("narrow", k=3)
    with pytest.raises(OracleError) as raised:
        explore(spec)
    assert str(raised.value) == str(expected.value)
    assert str(raised.value).startswith("row 'narrow' sets 'n' to 3, outside ")


def test_generated_code_decodes_only_the_variables_it_reads() -> None:
    code = explore(_panel()).code
    reads_x = code.state_test(eq(var("x"), add(var("x"), 0))).__code__.co_varnames
    assert reads_x == ("states", "i", "s", "v2")
    bits_only = code.state_mask(and_(var("armed"), eq(var("tag"), "b"))).__code__.co_varnames
    assert bits_only == ("states", "out", "push", "s")
    unpacked = explore(_scale()).code  # a tuple unpacks whole
    assert unpacked.state_test(eq(var("n"), 1)).__code__.co_varnames == (
        "states",
        "i",
        "s",
        "v0",
        "v1",
    )


def test_a_function_literal_of_variables_is_built_in_the_generated_code() -> None:
    graph = explore(_switches())
    f = var("f")
    swapped = func(_SWITCHES, {"l": at(f, "r"), "r": at(f, "l")})
    for pred in [eq(swapped, f), eq(at(swapped, var("pick")), True)]:
        expected = [bool(evaluate(pred, Env(pre=graph.as_dict(i)))) for i in range(8)]
        assert graph.state_mask(pred) == expected and 0 < sum(expected) < 8
