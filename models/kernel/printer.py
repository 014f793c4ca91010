"""The one printer of expressions and values, for every face that shows one to a person.

`explain`'s properties and failures and the read-back certificates (readable.py), the
diagrams' and Mermaid's edge labels (diagram.py), the kernel's error messages
(`ExprTypeError`, `Expr.__bool__`) and the vacuity report all print through `show`, so a
condition reads the same everywhere: `x` before the step, `x'` after it, `out(o)` for an
output, `?p` for a trigger parameter, `x.value` for the value inside an option, values by
their labels: `pending is none`, `state ≠ OVERLAP`, `¬aborted`, `trigger is call`,
`buffer ∈ {none, FOREIGN}`.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING
from typing import assert_never

from . import expr as ex
from .domains import Domain
from .domains import FuncValue
from .domains import Option
from .domains import Value
from .domains import real_text
from .expr import Expr
from .expr import node

if TYPE_CHECKING:
    from .spec import Spec

_NEGATED = {"<": "≥", "<=": ">", ">": "≤", ">=": "<"}
_SHOWN = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_SCOPE = {"pre": "{}", "post": "{}'", "out": "out({})", "param": "?{}"}


def value(v: Value) -> str:
    """A value without its domain: enum members by name, an option's absence as `none`."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, enum.Enum):
        return v.name
    label = getattr(v, "label", None)  # a record with its own short name (a policy, say)
    if isinstance(label, str):
        return label
    if isinstance(v, tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(value(x) for x in v)) + "}"
    if isinstance(v, FuncValue):
        return "[" + ", ".join(f"{value(k)} ↦ {value(x)}" for k, x in v.items()) + "]"
    if isinstance(v, float):
        return real_text(v)
    return str(v)


def label(domain: Domain | None, v: Value) -> str:
    """A value as its domain names it, when the domain is known."""
    if domain is not None:
        try:
            return domain.label(v)
        except (AttributeError, KeyError, TypeError, ValueError):
            pass
    return value(v)


def domain_of(spec: Spec | None, expr: Expr) -> Domain | None:
    """The domain an expression's values come from, when it names one (for labels)."""
    if spec is None:
        return None
    if isinstance(expr, ex.Ref):
        try:
            if expr.scope in ("pre", "post"):
                return spec.var(expr.name).domain
            if expr.scope == "out":
                return spec.output(expr.name).domain
        except KeyError:
            return None
        for t in spec.triggers:
            for p in t.params:
                if p.name == expr.name:
                    return p.domain
        return None
    if isinstance(expr, ex.Unwrap):
        dom = domain_of(spec, expr.arg)
        return dom.inner if isinstance(dom, Option) else None
    if isinstance(expr, ex.Some | ex.Add):
        return domain_of(spec, expr.children()[0])
    return None


def show(spec: Spec | None, expr: Expr, context: Domain | None = None) -> str:
    """`expr` in the spec's vocabulary (values by their domains' labels when `spec` is
    given); `context` labels a bare constant."""
    e = node(expr)
    if isinstance(e, ex.Const):
        return label(context, e.value)
    if isinstance(e, ex.Ref):
        return _SCOPE[e.scope].format(e.name)
    if isinstance(e, ex.Eq) and (is_bool(e.left) or is_bool(e.right)):
        return f"{side(spec, e.left)} ⇔ {side(spec, e.right)}"
    if isinstance(e, ex.Eq | ex.Cmp):
        op = "=" if isinstance(e, ex.Eq) else _SHOWN[e.op]
        return _compare(spec, e.left, op, e.right)
    if isinstance(e, ex.In):
        return _member(spec, e, negated=False)
    if isinstance(e, ex.Not):
        return _not(spec, e.arg)
    if isinstance(e, ex.And | ex.Or):
        joint = " ∧ " if isinstance(e, ex.And) else " ∨ "
        return joint.join(_inner(spec, a, e) for a in e.args)
    if isinstance(e, ex.Implies):
        return f"{_inner(spec, e.premise, e)} → {_inner(spec, e.conclusion, e)}"
    if isinstance(e, ex.Ite):
        return (
            f"(if {show(spec, e.cond)} then {show(spec, e.then, context)} "
            f"else {show(spec, e.other, context)})"
        )
    if isinstance(e, ex.Add):
        return f"{show(spec, e.left, context)} {e.op} {show(spec, e.right, context)}"
    if isinstance(e, ex.IsSome):
        return f"{show(spec, e.arg)} is set"
    if isinstance(e, ex.Some):
        return show(spec, e.arg, context.inner if isinstance(context, Option) else context)
    if isinstance(e, ex.Unwrap):  # the value inside an option, as the certificates name it
        inner = show(spec, e.arg)
        return f"{inner}.value" if isinstance(e.arg, ex.Ref) else f"({inner}).value"
    if isinstance(e, ex.StepIs):
        return _names(e.kind, e.names, negated=False, one=("is", "is not"))
    if isinstance(e, ex.Enabled):
        return f"enabled({', '.join(e.triggers)})"
    if isinstance(e, ex.Bound | ex.Quant | ex.SeqOp | ex.At | ex.Update | ex.FuncLit | ex.SetOp):
        return _data(spec, e)
    assert_never(e)


