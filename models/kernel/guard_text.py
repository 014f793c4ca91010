"""Guards, updates and outputs printed in the spec's own vocabulary, for diagrams.

`aborted`, `answer = NULL`, `buffer ∈ {none, FOREIGN}`, `¬hung`, `last_erl ≠ none`:
variable and parameter names as the spec declares them, values by name. This is
the diagrams' printer, kept apart from `expr.render` (listings) and from
i11-robust's explain printer (kernel/readable.py on main); they could be unified.
"""

from __future__ import annotations

import enum

from .domains import FuncValue, Value
from .expr import (
    Add,
    And,
    Cmp,
    Const,
    Enabled,
    Eq,
    Expr,
    Implies,
    In,
    IsSome,
    Ite,
    Not,
    Or,
    Ref,
    Some,
    StepIs,
    Unwrap,
    render,
)


def value(v: Value) -> str:
    """A constant by name: enum members by their name, options' absence as `none`."""
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
        return format(v, "g")
    return str(v)


def text(expr: Expr) -> str:
    if isinstance(expr, Const):
        return value(expr.value)
    if isinstance(expr, Ref):
        return expr.name + ("'" if expr.scope == "post" else "")
    if isinstance(expr, Some | Unwrap):
        return text(expr.arg)
    if isinstance(expr, Eq):
        return f"{text(expr.left)} = {text(expr.right)}"
    if isinstance(expr, IsSome):
        return f"{text(expr.arg)} ≠ none"
    if isinstance(expr, In):
        if len(expr.options) == 1:
            return f"{text(expr.item)} = {value(expr.options[0])}"
        return f"{text(expr.item)} ∈ {{{', '.join(value(o) for o in expr.options)}}}"
    if isinstance(expr, Not):
        arg = expr.arg
        if isinstance(arg, Eq):
            return f"{text(arg.left)} ≠ {text(arg.right)}"
        if isinstance(arg, IsSome):
            return f"{text(arg.arg)} = none"
        if isinstance(arg, In):
            if len(arg.options) == 1:
                return f"{text(arg.item)} ≠ {value(arg.options[0])}"
            return f"{text(arg.item)} ∉ {{{', '.join(value(o) for o in arg.options)}}}"
        if isinstance(arg, Ref):
            return f"¬{text(arg)}"
        return f"¬({text(arg)})"
    if isinstance(expr, And):
        return " ∧ ".join(paren(a) for a in flat(expr))
    if isinstance(expr, Or):
        return " ∨ ".join(paren(a) for a in flat(expr))
    if isinstance(expr, Implies):
        return f"{paren(expr.premise)} → {paren(expr.conclusion)}"
    if isinstance(expr, Ite):
        return f"({text(expr.then)} if {text(expr.cond)} else {text(expr.other)})"
    if isinstance(expr, Cmp):
        return f"{text(expr.left)} {expr.op} {text(expr.right)}"
    if isinstance(expr, Add):
        return f"{text(expr.left)} {expr.op} {text(expr.right)}"
    if isinstance(expr, StepIs):
        names = expr.names
        if len(names) == 1:
            return f"{expr.kind} = {names[0]}"
        return f"{expr.kind} ∈ {{{', '.join(names)}}}"
    if isinstance(expr, Enabled):
        return f"enabled({', '.join(expr.triggers)})"
    return render(expr, value, text)  # data and quantifiers: TLA+'s notation


def paren(expr: Expr) -> str:
    inner = text(expr)
    return f"({inner})" if isinstance(expr, And | Or | Implies) else inner


def flat(expr: And | Or) -> list[Expr]:
    """Nested conjunctions (or disjunctions) as one list: `a ∧ (b ∧ c)` reads `a ∧ b ∧ c`."""
    parts: list[Expr] = []
    for a in expr.args:
        parts += flat(a) if isinstance(a, And | Or) and type(a) is type(expr) else [a]
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
