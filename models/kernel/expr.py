"""A tiny expression language for guards, updates, outputs and properties.

Guards are data, not lambdas, so that every backend can see inside them: the
explorer evaluates them (`evaluate`), `smt.py` translates them to z3, and every
face prints them through printer.py (`show`). Type checking happens when a spec is built.

`Node` is the closed union of the node kinds: every walker (the printer, `infer`, the
evaluator, the explorer's compiler, z3's encoding, Promela) starts from `node(expr)` and
ends in `assert_never`, so mypy names a walker that misses a kind. A walker reads the kinds
through this module (`from . import expr as ex`, then `ex.And`), not from a list of every name.
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import ClassVar
from typing import Literal
from typing import TypeAlias
from typing import assert_never

from .domains import Bool
from .domains import Domain
from .domains import Func
from .domains import FuncValue
from .domains import IntRange
from .domains import Option
from .domains import Real
from .domains import Seq
from .domains import Set
from .domains import Value

# "bound" names a quantifier's variable; only the typer sees it (the node is `Bound`).
Scope = Literal["pre", "post", "param", "out", "bound"]


class ExprTypeError(Exception):
    """An expression does not fit the domains it is used with."""


class Expr:
    """Base of every expression node.

    A node's sub-expressions are its fields annotated `Expr`, `tuple[Expr, ...]` (its items)
    or `Expr | None` (after one `Expr`; left out when None), in field order. Each node class
    derives their getter once, when it is defined: walkers call `children()` a lot.
    """

    _children: ClassVar[Callable[[Expr], tuple[Expr, ...]]] = lambda e: ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._children = _children_getter(cls)

    def children(self) -> tuple[Expr, ...]:
        return type(self)._children(self)

    def __bool__(self) -> bool:
        # `guard=a and b` would silently keep only `b`: an expression has no truth value.
        text = shown(self)
        text = text if len(text) <= 60 else text[:59] + "…"
        raise TypeError(
            f"an expression has no truth value ({text}): Python's and/or/not/if "
            "cannot combine expressions; use and_(a, b), or_(a, b), not_(a), ite(c, a, b)"
        )


# How a field holds sub-expressions, by its annotation (text: this module defers annotations).
_HOLDS = {"Expr": "one", "Expr | None": "maybe", "tuple[Expr, ...]": "many"}


def _children_getter(cls: type[Expr]) -> Callable[[Expr], tuple[Expr, ...]]:
    """The getter of a node class's sub-expressions (node classes derive from Expr directly)."""
    names: list[str] = []
    shape: list[str] = []
    for name, note in inspect.get_annotations(cls).items():
        if note in _HOLDS:
            names.append(name)
            shape.append(_HOLDS[note])
        elif "Expr" in str(note):
            raise TypeError(f"{cls.__name__}.{name}: {note!r} is not one of {', '.join(_HOLDS)}")
    if not names:
        return lambda e: ()
    get: Callable[[Expr], Any] = operator.attrgetter(*names)
    if shape == ["many"] or (len(shape) > 1 and set(shape) == {"one"}):
        return get  # the tuple itself, or a tuple of the fields
    if shape == ["one"]:
        return lambda e: (get(e),)
    if shape == ["one", "maybe"]:

        def one_or_two(e: Expr) -> tuple[Expr, ...]:
            both: tuple[Any, ...] = get(e)
            return both[:1] if both[1] is None else both

        return one_or_two
    raise TypeError(f"{cls.__name__}: sub-expression fields {', '.join(shape)} (no getter)")


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


@dataclass(frozen=True)
class In(Expr):
    item: Expr
    options: tuple[Value, ...]


@dataclass(frozen=True)
class Not(Expr):
    arg: Expr


@dataclass(frozen=True)
class And(Expr):
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Or(Expr):
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Implies(Expr):
    premise: Expr
    conclusion: Expr


@dataclass(frozen=True)
class Ite(Expr):
    cond: Expr
    then: Expr
    other: Expr


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


@dataclass(frozen=True)
class Add(Expr):
    """Integer or real addition (`op="+"`) or subtraction (`op="-"`).

    An integer result must stay in the range of the variable it is assigned to.
    """

    left: Expr
    right: Expr
    op: Literal["+", "-"] = "+"


@dataclass(frozen=True)
class IsSome(Expr):
    arg: Expr


