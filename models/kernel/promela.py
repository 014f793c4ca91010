"""The Promela face of a spec: SPIN as a second, independent model checker.

`export(spec)` writes one Promela model derived from the one `Spec`, and keeps
what is needed to read SPIN's answers back (the value codes, which `d_step`
is which row and arguments, which assertion is which property).

The shape of the model:

- Every variable is a global holding a small integer *code* of its value:
  enum members, tuples and options by position in their domain, booleans as
  0/1, integers as themselves, `none` as 0 with the inner codes shifted by one.
- One process runs one `do` loop with one option per initial state (a
  `d_step` enabled only while `go` is 0) and one per trigger. A trigger's
  option picks each parameter from its finite domain (`a<k>_` variables, k
  the trigger's number, inside an `atomic`), then runs one `d_step`: enabled
  when some row's guard holds, it fires the first such row (the oracle's
  order; the determinism check proves there is only one). The row copies the pre-state values it
  overwrites to `p_` variables, writes the outputs to `o_` variables, then
  the updates, then one `printf` that names the row and prints the
  arguments, the whole state and the outputs (what the trail reader
  translates back), then the row's step assertions. An update that adds is
  first asserted to stay in its variable's range, whatever `sel` is. The
  `d_step` ends with the state assertions and resets every `p_`, `o_` and
  `a<k>_` variable to 0.
- Properties become assertions, guarded by a selector: `sel` is 0 (check
  every property), k (only the k-th), n+1 (none) or n+2 (every `always`
  and `never`, for one search that proves them all), read from
  the environment variable `SC_PROP` by embedded C code in the first step.
  A state property asserts `!bad` after the initial state is picked and after
  every step; a step property (it reads the next state, the outputs or which
  row fired) asserts `!bad` inside each row's `d_step`, with `p_` as the
  pre-state, the variables as the post-state and `o_` as the outputs, and its
  `trigger_is`/`row_is`/`group_is` folded to constants for that row. For
  `always`/`never` a failed assertion is a counterexample; for `sometimes` the
  export asserts the negation, so a failed assertion is the witness, and no
  failure proves it unreachable.

State counts. A `d_step` is one transition: SPIN stores no state inside it.
Only a trigger with parameters leaves states inside its `atomic` step (after
each pick); SPIN's breadth-first search stores them and reports them apart:
`nominal states` is the stored count without them (a depth-first pan stores
none). At the loop head every `p_`/`o_`/`a<k>_` variable is 0 and `sel` is the
same in every state of a search, so a nominal state is exactly an explorer
state, plus one: the state before an initial state is picked (`go` = 0).
So SPIN's nominal count is the explorer's reachable-state count plus
`SETUP_STATES` (1), and the agreement test holds both to that. The model is
compiled with `spin -o2` (keep write-only variables), or a variable that only
properties read would not split states as it does in the explorer.

The real abstraction. A real variable or parameter ranges over the explorer's
samples (every `Real` domain's `samples`, plus the real constants and initial
values the spec writes), coded by their rank in one sorted table, so `<`,
`<=`, `=` between reals keep their meaning. SPIN therefore sees exactly the
explorer's finite projection: it cannot show behaviour at real values between
or beyond the samples (a guard boundary the samples straddle), which only the
z3 proofs cover, and a model that adds reals is refused with `PromelaError`.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import assert_never

from .domains import Bool, Domain, Finite, IntRange, Option, Real, Value
from .expr import (
    Add,
    And,
    Cmp,
    Const,
    Enabled,
    Env,
    Eq,
    Expr,
    Implies,
    In,
    IsSome,
    Ite,
    Not,
    Or,
    Ref,
    Scope,
    Some,
    StepIs,
    Unwrap,
    evaluate,
    infer,
    node,
    walk,
)
from .spec import Kind, Property, Row, Spec
from .trace import Step, Trace

SETUP_STATES = 1  # the state before an initial state is picked (see the module docstring)
PROPERTY_ENV = "SC_PROP"  # pan reads the property selector from this environment variable


class PromelaError(ValueError):
    """The spec uses something the Promela export cannot express (the message says what)."""


@dataclass(frozen=True)
class Export:
    """A spec's Promela text and what is needed to read SPIN's answers back."""

    spec: Spec
    text: str
    properties: tuple[Property, ...]  # selector k (1-based) is properties[k - 1]
    rows: tuple[Row, ...]  # `@step i` in a trail is rows[i]
    codec: Codec

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def no_property(self) -> int:
        """The selector that checks nothing: pan only explores."""
        return len(self.properties) + 1

    @property
    def every_safety_property(self) -> int:
        """The selector that checks every `always` and `never` at once."""
        return len(self.properties) + 2

    def selector(self, prop: str) -> int:
        for k, p in enumerate(self.properties, start=1):
            if p.name == prop:
                return k
        raise KeyError(prop)

    def read_steps(self, lines: Sequence[str]) -> Trace:
        """The trace the model's `@init`/`@step` lines print (a replayed trail's output).

        Every value comes from SPIN's own printout, decoded; nothing is recomputed here.
        """
        spec, codec = self.spec, self.codec
        init: dict[str, Value] | None = None
        steps: list[Step] = []
        for line in lines:
            words = line.split()
            if not words or words[0] not in ("@init", "@step"):
                continue
            if words[0] == "@init":
                init = codec.decode_state(words[1:])
                continue
            if init is None:
                raise PromelaError("a trail's steps start before its initial state")
            r = self.rows[int(words[1])]
            args, state, outputs = " ".join(words[2:]).split("|")
            params = spec.trigger(r.trigger).params
            steps.append(
                Step(
                    r.name,
                    r.trigger,
                    MappingProxyType(
                        {
                            p.name: codec.decode(p.domain, int(w))
                            for p, w in zip(params, args.split(), strict=True)
                        }
                    ),
                    MappingProxyType(codec.decode_state(state.split())),
                    MappingProxyType(codec.decode_outputs(outputs.split())),
                )
            )
        if init is None:
            raise PromelaError(f"no initial state in SPIN's output for {spec.name!r}")
        return Trace(MappingProxyType(init), tuple(steps))


# ---------------------------------------------------------------- value codes


class Codec:
    """Values as the small integers the Promela model holds, and back."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        reals: set[float] = set()
        domains = [v.domain for v in spec.vars] + [o.domain for o in spec.outputs]
        domains += [p.domain for t in spec.triggers for p in t.params]
        for d in domains:
            inner = d.inner if isinstance(d, Option) else d
            if isinstance(inner, Real):
                reals.update(float(s) for s in inner.samples)
        for v in spec.vars:
            inner = v.domain.inner if isinstance(v.domain, Option) else v.domain
            if isinstance(inner, Real):
                reals.update(float(x) for x in v.inits if x is not None)
        for e in _all_exprs(spec):
            for n in walk(e):
                if isinstance(n, Const) and isinstance(n.value, float):
                    reals.add(n.value)
        self.reals: tuple[float, ...] = tuple(sorted(reals))

    def offset(self, d: Domain) -> int:
        return d.lo if isinstance(d, IntRange) else 0

    def encode(self, d: Domain, value: Value) -> int:
        if isinstance(d, Option):
            if value is None:
                return 0
            return self.encode(d.inner, value) - self.offset(d.inner) + 1
        if isinstance(d, Bool):
            return int(bool(value))
        if isinstance(d, IntRange):
            return int(value)
        if isinstance(d, Real):
            try:
                return self.reals.index(float(value))
            except ValueError:
                raise PromelaError(
                    f"real value {value!r} is not among the samples {self.reals}"
                ) from None
        if isinstance(d, Finite):
            for k, m in enumerate(d.members):
                if m == value and type(m) is type(value):
                    return k
            raise PromelaError(f"{value!r} is not in {d.describe()}")
        raise PromelaError(f"no Promela encoding for domain {type(d).__name__}")

    def decode(self, d: Domain, code: int) -> Value:
        if isinstance(d, Option):
            return None if code == 0 else self.decode(d.inner, code - 1 + self.offset(d.inner))
        if isinstance(d, Bool):
            return bool(code)
        if isinstance(d, IntRange):
            return code
        if isinstance(d, Real):
            return self.reals[code]
        if isinstance(d, Finite):
            return d.members[code]
        raise PromelaError(f"no Promela encoding for domain {type(d).__name__}")

    def code_range(self, d: Domain) -> tuple[int, int]:
        if isinstance(d, Option):
            lo, hi = self.code_range(d.inner)
            return 0, hi - lo + 1
        if isinstance(d, Bool):
            return 0, 1
        if isinstance(d, IntRange):
            return d.lo, d.hi
        if isinstance(d, Real):
            return 0, max(len(self.reals) - 1, 0)
        if isinstance(d, Finite):
            return 0, len(d.members) - 1
        raise PromelaError(f"no Promela encoding for domain {type(d).__name__}")

    def ctype(self, d: Domain) -> str:
        lo, hi = self.code_range(d)
        if lo >= 0 and hi <= 1:
            return "bit"
        if lo >= 0 and hi <= 255:
            return "byte"
        if lo >= -(2**15) and hi < 2**15:
            return "short"
        return "int"

    def decode_state(self, words: Sequence[str]) -> dict[str, Value]:
        vs = self.spec.vars
        if len(words) != len(vs):
            raise PromelaError(f"a SPIN state has {len(words)} values, the spec {len(vs)}")
        return {v.name: self.decode(v.domain, int(w)) for v, w in zip(vs, words, strict=True)}

    def decode_outputs(self, words: Sequence[str]) -> dict[str, Value]:
        outs = self.spec.outputs
        return {o.name: self.decode(o.domain, int(w)) for o, w in zip(outs, words, strict=True)}


