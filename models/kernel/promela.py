"""The Promela face of a spec: SPIN as a second, independent model checker.

`export(spec)` writes one Promela model derived from the one `Spec`, and keeps
what is needed to read SPIN's answers back (the value codes, which `d_step`
is which row and arguments, which assertion is which property).

The shape of the model:

- Every variable is a global holding a small integer *code* of its value:
  enum members, tuples and options by position in their domain, booleans as
  0/1, integers as themselves, `none` as 0 with the inner codes shifted by one.
  A sequence, function or set is an array of such codes, laid out as `smt.py`
  lays out its slots (a sequence: its length, then its elements, 0 past the
  end; a function: its values in index order; a set: one bit per element);
  quantifiers are unrolled over their finite domains, and the initial states
  are the spec's (its initial predicate applied).
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
samples (every `Real` domain's `samples`, plus the real constants, initial
values and output defaults the spec writes), coded by their rank in one
sorted table, so `<`, `<=`, `=` between reals keep their meaning. SPIN therefore sees exactly the
explorer's finite projection: it cannot show behaviour at real values between
or beyond the samples (a guard boundary the samples straddle), which only the
z3 proofs cover, and a model that adds reals is refused with `PromelaError`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import fields
from types import MappingProxyType
from typing import assert_never

from . import expr as ex
from .domains import Bool
from .domains import Domain
from .domains import Finite
from .domains import Func
from .domains import FuncValue
from .domains import IntRange
from .domains import Option
from .domains import Real
from .domains import Seq
from .domains import Set
from .domains import Value
from .domains import all_assignments
from .domains import is_data
from .expr import Env
from .expr import Expr
from .expr import ExprTypeError
from .expr import Scope
from .expr import evaluate
from .expr import infer
from .expr import node
from .expr import unroll
from .expr import walk
from .spec import Kind
from .spec import LiveKind
from .spec import Liveness
from .spec import Property
from .spec import Row
from .spec import Spec
from .spec import Var
from .spec import bind
from .trace import Step
from .trace import Trace

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
        for o in spec.outputs:  # a row that does not emit an output emits its default
            inner = o.domain.inner if isinstance(o.domain, Option) else o.domain
            if isinstance(inner, Real) and o.default is not None:
                reals.add(float(o.default))
        for e in _all_exprs(spec):
            for n in walk(e):
                if isinstance(n, ex.Const) and isinstance(n.value, float):
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

    # Data (a sequence, function or set) is an array of slots, laid out as in smt.py: a
    # sequence is its length then `max_len` element slots (0 past the end), a function
    # its values in index order, a set one bit per element.

    def width(self, d: Domain) -> int:
        if isinstance(d, Seq):
            return 1 + d.max_len * self.width(d.element)
        if isinstance(d, Func):
            return len(d.keys) * self.width(d.value)
        if isinstance(d, Set):
            return len(_elements(d))
        return 1

    def slots(self, d: Domain, value: Value) -> list[int]:
        if isinstance(d, Seq):
            codes = [len(value)]
            for x in value:
                codes += self.slots(d.element, x)
            return codes + [0] * (self.width(d) - len(codes))
        if isinstance(d, Func):
            return [c for x in value.vals for c in self.slots(d.value, x)]
        if isinstance(d, Set):
            return [int(x in value) for x in _elements(d)]
        return [self.encode(d, value)]

    def unslots(self, d: Domain, codes: Sequence[int]) -> Value:
        if isinstance(d, Seq):
            w = self.width(d.element)
            return tuple(
                self.unslots(d.element, codes[1 + k * w : 1 + (k + 1) * w]) for k in range(codes[0])
            )
        if isinstance(d, Func):
            w = self.width(d.value)
            return FuncValue(
                d.keys,
                tuple(
                    self.unslots(d.value, codes[k * w : (k + 1) * w]) for k in range(len(d.keys))
                ),
            )
        if isinstance(d, Set):
            return frozenset(x for x, c in zip(_elements(d), codes, strict=True) if c)
        return self.decode(d, codes[0])

    def slot_ranges(self, d: Domain) -> list[tuple[int, int]]:
        if isinstance(d, Seq):
            element = [(min(a, 0), max(b, 0)) for a, b in self.slot_ranges(d.element)]
            return [(0, d.max_len), *(element * d.max_len)]
        if isinstance(d, Func):
            return self.slot_ranges(d.value) * len(d.keys)
        if isinstance(d, Set):
            return [(0, 1)] * len(_elements(d))
        return [self.code_range(d)]

    def ctype(self, d: Domain) -> str:
        if is_data(d):
            ranges = self.slot_ranges(d)
            return _ctype(min(a for a, _ in ranges), max(b for _, b in ranges))
        lo, hi = self.code_range(d)
        return _ctype(lo, hi)

    def decode_state(self, words: Sequence[str]) -> dict[str, Value]:
        vs = self.spec.vars
        total = sum(self.width(v.domain) for v in vs)
        if len(words) != total:
            raise PromelaError(f"a SPIN state has {len(words)} values, the spec {total}")
        state, at = {}, 0
        for v in vs:
            n = self.width(v.domain)
            state[v.name] = self.unslots(v.domain, [int(w) for w in words[at : at + n]])
            at += n
        return state

    def decode_outputs(self, words: Sequence[str]) -> dict[str, Value]:
        outs = self.spec.outputs
        return {o.name: self.decode(o.domain, int(w)) for o, w in zip(outs, words, strict=True)}


def _ctype(lo: int, hi: int) -> str:
    if lo >= 0 and hi <= 1:
        return "bit"
    if lo >= 0 and hi <= 255:
        return "byte"
    if lo >= -(2**15) and hi < 2**15:
        return "short"
    return "int"


def _elements(d: Set | Seq) -> tuple[Value, ...]:
    values = d.element.values
    assert values is not None
    return values


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
    return not any(isinstance(n, ex.StepIs | ex.Ref) for n in walk(expr))


def _fold(expr: Expr, step: _Step | None) -> Expr:
    """`expr` with quantifiers unrolled, and constants and the row's
    `trigger_is`/`row_is`/`group_is` evaluated away."""
    return _fold_unrolled(unroll(expr), step)


def _fold_unrolled(expr: Expr, step: _Step | None) -> Expr:
    if isinstance(expr, ex.StepIs):
        assert step is not None, "a property that asks which row fired is a step property"
        name = {"trigger": step.trigger, "row": step.row, "group": step.group}[expr.kind]
        return ex.Const(name in expr.names)
    if isinstance(expr, ex.Const):
        return expr
    # A ground function, set or sequence (a literal, an update of one) stays an expression:
    # its domain types the lookups into it, where a constant's has no domain to infer.
    if _ground(expr) and not isinstance(expr, ex.FuncLit):
        try:
            value = evaluate(expr, Env(pre={}))
        except (ExprTypeError, KeyError, IndexError, TypeError):
            pass  # undefined (a dead branch, which the row's guard excludes): keep it
        else:
            if not isinstance(value, FuncValue | frozenset | tuple):
                return ex.Const(value)
    if isinstance(expr, ex.And | ex.Or):
        unit = isinstance(expr, ex.And)  # True is And's unit and Or's absorbing value
        parts: list[Expr] = []
        for a in expr.args:
            f = _fold_unrolled(a, step)
            if isinstance(f, ex.Const):
                if bool(f.value) != unit:
                    return ex.Const(not unit)
                continue
            parts.append(f)
        if not parts:
            return ex.Const(unit)
        return parts[0] if len(parts) == 1 else type(expr)(tuple(parts))
    if isinstance(expr, ex.Not):
        arg = _fold_unrolled(expr.arg, step)
        return ex.Const(not arg.value) if isinstance(arg, ex.Const) else ex.Not(arg)
    if isinstance(expr, ex.Implies):
        premise = _fold_unrolled(expr.premise, step)
        if isinstance(premise, ex.Const):
            return _fold_unrolled(expr.conclusion, step) if premise.value else ex.Const(True)
        conclusion = _fold_unrolled(expr.conclusion, step)
        if isinstance(conclusion, ex.Const) and conclusion.value:
            return ex.Const(True)
        return ex.Implies(premise, conclusion)
    if isinstance(expr, ex.Ite):
        cond = _fold_unrolled(expr.cond, step)
        if isinstance(cond, ex.Const):
            return _fold_unrolled(expr.then if cond.value else expr.other, step)
        return ex.Ite(cond, _fold_unrolled(expr.then, step), _fold_unrolled(expr.other, step))
    # Any other node: the same node over folded children (the dataclass fields that are
    # expressions, or tuples of them).
    rebuilt: dict[str, object] = {}
    for fld in fields(expr):  # type: ignore[arg-type]
        value = getattr(expr, fld.name)
        if isinstance(value, Expr):
            value = _fold_unrolled(value, step)
        elif isinstance(value, tuple) and value and isinstance(value[0], Expr):
            value = tuple(_fold_unrolled(v, step) for v in value)
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
        if isinstance(expr, ex.Const):
            if expected is None:
                if isinstance(expr.value, bool):
                    return "1" if expr.value else "0"
                raise PromelaError(f"constant {expr.value!r} has no type here")
            return str(self.codec.encode(expected, expr.value))
        if isinstance(expr, ex.Ref):
            return self.name(expr.scope, expr.name)
        if isinstance(expr, ex.Eq):
            d = self.domain(expr.left) or self.domain(expr.right)
            if d is not None and is_data(d):
                pairs = zip(self.slots(expr.left, d), self.slots(expr.right, d), strict=True)
                return "(" + " && ".join(f"{a} == {b}" for a, b in pairs) + ")"
            return f"({tr(expr.left, d)} == {tr(expr.right, d)})"
        if isinstance(expr, ex.In):
            d = self.domain(expr.item)
            assert d is not None
            if is_data(d):
                return (
                    "(" + " || ".join(tr(ex.Eq(expr.item, ex.Const(o))) for o in expr.options) + ")"
                )
            item = tr(expr.item, d)
            if not expr.options:
                return "0"
            return (
                "("
                + " || ".join(f"{item} == {self.codec.encode(d, o)}" for o in expr.options)
                + ")"
            )
        if isinstance(expr, ex.Not):
            return f"(!{tr(expr.arg, Bool())})"
        if isinstance(expr, ex.And):
            return "(" + " && ".join(tr(a, Bool()) for a in expr.args) + ")" if expr.args else "1"
        if isinstance(expr, ex.Or):
            return "(" + " || ".join(tr(a, Bool()) for a in expr.args) + ")" if expr.args else "0"
        if isinstance(expr, ex.Implies):
            return f"((!{tr(expr.premise, Bool())}) || {tr(expr.conclusion, Bool())})"
        if isinstance(expr, ex.Ite):
            d = expected or self.domain(expr.then) or self.domain(expr.other)
            return f"({tr(expr.cond, Bool())} -> {tr(expr.then, d)} : {tr(expr.other, d)})"
        if isinstance(expr, ex.Cmp | ex.Add):
            # Two untyped sides (a `total` of `ite(p, 1, 0)`) are plain integers.
            d = self.domain(expr.left) or self.domain(expr.right) or IntRange(-(2**31), 2**31)
            if isinstance(expr, ex.Add) and isinstance(d, Real):
                raise PromelaError("real arithmetic leaves the samples: it has no Promela form")
            op = expr.op  # Add's is "+" or "-" (`sub`), Cmp's a comparison
            left, right = tr(expr.left, d), tr(expr.right, d)
            if op == "-" and right.startswith("-"):  # a negative constant: see `_plus`
                op, right = "+", right[1:]
            return f"({left} {op} {right})"
        if isinstance(expr, ex.IsSome):
            return f"({tr(expr.arg)} != 0)"
        if isinstance(expr, ex.Some):
            inner = expected.inner if isinstance(expected, Option) else self.domain(expr.arg)
            assert inner is not None
            return _plus(tr(expr.arg, inner), 1 - self.codec.offset(inner))
        if isinstance(expr, ex.Unwrap):
            d = self.domain(expr.arg)
            assert isinstance(d, Option)
            return _plus(tr(expr.arg, d), self.codec.offset(d.inner) - 1)
        if isinstance(expr, ex.SetOp):
            return self._set_test(expr)  # member and size: the scalar set operations
        if isinstance(expr, ex.SeqOp | ex.At):
            d = expected or self.domain(expr)
            assert d is not None
            (only,) = self._part(expr, d)
            return only
        if isinstance(
            expr, ex.StepIs | ex.Enabled | ex.Bound | ex.Quant | ex.Update | ex.FuncLit
        ):  # unrolled, folded, or data (`slots`)
            raise PromelaError(f"no Promela form for {type(expr).__name__}")
        assert_never(expr)

    def _set_test(self, expr: ex.SetOp) -> str:
        d = self.domain(expr.set)
        assert isinstance(d, Set)
        bits = self.slots(expr.set, d)
        if expr.op == "size":
            return "(" + " + ".join(bits) + ")"
        assert expr.item is not None
        hits = self._hits(expr.item, d.element, _elements(d))
        return "(" + " || ".join(f"({h} && {b})" for h, b in zip(hits, bits, strict=True)) + ")"

    def _hits(self, key: Expr, d: Domain, values: Sequence[Value]) -> list[str]:
        """Per value: the Promela test that `key` is it ("1"/"0" for a constant key)."""
        if isinstance(key, ex.Const):
            return ["1" if v == key.value else "0" for v in values]
        code = self(key, d)
        return [f"{code} == {self.codec.encode(d, v)}" for v in values]

    def slots(self, expr: Expr, d: Domain) -> list[str]:
        """A value of domain `d` as Promela expressions, one per slot (one for a scalar)."""
        codec = self.codec
        if not is_data(d):
            return [self(expr, d)]
        if isinstance(expr, ex.Const):
            return [str(c) for c in codec.slots(d, expr.value)]
        if isinstance(expr, ex.Ref):
            base = self.name(expr.scope, expr.name)
            return [f"{base}[{k}]" for k in range(codec.width(d))]
        if isinstance(expr, ex.Ite):
            cond = self(expr.cond, Bool())
            pairs = zip(self.slots(expr.then, d), self.slots(expr.other, d), strict=True)
            return [f"({cond} -> {a} : {b})" for a, b in pairs]
        if isinstance(expr, ex.FuncLit):
            return [x for item in expr.items for x in self.slots(item, expr.domain.value)]
        if isinstance(expr, ex.Update):
            assert isinstance(d, Func)
            w = codec.width(d.value)
            old = self.slots(expr.func, d)
            new = self.slots(expr.value, d.value)
            hits = self._hits(expr.key, d.index, d.keys)
            out: list[str] = []
            for j, hit in enumerate(hits):
                part = old[j * w : (j + 1) * w]
                out += (
                    part
                    if hit == "0"
                    else new
                    if hit == "1"
                    else [f"({hit} -> {a} : {b})" for a, b in zip(new, part, strict=True)]
                )
            return out
        if isinstance(expr, ex.SetOp):
            assert isinstance(d, Set) and expr.item is not None
            bits = self.slots(expr.set, d)
            hits = self._hits(expr.item, d.element, _elements(d))
            if expr.op == "add":
                return [
                    b if h == "0" else "1" if h == "1" else f"({b} || {h})"
                    for h, b in zip(hits, bits, strict=True)
                ]
            return [
                b if h == "0" else "0" if h == "1" else f"({b} && !({h}))"
                for h, b in zip(hits, bits, strict=True)
            ]
        if isinstance(expr, ex.SeqOp) and expr.op in ("append", "tail"):
            assert isinstance(d, Seq)
            w = codec.width(d.element)
            old = self.slots(expr.seq, d)
            n, parts = old[0], [old[1 + k * w : 1 + (k + 1) * w] for k in range(d.max_len)]
            if expr.op == "tail":
                shifted = [*parts[1:], ["0"] * w]
                return [f"({n} - 1)", *[x for p in shifted for x in p]]
            assert expr.arg is not None
            item = self.slots(expr.arg, d.element)
            grown = [
                [f"({n} == {k} -> {a} : {b})" for a, b in zip(item, p, strict=True)]
                for k, p in enumerate(parts)
            ]
            return [f"({n} + 1)", *[x for p in grown for x in p]]
        if isinstance(expr, ex.SeqOp | ex.At):
            return self._part(expr, d)
        raise PromelaError(f"no Promela form for {type(expr).__name__} of {d.describe()}")

    def _part(self, expr: ex.SeqOp | ex.At, d: Domain) -> list[str]:
        """The slots of one element of a sequence or value of a function."""
        codec = self.codec
        w = codec.width(d)
        if isinstance(expr, ex.At):
            fd = self.domain(expr.func)
            assert isinstance(fd, Func)
            whole = self.slots(expr.func, fd)
            parts = [whole[k * w : (k + 1) * w] for k in range(len(fd.keys))]
            hits = self._hits(expr.key, fd.index, fd.keys)
        else:
            sd = self.domain(expr.seq)
            assert isinstance(sd, Seq)
            whole = self.slots(expr.seq, sd)
            if expr.op == "len":
                return [whole[0]]
            parts = [whole[1 + k * w : 1 + (k + 1) * w] for k in range(sd.max_len)]
            if expr.op == "head":
                return parts[0]
            assert expr.arg is not None
            positions = IntRange(-(2**31), 2**31)
            hits = self._hits(expr.arg, positions, list(range(1, sd.max_len + 1)))
        if "1" in hits:
            return parts[hits.index("1")]
        live = [(h, p) for h, p in zip(hits, parts, strict=True) if h != "0"]
        if not live:
            return ["0"] * w
        picked = live[-1][1]
        for h, p in reversed(live[:-1]):
            picked = [f"({h} -> {a} : {b})" for a, b in zip(p, picked, strict=True)]
        return picked


def _plus(code: str, k: int) -> str:
    """`code + k`, never `code - -k`: SPIN's LTL parser refuses a minus before a negative
    number, which the unwrap of an option of a range from 2 up wrote into `_ltl`'s formula."""
    return f"({code} + {k})" if k >= 0 else f"({code} - {-k})"


