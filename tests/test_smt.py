"""The z3 face of a spec (models/kernel/smt.py) read directly: each value kind's slots and
their decoding, expressions against the kernel's own evaluator, the engines' exact traces
and certificates, and the exact messages of the checks that compare z3 with the explorer."""

from __future__ import annotations

import dataclasses
import enum
import itertools
import signal
import threading
from types import SimpleNamespace

import pytest
import z3  # to read the encoding's terms, as the module's callers never do
from systems import counter

from models.kernel import TRUE
from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import Func
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
from models.kernel import always
from models.kernel import and_
from models.kernel import append
from models.kernel import at
from models.kernel import eq
from models.kernel import func
from models.kernel import ge
from models.kernel import group_is
from models.kernel import gt
from models.kernel import head
from models.kernel import ignore
from models.kernel import implies
from models.kernel import index
from models.kernel import is_in
from models.kernel import is_some
from models.kernel import ite
from models.kernel import le
from models.kernel import length
from models.kernel import lt
from models.kernel import member
from models.kernel import ne
from models.kernel import never
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
from models.kernel import smt
from models.kernel import some
from models.kernel import sometimes
from models.kernel import sub
from models.kernel import tail
from models.kernel import total
from models.kernel import trigger_is
from models.kernel import unwrap
from models.kernel import update
from models.kernel import var
from models.kernel.domains import Domain
from models.kernel.domains import FuncValue
from models.kernel.domains import Value
from models.kernel.expr import Env
from models.kernel.expr import Expr
from models.kernel.expr import evaluate
from models.kernel.smt import Budget
from models.kernel.smt import Encoding
from models.kernel.smt import Engines
from models.kernel.smt import Found
from models.kernel.smt import Proved
from models.kernel.smt import SetCheck
from models.kernel.smt import SolverLimit
from models.kernel.smt import Unknown
from models.kernel.smt import decode
from models.kernel.smt import encode_value
from models.kernel.smt import type_ok
from models.kernel.trace import Step
from models.kernel.trace import Trace

SRC = "tests/test_smt.py"


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


COLOUR = Finite.of_enum(Colour, "Colour")
SLOT = IntRange(1, 3, "Slot")
BOX = Seq(IntRange(0, 5), 3)
MAP = Func(SLOT, IntRange(0, 5))
BAG = Set(COLOUR)


def _model() -> z3.ModelRef:
    solver = z3.Solver()
    assert solver.check() == z3.sat
    return solver.model()


def _holds(term: object) -> bool:
    return bool(z3.is_true(z3.simplify(term)))


# ---------------------------------------------------------------- values and their slots

ROUND_TRIPS: list[tuple[Domain, Value]] = [
    (COLOUR, Colour.BLUE),
    (Bool(), True),
    (Bool(), False),
    (IntRange(-2, 4), -2),
    (Real((0.5,)), 1.5),
    (Real((0.5,)), 2),
    (Option(IntRange(3, 5)), None),
    (Option(IntRange(3, 5)), 4),
    (Option(Real((0.5,))), 0.25),
    (BOX, ()),
    (BOX, (4, 0)),
    (BOX, (1, 2, 3)),
    (MAP, FuncValue((1, 2, 3), (0, 5, 2))),
    (BAG, frozenset()),
    (BAG, frozenset({Colour.RED})),
    (Seq(Option(IntRange(0, 1)), 2), (None, 1)),
    (
        Func(COLOUR, BAG),
        FuncValue((Colour.RED, Colour.BLUE), (frozenset({Colour.BLUE}), frozenset())),
    ),
]


@pytest.mark.parametrize(("domain", "value"), ROUND_TRIPS)
def test_a_value_decodes_to_itself_and_is_well_typed(domain: Domain, value: Value) -> None:
    enc = encode_value(domain, value)
    assert len(enc) == len(smt.slot_sorts(domain))
    decoded = decode(domain, _model(), enc)
    assert decoded == value and type(decoded) is type(value)
    assert _holds(type_ok(domain, enc))
    assert _holds(smt._equal(domain, enc, encode_value(domain, value)))


def test_the_slots_of_each_kind() -> None:
    assert [str(s) for s in smt.slot_sorts(BOX)] == ["Int", "Int", "Int", "Int"]
    assert [str(s) for s in smt.slot_sorts(Option(Real((0.5,))))] == ["Bool", "Real"]
    assert [str(s) for s in smt.slot_sorts(MAP)] == ["Int"] * 3
    assert [str(s) for s in smt.slot_sorts(BAG)] == ["Bool", "Bool"]
    assert [str(s) for s in smt.slot_sorts(COLOUR)] == ["Colour"]
    # Past a sequence's end and under an unset option: each slot's default.
    assert [str(t) for t in encode_value(BOX, (4,))] == ["1", "4", "0", "0"]
    assert [str(t) for t in encode_value(Option(IntRange(3, 5)), None)] == ["False", "3"]
    assert [str(t) for t in encode_value(Option(Real((0.5,))), None)] == ["False", "0"]
    assert [str(t) for t in encode_value(Seq(Func(SLOT, IntRange(2, 4)), 1), ())] == [
        "0",
        "2",
        "2",
        "2",
    ]
    assert [str(t) for t in encode_value(Seq(BAG, 1), ())] == ["0", "False", "False"]
    assert [str(t) for t in encode_value(Seq(COLOUR, 1), ())] == ["0", "RED"]
    assert [str(t) for t in encode_value(Real((0.5,)), 0.75)] == ["3/4"]
    # An unset option of a sequence: its slots are the empty sequence's.
    unset = encode_value(Option(Seq(IntRange(2, 3), 1)), None)
    assert [str(t) for t in unset] == ["False", "0", "2"]
    assert [str(t) for t in encode_value(BAG, frozenset({Colour.BLUE}))] == ["False", "True"]


def test_a_domain_z3_cannot_encode_is_refused() -> None:
    class Odd(Domain):
        pass

    odd = Odd()
    for call in (
        lambda: smt.slot_sorts(odd),
        lambda: encode_value(odd, 1),
        lambda: decode(odd, _model(), (z3.IntVal(1),)),
    ):
        with pytest.raises(TypeError, match="no z3 (en|de)coding for"):
            call()


def _typed(domain: Domain, *constraints: object) -> bool:
    """Is there a well-typed value of `domain` meeting the constraints on its slots?"""
    enc = smt._fresh(domain, "x")
    solver = z3.Solver()
    solver.add(type_ok(domain, enc), *[c(enc) for c in constraints])  # type: ignore[operator]
    return bool(solver.check() == z3.sat)


def test_the_type_constraints_bound_each_slot() -> None:
    assert _typed(IntRange(2, 4), lambda e: e[0] == 2)
    assert _typed(IntRange(2, 4), lambda e: e[0] == 4)
    assert not _typed(IntRange(2, 4), lambda e: e[0] == 1)
    assert not _typed(IntRange(2, 4), lambda e: e[0] == 5)
    # An unset option is canonical (its inner slot the default), a set one in range.
    assert not _typed(Option(IntRange(3, 5)), lambda e: z3.Not(e[0]), lambda e: e[1] == 4)
    assert _typed(Option(IntRange(3, 5)), lambda e: e[0], lambda e: e[1] == 4)
    assert not _typed(Option(IntRange(3, 5)), lambda e: e[0], lambda e: e[1] == 6)
    # A sequence's length is 0..max_len, its elements typed, its slots past the end blank.
    assert _typed(BOX, lambda e: e[0] == 3) and _typed(BOX, lambda e: e[0] == 0)
    assert not _typed(BOX, lambda e: e[0] == 4)
    assert not _typed(BOX, lambda e: e[0] == -1)
    assert not _typed(BOX, lambda e: e[0] == 3, lambda e: e[3] == 6)
    assert not _typed(BOX, lambda e: e[0] == 1, lambda e: e[2] == 1)
    assert _typed(BOX, lambda e: e[0] == 2, lambda e: e[2] == 1)
    assert not _typed(MAP, lambda e: e[2] == 6)
    assert [str(s) for s in smt._fresh(IntRange(0, 1), "x")] == ["x"]
    assert [str(s) for s in smt._fresh(BAG, "x")] == ["x.0", "x.1"]


def test_equality_ignores_the_slots_a_value_does_not_use() -> None:
    unset = (z3.BoolVal(False), z3.IntVal(4))
    assert _holds(
        smt._equal(Option(IntRange(3, 5)), unset, encode_value(Option(IntRange(3, 5)), None))
    )
    assert not _holds(
        smt._equal(
            Option(IntRange(3, 5)),
            (z3.BoolVal(True), z3.IntVal(4)),
            encode_value(Option(IntRange(3, 5)), 3),
        )
    )
    past_end = (z3.IntVal(1), z3.IntVal(4), z3.IntVal(2), z3.IntVal(2))
    assert _holds(smt._equal(BOX, past_end, encode_value(BOX, (4,))))
    assert not _holds(smt._equal(BOX, past_end, encode_value(BOX, (3,))))
    assert not _holds(smt._equal(BOX, past_end, encode_value(BOX, (4, 2))))
    assert not _holds(
        smt._equal(BAG, encode_value(BAG, frozenset()), encode_value(BAG, frozenset({Colour.BLUE})))
    )
    # An option's, or a sequence's element's, value of several slots: compared on each.
    maybe_bag = Option(BAG)
    red, both = frozenset({Colour.RED}), frozenset({Colour.RED, Colour.BLUE})
    assert not _holds(
        smt._equal(maybe_bag, encode_value(maybe_bag, red), encode_value(maybe_bag, both))
    )
    bits = Seq(Option(IntRange(0, 1)), 2)
    assert not _holds(smt._equal(bits, encode_value(bits, (1,)), encode_value(bits, (0,))))
    assert not _holds(
        smt._equal(
            MAP,
            encode_value(MAP, FuncValue((1, 2, 3), (0, 0, 1))),
            encode_value(MAP, FuncValue((1, 2, 3), (0, 0, 0))),
        )
    )


# A sort name no earlier test in this process declared: smt's sort caches outlive a test
# (and mutmut forks each mutant's run from a process whose tests filled them).
_NAMES = itertools.count()


