"""The one printer (models/kernel/printer.py): every kind of expression, as a person reads it.

A spec whose labels differ from the values' own names (levels 1..3 read LOW, MID, HIGH; a
real prints as `1e+20`) shows that each part of a condition is printed with the spec's
vocabulary, wherever it sits: either side of a comparison, under a negation, inside a
quantifier, a function literal or a data operation.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import pytest

from models.kernel import Bool
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
from models.kernel import enabled
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import func
from models.kernel import ge
from models.kernel import group_is
from models.kernel import gt
from models.kernel import head
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
from models.kernel import ne
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
from models.kernel import tail
from models.kernel import total
from models.kernel import trigger_is
from models.kernel import unwrap
from models.kernel import update
from models.kernel import var
from models.kernel.expr import Expr
from models.kernel.printer import flat
from models.kernel.printer import label
from models.kernel.printer import paren
from models.kernel.printer import show
from models.kernel.printer import side
from models.kernel.printer import value
from models.kernel.printer import wrap

LEVEL = Finite("Level", (1, 2, 3), namer=lambda v: ("LOW", "MID", "HIGH")[v - 1])
NODE = IntRange(1, 2, "Node")
SEEN = Func(NODE, Set(LEVEL))
OPTS = Func(NODE, Option(LEVEL))
SPEC = Spec(
    name="printed",
    source="tests/test_printer.py",
    vars=(
        Var("level", LEVEL, 1),
        Var("opt", Option(LEVEL), None),
        Var("flag", Bool(), False),
        Var("w", Real(samples=(1.0,)), 1.0),
        Var("q", Seq(LEVEL, 2), ()),
        Var("seen", SEEN, SEEN.of(lambda n: frozenset())),
        Var("opts", OPTS, OPTS.of(lambda n: None)),
        Var("n", IntRange(0, 3), 0),
    ),
    triggers=(Trigger("go", (Param("k", NODE), Param("p", LEVEL))), Trigger("stop")),
    outputs=(Output("o", LEVEL, 1),),
    rows=(row("go", "go", None, cite="toy"), row("stop", "stop", None, cite="toy")),
)
L, F, W, Q, SN, K, P = (
    var("level"),
    var("flag"),
    var("w"),
    var("q"),
    var("seen"),
    param("k"),
    param("p"),
)
BIG = 10**20

CASES: list[tuple[Expr, str]] = [
    (eq(L, 2), "level = MID"),
    (eq(2, L), "MID = level"),
    (ne(L, 3), "level ≠ HIGH"),
    (eq(nxt("level"), 3), "level' = HIGH"),
    (eq(out("o"), 1), "out(o) = LOW"),
    (eq(P, 1), "?p = LOW"),
    (eq(K, 2), "?k = 2"),
    (eq(unwrap(var("opt")), 2), "opt.value = MID"),
    (eq(var("opt"), some(2)), "opt = MID"),
    (is_none(var("opt")), "opt is none"),
    (is_some(var("opt")), "opt is set"),
    (eq(unwrap(at(var("opts"), K)), P), "(opts[?k]).value = ?p"),
    (lt(W, BIG), "w < 1e+20"),
    (le(W, BIG), "w ≤ 1e+20"),
    (gt(W, BIG), "w > 1e+20"),
    (ge(W, BIG), "w ≥ 1e+20"),
    (not_(lt(W, BIG)), "w ≥ 1e+20"),
    (not_(le(W, BIG)), "w > 1e+20"),
    (not_(gt(W, BIG)), "w ≤ 1e+20"),
    (not_(ge(W, BIG)), "w < 1e+20"),
    (eq(add(W, BIG), 2 * BIG), "w + 1e+20 = 2e+20"),
    (eq(F, eq(L, 2)), "flag ⇔ (level = MID)"),
    (eq(eq(L, 2), F), "(level = MID) ⇔ flag"),
    (not_(eq(F, eq(L, 2))), "¬(flag ⇔ (level = MID))"),
    (not_(F), "¬flag"),
    (not_(and_(F, eq(L, 2))), "¬(flag ∧ level = MID)"),
    (is_in(L, 1, 2), "level ∈ {LOW, MID}"),
    (not_(is_in(L, 1, 2)), "level ∉ {LOW, MID}"),
    (is_in(L, 3), "level = HIGH"),
    (not_(is_in(L, 3)), "level ≠ HIGH"),
    (trigger_is("go"), "trigger is go"),
    (not_(trigger_is("go")), "trigger is not go"),
    (trigger_is("go", "stop"), "trigger ∈ {go, stop}"),
    (not_(trigger_is("go", "stop")), "trigger ∉ {go, stop}"),
    (not_(row_is("go")), "row is not go"),
    (group_is("caller"), "group is caller"),
    (enabled("go", "stop"), "enabled(go, stop)"),
    (or_(and_(F, eq(L, 2)), eq(L, 3)), "(flag ∧ level = MID) ∨ level = HIGH"),
    (implies(implies(F, eq(L, 2)), eq(L, 3)), "(flag → level = MID) → level = HIGH"),
    (implies(F, and_(eq(L, 1), eq(out("o"), 2))), "flag → (level = LOW ∧ out(o) = MID)"),
    (eq(L, ite(F, 1, 2)), "level = (if flag then LOW else MID)"),
    (eq(length(Q), 2), "Len(q) = 2"),
    (eq(head(Q), P), "Head(q) = ?p"),
    (eq(tail(Q), Q), "Tail(q) = q"),
    (eq(append(Q, P), Q), "Append(q, ?p) = q"),
    (eq(index(Q, K), P), "q[?k] = ?p"),
    (eq(update(SN, K, set_add(at(SN, K), P)), SN), "[seen EXCEPT ![?k] = seen[?k] ∪ {?p}] = seen"),
    (eq(set_remove(at(SN, K), P), at(SN, K)), "seen[?k] \\ {?p} = seen[?k]"),
    (eq(size(at(SN, K)), 2), "|seen[?k]| = 2"),
    (member(P, at(SN, K)), "?p ∈ seen[?k]"),
    (forall("x", NODE, lambda x: eq(L, 2)), "∀x ∈ Node: level = MID"),
    (exists("x", NODE, lambda x: eq(P, 3)), "∃x ∈ Node: ?p = HIGH"),
    (eq(var("n"), total("x", NODE, lambda x: size(at(SN, x)))), "n = Σx ∈ Node: |seen[x]|"),
    (eq(F, forall("x", NODE, lambda x: eq(L, 2))), "flag ⇔ (∀x ∈ Node: level = MID)"),
    (eq(F, member(P, at(SN, K))), "flag ⇔ (?p ∈ seen[?k])"),
    (eq(F, set_add(at(SN, K), P)), "flag = seen[?k] ∪ {?p}"),
]

# A condition that names a level, inside each operand: the spec reaches every depth.
C = ite(eq(L, 2), 1, 2)
SHOWN_C = "(if level = MID then 1 else 2)"
PICK = ite(eq(L, 2), P, unwrap(var("opt")))
SHOWN_PICK = "(if level = MID then ?p else opt.value)"
LIT = func(Func(NODE, LEVEL), lambda k: ite(eq(L, 2), 1, 2))
SHOWN_LIT = "[1 ↦ (if level = MID then LOW else MID), 2 ↦ (if level = MID then LOW else MID)]"
CASES += [
    (
        eq(L, ite(eq(L, 2), 1, ite(eq(L, 3), 2, 3))),
        "level = (if level = MID then LOW else (if level = HIGH then MID else HIGH))",
    ),
    (
        eq(L, ite(F, ite(eq(L, 1), 1, 2), 3)),
        "level = (if flag then (if level = LOW then LOW else MID) else HIGH)",
    ),
    (eq(W, add(BIG, W)), "w = 1e+20 + w"),
    (
        eq(W, add(ite(eq(L, 2), BIG, 1), ite(eq(L, 3), 1, BIG))),
        "w = (if level = MID then 1e+20 else 1) + (if level = HIGH then 1 else 1e+20)",
    ),
    (eq(C, K), f"{SHOWN_C} = ?k"),
    (eq(K, C), f"?k = {SHOWN_C}"),
    (is_in(ite(eq(L, 2), K, 1), 1), "(if level = MID then ?k else 1) = 1"),
    (is_some(at(var("opts"), C)), f"opts[{SHOWN_C}] is set"),
    (is_none(at(var("opts"), C)), f"opts[{SHOWN_C}] is none"),
    (eq(var("opt"), some(ite(eq(L, 2), 1, 2))), "opt = (if level = MID then LOW else MID)"),
    (eq(some(P), var("opt")), "?p = opt"),
    (eq(unwrap(at(var("opts"), C)), P), f"(opts[{SHOWN_C}]).value = ?p"),
    (eq(index(Q, C), P), f"q[{SHOWN_C}] = ?p"),
    (eq(append(Q, PICK), Q), "Append(q, (if level = MID then ?p else opt.value)) = q"),
    (eq(length(ite(eq(L, 2), Q, tail(Q))), 1), "Len((if level = MID then q else Tail(q))) = 1"),
    (eq(size(at(SN, C)), 1), f"|seen[{SHOWN_C}]| = 1"),
    (
        eq(set_add(at(SN, K), PICK), SN),
        "seen[?k] ∪ {(if level = MID then ?p else opt.value)} = seen",
    ),
    (
        eq(update(SN, C, set_add(at(SN, K), PICK)), SN),
        f"[seen EXCEPT ![{SHOWN_C}] = seen[?k] ∪ {{{SHOWN_PICK}}}] = seen",
    ),
    (eq(at(LIT, K), P), f"{SHOWN_LIT}[?k] = ?p"),
    (eq(update(LIT, K, P), LIT), f"[{SHOWN_LIT} EXCEPT ![?k] = ?p] = {SHOWN_LIT}"),
    (not_(eq(eq(L, 2), F)), "¬((level = MID) ⇔ flag)"),
    (and_(F, and_(eq(L, 1), eq(L, 2))), "flag ∧ level = LOW ∧ level = MID"),
    (or_(F, or_(eq(L, 1), eq(L, 2))), "flag ∨ level = LOW ∨ level = MID"),
]


@pytest.mark.parametrize(("expr", "text"), CASES)
def test_each_kind_of_expression_reads_in_the_specs_vocabulary(expr: Expr, text: str) -> None:
    assert show(SPEC, expr) == text


def test_a_function_literal_labels_each_entry_by_its_index_and_value() -> None:
    lit = func(Func(NODE, LEVEL), lambda k: 2)
    assert show(SPEC, eq(lit, SN)) == "[1 ↦ MID, 2 ↦ MID] = seen"


def test_without_a_spec_values_print_by_their_own_names() -> None:
    assert show(None, eq(L, 2)) == "level = 2"
    assert show(None, eq(P, 1)) == "?p = 1"


class Colour(enum.Enum):
    RED = "red"


class Named(NamedTuple):
    label: str


def test_values_without_a_domain() -> None:
    assert [value(v) for v in (None, True, False, Colour.RED, Named("eager"))] == [
        "none",
        "true",
        "false",
        "RED",
        "eager",
    ]
    assert value((Colour.RED, None)) == "[RED, none]"
    assert value(frozenset({2, 1})) == "{1, 2}"
    assert value(FuncValue((1, 2), (True, None))) == "[1 ↦ true, 2 ↦ none]"
    assert value(1 / 3) == "0.3333333333333333" and value(1e20) == "1e+20" and value(7) == "7"
    assert label(LEVEL, 2) == "MID" and label(None, 2) == "2"


def test_brackets_only_where_a_part_would_read_wrongly() -> None:
    assert side(SPEC, F) == "flag" and side(SPEC, not_(F)) == "¬flag"
    assert side(SPEC, eq(L, 2)) == "(level = MID)" and side(SPEC, var("n")) == "n"
    assert paren(SPEC, and_(F, eq(L, 2))) == "(flag ∧ level = MID)"
    assert paren(SPEC, forall("x", NODE, lambda x: F)) == "(∀x ∈ Node: flag)"
    assert paren(SPEC, eq(L, 2)) == "level = MID"


def test_flat_joins_only_the_same_connective() -> None:
    a, b, c, d = (eq(L, v) for v in (1, 2, 3, 1))
    inner_or = or_(c, d)
    assert flat(and_(a, and_(b, inner_or))) == [a, b, inner_or]  # type: ignore[arg-type]
    assert flat(or_(a, or_(b, c))) == [a, b, c]  # type: ignore[arg-type]


def test_wrap_fills_lines_to_the_width() -> None:
    assert wrap(["aa", "bb", "cc"], 7) == ["aa ∧ bb", "∧ cc"]
    assert wrap(["aa", "bb", "cc"], 6, ", ") == ["aa, bb,", "cc"]
    assert wrap(["aa", "bb"], 5, ", ") == ["aa,", "bb"]
    assert wrap(["aa", "bb"], 5, "; ") == ["aa;", "bb"]
    assert wrap(["aa", "bb"], 4, " ") == ["aa", "bb"]  # a space joins: nothing ends the line
    assert wrap([], 10) == []