# ---------------------------------------------------------------- export


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _updates(spec: Spec, r: Row) -> dict[str, Expr]:
    """What a row assigns: its updates and, when it moves, the control variable."""
    assigned = dict(r.updates)
    if r.target is not None and spec.control is not None:
        assigned[spec.control] = ex.Const(r.target)
    return assigned


def _step(spec: Spec, r: Row) -> _Step:
    return _Step(r.name, r.trigger, spec.group_of(r.trigger))


def _fired_arg(param: str) -> str:
    """The global holding the last step's `param`, for a fairness constraint per value."""
    return f"fa_{_ident(param)}"


def _arg(spec: Spec, trigger: str, param: str) -> str:
    """A trigger's argument as a global: numbered by trigger, so `a_b`'s `c` and `a`'s `b_c`
    stay apart."""
    number = [t.name for t in spec.triggers].index(trigger)
    return f"a{number}_{_ident(param)}"


def _cells(codec: Codec, prefix: str, v: Var) -> list[str]:
    """The Promela names of a variable's slots: `v_x`, or `v_x[0]`, `v_x[1]`, ... for data."""
    if not is_data(v.domain):
        return [f"{prefix}{v.name}"]
    return [f"{prefix}{v.name}[{k}]" for k in range(codec.width(v.domain))]