def test_two_domains_of_one_name_get_two_sorts() -> None:
    twin = f"Twin{next(_NAMES)}"
    first = Finite(twin, ("a", "b"))
    second = Finite(twin, ("a", "c"))
    assert str(smt.slot_sorts(first)[0]) == twin
    assert str(smt.slot_sorts(second)[0]) == f"{twin}_1"
    assert str(smt.slot_sorts(Finite(twin, ("a", "b")))[0]) == twin  # the same labels
    assert smt.slot_sorts(first) == smt.slot_sorts(first)  # the domain's own entry
    assert [str(encode_value(second, v)[0]) for v in ("a", "c")] == ["a", "c"]
    assert [str(encode_value(first, v)[0]) for v in ("a", "b")] == ["a", "b"]


def test_a_domains_values_are_labelled_once_then_read_from_its_cache_entry() -> None:
    # Labelling is costly (a policy's label is built from its four fields) and encoding hot.
    labelled: list[Value] = []

    def label(value: Value) -> str:
        labelled.append(value)
        return f"v{value}"

    domain = Finite(f"Counted{next(_NAMES)}", (1, 2), namer=label)
    assert str(encode_value(domain, 2)[0]) == "v2"
    labelled.clear()
    sort, consts = smt._enum_sort(domain)
    assert str(sort) == domain.name
    assert {k: str(c) for k, c in consts.items()} == {"v1": "v1", "v2": "v2"}  # by label
    assert [str(encode_value(domain, v)[0]) for v in (1, 2)] == ["v1", "v2"]
    assert labelled == []


def test_substitute_refuses_slots_and_values_of_two_lengths() -> None:
    x, y = z3.Ints("x y")
    assert str(smt._substitute(x + y, [x, y], [z3.IntVal(1), y])) == "1 + y"
    with pytest.raises(ValueError, match="^2 slots, 1 values$"):
        smt._substitute(x + y, [x, y], [z3.IntVal(1)])


# ---------------------------------------------------------------- expressions

# One spec with every kind of variable; its expressions are checked against the kernel's
# evaluator on concrete states.
LEVEL = Option(IntRange(0, 9))
WIDE = Spec(
    name="wide",
    source=SRC,
    vars=(
        Var("box", BOX, ()),
        Var("map", MAP, MAP.of(lambda k: 0)),
        Var("bag", BAG, frozenset()),
        Var("level", LEVEL, None),
        Var("colour", COLOUR, Colour.RED),
        Var("n", IntRange(0, 5), 0),
        Var("on", Bool(), False),
    ),
    triggers=(
        Trigger("put", (Param("k", SLOT), Param("v", IntRange(0, 5))), group="write"),
        Trigger("paint", (Param("c", COLOUR),), group="write"),
        Trigger("tick"),
    ),
    rows=(
        row("put", "put", None, sets={"map": update(var("map"), param("k"), param("v"))}, cite=SRC),
        row("paint", "paint", None, sets={"colour": param("c")}, cite=SRC),
        row("tick", "tick", None, sets={"on": not_(var("on"))}, cite=SRC),
    ),
    outputs=(Output("said", IntRange(0, 5), 0),),
)

STATES: list[dict[str, Value]] = [
    {
        "box": (),
        "map": FuncValue((1, 2, 3), (0, 0, 0)),
        "bag": frozenset(),
        "level": None,
        "colour": Colour.RED,
        "n": 0,
        "on": False,
    },
    {
        "box": (3, 1),
        "map": FuncValue((1, 2, 3), (5, 2, 4)),
        "bag": frozenset({Colour.BLUE}),
        "level": 7,
        "colour": Colour.BLUE,
        "n": 2,
        "on": True,
    },
    {
        "box": (2, 4, 5),
        "map": FuncValue((1, 2, 3), (1, 3, 0)),
        "bag": frozenset({Colour.RED, Colour.BLUE}),
        "level": 0,
        "colour": Colour.RED,
        "n": 5,
        "on": False,
    },
]

B, M, G, L, N = var("box"), var("map"), var("bag"), var("level"), var("n")
EXPRESSIONS: list[tuple[Expr, Domain]] = [
    (length(B), IntRange(0, 3)),
    (head(B), IntRange(0, 5)),
    (tail(B), BOX),
    (index(B, 1), IntRange(0, 5)),
    (index(B, 2), IntRange(0, 5)),
    (index(B, N), IntRange(0, 5)),
    (append(B, 5), BOX),
    (at(M, 1), IntRange(0, 5)),
    (at(M, 2), IntRange(0, 5)),
    (at(M, 3), IntRange(0, 5)),
    (at(M, ite(gt(N, 1), 3, 2)), IntRange(0, 5)),
    (update(M, 2, N), MAP),
    (update(M, ite(gt(N, 1), 3, 1), 5), MAP),
    (size(G), IntRange(0, 2)),
    (member(Colour.BLUE, G), Bool()),
    (member(var("colour"), G), Bool()),
    (set_add(G, Colour.RED), BAG),
    (set_add(G, var("colour")), BAG),
    (set_remove(G, Colour.BLUE), BAG),
    (is_some(L), Bool()),
    (unwrap(L), IntRange(0, 9)),
    (ite(is_some(L), L, some(3)), LEVEL),
    (eq(L, some(7)), Bool()),
    (is_in(var("colour"), Colour.BLUE), Bool()),
    (is_in(N, 0, 5), Bool()),
    # An item of two slots (an option) is matched on both; `some(x)` is typed by the item.
    (is_in(L, 7, None), Bool()),
    (is_in(some(N), 2, None), Bool()),
    (lt(N, 2), Bool()),
    (le(N, 2), Bool()),
    (gt(N, 2), Bool()),
    (ge(N, 2), Bool()),
    (add(N, 3), IntRange(0, 10)),
    (sub(N, 1), IntRange(-1, 5)),
    (implies(var("on"), eq(N, 2)), Bool()),
    (implies(gt(N, 1), var("on")), Bool()),
    (or_(var("on"), eq(N, 5)), Bool()),
    (and_(var("on"), eq(N, 5)), Bool()),
    (not_(var("on")), Bool()),
    (ne(var("colour"), Colour.RED), Bool()),
    (ite(var("on"), N, 4), IntRange(0, 5)),
    # A literal's constant items are typed by its value domain.
    (func(MAP, {1: N, 2: 0, 3: ite(var("on"), 5, 1)}), MAP),
    # A sum over one value is its body alone, an `ite` of constants typed by the context.
    (total("s", IntRange(2, 2), lambda s: ite(gt(at(M, s), 0), 1, 0)), IntRange(0, 1)),
]


def _z3_value(spec: Spec, e: Expr, want: Domain, state: dict[str, Value]) -> Value:
    enc = Encoding(spec)
    ctx = smt._Ctx(enc, enc.concrete(state), None, None, None)
    return decode(want, _model(), tuple(z3.simplify(t) for t in ctx.tr(e, want)))


@pytest.mark.parametrize(("e", "want"), EXPRESSIONS, ids=[str(e) for e, _ in EXPRESSIONS])
def test_an_expression_means_in_z3_what_the_evaluator_computes(e: Expr, want: Domain) -> None:
    for state in STATES:
        try:
            expected = evaluate(e, Env(pre=state))
        except Exception:  # undefined there (head of an empty sequence): z3 may choose
            continue
        if not want.contains(expected):  # undefined too (an append to a full sequence)
            continue
        assert _z3_value(WIDE, e, want, state) == expected, state


def test_an_index_outside_the_sequence_is_the_last_slot() -> None:
    # Undefined in the kernel (the well-defined check reports it); z3 reads some slot.
    state = {**STATES[2], "n": 0}
    assert _z3_value(WIDE, index(B, N), IntRange(0, 5), state) == 5


def test_a_real_compared_or_added_to_a_fraction_keeps_the_fraction() -> None:
    # The real side types the constant on either side; as an integer, 0.5 would be 0.
    gauge = Spec(
        name="gauge",
        source=SRC,
        vars=(Var("r", Real((0.5,)), 0.25),),
        triggers=(Trigger("t"),),
        rows=(row("t", "t", None, cite=SRC),),
    )
    r, state = var("r"), {"r": 0.25}
    assert _z3_value(gauge, lt(r, 0.5), Bool(), state) is True
    assert _z3_value(gauge, lt(0.5, r), Bool(), state) is False
    assert _z3_value(gauge, add(r, 0.5), Real((0.5,)), state) == 0.75


def _step_value(e: Expr, trigger: str | None, params: dict[str, Value], fired: str) -> bool:
    enc = Encoding(WIDE)
    pre = enc.concrete(STATES[1])
    post = enc.concrete(STATES[2])
    act = enc.action("x")
    pins = [act.trigger == enc.trigger_consts[fired], act.row == enc.row_consts[fired]]
    for t in WIDE.triggers:
        for p in t.params:
            value = params.get(f"{t.name}.{p.name}", p.domain.values[0])  # type: ignore[index]
            pins += [
                a == b
                for a, b in zip(
                    act.params[(t.name, p.name)], encode_value(p.domain, value), strict=True
                )
            ]
    pins += [act.outputs["said"][0] == 4]
    term = smt._Ctx(enc, pre, post, act, trigger).tr(e, Bool())[0]
    solver = z3.Solver()
    solver.add(*pins)
    assert solver.check() == z3.sat
    return bool(z3.is_true(solver.model().eval(term, model_completion=True)))


def test_a_step_predicate_reads_the_row_trigger_group_arguments_and_outputs() -> None:
    assert _step_value(row_is("paint"), None, {}, "paint")
    assert not _step_value(row_is("put", "tick"), None, {}, "paint")
    assert _step_value(row_is("put", "tick"), None, {}, "tick")
    assert _step_value(trigger_is("put"), None, {}, "put")
    assert not _step_value(trigger_is("put"), None, {}, "tick")
    assert _step_value(group_is("write"), None, {}, "paint")
    assert not _step_value(group_is("write"), None, {}, "tick")
    assert _step_value(eq(out("said"), 4), None, {}, "tick")
    assert _step_value(eq(nxt("n"), 5), None, {}, "tick")
    assert not _step_value(eq(nxt("n"), 2), None, {}, "tick")
    # A row's guard reads its own trigger's argument.
    assert _step_value(eq(param("k"), 2), "put", {"put.k": 2}, "put")
    assert not _step_value(eq(param("k"), 2), "put", {"put.k": 3}, "put")