@dataclass(frozen=True)
class Some(Expr):
    arg: Expr


@dataclass(frozen=True)
class Unwrap(Expr):
    """The value inside an option; only meaningful where the option is known to be set."""

    arg: Expr


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


# ---------------------------------------------------------------- data and quantifiers


@dataclass(frozen=True)
class Bound(Expr):
    """The variable of an enclosing `forall`/`exists`."""

    name: str


@dataclass(frozen=True)
class Quant(Expr):
    """`forall` (`kind="all"`), `exists` (`"any"`) or `total` (`"sum"`, an integer sum)
    over a finite domain."""

    kind: Literal["all", "any", "sum"]
    name: str
    domain: Domain
    body: Expr


@dataclass(frozen=True)
class SeqOp(Expr):
    """`append(s, x)`, `head(s)`, `tail(s)`, `length(s)`, `index(s, k)` (1-based, as TLA+).

    `append` to a full sequence, `head`/`tail` of an empty one and an index out of
    range are undefined: `defined()` says when they are not, and the checks report a
    step that reaches one as a violation."""

    op: Literal["append", "head", "tail", "len", "index"]
    seq: Expr
    arg: Expr | None = None


@dataclass(frozen=True)
class At(Expr):
    """`f[key]`."""

    func: Expr
    key: Expr


@dataclass(frozen=True)
class Update(Expr):
    """`[f EXCEPT ![key] = value]`."""

    func: Expr
    key: Expr
    value: Expr


@dataclass(frozen=True)
class FuncLit(Expr):
    """`[k \\in I |-> e_k]`: one expression per index value, in the index domain's order."""

    domain: Func
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class SetOp(Expr):
    """`member(x, S)`, `set_add(S, x)` (S \\cup {x}), `set_remove(S, x)` (S \\ {x}),
    `size(S)` (Cardinality)."""

    op: Literal["member", "add", "remove", "size"]
    set: Expr
    item: Expr | None = None


# Every node kind; a new kind goes in both, and mypy then names each walker to extend.
Node: TypeAlias = (
    (Const | Ref | Eq | In | Not | And | Or | Implies | Ite | Cmp | Add | IsSome | Some | Unwrap)
    | (StepIs | Enabled)
    | (Bound | Quant | SeqOp | At | Update | FuncLit | SetOp)
)
NODES = (
    *(Const, Ref, Eq, In, Not, And, Or, Implies, Ite, Cmp, Add, IsSome, Some, Unwrap),
    *(StepIs, Enabled),
    *(Bound, Quant, SeqOp, At, Update, FuncLit, SetOp),
)

# The kinds whose arguments are values, never conditions (a walker over conditions passes them).
VALUED = (In, Cmp, Add, IsSome, Some, Unwrap, SeqOp, At, Update, FuncLit, SetOp)


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


def bound(name: str) -> Expr:
    """The variable a `forall`/`exists` binds, by name."""
    return Bound(name)


def _quant(
    kind: Literal["all", "any", "sum"],
    name: str,
    domain: Domain,
    pred: Expr | Callable[[Expr], Expr],
) -> Expr:
    body = pred(Bound(name)) if callable(pred) and not isinstance(pred, Expr) else pred
    assert isinstance(body, Expr), f"a quantifier's body must be an expression, got {body!r}"
    return Quant(kind, name, domain, body)


def forall(name: str, domain: Domain, pred: Expr | Callable[[Expr], Expr]) -> Expr:
    """`\\A name \\in domain : pred`; `pred` reads `bound(name)` (or is `lambda i: ...`)."""
    return _quant("all", name, domain, pred)


def exists(name: str, domain: Domain, pred: Expr | Callable[[Expr], Expr]) -> Expr:
    """`\\E name \\in domain : pred`."""
    return _quant("any", name, domain, pred)


def total(name: str, domain: Domain, body: Expr | Callable[[Expr], Expr]) -> Expr:
    """The integer sum of `body` over `domain` (a fold: `Cardinality` of a filtered set is
    `total(i, D, ite(pred, 1, 0))`)."""
    return _quant("sum", name, domain, body)


def append(seq: Expr, item: Expr | Value) -> Expr:
    return SeqOp("append", seq, as_expr(item))


def head(seq: Expr) -> Expr:
    return SeqOp("head", seq)


