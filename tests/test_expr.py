"""The expression language itself (models/kernel/expr.py), read directly.

Every face reads a guard through this module, so a slip here changes all of them
alike and no cross-check between faces shows it. These tests pin the language's
own meaning: the exact value each node evaluates to, the exact domain `infer`
gives and the exact message `check` refuses with, the nodes the builders make,
and what `unroll`, `substitute`, `defined` and `walk` return. Every expression is
built inside its test, never at import time, so each test compiles it afresh.
"""

from __future__ import annotations

import dataclasses
import typing

import pytest

from models.kernel import expr as ex
from models.kernel.domains import Bool
from models.kernel.domains import Domain
from models.kernel.domains import Func
from models.kernel.domains import FuncValue
from models.kernel.domains import IntRange
from models.kernel.domains import Option
from models.kernel.domains import Real
from models.kernel.domains import Seq
from models.kernel.domains import Set
from models.kernel.domains import Value
from models.kernel.expr import Env
from models.kernel.expr import ExprTypeError
from models.kernel.expr import UndefinedError

BIG = IntRange(-(2**31), 2**31)


def _typer(**domains: Domain) -> ex.Typer:
    """A typer for pre-state variables named by keyword; `p_x` is parameter x, `o_x` output
    x, `n_x` the after-state of x, `b_x` the bound variable x."""
    prefix = {"pre": "", "param": "p_", "out": "o_", "post": "n_", "bound": "b_"}

    def typer(scope: ex.Scope, name: str) -> Domain:
        return domains[prefix[scope] + name]

    return typer


def _env(**pre: Value) -> Env:
    return Env(pre=pre)


def value(e: ex.Expr, **pre: Value) -> Value:
    return ex.evaluate(e, _env(**pre))


# ---------------------------------------------------------------- builders make the nodes


def test_builders_make_exactly_their_nodes() -> None:
    n = ex.var("n")
    assert n == ex.Ref("pre", "n")
    assert ex.nxt("n") == ex.Ref("post", "n")
    assert ex.param("k") == ex.Ref("param", "k")
    assert ex.out("o") == ex.Ref("out", "o")
    assert ex.eq(n, 1) == ex.Eq(n, ex.Const(1))
    assert ex.ne(n, 1) == ex.Not(ex.Eq(n, ex.Const(1)))
    assert ex.is_in(n, 1, 2) == ex.In(n, (1, 2))
    assert ex.and_(ex.TRUE) is ex.TRUE
    assert ex.and_(ex.TRUE, ex.FALSE) == ex.And((ex.TRUE, ex.FALSE))
    assert ex.or_(ex.FALSE) is ex.FALSE
    assert ex.or_(ex.TRUE, ex.FALSE) == ex.Or((ex.TRUE, ex.FALSE))
    assert ex.not_(ex.TRUE) == ex.Not(ex.TRUE)
    assert ex.implies(ex.TRUE, ex.FALSE) == ex.Implies(ex.TRUE, ex.FALSE)
    assert ex.ite(ex.TRUE, 1, 2) == ex.Ite(ex.TRUE, ex.Const(1), ex.Const(2))
    assert ex.lt(n, 1) == ex.Cmp("<", n, ex.Const(1))
    assert ex.le(n, 1) == ex.Cmp("<=", n, ex.Const(1))
    assert ex.gt(n, 1) == ex.Cmp(">", n, ex.Const(1))
    assert ex.ge(1, n) == ex.Cmp(">=", ex.Const(1), n)
    assert ex.add(n, 1) == ex.Add(n, ex.Const(1), "+")
    assert ex.sub(n, 1) == ex.Add(n, ex.Const(1), "-")
    assert ex.is_some(n) == ex.IsSome(n)
    assert ex.is_none(n) == ex.Not(ex.IsSome(n))
    assert ex.some(1) == ex.Some(ex.Const(1))
    assert ex.unwrap(n) == ex.Unwrap(n)
    assert ex.trigger_is("a", "b") == ex.StepIs("trigger", ("a", "b"))
    assert ex.row_is("r") == ex.StepIs("row", ("r",))
    assert ex.group_is("g") == ex.StepIs("group", ("g",))
    assert ex.enabled("a", "b") == ex.Enabled(("a", "b"))
    assert ex.bound("i") == ex.Bound("i")
    assert ex.append(n, 1) == ex.SeqOp("append", n, ex.Const(1))
    assert ex.head(n) == ex.SeqOp("head", n, None)
    assert ex.tail(n) == ex.SeqOp("tail", n, None)
    assert ex.length(n) == ex.SeqOp("len", n, None)
    assert ex.index(n, 2) == ex.SeqOp("index", n, ex.Const(2))
    assert ex.at(n, 1) == ex.At(n, ex.Const(1))
    assert ex.update(n, 1, 2) == ex.Update(n, ex.Const(1), ex.Const(2))
    assert ex.member(1, n) == ex.SetOp("member", n, ex.Const(1))
    assert ex.set_add(n, 1) == ex.SetOp("add", n, ex.Const(1))
    assert ex.set_remove(n, 1) == ex.SetOp("remove", n, ex.Const(1))
    assert ex.size(n) == ex.SetOp("size", n, None)
    assert ex.unchanged("a") == ex.Eq(ex.Ref("post", "a"), ex.Ref("pre", "a"))
    assert ex.unchanged("a", "b") == ex.And(
        (
            ex.Eq(ex.Ref("post", "a"), ex.Ref("pre", "a")),
            ex.Eq(ex.Ref("post", "b"), ex.Ref("pre", "b")),
        )
    )
    assert ex.as_expr(n) is n
    assert ex.as_expr(3) == ex.Const(3)
    assert ex.Const(True) == ex.TRUE and ex.Const(False) == ex.FALSE


