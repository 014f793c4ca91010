"""A tiny expression language for guards, updates, outputs and properties.

Guards are data, not lambdas, so that every backend can see inside them: the
explorer evaluates them (`evaluate`), `smt.py` translates them to z3, and every
face prints them through printer.py (`show`). Type checking happens when a spec is built.

`Node` is the closed union of the node kinds: every walker (the printer, `infer`, the
evaluator, the explorer's compiler, z3's encoding, Promela) starts from `node(expr)` and
ends in `assert_never`, so mypy names a walker that misses a kind.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, assert_never

from .domains import Bool, Domain, IntRange, Option, Real, Value

Scope = Literal["pre", "post", "param", "out"]


class ExprTypeError(Exception):
    """An expression does not fit the domains it is used with."""


class Expr:
    """Base of every expression node."""

    def children(self) -> tuple[Expr, ...]:
        return ()

    def __bool__(self) -> bool:
        # `guard=a and b` would silently keep only `b`: an expression has no truth value.
        text = shown(self)
        text = text if len(text) <= 60 else text[:59] + "…"
        raise TypeError(
            f"an expression has no truth value ({text}): Python's and/or/not/if "
            "cannot combine expressions; use and_(a, b), or_(a, b), not_(a), ite(c, a, b)"
        )


@dataclass(frozen=True)
class Const(Expr):
    value: Value


@dataclass(frozen=True)
class Ref(Expr):
    """A variable before the step (`pre`), after it (`post`), a trigger parameter or an output."""

    scope: Scope
    name: str


@dataclass(frozen=True)
class Eq(Expr):
    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class In(Expr):
    item: Expr
    options: tuple[Value, ...]

    def children(self) -> tuple[Expr, ...]:
        return (self.item,)


@dataclass(frozen=True)
class Not(Expr):
    arg: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)


@dataclass(frozen=True)
class And(Expr):
    args: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(frozen=True)
class Or(Expr):
    args: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(frozen=True)
class Implies(Expr):
    premise: Expr
    conclusion: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.premise, self.conclusion)


@dataclass(frozen=True)
class Ite(Expr):
    cond: Expr
    then: Expr
    other: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.then, self.other)


CmpOp = Literal["<", "<=", ">", ">="]
_CMP: Mapping[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class Cmp(Expr):
    op: CmpOp
    left: Expr
    right: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class Add(Expr):
    """Integer or real addition (`op="+"`) or subtraction (`op="-"`).

    An integer result must stay in the range of the variable it is assigned to.
    """

    left: Expr
    right: Expr
    op: Literal["+", "-"] = "+"

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True)
class IsSome(Expr):
    arg: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)


@dataclass(frozen=True)
class Some(Expr):
    arg: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)


@dataclass(frozen=True)
class Unwrap(Expr):
    """The value inside an option; only meaningful where the option is known to be set."""

    arg: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)


@dataclass(frozen=True)
class StepIs(Expr):
    """True when the step fired one of `names` (triggers, rows, or trigger groups)."""

    kind: Literal["trigger", "row", "group"]
    names: tuple[str, ...]


@dataclass(frozen=True)
class Enabled(Expr):
    """Some non-ignore row of these triggers can fire from the state (any parameters).

    The spec rewrites this into an explicit disjunction when it is built, so
    the backends never see it.
    """

    triggers: tuple[str, ...]


# Every node kind; a new kind goes in both, and mypy then names each walker to extend.
Node: TypeAlias = (
    (Const | Ref | Eq | In | Not | And | Or | Implies | Ite | Cmp | Add | IsSome | Some | Unwrap)
    | StepIs
    | Enabled
)
NODES = (
    *(Const, Ref, Eq, In, Not, And, Or, Implies, Ite, Cmp, Add, IsSome, Some, Unwrap),
    *(StepIs, Enabled),
)

# The kinds whose arguments are values, never conditions (a walker over conditions passes them).
VALUED = (In, Cmp, Add, IsSome, Some, Unwrap)


def node(expr: Expr) -> Node:
    """`expr` as one of the node kinds a walker must handle (see the module docstring)."""
    if isinstance(expr, NODES):
        return expr
    raise ExprTypeError(f"unknown expression node {type(expr).__name__}")


def shown(expr: Expr) -> str:
    """`expr` printed as every face prints it (printer.py), for error messages."""
    from .printer import show  # the printer imports this module

    return show(None, expr)


TRUE: Expr = Const(True)
FALSE: Expr = Const(False)


def as_expr(value: Expr | Value) -> Expr:
    return value if isinstance(value, Expr) else Const(value)


# ---------------------------------------------------------------- constructors


def var(name: str) -> Expr:
    return Ref("pre", name)


def nxt(name: str) -> Expr:
    return Ref("post", name)


def param(name: str) -> Expr:
    return Ref("param", name)


def out(name: str) -> Expr:
    return Ref("out", name)


def eq(left: Expr | Value, right: Expr | Value) -> Expr:
    return Eq(as_expr(left), as_expr(right))


def ne(left: Expr | Value, right: Expr | Value) -> Expr:
    return Not(eq(left, right))


def is_in(item: Expr | Value, *options: Value) -> Expr:
    return In(as_expr(item), tuple(options))


def and_(*args: Expr) -> Expr:
    return args[0] if len(args) == 1 else And(tuple(args))


def or_(*args: Expr) -> Expr:
    return args[0] if len(args) == 1 else Or(tuple(args))


def not_(arg: Expr) -> Expr:
    return Not(arg)


def implies(premise: Expr, conclusion: Expr) -> Expr:
    return Implies(premise, conclusion)


def ite(cond: Expr, then: Expr | Value, other: Expr | Value) -> Expr:
    return Ite(cond, as_expr(then), as_expr(other))


def lt(a: Expr | Value, b: Expr | Value) -> Expr:
    return Cmp("<", as_expr(a), as_expr(b))


def le(a: Expr | Value, b: Expr | Value) -> Expr:
    return Cmp("<=", as_expr(a), as_expr(b))


def gt(a: Expr | Value, b: Expr | Value) -> Expr:
    return Cmp(">", as_expr(a), as_expr(b))


def ge(a: Expr | Value, b: Expr | Value) -> Expr:
    return Cmp(">=", as_expr(a), as_expr(b))


def add(a: Expr | Value, b: Expr | Value) -> Expr:
    return Add(as_expr(a), as_expr(b))


def sub(a: Expr | Value, b: Expr | Value) -> Expr:
    """`a - b`; to decrement a counter, `sub(var("n"), 1)`."""
    return Add(as_expr(a), as_expr(b), "-")


def is_some(arg: Expr) -> Expr:
    return IsSome(arg)


def is_none(arg: Expr) -> Expr:
    return Not(IsSome(arg))


def some(arg: Expr | Value) -> Expr:
    return Some(as_expr(arg))


def unwrap(arg: Expr) -> Expr:
    return Unwrap(arg)


def trigger_is(*names: str) -> Expr:
    return StepIs("trigger", names)


def row_is(*names: str) -> Expr:
    return StepIs("row", names)


def group_is(*names: str) -> Expr:
    return StepIs("group", names)


def enabled(*triggers: str) -> Expr:
    return Enabled(triggers)


def unchanged(*names: str) -> Expr:
    return and_(*(eq(nxt(n), var(n)) for n in names))


# ---------------------------------------------------------------- traversal


def walk(expr: Expr) -> list[Expr]:
    nodes = [expr]
    for child in expr.children():
        nodes.extend(walk(child))
    return nodes


def is_step_expr(expr: Expr) -> bool:
    """Does the expression speak of a step (after-state, outputs, params, which row)?"""
    return any(
        isinstance(n, StepIs) or (isinstance(n, Ref) and n.scope != "pre") for n in walk(expr)
    )


# ---------------------------------------------------------------- typing

Typer = Callable[[Scope, str], Domain]


def infer(expr: Expr, typer: Typer) -> Domain | None:
    """The domain of `expr`, or None for a bare constant (typed by its context)."""
    expr = node(expr)
    if isinstance(expr, Const):
        return None
    if isinstance(expr, Ref):
        return typer(expr.scope, expr.name)
    if isinstance(expr, Eq):
        left, right = infer(expr.left, typer), infer(expr.right, typer)
        if left is None and right is None:
            raise ExprTypeError("compares two constants")
        if left is not None and right is not None:
            _same(left, right, "==")
        if left is None:
            check(expr.left, typer, right)  # type: ignore[arg-type]
        if right is None:
            check(expr.right, typer, left)  # type: ignore[arg-type]
        return Bool()
    if isinstance(expr, In):
        dom = infer(expr.item, typer)
        if dom is None:
            raise ExprTypeError("tests a constant for membership")
        for option in expr.options:
            if not dom.contains(option):
                raise ExprTypeError(f"{option!r} is not in {dom.describe()}")
        return Bool()
    if isinstance(expr, Not | And | Or | Implies):
        for child in expr.children():
            check(child, typer, Bool())
        return Bool()
    if isinstance(expr, Ite):
        check(expr.cond, typer, Bool())
        then, other = infer(expr.then, typer), infer(expr.other, typer)
        if then is None and other is None:
            return None  # like a constant, typed by its context
        if then is not None and other is not None:
            _same(then, other, "if-then-else")
        dom = then or other
        assert dom is not None
        check(expr.then, typer, dom)
        check(expr.other, typer, dom)
        return dom
    if isinstance(expr, Cmp | Add):
        left, right = infer(expr.left, typer), infer(expr.right, typer)
        dom = left or right
        if dom is None or not isinstance(dom, IntRange | Real):
            raise ExprTypeError(f"arithmetic needs an int or real operand, got {_name(dom)}")
        for side in (expr.left, expr.right):
            if isinstance(side, Const) and isinstance(expr, Add) and isinstance(dom, IntRange):
                # An offset need not lie in the operand's range (`add(x, -1)`, `sub(x, 5)`).
                if isinstance(side.value, bool) or not isinstance(side.value, int):
                    raise ExprTypeError(f"{shown(expr)}: {side.value!r} is not an integer")
                continue
            try:
                check(side, typer, dom)
            except ExprTypeError as err:
                raise ExprTypeError(f"{shown(expr)}: {err}") from None
        if isinstance(expr, Cmp):
            return Bool()
        # A sum is checked against the target range where it is assigned.
        return IntRange(-(2**31), 2**31) if isinstance(dom, IntRange) else dom
    if isinstance(expr, IsSome):
        dom = infer(expr.arg, typer)
        if not isinstance(dom, Option):
            raise ExprTypeError(f"is_some needs an option, got {_name(dom)}")
        return Bool()
    if isinstance(expr, Unwrap):
        dom = infer(expr.arg, typer)
        if not isinstance(dom, Option):
            raise ExprTypeError(f"unwrap needs an option, got {_name(dom)}")
        return dom.inner
    if isinstance(expr, Some):
        inner = infer(expr.arg, typer)
        return None if inner is None else Option(inner)  # some(constant) is typed by context
    if isinstance(expr, StepIs):
        return Bool()
    if isinstance(expr, Enabled):
        return Bool()
    assert_never(expr)


def check(expr: Expr, typer: Typer, expected: Domain) -> None:
    """Raise ExprTypeError unless `expr` fits `expected`."""
    if isinstance(expr, Const):
        if not expected.contains(expr.value):
            raise ExprTypeError(f"{expr.value!r} is not in {expected.describe()}")
        return
    if isinstance(expr, Some) and isinstance(expected, Option):
        check(expr.arg, typer, expected.inner)
        return
    if isinstance(expr, Ite):
        check(expr.cond, typer, Bool())
        check(expr.then, typer, expected)
        check(expr.other, typer, expected)
        return
    actual = infer(expr, typer)
    assert actual is not None
    if isinstance(expr, Add) and isinstance(expected, IntRange):
        return  # range is enforced on assignment
    _same(expected, actual, "assignment")


def _same(a: Domain, b: Domain, where: str) -> None:
    if a == b:
        return
    if isinstance(a, IntRange) and isinstance(b, IntRange):
        return
    raise ExprTypeError(f"{where}: {a.describe()} does not match {b.describe()}")


def _name(dom: Domain | None) -> str:
    return "a constant" if dom is None else dom.describe()


# ---------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Env:
    """What an expression can see during one step (or in one state)."""

    pre: Mapping[str, Value]
    post: Mapping[str, Value] | None = None
    params: Mapping[str, Value] | None = None
    outputs: Mapping[str, Value] | None = None
    trigger: str | None = None
    row: str | None = None
    group: str | None = None


def evaluate(expr: Expr, env: Env) -> Value:
    return compiled(expr)(env)


# Keyed by identity: equal-looking expressions can differ in type (Const(1) == Const(True)).
_COMPILED: dict[int, tuple[Expr, Callable[[Env], Value]]] = {}


def compiled(expr: Expr) -> Callable[[Env], Value]:
    """`expr` as a Python closure, built once per expression object.

    The explorer and the oracle evaluate guards and properties on every state
    and edge, so this is hot.
    """
    hit = _COMPILED.get(id(expr))
    if hit is None or hit[0] is not expr:
        hit = _COMPILED[id(expr)] = (expr, _compile(expr))
    return hit[1]


def _compile(expr: Expr) -> Callable[[Env], Value]:
    expr = node(expr)
    if isinstance(expr, Const):
        value = expr.value
        return lambda env: value
    if isinstance(expr, Ref):
        name = expr.name
        if expr.scope == "pre":
            return lambda env: env.pre[name]
        scope = expr.scope
        return lambda env: _scoped(env, scope)[name]
    if isinstance(expr, Eq):
        left, right = compiled(expr.left), compiled(expr.right)
        return lambda env: left(env) == right(env)
    if isinstance(expr, In):
        item, options = compiled(expr.item), expr.options
        return lambda env: item(env) in options
    if isinstance(expr, Not):
        arg = compiled(expr.arg)
        return lambda env: not arg(env)
    if isinstance(expr, And):
        parts = tuple(compiled(a) for a in expr.args)
        return lambda env: all(p(env) for p in parts)
    if isinstance(expr, Or):
        parts = tuple(compiled(a) for a in expr.args)
        return lambda env: any(p(env) for p in parts)
    if isinstance(expr, Implies):
        premise, conclusion = compiled(expr.premise), compiled(expr.conclusion)
        return lambda env: (not premise(env)) or bool(conclusion(env))
    if isinstance(expr, Ite):
        cond, then, other = compiled(expr.cond), compiled(expr.then), compiled(expr.other)
        return lambda env: then(env) if cond(env) else other(env)
    if isinstance(expr, Cmp):
        op, left, right = _CMP[expr.op], compiled(expr.left), compiled(expr.right)
        return lambda env: op(left(env), right(env))
    if isinstance(expr, Add):
        left, right = compiled(expr.left), compiled(expr.right)
        if expr.op == "-":
            return lambda env: left(env) - right(env)
        return lambda env: left(env) + right(env)
    if isinstance(expr, IsSome):
        arg = compiled(expr.arg)
        return lambda env: arg(env) is not None
    if isinstance(expr, Some | Unwrap):
        return compiled(expr.arg)
    if isinstance(expr, StepIs):
        names, kind = expr.names, expr.kind
        if kind == "trigger":
            return lambda env: env.trigger in names
        if kind == "row":
            return lambda env: env.row in names
        return lambda env: env.group in names
    if isinstance(expr, Enabled):  # the spec expands it when it is built
        raise ExprTypeError("cannot evaluate Enabled here")
    assert_never(expr)


def _scoped(env: Env, scope: Scope) -> Mapping[str, Value]:
    source = {"post": env.post, "param": env.params, "out": env.outputs}[scope]
    if source is None:
        raise ExprTypeError(f"{scope} values are not available here")
    return source
