"""Data in the DSL, in every face: bounded sequences, functions, finite sets,
quantifiers, initial predicates and `enabled-only` totality.

One small spec (`mailbox`) uses every construct; each face gets a test that
would fail if its support broke: the spec's build-time refusals, the explorer
and the oracle, z3 (its reachable set is the explorer's; an overflow is a
violation with its trace), SPIN through the Promela export, ITF both ways,
check-trace, the printers and diagram labels, and the mutant generator.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from letters import MSG
from letters import NODE
from letters import Msg

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Real
from models.kernel import Seq
from models.kernel import Set
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import and_
from models.kernel import append
from models.kernel import at
from models.kernel import bound
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import func
from models.kernel import gt
from models.kernel import head
from models.kernel import index
from models.kernel import ite
from models.kernel import le
from models.kernel import length
from models.kernel import lt
from models.kernel import member
from models.kernel import ne
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import set_add
from models.kernel import set_remove
from models.kernel import size
from models.kernel import sometimes
from models.kernel import tail
from models.kernel import total
from models.kernel import update
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.diagram import picture
from models.kernel.explore import explore
from models.kernel.itf import read_itf
from models.kernel.itf import to_itf
from models.kernel.mutants import Baseline
from models.kernel.mutants import generate
from models.kernel.mutants import model_kill
from models.kernel.oracle import NotEnabled
from models.kernel.oracle import Oracle
from models.kernel.printer import show
from models.kernel.promela import export
from models.kernel.readable import why
from models.kernel.spin import disagreements
from models.kernel.spin import run_spin
from models.kernel.spin import tools_missing
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import parse_jsonl
from models.kernel.values import decode
from models.kernel.values import encode

QUEUE = Seq(MSG, 2)
SEEN = Func(NODE, Set(MSG))
LAST = Func(NODE, Bool())
SRC = "tests/test_data.py"
Q, SEEN_VAR, LAST_VAR, TURN = var("q"), var("seen"), var("last"), var("turn")
OTHER = ite(eq(TURN, 1), 2, 1)


def mailbox(*, guarded: bool = True) -> Spec:
    room = lt(length(Q), QUEUE.max_len) if guarded else not_(eq(param("m"), Msg.B))
    return Spec(
        name="mailbox",
        source=SRC,
        vars=(
            Var("q", QUEUE, ()),
            Var("seen", SEEN, SEEN.of(lambda n: frozenset())),
            Var("turn", NODE, AnyOf(1, 2)),
            Var("last", LAST, AnyOf(*LAST.values)),
        ),
        # Correlated initial values: the node whose turn it is starts with `last` set.
        init=and_(at(LAST_VAR, TURN), forall("n", NODE, lambda n: le(n, 2))),
        triggers=(
            Trigger("send", (Param("m", MSG),)),
            Trigger("recv", (Param("n", NODE),)),
            Trigger("forget", (Param("n", NODE), Param("m", MSG))),
            Trigger("peek", (Param("k", IntRange(1, 2)),)),
        ),
        rows=(
            row("send", "send", None, guard=room, sets={"q": append(Q, param("m"))}, cite=SRC),
            row(
                "recv",
                "recv",
                None,
                guard=and_(gt(length(Q), 0), eq(param("n"), TURN)),
                sets={
                    "q": tail(Q),
                    "seen": update(
                        SEEN_VAR, param("n"), set_add(at(SEEN_VAR, param("n")), head(Q))
                    ),
                    # The turn passes on, and `last` marks whose it is (a quantifier in an
                    # update: last'[k] = \E j \in Node : j = turn /\ j # k).
                    "last": func(
                        LAST,
                        lambda k: exists("j", NODE, lambda j: and_(eq(j, TURN), ne(j, k))),
                    ),
                    "turn": OTHER,
                },
                cite=SRC,
            ),
            row(
                "forget",
                "forget",
                None,
                guard=and_(
                    member(param("m"), at(SEEN_VAR, param("n"))),
                    exists("x", MSG, lambda x: member(x, at(SEEN_VAR, param("n")))),
                ),
                sets={
                    "seen": func(
                        SEEN,
                        lambda n: ite(
                            eq(param("n"), n),
                            set_remove(at(SEEN_VAR, n), param("m")),
                            at(SEEN_VAR, n),
                        ),
                    )
                },
                cite=SRC,
            ),
            row(
                "peek",
                "peek",
                None,
                guard=and_(le(param("k"), length(Q)), eq(index(Q, param("k")), Msg.A)),
                sets={"seen": update(SEEN_VAR, TURN, set_add(at(SEEN_VAR, TURN), Msg.A))},
                cite=SRC,
            ),
        ),
        properties=(
            always(
                "bounded",
                le(total("n", NODE, lambda n: size(at(SEEN_VAR, n))), 4),
                cite=SRC,
            ),
            sometimes(
                "everyone_saw_a",
                forall("n", NODE, lambda n: member(Msg.A, at(SEEN_VAR, n))),
                cite=SRC,
            ),
            always(
                "someone_last",
                exists("n", NODE, lambda n: at(LAST_VAR, n)),
                cite=SRC,
            ),
            always("turn_is_last", at(LAST_VAR, TURN), cite=SRC),
        ),
        totality="enabled-only",
    )


SPEC = mailbox()


# ---------------------------------------------------------------- the spec: build-time refusals


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"guard": gt(length(TURN), 0)}, "row 'send' guard: len needs a sequence"),
        ({"guard": at(Q, 1)}, "row 'send' guard: at needs a function"),
        ({"guard": member(1, Q)}, "row 'send' guard: member needs a set"),
        ({"guard": eq(bound("x"), 1)}, "'x' is not bound by an enclosing forall or exists"),
        ({"sets": {"q": append(Q, 3)}}, "row 'send' update of 'q': 3 is not in"),
        ({"sets": {"seen": update(SEEN_VAR, 3, frozenset())}}, "row 'send' update of 'seen'"),
        (
            {"guard": forall("r", Real((0.5,)), lambda r: eq(TURN, 1))},
            "row 'send' guard: a quantifier needs a finite domain",
        ),
    ],
)
def test_malformed_data_is_refused_naming_the_row(change: dict[str, object], message: str) -> None:
    old = SPEC.row("send")
    fields: dict[str, object] = {"guard": old.guard, "sets": dict(old.updates), **change}
    new = row("send", "send", None, guard=fields["guard"], sets=fields["sets"], cite=SRC)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match=message):
        replace(SPEC, rows=tuple(new if r.name == "send" else r for r in SPEC.rows))


def test_malformed_spec_settings_are_refused() -> None:
    with pytest.raises(SpecError, match="property 'peeks': head, tail, append and index"):
        replace(SPEC, properties=(always("peeks", eq(head(Q), Msg.A), cite=SRC),))
    with pytest.raises(SpecError, match="no initial state satisfies the initial predicate"):
        replace(SPEC, init=gt(length(Q), 0))
    with pytest.raises(SpecError, match="initial predicate: unknown variable 'nope'"):
        replace(SPEC, init=var("nope"))
    with pytest.raises(SpecError, match="totality must be 'explicit' or 'enabled-only'"):
        replace(SPEC, totality="partial")  # type: ignore[arg-type]


# ---------------------------------------------------------------- explorer and oracle


def test_explorer_and_oracle_agree_step_by_step() -> None:
    g = explore(SPEC)
    # The initial predicate keeps 4 of the 8 products (turn × last): no setup state.
    assert sum(1 for d in g.depth if d == 0) == 4
    assert all(g.as_dict(i)["last"][g.as_dict(i)["turn"]] for i in range(4))
    assert len(g.states) == 246
    oracle = Oracle(SPEC)
    for i in range(len(g.states)):
        state = g.as_dict(i)
        edges = {(e.trigger, tuple(e.params.items())): e for e in g.successors(i)}
        for t in SPEC.triggers:
            for params in SPEC.param_assignments(t.name):
                oracle.load(state)
                edge = edges.get((t.name, tuple(params.items())))
                if edge is None:
                    with pytest.raises(NotEnabled):  # enabled-only: simply not enabled
                        oracle.fire(t.name, **params)
                    continue
                fired = oracle.fire(t.name, **params)
                assert fired.row == edge.row
                assert dict(fired.state) == g.as_dict(edge.target)


def test_values_round_trip_through_json() -> None:
    g = explore(SPEC)
    for i in range(len(g.states)):
        for v in SPEC.vars:
            value = g.as_dict(i)[v.name]
            raw = json.loads(json.dumps(encode(v.domain, value)))
            assert decode(v.domain, raw) == value
    assert encode(SEEN, SEEN.of({1: frozenset({Msg.B, Msg.A}), 2: frozenset()})) == {
        "1": ["A", "B"],
        "2": [],
    }


# ---------------------------------------------------------------- z3


def test_z3_agrees_with_the_explorer() -> None:
    checker = Checker(SPEC, timeout=20)
    verdicts = {r.id: r for r in checker.run()}
    assert verdicts["reachable-set"].verdict == "proved"
    assert verdicts["bounded"].verdict == "proved"
    assert verdicts["someone_last"].verdict == "proved"
    assert verdicts["turn_is_last"].verdict == "proved"
    assert verdicts["everyone_saw_a"].verdict == "witnessed"
    assert verdicts["well-defined"].verdict == "proved"
    assert "totality" not in verdicts  # enabled-only: no trigger must answer everywhere
    assert "(totality: enabled-only)" in verdicts["no-deadlock"].cite


def test_an_append_to_a_full_sequence_is_a_violation_with_its_trace() -> None:
    spec = mailbox(guarded=False)
    assert len(explore(spec).states) > 0  # the explorer does not crash: the step is undefined
    result = next(Checker(spec, timeout=20).run("well-defined"))
    assert result.verdict == "violated"
    assert result.detail.startswith("row 'send' takes Append(q, ?m) where it is undefined")
    assert result.trace is not None
    last = result.trace.steps[-1].state if result.trace.steps else result.trace.init
    assert len(last["q"]) == QUEUE.max_len  # the next send would overflow


# ---------------------------------------------------------------- SPIN


@pytest.mark.skipif(bool(tools_missing()), reason="SPIN needs spin and gcc: `make spin`")
def test_spin_agrees() -> None:
    assert "v_seen[" in export(SPEC).text  # a function is an array of slots
    result = run_spin(SPEC)
    g = explore(SPEC)
    assert result.states == len(g.states)
    assert disagreements(SPEC, result, g) == []


# ---------------------------------------------------------------- ITF and check-trace


def _witness() -> object:
    g = explore(SPEC)
    hit = g.first_state(SPEC.prop("everyone_saw_a").pred)
    assert hit is not None
    return g.path_to(hit)


def test_itf_writes_sets_and_maps_and_reads_them_back() -> None:
    trace = _witness()
    itf = to_itf(SPEC, trace)  # type: ignore[arg-type]
    last = itf["states"][-1]
    assert last["seen"]["#map"][0][0] == 1 and "#set" in last["seen"]["#map"][0][1]
    assert isinstance(last["q"], list)
    log = read_itf(SPEC, json.dumps(itf))
    assert check_trace(SPEC, log).ok


def test_check_trace_reads_data_and_rejects_a_wrong_observation() -> None:
    lines = [
        json.dumps({"init": {"turn": 1, "q": [], "last": {"1": True, "2": False}}}),
        json.dumps({"trigger": "send", "args": {"m": "A"}, "state": {"q": ["A"]}}),
        json.dumps({"trigger": "recv", "args": {"n": 1}, "state": {"seen": {"1": ["A"], "2": []}}}),
    ]
    assert check_trace(SPEC, parse_jsonl(SPEC, lines)).ok
    wrong = lines[:2] + [lines[2].replace('"1": ["A"]', '"1": ["B"]')]
    assert not check_trace(SPEC, parse_jsonl(SPEC, wrong)).ok


# ---------------------------------------------------------------- printers and diagrams


def test_printers_use_tla_notation() -> None:
    assert show(None, SPEC.row("send").guard) == "Len(q) < 2"
    seen = SPEC.row("recv").updates["seen"]  # `?n`: the trigger's parameter, as everywhere
    assert show(SPEC, seen) == "[seen EXCEPT ![?n] = seen[?n] ∪ {Head(q)}]"
    assert show(SPEC, SPEC.prop("everyone_saw_a").pred) == "∀n ∈ Node: A ∈ seen[n]"
    assert show(SPEC, SPEC.prop("bounded").pred) == "Σn ∈ Node: |seen[n]| ≤ 4"
    table = picture(SPEC).table
    assert [d.when for d in table if d.row == "peek"] == [("?k ≤ Len(q) ∧ q[?k] = A",)]


def test_why_names_the_failing_instance_of_a_forall() -> None:
    prop = always("all_saw_a", SPEC.prop("everyone_saw_a").pred, cite=SRC)
    spec = replace(SPEC, properties=(prop,))
    trace = explore(spec).path_to(0)
    assert why(spec, prop, trace) == (
        "fails: for n = 1: A ∈ seen[1] is false (seen = [1 |-> {}, 2 |-> {}])"
    )


# ---------------------------------------------------------------- mutants


def test_mutants_of_the_new_constructs() -> None:
    made = generate(SPEC, limit=1000)
    ops = {m.operator for m in made.mutants}
    assert {"flip-quantifier", "drop-init"} <= ops
    base = Baseline(SPEC)
    dropped = next(m for m in made.mutants if m.operator == "drop-init")
    kill = model_kill(base, dropped.spec)
    assert kill is not None and kill.check == "someone_last"
    unguarded = next(m for m in made.mutants if m.operator == "drop-guard" and m.row == "send")
    kill = model_kill(base, unguarded.spec)
    assert kill is not None and kill.check == "well-defined"