def test_quantifier_builders_bind_their_variable() -> None:
    d = IntRange(0, 2)
    body = ex.gt(ex.bound("i"), 0)
    assert ex.forall("i", d, body) == ex.Quant("all", "i", d, body)
    assert ex.exists("i", d, lambda i: ex.gt(i, 0)) == ex.Quant("any", "i", d, body)
    assert ex.total("i", d, lambda i: ex.ite(ex.gt(i, 0), 1, 0)) == ex.Quant(
        "sum", "i", d, ex.Ite(body, ex.Const(1), ex.Const(0))
    )
    with pytest.raises(AssertionError, match="a quantifier's body must be an expression, got 3"):
        ex.forall("i", d, lambda i: 3)  # type: ignore[arg-type,return-value]
    with pytest.raises(AssertionError, match="a quantifier's body must be an expression, got 3"):
        ex.exists("i", d, 3)  # type: ignore[arg-type]


def test_func_literal_builds_one_item_per_key_in_order() -> None:
    f = Func(IntRange(1, 3), IntRange(0, 9))
    assert ex.func(f, {1: 7, 2: ex.var("n"), 3: 9}) == ex.FuncLit(
        f, (ex.Const(7), ex.var("n"), ex.Const(9))
    )
    assert ex.func(f, lambda k: k * 2) == ex.FuncLit(f, (ex.Const(2), ex.Const(4), ex.Const(6)))


def _one_of_each_node() -> list[tuple[ex.Expr, tuple[ex.Expr, ...]]]:
    """A node of every kind (two where an operand is optional), with its operands in order."""
    a, b, c = ex.var("a"), ex.var("b"), ex.var("c")
    d = IntRange(0, 1)
    f = Func(d, d)
    return [
        (ex.Const(1), ()),
        (a, ()),
        (ex.Eq(a, b), (a, b)),
        (ex.In(a, (1,)), (a,)),
        (ex.Not(a), (a,)),
        (ex.And((a, b, c)), (a, b, c)),
        (ex.Or((a, b)), (a, b)),
        (ex.Implies(a, b), (a, b)),
        (ex.Ite(a, b, c), (a, b, c)),
        (ex.Cmp("<", a, b), (a, b)),
        (ex.Add(a, b), (a, b)),
        (ex.IsSome(a), (a,)),
        (ex.Some(a), (a,)),
        (ex.Unwrap(a), (a,)),
        (ex.StepIs("row", ("r",)), ()),
        (ex.Enabled(("t",)), ()),
        (ex.Bound("i"), ()),
        (ex.Quant("all", "i", d, a), (a,)),
        (ex.SeqOp("len", a), (a,)),
        (ex.SeqOp("index", a, b), (a, b)),
        (ex.At(a, b), (a, b)),
        (ex.Update(a, b, c), (a, b, c)),
        (ex.FuncLit(f, (a, b)), (a, b)),
        (ex.SetOp("size", a), (a,)),
        (ex.SetOp("add", a, b), (a, b)),
    ]


def test_children_are_the_operands_in_order() -> None:
    cases = _one_of_each_node()
    assert {type(e) for e, _ in cases} == set(ex.NODES)
    for e, operands in cases:
        assert e.children() == operands, e


def test_children_are_the_expression_typed_fields_in_field_order() -> None:
    # Read from the resolved type hints, not the annotation text the kernel reads.
    for e, _ in _one_of_each_node():
        hints = typing.get_type_hints(type(e))
        assert dataclasses.is_dataclass(e)
        kids: list[ex.Expr] = []
        for field in dataclasses.fields(e):
            value, hint = getattr(e, field.name), hints[field.name]
            if hint == tuple[ex.Expr, ...]:
                kids.extend(value)
            elif hint in (ex.Expr, ex.Expr | None) and value is not None:
                kids.append(value)
        assert e.children() == tuple(kids), e
        # Derived again inside the test: the classes' own getters were derived at import,
        # where a mutant of the derivation (mutmut's) never runs.
        assert ex._children_getter(type(e))(e) == tuple(kids), e