def tail(seq: Expr) -> Expr:
    return SeqOp("tail", seq)


def length(seq: Expr) -> Expr:
    return SeqOp("len", seq)


def index(seq: Expr, k: Expr | Value) -> Expr:
    """`s[k]`, 1-based as in TLA+."""
    return SeqOp("index", seq, as_expr(k))


def at(func: Expr, key: Expr | Value) -> Expr:
    return At(func, as_expr(key))


def update(func: Expr, key: Expr | Value, value: Expr | Value) -> Expr:
    return Update(func, as_expr(key), as_expr(value))


def func(
    domain: Func, items: Mapping[Value, Expr | Value] | Callable[[Value], Expr | Value]
) -> Expr:
    """A function literal: `func(F, {k: e, ...})` or `func(F, lambda k: e)` over every index."""
    get = items.__getitem__ if isinstance(items, Mapping) else items
    return FuncLit(domain, tuple(as_expr(get(k)) for k in domain.keys))


def member(item: Expr | Value, set_: Expr) -> Expr:
    return SetOp("member", set_, as_expr(item))


def set_add(set_: Expr, item: Expr | Value) -> Expr:
    return SetOp("add", set_, as_expr(item))


def set_remove(set_: Expr, item: Expr | Value) -> Expr:
    return SetOp("remove", set_, as_expr(item))


def size(set_: Expr) -> Expr:
    return SetOp("size", set_)


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


def substitute(expr: Expr, name: str, value: Value) -> Expr:
    """`expr` with the bound variable `name` replaced by the constant `value`."""
    if isinstance(expr, Bound):
        return Const(value) if expr.name == name else expr
    if isinstance(expr, Quant) and expr.name == name:
        return expr  # shadowed
    changes: dict[str, Any] = {}
    for key, child in vars(expr).items():
        if isinstance(child, Expr):
            new = substitute(child, name, value)
            if new is not child:
                changes[key] = new
        elif isinstance(child, tuple) and child and isinstance(child[0], Expr):
            items = tuple(substitute(c, name, value) for c in child)
            if any(a is not b for a, b in zip(items, child, strict=True)):
                changes[key] = items
    return dataclasses.replace(expr, **changes) if changes else expr  # type: ignore[type-var]


def instances(q: Quant) -> tuple[Expr, ...]:
    """The quantifier's body once per value of its domain (a finite conjunction or
    disjunction: how every face but the printer reads a quantifier)."""
    values = q.domain.values
    assert values is not None
    return tuple(substitute(q.body, q.name, v) for v in values)


def unroll(expr: Expr) -> Expr:
    """`expr` with every quantifier unrolled into `And`/`Or` over its instances."""
    if isinstance(expr, Quant):
        parts = tuple(unroll(b) for b in instances(expr))
        if expr.kind == "sum":
            summed: Expr = parts[0]
            for part in parts[1:]:
                summed = Add(summed, part)
            return summed
        return And(parts) if expr.kind == "all" else Or(parts)
    changes: dict[str, Any] = {}
    for key, child in vars(expr).items():
        if isinstance(child, Expr):
            new = unroll(child)
            if new is not child:
                changes[key] = new
        elif isinstance(child, tuple) and child and isinstance(child[0], Expr):
            items = tuple(unroll(c) for c in child)
            if any(a is not b for a, b in zip(items, child, strict=True)):
                changes[key] = items
    return dataclasses.replace(expr, **changes) if changes else expr  # type: ignore[type-var]


def partial(expr: Expr) -> bool:
    """Does `expr` use an operation that can be undefined (on sequences)?"""
    return any(isinstance(n, SeqOp) and n.op != "len" for n in walk(expr))