def _all_exprs(spec: Spec) -> list[Expr]:
    found: list[Expr] = [p.pred for p in spec.properties]
    for r in spec.rows:
        found += [r.guard, *r.updates.values(), *r.outputs.values()]
    return found


# ---------------------------------------------------------------- folding


@dataclass(frozen=True)
class _Step:
    """What is known about a row at export time: its name, trigger and group."""

    row: str
    trigger: str
    group: str


def _ground(expr: Expr) -> bool:
    """Reads no state, parameter, output or step: its value is known at export time."""
    return not any(isinstance(n, StepIs | Ref) for n in walk(expr))


def _fold(expr: Expr, step: _Step | None) -> Expr:
    """`expr` with constants and the row's `trigger_is`/`row_is`/`group_is` evaluated away."""
    if isinstance(expr, StepIs):
        assert step is not None, "a property that asks which row fired is a step property"
        name = {"trigger": step.trigger, "row": step.row, "group": step.group}[expr.kind]
        return Const(name in expr.names)
    if isinstance(expr, Const):
        return expr
    if _ground(expr):
        return Const(evaluate(expr, Env(pre={})))
    if isinstance(expr, And | Or):
        unit = isinstance(expr, And)  # True is And's unit and Or's absorbing value
        parts: list[Expr] = []
        for a in expr.args:
            f = _fold(a, step)
            if isinstance(f, Const):
                if bool(f.value) != unit:
                    return Const(not unit)
                continue
            parts.append(f)
        if not parts:
            return Const(unit)
        return parts[0] if len(parts) == 1 else type(expr)(tuple(parts))
    if isinstance(expr, Not):
        arg = _fold(expr.arg, step)
        return Const(not arg.value) if isinstance(arg, Const) else Not(arg)
    if isinstance(expr, Implies):
        premise = _fold(expr.premise, step)
        if isinstance(premise, Const):
            return _fold(expr.conclusion, step) if premise.value else Const(True)
        conclusion = _fold(expr.conclusion, step)
        if isinstance(conclusion, Const) and conclusion.value:
            return Const(True)
        return Implies(premise, conclusion)
    if isinstance(expr, Ite):
        cond = _fold(expr.cond, step)
        if isinstance(cond, Const):
            return _fold(expr.then if cond.value else expr.other, step)
        return Ite(cond, _fold(expr.then, step), _fold(expr.other, step))
    # Any other node: the same node over folded children (the dataclass fields that are
    # expressions, or tuples of them).
    rebuilt: dict[str, object] = {}
    for fld in fields(expr):  # type: ignore[arg-type]
        value = getattr(expr, fld.name)
        if isinstance(value, Expr):
            value = _fold(value, step)
        elif isinstance(value, tuple) and value and isinstance(value[0], Expr):
            value = tuple(_fold(v, step) for v in value)
        rebuilt[fld.name] = value
    return type(expr)(**rebuilt)