def test_a_node_class_with_operand_fields_children_cannot_read_is_refused() -> None:
    with pytest.raises(TypeError) as info:

        class Pair(ex.Expr):
            items: list[ex.Expr]

    assert str(info.value) == (
        "Pair.items: 'list[ex.Expr]' is not one of Expr, Expr | None, tuple[Expr, ...]"
    )
    # Annotations as expr.py's own read (text, unqualified): an optional operand comes last.
    with pytest.raises(TypeError) as info:
        type("Odd", (ex.Expr,), {"__annotations__": {"a": "Expr | None", "b": "Expr"}})
    assert str(info.value) == "Odd: sub-expression fields maybe, one (no getter)"


def test_walk_lists_every_node_depth_first() -> None:
    a, b = ex.var("a"), ex.var("b")
    e = ex.and_(ex.eq(a, 1), ex.not_(b))
    assert ex.walk(e) == [e, ex.eq(a, 1), a, ex.Const(1), ex.not_(b), b]


def test_step_expressions_are_those_reading_a_step() -> None:
    assert not ex.is_step_expr(ex.and_(ex.eq(ex.var("a"), 1), ex.TRUE))
    assert ex.is_step_expr(ex.not_(ex.eq(ex.nxt("a"), 1)))
    assert ex.is_step_expr(ex.eq(ex.param("a"), 1))
    assert ex.is_step_expr(ex.eq(ex.out("a"), 1))
    assert ex.is_step_expr(ex.or_(ex.FALSE, ex.row_is("r")))


def test_node_refuses_a_kind_it_does_not_know() -> None:
    class Odd(ex.Expr):
        pass

    assert ex.node(ex.TRUE) is ex.TRUE
    with pytest.raises(ExprTypeError, match="^unknown expression node Odd$"):
        ex.node(Odd())


def test_an_expression_has_no_truth_value_and_a_long_one_is_cut() -> None:
    short = ex.eq(ex.var("n"), 1)
    with pytest.raises(TypeError) as info:
        bool(short)
    assert str(info.value) == (
        "an expression has no truth value (n = 1): Python's and/or/not/if cannot combine"
        " expressions; use and_(a, b), or_(a, b), not_(a), ite(c, a, b)"
    )
    long = ex.and_(*(ex.eq(ex.var(f"v{i}"), i) for i in range(12)))
    with pytest.raises(TypeError) as info:
        bool(long)
    text = str(info.value).split("(", 1)[1].split("):", 1)[0]
    assert len(text) == 60 and text.endswith("…")
    assert text[:59] == ex.shown(long)[:59]


# ---------------------------------------------------------------- evaluation


def test_connectives_evaluate_exactly() -> None:
    t, f = ex.TRUE, ex.FALSE
    for a in (t, f):
        for b in (t, f):
            va, vb = a == t, b == t
            assert value(ex.And((a, b))) is (va and vb)
            assert value(ex.Or((a, b))) is (va or vb)
            assert value(ex.Implies(a, b)) is ((not va) or vb)
            assert value(ex.Not(a)) is (not va)
    assert value(ex.And((t, t, f))) is False
    assert value(ex.Or((f, f, t))) is True
    assert value(ex.Ite(t, ex.Const(1), ex.Const(2))) == 1
    assert value(ex.Ite(f, ex.Const(1), ex.Const(2))) == 2


def test_comparisons_and_arithmetic_evaluate_exactly() -> None:
    n = ex.var("n")
    for k in (1, 2, 3):
        assert value(ex.lt(n, 2), n=k) is (k < 2)
        assert value(ex.le(n, 2), n=k) is (k <= 2)
        assert value(ex.gt(n, 2), n=k) is (k > 2)
        assert value(ex.ge(n, 2), n=k) is (k >= 2)
        assert value(ex.eq(n, 2), n=k) is (k == 2)
        assert value(ex.ne(n, 2), n=k) is (k != 2)
        assert value(ex.is_in(n, 2, 3), n=k) is (k in (2, 3))
    assert value(ex.add(n, 3), n=5) == 8
    assert value(ex.sub(n, 3), n=5) == 2
    assert value(ex.sub(3, n), n=5) == -2
    assert value(ex.add(n, ex.var("k")), n=5, k=2) == 7
    assert value(ex.sub(n, ex.var("k")), n=5, k=2) == 3


def test_options_evaluate_exactly() -> None:
    o = ex.var("o")
    assert value(ex.is_some(o), o=0) is True
    assert value(ex.is_some(o), o=None) is False
    assert value(ex.is_none(o), o=None) is True
    assert value(ex.unwrap(o), o=4) == 4
    assert value(ex.some(ex.var("n")), n=4) == 4