def test_a_step_predicate_outside_a_step_is_refused() -> None:
    enc = Encoding(TALLY)
    with pytest.raises(AssertionError, match="^step predicate used outside a step$"):
        enc.expr(row_is("inc"), pre=enc.frame("x"))


def test_an_after_state_outside_a_step_is_refused() -> None:
    enc = Encoding(TALLY)
    with pytest.raises(AssertionError, match="^after-state used outside a step$"):
        enc.expr(eq(nxt("n"), 1), pre=enc.frame("x"))


def test_a_property_reads_the_argument_of_whichever_trigger_fired() -> None:
    shared = Spec(
        name="shared",
        source=SRC,
        vars=(Var("n", IntRange(0, 3), 0),),
        triggers=(
            Trigger("a", (Param("x", IntRange(0, 3)),)),
            Trigger("b", (Param("x", IntRange(0, 3)),)),
            Trigger("c", (Param("x", IntRange(0, 3)),)),
        ),
        rows=tuple(row(t, t, None, sets={"n": param("x")}, cite=SRC) for t in "abc"),
    )
    enc = Encoding(shared)
    act = enc.action("x")
    pre = enc.concrete({"n": 0})
    term = smt._Ctx(enc, pre, None, act, None).tr(eq(param("x"), 2), Bool())[0]
    for fired in "abc":
        solver = z3.Solver()
        solver.add(act.trigger == enc.trigger_consts[fired], act.row == enc.row_consts[fired])
        for t in "abc":
            solver.add(act.params[(t, "x")][0] == (2 if t == fired else 1))
        assert solver.check() == z3.sat
        assert z3.is_true(solver.model().eval(term, model_completion=True)), fired


# ---------------------------------------------------------------- engines

TALLY = Spec(
    name="tally",
    source=SRC,
    vars=(Var("n", IntRange(0, 5), 0), Var("on", Bool(), False)),
    triggers=(Trigger("inc"), Trigger("flip")),
    rows=(
        row(
            "inc",
            "inc",
            None,
            guard=lt(var("n"), 3),
            sets={"n": add(var("n"), 1)},
            emits={"said": add(var("n"), 1)},
            cite=SRC,
        ),
        ignore("inc_top", "inc", None, guard=ge(var("n"), 3), cite=SRC),
        row("flip", "flip", None, sets={"on": not_(var("on"))}, cite=SRC),
    ),
    outputs=(Output("said", IntRange(0, 5), 0),),
    properties=(
        always("small", le(var("n"), 3), cite=SRC),
        sometimes("two", eq(var("n"), 2), cite=SRC),
    ),
)


def _state(n: int, on: bool = False) -> dict[str, Value]:
    return {"n": n, "on": on}


def _inc(n: int, on: bool = False) -> Step:
    return Step("inc", "inc", {}, _state(n, on), {"said": n})


def _flip(n: int, on: bool) -> Step:
    return Step("flip", "flip", {}, _state(n, on), {"said": 0})


def test_bmc_finds_the_shortest_trace_exactly() -> None:
    engines = Engines(Encoding(TALLY))
    verdict = engines.bmc(eq(var("n"), 2), step=False, max_depth=5)
    assert verdict == Found("bmc", Trace(_state(0), (_inc(1), _inc(2))))
    assert engines.bmc(eq(var("n"), 0), step=False, max_depth=5) == Found(
        "bmc", Trace(_state(0), ())
    )
    # A step target: the step itself is the trace's last.
    stepped = engines.bmc(eq(out("said"), 1), step=True, max_depth=5)
    assert stepped == Found("bmc", Trace(_state(0), (_inc(1),)))
    assert engines.bmc(eq(var("n"), 3), step=False, max_depth=2) == Unknown(
        "bmc", "nothing found up to depth 2"
    )
    assert engines.bmc(eq(var("n"), 3), step=False, max_depth=3) == Found(
        "bmc", Trace(_state(0), (_inc(1), _inc(2), _inc(3)))
    )


KPROVED = Proved("k-induction", 1, "1-inductive over simple paths")


def test_a_trace_carries_the_arguments_and_outputs_z3_chose() -> None:
    engines = Engines(Encoding(WIDE))
    start = {**STATES[0]}
    put = Step(
        "put",
        "put",
        {"k": 2, "v": 4},
        {**start, "map": FuncValue((1, 2, 3), (0, 4, 0))},
        {"said": 0},
    )
    assert engines.bmc(eq(at(M, 2), 4), step=False, max_depth=2) == Found(
        "bmc", Trace(start, (put,))
    )
    # A state predicate that reads a trigger's arguments: some arguments of it meet it there.
    probe = and_(eq(param("k"), 3), eq(at(M, 2), 4))
    assert engines.bmc(probe, step=False, max_depth=2, params_of="put") == Found(
        "bmc", Trace(start, (put,))
    )
    never = and_(eq(param("k"), 3), eq(at(M, param("k")), 6))
    assert engines.bmc(never, step=False, max_depth=1, params_of="put") == Unknown(
        "bmc", "nothing found up to depth 1"
    )
    assert isinstance(
        engines.k_induction(not_(never), step=False, max_k=1, params_of="put"), Proved
    )
    assert isinstance(engines.spacer(never, step=False, params_of="put"), Proved)
    assert engines.spacer(probe, step=False, params_of="put") is None
    assert engines.impossible(never, params_of="put")
    assert not engines.impossible(probe, params_of="put")


def test_k_induction_proves_with_its_depth_or_finds_a_trace() -> None:
    engines = Engines(Encoding(TALLY))
    assert engines.k_induction(le(var("n"), 3), step=False, max_k=3) == KPROVED
    assert engines.k_induction(lt(var("n"), 2), step=False, max_k=3) == Found(
        "k-induction", Trace(_state(0), (_inc(1), _inc(2)))
    )
    assert engines.k_induction(ne(out("said"), 2), step=True, max_k=3) == Found(
        "k-induction", Trace(_state(0), (_inc(1), _inc(2)))
    )
    # n ≠ 5 holds of every reachable state, but no typed state is ruled out at k = 0.
    assert engines.k_induction(ne(var("n"), 5), step=False, max_k=0) == Unknown(
        "k-induction", "not inductive up to k=0"
    )


def test_spacer_proves_with_an_invariant_that_checks() -> None:
    engines = Engines(Encoding(TALLY))
    verdict = engines.spacer(gt(var("n"), 3), step=False)
    assert isinstance(verdict, Proved) and verdict.method == "spacer" and verdict.bound is None
    assert verdict.certificate.startswith("inv: ") and "n" in verdict.certificate
    assert "@s" not in verdict.certificate
    assert engines.spacer(eq(var("n"), 3), step=False) is None  # reachable: BMC's turn
    assert engines.spacer(eq(out("said"), 5), step=True) is not None
    assert engines.spacer(eq(out("said"), 3), step=True) is None


def test_an_invariant_that_is_not_a_proof_is_named_for_its_fault() -> None:
    engines = Engines(Encoding(TALLY))
    _, _, s, s2, act, trans = engines._spacer()
    enc = engines.enc
    n = s["n"][0]
    bad = enc.expr(gt(var("n"), 3), pre=s)
    assert engines._check_certificate(n <= 3, s, s2, trans, bad, False) == ""
    assert engines._check_certificate(n >= 1, s, s2, trans, bad, False) == "init does not imply it"
    assert engines._check_certificate(n <= 1, s, s2, trans, bad, False) == "it is not inductive"
    assert engines._check_certificate(n <= 5, s, s2, trans, bad, False) == (
        "it does not exclude the bad states"
    )
    step_bad = enc.expr(eq(nxt("n"), 4), pre=s, post=s2, act=act)
    assert engines._check_certificate(n <= 3, s, s2, trans, step_bad, True) == ""
    step_bad = enc.expr(eq(nxt("n"), 3), pre=s, post=s2, act=act)
    assert engines._check_certificate(n <= 3, s, s2, trans, step_bad, True) == (
        "it does not exclude the bad states"
    )


def test_no_bad_step_and_impossible_read_every_typed_state() -> None:
    engines = Engines(Encoding(TALLY))
    assert engines.no_bad_step(eq(nxt("n"), add(var("n"), 2)))  # a step adds 0 or 1
    assert not engines.no_bad_step(eq(nxt("n"), 3))
    assert engines.impossible(gt(var("n"), 5))
    assert not engines.impossible(eq(var("n"), 5))  # type-correct, though unreachable


def test_confirm_reads_a_trace_and_names_where_it_fails() -> None:
    engines = Engines(Encoding(TALLY))
    good = Trace(_state(0), (_inc(1), _flip(1, True), _inc(2, True)))
    assert engines.confirm(good, eq(var("n"), 2), step=False) == Found("bfs", good)
    assert engines.confirm(good, eq(out("said"), 2), step=True) == Found("bfs", good)
    assert engines.confirm(good, eq(var("n"), 1), step=False) == Unknown(
        "z3-confirm", "the trace's last state is not the target"
    )
    assert engines.confirm(good, eq(out("said"), 1), step=True) == Unknown(
        "z3-confirm", "the last step (inc) is not the target"
    )
    late = Trace(_state(1), (_inc(2),))
    assert engines.confirm(late, TRUE, step=False) == Unknown(
        "z3-confirm", "the trace's first state {'n': 1, 'on': False} is not initial"
    )
    skipped = Trace(_state(0), (_inc(1), _inc(3)))
    assert engines.confirm(skipped, TRUE, step=False) == Unknown(
        "z3-confirm", "step 2 (inc) is not a z3 transition"
    )
    wrong_output = Trace(_state(0), (Step("inc", "inc", {}, _state(1), {"said": 0}),))
    assert engines.confirm(wrong_output, TRUE, step=True) == Unknown(
        "z3-confirm", "the last step (inc) is not the target"
    )


# ---------------------------------------------------------------- the set checks

REACHABLE = [_state(n, on) for n in range(4) for on in (False, True)]