# ---------------------------------------------------------------- translation

Namer = Callable[[Scope, str], str]


class _Translator:
    """Folded expressions as Promela expressions over the codes."""

    def __init__(self, spec: Spec, codec: Codec, name: Namer, params: Mapping[str, Domain]):
        self.spec, self.codec, self.name, self.params = spec, codec, name, params

    def typer(self, scope: Scope, name: str) -> Domain:
        if scope in ("pre", "post"):
            return self.spec.var(name).domain
        if scope == "out":
            return self.spec.output(name).domain
        return self.params[name]

    def domain(self, expr: Expr) -> Domain | None:
        return infer(expr, self.typer)

    def __call__(self, expr: Expr, expected: Domain | None = None) -> str:
        tr = self.__call__
        expr = node(expr)
        if isinstance(expr, Const):
            if expected is None:
                if isinstance(expr.value, bool):
                    return "1" if expr.value else "0"
                raise PromelaError(f"constant {expr.value!r} has no type here")
            return str(self.codec.encode(expected, expr.value))
        if isinstance(expr, Ref):
            return self.name(expr.scope, expr.name)
        if isinstance(expr, Eq):
            d = self.domain(expr.left) or self.domain(expr.right)
            return f"({tr(expr.left, d)} == {tr(expr.right, d)})"
        if isinstance(expr, In):
            d = self.domain(expr.item)
            assert d is not None
            item = tr(expr.item, d)
            if not expr.options:
                return "0"
            return (
                "("
                + " || ".join(f"{item} == {self.codec.encode(d, o)}" for o in expr.options)
                + ")"
            )
        if isinstance(expr, Not):
            return f"(!{tr(expr.arg, Bool())})"
        if isinstance(expr, And):
            return "(" + " && ".join(tr(a, Bool()) for a in expr.args) + ")" if expr.args else "1"
        if isinstance(expr, Or):
            return "(" + " || ".join(tr(a, Bool()) for a in expr.args) + ")" if expr.args else "0"
        if isinstance(expr, Implies):
            return f"((!{tr(expr.premise, Bool())}) || {tr(expr.conclusion, Bool())})"
        if isinstance(expr, Ite):
            d = expected or self.domain(expr.then) or self.domain(expr.other)
            return f"({tr(expr.cond, Bool())} -> {tr(expr.then, d)} : {tr(expr.other, d)})"
        if isinstance(expr, Cmp | Add):
            d = self.domain(expr.left) or self.domain(expr.right)
            if isinstance(expr, Add) and isinstance(d, Real):
                raise PromelaError("real arithmetic leaves the samples: it has no Promela form")
            op = expr.op  # Add's is "+" or "-" (`sub`), Cmp's a comparison
            return f"({tr(expr.left, d)} {op} {tr(expr.right, d)})"
        if isinstance(expr, IsSome):
            return f"({tr(expr.arg)} != 0)"
        if isinstance(expr, Some):
            inner = expected.inner if isinstance(expected, Option) else self.domain(expr.arg)
            assert inner is not None
            return f"({tr(expr.arg, inner)} + {1 - self.codec.offset(inner)})"
        if isinstance(expr, Unwrap):
            d = self.domain(expr.arg)
            assert isinstance(d, Option)
            return f"({tr(expr.arg, d)} - {1 - self.codec.offset(d.inner)})"
        if isinstance(expr, StepIs | Enabled):  # folded away per step before translation
            raise PromelaError(f"no Promela form for {type(expr).__name__}")
        assert_never(expr)