def test_refs_read_their_own_scope() -> None:
    env = Env(
        pre={"x": 1},
        post={"x": 2},
        params={"x": 3},
        outputs={"x": 4},
        trigger="t",
        row="r",
        group="g",
    )
    assert [
        ex.evaluate(r, env) for r in (ex.var("x"), ex.nxt("x"), ex.param("x"), ex.out("x"))
    ] == [
        1,
        2,
        3,
        4,
    ]
    assert ex.evaluate(ex.trigger_is("u", "t"), env) is True
    assert ex.evaluate(ex.trigger_is("r", "g"), env) is False
    assert ex.evaluate(ex.row_is("r"), env) is True
    assert ex.evaluate(ex.row_is("t", "g"), env) is False
    assert ex.evaluate(ex.group_is("g"), env) is True
    assert ex.evaluate(ex.group_is("t", "r"), env) is False
    bare = _env(x=1)
    for scope, r in (("post", ex.nxt("x")), ("param", ex.param("x")), ("out", ex.out("x"))):
        with pytest.raises(ExprTypeError, match=f"^{scope} values are not available here$"):
            ex.evaluate(r, bare)


def test_quantifiers_evaluate_over_their_domain() -> None:
    d = IntRange(1, 3)
    n = ex.var("n")
    assert value(ex.forall("i", d, lambda i: ex.le(i, n)), n=3) is True
    assert value(ex.forall("i", d, lambda i: ex.le(i, n)), n=2) is False
    assert value(ex.exists("i", d, lambda i: ex.eq(i, n)), n=3) is True
    assert value(ex.exists("i", d, lambda i: ex.eq(i, n)), n=0) is False
    assert value(ex.total("i", d, lambda i: ex.ite(ex.le(i, n), i, 0)), n=2) == 3
    assert value(ex.total("i", d, lambda i: i), n=0) == 6


def test_sequences_evaluate_exactly() -> None:
    s = ex.var("s")
    assert value(ex.append(s, 3), s=(1, 2)) == (1, 2, 3)
    assert value(ex.append(s, ex.var("k")), s=(1,), k=4) == (1, 4)
    assert value(ex.index(s, ex.var("k")), s=(5, 6), k=2) == 6
    with pytest.raises(UndefinedError, match="^position 3 of a sequence of length 2$"):
        value(ex.index(s, ex.var("k")), s=(5, 6), k=3)
    assert value(ex.head(s), s=(1, 2)) == 1
    assert value(ex.head(s), s=(7,)) == 7
    assert value(ex.tail(s), s=(7,)) == ()
    assert value(ex.tail(s), s=(1, 2, 3)) == (2, 3)
    assert value(ex.length(s), s=(1, 2)) == 2
    assert value(ex.index(s, 1), s=(5, 6)) == 5
    assert value(ex.index(s, 2), s=(5, 6)) == 6
    for e, seq, msg in (
        (ex.head(s), (), "position 1 of a sequence of length 0"),
        (ex.tail(s), (), "position 1 of a sequence of length 0"),
        (ex.index(s, 3), (5, 6), "position 3 of a sequence of length 2"),
        (ex.index(s, 0), (5, 6), "position 0 of a sequence of length 2"),
    ):
        with pytest.raises(UndefinedError, match=f"^{msg}$"):
            value(e, s=seq)


def test_functions_and_sets_evaluate_exactly() -> None:
    fd = Func(IntRange(1, 2), IntRange(0, 9))
    f = ex.var("f")
    fv = fd.of({1: 4, 2: 5})
    assert value(ex.at(f, 2), f=fv) == 5
    assert value(ex.update(f, 1, 7), f=fv) == fd.of({1: 7, 2: 5})
    lit = value(ex.func(fd, {1: ex.var("n"), 2: 3}), n=8)
    assert isinstance(lit, FuncValue) and lit == fd.of({1: 8, 2: 3})
    s = ex.var("s")
    sv = frozenset({1, 2})
    assert value(ex.member(2, s), s=sv) is True
    assert value(ex.member(3, s), s=sv) is False
    assert value(ex.set_add(s, 3), s=sv) == frozenset({1, 2, 3})
    assert value(ex.set_remove(s, 1), s=sv) == frozenset({2})
    assert value(ex.size(s), s=sv) == 2
    k = ex.var("k")
    assert value(ex.member(k, s), s=sv, k=2) is True
    assert value(ex.member(k, s), s=sv, k=3) is False
    assert value(ex.set_add(s, k), s=sv, k=3) == frozenset({1, 2, 3})
    assert value(ex.set_remove(s, k), s=sv, k=2) == frozenset({1})
    assert value(ex.at(f, k), f=fv, k=1) == 4
    assert value(ex.update(f, k, ex.var("x")), f=fv, k=2, x=9) == fd.of({1: 4, 2: 9})


def test_enabled_and_bound_cannot_be_evaluated() -> None:
    with pytest.raises(ExprTypeError, match="^cannot evaluate Enabled here$"):
        value(ex.enabled("t"))
    with pytest.raises(ExprTypeError, match="^cannot evaluate Bound here$"):
        value(ex.bound("i"))


def test_compiled_is_built_once_per_object() -> None:
    e = ex.add(ex.var("n"), 1)
    assert ex.compiled(e) is ex.compiled(e)
    # Equal-looking but of another type: compiled apart.
    one, true = ex.Const(1), ex.Const(True)
    assert value(one) == 1 and value(true) is True


# ---------------------------------------------------------------- unroll, substitute, defined


