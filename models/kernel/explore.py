"""The explicit-state explorer: breadth-first search over compiled rows.

Each spec's rows are compiled once into straight-line Python over compact
states: each state packed into one int (a bit field per variable, a value's
code being its index in its domain, or its offset from an integer range's
`lo`; a real's values are the spec's samples), or a plain tuple of values
when some value falls outside that layout or a data variable (a sequence,
function or set) has too many values to number. Per trigger the code loops over
the parameter assignments, or has one block per firing with the parameters as
constants (`_Block`: a search switches to that after its first states where it
pays), and tests the trigger's rows in spec order; the first enabled row builds
the successor, exactly as the `transitions` Machine in `oracle.py` fires the
first transition whose conditions hold (a test cross-checks the two on every
spec and variant). Constant subterms are folded before the code is generated;
a packed variable compared with constants is tested on its bits, and a state
decodes only the variables its code reads.

The search keeps, per state, its depth and its BFS parent (the source state
and which firing and row led there), so every path it returns is a shortest
one. Edges are not stored: they are regenerated on demand from the compiled
successor function, in BFS order, for the checks that need them (step
properties, rows-fire, diagrams, conformance replays), unless the search is
asked to keep them (`keep_moves`: the liveness checks read every edge several
times). Real variables are drawn from their declared samples.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import time
from array import array
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from types import FunctionType
from types import MappingProxyType
from typing import Any
from typing import assert_never
from typing import overload

from . import expr as ex
from .domains import Bool
from .domains import Domain
from .domains import Func
from .domains import FuncValue
from .domains import IntRange
from .domains import Option
from .domains import Real
from .domains import Value
from .domains import all_assignments
from .domains import count
from .domains import is_data
from .expr import Env
from .expr import Expr
from .expr import ExprTypeError
from .expr import evaluate
from .expr import node
from .expr import unroll
from .expr import walk
from .oracle import OracleError
from .spec import Param
from .spec import Row
from .spec import Spec
from .spec import bind
from .trace import Step
from .trace import Trace

State = tuple[Value, ...]
Key = Any  # a state as the explorer stores it: a packed int, or the tuple itself

DEFAULT_MAX_STATES = 2_000_000


class ExplorationLimit(RuntimeError):
    """The spec has more reachable states than the explorer was allowed to visit."""


@dataclass(frozen=True)
class Edge:
    source: int
    row: str
    trigger: str
    params: Mapping[str, Value]
    target: int
    outputs: Mapping[str, Value]


# ---------------------------------------------------------------- expression rewriting


def _map(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """`e` with `f` applied to each direct child expression (`e` itself if none changes)."""
    fields = vars(e)
    changes: dict[str, Any] = {}
    for name, value in fields.items():
        if isinstance(value, Expr):
            new = f(value)
            if new is not value:
                changes[name] = new
        elif isinstance(value, tuple) and value and all(isinstance(x, Expr) for x in value):
            items = tuple(f(x) for x in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = items
    return type(e)(**{**fields, **changes}) if changes else e


def _fold(e: Expr) -> Expr:
    """Unroll quantifiers, evaluate closed subterms, simplify connectives with constant
    arguments."""
    return _Folding().fold(unroll(e))


class _Folding:
    """One folding pass. It remembers its results (by identity, holding them) so that a
    subterm is folded once even when a simplification rebuilds the terms around it."""

    def __init__(self) -> None:
        self.done: dict[int, tuple[Expr, Expr]] = {}

    def fold(self, e: Expr) -> Expr:
        hit = self.done.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = _fold_node(_map(e, self.fold), self.fold)
        self.done[id(e)] = (e, out)
        self.done[id(out)] = (out, out)
        return out


def _fold_node(e: Expr, fold: Callable[[Expr], Expr]) -> Expr:
    """`e`, whose children are folded, folded."""
    e = _given(e, fold)
    if isinstance(e, ex.Const):
        return e
    # Closed: no variable, parameter or step name in it. Its children are folded, so it is
    # closed when they are all constants (a closed child whose evaluation failed is dead).
    if not isinstance(e, ex.Ref | ex.StepIs) and all(isinstance(c, ex.Const) for c in e.children()):
        try:
            return ex.Const(evaluate(e, Env(pre={})))
        except (TypeError, ValueError, ExprTypeError):
            return e  # a dead branch (say, unwrapping None): it is never evaluated at run time
    if isinstance(e, ex.And):
        if any(isinstance(a, ex.Const) and not a.value for a in e.args):
            return ex.Const(False)
        args = tuple(a for a in e.args if not isinstance(a, ex.Const))
        return args[0] if len(args) == 1 else ex.And(args) if args else ex.Const(True)
    if isinstance(e, ex.Or):
        if any(isinstance(a, ex.Const) and a.value for a in e.args):
            return ex.Const(True)
        args = tuple(a for a in e.args if not isinstance(a, ex.Const))
        return args[0] if len(args) == 1 else ex.Or(args) if args else ex.Const(False)
    if isinstance(e, ex.Implies):
        if isinstance(e.premise, ex.Const):
            return e.conclusion if e.premise.value else ex.Const(True)
        # `defined` writes `p => p` and `p /\\ q => p` where a guard short-circuits.
        if isinstance(e.conclusion, ex.Const):
            return e.conclusion if e.conclusion.value else fold(ex.Not(e.premise))
        if all(c in _conjuncts(e.premise) for c in _conjuncts(e.conclusion)):
            return ex.Const(True)
    if isinstance(e, ex.Not) and isinstance(e.arg, ex.Not):
        return e.arg.arg
    if isinstance(e, ex.Ite) and isinstance(e.cond, ex.Const):
        return e.then if e.cond.value else e.other
    return e


def _conjuncts(e: Expr) -> tuple[Expr, ...]:
    return e.args if isinstance(e, ex.And) else (e,)


def _given(e: Expr, fold: Callable[[Expr], Expr]) -> Expr:
    """A connective whose later arguments are read only when the earlier ones have a known
    value (`a and b` reads `b` where `a` holds; `p => q`, `q` where `p` holds), with that
    value put for them in the later ones: `defined` repeats the guard's tests there."""
    if isinstance(e, ex.And) and any(isinstance(a, ex.And) for a in e.args):
        return fold(ex.And(tuple(c for a in e.args for c in _conjuncts(a))))
    if isinstance(e, ex.And):
        for i, a in enumerate(e.args):
            # `(p => q) /\ … /\ p /\ …` (a defined-ness condition before its guard) is
            # `p /\ q /\ …`: p was tested first there too, and q only where p holds.
            if isinstance(a, ex.Implies):
                later, premise = e.args[i + 1 :], _conjuncts(a.premise)
                if all(c in later for c in premise):
                    rest = tuple(c for c in later if c not in premise)
                    return fold(ex.And((*e.args[:i], *premise, a.conclusion, *rest)))
    # (Over a few arguments only: each later one is searched for each earlier fact.)
    if isinstance(e, ex.And | ex.Or) and 1 < len(e.args) <= _GIVEN_UP_TO:
        holds = isinstance(e, ex.And)
        args, facts = [e.args[0]], _facts(e.args[0], holds)
        for a in e.args[1:]:
            args.append(_assume(a, facts))
            facts += _facts(a, holds)
        if all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        return fold(type(e)(tuple(args)))
    if isinstance(e, ex.Implies):
        conclusion = _assume(e.conclusion, _facts(e.premise, True))
        if conclusion is not e.conclusion:
            return fold(ex.Implies(e.premise, conclusion))
    return e


_GIVEN_UP_TO = 8