def defined(expr: Expr, typer: Typer) -> Expr:
    """When `expr` is defined: every `append` has room, every `head`/`tail` a non-empty
    sequence, every `index` a position in range. Connectives short-circuit (as TLA+'s
    `/\\` does), so `and_(gt(length(s), 0), eq(head(s), x))` is defined everywhere."""
    if not partial(expr):
        return TRUE
    if isinstance(expr, Quant):
        return defined(unroll(expr), typer)
    if isinstance(expr, And | Or):
        parts: list[Expr] = []
        for i, arg in enumerate(expr.args):
            earlier = expr.args[:i]
            d = defined(arg, typer)
            if d == TRUE:
                continue
            if earlier:
                guard: Expr = And(earlier) if isinstance(expr, And) else Not(Or(earlier))
                d = Implies(guard, d)
            parts.append(d)
        return _conj(parts)
    if isinstance(expr, Implies):
        return _conj(
            [defined(expr.premise, typer), Implies(expr.premise, defined(expr.conclusion, typer))]
        )
    if isinstance(expr, Ite):
        return _conj(
            [
                defined(expr.cond, typer),
                Implies(expr.cond, defined(expr.then, typer)),
                Implies(Not(expr.cond), defined(expr.other, typer)),
            ]
        )
    parts = [defined(c, typer) for c in expr.children()]
    if isinstance(expr, SeqOp) and expr.op != "len":
        seq = infer(expr.seq, typer)
        assert isinstance(seq, Seq)
        n = SeqOp("len", expr.seq)
        if expr.op == "append":
            parts.append(Cmp("<", n, Const(seq.max_len)))
        elif expr.op in ("head", "tail"):
            parts.append(Cmp(">", n, Const(0)))
        else:
            assert expr.arg is not None
            parts.append(Cmp("<=", expr.arg, n))
    return _conj(parts)


def _conj(parts: list[Expr]) -> Expr:
    kept = [p for p in parts if p != TRUE]
    return TRUE if not kept else kept[0] if len(kept) == 1 else And(tuple(kept))


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
        # Two untyped sides (a `total` unrolled into sums of `ite(p, 1, 0)`) are integers.
        dom = left or right or IntRange(-(2**31), 2**31)
        if not isinstance(dom, IntRange | Real):
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
    if isinstance(expr, Bound):
        return typer("bound", expr.name)
    if isinstance(expr, Quant):
        if expr.domain.values is None:
            raise ExprTypeError(f"a quantifier needs a finite domain, got {expr.domain.describe()}")
        scoped = _binding(typer, expr.name, expr.domain)
        if expr.kind != "sum":
            check(expr.body, scoped, Bool())
            return Bool()
        body = infer(expr.body, scoped)
        if body is not None and not isinstance(body, IntRange):
            raise ExprTypeError(f"total needs an integer body, got {body.describe()}")
        if body is None:
            check(expr.body, scoped, IntRange(-(2**31), 2**31))
        return IntRange(-(2**31), 2**31)
    if isinstance(expr, SeqOp):
        seq = infer(expr.seq, typer)
        if not isinstance(seq, Seq):
            raise ExprTypeError(f"{expr.op} needs a sequence, got {_name(seq)}")
        if expr.op == "append":
            assert expr.arg is not None
            check(expr.arg, typer, seq.element)
            return seq
        if expr.op == "index":
            assert expr.arg is not None
            # Any integer: a position past the end is undefined, as `defined()` says.
            check(expr.arg, typer, IntRange(-(2**31), 2**31))
            return seq.element
        return {"head": seq.element, "tail": seq, "len": IntRange(0, seq.max_len)}[expr.op]
    if isinstance(expr, At | Update):
        fdom = infer(expr.func, typer)
        if not isinstance(fdom, Func):
            what = "at" if isinstance(expr, At) else "update"
            raise ExprTypeError(f"{what} needs a function, got {_name(fdom)}")
        check(expr.key, typer, fdom.index)
        if isinstance(expr, At):
            return fdom.value
        check(expr.value, typer, fdom.value)
        return fdom
    if isinstance(expr, FuncLit):
        if len(expr.items) != len(expr.domain.keys):
            raise ExprTypeError(f"a literal of {expr.domain.name} needs one value per index")
        for item in expr.items:
            check(item, typer, expr.domain.value)
        return expr.domain
    if isinstance(expr, SetOp):
        sdom = infer(expr.set, typer)
        if not isinstance(sdom, Set):
            raise ExprTypeError(f"{expr.op} needs a set, got {_name(sdom)}")
        if expr.op == "size":
            values = sdom.element.values
            assert values is not None
            return IntRange(0, len(values))
        assert expr.item is not None
        check(expr.item, typer, sdom.element)
        return Bool() if expr.op == "member" else sdom
    assert_never(expr)