def _edges(states: list[dict[str, Value]]) -> list[tuple[dict[str, Value], Step]]:
    return [(s, _inc(s["n"] + 1, s["on"])) for s in states if s["n"] < 3] + [
        (s, _flip(s["n"], True)) for s in states if not s["on"]
    ]


def test_the_reachable_set_check_passes_and_counts() -> None:
    enc = Encoding(TALLY)
    edges = [(_state(0), _flip(0, True))] + [e for e in _edges(REACHABLE) if e[1].row == "inc"]
    found = smt.check_reachable_set(enc, REACHABLE + [_state(0)], edges)
    assert found == SetCheck(
        True, "8 states: init ⊆ R, R closed under T, 7 tree edges are z3 transitions"
    )
    one = smt.check_reachable_set(enc, REACHABLE, edges[:1])
    assert one.detail == "8 states: init ⊆ R, R closed under T, 1 tree edge is a z3 transition"


def test_the_reachable_set_check_names_where_z3_and_the_explorer_part() -> None:
    enc = Encoding(TALLY)
    no_init = smt.check_reachable_set(enc, REACHABLE[1:], [])
    assert no_init == SetCheck(False, "z3 has an initial state the explorer lacks (sat)")
    short = [s for s in REACHABLE if s["n"] < 3]
    missing = smt.check_reachable_set(enc, short, [])
    assert missing.equal is False
    assert missing.detail.startswith("z3 steps from {'n': 2, 'on': ")
    assert missing.detail.endswith(
        "by row inc to {'n': 3, 'on': "
        + missing.detail.split("'on': ")[1].split("}")[0]
        + "}, which the explorer never reached"
    )
    bad = (_state(0), _inc(2))
    wrong = smt.check_reachable_set(enc, REACHABLE, [bad])
    assert wrong == SetCheck(
        False,
        "the explorer's step {'n': 0, 'on': False} --inc--> {'n': 2, 'on': False} "
        "is not a z3 transition",
    )


def test_the_sampled_set_check_compares_each_sampled_states_successors() -> None:
    enc = Encoding(TALLY)
    full = [
        (_state(1), [_inc(2), _flip(1, True)]),
        (
            _state(3, True),
            [Step("inc_top", "inc", {}, _state(3, True), {"said": 0}), _flip(3, False)],
        ),
    ]
    assert smt.check_reachable_sample(enc, [_state(0)], 8, full) == SetCheck(
        True,
        "sampled 2 of 8 states (seed 0): init = z3's; from each, z3's successors = the "
        "explorer's (4 steps)",
    )
    assert smt.check_reachable_sample(enc, [_state(1)], 8, full) == SetCheck(
        False, "z3 has an initial state the explorer lacks: {'n': 0, 'on': False}"
    )
    lacking = [(_state(1), [_inc(2)])]
    assert smt.check_reachable_sample(enc, [_state(0)], 8, lacking) == SetCheck(
        False,
        "z3 steps from {'n': 1, 'on': False} to {'n': 1, 'on': True}, which the explorer lacks",
    )
    wrong = [(_state(1), [_inc(3)])]
    assert smt.check_reachable_sample(enc, [_state(0)], 8, wrong) == SetCheck(
        False, "the explorer's step {'n': 1, 'on': False} --inc--> is not a z3 transition"
    )
    stuck: list[tuple[dict[str, Value], list[Step]]] = [(_state(1), [])]
    assert not smt.check_reachable_sample(enc, [_state(0)], 8, stuck).equal


def test_the_sample_is_seeded_and_no_larger_than_the_set() -> None:
    assert smt.sample_states(3) == [0, 1, 2]
    assert smt.sample_states(17) == [0, 1, *range(3, 17)]
    assert smt.sample_states(1000) == [
        *(41, 265, 310, 394, 414, 430, 497, 523),
        *(776, 802, 849, 864, 911, 940, 988, 991),
    ]


def test_the_finite_view_skips_reals_and_reads_an_optional_real_as_set_or_not() -> None:
    spec = Spec(
        name="reals",
        source=SRC,
        vars=(
            Var("x", Real((0.5,)), 0.5),
            Var("y", Option(Real((0.5,))), None),
            Var("k", IntRange(0, 2), 0),
            Var("s", BAG, frozenset()),
        ),
        triggers=(Trigger("go"),),
        rows=(row("go", "go", None, sets={"y": some(var("x"))}, cite=SRC),),
    )
    blue = frozenset({Colour.BLUE})
    assert smt.finite_key(spec, {"x": 0.5, "y": 2.5, "k": 1, "s": blue}) == (True, 1, blue)
    assert smt.finite_key(spec, {"x": 0.5, "y": None, "k": 0, "s": blue}) == (False, 0, blue)
    enc = Encoding(spec)
    frame = enc.frame("f")
    states: list[dict[str, Value]] = [
        {"x": x, "y": y, "k": k, "s": bag}
        for x in (0.5, 1.0)
        for y in (None, 2.5, 0.5)
        for k in (0, 1)
        for bag in (frozenset(), blue)
    ]

    def holds(view: object, state: dict[str, Value]) -> bool:
        pinned = list(zip(enc.flat(frame), enc.flat(enc.concrete(state)), strict=True))
        return _holds(z3.substitute(view, *pinned))

    # Each view holds of exactly the states with its finite key, whatever their reals.
    views = smt._finite_views(enc, frame, states)
    for one, view in zip(states, views, strict=True):
        assert holds(smt.finite_view(enc, frame, one), one)
        key = smt.finite_key(spec, one)
        for other in states:
            assert holds(view, other) == (smt.finite_key(spec, other) == key)
            assert holds(smt.finite_view(enc, frame, one), other) == holds(view, other)


# ---------------------------------------------------------------- the mutant gate's queries


def _mutant(**rows: object) -> Spec:
    return dataclasses.replace(TALLY, rows=tuple(rows.get(r.name, r) for r in TALLY.rows))  # type: ignore[misc]


def test_a_mutant_with_the_same_steps_is_proved_equivalent() -> None:
    same = _mutant(
        flip=row(
            "flip", "flip", None, guard=le(var("n"), 3), sets={"on": not_(var("on"))}, cite=SRC
        )
    )
    verdict = smt.prove_equivalent(dataclasses.replace(TALLY), same, REACHABLE)
    assert verdict == smt.Equivalence(
        True,
        "same initial states, and every step of every trigger the same on the 8 reachable states",
    )


def test_a_mutant_that_steps_elsewhere_is_not_equivalent() -> None:
    # A spec of its own: whether R is closed is proved once per original (and kept).
    original = dataclasses.replace(TALLY)
    other = _mutant(flip=row("flip", "flip", None, sets={"on": TRUE}, cite=SRC))
    verdict = smt.prove_equivalent(original, other, REACHABLE)
    assert verdict.equal is False
    assert verdict.detail.startswith("a flip step differs (after-state or outputs): from {'n': ")
    assert "'on': True}" in verdict.detail
    louder = _mutant(
        inc=row("inc", "inc", None, guard=lt(var("n"), 3), sets={"n": add(var("n"), 1)}, cite=SRC)
    )
    assert smt.prove_equivalent(original, louder, REACHABLE).detail.startswith("a inc step differs")
    started = dataclasses.replace(TALLY, vars=(Var("n", IntRange(0, 5), 1), TALLY.vars[1]))
    assert smt.prove_equivalent(original, started, REACHABLE).detail.startswith(
        "the initial states differ: from {"
    )
    too_few = smt.prove_equivalent(original, other, REACHABLE[:6])
    assert too_few.detail.startswith("R is not closed under the original's steps: from {'n': 2")
    assert smt.prove_equivalent(original, other, REACHABLE[2:]).detail.startswith(
        "an initial state lies outside R: from {'n': 0, 'on': False}"
    )
    # Another original with the same states proves its own: inc goes on to 4 there.
    wider = dataclasses.replace(
        TALLY,
        rows=(
            row("inc", "inc", None, guard=lt(var("n"), 4), sets={"n": add(var("n"), 1)}, cite=SRC),
            *TALLY.rows[1:],
        ),
    )
    assert smt.prove_equivalent(wider, other, REACHABLE).detail.startswith(
        "R is not closed under the original's steps: from {'n': 3"
    )


def test_an_equivalence_past_its_resource_count_is_not_proved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = _mutant(flip=row("flip", "flip", None, sets={"on": TRUE}, cite=SRC))
    fresh = dataclasses.replace(TALLY)  # no invariant proved for it yet
    verdict = smt.prove_equivalent(fresh, other, REACHABLE, Budget(600, rlimit=1))
    assert verdict == smt.Equivalence(
        False,
        "an initial state lies outside R? equivalence: z3 unknown: max. resource limit exceeded",
    )


def test_replay_pins_the_trace_and_says_why_it_fails() -> None:
    good = Trace(_state(0), (_inc(1), _flip(1, True)))
    assert smt.replay(TALLY, good, eq(var("on"), True), step=False) is None
    assert smt.replay(TALLY, good, eq(nxt("on"), True), step=True) is None
    assert smt.replay(TALLY, good, eq(var("n"), 2), step=False) == (
        "z3 replay: no z3 run of the mutant follows the 2 steps to the target"
    )
    wrong_output = Trace(_state(0), (Step("inc", "inc", {}, _state(1), {"said": 2}),))
    assert smt.replay(TALLY, wrong_output, TRUE, step=False) == (
        "z3 replay: no z3 run of the mutant follows the 1 step to the target"
    )
    assert smt.replay(TALLY, Trace(_state(1), (_inc(2),)), TRUE, step=False) == (
        "z3 replay: no z3 run of the mutant follows the 1 step to the target"
    )
    assert smt.replay(TALLY, Trace(_state(0), ()), TRUE, step=True) == (
        "z3 replay: a step target on a trace of no steps"
    )
    # A value outside its domain (the explorer's reading of unwrap(none)) is z3's to choose.
    free = Trace(_state(0), (Step("inc", "inc", {}, {"n": 1, "on": None}, {"said": 99}),))
    assert smt.replay(TALLY, free, TRUE, step=False) is None


def test_enabled_rows_reads_the_guards_in_a_state() -> None:
    assert smt.enabled_rows(TALLY, _state(1), "inc", {}) == {"inc"}
    assert smt.enabled_rows(TALLY, _state(3), "inc", {}) == {"inc_top"}
    assert smt.enabled_rows(WIDE, STATES[0], "put", {"k": 2, "v": 1}) == {"put"}


