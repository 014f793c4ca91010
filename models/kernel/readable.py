"""Printing for reviewers: a property as written, why it fails, and a certificate.

- `show` (printer.py, the one printer every face uses) prints an expression in
  the spec's own vocabulary: `x` before the step, `x'` after it, `out(o)` for an
  output, `?p` for a trigger parameter, values by their labels
  (`state ≠ OVERLAP ∧ pending is none`).
- `why` says, for the last step of a counterexample, which part of the
  predicate fails and with which values (`fails: …`), so that two checks
  sharing a counterexample each name their own failure.
- `certificate_lines` reads Spacer's invariant (z3's printout) back into the
  same vocabulary: option fields by name (`pending is none`, not `pending.0`),
  conjuncts that only restate a variable's domain dropped, one clause per line
  when it is long. Anything it cannot parse is shown as it came.

Nothing here imports z3: the certificate arrives as the text `smt.py` made.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from typing import Literal

from .domains import Bool
from .domains import Domain
from .domains import Finite
from .domains import IntRange
from .domains import Option
from .expr import Add
from .expr import And
from .expr import Cmp
from .expr import CmpOp
from .expr import Const
from .expr import Enabled
from .expr import Env
from .expr import Eq
from .expr import Expr
from .expr import Implies
from .expr import IsSome
from .expr import Ite
from .expr import Not
from .expr import Or
from .expr import Quant
from .expr import Ref
from .expr import StepIs
from .expr import Unwrap
from .expr import evaluate
from .expr import instances
from .printer import domain_of
from .printer import is_bool
from .printer import label
from .printer import show
from .printer import side
from .spec import Kind
from .spec import Property
from .spec import Spec
from .trace import Trace

WIDTH = 70

# ---------------------------------------------------------------- expressions

# ---------------------------------------------------------------- why a step fails


def step_env(spec: Spec, trace: Trace, over_steps: bool) -> Env:
    """What the predicate sees at the trace's end: the last state, or the last step."""
    if not over_steps or not trace.steps:
        return Env(pre=trace.states()[-1])
    last = trace.steps[-1]
    before = trace.states()[-2]
    return Env(
        pre=before,
        post=last.state,
        params=last.params,
        outputs=last.outputs,
        trigger=last.trigger,
        row=last.row,
        group=spec.trigger(last.trigger).group,
    )


def why(spec: Spec, prop: Property, trace: Trace) -> str | None:
    """`fails: …` for a counterexample's last step; None when the trace shows no failure."""
    env = step_env(spec, trace, prop.over_steps)
    pred = prop.as_written  # explained as written: `enabled(…)` stays one atom
    try:
        if prop.kind is Kind.ALWAYS and not _holds(spec, pred, env):
            return "fails: " + _false(spec, pred, env)
        if prop.kind is Kind.NEVER and _holds(spec, pred, env):
            return "fails: it happens: " + _true(spec, pred, env)
    except (KeyError, TypeError):  # a value the last step does not carry
        return None
    return None


def _holds(spec: Spec, e: Expr, env: Env) -> bool:
    return bool(evaluate(spec.expand(e), env))


def _false(spec: Spec, e: Expr, env: Env) -> str:
    if isinstance(e, And):
        return "; ".join(_false(spec, a, env) for a in e.args if not _holds(spec, a, env))
    if isinstance(e, Or):
        return "none of its cases holds: " + "; ".join(_false(spec, a, env) for a in e.args)
    if isinstance(e, Implies):
        return f"{show(spec, e.premise)} holds, but {_false(spec, e.conclusion, env)}"
    if isinstance(e, Not) and isinstance(e.arg, And | Or | Implies | Not):
        return _true(spec, e.arg, env)
    if isinstance(e, Enabled):
        return f"{show(spec, e)} is false: no row of these triggers can fire here"
    if isinstance(e, Quant) and e.kind == "all":
        # The first instance that fails, named by its value.
        for v, case in zip(e.domain.values or (), instances(e), strict=True):
            if not _holds(spec, case, env):
                return f"for {e.name} = {label(e.domain, v)}: {_false(spec, case, env)}"
    if isinstance(e, Eq) and is_bool(e.left) and is_bool(e.right):
        if _holds(spec, e.left, env):
            return f"{side(spec, e.left)} holds, but {_false(spec, e.right, env)}"
        return f"{_false(spec, e.left, env)}, but {_true(spec, e.right, env)}"
    return f"{show(spec, e)} is false{_values(spec, e, env)}"