def test_substitute_replaces_only_its_bound_variable() -> None:
    i, j = ex.bound("i"), ex.bound("j")
    e = ex.and_(ex.eq(i, 1), ex.eq(j, 2))
    assert ex.substitute(e, "i", 5) == ex.and_(ex.eq(5, 1), ex.eq(j, 2))
    same = ex.eq(j, 2)
    assert ex.substitute(same, "i", 5) is same
    shadow = ex.forall("i", IntRange(0, 1), ex.eq(i, 0))
    assert ex.substitute(shadow, "i", 5) is shadow
    inner = ex.forall("j", IntRange(0, 1), ex.eq(i, j))
    assert ex.substitute(inner, "i", 5) == ex.forall("j", IntRange(0, 1), ex.eq(5, j))
    assert ex.substitute(ex.Not(i), "i", True) == ex.Not(ex.Const(True))


def test_unroll_expands_each_quantifier() -> None:
    d = IntRange(1, 3)
    n = ex.var("n")
    assert ex.unroll(ex.forall("i", d, lambda i: ex.le(i, n))) == ex.And(
        tuple(ex.le(k, n) for k in (1, 2, 3))
    )
    assert ex.unroll(ex.exists("i", d, lambda i: ex.le(i, n))) == ex.Or(
        tuple(ex.le(k, n) for k in (1, 2, 3))
    )
    assert ex.unroll(ex.total("i", d, lambda i: i)) == ex.Add(
        ex.Add(ex.Const(1), ex.Const(2)), ex.Const(3)
    )
    nested = ex.not_(ex.forall("i", IntRange(0, 1), lambda i: ex.eq(i, n)))
    assert ex.unroll(nested) == ex.Not(ex.And((ex.eq(0, n), ex.eq(1, n))))
    plain = ex.and_(ex.eq(n, 1), ex.TRUE)
    assert ex.unroll(plain) is plain
    assert ex.instances(ex.Quant("all", "i", d, ex.eq(ex.bound("i"), n))) == (
        ex.eq(1, n),
        ex.eq(2, n),
        ex.eq(3, n),
    )


def test_partial_names_the_operations_that_can_be_undefined() -> None:
    s = ex.var("s")
    assert not ex.partial(ex.gt(ex.length(s), 0))
    for e in (ex.head(s), ex.tail(s), ex.append(s, 1), ex.index(s, 1)):
        assert ex.partial(ex.eq(e, e))


def test_defined_says_exactly_when() -> None:
    s = ex.var("s")
    typer = _typer(s=Seq(IntRange(0, 3), 2), n=IntRange(0, 3))
    n_ = ex.SeqOp("len", s)
    assert ex.defined(ex.gt(ex.length(s), 0), typer) is ex.TRUE
    assert ex.defined(ex.head(s), typer) == ex.Cmp(">", n_, ex.Const(0))
    assert ex.defined(ex.tail(s), typer) == ex.Cmp(">", n_, ex.Const(0))
    assert ex.defined(ex.append(s, 1), typer) == ex.Cmp("<", n_, ex.Const(2))
    k = ex.var("n")
    assert ex.defined(ex.index(s, k), typer) == ex.Cmp("<=", k, n_)
    guard = ex.gt(ex.length(s), 0)
    h = ex.eq(ex.head(s), 1)
    head_ok = ex.Cmp(">", n_, ex.Const(0))
    assert ex.defined(ex.and_(guard, h), typer) == ex.Implies(ex.And((guard,)), head_ok)
    assert ex.defined(ex.or_(guard, h), typer) == ex.Implies(ex.Not(ex.Or((guard,))), head_ok)
    assert ex.defined(ex.and_(h, guard), typer) == head_ok
    assert ex.defined(ex.and_(h, h), typer) == ex.And((head_ok, ex.Implies(ex.And((h,)), head_ok)))
    assert ex.defined(ex.implies(h, guard), typer) == ex.And((head_ok, ex.Implies(h, ex.TRUE)))
    assert ex.defined(ex.implies(guard, h), typer) == ex.Implies(guard, head_ok)
    not_guard = ex.Not(guard)
    assert ex.defined(ex.ite(guard, ex.head(s), 0), typer) == ex.And(
        (ex.Implies(guard, head_ok), ex.Implies(not_guard, ex.TRUE))
    )
    assert ex.defined(ex.ite(guard, 0, ex.head(s)), typer) == ex.And(
        (ex.Implies(guard, ex.TRUE), ex.Implies(not_guard, head_ok))
    )
    assert ex.defined(ex.ite(h, 0, 1), typer) == ex.And(
        (head_ok, ex.Implies(h, ex.TRUE), ex.Implies(ex.Not(h), ex.TRUE))
    )
    q = ex.exists("i", IntRange(1, 2), lambda i: ex.eq(ex.index(s, i), 0))
    assert ex.defined(q, typer) == ex.And(
        (
            ex.Cmp("<=", ex.Const(1), n_),
            ex.Implies(ex.Not(ex.Or((ex.eq(ex.index(s, 1), 0),))), ex.Cmp("<=", ex.Const(2), n_)),
        )
    )
    # The length is always defined; its operand may not be.
    assert ex.defined(ex.length(ex.tail(s)), typer) == head_ok
    # An operand's own condition comes first: head of the tail.
    ht = ex.head(ex.tail(s))
    assert ex.defined(ht, typer) == ex.And(
        (head_ok, ex.Cmp(">", ex.SeqOp("len", ex.tail(s)), ex.Const(0)))
    )