def test_absent_names_the_query_that_failed() -> None:
    assert smt.absent(TALLY, REACHABLE, gt(var("n"), 3), step=False) is None
    assert smt.absent(TALLY, REACHABLE, eq(out("said"), 4), step=True) is None
    found = smt.absent(TALLY, REACHABLE, eq(var("n"), 3), step=False)
    assert found is not None and found.startswith("z3 finds what the explorer did not: {'n': 3")
    stepped = smt.absent(TALLY, REACHABLE, eq(out("said"), 3), step=True)
    assert stepped is not None and stepped.startswith("z3 finds what the explorer did not: {'n': 2")
    assert smt.absent(TALLY, REACHABLE[2:], TRUE, step=False) == (
        "z3 has an initial state outside the explorer's set: {'n': 0, 'on': False}"
    )
    out_of_set = smt.absent(TALLY, REACHABLE[:6], TRUE, step=False)
    assert out_of_set is not None and out_of_set.startswith(
        "z3 steps out of the explorer's set: {'n': 2"
    )


def test_same_requirements_and_valid_read_every_typed_step() -> None:
    small, two = TALLY.properties
    tighter = dataclasses.replace(
        TALLY, properties=(always("small", le(var("n"), 2), cite=SRC), two)
    )
    verdict = smt.same_requirements(TALLY, tighter)
    assert verdict.equal is False and verdict.detail.startswith(
        "the two differ on a step from {'n': 3"
    )
    reworded = dataclasses.replace(
        TALLY, properties=(always("small", lt(var("n"), 4), cite=SRC), two)
    )
    assert smt.same_requirements(TALLY, reworded) == smt.Equivalence(
        True, "small: the same steps pass, given the other properties"
    )
    assert smt.valid(TALLY, or_(var("on"), not_(var("on"))))
    assert smt.valid(TALLY, or_(trigger_is("inc"), trigger_is("flip")))
    assert not smt.valid(TALLY, le(var("n"), 3))


# ---------------------------------------------------------------- limits and Ctrl-C


def test_the_budget_counts_down_and_names_itself_when_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([100.0, 100.25, 102.5, 0.0])
    monkeypatch.setattr(smt, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    budget = Budget(2.5)
    assert budget.deadline == 102.5
    assert budget.remaining_ms("bmc") == 2250
    with pytest.raises(SolverLimit, match=r"^bmc: the check's budget of 2.5s is spent$"):
        budget.remaining_ms("bmc")
    assert smt.gate_budget().rlimit == smt.GATE_RLIMIT


def test_the_provenance_names_z3s_version() -> None:
    assert smt.z3_version() == z3.get_version_string() and smt.z3_version().count(".") == 2


def test_a_limit_is_an_unknown_naming_its_engine() -> None:
    assert smt.gave_up(SolverLimit("spacer", "z3 unknown: timeout")) == Unknown(
        "spacer", "z3 unknown: timeout"
    )
    assert smt.gave_up(z3.Z3Exception("boom")) == Unknown("z3", "boom")
    assert smt._message(z3.Z3Exception(b"canceled")) == "canceled"
    assert smt._message(ValueError("plain")) == "plain"


def _no_ctrl_c(budget: Budget, why: str) -> None:
    """`_interrupt` keeps the unknown: a Ctrl-C raised here fails the test, not the run."""
    try:
        smt._interrupt(budget, why)
    except KeyboardInterrupt:
        pytest.fail(f"{why!r} read as a Ctrl-C")


def test_a_cancel_before_the_deadline_is_a_ctrl_c_and_one_at_it_is_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 0.0625 + 0.05 - 0.0625 is 0.05 exactly, in floats too.
    monkeypatch.setattr(smt, "time", SimpleNamespace(monotonic=lambda: 0.0625))
    # A process that takes Ctrl-C (a test runner may ignore it).
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.default_int_handler)
    early, late, edge = Budget(1.0), Budget(0.04), Budget(0.05)
    with pytest.raises(KeyboardInterrupt):
        smt._interrupt(early, "canceled")
    with pytest.raises(KeyboardInterrupt):
        smt._interrupt(late, "interrupted from keyboard")
    _no_ctrl_c(late, "canceled")  # within 50 ms of the deadline: the budget's
    _no_ctrl_c(edge, "canceled")  # 50 ms exactly: the budget's too
    _no_ctrl_c(early, "timeout")
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.SIG_IGN)
    _no_ctrl_c(early, "interrupted from keyboard")  # a pool worker keeps the unknown


def test_the_certificate_reads_as_equations() -> None:
    sort = smt.slot_sorts(Finite("Hue", ("Red", "Blue")))[0]  # z3 declares a sort name once
    h, n = z3.Const("h@s", sort), z3.Int("n.0@s")
    inv = z3.And(z3.Not(sort.recognizer(0)(h)), sort.recognizer(1)(h), n <= 3)
    assert smt._readable(inv) == "And(h ≠ Red, h = Blue, n.0 <= 3)"
    # z3 breaks a long term over lines: the certificate is one line, single-spaced.
    long = z3.And(*[z3.Int(f"counter_number_{i}@s") <= i for i in range(4)])
    assert "\n" in str(long)
    assert smt._readable(long) == (
        "And(counter_number_0 <= 0, counter_number_1 <= 1, counter_number_2 <= 2, "
        "counter_number_3 <= 3)"
    )


# ---------------------------------------------------------------- what the run's survivors asked


def test_a_value_z3_left_open_decodes_to_z3s_completion() -> None:
    model = _model()  # says nothing of the slots below: z3 completes them
    assert decode(IntRange(0, 5), model, smt._fresh(IntRange(0, 5), "open")) == 0
    assert decode(COLOUR, model, smt._fresh(COLOUR, "open")) in COLOUR.values  # z3's pick
    assert decode(BOX, model, smt._fresh(BOX, "open")) == ()
    assert decode(Real((0.5,)), model, smt._fresh(Real((0.5,)), "open")) == 0


# Blue toggles; red is never added. A state with both is unreachable, and only simple paths
# prove it: {red} and {red, blue} step into each other, and `wait` loops on each.
PAIR = Spec(
    name="pair",
    source=SRC,
    vars=(Var("s", BAG, frozenset()),),
    triggers=(Trigger("blue"), Trigger("wait")),
    rows=(
        row(
            "blue",
            "blue",
            None,
            sets={
                "s": ite(
                    member(Colour.BLUE, var("s")),
                    set_remove(var("s"), Colour.BLUE),
                    set_add(var("s"), Colour.BLUE),
                )
            },
            cite=SRC,
        ),
        ignore("wait", "wait", None, cite=SRC),
    ),
)


def test_k_induction_needs_paths_whose_states_differ_in_any_slot() -> None:
    both = and_(member(Colour.RED, var("s")), member(Colour.BLUE, var("s")))
    assert Engines(Encoding(PAIR)).k_induction(not_(both), step=False, max_k=3) == Proved(
        "k-induction", 2, "2-inductive over simple paths"
    )


# n = 3 is unreachable and has no step out (inc stops below 2).
DEAD = counter("dead", SRC, 3, guard=lt(var("n"), 2), cite=SRC, totality="enabled-only")


def test_k_induction_asks_nothing_of_the_bad_state_and_checks_the_base_to_depth_k() -> None:
    assert Engines(Encoding(DEAD)).k_induction(ne(var("n"), 3), step=False, max_k=2) == Proved(
        "k-induction", 1, "1-inductive over simple paths"
    )
    engines = Engines(Encoding(TALLY))
    # n reaches 2 at depth 2: k = 1 looks no deeper than 1 (and n = 1 -> 2 is a step).
    assert engines.k_induction(lt(var("n"), 2), step=False, max_k=1) == Unknown(
        "k-induction", "not inductive up to k=1"
    )
    # The second step says 2: at k the base case looks at k + 1 steps, no more, no fewer.
    assert engines.k_induction(ne(out("said"), 2), step=True, max_k=0) == Unknown(
        "k-induction", "not inductive up to k=0"
    )
    assert engines.k_induction(ne(out("said"), 2), step=True, max_k=1) == Found(
        "k-induction", Trace(_state(0), (_inc(1), _inc(2)))
    )


def _clock(monkeypatch: pytest.MonkeyPatch, *readings: float) -> None:
    ticks = iter(readings)
    monkeypatch.setattr(smt, "time", SimpleNamespace(monotonic=lambda: next(ticks)))


def test_k_induction_past_its_budget_says_where(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, 0.0, 5.0)  # spent at BMC's first query
    engines = Engines(Encoding(TALLY), Budget(1.0))
    assert engines.k_induction(le(var("n"), 3), step=False, max_k=1) == Unknown(
        "k-induction", "at depth 0: the check's budget of 1s is spent"
    )
    _clock(monkeypatch, 0.0, 0.5, 5.0)  # spent at the first step case
    engines = Engines(Encoding(TALLY), Budget(1.0))
    assert engines.k_induction(le(var("n"), 3), step=False, max_k=1) == Unknown(
        "k-induction", "at k=0: the check's budget of 1s is spent"
    )


def test_a_set_check_past_its_budget_names_its_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, 0.0, 5.0)
    with pytest.raises(SolverLimit, match="^reachable-set: the check's budget of 1s is spent$"):
        smt.check_reachable_sample(Encoding(TALLY), [_state(0)], 8, [], Budget(1.0))
    _clock(monkeypatch, 0.0, 0.1, 5.0)  # spent at the sampled state's successors
    with pytest.raises(SolverLimit, match="^reachable-set: the check's budget of 1s is spent$"):
        smt.check_reachable_sample(Encoding(TALLY), [_state(0)], 8, [(_state(0), [])], Budget(1.0))
    _clock(monkeypatch, 0.0, 5.0)
    with pytest.raises(SolverLimit, match="^reachable-set: the check's budget of 1s is spent$"):
        smt.check_reachable_set(Encoding(TALLY), REACHABLE, [], Budget(1.0))