def _facts(e: Expr, value: bool) -> list[tuple[Expr, bool]]:
    """What `e` having this truth value says of its parts."""
    if isinstance(e, ex.Not):
        return _facts(e.arg, not value)
    if isinstance(e, ex.And) and value or isinstance(e, ex.Or) and not value:
        return [f for a in e.args for f in _facts(a, value)]
    return [(e, value)]


def _assume(e: Expr, facts: list[tuple[Expr, bool]]) -> Expr:
    if isinstance(e, ex.Const):
        return e
    for fact, value in facts:
        if type(fact) is type(e) and fact == e:
            return ex.Const(value)
    return _map(e, lambda c: _assume(c, facts))


# ---------------------------------------------------------------- code generation


def _by_identity(values: Sequence[Any]) -> bool:
    """Is a value equal to one of these only when it is that object? So for None and a plain
    enum's members. Generated code then looks them up by `id`: an enum member's own hash is
    a Python call (`hash(self._name_)`), and id lookups take 30% off adr068's search."""
    return bool(values) and all(
        v is None or (isinstance(v, enum.Enum) and type(v).__eq__ is object.__eq__) for v in values
    )


class _Gen:
    """Python source for expressions over the pre-state locals `v0, v1, …`."""

    def __init__(self, spec: Spec) -> None:
        self.slot = {v.name: i for i, v in enumerate(spec.vars)}
        self.domain = {v.name: v.domain for v in spec.vars}
        self.layout: _Layout | None = None  # set when the state `s` is a packed int
        self.params: dict[str, str] = {}  # the current trigger's parameters, as locals
        self.consts: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}
        # By the id of a function (or a domain): its dict, the object held so its id stays.
        self._tables: dict[int, tuple[object, dict[Value, Any]]] = {}

    def const(self, value: Any) -> str:
        if value is None or type(value) in (bool, int, str):
            return repr(value)
        key = id(value)
        if key not in self._by_id:
            name = f"K{len(self.consts)}"
            self.consts[name] = value
            self._by_id[key] = name
        return self._by_id[key]

    def src(self, e: Expr) -> str:
        e = node(e)
        if isinstance(e, ex.Const):
            return self.const(e.value)
        if isinstance(e, ex.Ref):
            if e.scope == "param" and e.name in self.params:
                return self.params[e.name]
            if e.scope != "pre":
                raise ExprTypeError(f"{e.scope} values are not available here")
            return f"v{self.slot[e.name]}"
        if isinstance(e, ex.Eq):
            for tested, other in ((e.left, e.right), (e.right, e.left)):
                value = node(other)
                if isinstance(value, ex.Const) and (bits := self._bits(tested, (value.value,))):
                    return bits
            return f"({self.src(e.left)} == {self.src(e.right)})"
        if isinstance(e, ex.In):
            if bits := self._bits(e.item, e.options):
                return bits
            if _by_identity(e.options):
                ids = frozenset(id(o) for o in e.options)
                return f"(id({self.src(e.item)}) in {self.const(ids)})"
            try:
                options: Any = frozenset(e.options)
            except TypeError:
                options = tuple(e.options)
            return f"({self.src(e.item)} in {self.const(options)})"
        if isinstance(e, ex.Not):
            return f"(not {self.cond(e.arg)})"
        if isinstance(e, ex.And):
            return self._and(e.args)
        if isinstance(e, ex.Or):
            return "(" + " or ".join(self.cond(a) for a in e.args) + ")" if e.args else "False"
        if isinstance(e, ex.Implies):
            return f"((not {self.cond(e.premise)}) or bool({self.cond(e.conclusion)}))"
        if isinstance(e, ex.Ite):
            return f"({self.src(e.then)} if {self.cond(e.cond)} else {self.src(e.other)})"
        if isinstance(e, ex.Cmp):
            return f"({self.src(e.left)} {e.op} {self.src(e.right)})"
        if isinstance(e, ex.Add):
            return f"({self.src(e.left)} {e.op} {self.src(e.right)})"
        if isinstance(e, ex.IsSome):
            if bits := self._bits(e.arg, (None,)):
                return f"(not {bits})"
            return f"({self.src(e.arg)} is not None)"
        if isinstance(e, ex.Some | ex.Unwrap):
            return self.src(e.arg)
        if isinstance(e, ex.SeqOp):
            seq = self.src(e.seq)
            if e.op == "append":
                assert e.arg is not None
                return f"({seq} + ({self.src(e.arg)},))"
            if e.op == "index":
                assert e.arg is not None
                return f"{seq}[{self.src(e.arg)} - 1]"
            return {"head": f"{seq}[0]", "tail": f"{seq}[1:]", "len": f"len({seq})"}[e.op]
        if isinstance(e, ex.At):
            return self._at(node(e.func), node(e.key))
        if isinstance(e, ex.Update):
            return f"{self.src(e.func)}.set({self.src(e.key)}, {self.src(e.value)})"
        if isinstance(e, ex.FuncLit):
            items = "".join(self.src(i) + ", " for i in e.items)
            return f"_FV({self.const(e.domain.keys)}, ({items}))"
        if isinstance(e, ex.SetOp):
            set_ = self.src(e.set)
            if e.op == "size":
                return f"len({set_})"
            assert e.item is not None
            item = self.src(e.item)
            return {
                "member": f"({item} in {set_})",
                "add": f"({set_} | {{{item}}})",
                "remove": f"({set_} - {{{item}}})",
            }[e.op]
        # A row's, unrolled before this.
        if isinstance(e, ex.StepIs | ex.Enabled | ex.Bound | ex.Quant):
            raise ExprTypeError(f"cannot compile {type(e).__name__} here")
        assert_never(e)

    def cond(self, e: Expr) -> str:
        """A boolean: a boolean variable is a test of its bit, as `_bits`."""
        e = node(e)
        if isinstance(e, ex.Ref) and e.scope == "pre" and isinstance(self.domain[e.name], Bool):
            return self._bits(e, (True,)) or self.src(e)
        return self.src(e)

    def _bits(self, item: Expr, values: Sequence[Value]) -> str | None:
        """Is a packed variable one of these values? A test of its bit field in `s`, so the
        variable need not be decoded. None where that does not apply."""
        found = self._field(item, values)
        if found is None:
            return None
        mask, codes = found
        if len(codes) == 1:
            return f"((s & {mask}) == {min(codes)})"
        return f"((s & {mask}) in {self.const(codes)})" if codes else "False"

    def _single(self, e: Expr) -> tuple[int, int] | None:
        """A test that one packed variable has one value, as (mask, bits) of `s`."""
        e = node(e)
        if isinstance(e, ex.Ref) and e.scope == "pre" and isinstance(self.domain[e.name], Bool):
            found = self._field(e, (True,))
        elif isinstance(e, ex.Eq):
            left, right = node(e.left), node(e.right)
            if isinstance(right, ex.Const):
                found = self._field(left, (right.value,))
            elif isinstance(left, ex.Const):
                found = self._field(right, (left.value,))
            else:
                return None
        else:
            return None
        return (found[0], min(found[1])) if found and len(found[1]) == 1 else None

    def _and(self, args: Sequence[Expr]) -> str:
        """A conjunction; its tests of single packed variables' values merge into one test
        of `s`. They cannot fail, so testing them first only spares the other arguments."""
        mask, bits, rest = 0, 0, []
        for a in args:
            single = self._single(a)
            if single is not None and not single[0] & mask:
                mask, bits = mask | single[0], bits | single[1]
            else:
                rest.append(self.cond(a))
        if len(rest) < len(args) - 1:
            rest.insert(0, f"((s & {mask}) == {bits})")
        else:
            rest = [self.cond(a) for a in args]
        return "(" + " and ".join(rest) + ")" if rest else "True"

    def _field(self, item: Expr, values: Sequence[Value]) -> tuple[int, frozenset[int]] | None:
        """A packed variable's bit mask in `s`, and the bits of these of its values."""
        item = node(item)
        if self.layout is None or not isinstance(item, ex.Ref) or item.scope != "pre":
            return None
        j = self.slot[item.name]
        shift, mask, lo, known, enc = self.layout.fields[j]
        codes = set()
        for x in values:
            if lo is not None:
                if type(x) is not int:
                    return None
                if 0 <= x - lo < len(known):
                    codes.add((x - lo) << shift)
            else:
                try:
                    code = enc.get(x)  # None: outside the domain, never the variable's value
                except TypeError:
                    return None  # unhashable: left to the plain test
                if code is not None:
                    codes.add(code << shift)
        return mask << shift, frozenset(codes)

    def _at(self, func: Expr, key: Expr) -> str:
        """`f[k]` without `FuncValue.__getitem__`'s Python call: a constant function is a
        dict, a variable's value is read from its `vals` at the key's position."""
        if isinstance(func, ex.Const) and isinstance(func.value, FuncValue):
            table = self._table(func.value, lambda f: dict(f.items()))
            return f"{self.const(table)}[{self.src(key)}]"
        domain = self.domain.get(func.name) if isinstance(func, ex.Ref) else None
        if isinstance(func, ex.Ref) and func.scope == "pre" and isinstance(domain, Func):
            where = self._table(domain, lambda d: {k: i for i, k in enumerate(d.keys)})
            if isinstance(key, ex.Const) and key.value in where:
                return f"{self.src(func)}.vals[{where[key.value]}]"
            return f"{self.src(func)}.vals[{self.const(where)}[{self.src(key)}]]"
        return f"{self.src(func)}[{self.src(key)}]"

    def _table(self, of: Any, make: Callable[[Any], dict[Value, Any]]) -> dict[Value, Any]:
        if id(of) not in self._tables:
            self._tables[id(of)] = (of, make(of))
        table = self._tables[id(of)][1]
        assert isinstance(table, dict)
        return table