def _true(spec: Spec, e: Expr, env: Env) -> str:
    if isinstance(e, Or):
        return "; ".join(_true(spec, a, env) for a in e.args if _holds(spec, a, env))
    if isinstance(e, And):
        return " and ".join(_true(spec, a, env) for a in e.args)
    if isinstance(e, Implies):
        if not _holds(spec, e.premise, env):
            return _false(spec, e.premise, env)
        return _true(spec, e.conclusion, env)
    if isinstance(e, Not) and isinstance(e.arg, And | Or | Implies | Not):
        return _false(spec, e.arg, env)
    if isinstance(e, Quant) and e.kind == "any":
        for v, case in zip(e.domain.values or (), instances(e), strict=True):
            if _holds(spec, case, env):
                return f"for {e.name} = {label(e.domain, v)}: {_true(spec, case, env)}"
    return f"{show(spec, e)}{_values(spec, e, env)}"


def _values(spec: Spec, e: Expr, env: Env) -> str:
    """The values the atom read, `(state = OVERLAP, payload = TEXT)`; what the step was."""
    if isinstance(e, Ref):
        return ""  # `aborted is false` says it all
    seen: dict[str, str] = {}
    stack = [e]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children()))
        if isinstance(node, Ref):
            name = show(spec, node)
            if name not in seen:
                seen[name] = label(domain_of(spec, node), evaluate(node, env))
        elif isinstance(node, StepIs):
            fired = {"trigger": env.trigger, "row": env.row, "group": env.group}[node.kind]
            seen[node.kind] = str(fired)
    text = show(spec, e)

    def said(word: str) -> bool:
        return re.search(rf"(?<![\w']){re.escape(word)}(?![\w'])", text) is not None

    # A value the atom already spells (`held is none`, `presses = 2` holding) is not repeated.
    shown = [f"{k} = {v}" for k, v in seen.items() if not (said(k) and said(v))]
    return f" ({', '.join(shown)})" if shown else ""


# ---------------------------------------------------------------- certificates


@dataclass(frozen=True)
class _Node:
    kind: str  # "call", "cmp", "arith", "neg", "name", "num"
    text: str
    args: tuple[_Node, ...] = ()


_TOKEN = re.compile(r"\s*(?:(-?\d+(?:\.\d+)?)|([A-Za-z_][\w.]*)|(==|!=|≠|<=|>=|[<>()+\-*/,]))")


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"cannot read {text[pos:]!r}")
        out.append(m.group(m.lastindex or 0))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ValueError(f"expected {want or 'more'}, got {tok!r}")
        self.i += 1
        return tok

    def parse(self) -> _Node:
        node = self.cmp()
        if self.peek() is not None:
            raise ValueError(f"unexpected {self.peek()!r}")
        return node

    def cmp(self) -> _Node:
        left = self.sum()
        if self.peek() in ("==", "!=", "≠", "<=", ">=", "<", ">"):
            op = self.take()
            return _Node("cmp", "≠" if op == "!=" else op, (left, self.sum()))
        return left

    def sum(self) -> _Node:
        node = self.prod()
        while self.peek() in ("+", "-"):
            op = self.take()
            node = _Node("arith", op, (node, self.prod()))
        return node

    def prod(self) -> _Node:
        node = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            node = _Node("arith", op, (node, self.unary()))
        return node

    def unary(self) -> _Node:
        if self.peek() == "-":
            self.take()
            return _Node("neg", "-", (self.unary(),))
        tok = self.take()
        if tok == "(":
            node = self.cmp()
            self.take(")")
            return node
        if re.fullmatch(r"-?\d+(?:\.\d+)?", tok):
            return _Node("num", tok)
        if self.peek() == "(":
            self.take("(")
            args = [self.cmp()]
            while self.peek() == ",":
                self.take(",")
                args.append(self.cmp())
            self.take(")")
            return _Node("call", tok, tuple(args))
        return _Node("name", tok)