def test_a_gate_query_past_its_resource_count_names_its_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(smt, "GATE_RLIMIT", 1)
    with pytest.raises(SolverLimit, match="^z3-confirm: z3 unknown: max. resource limit"):
        smt.enabled_rows(GATE, {"n": 1}, "set", {"v": 2})
    with pytest.raises(SolverLimit, match="^validity: z3 unknown: max. resource limit"):
        smt.valid(TALLY, le(var("n"), 3))
    changed = dataclasses.replace(TALLY, properties=(always("small", le(var("n"), 2), cite=SRC),))
    assert smt.same_requirements(TALLY, changed) == smt.Equivalence(
        False, "not proved: z3 unknown: max. resource limit exceeded"
    )


GATE = Spec(
    name="gate",
    source=SRC,
    vars=(Var("n", IntRange(0, 3), 0),),
    triggers=(Trigger("set", (Param("v", IntRange(0, 3)),)),),
    rows=(
        row("up", "set", None, guard=gt(param("v"), var("n")), sets={"n": param("v")}, cite=SRC),
        row("down", "set", None, guard=lt(param("v"), var("n")), sets={"n": param("v")}, cite=SRC),
        ignore("same", "set", None, guard=eq(param("v"), var("n")), cite=SRC),
    ),
)


def test_enabled_rows_pins_the_arguments_and_types_an_unknown_value() -> None:
    assert smt.enabled_rows(GATE, {"n": 1}, "set", {"v": 2}) == {"up"}
    assert smt.enabled_rows(GATE, {"n": 1}, "set", {"v": 1}) == {"same"}
    assert smt.enabled_rows(GATE, {"n": 1}, "set", {"v": 0}) == {"down"}
    # A value outside its domain is z3's to choose, within the domain: nothing is above 3.
    assert smt.enabled_rows(GATE, {"n": 9}, "set", {"v": 3}) == {"up", "same"}


def test_absent_reads_a_state_target_on_states_with_no_step_out() -> None:
    states = [{"n": 0}, {"n": 1}, {"n": 2}]
    assert smt.absent(DEAD, states, eq(var("n"), 2), step=False) == (
        "z3 finds what the explorer did not: {'n': 2}"
    )
    assert smt.absent(TALLY, REACHABLE, eq(nxt("n"), 4), step=True) is None
    hit = and_(eq(var("n"), 2), eq(nxt("n"), 3))
    found = smt.absent(TALLY, REACHABLE, hit, step=True)
    assert found in {
        "z3 finds what the explorer did not: {'n': 2, 'on': False}",
        "z3 finds what the explorer did not: {'n': 2, 'on': True}",
    }


def test_a_mutant_that_drops_rows_that_never_fire_is_equivalent() -> None:
    stop = row("stop", "stop", None, guard=gt(var("n"), 3), sets={"n": 0}, cite=SRC)
    original = dataclasses.replace(
        TALLY, triggers=(*TALLY.triggers, Trigger("stop")), rows=(*TALLY.rows, stop)
    )
    mutant = dataclasses.replace(original, rows=TALLY.rows)
    assert smt.prove_equivalent(original, mutant, REACHABLE).equal


ONE = counter(
    "one",
    SRC,
    5,
    guard=lt(var("n"), 5),
    emits={"said": var("n")},
    cite=SRC,
    outputs=(Output("said", IntRange(0, 5), 0),),
    totality="enabled-only",
)


def _props(*props: object) -> Spec:
    return dataclasses.replace(ONE, properties=props)  # type: ignore[arg-type]


def test_same_requirements_reads_typed_steps_given_the_shared_properties() -> None:
    low = always("low", le(var("n"), 2), cite=SRC)
    calm = never("calm", gt(var("n"), 2), cite=SRC)
    # True of every typed step: they read the step's after-state and outputs.
    steady = [
        always("steady", le(nxt("n"), 5), cite=SRC),
        always("quiet", le(out("said"), 5), cite=SRC),
    ]
    cap3, cap4 = (always("cap", le(var("n"), k), cite=SRC) for k in (3, 4))
    for shared in (low, calm):
        assert smt.same_requirements(_props(shared, cap3), _props(shared, cap4)) == (
            smt.Equivalence(True, "cap: the same steps pass, given the other properties")
        ), shared
    # Shared properties that every typed step meets leave the difference at n = 4.
    assert smt.same_requirements(_props(*steady, cap3), _props(*steady, cap4)) == (
        smt.Equivalence(False, "the two differ on a step from {'n': 4}")
    )
    # Past the types, the two would differ: every value here is typed.
    for left, right in [
        (le(var("n"), 5), ge(var("n"), 0)),
        (le(nxt("n"), 5), ge(nxt("n"), 0)),
        (le(out("said"), 5), ge(out("said"), 0)),
    ]:
        verdict = smt.same_requirements(
            _props(always("a", left, cite=SRC), always("b", left, cite=SRC)),
            _props(always("a", right, cite=SRC), always("b", right, cite=SRC)),
        )
        assert verdict == smt.Equivalence(
            True, "a, b: the same steps pass, given the other properties"
        )
    # One trigger: its steps are still steps.
    verdict = smt.same_requirements(_props(low), _props(always("low", le(var("n"), 1), cite=SRC)))
    assert verdict == smt.Equivalence(False, "the two differ on a step from {'n': 2}")


def test_valid_reads_every_typed_step_of_a_one_trigger_spec() -> None:
    assert smt.valid(ONE, le(var("n"), 5))
    assert smt.valid(ONE, le(nxt("n"), 5))
    assert smt.valid(ONE, le(out("said"), 5))
    assert not smt.valid(ONE, le(var("n"), 4))
    assert not smt.valid(ONE, le(nxt("n"), 4))


class _Solver:
    """A stand-in for z3's solver that answers one way, to reach `_check`'s other exits."""

    def __init__(self, answer: object = None, error: Exception | None = None) -> None:
        self.answer, self.error = answer, error
        self.settings: dict[str, int] = {}

    def set(self, key: str, value: int) -> None:
        self.settings[key] = value

    def check(self) -> object:
        if self.error is not None:
            raise self.error
        return self.answer

    def reason_unknown(self) -> str:
        return "incomplete quantifiers"


def test_check_turns_z3s_errors_and_unknowns_into_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.SIG_IGN)  # as in a pool worker
    _clock(monkeypatch, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5)
    solver = _Solver(error=z3.Z3Exception(b"out of memory"))
    with pytest.raises(SolverLimit, match="^bmc: z3 error: out of memory$"):
        smt._check(Budget(1.0), "bmc", solver)
    assert solver.settings == {"timeout": 500}
    solver = _Solver(answer=z3.unknown)
    with pytest.raises(SolverLimit, match="^spacer: z3 unknown: incomplete quantifiers$"):
        smt._check(Budget(1.0, rlimit=7), "spacer", solver)
    assert solver.settings == {"timeout": 500, "rlimit": 7}
    assert smt._check(smt.gate_budget(), "x", _Solver(answer=z3.unsat)) == z3.unsat


def test_ctrl_c_goes_back_to_python_after_each_z3_call() -> None:
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with smt._ctrl_c():
            assert smt._SOLVING.is_set()  # the watcher interrupts z3 while this is set
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # as z3 may leave it
        assert not smt._SOLVING.is_set()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_concrete_step_is_checked_against_its_rows_formula() -> None:
    enc = Encoding(WIDE)
    start = STATES[0]
    after = {**start, "map": FuncValue((1, 2, 3), (0, 4, 0))}
    assert enc.is_step(start, Step("put", "put", {"k": 2, "v": 4}, after, {"said": 0}))
    assert not enc.is_step(start, Step("put", "put", {"k": 3, "v": 4}, after, {"said": 0}))
    assert not enc.is_step(start, Step("put", "put", {"k": 2, "v": 4}, after, {"said": 1}))
    assert not enc.is_step(start, Step("put", "put", {"k": 2, "v": 4}, start, {"said": 0}))
    painted = {**start, "colour": Colour.BLUE}
    assert enc.is_step(start, Step("paint", "paint", {"c": Colour.BLUE}, painted, {"said": 0}))
    assert not enc.is_step(start, Step("paint", "paint", {"c": Colour.RED}, painted, {"said": 0}))


def test_replay_keeps_the_trace_typed_and_its_arguments_pinned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The argument says 2, the state 3: no run of up does both.
    wrong = Trace({"n": 0}, (Step("up", "set", {"v": 2}, {"n": 3}, {}),))
    assert smt.replay(GATE, wrong, TRUE, step=False) == (
        "z3 replay: no z3 run of the mutant follows the 1 step to the target"
    )
    # An argument outside its domain is z3's to choose, but within the domain.
    ping = Spec(
        name="ping",
        source=SRC,
        vars=(Var("n", IntRange(0, 2), 0),),
        triggers=(Trigger("ping", (Param("x", IntRange(0, 3)),)),),
        rows=(row("ping", "ping", None, sets={"n": add(var("n"), 1)}, cite=SRC),),
    )
    free = Trace({"n": 0}, (Step("ping", "ping", {"x": 9}, {"n": 1}, {}),))
    assert smt.replay(ping, free, le(param("x"), 3), step=True) is None
    assert smt.replay(ping, free, gt(param("x"), 3), step=True) is not None
    # The explorer's state past the domain (an update out of range) is no z3 state.
    over = Trace({"n": 0}, tuple(Step("ping", "ping", {"x": 0}, {"n": n}, {}) for n in (1, 2, 3)))
    assert smt.replay(ping, over, TRUE, step=False) == (
        "z3 replay: no z3 run of the mutant follows the 3 steps to the target"
    )
    monkeypatch.setattr(smt, "GATE_RLIMIT", 1)
    with pytest.raises(SolverLimit, match="^z3-confirm: z3 unknown: max. resource limit"):
        smt.replay(ping, over, TRUE, step=False)


def test_confirm_and_the_certificate_name_their_engine_at_a_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = Trace(_state(0), (_inc(1),))
    # The clock is read once per query: spent at the first state, the step, the last state.
    for readings, step in [
        ((0.0, 5.0), False),
        ((0.0, 0.1, 5.0), False),
        ((0.0, 0.1, 0.2, 5.0), False),
        ((0.0, 0.1, 5.0), True),
    ]:
        _clock(monkeypatch, *readings)
        engines = Engines(Encoding(TALLY), Budget(1.0))
        with pytest.raises(SolverLimit, match="^z3-confirm: the check's budget of 1s is spent$"):
            engines.confirm(trace, TRUE, step=step)
    # Spacer answered; the budget is spent while its invariant is checked.
    _clock(monkeypatch, 0.0, 0.1, 5.0)
    engines = Engines(Encoding(TALLY), Budget(1.0))
    with pytest.raises(SolverLimit, match="^spacer: the check's budget of 1s is spent$"):
        engines.spacer(gt(var("n"), 3), step=False)