@dataclass(frozen=True)
class _Firing:
    trigger: str
    params: Mapping[str, Value]


@dataclass(frozen=True)
class _Case:
    """One row of a trigger, as code: its guard, the checks and locals its updates need,
    and its successor tuple (None when the row changes nothing)."""

    row: int
    guard: str
    checks: tuple[str, ...]
    succ: str | None


@dataclass(frozen=True)
class _Block:
    """Firings the code handles alike: one firing, its parameters substituted as constants
    (`bound`) so its rows fold per firing, or a loop over a table of firings with the
    parameters as locals `p0, p1, …` (`looped`)."""

    firings: tuple[tuple[int, tuple[Value, ...]], ...]  # (firing number, parameter values)
    looped: bool
    params: Mapping[str, str]  # the parameters' locals, when looped
    bound: Mapping[str, Value]
    cases: tuple[_Case, ...] = ()

    def fold(self, e: Expr) -> Expr:
        return _fold(bind(e, self.bound) if self.bound else e)

    @property
    def k(self) -> str:
        """The firing number in the generated code: the loop's local, or a literal."""
        return "k" if self.looped else str(self.firings[0][0])


# Parameters become constants per firing while a generated function holds at most this
# many (firing, row) pairs; past it, a trigger loops over its parameter table. Measured:
# specialising costs 0.1-1 ms of folding and compiling a pair (admission's 13,878 pairs
# would take seconds); it saves 30 µs a state where the loop's lookups keyed by parameter
# values call a Python `__hash__` (policy-concrete: 87 -> 16 ms of search) and about
# nothing where they are ints or strings (ReadersWriters, SingleLaneBridge), so only
# the former are specialised. A search starts with the loops, cheap to build, and
# switches once it has expanded `_SPECIALISE_AFTER` states, about where that pays.
_SPECIALISE_UP_TO = 512
_SPECIALISE_AFTER = 1024


def _switch_pays(unrolled: int, firings: int) -> bool:
    """Is a second, specialised build worth it when it unrolls this many of the firings?
    For most of them (measured: adr068's 6 of 20 cost more to build again than they
    save; policy-concrete's 32 of 34 take 30% off its search)."""
    return unrolled > 0 and 2 * unrolled >= firings


def _specialise(values: list[tuple[Value, ...]], rows: int, budget: list[int]) -> bool:
    """Specialise a trigger with these parameter tuples and rows? If so its pairs are spent
    from `budget`."""
    cost = len(values) * rows
    if cost <= budget[0] and any(map(_hashed_in_python, values)):
        budget[0] -= cost
        return True
    return False


def _hashed_in_python(value: Any) -> bool:
    """Does hashing this value run Python code (a dataclass's or an enum's `__hash__`)?"""
    if isinstance(value, tuple | frozenset):
        return any(map(_hashed_in_python, value))
    return isinstance(type(value).__hash__, FunctionType)


_UNPACK = "#unpack"


class _NoPacking(Exception):
    """A value the packed layout has no code for: explore with plain tuples instead."""


class _Layout:
    """Integer packing: each variable's value is a code (its index in the domain, or its
    offset from an integer range's `lo`) in a bit field of its own. A packed state hashes
    and compares as one int, the cheapest dict key Python has."""

    def __init__(self, spec: Spec) -> None:
        reals = sorted({x for d in _domains(spec) if isinstance(d, Real) for x in d.samples})
        self.fields: list[tuple[int, int, int | None, tuple[Value, ...], dict[Value, int]]] = []
        self.by_id: list[dict[int, int] | None] = []
        shift = 0
        for v in spec.vars:
            domain = v.domain
            inner = domain.inner if isinstance(domain, Option) else domain
            lo = domain.lo if isinstance(domain, IntRange) else None
            if is_data(domain) and not _few(domain):
                raise _NoPacking(v.name)  # too many values to number: plain tuples
            values = domain.values
            if values is None:  # a real: the explorer only ever meets the spec's samples
                values = (None, *reals) if isinstance(domain, Option) else tuple(reals)
                if isinstance(inner, Real):
                    values = (*values, *(x for x in v.inits if x not in values))
            enc = {x: i for i, x in enumerate(values)} if lo is None else {}
            width = max(1, (len(values) - 1).bit_length())
            self.fields.append((shift, (1 << width) - 1, lo, tuple(values), enc))
            # The generated code encodes a plain enum's member by its id (`_by_identity`).
            by_id = lo is None and _by_identity(values)
            self.by_id.append({id(x): i for x, i in enc.items()} if by_id else None)
            shift += width

    def same_codes(self, j: int, other: int) -> bool:
        """Do two variables code their values alike (so a copy moves the bits)?"""
        return self.fields[j][1:4] == self.fields[other][1:4]

    def code(self, j: int, value: Value) -> int:
        _, _, lo, values, enc = self.fields[j]
        try:
            code: int = value - lo if lo is not None else enc[value]
        except (KeyError, TypeError):
            raise _NoPacking(value) from None
        if not 0 <= code < len(values):  # an integer outside its range: it has no code
            raise _NoPacking(value)
        return code

    def pack(self, state: State) -> int:
        return sum(
            self.code(j, x) << f[0] for j, (x, f) in enumerate(zip(state, self.fields, strict=True))
        )

    def unpack(self, key: int) -> State:
        return tuple(
            ((key >> sh) & mask) + lo if lo is not None else values[(key >> sh) & mask]
            for sh, mask, lo, values, _ in self.fields
        )