def _data(
    spec: Spec | None, e: ex.Bound | ex.Quant | ex.SeqOp | ex.At | ex.Update | ex.FuncLit | ex.SetOp
) -> str:
    """Data and quantifiers, in TLA+'s notation."""
    if isinstance(e, ex.Bound):
        return e.name
    if isinstance(e, ex.Quant):
        sign = {"all": "∀", "any": "∃", "sum": "Σ"}[e.kind]
        return f"{sign}{e.name} ∈ {e.domain.name}: {show(spec, e.body)}"
    if isinstance(e, ex.SeqOp):
        seq = show(spec, e.seq)
        if e.arg is not None:
            arg = show(spec, e.arg)
            return f"Append({seq}, {arg})" if e.op == "append" else f"{seq}[{arg}]"
        return f"{ {'head': 'Head', 'tail': 'Tail', 'len': 'Len'}[e.op] }({seq})"
    if isinstance(e, ex.At):
        return f"{show(spec, e.func)}[{show(spec, e.key)}]"
    if isinstance(e, ex.Update):
        func, key, new = show(spec, e.func), show(spec, e.key), show(spec, e.value)
        return f"[{func} EXCEPT ![{key}] = {new}]"
    if isinstance(e, ex.FuncLit):
        pairs = (
            f"{e.domain.index.label(k)} ↦ {show(spec, i, e.domain.value)}"
            for k, i in zip(e.domain.keys, e.items, strict=True)
        )
        return "[" + ", ".join(pairs) + "]"
    set_ = show(spec, e.set)
    if e.item is None:  # size
        return f"|{set_}|"
    item = show(spec, e.item)
    return {"member": f"{item} ∈ {set_}", "add": f"{set_} ∪ {{{item}}}"}.get(
        e.op, f"{set_} \\ {{{item}}}"
    )


def _not(spec: Spec | None, arg: Expr) -> str:
    a = node(arg)
    if isinstance(a, ex.Eq) and not (is_bool(a.left) or is_bool(a.right)):
        return _compare(spec, a.left, "≠", a.right)
    if isinstance(a, ex.IsSome):
        return f"{show(spec, a.arg)} is none"
    if isinstance(a, ex.Cmp):
        return _compare(spec, a.left, _NEGATED[a.op], a.right)
    if isinstance(a, ex.In):
        return _member(spec, a, negated=True)
    if isinstance(a, ex.StepIs):
        return _names(a.kind, a.names, negated=True, one=("is", "is not"))
    if isinstance(a, ex.Ref):
        return f"¬{show(spec, a)}"
    return f"¬({show(spec, a)})"


def _compare(spec: Spec | None, left: Expr, op: str, right: Expr) -> str:
    dom = domain_of(spec, left) or domain_of(spec, right)
    return f"{show(spec, left, dom)} {op} {show(spec, right, dom)}"


def _member(spec: Spec | None, e: ex.In, negated: bool) -> str:
    dom = domain_of(spec, e.item)
    options = [label(dom, o) for o in e.options]
    return _names(show(spec, e.item), tuple(options), negated)


def _names(
    subject: str, names: tuple[str, ...], negated: bool, one: tuple[str, str] = ("=", "≠")
) -> str:
    """`x = A` / `x ≠ A` for one name (`trigger is a` / `trigger is not a` for a step),
    `x ∈ {A, B}` / `x ∉ {A, B}` for several."""
    if len(names) == 1:
        return f"{subject} {one[negated]} {names[0]}"
    return f"{subject} {'∉' if negated else '∈'} {{{', '.join(names)}}}"


_BOOL = (ex.Eq, ex.Not, ex.And, ex.Or, ex.Implies, ex.Cmp, ex.In, ex.IsSome, ex.StepIs, ex.Enabled)


def is_bool(expr: Expr) -> bool:
    """Is it a condition (rather than a value)?"""
    if isinstance(expr, ex.Quant):
        return expr.kind != "sum"
    if isinstance(expr, ex.SetOp):
        return expr.op == "member"
    return isinstance(expr, _BOOL)


def side(spec: Spec | None, expr: Expr) -> str:
    """One side of `⇔`: a compound condition in brackets."""
    text = show(spec, expr)
    return f"({text})" if is_bool(expr) and " " in text else text


def _inner(spec: Spec | None, child: Expr, parent: Expr) -> str:
    text = show(spec, child)
    # Mixed connectives are bracketed, whatever the precedence: `(a ∧ b) ∨ c` reads at once.
    mixed = isinstance(child, ex.And | ex.Or | ex.Implies) and type(child) is not type(parent)
    chained = isinstance(child, ex.Implies) and isinstance(parent, ex.Implies)
    return f"({text})" if mixed or chained else text


def paren(spec: Spec | None, expr: Expr) -> str:
    """`expr` as one part of a longer line: a connective in brackets."""
    text = show(spec, expr)
    return f"({text})" if isinstance(expr, ex.And | ex.Or | ex.Implies | ex.Quant) else text


def flat(expr: ex.And | ex.Or) -> list[Expr]:
    """Nested conjunctions (or disjunctions) as one list: `a ∧ (b ∧ c)` reads `a ∧ b ∧ c`."""
    parts: list[Expr] = []
    for a in expr.args:
        parts += flat(a) if isinstance(a, ex.And | ex.Or) and type(a) is type(expr) else [a]
    return parts


def wrap(parts: list[str], width: int, joiner: str = " ∧ ") -> list[str]:
    """Join `parts` with `joiner` into lines of about `width` characters. An operator
    joiner (` ∧ `) starts the next line; a separator (`, `) ends the line before."""
    lines: list[str] = []
    sep = joiner.strip()
    trailing = sep in (",", ";", "")
    for part in parts:
        if lines and len(lines[-1]) + len(joiner) + len(part) <= width:
            lines[-1] += joiner + part
        elif not lines:
            lines.append(part)
        elif trailing:
            lines[-1] += sep
            lines.append(part)
        else:
            lines.append(f"{sep} {part}")
    return lines