# ---------------------------------------------------------------- typing


def test_infer_gives_each_kind_its_domain() -> None:
    n, r = IntRange(0, 3), Real((0.5,))
    s, o = Seq(IntRange(0, 3), 2), Option(IntRange(0, 3))
    f, st = Func(IntRange(1, 2), Bool()), Set(IntRange(0, 2))
    typer = _typer(n=n, r=r, s=s, o=o, f=f, st=st, p_k=n, b_i=IntRange(5, 6))
    v = ex.var
    cases: list[tuple[ex.Expr, Domain | None]] = [
        (ex.Const(1), None),
        (v("n"), n),
        (ex.param("k"), n),
        (ex.eq(v("n"), 1), Bool()),
        (ex.is_in(v("n"), 1), Bool()),
        (ex.and_(ex.TRUE, ex.FALSE), Bool()),
        (ex.ite(ex.TRUE, 1, 2), None),
        (ex.ite(ex.TRUE, v("n"), 2), n),
        (ex.ite(ex.TRUE, 2, v("n")), n),
        (ex.lt(v("n"), 1), Bool()),
        (ex.add(v("n"), 1), BIG),
        (ex.add(1, 2), BIG),
        (ex.add(v("r"), 1), r),
        (ex.is_some(v("o")), Bool()),
        (ex.unwrap(v("o")), n),
        (ex.some(v("n")), Option(n)),
        (ex.some(1), None),
        (ex.row_is("x"), Bool()),
        (ex.enabled("x"), Bool()),
        (ex.bound("i"), IntRange(5, 6)),
        (ex.forall("i", n, lambda i: ex.gt(i, 0)), Bool()),
        (ex.total("i", n, lambda i: i), BIG),
        (ex.total("i", n, ex.Const(1)), BIG),
        (ex.append(v("s"), 1), s),
        (ex.head(v("s")), s.element),
        (ex.tail(v("s")), s),
        (ex.length(v("s")), IntRange(0, 2)),
        (ex.index(v("s"), 1), s.element),
        (ex.at(v("f"), 1), Bool()),
        (ex.update(v("f"), 1, True), f),
        (ex.func(f, {1: True, 2: False}), f),
        (ex.member(1, v("st")), Bool()),
        (ex.set_add(v("st"), 1), st),
        (ex.set_remove(v("st"), 1), st),
        (ex.size(v("st")), IntRange(0, 3)),
    ]
    for e, want in cases:
        assert ex.infer(e, typer) == want, ex.shown(e)
    # An untyped side is checked with the spec's typer (its condition reads a variable).
    untyped = ex.ite(ex.var("b"), 1, 2)
    typer = _typer(n=n, b=Bool())
    assert ex.infer(ex.eq(untyped, v("n")), typer) == Bool()
    assert ex.infer(ex.eq(v("n"), untyped), typer) == Bool()


def _refused(e: ex.Expr, typer: ex.Typer, message: str) -> None:
    with pytest.raises(ExprTypeError) as info:
        ex.infer(e, typer)
    assert str(info.value) == message, repr(str(info.value))