def test_confirm_pins_a_steps_row_and_every_argument() -> None:
    engines = Engines(Encoding(TALLY))
    # From 3 the inc trigger fires inc_top, not inc: the same states and outputs, another row.
    at_top = Trace(
        _state(0), (_inc(1), _inc(2), _inc(3), Step("inc", "inc", {}, _state(3), {"said": 0}))
    )
    assert engines.confirm(at_top, TRUE, step=False) == Unknown(
        "z3-confirm", "step 4 (inc) is not a z3 transition"
    )
    wide = Engines(Encoding(WIDE))
    start = STATES[0]
    after = {**start, "map": FuncValue((1, 2, 3), (0, 4, 0))}
    wrong_key = Trace(start, (Step("put", "put", {"k": 3, "v": 4}, after, {"said": 0}),))
    assert wide.confirm(wrong_key, TRUE, step=False) == Unknown(
        "z3-confirm", "step 1 (put) is not a z3 transition"
    )


def test_a_certificate_must_exclude_bad_states_with_no_step_out() -> None:
    engines = Engines(Encoding(DEAD))
    _, _, s, s2, act, trans = engines._spacer()
    n = s["n"][0]
    bad = engines.enc.expr(eq(var("n"), 3), pre=s)
    assert engines._check_certificate(n <= 3, s, s2, trans, bad, False) == (
        "it does not exclude the bad states"
    )
    assert engines._check_certificate(n <= 2, s, s2, trans, bad, False) == ""


# A function and a set over an option: their keys and elements take two slots each.
KEY = Option(IntRange(0, 1))
KEYED = Func(KEY, IntRange(0, 5))
KEYS = Set(KEY)
OPTIONS = Spec(
    name="options",
    source=SRC,
    vars=(
        Var("o", KEY, None),
        Var("f", KEYED, KEYED.of(lambda k: 0)),
        Var("g", KEYS, frozenset()),
    ),
    triggers=(Trigger("t"),),
    rows=(row("t", "t", None, cite=SRC),),
)


@pytest.mark.parametrize(
    ("e", "want"),
    [
        (at(var("f"), var("o")), IntRange(0, 5)),
        (update(var("f"), var("o"), 5), KEYED),
        (member(var("o"), var("g")), Bool()),
        (set_add(var("g"), var("o")), KEYS),
        (set_remove(var("g"), var("o")), KEYS),
    ],
)
def test_a_key_or_element_of_two_slots_is_matched_on_both(e: Expr, want: Domain) -> None:
    f = KEYED.of({None: 1, 0: 2, 1: 3})
    for o in (None, 0, 1):
        for g in (frozenset({1}), frozenset({None, 0})):
            state: dict[str, Value] = {"o": o, "f": f, "g": g}
            assert _z3_value(OPTIONS, e, want, state) == evaluate(e, Env(pre=state)), state


def test_equivalence_compares_typed_steps_only() -> None:
    # inc overflows at 2 (T has no such step: its after-state is not typed); the mutant's
    # guard stops there: the same typed steps.
    over = Spec(
        name="over",
        source=SRC,
        vars=(Var("n", IntRange(0, 2), 0),),
        triggers=(Trigger("inc", (Param("v", IntRange(0, 3)),)),),
        rows=(
            row(
                "inc",
                "inc",
                None,
                guard=ge(param("v"), var("n")),
                sets={"n": add(var("n"), 1)},
                cite=SRC,
            ),
        ),
        totality="enabled-only",
    )
    states: list[dict[str, Value]] = [{"n": 0}, {"n": 1}, {"n": 2}]

    def guarded(also: Expr) -> Spec:
        """`over` whose row also needs `also`."""
        (inc,) = over.rows
        return dataclasses.replace(
            over, rows=(dataclasses.replace(inc, guard=and_(inc.guard, also)),)
        )

    assert smt.prove_equivalent(over, guarded(lt(var("n"), 2)), states).equal
    # The mutant's guard differs only for arguments outside their domain.
    assert smt.prove_equivalent(over, guarded(le(param("v"), 3)), states).equal


def test_the_checks_over_every_typed_state_name_their_engine_at_a_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for impossible in (False, True):
        _clock(monkeypatch, 0.0, 5.0)
        engines = Engines(Encoding(TALLY), Budget(1.0))
        with pytest.raises(SolverLimit, match="^k-induction: the check's budget of 1s is spent$"):
            if impossible:
                engines.impossible(eq(var("n"), 5))
            else:
                engines.no_bad_step(eq(nxt("n"), 5))


def test_k_induction_asks_nothing_after_the_bad_step() -> None:
    # leap takes 3 to 4, which has no step out; 3 is unreachable (inc stops at 2).
    leap = Spec(
        name="leap",
        source=SRC,
        vars=(Var("n", IntRange(0, 4), 0),),
        triggers=(Trigger("inc"), Trigger("leap")),
        rows=(
            row("inc", "inc", None, guard=lt(var("n"), 2), sets={"n": add(var("n"), 1)}, cite=SRC),
            row("leap", "leap", None, guard=eq(var("n"), 3), sets={"n": 4}, cite=SRC),
        ),
        totality="enabled-only",
    )
    assert Engines(Encoding(leap)).k_induction(ne(nxt("n"), 4), step=True, max_k=2) == KPROVED


def test_the_set_check_counts_no_edges_and_reads_the_budget_between_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert smt.check_reachable_set(Encoding(TALLY), REACHABLE, []) == SetCheck(
        True, "8 states: init ⊆ R, R closed under T, 0 tree edges are z3 transitions"
    )
    _clock(monkeypatch, 0.0, 0.1, 5.0)  # spent at the closure query
    with pytest.raises(SolverLimit, match="^reachable-set: the check's budget of 1s is spent$"):
        smt.check_reachable_set(Encoding(TALLY), REACHABLE, [], Budget(1.0))
    _clock(monkeypatch, 0.0, 0.1, 0.2, 5.0)  # spent at the first edge
    with pytest.raises(SolverLimit, match="^reachable-set: the check's budget of 1s is spent$"):
        smt.check_reachable_set(Encoding(TALLY), REACHABLE, _edges(REACHABLE), Budget(1.0))


def test_a_step_to_a_value_outside_its_domain_is_no_step() -> None:
    over = counter("over", SRC, 2, cite=SRC)
    enc = Encoding(over)
    assert enc.is_step({"n": 1}, Step("inc", "inc", {}, {"n": 2}, {}))
    assert not enc.is_step({"n": 2}, Step("inc", "inc", {}, {"n": 3}, {}))


def test_impossible_and_spacer_read_typed_states_and_arguments() -> None:
    assert not Engines(Encoding(DEAD)).impossible(eq(var("n"), 3))  # typed, with no step out
    engines = Engines(Encoding(WIDE))
    assert isinstance(engines.spacer(gt(param("k"), 3), step=False, params_of="put"), Proved)


def test_spacer_past_its_budget_is_an_unknown_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, 0.0, 5.0)
    engines = Engines(Encoding(TALLY), Budget(1.0))
    assert engines.spacer(gt(var("n"), 3), step=False) == Unknown(
        "spacer", "the check's budget of 1s is spent"
    )


def test_the_watcher_interrupts_z3_on_a_ctrl_c_until_z3_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Python's wakeup fd is a stand-in whose reads are scripted: a SIGTERM byte, a SIGINT
    # byte, then the end. Each read is recorded, so the thread's order is the test's.
    events: list[object] = []
    chunks = iter([bytes([signal.SIGTERM]), bytes([signal.SIGINT]), b""])
    done = threading.Event()
    watcher: list[threading.Thread] = []

    class Reader:
        def recv(self, size: int) -> bytes:
            watcher.append(threading.current_thread())
            events.append(("recv", size))
            chunk = next(chunks)
            if not chunk:
                done.set()
            return chunk

    class Writer:
        def setblocking(self, flag: bool) -> None:
            events.append(("blocking", flag))

        def fileno(self) -> int:
            return 7

    def interrupt() -> None:
        events.append("interrupt")
        if events.count("interrupt") == 2:  # z3 returns after the second
            smt._SOLVING.clear()

    reader, writer = Reader(), Writer()
    monkeypatch.setattr(smt, "_WATCHING", [])
    monkeypatch.setattr(smt, "socket", SimpleNamespace(socketpair=lambda: (reader, writer)))
    monkeypatch.setattr(
        signal,
        "set_wakeup_fd",
        lambda fd, *, warn_on_full_buffer: events.append(("wakeup", fd, warn_on_full_buffer)),
    )
    monkeypatch.setattr(z3, "main_ctx", lambda: SimpleNamespace(interrupt=interrupt))
    monkeypatch.setattr(smt, "time", SimpleNamespace(sleep=lambda s: events.append(("sleep", s))))
    smt._SOLVING.set()
    try:
        smt._watch()
        assert done.wait(timeout=30)
        watcher[0].join(timeout=30)
    finally:
        smt._SOLVING.clear()
    assert not watcher[0].is_alive()
    assert watcher[0].name == "z3-ctrl-c" and watcher[0].daemon
    assert events == [
        ("blocking", False),
        ("wakeup", 7, False),
        ("recv", 64),
        ("recv", 64),
        *["interrupt", ("sleep", 0.01)] * 2,
        ("recv", 64),
    ]
    assert [reader, writer] == smt._WATCHING
    smt._watch()  # once: the second call starts nothing
    assert len(events) == 9


def test_the_watcher_is_not_started_where_python_refuses_a_wakeup_fd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(fd: int, *, warn_on_full_buffer: bool) -> None:
        raise ValueError("set_wakeup_fd only works in main thread of the main interpreter")

    started: list[object] = []
    monkeypatch.setattr(smt, "_WATCHING", [])
    monkeypatch.setattr(signal, "set_wakeup_fd", refuse)
    monkeypatch.setattr(smt, "threading", SimpleNamespace(Thread=lambda **kw: started.append(kw)))
    smt._watch()
    assert smt._WATCHING == [] and started == []