def export(spec: Spec, *, terminal_loop: bool = False, live: Liveness | None = None) -> Export:
    """The spec as a Promela model (see the module docstring for its shape).

    `terminal_loop` adds a step that a terminal state may always take (changing nothing),
    so a pan search for invalid end states reports only real deadlocks. `live` exports one
    liveness property instead, as a `never` claim when its fairness is all weak (`_never`)
    and else as an `ltl` formula (`_ltl`): a global `fired` records the
    trigger whose non-ignore row the last step took, and an explicit stutter step lets a run
    stop anywhere, as the kernel's semantics allows; run it with the no-property selector."""
    if live is not None:
        terminal_loop = True  # pick only answered arguments: no run blocks inside a pick
    codec = Codec(spec)
    for name, domain in [(o.name, o.domain) for o in spec.outputs] + [
        (p.name, p.domain) for t in spec.triggers for p in t.params
    ]:
        if is_data(domain):
            raise PromelaError(f"{name!r}: a data output or parameter has no Promela form")
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
        if isinstance(bad, ex.Const) and not bad.value:
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
    trigger_codes = {t.name: k for k, t in enumerate(spec.triggers, start=1)}
    # The parameters a fairness constraint is per value of (`each`): the last step's value.
    each = {} if live is None else {f.param: f for f in spec.fair_cases(live) if f.param}
    if live is not None:
        out.append("byte fired;  /* the trigger (1-based) whose non-ignore row last fired, or 0 */")
        for name, f in each.items():
            domain = next(q.domain for q in spec.trigger(min(f.triggers)).params if q.name == name)
            out.append(f"{codec.ctype(domain)} {_fired_arg(name)};  /* its {name} */")
    for v in spec.vars:
        if is_data(v.domain):
            width = codec.width(v.domain)
            out.append(f"{codec.ctype(v.domain)} v_{v.name}[{width}];  /* {v.domain.name} */")
            continue
        codes = ", ".join(
            f"{v.domain.label(x)}={codec.encode(v.domain, x)}" for x in v.domain.sample()[:12]
        )
        out.append(f"{codec.ctype(v.domain)} v_{v.name};  /* {codes} */")
    out.append(
        "/* per-step scratch, back to 0 at the end of every step: it never splits a state */"
    )
    out += [
        f"{codec.ctype(v.domain)} p_{v.name}"
        + (f"[{codec.width(v.domain)}]" if is_data(v.domain) else "")
        + f";  /* {v.name} before the step */"
        for v in updated
    ]
    out += [f"{codec.ctype(o.domain)} o_{o.name};  /* output {o.name} */" for o in spec.outputs]
    for t in spec.triggers:
        out += [f"{codec.ctype(p.domain)} {_arg(spec, t.name, p.name)};" for p in t.params]
    for k, p in enumerate(props, start=1):
        out.append(f"/* property {k}: {p.kind} {p.name} ({p.cite}) */")

    cells = [c for v in spec.vars for c in _cells(codec, "v_", v)]
    state_fmt = " %d" * len(cells)
    state_args = "".join(f", {c}" for c in cells)
    out_fmt = " %d" * len(spec.outputs)
    out_args = "".join(f", o_{o.name}" for o in spec.outputs)
    select = f'c_code {{ char *s = getenv("{PROPERTY_ENV}"); now.sel = s ? atoi(s) : 0; }}'

    at_state = translator(None, ())
    state_checks = [line for k, p in state_props for line in check(k, _fold(p.bad, None), at_state)]

    out += ["", f"active proctype {_ident(spec.name)}() {{", "do"]
    for initial in spec.initial_states():
        body = ["!go", select, "go = 1"]
        body += [
            f"{cell} = {code}"
            for v in spec.vars
            for cell, code in zip(
                _cells(codec, "v_", v), codec.slots(v.domain, initial[v.name]), strict=True
            )
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
        if t.params and terminal_loop:
            # Only arguments some row answers are picked: a pick that no row answers would
            # block inside the atomic step, which pan would report as an invalid end state.
            enabling = ex.Or(tuple(spec.step_guard(r) for r in own))
            picks = []
            for combo in spec.param_assignments(t.name):
                test = translator(t.name, ())(_fold(bind(enabling, combo), None), Bool())
                if test == "0":
                    continue
                sets = "; ".join(
                    f"{_arg(spec, t.name, p.name)} = {codec.encode(p.domain, combo[p.name])}"
                    for p in t.params
                )
                picks.append((test, sets))
            some = " || ".join(test for test, _ in picks) or "0"
            out.append(f":: atomic {{ go && ({some});")
            # No argument answered: the option never starts, but SPIN refuses an empty `if`.
            options = " ".join(f":: {test} -> {sets}" for test, sets in picks) or ":: skip"
            out.append(f"     if {options} fi;")
            out.append("     d_step { (" + " || ".join(guards) + ") ->")
        elif t.params:
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
            body = [
                f"{p} = {v}"
                for n in updates
                for p, v in zip(
                    _cells(codec, "p_", spec.var(n)), _cells(codec, "v_", spec.var(n)), strict=True
                )
            ]
            for o in spec.outputs:
                value = (
                    _fold(r.outputs[o.name], _step(spec, r))
                    if o.name in r.outputs
                    else ex.Const(o.default)
                )
                body.append(f"o_{o.name} = {tr(value, o.domain)}")
            for n, e in updates.items():
                domain = spec.var(n).domain
                new = tr.slots(_fold(e, _step(spec, r)), domain)
                adds = any(isinstance(x, ex.Add) for x in walk(e))
                for cell, code, (lo, hi) in zip(
                    _cells(codec, "v_", spec.var(n)), new, codec.slot_ranges(domain), strict=True
                ):
                    if adds:
                        # A sum can leave the range, which the oracle refuses and a byte would
                        # wrap: assert it (always, whatever `sel` is) before the assignment.
                        body.append(f"assert({lo} <= {code} && {code} <= {hi})")
                    body.append(f"{cell} = {code}")
            fmt = f"@step {len(rows)}{' %d' * len(args)} |{state_fmt} |{out_fmt}\\n"
            body.append(f'printf("{fmt}"{"".join(", " + a for a in args)}{state_args}{out_args})')
            if live is not None:
                body.append(f"fired = {0 if r.ignore else trigger_codes[t.name]}")
                body += [
                    f"{_fired_arg(p.name)} = {_arg(spec, t.name, p.name)}"
                    for p in t.params
                    if p.name in each
                ]
            for k, p in step_props:
                body += check(k, _fold(p.bad, _step(spec, r)), tr)
            out.append(f"     /* row {len(rows)}: {r.name} ({r.cite}) */")
            out.append(f"     :: {guard} ->\n          " + ";\n          ".join(body))
            rows.append(r)
        out.append("     fi;")
        tail = state_checks + [
            f"{cell} = 0" for n in sorted(scratch) for cell in _cells(codec, "p_", spec.var(n))
        ]
        tail += [f"o_{o.name} = 0" for o in spec.outputs] + [f"{a} = 0" for a in args]
        out.append("     " + ";\n     ".join(tail or ["skip"]))
        out.append("  } }" if t.params else "  }")
    if terminal_loop and spec.terminal is not None:
        terminal = translator(None, ())(_fold(spec.terminal, None), Bool())
        out.append(
            f"/* a terminal state is no deadlock */\n:: d_step {{ go && {terminal} -> skip }}"
        )
    if live is not None:
        out.append("/* stuttering: a run may stop anywhere */\n:: d_step { go -> fired = 0 }")
    out += ["od", "}", ""]
    if live is not None:
        at_state = translator(None, ())
        if all(f.kind == "weak" for f in spec.fair_cases(live)):
            out += [_never(spec, live, at_state, trigger_codes), ""]
        else:
            out += [_ltl(spec, live, at_state, trigger_codes), ""]
    return Export(spec, "\n".join(out), props, tuple(rows), codec)


def _fairness(
    spec: Spec, live: Liveness, tr: _Translator, codes: Mapping[str, int]
) -> list[tuple[str, str, str]]:
    """Per fairness case (kind, enabled, taken), as Promela expressions over the state."""
    cases: list[tuple[str, str, str]] = []
    for f in spec.fair_cases(live):
        triggers = sorted(f.triggers, key=codes.__getitem__)
        if f.param is None:
            enabled = tr(_fold(spec.expand(ex.Enabled(tuple(triggers))), None), Bool())
            taken = " || ".join(f"fired == {codes[t]}" for t in triggers)
        else:
            on = [
                bind(guard, {**others, f.param: f.value})
                for t in triggers
                for r in spec.rows_of(t)
                if not r.ignore
                for guard in (spec.step_guard(r),)
                for others in all_assignments(
                    [(q.name, q.domain) for q in spec.trigger(t).params if q.name != f.param]
                )
            ]
            enabled = tr(_fold(ex.Or(tuple(on)) if on else ex.FALSE, None), Bool())
            domain = next(q.domain for q in spec.trigger(triggers[0]).params if q.name == f.param)
            value = tr.codec.encode(domain, f.value)
            taken = " || ".join(
                f"(fired == {codes[t]} && {_fired_arg(f.param)} == {value})" for t in triggers
            )
        cases.append((f.kind, enabled, taken))
    return cases


def _never(spec: Spec, live: Liveness, tr: _Translator, codes: Mapping[str, int]) -> str:
    """The negated property as a hand-built never claim, when all its fairness is weak.

    SPIN's LTL translation grows exponentially with the number of `[]<>` assumptions (five
    philosophers' weak fairness does not translate in ten minutes), while the negation is
    a plain generalized Büchi automaton: a run that enters the region where the goal never
    comes (`eventually p`: from the first state; `p leads_to q`: at a p state without q;
    `infinitely_often p`: anywhere) and stays in it, passing each weak constraint's
    `!enabled || taken` in turn, again and again. States S0..S(k-1) wait for constraint j;
    completing the round enters `accept_round`, so an acceptance cycle is a fair run in the
    region: the same language as `_ltl`'s negation."""

    def state(expr: Expr) -> str:
        return f"(go && ({tr(_fold(expr, None), Bool())}))"

    weak = [
        f"(!({enabled}) || ({taken}))" for _, enabled, taken in _fairness(spec, live, tr, codes)
    ]
    if live.kind is LiveKind.LEADS_TO:
        assert live.then is not None
        stay = f"!{state(live.then)}"
        entry = f"({state(live.pred)} && {stay})"
    else:
        stay = f"!{state(live.pred)}"
        entry = stay
    k = len(weak)
    out = [f"never {{  /* not {live.kind} {live.name}, under weak fairness */"]
    if live.kind is not LiveKind.EVENTUALLY:
        out += [
            "T_before:",
            "  do",
            "  :: (1) -> goto T_before",
            f"  :: {entry} -> goto {'S0' if k else 'accept_round'}",
            "  od;",
        ]
    for j in range(k):
        done = "accept_round" if j == k - 1 else f"S{j + 1}"
        out += [f"S{j}:", "  do", f"  :: ({stay} && {weak[j]}) -> goto {done}"]
        out += [f"  :: {stay} -> goto S{j}", "  od;"]
    first = "S1" if k > 1 else "accept_round"
    out += ["accept_round:", "  do"]
    out += [f"  :: ({stay} && {weak[0]}) -> goto {first}"] if k else []
    out += [f"  :: {stay} -> goto {'S0' if k else 'accept_round'}", "  od;", "}"]
    return "\n".join(out)


def _ltl(spec: Spec, live: Liveness, tr: _Translator, codes: Mapping[str, int]) -> str:
    """The property as LTL over states, its fairness as assumptions (TLA+'s WF and SF):
    weak(f) is `[]<>(!enabled_f || taken_f)`, strong(f) is `<>[]!enabled_f || []<>taken_f`.
    SPIN's own `-f` is weak fairness among processes; this model is one process, so it says
    nothing about triggers: fairness has to be part of the formula. `go &&` keeps the setup
    state (before an initial state is picked) out of the predicates."""

    def state(expr: Expr) -> str:
        return f"(go && ({tr(_fold(expr, None), Bool())}))"

    assumptions: list[str] = []
    for kind, enabled, taken in _fairness(spec, live, tr, codes):
        if kind == "weak":
            assumptions.append(f"([]<> (!({enabled}) || ({taken})))")
        else:
            assumptions.append(f"((<>[] !({enabled})) || ([]<> ({taken})))")
    p = state(live.pred)
    if live.kind is LiveKind.EVENTUALLY:
        goal = f"<> {p}"
    elif live.kind is LiveKind.INFINITELY_OFTEN:
        goal = f"[]<> {p}"
    else:
        assert live.then is not None
        goal = f"[] ({p} -> <> {state(live.then)})"
    formula = f"({' && '.join(assumptions)}) -> ({goal})" if assumptions else goal
    return f"ltl {_ident(live.name)} {{ {formula} }}"