def test_infer_refuses_with_exact_messages() -> None:
    n, b = IntRange(0, 3), Bool()
    s, o = Seq(IntRange(0, 3), 2), Option(IntRange(0, 3))
    f, st = Func(IntRange(1, 2), Bool()), Set(IntRange(0, 2))
    typer = _typer(n=n, b=b, s=s, o=o, f=f, st=st, r=Real((0.5,)))
    v = ex.var
    for e, message in [
        (ex.eq(1, 2), "compares two constants"),
        (ex.eq(v("n"), v("b")), "==: int 0..3 does not match bool (false, true)"),
        (ex.eq(v("n"), 7), "7 is not in int 0..3"),
        (ex.eq(7, v("n")), "7 is not in int 0..3"),
        (ex.is_in(1, 1), "tests a constant for membership"),
        (ex.is_in(v("n"), 1, 9), "9 is not in int 0..3"),
        (ex.and_(v("b"), v("n")), "needs bool (false, true), got int 0..3"),
        (ex.not_(v("n")), "needs bool (false, true), got int 0..3"),
        (ex.implies(v("b"), v("n")), "needs bool (false, true), got int 0..3"),
        (ex.ite(v("n"), 1, 2), "needs bool (false, true), got int 0..3"),
        (
            ex.ite(v("b"), v("n"), v("b")),
            "if-then-else: int 0..3 does not match bool (false, true)",
        ),
        (ex.ite(v("b"), v("n"), True), "True is not in int 0..3"),
        (ex.ite(v("b"), True, v("n")), "True is not in int 0..3"),
        (ex.lt(v("b"), 1), "arithmetic needs an int or real operand, got bool (false, true)"),
        (ex.lt(1, v("b")), "arithmetic needs an int or real operand, got bool (false, true)"),
        (ex.add(v("n"), True), "n + true: True is not an integer"),
        (ex.add(v("n"), 0.5), "n + 0.5: 0.5 is not an integer"),
        (ex.lt(v("n"), 0.5), "n < 0.5: 0.5 is not in int 0..3"),
        (ex.add(v("n"), v("b")), "n + b: needs int 0..3, got bool (false, true)"),
        (ex.is_some(v("n")), "is_some needs an option, got int 0..3"),
        (ex.is_some(ex.Const(1)), "is_some needs an option, got a constant"),
        (ex.unwrap(v("n")), "unwrap needs an option, got int 0..3"),
        (ex.forall("i", Real((0.5,)), ex.TRUE), "a quantifier needs a finite domain, got real"),
        (ex.exists("i", n, lambda i: i), "needs bool (false, true), got int 0..3"),
        (
            ex.total("i", n, lambda i: ex.gt(i, 0)),
            "total needs an integer body, got bool (false, true)",
        ),
        (
            ex.total("i", n, lambda i: ex.ite(ex.gt(i, 0), True, 0)),
            "True is not in int -2147483648..2147483648",
        ),
        (ex.head(v("n")), "head needs a sequence, got int 0..3"),
        (ex.length(ex.Const(())), "len needs a sequence, got a constant"),
        (ex.append(v("s"), 9), "9 is not in int 0..3"),
        (ex.index(v("s"), True), "True is not in int -2147483648..2147483648"),
        (ex.at(v("n"), 1), "at needs a function, got int 0..3"),
        (ex.update(v("n"), 1, 1), "update needs a function, got int 0..3"),
        (ex.at(v("f"), 3), "3 is not in int 1..2"),
        (ex.update(v("f"), 1, 3), "3 is not in bool (false, true)"),
        (ex.update(v("f"), 3, True), "3 is not in int 1..2"),
        (ex.FuncLit(f, (ex.TRUE,)), f"a literal of {f.name} needs one value per index"),
        (ex.func(f, {1: True, 2: 3}), "3 is not in bool (false, true)"),
        (ex.size(v("n")), "size needs a set, got int 0..3"),
        (ex.member(v("n"), v("f")), "member needs a set, got functions [int -> bool]"),
        (ex.member(9, v("st")), "9 is not in int 0..2"),
        (ex.set_add(v("st"), 9), "9 is not in int 0..2"),
    ]:
        _refused(e, typer, message)


def test_check_fits_constants_options_branches_and_ranges() -> None:
    n, o = IntRange(0, 3), Option(IntRange(0, 3))
    typer = _typer(n=n, o=o, b=Bool(), m=IntRange(5, 9))
    ex.check(ex.Const(3), typer, n)
    with pytest.raises(ExprTypeError, match=r"^4 is not in int 0\.\.3$"):
        ex.check(ex.Const(4), typer, n)
    ex.check(ex.some(3), typer, o)
    with pytest.raises(ExprTypeError, match=r"^4 is not in int 0\.\.3$"):
        ex.check(ex.some(4), typer, o)
    ex.check(ex.ite(ex.var("b"), 1, 2), typer, n)
    with pytest.raises(ExprTypeError, match=r"^needs bool \(false, true\), got int 0\.\.3$"):
        ex.check(ex.ite(ex.var("n"), 1, 2), typer, n)
    with pytest.raises(ExprTypeError, match=r"^7 is not in int 0\.\.3$"):
        ex.check(ex.ite(ex.var("b"), 7, 2), typer, n)
    with pytest.raises(ExprTypeError, match=r"^7 is not in int 0\.\.3$"):
        ex.check(ex.ite(ex.var("b"), 1, 7), typer, n)
    # Any two integer ranges fit: the range is enforced where the value is stored.
    ex.check(ex.var("m"), typer, n)
    ex.check(ex.add(ex.var("n"), 100), typer, n)
    with pytest.raises(ExprTypeError, match=r"^needs int 0\.\.3, got bool \(false, true\)$"):
        ex.check(ex.var("b"), typer, n)
    with pytest.raises(
        ExprTypeError, match=r"^needs Option\[int\] \(none, 0, 1, 2, 3\), got int 0\.\.3$"
    ):
        ex.check(ex.var("n"), typer, o)
    ex.check(ex.var("n"), typer, IntRange(0, 1))


def test_a_truth_value_message_is_cut_past_sixty_characters() -> None:
    for name, shown in (
        ("x" * 56, "x" * 56 + " = 1"),
        ("x" * 57, "x" * 57 + " =…"),
    ):
        with pytest.raises(TypeError) as info:
            bool(ex.eq(ex.var(name), 1))
        assert str(info.value).startswith(f"an expression has no truth value ({shown}): ")