# A data variable (sequence, function, set) is packed by the index of its value, so its
# values are listed up front: only when there are few of them.
_PACK_DATA_UP_TO = 1 << 16


def _few(domain: Domain) -> bool:
    return (count(domain) or 0) <= _PACK_DATA_UP_TO


def _domains(spec: Spec) -> list[Domain]:
    found: list[Domain] = [v.domain for v in spec.vars]
    found += [p.domain for t in spec.triggers for p in t.params]
    return found + [d.inner for d in found if isinstance(d, Option)]


def _may_leave(domain: Domain, packed: bool) -> bool:
    """Must an update be checked against the variable's domain? An integer range's: the
    spec's type check knows integers, not their ranges, so arithmetic, a copy of a wider
    range or a parameter's value may leave it (and a packed one would overflow its bit
    field). An optional one too, unless packed: a value outside has no code there, and
    the search falls back to tuples, where it is checked. Nothing else can leave."""
    return isinstance(domain, IntRange) or (
        not packed and isinstance(domain, Option) and isinstance(domain.inner, IntRange)
    )


class _Compiled:
    """One spec's rows as generated functions over packed states (or tuples, when some
    variable's values are not known up front).

    Per firing (or per trigger, looping over its parameter assignments: `_Block`), the
    code tests the trigger's rows in spec order; the first enabled row fires.
    """

    def __init__(
        self,
        spec: Spec,
        *,
        packed: bool = True,
        specialise: bool = True,
        reuse: _Compiled | None = None,
    ) -> None:
        """`reuse`: a build of the same spec and packing whose folded rows and whose blocks
        that come out the same here are taken over, not made again."""
        self.spec = spec
        # Packed when every variable's values are known up front (reals: their samples).
        self.layout: _Layout | None = reuse.layout if reuse else _Layout(spec) if packed else None
        self.rows: list[Row] = list(spec.rows)
        self.row_index = {r.name: i for i, r in enumerate(self.rows)}
        self.firings: list[_Firing] = []
        self.gen: _Gen = reuse.gen if reuse else _Gen(spec)
        self.gen.layout = self.layout
        self._rows_folded: dict[str, tuple[Expr, dict[str, Expr]]] = (
            reuse._rows_folded if reuse else {}
        )
        self.blocks: list[_Block] = []
        self._of_trigger: dict[str, list[_Block]] = {}
        self.budget = _SPECIALISE_UP_TO if specialise else 0
        budget, unspent = [self.budget], [_SPECIALISE_UP_TO]
        # How many firings a specialised build would take out of this one's loops.
        unrolled = 0
        for t in spec.triggers:
            assignments = spec.param_assignments(t.name)
            base = len(self.firings)
            self.firings += [_Firing(t.name, MappingProxyType(a)) for a in assignments]
            rows = spec.rows_of(t.name)
            values = [tuple(a[p.name] for p in t.params) for a in assignments]
            if t.params and not specialise and _specialise(values, len(rows), unspent):
                unrolled += len(values)
            blocks = self._blocks(t.params, assignments, values, base, len(rows), budget)
            old = reuse._of_trigger[t.name] if reuse else []
            if [(b.firings, b.looped) for b in old] != [(b.firings, b.looped) for b in blocks]:
                old = [dataclasses.replace(b, cases=self._cases(rows, b)) for b in blocks]
            self._of_trigger[t.name] = old
            self.blocks += old
        self.specialisable = _switch_pays(unrolled, len(self.firings))

    @functools.cached_property
    def successors(self) -> Callable[[Key], list[tuple[int, int, Key]]]:
        return self._build_succ()

    @classmethod
    def of(cls, spec: Spec, *, specialise: bool = True) -> _Compiled:
        try:
            return cls(spec, specialise=specialise)
        except _NoPacking:
            return cls(spec, packed=False, specialise=specialise)

    def key(self, state: State) -> Key:
        return state if self.layout is None else self.layout.pack(state)

    def state(self, key: Key) -> State:
        return key if self.layout is None else self.layout.unpack(key)

    def _blocks(
        self,
        params: Sequence[Param],
        assignments: list[dict[str, Value]],
        values: list[tuple[Value, ...]],
        base: int,
        rows: int,
        budget: list[int],
    ) -> list[_Block]:
        """The blocks for one trigger's firings `base, base + 1, …`: one per assignment
        while `rows` cases each fit in what is left of `budget` (spent here) and the
        parameters' values (`values`, per assignment) hash in Python, else a loop."""
        firings = [(base + j, v) for j, v in enumerate(values)]
        if not params or _specialise(values, rows, budget):
            return [_Block((f,), False, {}, a) for f, a in zip(firings, assignments, strict=True)]
        names = {p.name: f"p{j}" for j, p in enumerate(params)}
        return [_Block(tuple(firings), True, names, {})]

    def _cases(self, rows: Sequence[Row], block: _Block) -> tuple[_Case, ...]:
        spec, gen = self.spec, self.gen
        gen.params = dict(block.params)
        out = []
        earlier: list[Expr] = []  # the guards before this one, false where it is tested
        for r in rows:
            ri = self.row_index[r.name]
            general, updates = self._folded(r)
            guard = block.fold(general)
            if isinstance(guard, ex.Const) and not guard.value:
                continue
            if isinstance(guard, ex.Not) and guard.arg in earlier:
                guard = ex.Const(True)  # an ignore row's negated guard: it is the `else`
            earlier.append(guard)
            checks: list[str] = []
            # ("same", None), ("const", value), ("copy", slot), ("code", src), ("expr", src)
            slots: list[tuple[str, Any]] = []
            for j, v in enumerate(spec.vars):
                if v.name == spec.control and r.target is not None:
                    slots.append(("const", r.target))
                    continue
                if v.name not in r.updates:
                    slots.append(("same", None))
                    continue
                upd = block.fold(updates[v.name])
                if isinstance(upd, ex.Ref) and upd.scope == "pre" and upd.name == v.name:
                    slots.append(("same", None))
                    continue
                if (
                    isinstance(upd, ex.Ref)
                    and upd.scope == "pre"
                    and self.layout is not None
                    and self.layout.same_codes(j, gen.slot[upd.name])
                ):
                    slots.append(("copy", gen.slot[upd.name]))  # its bit field, moved
                    continue
                if isinstance(upd, ex.Const):
                    if not v.domain.contains(upd.value):
                        checks.append(f"_bad({ri}, {j}, {gen.const(upd.value)})")
                    slots.append(("const", upd.value))
                    continue
                if self.layout is not None and (code := self._update_code(j, upd)):
                    slots.append(("code", code))
                    continue
                if not _may_leave(v.domain, self.layout is not None):
                    slots.append(("expr", gen.src(upd)))
                    continue
                tmp = f"u{j}"
                checks.append(f"{tmp} = {gen.src(upd)}")
                if isinstance(v.domain, IntRange):
                    lo, hi = v.domain.lo, v.domain.hi
                    checks.append(f"if not ({lo} <= {tmp} <= {hi}): _bad({ri}, {j}, {tmp})")
                else:
                    domain = gen.const(v.domain)
                    checks.append(f"if not {domain}.contains({tmp}): _bad({ri}, {j}, {tmp})")
                slots.append(("expr", tmp))
            succ = self._successor(slots)
            out.append(_Case(ri, gen.cond(guard), tuple(checks), succ))
            if isinstance(guard, ex.Const):
                break  # always enabled: later rows of this trigger never fire
        return tuple(out)

    def _folded(self, r: Row) -> tuple[Expr, dict[str, Expr]]:
        """The row's guard and updates folded once, for all its firings (`_Block.fold`
        folds them again with the firing's parameters)."""
        if r.name not in self._rows_folded:
            updates = {name: _fold(e) for name, e in r.updates.items()}
            self._rows_folded[r.name] = (_fold(self.spec.step_guard(r)), updates)
        return self._rows_folded[r.name]

    def _update_code(self, j: int, upd: Expr) -> str | None:
        """A function variable's `update(f, k, x)` of its own value, as the code of the new
        value found by its `vals` (no `FuncValue` made, no Python `__eq__` to find it)."""
        gen, domain, layout = self.gen, self.spec.vars[j].domain, self.layout
        if not (isinstance(upd, ex.Update) and isinstance(domain, Func) and layout is not None):
            return None
        if node(upd.func) != ex.Ref("pre", self.spec.vars[j].name):
            return None
        values = layout.fields[j][3]
        codes = gen._table(values, lambda vs: {f.vals: c for c, f in enumerate(vs)})
        where = gen._table(domain, lambda d: {k: i for i, k in enumerate(d.keys)})
        key = node(upd.key)
        at = (
            str(where[key.value])
            if isinstance(key, ex.Const) and key.value in where
            else f"{gen.const(where)}[{gen.src(key)}]"
        )
        vals = f"v{j}.vals"
        return f"{gen.const(codes)}[{vals}[:{at}] + ({gen.src(upd.value)},) + {vals}[{at} + 1:]]"

    def _successor(self, slots: list[tuple[str, Any]]) -> str | None:
        """The successor's source: a tuple, or the packed int (None when nothing changes)."""
        if all(kind == "same" for kind, _ in slots):
            return None
        gen, layout = self.gen, self.layout
        if layout is None:
            parts = [
                f"v{j}" if kind == "same" else gen.const(x) if kind == "const" else x
                for j, (kind, x) in enumerate(slots)
            ]
            return "(" + "".join(x + ", " for x in parts) + ")"
        keep, fixed, computed = 0, 0, []
        for j, (kind, x) in enumerate(slots):
            shift, mask, lo, _, _ = layout.fields[j]
            if kind == "same":
                keep |= mask << shift
            elif kind == "const":
                fixed |= layout.code(j, x) << shift
            elif kind == "copy":
                field = f"((s >> {layout.fields[x][0]}) & {mask})"
                computed.append(f"({field} << {shift})" if shift else field)
            elif kind == "code":
                computed.append(f"({x} << {shift})" if shift else x)
            else:
                by_id = layout.by_id[j]
                if by_id is not None:
                    code = f"{gen.const(by_id)}[id({x})]"
                elif lo is None:
                    code = f"{gen.const(layout.fields[j][4])}[{x}]"
                else:
                    code = f"({x} - {lo})" if lo else x
                computed.append(f"({code} << {shift})" if shift else f"({code})")
        kept = [f"(s & {keep})"] if keep else []
        return " | ".join([*kept, *([str(fixed)] if fixed else []), *computed]) or "0"

    def _bad(self, row: int, slot: int, value: Value) -> None:
        r, v = self.rows[row], self.spec.vars[slot]
        raise OracleError(
            f"row {r.name!r} sets {v.name!r} to {value!r}, outside {v.domain.describe()}"
        )

    def _unpack(self) -> str:
        """The statement decoding the state `s` into `v0, v1, …`: a marker that `_exec`
        replaces, once the code is written, by the decoding of the variables it reads."""
        return _UNPACK

    def _decode(self, used: set[int]) -> str:
        n = len(self.spec.vars)
        if self.layout is None:
            return "".join(f"v{j}, " for j in range(n)) + "= s" if n else "pass"
        decoded = []
        for j, (shift, mask, lo, values, _) in enumerate(self.layout.fields):
            if j not in used:
                continue
            field = f"((s >> {shift}) & {mask})" if shift else f"(s & {mask})"
            if lo is None:
                decoded.append(f"v{j} = {self.gen.const(values)}[{field}]")
            else:
                decoded.append(f"v{j} = {field} + {lo}" if lo else f"v{j} = {field}")
        return "; ".join(decoded) or "pass"

    def _emit(
        self,
        lines: list[str],
        indent: str,
        blocks: Sequence[_Block],
        body: Callable[[str, _Block, _Case, list[str]], None],
        undefined: str | None,
    ) -> None:
        """Per block: the loop over its parameter table (if it has one), then an if/elif
        chain over its cases.

        `body(indent, block, case, lines)` writes what a firing row does, its firing number
        being `block.k`; `undefined` is the statement for a firing no row answers, with `{k}`
        for it (None: nothing)."""
        for block in blocks:
            self.gen.params = dict(block.params)
            inner = indent
            if block.looped:
                names = "".join(f"p{j}, " for j in range(len(block.params)))
                lines.append(f"{indent}for k, ({names}) in {self.gen.const(block.firings)}:")
                inner = indent + "    "
            first = True
            for case in block.cases:
                if case.guard == "True":
                    lines.append(f"{inner}else:" if not first else f"{inner}if True:")
                else:
                    lines.append(f"{inner}{'if' if first else 'elif'} {case.guard}:")
                first = False
                body(inner + "    ", block, case, lines)
            if block.cases and block.cases[-1].guard == "True":
                continue  # some row always answers
            if undefined is not None:
                if first:
                    lines.append(f"{inner}{undefined.format(k=block.k)}")
                else:
                    lines += [f"{inner}else:", f"{inner}    {undefined.format(k=block.k)}"]
            elif first and block.looped:
                lines.append(f"{inner}pass")

    def _exec(self, lines: list[str], name: str, extra: Mapping[str, Any] | None = None) -> Any:
        text = "\n".join(lines)
        used = {int(j) for j in re.findall(r"\bv(\d+)\b", text)}
        text = text.replace(_UNPACK, self._decode(used))
        ns: dict[str, Any] = {
            **self.gen.consts,
            "_bad": self._bad,
            "_FV": FuncValue,
            **(extra or {}),
        }
        exec(compile(text, f"<{name} {self.spec.name}>", "exec"), ns)  # noqa: S102
        return ns[name]

    def search(self, record: bool = False) -> Callable[..., int]:
        """The breadth-first search (generated when a search starts), from state `i` until
        state `stop` (returned: where it stopped) or the end. With `record` it also keeps
        every edge for `Exploration.move_table`: per state where its edges start in
        `moves`, and per edge `target * codes + firing * rows + row`, one int in an
        array('q'): 8 bytes an edge (80 MB at 10^6 states of 10 edges each)."""
        rows = len(self.rows)
        codes = len(self.firings) * rows

        def body(ind: str, block: _Block, case: _Case, lines: list[str]) -> None:
            lines += [f"{ind}{c}" for c in case.checks]
            move = (
                f"k * {rows} + {case.row}"
                if block.looped
                else str(block.firings[0][0] * rows + case.row)
            )
            if case.succ is None:
                lines.append(f"{ind}mpush(i * {codes} + {move})" if record else f"{ind}pass")
                return
            test = (
                [f"{ind}j = sd(t, n)", f"{ind}if j == n:"]
                if record
                else [f"{ind}if sd(t, n) == n:"]
            )
            lines += [
                f"{ind}t = {case.succ}",
                *test,
                f"{ind}    if n >= limit: raise _Limit(limit)",
                f"{ind}    push(t); dpush(d); ppush(i); cpush({move}); n += 1",
            ]
            if record:
                lines.append(f"{ind}mpush(j * {codes} + {move})")

        lines = [
            "def bfs(states, index, depth, psrc, pcode, undefined, limit, starts, moves, i, stop):",
            "    sd = index.setdefault",
            "    push, dpush = states.append, depth.append",
            "    ppush, cpush = psrc.append, pcode.append",
            "    spush, mpush = starts.append, moves.append",
            "    n = len(states)",
            "    while i < n:",
            "        if i == stop: return i",
            "        s = states[i]",
            *(["        spush(len(moves))"] if record else []),
            f"        {self._unpack()}",
            "        d = depth[i] + 1",
        ]
        self._emit(lines, "        ", self.blocks, body, "undefined.append((i, {k}))")
        lines.append("        i += 1")
        if record:
            lines.append("    spush(len(moves))")
        lines.append("    return i")
        return self._exec(lines, "bfs", {"_Limit": ExplorationLimit})  # type: ignore[no-any-return]

    def _build_succ(self) -> Callable[[Key], list[tuple[int, int, Key]]]:
        """Every edge out of a state, in firing order: (firing, row, target)."""

        def body(ind: str, block: _Block, case: _Case, lines: list[str]) -> None:
            lines += [f"{ind}{c}" for c in case.checks]
            lines.append(f"{ind}out.append(({block.k}, {case.row}, {case.succ or 's'}))")

        lines = ["def succ(s):", f"    {self._unpack()}", "    out = []"]
        self._emit(lines, "    ", self.blocks, body, None)
        lines.append("    return out")
        return self._exec(lines, "succ")  # type: ignore[no-any-return]

    def state_test(self, pred: Expr) -> Callable[[list[Key]], int | None]:
        """The first state (in BFS order) satisfying a state predicate."""
        self.gen.params = {}
        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
            f"        if {self.gen.cond(_fold(pred))}: return i",
            "    return None",
        ]
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def _hits_head(self, count: int) -> list[str]:
        """The head of a search for `count` predicates at once: each one's first hit goes in
        `hits`, and the search returns once every one has one."""
        return [
            "def first(states):",
            f"    hits = [None] * {count}",
            f"    left = {count}",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
        ]

    def state_tests(self, preds: Sequence[Expr]) -> Callable[[list[Key]], list[int | None]]:
        """`state_test` of each predicate, in one pass: each state is unpacked once for all
        of them, as TLC checks every invariant on a state at once."""
        self.gen.params = {}
        lines = self._hits_head(len(preds))
        for c, pred in enumerate(preds):
            lines += [
                f"        if hits[{c}] is None and ({self.gen.cond(_fold(pred))}):",
                f"            hits[{c}] = i",
                "            left -= 1",
                "            if not left: return hits",
            ]
        lines.append("    return hits")
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def state_mask(self, pred: Expr) -> Callable[[list[Key]], list[bool]]:
        """Per state (in BFS order), whether a state predicate holds: one generated loop,
        not an interpreted evaluation per state."""
        self.gen.params = {}
        lines = [
            "def mask(states):",
            "    out = []",
            "    push = out.append",
            "    for s in states:",
            f"        {self._unpack()}",
            f"        push(True if {self.gen.cond(_fold(pred))} else False)",
            "    return out",
        ]
        return self._exec(lines, "mask")  # type: ignore[no-any-return]

    def param_state_tests(
        self, cases: Sequence[tuple[Expr, str]]
    ) -> tuple[Callable[[list[Key]], list[tuple[int, int] | None]], list[list[dict[str, Value]]]]:
        """For each (predicate over the state and `trigger`'s parameters, trigger), the first
        state (BFS order) where it holds for some arguments, as (state, index into that
        case's arguments returned beside the function), or None; in one pass over the
        states, so each state is unpacked once for all the cases. Only the parameters a
        predicate reads are enumerated."""
        lines = self._hits_head(len(cases))
        every: list[list[dict[str, Value]]] = []
        budget = [self.budget]
        for c, (pred, trigger) in enumerate(cases):
            read = {n.name for n in walk(pred) if isinstance(n, ex.Ref) and n.scope == "param"}
            params = [p for p in self.spec.trigger(trigger).params if p.name in read]
            arguments = list(all_assignments([(p.name, p.domain) for p in params]))
            every.append(arguments)
            blocks = []
            values = [tuple(a[p.name] for p in params) for a in arguments]
            for block in self._blocks(params, arguments, values, 0, 1, budget):
                self.gen.params = dict(block.params)
                test = block.fold(pred)
                if not (isinstance(test, ex.Const) and not test.value):
                    guard = _Case(-1, f"hits[{c}] is None and {self.gen.src(test)}", (), None)
                    blocks.append(dataclasses.replace(block, cases=(guard,)))

            def body(ind: str, block: _Block, case: _Case, lines: list[str], c: int = c) -> None:
                lines += [
                    f"{ind}hits[{c}] = (i, {block.k})",
                    f"{ind}left -= 1",
                    f"{ind}if not left: return hits",
                    *([f"{ind}break"] if block.looped else []),
                ]

            lines.append(f"        if hits[{c}] is None:")
            self._emit(lines, "            ", blocks, body, None)
            if not blocks:
                lines.append("            pass")
        lines.append("    return hits")
        return self._exec(lines, "first"), every

    def first_edges(self) -> Callable[[list[Key]], list[tuple[int, int, Key] | None]]:
        """Per row, the first edge it answers (BFS order of the source, then firing order)
        as (source, firing, target), or None; in one pass that ends once each row in the
        code has one, with no successor list built per state."""
        live = {c.row for b in self.blocks for c in b.cases}

        def body(ind: str, block: _Block, case: _Case, lines: list[str]) -> None:
            lines += [
                f"{ind}if w[{case.row}] is None:",
                *(f"{ind}    {c}" for c in case.checks),
                f"{ind}    w[{case.row}] = (i, {block.k}, {case.succ or 's'})",
                f"{ind}    left -= 1",
                f"{ind}    if not left: return w",
            ]

        lines = [
            "def first(states):",
            f"    w = [None] * {len(self.rows)}",
            f"    left = {len(live)}",
            "    if not left: return w",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
        ]
        self._emit(lines, "        ", self.blocks, body, None)
        lines.append("    return w")
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def step_test(self, pred: Expr) -> Callable[[list[Key]], tuple[int, int, int] | None]:
        """The first edge (BFS order of its source, then firing order) satisfying a step
        predicate, as (source, firing, row). The predicate is specialised to each row:
        outputs, the post-state and the step's names become expressions over the
        pre-state and the parameters, so it compiles like a guard."""

        def body(ind: str, block: _Block, case: _Case, lines: list[str]) -> None:
            test = self.gen.src(block.fold(self._on_step(pred, self.rows[case.row])))
            lines.append(f"{ind}if {test}: return (i, {block.k}, {case.row})")

        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
        ]
        self._emit(lines, "        ", self.blocks, body, None)
        lines.append("    return None")
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def step_tests(
        self, preds: Sequence[Expr]
    ) -> Callable[[list[Key]], list[tuple[int, int, int] | None]]:
        """`step_test` of each predicate, in one pass: each state is unpacked, and each
        row's guard evaluated, once for all of them. A predicate a row makes false is not
        tested on that row's steps at all."""

        def body(ind: str, block: _Block, case: _Case, lines: list[str]) -> None:
            row, tested = self.rows[case.row], False
            for c, pred in enumerate(preds):
                test = block.fold(self._on_step(pred, row))
                if isinstance(test, ex.Const) and test.value is False:
                    continue
                tested = True
                lines += [
                    f"{ind}if hits[{c}] is None and ({self.gen.src(test)}):",
                    f"{ind}    hits[{c}] = (i, {block.k}, {case.row})",
                    f"{ind}    left -= 1",
                    f"{ind}    if not left: return hits",
                ]
            if not tested:
                lines.append(f"{ind}pass")

        lines = self._hits_head(len(preds))
        self._emit(lines, "        ", self.blocks, body, None)
        lines.append("    return hits")
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def _on_step(self, pred: Expr, r: Row) -> Expr:
        spec = self.spec
        group = spec.group_of(r.trigger)

        def post(name: str) -> Expr:
            if name == spec.control and r.target is not None:
                return ex.Const(r.target)
            return r.updates.get(name, ex.Ref("pre", name))

        def go(x: Expr) -> Expr:
            if isinstance(x, ex.Ref):
                if x.scope == "post":
                    return post(x.name)
                if x.scope == "out":
                    if x.name in r.outputs:
                        return r.outputs[x.name]
                    return ex.Const(spec.output(x.name).default)
                return x
            if isinstance(x, ex.StepIs):
                seen = {"trigger": r.trigger, "row": r.name, "group": group}[x.kind]
                return ex.Const(seen in x.names)
            return _map(x, go)

        return go(pred)