def _binding(typer: Typer, name: str, domain: Domain) -> Typer:
    def inner(scope: Scope, n: str) -> Domain:
        return domain if scope == "bound" and n == name else typer(scope, n)

    return inner


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
    if not _fits(expected, actual):
        # Guards, properties and updates all come here: say what was needed, not where.
        raise ExprTypeError(f"needs {expected.describe()}, got {actual.describe()}")


def _fits(a: Domain, b: Domain) -> bool:
    """The same domain, or two integer ranges (a range is enforced where a value is stored)."""
    return a == b or (isinstance(a, IntRange) and isinstance(b, IntRange))


def _same(a: Domain, b: Domain, where: str) -> None:
    if not _fits(a, b):
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
        return _every(tuple(compiled(a) for a in expr.args))
    if isinstance(expr, Or):
        return _some(tuple(compiled(a) for a in expr.args))
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
    if isinstance(expr, Quant):
        parts = tuple(compiled(b) for b in instances(expr))
        if expr.kind == "all":
            return _every(parts)
        if expr.kind == "sum":
            return lambda env: sum(p(env) for p in parts)
        return _some(parts)
    if isinstance(expr, SeqOp):
        return _compile_seq(expr)
    if isinstance(expr, At):
        fn, key = compiled(expr.func), compiled(expr.key)
        return lambda env: fn(env)[key(env)]
    if isinstance(expr, Update):
        fn, key, value = compiled(expr.func), compiled(expr.key), compiled(expr.value)
        return lambda env: fn(env).set(key(env), value(env))
    if isinstance(expr, FuncLit):
        items, keys = tuple(compiled(i) for i in expr.items), expr.domain.keys
        return lambda env: FuncValue(keys, tuple(i(env) for i in items))
    if isinstance(expr, SetOp):
        set_ = compiled(expr.set)
        if expr.op == "size":
            return lambda env: len(set_(env))
        assert expr.item is not None
        item = compiled(expr.item)
        if expr.op == "member":
            return lambda env: item(env) in set_(env)
        if expr.op == "add":
            return lambda env: set_(env) | {item(env)}
        return lambda env: set_(env) - {item(env)}
    if isinstance(expr, Enabled | Bound):  # expanded, or bound, before evaluation
        raise ExprTypeError(f"cannot evaluate {type(expr).__name__} here")
    assert_never(expr)


# `all(p(env) for p in parts)` makes a generator on every call; these are the hot path's
# conjunctions (guards, properties), so they loop, or chain two parts, instead.
def _every(parts: tuple[Callable[[Env], Value], ...]) -> Callable[[Env], Value]:
    if len(parts) == 2:
        a, b = parts
        return lambda env: bool(a(env)) and bool(b(env))

    def every(env: Env) -> Value:
        for part in parts:  # noqa: SIM110 (all() of a generator is what this avoids)
            if not part(env):
                return False
        return True

    return every


def _some(parts: tuple[Callable[[Env], Value], ...]) -> Callable[[Env], Value]:
    if len(parts) == 2:
        a, b = parts
        return lambda env: bool(a(env)) or bool(b(env))

    def some(env: Env) -> Value:
        for part in parts:  # noqa: SIM110 (any() of a generator is what this avoids)
            if part(env):
                return True
        return False

    return some


def _compile_seq(expr: SeqOp) -> Callable[[Env], Value]:
    seq = compiled(expr.seq)
    if expr.op == "head":
        return lambda env: _defined_or_raise(seq(env), 0)[0]
    if expr.op == "tail":
        return lambda env: _defined_or_raise(seq(env), 0)[1:]
    if expr.op == "len":
        return lambda env: len(seq(env))
    assert expr.arg is not None
    arg = compiled(expr.arg)
    if expr.op == "append":
        return lambda env: (*seq(env), arg(env))
    return lambda env: _defined_or_raise(seq(env), arg(env) - 1)[arg(env) - 1]


def _defined_or_raise(seq: tuple[Value, ...], i: int) -> tuple[Value, ...]:
    if not 0 <= i < len(seq):
        raise UndefinedError(f"position {i + 1} of a sequence of length {len(seq)}")
    return seq


class UndefinedError(ExprTypeError):
    """An undefined operation was evaluated (head of an empty sequence, say)."""


def _scoped(env: Env, scope: Scope) -> Mapping[str, Value]:
    source = {"post": env.post, "param": env.params, "out": env.outputs}[scope]
    if source is None:
        raise ExprTypeError(f"{scope} values are not available here")
    return source