def test_untyped_integers_are_checked_against_the_widest_range() -> None:
    typer = _typer(s=Seq(IntRange(0, 3), 2), n=IntRange(0, 3))
    lo, hi = -(2**31), 2**31
    wide = "int -2147483648..2147483648"
    ex.infer(ex.lt(lo, hi), typer)
    ex.infer(ex.index(ex.var("s"), hi), typer)
    ex.infer(ex.index(ex.var("s"), lo), typer)
    ex.infer(ex.total("i", IntRange(0, 1), ex.Const(hi)), typer)
    ex.infer(ex.total("i", IntRange(0, 1), ex.Const(lo)), typer)
    for e, message in [
        (ex.lt(hi + 1, 0), f"2147483649 < 0: 2147483649 is not in {wide}"),
        (ex.lt(0, lo - 1), f"0 < -2147483649: -2147483649 is not in {wide}"),
        (ex.index(ex.var("s"), hi + 1), f"2147483649 is not in {wide}"),
        (ex.index(ex.var("s"), lo - 1), f"-2147483649 is not in {wide}"),
        (ex.total("i", IntRange(0, 1), ex.Const(hi + 1)), f"2147483649 is not in {wide}"),
        (ex.total("i", IntRange(0, 1), ex.Const(lo - 1)), f"-2147483649 is not in {wide}"),
        (ex.lt(ex.var("n"), 7), "n < 7: 7 is not in int 0..3"),
        (ex.add(ex.Const(True), 1), "true + 1: True is not an integer"),
        (ex.add(1, True), "1 + true: True is not an integer"),
        (ex.add(ex.var("r"), True), "r + true: True is not in real"),
    ]:
        _refused(e, _typer(s=Seq(IntRange(0, 3), 2), n=IntRange(0, 3), r=Real((0.5,))), message)
    # An integer offset need not lie in the operand's range.
    assert ex.infer(ex.add(ex.var("n"), 7), typer) == BIG
    assert ex.infer(ex.sub(ex.var("n"), 7), typer) == BIG
    assert ex.infer(ex.add(ex.var("r"), 0.5), _typer(r=Real((0.5,)))) == Real((0.5,))


def test_a_sum_fits_any_integer_range_but_nothing_else() -> None:
    typer = _typer(n=IntRange(0, 3))
    ex.check(ex.add(ex.var("n"), 1), typer, IntRange(0, 0))
    with pytest.raises(ExprTypeError) as info:
        ex.check(ex.add(ex.var("n"), 1), typer, Bool())
    assert str(info.value) == f"needs bool (false, true), got {BIG.describe()}"


def test_a_bound_variable_shadows_only_its_own_name() -> None:
    typer = _typer(n=IntRange(0, 3), b_i=Bool())
    # The quantifier's domain types `i`; every other name still comes from the spec.
    with pytest.raises(ExprTypeError, match=r"^5 is not in int 0\.\.3$"):
        ex.infer(ex.forall("i", IntRange(5, 6), lambda i: ex.eq(ex.var("n"), 5)), typer)
    nested = ex.forall(
        "i", IntRange(5, 6), lambda i: ex.exists("j", Bool(), lambda j: ex.and_(j, ex.eq(i, 5)))
    )
    assert ex.infer(nested, typer) == Bool()
    with pytest.raises(ExprTypeError, match=r"^7 is not in int 5\.\.6$"):
        ex.infer(
            ex.forall("i", IntRange(5, 6), lambda i: ex.exists("j", Bool(), lambda j: ex.eq(i, 7))),
            typer,
        )
    # Outside any quantifier, a bound name is the typer's.
    assert ex.infer(ex.bound("i"), typer) == Bool()


def test_rewrites_keep_values_that_are_not_expressions() -> None:
    i, n = ex.bound("i"), ex.var("n")
    assert ex.substitute(ex.is_in(i, 1, 2), "i", 5) == ex.In(ex.Const(5), (1, 2))
    assert ex.substitute(ex.StepIs("row", ("r",)), "i", 5) == ex.StepIs("row", ("r",))
    f = Func(IntRange(1, 2), IntRange(0, 9))
    lit = ex.FuncLit(f, (n, i))
    assert ex.substitute(lit, "i", 5) == ex.FuncLit(f, (n, ex.Const(5)))
    q = ex.forall("j", IntRange(0, 1), lambda j: ex.eq(j, n))
    mixed = ex.and_(ex.eq(n, 1), q)
    assert ex.unroll(mixed) == ex.And((ex.eq(n, 1), ex.And((ex.eq(0, n), ex.eq(1, n)))))
    assert ex.unroll(ex.is_in(n, 1, 2)) == ex.In(n, (1, 2))
    assert ex.unroll(ex.FuncLit(f, (n, ex.total("j", IntRange(1, 2), lambda j: j)))) == (
        ex.FuncLit(f, (n, ex.Add(ex.Const(1), ex.Const(2))))
    )