def _conjuncts(node: _Node) -> list[_Node]:
    if node.kind == "call" and node.text == "And":
        return [c for a in node.args for c in _conjuncts(a)]
    return [node]


def _var_of(spec: Spec, name: str) -> str | None:
    base = name.split(".", 1)[0]
    return base if base in {v.name for v in spec.vars} else None


def _names(node: _Node) -> set[str]:
    if node.kind == "name":
        return {node.text}
    return set().union(*(_names(a) for a in node.args)) if node.args else set()


def _component_values(domain: Domain) -> dict[str, tuple[Any, ...]] | None:
    """The values each z3 component of a variable ranges over (None: infinitely many)."""

    def plain(dom: Domain) -> tuple[Any, ...] | None:
        if isinstance(dom, Finite):
            return tuple(dom.label(v) for v in dom.members)
        if isinstance(dom, Bool):
            return (False, True)
        if isinstance(dom, IntRange):
            return tuple(range(dom.lo, dom.hi + 1))
        return None

    if isinstance(domain, Option):
        inner = plain(domain.inner)
        return None if inner is None else {".0": (False, True), ".1": inner}
    values = plain(domain)
    return None if values is None else {"": values}


def _eval(node: _Node, env: Mapping[str, Any]) -> Any:
    k, t, a = node.kind, node.text, node.args
    if k == "num":
        return float(t) if "." in t else int(t)
    if k == "name":
        return env.get(t, {"True": True, "False": False}.get(t, t))
    if k == "neg":
        return -_eval(a[0], env)
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "==": lambda x, y: x == y,
        "≠": lambda x, y: x != y,
        "<=": lambda x, y: x <= y,
        ">=": lambda x, y: x >= y,
        "<": lambda x, y: x < y,
        ">": lambda x, y: x > y,
        "+": lambda x, y: x + y,
        "-": lambda x, y: x - y,
        "*": lambda x, y: x * y,
        "/": lambda x, y: x / y,
    }
    if k in ("cmp", "arith"):
        return ops[t](_eval(a[0], env), _eval(a[1], env))
    vals = [_eval(x, env) for x in a]
    if t == "And":
        return all(vals)
    if t == "Or":
        return any(vals)
    if t == "Not":
        return not vals[0]
    if t == "Implies":
        return (not vals[0]) or vals[1]
    if t == "If":
        return vals[1] if vals[0] else vals[2]
    raise ValueError(f"unknown function {t}")


def _restates_domain(spec: Spec, clause: _Node) -> bool:
    """Does the clause hold for every value of the one variable it reads?"""
    names = [n for n in _names(clause) if _var_of(spec, n)]
    owners = {_var_of(spec, n) for n in names}
    if len(owners) != 1:
        return False
    (owner,) = owners
    assert owner is not None
    components = _component_values(spec.var(owner).domain)
    if components is None:
        return False
    keys = [owner + suffix for suffix in components]
    try:
        return all(
            bool(_eval(clause, dict(zip(keys, combo, strict=True))))
            for combo in itertools.product(*components.values())
        )
    except (TypeError, ValueError):
        return False


def _readable(spec: Spec, node: _Node) -> str:
    """A clause in the spec's vocabulary, printed as every face prints (printer.py); a
    clause that names something the spec does not know is shown as z3 wrote it."""
    try:
        return show(spec, _as_expr(spec, node))
    except ValueError:
        return _raw(node)