# ---------------------------------------------------------------- the exploration


class _States(Sequence[State]):
    """The packed states, read as tuples."""

    def __init__(self, keys: list[Key], code: _Compiled) -> None:
        self._keys, self._code = keys, code

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, i: int) -> State: ...
    @overload
    def __getitem__(self, i: slice) -> list[State]: ...
    def __getitem__(self, i: int | slice) -> State | list[State]:
        if isinstance(i, slice):
            return [self._code.state(k) for k in self._keys[i]]
        return self._code.state(self._keys[i])


class _Index(Mapping[State, int]):
    """State tuple → BFS number, over the packed keys."""

    def __init__(self, index: dict[Key, int], keys: list[Key], code: _Compiled) -> None:
        self._index, self._keys, self._code = index, keys, code

    def __getitem__(self, state: State) -> int:
        try:
            return self._index[self._code.key(state)]
        except (_NoPacking, ValueError):  # no code for a value; too few or many (zip's strict)
            raise KeyError(state) from None

    def __iter__(self) -> Iterator[State]:
        return (self._code.state(k) for k in self._keys)

    def __len__(self) -> int:
        return len(self._index)


@dataclass
class Exploration:
    """The reachable states in BFS order, with depths and shortest-path parents.

    `states` and `index` read as tuples of values; inside, a state is its key (a packed
    int, or the tuple itself when the spec cannot be packed)."""

    spec: Spec
    depth: array[int] = field(default_factory=lambda: array("q"))
    # Firings no row answered, as (state, firing): many where disabled is not enabled
    # (enabled-only), so `undefined` spells them out only when asked.
    _unanswered: list[tuple[int, int]] = field(default_factory=list, repr=False)
    _undefined: list[tuple[int, str, Mapping[str, Value]]] | None = field(default=None, repr=False)
    seconds: float = 0.0
    _code: _Compiled | None = field(default=None, repr=False)
    _keys: list[Key] = field(default_factory=list, repr=False)
    _index: dict[Key, int] = field(default_factory=dict, repr=False)
    _psrc: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _pcode: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _edges: list[Edge] | None = field(default=None, repr=False)
    _parents: list[Edge | None] | None = field(default=None, repr=False)
    # The search's edges, when asked for (`explore(keep_moves=True)`): see `move_table`.
    _moves: tuple[array[int], array[int]] | None = field(default=None, repr=False)
    # What `prefetch` found, by the predicate's identity: (predicate, hit).
    _found: dict[int, tuple[Expr, Any]] = field(default_factory=dict, repr=False)

    @property
    def code(self) -> _Compiled:
        if self._code is None:
            self._code = _Compiled.of(self.spec)
        return self._code

    @property
    def states(self) -> Sequence[State]:
        return self._keys if self.code.layout is None else _States(self._keys, self.code)

    @property
    def index(self) -> Mapping[State, int]:
        if self.code.layout is None:
            return self._index
        return _Index(self._index, self._keys, self.code)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.spec.vars]

    def as_dict(self, i: int) -> dict[str, Value]:
        return dict(zip(self.names, self.code.state(self._keys[i]), strict=True))

    def classes(self, names: Sequence[str]) -> list[Key]:
        """Per state, in BFS order, a key equal for two states exactly when they agree on
        the variables `names` (a system's component): the packed key's bits of them, or
        their values. A packed key hashes as an int, without unpacking a state."""
        layout, at = self.code.layout, {n: j for j, n in enumerate(self.names)}
        if layout is None:
            columns = [at[n] for n in names]
            return [tuple(key[j] for j in columns) for key in self._keys]
        mask = 0
        for n in names:
            shift, bits, *_ = layout.fields[at[n]]
            mask |= bits << shift
        return [key & mask for key in self._keys]

    @property
    def undefined(self) -> list[tuple[int, str, Mapping[str, Value]]]:
        """Firings no row answered: the spec is not total there (the totality check
        reports it), as (state, trigger, parameters)."""
        if self._undefined is None:
            firings = self.code.firings
            self._undefined = [
                (i, firings[k].trigger, firings[k].params) for i, k in self._unanswered
            ]
        return self._undefined

    @property
    def diameter(self) -> int:
        return max(self.depth, default=0)

    @property
    def edge_count(self) -> int:
        """Every firing that some row answers (ignore rows are self-loops)."""
        return len(self._keys) * len(self.code.firings) - len(self._unanswered)

    # ------------------------------------------------------------ edges, on demand

    def _edge(self, source: int, firing: int, row: int, target: Key) -> Edge:
        code = self.code
        f, r = code.firings[firing], code.rows[row]
        env = Env(pre=self.as_dict(source), params=f.params)
        outputs = {o.name: o.default for o in self.spec.outputs}
        outputs.update({name: evaluate(e, env) for name, e in r.outputs.items()})
        return Edge(
            source,
            r.name,
            f.trigger,
            f.params,
            self._index[target],
            MappingProxyType(outputs),
        )

    def successors(self, i: int) -> list[Edge]:
        """The edges out of state `i`, in firing order."""
        return [self._edge(i, k, r, t) for k, r, t in self.code.successors(self._keys[i])]

    def moves(self, i: int) -> list[tuple[int, int, int]]:
        """The edges out of state `i` as (firing, row, target) indices: cheap, no outputs."""
        index = self._index
        return [(k, r, index[t]) for k, r, t in self.code.successors(self._keys[i])]

    def edge_of(self, source: int, firing: int, row: int, target: int) -> Edge:
        """The full edge behind one of `moves(source)`."""
        return self._edge(source, firing, row, self._keys[target])

    def iter_edges(self) -> Iterator[Edge]:
        """Every edge, in BFS order of its source (so the first hit is a shallowest one)."""
        for i in range(len(self._keys)):
            yield from self.successors(i)

    @property
    def edges(self) -> list[Edge]:
        if self._edges is None:
            self._edges = list(self.iter_edges())
        return self._edges

    def parent_of(self, i: int) -> Edge | None:
        if i < len(self._psrc) and self._psrc[i] >= 0:
            source, code = self._psrc[i], self._pcode[i]
            firing, row = divmod(code, len(self.code.rows))
            return self._edge(source, firing, row, self._keys[i])
        return None

    @property
    def parent(self) -> list[Edge | None]:
        if self._parents is None:
            self._parents = [self.parent_of(i) for i in range(len(self._keys))]
        return self._parents

    # ------------------------------------------------------------ paths

    def path_to(self, i: int) -> Trace:
        edges: list[Edge] = []
        while (edge := self.parent_of(i)) is not None:
            edges.append(edge)
            i = edge.source
        edges.reverse()
        return Trace(self.as_dict(i), tuple(self.step(e) for e in edges))

    def path_through(self, edge: Edge) -> Trace:
        head = self.path_to(edge.source)
        return Trace(head.init, (*head.steps, self.step(edge)))

    def step(self, edge: Edge) -> Step:
        return Step(edge.row, edge.trigger, edge.params, self.as_dict(edge.target), edge.outputs)

    def edge_env(self, edge: Edge) -> Env:
        return Env(
            pre=self.as_dict(edge.source),
            post=self.as_dict(edge.target),
            params=edge.params,
            outputs=edge.outputs,
            trigger=edge.trigger,
            row=edge.row,
            group=self.spec.group_of(edge.trigger),
        )

    # ------------------------------------------------------------ searches

    def prefetch(self, states: Sequence[Expr] = (), steps: Sequence[Expr] = ()) -> None:
        """Search for many predicates at once (state predicates in one pass over the states,
        step predicates in one over the edges); `first_state` and `first_edge` then answer
        for these very objects from what was found. A batch that raises (a predicate
        undefined somewhere) keeps nothing: each search then runs, and raises, alone."""
        for preds, tests in (
            (states, self.code.state_tests),
            (steps, self.code.step_tests),
        ):
            if len(preds) < 2:
                continue
            try:
                hits = tests(preds)(self._keys)
            except Exception:  # noqa: BLE001 (the single searches report it)
                continue
            for pred, hit in zip(preds, hits, strict=True):
                self._found[id(pred)] = (pred, hit)

    def _prefetched(self, pred: Expr) -> tuple[bool, Any]:
        found = self._found.get(id(pred))
        return (True, found[1]) if found is not None and found[0] is pred else (False, None)

    def first_state(self, pred: Expr) -> int | None:
        """The shallowest state satisfying a state predicate (BFS order)."""
        known, hit = self._prefetched(pred)
        return hit if known else self.code.state_test(pred)(self._keys)

    def state_mask(self, pred: Expr) -> list[bool]:
        """Per state (BFS order), whether a state predicate holds."""
        return self.code.state_mask(pred)(self._keys)

    def move_table(self) -> tuple[list[int], list[int], list[int]]:
        """Every edge as flat lists: per state where its edges start (one more entry at the
        end), per edge `firing * len(rows) + row` and its target, in `moves` order: the
        search's own record when it kept one (`explore(keep_moves=True)`), else generated."""
        if self._moves is None:
            starts: list[int] = []
            codes: list[int] = []
            targets: list[int] = []
            rows, succ, index = len(self.code.rows), self.code.successors, self._index
            for key in self._keys:
                starts.append(len(targets))
                for k, r, t in succ(key):
                    codes.append(k * rows + r)
                    targets.append(index[t])
            starts.append(len(targets))
            return starts, codes, targets
        first, moves = self._moves
        size = len(self.code.firings) * len(self.code.rows)
        return first.tolist(), [m % size for m in moves], [m // size for m in moves]

    def first_states_with(
        self, cases: Sequence[tuple[Expr, str]]
    ) -> list[tuple[int, dict[str, Value]] | None]:
        """For each (predicate, trigger): the shallowest state where the predicate, which may
        read the trigger's parameters, holds for some arguments, with those arguments."""
        if not cases:
            return []
        test, arguments = self.code.param_state_tests(cases)
        return [
            None if hit is None else (hit[0], arguments[c][hit[1]])
            for c, hit in enumerate(test(self._keys))
        ]

    def first_edge(self, pred: Expr | Callable[[Edge], bool]) -> Edge | None:
        """The edge satisfying a step predicate with the shortest path through it."""
        if isinstance(pred, Expr):
            known, hit = self._prefetched(pred)
            if not known:
                hit = self.code.step_test(pred)(self._keys)
            if hit is None:
                return None
            i, firing, row = hit
            targets = [t for k, _, t in self.code.successors(self._keys[i]) if k == firing]
            return self._edge(i, firing, row, targets[0])
        return next((e for e in self.iter_edges() if pred(e)), None)

    def row_witnesses(self) -> dict[str, Edge]:
        """For each row that can fire, the edge with the shortest path through it."""
        # BFS order means depth never decreases: the first edge of each row is a shallowest.
        found = self.code.first_edges()(self._keys)
        edges = {r: self._edge(*hit[:2], r, hit[2]) for r, hit in enumerate(found) if hit}
        return {self.code.rows[r].name: e for r, e in edges.items()}


def initial_states(spec: Spec) -> list[dict[str, Value]]:
    return spec.initial_states()


def explore(
    spec: Spec, *, max_states: int = DEFAULT_MAX_STATES, keep_moves: bool = False
) -> Exploration:
    """Breadth-first search of every reachable state, running the compiled rows. With
    `keep_moves` the search also keeps its edges for `move_table` (the liveness checks'
    graph), at 8 bytes an edge. Generating them again costs about what the search did,
    since evaluating the guards is the cost: on ReadersWriters 0.6-0.8 s state by state through
    `successors`, and hardly less in one generated pass over all states (measured), where
    keeping them adds about 0.1 s to a 1 s search."""
    started = time.perf_counter()
    try:
        code = _Compiled.of(spec, specialise=False)
        return _explore(spec, code, max_states, started, keep_moves)
    except _NoPacking:
        # A value outside the packed layout (a real computed by `add`, say): plain tuples.
        code = _Compiled(spec, packed=False, specialise=False)
        return _explore(spec, code, max_states, started, keep_moves)


def _explore(
    spec: Spec, code: _Compiled, max_states: int, started: float, keep_moves: bool
) -> Exploration:
    result = Exploration(spec, _code=code)
    names = result.names
    for init in initial_states(spec):
        key = code.key(tuple(init[n] for n in names))
        if key not in result._index:
            if len(result._keys) >= max_states:
                raise ExplorationLimit(
                    f"spec {spec.name!r}: more than {max_states} reachable states"
                )
            result._index[key] = len(result._keys)
            result._keys.append(key)
            result.depth.append(0)
            result._psrc.append(-1)
            result._pcode.append(-1)
    starts, moves = array("q"), array("q")
    arrays = (
        *(result._keys, result._index, result.depth),
        *(result._psrc, result._pcode, result._unanswered, max_states, starts, moves),
    )
    try:
        # The loops first; a search that goes on switches to code specialised per firing,
        # which carries on from the same state, so the order is the same.
        stop = _SPECIALISE_AFTER if code.specialisable else -1
        i = code.search(record=keep_moves)(*arrays, 0, stop)
        if i < len(result._keys):
            code = result._code = _Compiled(spec, reuse=code)
            code.search(record=keep_moves)(*arrays, i, -1)
    except ExplorationLimit:
        raise ExplorationLimit(
            f"spec {spec.name!r}: more than {max_states} reachable states"
        ) from None
    except (KeyError, IndexError, TypeError) as error:
        if code.layout is None:
            raise
        raise _NoPacking(error) from None
    if keep_moves:
        result._moves = starts, moves
    result.seconds = time.perf_counter() - started
    return result