class _Fixedpoint:
    """z3's Spacer fixedpoint, whose query fails one way or whose invariant is another."""

    def __init__(
        self,
        real: object,
        *,
        answer: object = None,
        error: Exception | None = None,
        cover: object = None,
    ) -> None:
        self.real, self.answer, self.error, self.cover = real, answer, error, cover

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def query(self, goal: object) -> object:
        if self.error is not None:
            raise self.error
        return self.answer if self.answer is not None else self.real.query(goal)  # type: ignore[attr-defined]

    def reason_unknown(self) -> str:
        return self.why

    why = "incomplete quantifiers"

    def get_cover_delta(self, level: int, relation: object) -> object:
        assert level == -1  # the invariant: the cover at every level
        return self.cover


def _spacer_answering(spec: Spec, **fake: object) -> Engines:
    engines = Engines(Encoding(spec))
    fp, *rest = engines._spacer()
    engines._fp = (_Fixedpoint(fp, **fake), *rest)  # type: ignore[arg-type]
    return engines


def test_spacer_failing_is_an_unknown_and_its_fixedpoint_is_built_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.default_int_handler)
    bad = gt(var("n"), 3)
    engines = _spacer_answering(TALLY, error=z3.Z3Exception(b"out of memory"))
    assert engines.spacer(bad, step=False) == Unknown("spacer", "z3 error: out of memory")
    assert engines._fp is None  # canceled: the next query builds a fresh one
    assert isinstance(engines.spacer(bad, step=False), Proved)
    engines = _spacer_answering(TALLY, answer=z3.unknown)
    assert engines.spacer(bad, step=False) == Unknown(
        "spacer", "z3 unknown: incomplete quantifiers"
    )
    assert engines._fp is None
    # Its invariant is checked: `true` does not exclude n > 3.
    engines = _spacer_answering(TALLY, cover=z3.BoolVal(True))
    assert engines.spacer(bad, step=False) == Unknown(
        "spacer", "Spacer's invariant did not check: it does not exclude the bad states"
    )
    assert engines._fp is not None


def test_spacer_canceled_by_a_ctrl_c_raises_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.default_int_handler)
    engines = _spacer_answering(TALLY, error=z3.Z3Exception(b"canceled"))
    with pytest.raises(KeyboardInterrupt):
        engines.spacer(gt(var("n"), 3), step=False)
    assert engines._fp is None
    engines = _spacer_answering(TALLY, answer=z3.unknown)
    engines._fp[0].why = "canceled"
    with pytest.raises(KeyboardInterrupt):
        engines.spacer(gt(var("n"), 3), step=False)
    assert engines._fp is None


# Two triggers with an argument of one name and two domains: `a`'s never reaches 3.
TWO_X = Spec(
    name="two_x",
    source=SRC,
    vars=(Var("n", IntRange(0, 1), 0),),
    triggers=(Trigger("a", (Param("x", IntRange(0, 1)),)), Trigger("b", (Param("x", SLOT),))),
    rows=(
        row("a", "a", None, sets={"n": param("x")}, cite=SRC),
        ignore("b", "b", None, cite=SRC),
    ),
)


def test_a_state_predicate_reads_the_named_triggers_typed_arguments() -> None:
    three = eq(param("x"), 3)
    engines = Engines(Encoding(TWO_X))
    assert engines.bmc(three, step=False, max_depth=1, params_of="a") == Unknown(
        "bmc", "nothing found up to depth 1"
    )
    assert engines.bmc(three, step=False, max_depth=1, params_of="b") == Found(
        "bmc", Trace({"n": 0}, ())
    )
    assert engines.k_induction(not_(three), step=False, max_k=0, params_of="a") == Proved(
        "k-induction", 0, "0-inductive over simple paths"
    )
    assert isinstance(engines.spacer(three, step=False, params_of="a"), Proved)
    assert engines.spacer(three, step=False, params_of="b") is None
    assert engines.impossible(three, params_of="a")
    assert not engines.impossible(three, params_of="b")


def test_k_induction_gives_each_hypothesis_its_own_arguments() -> None:
    # Only 0 is reachable; 2 -> 3 -> 4 is a path of good states only if 2 and 3 may each
    # read their own x (2 with x = 0, 3 with x = 1): it fails k = 2, and k = 3 proves.
    climb = Spec(
        name="climb",
        source=SRC,
        vars=(Var("n", IntRange(0, 5), 0),),
        triggers=(Trigger("t", (Param("x", IntRange(0, 1)),)),),
        rows=(
            row("up", "t", None, guard=ge(var("n"), 2), sets={"n": add(var("n"), 1)}, cite=SRC),
            ignore("stay", "t", None, guard=lt(var("n"), 2), cite=SRC),
        ),
        totality="enabled-only",
    )
    n, x = var("n"), param("x")
    good = or_(le(n, 1), and_(eq(n, 2), eq(x, 0)), and_(eq(n, 3), eq(x, 1)))
    engines = Engines(Encoding(climb))
    assert engines.k_induction(good, step=False, max_k=3, params_of="t") == Proved(
        "k-induction", 3, "3-inductive over simple paths"
    )


# ---------------------------------------------------------------- the full run's survivors

# Options whose inner slot is unused where unset: o is never set, and p starts at 4 (its
# unset start fails the initial predicate). The explorer reads `unwrap` of an unset option
# as None, which meets neither; z3 agrees only because it keeps the unused slot at its
# default (3), in every state it reads, the first one and those of R too.
LEVEL3 = Option(IntRange(3, 5))
OPEN = Spec(
    name="open",
    source=SRC,
    vars=(Var("o", LEVEL3, None), Var("p", LEVEL3, AnyOf(None, 4)), Var("n", IntRange(0, 1), 0)),
    init=eq(unwrap(var("p")), 4),
    triggers=(Trigger("t"),),
    rows=(row("t", "t", None, guard=eq(unwrap(var("o")), 5), sets={"n": 1}, cite=SRC),),
    totality="enabled-only",
)
OPEN_STATES: list[dict[str, Value]] = [{"o": None, "p": 4, "n": 0}]


def test_the_set_checks_keep_an_unset_options_slot_at_its_default() -> None:
    enc = Encoding(OPEN)
    assert smt.check_reachable_set(enc, OPEN_STATES, []) == SetCheck(
        True, "1 state: init ⊆ R, R closed under T, 0 tree edges are z3 transitions"
    )
    assert smt.check_reachable_sample(enc, OPEN_STATES, 1, [(OPEN_STATES[0], [])]) == SetCheck(
        True,
        "sampled 1 of 1 states (seed 0): init = z3's; from each, z3's successors = the "
        "explorer's (0 steps)",
    )


def test_the_gates_queries_keep_an_unset_options_slot_at_its_default() -> None:
    # A spec of its own: R's closure is proved once per original (and kept).
    original = dataclasses.replace(OPEN)
    assert smt.prove_equivalent(original, OPEN, OPEN_STATES) == smt.Equivalence(
        True,
        "same initial states, and every step of every trigger the same on the 1 reachable states",
    )
    assert smt.absent(OPEN, OPEN_STATES, eq(var("n"), 1), step=False) is None
    # R's finite view says only that o is unset; its typing fixes the slot `unwrap` reads.
    assert smt.absent(OPEN, OPEN_STATES, eq(unwrap(var("o")), 5), step=False) is None


def test_the_engines_keep_an_unset_options_slot_at_its_default() -> None:
    engines = Engines(Encoding(OPEN))
    unset = not_(is_some(var("p")))
    assert engines.bmc(unset, step=False, max_depth=1) == Unknown(
        "bmc", "nothing found up to depth 1"
    )
    assert engines.spacer(unset, step=False) == Proved("spacer", None, "inv: p.0")


def test_a_step_target_reads_the_state_the_step_reaches() -> None:
    # Fresh engines: an unrolling grown by an earlier query would hold frames past the step.
    two = eq(nxt("n"), 2)
    assert Engines(Encoding(TALLY)).bmc(two, step=True, max_depth=3) == Found(
        "bmc", Trace(_state(0), (_inc(1), _inc(2)))
    )
    assert Engines(Encoding(TALLY)).k_induction(not_(two), step=True, max_k=3) == Found(
        "k-induction", Trace(_state(0), (_inc(1), _inc(2)))
    )


def test_a_budget_with_a_millisecond_left_still_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, 0.0, 0.998046875, 0.9990234375)  # 1.95 ms left, then 0.98
    budget = Budget(1.0)
    assert budget.remaining_ms("bmc") == 1
    with pytest.raises(SolverLimit, match="^bmc: the check's budget of 1s is spent$"):
        budget.remaining_ms("bmc")


def test_check_raises_a_ctrl_c_that_z3_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda sig: signal.default_int_handler)
    _clock(monkeypatch, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5)
    with pytest.raises(KeyboardInterrupt):  # canceled long before the deadline
        smt._check(Budget(1.0), "bmc", _Solver(error=z3.Z3Exception(b"canceled")))
    canceled = _Solver(answer=z3.unknown)
    canceled.reason_unknown = lambda: "canceled"  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        smt._check(Budget(1.0), "bmc", canceled)
    with pytest.raises(SolverLimit, match="^bmc: z3 error: out of memory$"):
        smt._check(Budget(1.0), "bmc", _Solver(error=z3.Z3Exception(b"out of memory")))


def test_a_value_the_domain_does_not_list_is_encoded_by_its_label() -> None:
    assert str(encode_value(COLOUR, "RED")[0]) == "RED"


def test_a_domain_at_the_address_of_another_gets_its_own_constants(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hue, tint = Finite("Hue", ("a", "b")), Finite("Tint", ("a", "b"))
    encode_value(hue, "a")
    # As when `hue` is gone and `tint` is made at its address: the cache's entry is hue's.
    monkeypatch.setitem(smt._BY_DOMAIN, id(tint), smt._BY_DOMAIN[id(hue)])
    assert encode_value(tint, "a")[0].sort().name() == "Tint"