def _as_expr(spec: Spec, node: _Node, want: Domain | None = None) -> Expr:
    """The clause as an expression over the spec's variables (`want`: the domain a bare
    name is a value of, from the other side of a comparison); ValueError if it is not one."""
    k, t, a = node.kind, node.text, node.args
    if k == "name":
        if t in ("True", "False"):
            return Const(t == "True")
        base, dot, part = t.partition(".")
        if _var_of(spec, t) is not None:
            domain = spec.var(base).domain
            if not dot:
                return Ref("pre", base)
            if isinstance(domain, Option) and part in ("0", "1"):
                ref = Ref("pre", base)
                return IsSome(ref) if part == "0" else Unwrap(ref)
        for value in (want.values or ()) if want is not None else ():
            if want is not None and want.label(value) == t:
                return Const(value)
        raise ValueError(f"not the spec's: {t}")
    if k == "num":
        return Const(float(t) if "." in t else int(t))
    if k == "neg":
        inner = _as_expr(spec, a[0])
        if isinstance(inner, Const) and isinstance(inner.value, int | float):
            return Const(-inner.value)
        raise ValueError("a negated term")
    if k in ("cmp", "arith"):
        left, right = _pair(spec, a[0], a[1])
        if t == "==":
            return Eq(left, right)
        if t == "≠":
            return Not(Eq(left, right))
        if t in _CMP:
            return Cmp(_CMP[t], left, right)
        if t in _ARITH:
            return Add(left, right, _ARITH[t])
        raise ValueError(f"no expression for {t}")
    args = tuple(_as_expr(spec, x) for x in a)
    if t == "Not" and len(args) == 1:
        return Not(args[0])
    if t == "And":
        return And(args)
    if t == "Or":
        return Or(args)
    if t == "Implies" and len(args) == 2:
        return Implies(*args)
    if t == "If" and len(a) == 3:
        cond = args[0]
        then, other = _pair(spec, a[1], a[2])
        return Ite(cond, then, other)
    raise ValueError(f"no expression for {t}")


_CMP: dict[str, CmpOp] = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ARITH: dict[str, Literal["+", "-"]] = {"+": "+", "-": "-"}


def _pair(spec: Spec, a: _Node, b: _Node) -> tuple[Expr, Expr]:
    """Two sides of a comparison: a bare name on one side is a value of the other's domain."""
    sides: list[Expr | None] = []
    for node in (a, b):
        try:
            sides.append(_as_expr(spec, node))
        except ValueError:
            sides.append(None)
    known = [domain_of(spec, e) for e in sides if e is not None]
    want = next((d for d in known if d is not None), None)
    left, right = sides
    return (
        left if left is not None else _as_expr(spec, a, want),
        right if right is not None else _as_expr(spec, b, want),
    )


def _raw(node: _Node) -> str:
    """A clause as z3 wrote it."""
    if node.kind in ("name", "num"):
        return node.text
    if node.kind == "neg":
        return f"-{_raw(node.args[0])}"
    if node.kind in ("cmp", "arith"):
        return f"{_raw(node.args[0])} {node.text} {_raw(node.args[1])}"
    return f"{node.text}({', '.join(_raw(x) for x in node.args)})"


@dataclass(frozen=True)
class Certificate:
    """A Spacer invariant as a reviewer reads it."""

    clauses: tuple[str, ...]  # the conjuncts kept, in the spec's vocabulary
    dropped: int  # conjuncts that only restated a variable's domain
    raw: str

    def one_line(self) -> str:
        if len(self.clauses) < 2:
            return "inv: " + (self.clauses[0] if self.clauses else "true")
        return "inv: " + " ∧ ".join(_wrap(c) for c in self.clauses)

    def lines(self) -> list[str]:
        """`certificate: …` on one line, or a numbered clause per line when long."""
        note = (
            f" ({self.dropped} clause{'s' if self.dropped != 1 else ''} restating a domain "
            "left out; --full prints it raw)"
            if self.dropped
            else ""
        )
        line = self.one_line()
        if len(line) <= WIDTH or len(self.clauses) < 2:
            return [f"certificate: {line}{note}"]
        head = f"certificate: an inductive invariant, all of these {len(self.clauses)} clauses"
        return [head + note + ":", *(f"  {i}. {c}" for i, c in enumerate(self.clauses, 1))]


def _wrap(clause: str) -> str:
    return f"({clause})" if " ∨ " in clause or " → " in clause else clause


def read_certificate(spec: Spec, text: str) -> Certificate | None:
    """Spacer's `inv: …` as a `Certificate`; None for any other evidence or text it cannot read."""
    if not text.startswith("inv: "):
        return None
    try:
        tree = _Parser(text[len("inv: ") :]).parse()
    except ValueError:
        return None
    kept, dropped = [], 0
    for clause in _conjuncts(tree):
        if _restates_domain(spec, clause):
            dropped += 1
        else:
            kept.append(_readable(spec, clause))
    return Certificate(tuple(kept), dropped, text)