# ---------------------------------------------------------------- export


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _updates(spec: Spec, r: Row) -> dict[str, Expr]:
    """What a row assigns: its updates and, when it moves, the control variable."""
    assigned = dict(r.updates)
    if r.target is not None and spec.control is not None:
        assigned[spec.control] = Const(r.target)
    return assigned


def _step(spec: Spec, r: Row) -> _Step:
    return _Step(r.name, r.trigger, spec.group_of(r.trigger))


def _arg(spec: Spec, trigger: str, param: str) -> str:
    """A trigger's argument as a global: numbered by trigger, so `a_b`'s `c` and `a`'s `b_c`
    stay apart."""
    number = [t.name for t in spec.triggers].index(trigger)
    return f"a{number}_{_ident(param)}"


def export(spec: Spec) -> Export:
    """The spec as a Promela model (see the module docstring for its shape)."""
    codec = Codec(spec)
    props = tuple(spec.properties)
    state_props = [(k, p) for k, p in enumerate(props, start=1) if not p.over_steps]
    step_props = [(k, p) for k, p in enumerate(props, start=1) if p.over_steps]
    updated = [v for v in spec.vars if any(v.name in _updates(spec, r) for r in spec.rows)]

    def translator(trigger: str | None, copies: Sequence[str]) -> _Translator:
        def name(scope: Scope, n: str) -> str:
            if scope == "out":
                return f"o_{n}"
            if scope == "param":
                assert trigger is not None
                return _arg(spec, trigger, n)
            return f"p_{n}" if scope == "pre" and n in copies else f"v_{n}"

        params = {p.name: p.domain for p in spec.trigger(trigger).params} if trigger else {}
        return _Translator(spec, codec, name, params)

    safety = len(props) + 2

    def check(k: int, bad: Expr, tr: _Translator) -> list[str]:
        if isinstance(bad, Const) and not bad.value:
            return []  # cannot happen here: no assertion needed
        also = "" if props[k - 1].kind is Kind.SOMETIMES else f" || sel == {safety}"
        return [f"assert(!(sel == 0 || sel == {k}{also}) || !({tr(bad, Bool())}))"]

    sel_type = "byte" if safety < 256 else "short"
    out: list[str] = [
        f"/* {spec.name}: generated by `python -m models promela` from {spec.source}.",
        "   Do not edit: re-export. Values are integer codes (see models/kernel/promela.py).",
        f"   ${PROPERTY_ENV} picks the property pan checks: 0 or unset = all, k = the k-th,",
        f"   {len(props) + 1} = none (explore only), {safety} = every always/never. */",
        "c_code { #include <stdlib.h> }",
        "",
        f"{sel_type} sel;  /* the property selector, constant once the first step has run */",
        "bit go;  /* 0 only in the state before an initial state is picked */",
    ]
    for v in spec.vars:
        codes = ", ".join(
            f"{v.domain.label(x)}={codec.encode(v.domain, x)}" for x in v.domain.sample()[:12]
        )
        out.append(f"{codec.ctype(v.domain)} v_{v.name};  /* {codes} */")
    out.append(
        "/* per-step scratch, back to 0 at the end of every step: it never splits a state */"
    )
    out += [f"{codec.ctype(v.domain)} p_{v.name};  /* {v.name} before the step */" for v in updated]
    out += [f"{codec.ctype(o.domain)} o_{o.name};  /* output {o.name} */" for o in spec.outputs]
    for t in spec.triggers:
        out += [f"{codec.ctype(p.domain)} {_arg(spec, t.name, p.name)};" for p in t.params]
    for k, p in enumerate(props, start=1):
        out.append(f"/* property {k}: {p.kind} {p.name} ({p.cite}) */")

    state_fmt = " %d" * len(spec.vars)
    state_args = "".join(f", v_{v.name}" for v in spec.vars)
    out_fmt = " %d" * len(spec.outputs)
    out_args = "".join(f", o_{o.name}" for o in spec.outputs)
    select = f'c_code {{ char *s = getenv("{PROPERTY_ENV}"); now.sel = s ? atoi(s) : 0; }}'

    at_state = translator(None, ())
    state_checks = [line for k, p in state_props for line in check(k, _fold(p.bad, None), at_state)]

    out += ["", f"active proctype {_ident(spec.name)}() {{", "do"]
    for combo in itertools.product(*(v.inits for v in spec.vars)):
        body = ["!go", select, "go = 1"]
        body += [
            f"v_{v.name} = {codec.encode(v.domain, x)}"
            for v, x in zip(spec.vars, combo, strict=True)
        ]
        body.append(f'printf("@init{state_fmt}\\n"{state_args})')
        out.append(":: d_step { " + ";\n     ".join(body + state_checks) + " }")

    rows: list[Row] = []
    for t in spec.triggers:
        own = spec.rows_of(t.name)
        if not own:
            continue
        args = [_arg(spec, t.name, param.name) for param in t.params]
        # The guards run before any copy is taken: they read the variables themselves.
        guards = [
            translator(t.name, ())(_fold(spec.step_guard(r), _step(spec, r)), Bool()) for r in own
        ]
        out.append(f"/* trigger {t.name} */")
        if t.params:
            out.append(":: atomic { go;")
            for param in t.params:
                codes = " ".join(
                    f":: {_arg(spec, t.name, param.name)} = {codec.encode(param.domain, x)}"
                    for x in param.domain.sample()
                )
                out.append(f"     if {codes} fi;")
            out.append("     d_step { (" + " || ".join(guards) + ") ->")
        else:
            out.append(":: d_step { go && (" + " || ".join(guards) + ") ->")
        out.append("     if")
        scratch: set[str] = set()
        for r, guard in zip(own, guards, strict=True):
            updates = _updates(spec, r)
            scratch.update(updates)
            tr = translator(t.name, list(updates))
            body = [f"p_{n} = v_{n}" for n in updates]
            for o in spec.outputs:
                value = (
                    _fold(r.outputs[o.name], _step(spec, r))
                    if o.name in r.outputs
                    else Const(o.default)
                )
                body.append(f"o_{o.name} = {tr(value, o.domain)}")
            for n, e in updates.items():
                domain = spec.var(n).domain
                code = tr(_fold(e, _step(spec, r)), domain)
                if any(isinstance(x, Add) for x in walk(e)):
                    # A sum can leave the range, which the oracle refuses and a byte would
                    # wrap: assert it (always, whatever `sel` is) before the assignment.
                    lo, hi = codec.code_range(domain)
                    body.append(f"assert({lo} <= {code} && {code} <= {hi})")
                body.append(f"v_{n} = {code}")
            fmt = f"@step {len(rows)}{' %d' * len(args)} |{state_fmt} |{out_fmt}\\n"
            body.append(f'printf("{fmt}"{"".join(", " + a for a in args)}{state_args}{out_args})')
            for k, p in step_props:
                body += check(k, _fold(p.bad, _step(spec, r)), tr)
            out.append(f"     /* row {len(rows)}: {r.name} ({r.cite}) */")
            out.append(f"     :: {guard} ->\n          " + ";\n          ".join(body))
            rows.append(r)
        out.append("     fi;")
        tail = state_checks + [f"p_{n} = 0" for n in sorted(scratch)]
        tail += [f"o_{o.name} = 0" for o in spec.outputs] + [f"{a} = 0" for a in args]
        out.append("     " + ";\n     ".join(tail or ["skip"]))
        out.append("  } }" if t.params else "  }")
    out += ["od", "}", ""]
    return Export(spec, "\n".join(out), props, tuple(rows), codec)
