"""The z3 face of a spec: its transition relation and the engines that read it.

This is the one module that imports z3 (which ships no type information:
its values cross this boundary as `Term`). From the spec's rows it builds
`init(s)` and `T(s, a, s')`, and on them runs:

- BMC, for shortest witnesses and counterexamples;
- k-induction with simple-path constraints;
- Spacer (z3's CHC engine), whose inductive invariant is the proof certificate;
- the confirmation of an explorer trace (every step satisfies T);
- the cross-check that the explorer's reachable set is exactly z3's (on a
  seeded sample of states above `FULL_SET_CHECK_UP_TO` states).

z3 `unknown` is never read as safe: it becomes an `Unknown` verdict. Every
query runs under the current check's budget (`Engines.start`); a timeout,
`canceled`, resource limit or any other z3 error raises `SolverLimit`, which
the checker turns into an `unknown` verdict naming the engine and reason.
z3 catches Ctrl-C itself while it solves and returns `unknown`/`canceled`:
that is raised again as `KeyboardInterrupt` (`_interrupt`), never read as a limit.
"""

from __future__ import annotations

import itertools
import random
import re
import signal
import socket
import threading
import time
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any
from typing import assert_never

import z3

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
from .expr import Env
from .expr import Expr
from .expr import Scope
from .expr import evaluate
from .expr import infer
from .expr import node
from .expr import unroll
from .expr import walk
from .spec import Kind
from .spec import Property
from .spec import Row
from .spec import Spec
from .trace import Step
from .trace import Trace
from .trace import plural

Term = Any  # a z3 expression; z3 has no type stubs
Enc = tuple[Term, ...]  # one z3 term per slot (an option has a presence bit first)

QUERY_TIMEOUT_MS = 20_000  # the default budget of one check, when `verify --timeout` is not given
FULL_SET_CHECK_UP_TO = 500  # distinct finite states; above it the set check samples
SET_SAMPLE = 16  # states sampled by the set check above that size (each with all its steps)
SET_SAMPLE_SEED = 0


def z3_version() -> str:
    """The z3 the verdicts come from (the report's provenance header)."""
    return str(z3.get_version_string())


class SolverLimit(Exception):
    """z3 gave up (timeout, canceled, resource limit, unknown): never a pass, never a crash."""

    def __init__(self, engine: str, reason: str) -> None:
        super().__init__(f"{engine}: {reason}")
        self.engine = engine
        self.reason = reason


class Budget:
    """The time one check may spend in z3; every query gets what is left of it. With
    `rlimit`, each query is bounded by z3's resource count instead, which is the same on
    every machine under any load, and the time is only a guard against a hang."""

    def __init__(
        self, seconds: float = QUERY_TIMEOUT_MS / 1000, *, rlimit: int | None = None
    ) -> None:
        self.seconds = seconds
        self.rlimit = rlimit
        self.deadline = time.monotonic() + seconds

    def start(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def remaining_ms(self, engine: str) -> int:
        left = int((self.deadline - time.monotonic()) * 1000)
        if left <= 0:
            raise SolverLimit(engine, f"the check's budget of {self.seconds:g}s is spent")
        return left


# The mutant gate's own queries (confirming a kill: `replay`, `absent`, `enabled_rows`;
# proving a mutant equivalent: `prove_equivalent`, `same_requirements`, `valid`) decide
# whether the gate passes, so they are bounded by z3's resource count, not by time: a busy
# machine must not turn a kill into a kernel disagreement or an equivalent mutant into a
# survivor. Over every spec's --full sample, 99% of these queries use under 300,000 units
# and the largest 19.4 million (an equivalence attempt on adr068's 14,276 states), so the
# limit leaves five times that; the time only stops a hang.
GATE_RLIMIT = 100_000_000
GATE_GUARD_SECONDS = 600.0


def gate_budget() -> Budget:
    """The deterministic budget of one of the mutant gate's queries (`GATE_RLIMIT`)."""
    return Budget(GATE_GUARD_SECONDS, rlimit=GATE_RLIMIT)


def _check(budget: Budget, engine: str, solver: Term, *assumptions: Term) -> Term:
    """`solver.check` under the budget: sat or unsat, else `SolverLimit`."""
    solver.set("timeout", budget.remaining_ms(engine))
    if budget.rlimit is not None:
        solver.set("rlimit", budget.rlimit)  # z3 counts it from where this query starts
    try:
        with _ctrl_c():
            result = solver.check(*assumptions)
    except z3.Z3Exception as error:
        _interrupt(budget, _message(error))
        raise SolverLimit(engine, f"z3 error: {_message(error)}") from None
    if result == z3.unknown:
        _interrupt(budget, solver.reason_unknown())
        raise SolverLimit(engine, f"z3 unknown: {solver.reason_unknown()}")
    return result


def _substitute(term: Term, slots: Sequence[Term], values: Sequence[Term]) -> Term:
    """`z3.substitute(term, *zip(slots, values))` without its Python-side check of every
    pair's sorts (z3's C side checks them too): T is instantiated once per explorer step
    that the set check reads, and that check cost more than the substitution itself."""
    n = len(slots)
    if n != len(values):
        raise ValueError(f"{n} slots, {len(values)} values")
    from_, to = (z3.Ast * n)(), (z3.Ast * n)()
    for i in range(n):
        from_[i], to[i] = slots[i].as_ast(), values[i].as_ast()
    return z3.z3._to_expr_ref(
        z3.Z3_substitute(term.ctx_ref(), term.as_ast(), n, from_, to), term.ctx
    )


_SOLVING = threading.Event()  # set while the main thread is inside a z3 call


@contextmanager
def _ctrl_c() -> Iterator[None]:
    """Around a z3 call, so that Ctrl-C stops it at once. z3 installs its own SIGINT handler
    while it solves, and does not always put Python's back (then Ctrl-C would be ignored
    for the rest of the run): reinstall it. A Ctrl-C that lands just before z3's handler is
    in place reaches Python's, which cannot run inside z3: `_watch` interrupts z3 for it."""
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGINT)
    if main and handler is signal.default_int_handler:
        _watch()
        _SOLVING.set()
    try:
        yield
    finally:
        _SOLVING.clear()
        if main and handler is not None:
            signal.signal(signal.SIGINT, handler)


_WATCHING: list[socket.socket] = []


def _watch() -> None:
    """Once: a thread woken by Python's signal wakeup fd, which interrupts z3 on SIGINT."""
    if _WATCHING:
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # not the main thread of the main interpreter
        return
    _WATCHING.extend((reader, writer))

    def watch() -> None:
        while data := reader.recv(64):
            if signal.SIGINT in data:
                while _SOLVING.is_set():  # until z3 returns, then Python raises the interrupt
                    z3.main_ctx().interrupt()
                    time.sleep(0.01)

    threading.Thread(target=watch, name="z3-ctrl-c", daemon=True).start()


def _interrupt(budget: Budget, why: str) -> None:
    """Raise `KeyboardInterrupt` when z3 stopped for a Ctrl-C it caught (and swallowed).

    z3 says "interrupted from keyboard", or "canceled" as for a timeout: a cancel
    before the budget's deadline can only have come from outside. A process that
    ignores SIGINT (a worker of `process_pool`) keeps the `unknown`.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return
    # z3's timeout is whole milliseconds (`remaining_ms` rounds down) and its timer is not
    # exact: a cancel within the last 50 ms is the budget's, not a Ctrl-C.
    early = budget.deadline - time.monotonic() > 0.05
    if "interrupted from keyboard" in why or (why == "canceled" and early):
        raise KeyboardInterrupt


def _message(error: Exception) -> str:
    value = getattr(error, "value", error)
    return value.decode() if isinstance(value, bytes) else str(value)


# ---------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Proved:
    method: str
    bound: int | None
    certificate: str


@dataclass(frozen=True)
class Found:
    """A trace reaching the target (a witness, or a counterexample)."""

    method: str
    trace: Trace


@dataclass(frozen=True)
class Unknown:
    method: str
    reason: str


Verdict = Proved | Found | Unknown


# ---------------------------------------------------------------- sorts

_SORTS: dict[tuple[str, tuple[str, ...]], tuple[Term, dict[str, Term]]] = {}


# Per domain object: its sort and each value's constant. Labelling every value of a domain
# is costly (a policy's label is built from its four fields), and encoding is hot.
_BY_DOMAIN: dict[int, tuple[Finite, Term, dict[str, Term], dict[Value, Term]]] = {}


def _enum_value(domain: Finite, value: Value) -> Term:
    hit = _BY_DOMAIN.get(id(domain))
    if hit is None or hit[0] is not domain:
        sort, consts = _enum_sort(domain)
        by_value = {v: consts[domain.label(v)] for v in domain.values}
        hit = _BY_DOMAIN[id(domain)] = (domain, sort, consts, by_value)
    try:
        return hit[3][value]
    except (KeyError, TypeError):
        return hit[2][domain.label(value)]


def _enum_sort(domain: Finite) -> tuple[Term, dict[str, Term]]:
    hit = _BY_DOMAIN.get(id(domain))
    if hit is not None and hit[0] is domain:
        return hit[1], hit[2]
    labels = tuple(domain.label(v) for v in domain.values)
    key = (domain.name, labels)
    if key not in _SORTS:
        # z3 sort names are global; a second domain of the same name gets a suffix.
        taken = sum(1 for name, _ in _SORTS if name == domain.name)
        name = domain.name if not taken else f"{domain.name}_{taken}"
        sort, consts = z3.EnumSort(name, list(labels))
        _SORTS[key] = (sort, dict(zip(labels, consts, strict=True)))
    return _SORTS[key]


def _names_sort(kind: str, names: Sequence[str]) -> tuple[Term, dict[str, Term]]:
    return _enum_sort(Finite(kind, tuple(names)))


def slot_sorts(domain: Domain) -> list[Term]:
    if isinstance(domain, Finite):
        return [_enum_sort(domain)[0]]
    if isinstance(domain, Bool):
        return [z3.BoolSort()]
    if isinstance(domain, IntRange):
        return [z3.IntSort()]
    if isinstance(domain, Real):
        return [z3.RealSort()]
    if isinstance(domain, Option):
        return [z3.BoolSort(), *slot_sorts(domain.inner)]
    # Data is flattened into slots: a sequence is its length then `max_len` element slots
    # (past the end: the element's default), a function one value per index, a set one
    # boolean per element.
    if isinstance(domain, Seq):
        return [z3.IntSort(), *slot_sorts(domain.element) * domain.max_len]
    if isinstance(domain, Func):
        return slot_sorts(domain.value) * len(domain.keys)
    if isinstance(domain, Set):
        return [z3.BoolSort()] * len(_elements(domain))
    raise TypeError(f"no z3 encoding for {domain!r}")


def _elements(domain: Set | Seq) -> tuple[Value, ...]:
    values = domain.element.values
    assert values is not None
    return values


def _width(domain: Domain) -> int:
    return len(slot_sorts(domain))


def _parts(domain: Domain, enc: Enc, count: int) -> list[Enc]:
    w = _width(domain)
    return [tuple(enc[k * w : (k + 1) * w]) for k in range(count)]


def encode_value(domain: Domain, value: Value) -> Enc:
    if isinstance(domain, Finite):
        return (_enum_value(domain, value),)
    if isinstance(domain, Bool):
        return (z3.BoolVal(bool(value)),)
    if isinstance(domain, IntRange):
        return (z3.IntVal(int(value)),)
    if isinstance(domain, Real):
        return (z3.RealVal(str(Fraction(value))),)
    if isinstance(domain, Option):
        if value is None:
            return (z3.BoolVal(False), *_default(domain.inner))
        return (z3.BoolVal(True), *encode_value(domain.inner, value))
    if isinstance(domain, Seq):
        slots: list[Term] = [z3.IntVal(len(value))]
        for x in value:
            slots += encode_value(domain.element, x)
        for _ in range(domain.max_len - len(value)):
            slots += _default(domain.element)
        return tuple(slots)
    if isinstance(domain, Func):
        return tuple(t for x in value.vals for t in encode_value(domain.value, x))
    if isinstance(domain, Set):
        return tuple(z3.BoolVal(x in value) for x in _elements(domain))
    raise TypeError(f"no z3 encoding for {domain!r}")


def _default(domain: Domain) -> Enc:
    if isinstance(domain, Seq):
        return encode_value(domain, ())
    if isinstance(domain, Func):
        return tuple(t for _ in domain.keys for t in _default(domain.value))
    if isinstance(domain, Set):
        return encode_value(domain, frozenset())
    if isinstance(domain, Real):
        return (z3.RealVal(0),)
    if isinstance(domain, IntRange):
        return (z3.IntVal(domain.lo),)
    values = domain.values
    assert values is not None
    return encode_value(domain, values[0])


def decode(domain: Domain, model: Term, enc: Enc) -> Value:
    if isinstance(domain, Seq):
        n = int(model.eval(enc[0], model_completion=True).as_long())
        parts = _parts(domain.element, enc[1:], domain.max_len)[:n]
        return tuple(decode(domain.element, model, p) for p in parts)
    if isinstance(domain, Func):
        parts = _parts(domain.value, enc, len(domain.keys))
        return FuncValue(domain.keys, tuple(decode(domain.value, model, p) for p in parts))
    if isinstance(domain, Set):
        return frozenset(
            x
            for x, t in zip(_elements(domain), enc, strict=True)
            if z3.is_true(model.eval(t, model_completion=True))
        )
    if isinstance(domain, Option):
        present = z3.is_true(model.eval(enc[0], model_completion=True))
        return decode(domain.inner, model, enc[1:]) if present else None
    term = model.eval(enc[0], model_completion=True)
    if isinstance(domain, Finite):
        by_label = {domain.label(v): v for v in domain.values}
        return by_label[str(term)]
    if isinstance(domain, Bool):
        return bool(z3.is_true(term))
    if isinstance(domain, IntRange):
        return int(term.as_long())
    if isinstance(domain, Real):
        fraction = term.as_fraction()
        return float(fraction) if fraction.denominator != 1 else int(fraction.numerator)
    raise TypeError(f"no z3 decoding for {domain!r}")


def type_ok(domain: Domain, enc: Enc) -> Term:
    """Range constraints, plus the canonical form of an unset option."""
    if isinstance(domain, IntRange):
        return z3.And(enc[0] >= domain.lo, enc[0] <= domain.hi)
    if isinstance(domain, Option):
        unset = z3.And(*[a == b for a, b in zip(enc[1:], _default(domain.inner), strict=True)])
        return z3.And(z3.Implies(z3.Not(enc[0]), unset), type_ok(domain.inner, enc[1:]))
    if isinstance(domain, Seq):
        parts = _parts(domain.element, enc[1:], domain.max_len)
        blank = _default(domain.element)
        return z3.And(
            enc[0] >= 0,
            enc[0] <= domain.max_len,
            *[type_ok(domain.element, p) for p in parts],
            *[
                z3.Implies(enc[0] <= k, z3.And(*[a == b for a, b in zip(p, blank, strict=True)]))
                for k, p in enumerate(parts)
            ],
        )
    if isinstance(domain, Func):
        return z3.And(
            *[type_ok(domain.value, p) for p in _parts(domain.value, enc, len(domain.keys))]
        )
    return z3.BoolVal(True)


def _fresh(domain: Domain, name: str) -> Enc:
    sorts = slot_sorts(domain)
    if len(sorts) == 1:
        return (z3.Const(name, sorts[0]),)
    return tuple(z3.Const(f"{name}.{i}", s) for i, s in enumerate(sorts))


def _equal(domain: Domain, a: Enc, b: Enc) -> Term:
    if isinstance(domain, Option):
        return z3.And(a[0] == b[0], z3.Implies(a[0], _equal(domain.inner, a[1:], b[1:])))
    if isinstance(domain, Seq):
        pairs = zip(
            _parts(domain.element, a[1:], domain.max_len),
            _parts(domain.element, b[1:], domain.max_len),
            strict=True,
        )
        return z3.And(
            a[0] == b[0],
            *[z3.Implies(k < a[0], _equal(domain.element, x, y)) for k, (x, y) in enumerate(pairs)],
        )
    if isinstance(domain, Func):
        n = len(domain.keys)
        pairs = zip(_parts(domain.value, a, n), _parts(domain.value, b, n), strict=True)
        return z3.And(*[_equal(domain.value, x, y) for x, y in pairs])
    if isinstance(domain, Set):
        return z3.And(*[x == y for x, y in zip(a, b, strict=True)])
    return a[0] == b[0]


def _ite(cond: Term, then: Enc, other: Enc) -> Enc:
    return tuple(z3.If(cond, a, b) for a, b in zip(then, other, strict=True))


# ---------------------------------------------------------------- frames


Frame = dict[str, Enc]


@dataclass(frozen=True)
class Action:
    trigger: Term
    row: Term
    params: Mapping[tuple[str, str], Enc]
    outputs: Mapping[str, Enc]


class Encoding:
    """z3 terms for one spec: frames (states), actions, init and the transition relation."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.trigger_sort, self.trigger_consts = _names_sort(
            f"{spec.name}.trigger", [t.name for t in spec.triggers]
        )
        self.row_sort, self.row_consts = _names_sort(
            f"{spec.name}.row", [r.name for r in spec.rows]
        )
        self._template: tuple[list[Term], Term] | None = None
        self._rows: dict[str, tuple[list[Term], Term]] = {}  # `_row_template`, per row
        self._steps: tuple[list[Term], dict[str, Term], tuple[Term, Term]] | None = None

    # ------------------------------------------------------------ fresh terms

    def frame(self, tag: str) -> Frame:
        return {v.name: _fresh(v.domain, f"{v.name}@{tag}") for v in self.spec.vars}

    def action(self, tag: str) -> Action:
        params = {
            (t.name, p.name): _fresh(p.domain, f"{t.name}.{p.name}@{tag}")
            for t in self.spec.triggers
            for p in t.params
        }
        outputs = {o.name: _fresh(o.domain, f"{o.name}!@{tag}") for o in self.spec.outputs}
        return Action(
            z3.Const(f"trigger@{tag}", self.trigger_sort),
            z3.Const(f"row@{tag}", self.row_sort),
            params,
            outputs,
        )

    def concrete(self, state: Mapping[str, Value]) -> Frame:
        return {v.name: encode_value(v.domain, state[v.name]) for v in self.spec.vars}

    def flat(self, frame: Frame) -> list[Term]:
        return [t for v in self.spec.vars for t in frame[v.name]]

    def flat_sorts(self) -> list[Term]:
        return [s for v in self.spec.vars for s in slot_sorts(v.domain)]

    # ------------------------------------------------------------ constraints

    def frame_ok(self, frame: Frame) -> Term:
        return z3.And(*[type_ok(v.domain, frame[v.name]) for v in self.spec.vars])

    def action_ok(self, act: Action) -> Term:
        parts = [
            type_ok(p.domain, act.params[(t.name, p.name)])
            for t in self.spec.triggers
            for p in t.params
        ]
        parts += [type_ok(o.domain, act.outputs[o.name]) for o in self.spec.outputs]
        return z3.And(*parts)

    def init(self, frame: Frame) -> Term:
        choices = [
            z3.Or(*[_equal(v.domain, frame[v.name], encode_value(v.domain, x)) for x in v.inits])
            for v in self.spec.vars
        ]
        if self.spec.init is not None:
            choices.append(self.expr(self.spec.init, pre=frame))
        return z3.And(*choices)

    def same(self, a: Frame, b: Frame) -> Term:
        return z3.And(*[_equal(v.domain, a[v.name], b[v.name]) for v in self.spec.vars])

    def enabled(self, r: Row, pre: Frame, act: Action) -> Term:
        return self.expr(self.spec.step_guard(r), pre=pre, act=act, trigger=r.trigger)

    def row_step(self, r: Row, pre: Frame, post: Frame, act: Action) -> Term:
        spec = self.spec
        parts = [
            act.row == self.row_consts[r.name],
            act.trigger == self.trigger_consts[r.trigger],
            self.enabled(r, pre, act),
        ]
        for v in spec.vars:
            if v.name == spec.control and r.target is not None:
                new = encode_value(v.domain, r.target)
            elif v.name in r.updates:
                new = self.value(r.updates[v.name], v.domain, pre=pre, act=act, trigger=r.trigger)
            else:
                new = pre[v.name]
            parts.append(_equal(v.domain, post[v.name], new))
        for o in spec.outputs:
            value = (
                self.value(r.outputs[o.name], o.domain, pre=pre, act=act, trigger=r.trigger)
                if o.name in r.outputs
                else encode_value(o.domain, o.default)
            )
            parts.append(_equal(o.domain, act.outputs[o.name], value))
            # Keep the output canonical, so a decoded trace shows exactly what was emitted.
            parts.append(z3.And(*[a == b for a, b in zip(act.outputs[o.name], value, strict=True)]))
        return z3.And(*parts)

    def trans(self, pre: Frame, post: Frame, act: Action) -> Term:
        """T(pre, act, post): some row fires. Built once, then instantiated by substitution
        (z3 substitutes in C++; rebuilding T term by term in Python costs far more)."""
        slots, formula = self._trans_template()
        actual = self.flat(pre) + self.flat(post) + self.flat_action(act)
        return _substitute(formula, slots, actual)

    def _row_steps(self) -> tuple[list[Term], dict[str, Term], tuple[Term, Term]]:
        """Each row's disjunct of T over one set of slots, and T's other conjuncts: built
        once, for T and for each row's own template."""
        if self._steps is None:
            s, s2, a = self.frame("T"), self.frame("T2"), self.action("T")
            steps = {r.name: self.row_step(r, s, s2, a) for r in self.spec.rows}
            ok = (self.frame_ok(s2), self.action_ok(a))
            self._steps = (self.flat(s) + self.flat(s2) + self.flat_action(a), steps, ok)
        return self._steps

    def _trans_template(self) -> tuple[list[Term], Term]:
        if self._template is None:
            slots, steps, ok = self._row_steps()
            self._template = (slots, z3.And(z3.Or(*steps.values()), *ok))
        return self._template

    def _row_template(self, name: str) -> tuple[list[Term], Term]:
        """T's disjunct for one row, with T's other conjuncts: what T is once the action's
        row is that row (every other disjunct names another row, so it is false)."""
        if name not in self._rows:
            slots, steps, ok = self._row_steps()
            self._rows[name] = (slots, z3.And(steps[name], *ok))
        return self._rows[name]

    def is_step(self, pre: Mapping[str, Value], st: Step) -> bool:
        """Does T hold of this concrete step? Every slot of T (its disjunct for the step's row)
        is replaced by its value (a parameter of another trigger by its default) and z3
        simplifies the ground formula."""
        slots, formula = self._row_template(st.row)
        values = self.flat(self.concrete(pre)) + self.flat(self.concrete(st.state))
        values += [self.trigger_consts[st.trigger], self.row_consts[st.row]]
        for t in self.spec.triggers:
            for p in t.params:
                if t.name == st.trigger:
                    values += encode_value(p.domain, st.params[p.name])
                else:
                    values += _default(p.domain)
        for o in self.spec.outputs:
            values += encode_value(o.domain, st.outputs[o.name])
        ground = z3.simplify(_substitute(formula, slots, values))
        return bool(z3.is_true(ground))

    def flat_action(self, act: Action) -> list[Term]:
        slots = [act.trigger, act.row]
        slots += [t for e in act.params.values() for t in e]
        return slots + [t for e in act.outputs.values() for t in e]

    # ------------------------------------------------------------ expressions

    def expr(
        self,
        e: Expr,
        *,
        pre: Frame,
        post: Frame | None = None,
        act: Action | None = None,
        trigger: str | None = None,
    ) -> Term:
        """Translate a boolean expression to one z3 term."""
        return _Ctx(self, pre, post, act, trigger).tr(e, Bool())[0]

    def value(self, e: Expr, want: Domain, *, pre: Frame, act: Action, trigger: str) -> Enc:
        """Translate an update or output expression to its slots."""
        return _Ctx(self, pre, None, act, trigger).tr(e, want)

    # ------------------------------------------------------------ decoding

    def read_state(self, model: Term, frame: Frame) -> dict[str, Value]:
        return {v.name: decode(v.domain, model, frame[v.name]) for v in self.spec.vars}

    def read_trace(self, model: Term, frames: Sequence[Frame], acts: Sequence[Action]) -> Trace:
        steps = []
        for i, act in enumerate(acts):
            row = self.spec.row(str(model.eval(act.row, model_completion=True)))
            trigger = self.spec.trigger(row.trigger)
            params = {
                p.name: decode(p.domain, model, act.params[(trigger.name, p.name)])
                for p in trigger.params
            }
            outputs = {
                o.name: decode(o.domain, model, act.outputs[o.name]) for o in self.spec.outputs
            }
            steps.append(
                Step(row.name, trigger.name, params, self.read_state(model, frames[i + 1]), outputs)
            )
        return Trace(self.read_state(model, frames[0]), tuple(steps))


class _Ctx:
    def __init__(
        self, enc: Encoding, pre: Frame, post: Frame | None, act: Action | None, trigger: str | None
    ) -> None:
        self.enc, self.pre, self.post, self.act, self.trigger = enc, pre, post, act, trigger

    def typer(self, scope: Scope, name: str) -> Domain:
        spec = self.enc.spec
        if scope in ("pre", "post"):
            return spec.var(name).domain
        if scope == "out":
            return spec.output(name).domain
        if self.trigger is None:  # a property reading an argument: any trigger that has it
            return next(p.domain for t in spec.triggers for p in t.params if p.name == name)
        return next(p.domain for p in spec.trigger(self.trigger).params if p.name == name)

    def tr(self, e: Expr, want: Domain) -> Enc:
        e = node(e)
        if isinstance(e, ex.Const):
            return encode_value(want, e.value)
        if not any(isinstance(n, ex.Ref | ex.StepIs) for n in walk(e)):
            # Closed terms (parameters bound to values by `enabled`) are evaluated directly.
            return encode_value(want, evaluate(e, Env(pre={})))
        if isinstance(e, ex.Ref):
            return self.ref(e)
        if isinstance(e, ex.Eq):
            dom = infer(e.left, self.typer) or infer(e.right, self.typer)
            assert dom is not None
            return (_equal(dom, self.tr(e.left, dom), self.tr(e.right, dom)),)
        if isinstance(e, ex.In):
            dom = infer(e.item, self.typer)
            assert dom is not None
            item = self.tr(e.item, dom)
            return (z3.Or(*[_equal(dom, item, encode_value(dom, o)) for o in e.options]),)
        if isinstance(e, ex.Not):
            return (z3.Not(self.b(e.arg)),)
        if isinstance(e, ex.And):
            return (z3.And(*[self.b(a) for a in e.args]),)
        if isinstance(e, ex.Or):
            return (z3.Or(*[self.b(a) for a in e.args]),)
        if isinstance(e, ex.Implies):
            return (z3.Implies(self.b(e.premise), self.b(e.conclusion)),)
        if isinstance(e, ex.Ite):
            dom = infer(e.then, self.typer) or infer(e.other, self.typer) or want
            cond = self.b(e.cond)
            then, other = self.tr(e.then, dom), self.tr(e.other, dom)
            return tuple(z3.If(cond, a, b) for a, b in zip(then, other, strict=True))
        if isinstance(e, ex.Cmp | ex.Add):
            # Two untyped sides (a `total` of `ite(p, 1, 0)`) are plain integers.
            wide = IntRange(-(2**31), 2**31)
            dom = infer(e.left, self.typer) or infer(e.right, self.typer) or wide
            a, b = self.tr(e.left, dom)[0], self.tr(e.right, dom)[0]
            if isinstance(e, ex.Add):
                return (a - b,) if e.op == "-" else (a + b,)
            return ({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op],)
        if isinstance(e, ex.IsSome):
            return (self.ref_or_tr(e.arg)[0],)
        if isinstance(e, ex.Some):
            assert isinstance(want, Option)
            return (z3.BoolVal(True), *self.tr(e.arg, want.inner))
        if isinstance(e, ex.Unwrap):
            return self.ref_or_tr(e.arg)[1:]
        if isinstance(e, ex.StepIs):
            return (self.step_is(e),)
        if isinstance(e, ex.Quant):
            return self.tr(unroll(e), want)
        if isinstance(e, ex.SeqOp):
            return self.seq_op(e)
        if isinstance(e, ex.At | ex.Update):
            return self.func_op(e)
        if isinstance(e, ex.FuncLit):
            return tuple(t for item in e.items for t in self.tr(item, e.domain.value))
        if isinstance(e, ex.SetOp):
            return self.set_op(e)
        if isinstance(e, ex.Enabled | ex.Bound):  # expanded, or substituted by `unroll`
            raise TypeError(f"cannot translate {type(e).__name__}")
        assert_never(e)

    def seq_op(self, e: ex.SeqOp) -> Enc:
        dom = infer(e.seq, self.typer)
        assert isinstance(dom, Seq)
        enc = self.tr(e.seq, dom)
        n, elem = enc[0], dom.element
        parts = _parts(elem, enc[1:], dom.max_len)
        if e.op == "len":
            return (n,)
        if e.op == "head":
            return parts[0]
        if e.op == "tail":
            shifted = [*parts[1:], _default(elem)]
            return (n - 1, *[t for p in shifted for t in p])
        assert e.arg is not None
        if e.op == "index":
            k = self.tr(e.arg, IntRange(-(2**31), 2**31))[0]  # out of range: undefined
            picked = parts[-1]
            for i in range(dom.max_len - 2, -1, -1):
                picked = _ite(k == i + 1, parts[i], picked)
            return picked
        item = self.tr(e.arg, elem)
        grown = [_ite(n == i, item, p) for i, p in enumerate(parts)]
        return (n + 1, *[t for p in grown for t in p])

    def func_op(self, e: ex.At | ex.Update) -> Enc:
        dom = infer(e.func, self.typer)
        assert isinstance(dom, Func)
        parts = _parts(dom.value, self.tr(e.func, dom), len(dom.keys))
        if isinstance(e.key, ex.Const):
            hits = [z3.BoolVal(k == e.key.value) for k in dom.keys]
        else:
            key = self.tr(e.key, dom.index)
            hits = [_equal(dom.index, key, encode_value(dom.index, k)) for k in dom.keys]
        if isinstance(e, ex.At):
            picked = parts[-1]
            for hit, p in zip(reversed(hits[:-1]), reversed(parts[:-1]), strict=True):
                picked = _ite(hit, p, picked)
            return picked
        value = self.tr(e.value, dom.value)
        return tuple(t for hit, p in zip(hits, parts, strict=True) for t in _ite(hit, value, p))

    def set_op(self, e: ex.SetOp) -> Enc:
        dom = infer(e.set, self.typer)
        assert isinstance(dom, Set)
        bits = self.tr(e.set, dom)
        if e.op == "size":
            return (z3.Sum(*[z3.If(b, 1, 0) for b in bits]),)
        assert e.item is not None
        elements = _elements(dom)
        item = self.tr(e.item, dom.element)
        hits = [_equal(dom.element, item, encode_value(dom.element, x)) for x in elements]
        if e.op == "member":
            return (z3.Or(*[z3.And(h, b) for h, b in zip(hits, bits, strict=True)]),)
        if e.op == "add":
            return tuple(z3.Or(b, h) for h, b in zip(hits, bits, strict=True))
        return tuple(z3.And(b, z3.Not(h)) for h, b in zip(hits, bits, strict=True))

    def b(self, e: Expr) -> Term:
        return self.tr(e, Bool())[0]

    def ref_or_tr(self, e: Expr) -> Enc:
        dom = infer(e, self.typer)
        assert dom is not None
        return self.tr(e, dom)

    def ref(self, e: ex.Ref) -> Enc:
        if e.scope == "pre":
            return self.pre[e.name]
        if e.scope == "post":
            assert self.post is not None, "after-state used outside a step"
            return self.post[e.name]
        assert self.act is not None, f"{e.scope} {e.name!r} used outside a step"
        if e.scope == "out":
            return self.act.outputs[e.name]
        if self.trigger is None:
            return self.argument(e.name)
        return self.act.params[(self.trigger, e.name)]

    def argument(self, name: str) -> Enc:
        """A property's `param(name)`: the argument of whichever trigger fired (properties
        read it under `trigger_is`, so a trigger without it never matters)."""
        assert self.act is not None
        owners = [t.name for t in self.enc.spec.triggers if any(p.name == name for p in t.params)]
        enc = self.act.params[(owners[-1], name)]
        for t in reversed(owners[:-1]):
            fired = self.act.trigger == self.enc.trigger_consts[t]
            mine = self.act.params[(t, name)]
            enc = tuple(z3.If(fired, a, b) for a, b in zip(mine, enc, strict=True))
        return enc

    def step_is(self, e: ex.StepIs) -> Term:
        assert self.act is not None, "step predicate used outside a step"
        enc = self.enc
        if e.kind == "row":
            return z3.Or(*[self.act.row == enc.row_consts[n] for n in e.names])
        names = (
            e.names
            if e.kind == "trigger"
            else tuple(t.name for t in enc.spec.triggers if t.group in e.names)
        )
        return z3.Or(*[self.act.trigger == enc.trigger_consts[n] for n in names])


# ---------------------------------------------------------------- engines


def _solver() -> Term:
    return z3.Solver()  # each check sets its timeout from the budget (`_check`)


class Engines:
    """BMC, k-induction and Spacer over one encoding.

    One BMC unrolling and one Spacer fixedpoint serve every query of the
    spec: unrolling T once and letting Spacer keep what it learnt is what
    keeps a whole spec's checks to a fraction of a second.
    """

    def __init__(self, enc: Encoding, budget: Budget | None = None) -> None:
        self.enc = enc
        self.budget = budget or Budget()
        self._unrolling: Term = None
        self._frames: list[Frame] = []
        self._acts: list[Action] = []
        self._fp: Term = None
        self._stepping: tuple[Term, Term] | None = None  # solvers for certificate checks
        self._queries = itertools.count()

    # ------------------------------------------------------------ predicates

    def _at(
        self,
        e: Expr,
        frames: Sequence[Frame],
        acts: Sequence[Action],
        at: int,
        step: bool,
        params_of: str | None,
        tag: str,
    ) -> Term:
        """`e` on state `at`, or on the step from state `at` to `at + 1`.

        With `params_of`, a state predicate may also read that trigger's
        parameters, drawn from a fresh probe action.
        """
        enc = self.enc
        if step:
            return enc.expr(e, pre=frames[at], post=frames[at + 1], act=acts[at])
        if params_of is not None:
            probe = enc.action(f"probe{tag}")
            return z3.And(
                enc.action_ok(probe), enc.expr(e, pre=frames[at], act=probe, trigger=params_of)
            )
        return enc.expr(e, pre=frames[at])

    # ------------------------------------------------------------ BMC

    def _unroll(self, depth: int) -> None:
        enc = self.enc
        if self._unrolling is None:
            self._unrolling = _solver()
            self._frames = [enc.frame("0")]
            self._unrolling.add(enc.init(self._frames[0]), enc.frame_ok(self._frames[0]))
        while len(self._frames) <= depth:
            i = len(self._frames) - 1
            self._frames.append(enc.frame(str(i + 1)))
            self._acts.append(enc.action(str(i)))
            self._unrolling.add(enc.trans(self._frames[i], self._frames[i + 1], self._acts[i]))

    def bmc(
        self, target: Expr, *, step: bool, max_depth: int, params_of: str | None = None
    ) -> Verdict:
        """The shortest trace reaching `target` (a state, or a step), up to `max_depth` steps."""
        for depth in range(1 if step else 0, max_depth + 1):
            self._unroll(depth)
            solver = self._unrolling
            solver.push()
            at = depth - 1 if step else depth
            solver.add(self._at(target, self._frames, self._acts, at, step, params_of, str(depth)))
            try:
                result = _check(self.budget, "bmc", solver)
            except SolverLimit as limit:
                solver.pop()
                return Unknown("bmc", f"at depth {depth}: {limit.reason}")
            if result == z3.sat:
                trace = self.enc.read_trace(
                    solver.model(), self._frames[: depth + 1], self._acts[:depth]
                )
                solver.pop()
                return Found("bmc", trace)
            solver.pop()
        return Unknown("bmc", f"nothing found up to depth {max_depth}")

    # ------------------------------------------------------------ k-induction

    def k_induction(
        self, good: Expr, *, step: bool, max_k: int, params_of: str | None = None
    ) -> Verdict:
        """Prove `good` on every reachable state (or step) by k-induction with simple paths.

        At depth k the step case is a simple path of k good states (or steps)
        followed by a bad one; unsat proves `good` for every trace length.
        """
        enc = self.enc
        for k in range(max_k + 1):
            base = self.bmc(
                ex.Not(good), step=step, max_depth=k + (1 if step else 0), params_of=params_of
            )
            if isinstance(base, Found):
                return Found("k-induction", base.trace)
            if isinstance(base, Unknown) and not base.reason.startswith("nothing found"):
                return Unknown("k-induction", base.reason)
            solver = _solver()
            frames = [enc.frame(f"i{i}") for i in range(k + 1 + (1 if step else 0))]
            acts = [enc.action(f"i{i}") for i in range(len(frames) - 1)]
            for f in frames:
                solver.add(enc.frame_ok(f))
            for i, act in enumerate(acts):
                solver.add(enc.trans(frames[i], frames[i + 1], act))
            for i in range(k):
                solver.add(self._at(good, frames, acts, i, step, params_of, f"h{i}"))
            solver.add(self._at(ex.Not(good), frames, acts, k, step, params_of, "bad"))
            for i, j in itertools.combinations(range(k + 1), 2):
                solver.add(z3.Not(enc.same(frames[i], frames[j])))
            try:
                result = _check(self.budget, "k-induction", solver)
            except SolverLimit as limit:
                return Unknown("k-induction", f"at k={k}: {limit.reason}")
            if result == z3.unsat:
                return Proved("k-induction", k, f"{k}-inductive over simple paths")
        return Unknown("k-induction", f"not inductive up to k={max_k}")

    def impossible(self, bad: Expr, *, params_of: str | None = None) -> bool:
        """`bad` holds in no type-correct state at all (0-induction: no reachability needed)."""
        _, _, s, _, _, trans = self._spacer()
        solver = self._stepping_solvers(s, trans)[0]
        solver.push()
        solver.add(self._at(bad, [s], [], 0, False, params_of, "any"))
        try:
            result = _check(self.budget, "k-induction", solver)
        finally:
            solver.pop()
        return bool(result == z3.unsat)

    # ------------------------------------------------------------ Spacer

    def prepare(self) -> None:
        """Build the spec's Spacer fixedpoint and stepping solvers now (encoding T is
        Python's work), so that a budget started after this counts z3's search alone."""
        _, _, s, _, _, trans = self._spacer()
        self._stepping_solvers(s, trans)

    def _spacer(self) -> tuple[Term, Term, Frame, Frame, Action, Term]:
        if self._fp is None:
            enc = self.enc
            fp = z3.Fixedpoint()
            fp.set(engine="spacer")
            fp.set("xform.inline_linear", False)
            fp.set("xform.inline_eager", False)
            reach = z3.Function(f"reach_{enc.spec.name}", *enc.flat_sorts(), z3.BoolSort())
            fp.register_relation(reach)
            s, s2, act = enc.frame("s"), enc.frame("t"), enc.action("a")
            variables = enc.flat(s) + enc.flat(s2) + [act.trigger, act.row]
            variables += [t for e in act.params.values() for t in e]
            variables += [t for e in act.outputs.values() for t in e]
            fp.declare_var(*variables)
            trans = enc.trans(s, s2, act)
            fp.rule(reach(*enc.flat(s)), [enc.init(s), enc.frame_ok(s)])
            fp.rule(reach(*enc.flat(s2)), [reach(*enc.flat(s)), enc.frame_ok(s), trans])
            self._fp = (fp, reach, s, s2, act, trans)
        return self._fp  # type: ignore[no-any-return]

    def spacer(self, bad: Expr, *, step: bool, params_of: str | None = None) -> Verdict | None:
        """Ask Spacer whether `bad` is reachable. Safe → its inductive invariant, re-checked.

        Returns None when `bad` is reachable: the caller asks BMC for the shortest trace.
        """
        enc = self.enc
        fp, reach, s, s2, act, trans = self._spacer()
        goal = z3.Function(f"bad_{next(self._queries)}", z3.BoolSort())
        fp.register_relation(goal)
        if step:
            bad_term = enc.expr(bad, pre=s, post=s2, act=act)
            body = [reach(*enc.flat(s)), trans, bad_term]
        elif params_of is not None:
            bad_term = z3.And(enc.action_ok(act), enc.expr(bad, pre=s, act=act, trigger=params_of))
            body = [reach(*enc.flat(s)), bad_term]
        else:
            bad_term = enc.expr(bad, pre=s)
            body = [reach(*enc.flat(s)), bad_term]
        fp.rule(goal(), body)
        try:
            fp.set("timeout", self.budget.remaining_ms("spacer"))
            with _ctrl_c():
                result = fp.query(goal())
        except z3.Z3Exception as error:
            # A canceled fixedpoint keeps no usable state: the next query builds a fresh one.
            self._fp = None
            _interrupt(self.budget, _message(error))
            return Unknown("spacer", f"z3 error: {_message(error)}")
        except SolverLimit as limit:
            return Unknown("spacer", limit.reason)
        if result == z3.sat:
            return None
        if result != z3.unsat:
            self._fp = None
            _interrupt(self.budget, fp.reason_unknown())
            return Unknown("spacer", f"z3 unknown: {fp.reason_unknown()}")
        cover = fp.get_cover_delta(-1, reach)
        invariant = z3.substitute_vars(cover, *enc.flat(s))
        problem = self._check_certificate(invariant, s, s2, trans, bad_term, step)
        if problem:
            return Unknown("spacer", f"Spacer's invariant did not check: {problem}")
        return Proved("spacer", None, "inv: " + _readable(z3.simplify(invariant)))

    def no_bad_step(self, bad: Expr) -> bool:
        """No step from any type-correct state is `bad` (0-induction on a step property).

        Cheap, and it settles most step properties outright; the rest go to Spacer.
        """
        _, _, s, s2, act, trans = self._spacer()
        stepping = self._stepping_solvers(s, trans)[1]
        stepping.push()
        stepping.add(self.enc.expr(bad, pre=s, post=s2, act=act))
        try:
            result = _check(self.budget, "k-induction", stepping)
        finally:
            stepping.pop()
        return bool(result == z3.unsat)

    def _stepping_solvers(self, s: Frame, trans: Term) -> tuple[Term, Term]:
        """Two solvers kept for the spec: type-correct states, and type-correct steps (T)."""
        if self._stepping is None:
            self._stepping = (_solver(), _solver())
            self._stepping[0].add(self.enc.frame_ok(s))
            self._stepping[1].add(self.enc.frame_ok(s), trans)
        return self._stepping

    def _check_certificate(
        self, inv: Term, s: Frame, s2: Frame, trans: Term, bad_term: Term, step: bool
    ) -> str:
        """Init ⇒ Inv, Inv ∧ T ⇒ Inv′, Inv ⇒ ¬bad: the three queries that make Inv a proof.

        T is asserted once in a solver kept for the spec; each check pushes its own part.
        """
        enc = self.enc
        state, stepping = self._stepping_solvers(s, trans)
        inv_next = z3.substitute(inv, *zip(enc.flat(s), enc.flat(s2), strict=True))
        queries = [
            ("init does not imply it", state, [enc.init(s), z3.Not(inv)]),
            ("it is not inductive", stepping, [inv, z3.Not(inv_next)]),
            ("it does not exclude the bad states", stepping if step else state, [inv, bad_term]),
        ]
        for problem, solver, query in queries:
            solver.push()
            solver.add(*query)
            try:
                result = _check(self.budget, "spacer", solver)
            finally:
                solver.pop()
            if result != z3.unsat:
                return problem
        return ""

    # ------------------------------------------------------------ confirming a trace

    def confirm(self, trace: Trace, target: Expr, *, step: bool) -> Verdict:
        """z3's reading of an explorer trace: it starts in an initial state, every step
        satisfies T (states, row, arguments and outputs pinned), and it ends on `target`."""
        enc = self.enc
        _, _, s, s2, act, trans = self._spacer()
        state, stepping = self._stepping_solvers(s, trans)
        pins = _pin(enc, s, trace.init)
        if _check(self.budget, "z3-confirm", state, enc.init(s), *pins) != z3.sat:
            return Unknown("z3-confirm", f"the trace's first state {trace.init} is not initial")
        pre = trace.init
        for n, st in enumerate(trace.steps, start=1):
            pins = _pin(enc, s, pre) + _pin(enc, s2, st.state) + _pin_action(enc, act, st)
            if step and n == len(trace.steps):
                stepping.push()
                stepping.add(enc.expr(target, pre=s, post=s2, act=act))
                try:
                    result = _check(self.budget, "z3-confirm", stepping, *pins)
                finally:
                    stepping.pop()
                if result != z3.sat:
                    return Unknown("z3-confirm", f"the last step ({st.row}) is not the target")
            elif _check(self.budget, "z3-confirm", stepping, *pins) != z3.sat:
                return Unknown("z3-confirm", f"step {n} ({st.row}) is not a z3 transition")
            pre = st.state
        if not step:
            state.push()
            state.add(enc.expr(target, pre=s))
            try:
                result = _check(self.budget, "z3-confirm", state, *_pin(enc, s, pre))
            finally:
                state.pop()
            if result != z3.sat:
                return Unknown("z3-confirm", "the trace's last state is not the target")
        return Found("bfs", trace)


def _readable(term: Term) -> str:
    """z3's printout of an invariant, with frame tags dropped and enum tests as equations."""
    text = " ".join(str(term).replace("\n", " ").split()).replace("@s", "")
    text = re.sub(r"Not\(is\((\w+), ([\w.]+)\)\)", r"\2 ≠ \1", text)
    return re.sub(r"is\((\w+), ([\w.]+)\)", r"\2 = \1", text)


def _pin(enc: Encoding, frame: Frame, state: Mapping[str, Value]) -> list[Term]:
    return [a == b for a, b in zip(enc.flat(frame), enc.flat(enc.concrete(state)), strict=True)]


def _pin_action(enc: Encoding, act: Action, st: Step) -> list[Term]:
    pins = [act.row == enc.row_consts[st.row]]
    for p in enc.spec.trigger(st.trigger).params:
        value = encode_value(p.domain, st.params[p.name])
        pins += [a == b for a, b in zip(act.params[(st.trigger, p.name)], value, strict=True)]
    for o in enc.spec.outputs:
        value = encode_value(o.domain, st.outputs[o.name])
        pins += [a == b for a, b in zip(act.outputs[o.name], value, strict=True)]
    return pins


# ---------------------------------------------------------------- set checks


def finite_view(enc: Encoding, frame: Frame, state: Mapping[str, Value]) -> Term:
    """`frame` agrees with `state` on its finite part (a real contributes nothing;
    an optional real, only whether it is set)."""
    parts = []
    for v in enc.spec.vars:
        if v.domain.is_finite:
            parts.append(_equal(v.domain, frame[v.name], encode_value(v.domain, state[v.name])))
        elif isinstance(v.domain, Option):
            parts.append(frame[v.name][0] == z3.BoolVal(state[v.name] is not None))
    return z3.And(*parts)


def _finite_views(enc: Encoding, frame: Frame, states: Sequence[Mapping[str, Value]]) -> list[Term]:
    """`finite_view` of each state, each variable's equation built once per value: states
    share most of their values, and building z3 terms in Python is the set check's cost."""
    made: dict[tuple[str, Value], Term] = {}
    views = []
    for state in states:
        parts = []
        for v in enc.spec.vars:
            value = state[v.name]
            key = (v.name, value)  # every value is hashable: tuples, frozensets, FuncValue
            part = made.get(key)
            if part is None:
                if v.domain.is_finite:
                    part = _equal(v.domain, frame[v.name], encode_value(v.domain, value))
                elif isinstance(v.domain, Option):
                    part = frame[v.name][0] == z3.BoolVal(value is not None)
                else:
                    continue
                made[key] = part
            parts.append(part)
        views.append(z3.And(*parts))
    return views


def finite_key(spec: Spec, state: Mapping[str, Value]) -> tuple[Value, ...]:
    key: list[Value] = []
    for v in spec.vars:
        if v.domain.is_finite:
            key.append(state[v.name])
        elif isinstance(v.domain, Option):
            key.append(state[v.name] is not None)
    return tuple(key)


@dataclass(frozen=True)
class SetCheck:
    """z3's reading of the explorer's reachable set: equal, or where they part."""

    equal: bool
    detail: str
    trace: Trace | None = None


def check_reachable_set(
    enc: Encoding,
    states: Sequence[Mapping[str, Value]],
    tree_edges: Iterable[tuple[Mapping[str, Value], Step]],
    budget: Budget | None = None,
) -> SetCheck:
    """Prove z3's reachable set (finite part) equals `states`.

    init ⊆ R and R closed under T give reach ⊆ R; every explorer tree edge (its state
    before, and the step) being a z3 transition gives R ⊆ reach.
    """
    budget = budget or Budget()
    engine = "reachable-set"
    distinct = {finite_key(enc.spec, s): s for s in states}
    s, s2, act = enc.frame("r"), enc.frame("r2"), enc.action("ra")
    member = z3.Or(*_finite_views(enc, s, list(distinct.values())))
    member2 = _substitute(member, enc.flat(s), enc.flat(s2))  # built once, renamed in C
    solver = _solver()
    solver.add(enc.init(s), enc.frame_ok(s), z3.Not(member))
    if (result := _check(budget, engine, solver)) != z3.unsat:
        return SetCheck(False, f"z3 has an initial state the explorer lacks ({result})")
    solver = _solver()
    solver.add(member, enc.frame_ok(s), enc.trans(s, s2, act), z3.Not(member2))
    result = _check(budget, engine, solver)
    if result == z3.sat:
        model = solver.model()
        return SetCheck(
            False,
            f"z3 steps from {enc.read_state(model, s)} by row "
            f"{model.eval(act.row)} to {enc.read_state(model, s2)}, "
            "which the explorer never reached",
        )
    count = 0
    for count, (pre, step) in enumerate(tree_edges, start=1):  # noqa: B007
        budget.remaining_ms(engine)  # a ground check each: the budget is read between them
        if not enc.is_step(pre, step):
            return SetCheck(
                False,
                f"the explorer's step {dict(pre)} --{step.row}--> {dict(step.state)} "
                "is not a z3 transition",
            )
    edges = f"{plural(count, 'tree edge')} {'is a' if count == 1 else 'are'} z3 transition"
    return SetCheck(
        True,
        f"{plural(len(distinct), 'state')}: init ⊆ R, R closed under T, "
        f"{edges}{'' if count == 1 else 's'}",
    )


def check_reachable_sample(
    enc: Encoding,
    initial: Sequence[Mapping[str, Value]],
    total: int,
    sample: Sequence[tuple[Mapping[str, Value], Sequence[Step]]],
    budget: Budget | None = None,
) -> SetCheck:
    """The set check for big state spaces, on a sample: z3's initial states (finite part)
    are the explorer's, and from each sampled state z3's successors are exactly the
    explorer's: every explorer step is a z3 transition (one query for all of them), and z3
    has no step to any other state (one more)."""
    budget = budget or Budget()
    engine = "reachable-set"
    spec = enc.spec
    s, s2, act = enc.frame("q"), enc.frame("q2"), enc.action("qa")
    inits = [finite_view(enc, s, x) for x in {finite_key(spec, x): x for x in initial}.values()]
    solver = _solver()
    solver.add(enc.init(s), enc.frame_ok(s), z3.Not(z3.Or(*inits)))
    if _check(budget, engine, solver) != z3.unsat:
        found = enc.read_state(solver.model(), s)
        return SetCheck(False, f"z3 has an initial state the explorer lacks: {found}")
    others = _solver()
    others.add(enc.frame_ok(s), enc.trans(s, s2, act))
    edges = 0
    for state, steps in sample:
        pinned = _pin(enc, s, state)
        for st in steps:
            if not enc.is_step(state, st):
                return SetCheck(
                    False, f"the explorer's step {dict(state)} --{st.row}--> is not a z3 transition"
                )
        views = [finite_view(enc, s2, st.state) for st in steps]
        others.push()
        others.add(*pinned, z3.Not(z3.Or(*views)) if views else z3.BoolVal(True))
        try:
            if _check(budget, engine, others) == z3.sat:
                found = enc.read_state(others.model(), s2)
                return SetCheck(
                    False, f"z3 steps from {dict(state)} to {found}, which the explorer lacks"
                )
        finally:
            others.pop()
        edges += len(steps)
    return SetCheck(
        True,
        f"sampled {len(sample)} of {total} states (seed {SET_SAMPLE_SEED}): init = z3's; "
        f"from each, z3's successors = the explorer's ({edges} steps)",
    )


def sample_states(total: int) -> list[int]:
    """The states the sampled set check visits: seeded, so a run can be repeated."""
    return sorted(random.Random(SET_SAMPLE_SEED).sample(range(total), min(SET_SAMPLE, total)))


# z3's own exception type, for the checker's last line of defence (it must not import z3).
Z3_ERRORS: tuple[type[Exception], ...] = (z3.Z3Exception,)
# Everything z3 gives up with: a limit it reached, or an error of its own.
GAVE_UP: tuple[type[Exception], ...] = (SolverLimit, *Z3_ERRORS)


def gave_up(error: Exception) -> Unknown:
    """The `unknown` an exception in `GAVE_UP` stands for: a limit names its engine."""
    if isinstance(error, SolverLimit):
        return Unknown(error.engine, error.reason)
    return Unknown("z3", str(error))


# ---------------------------------------------------------------- mutant equivalence


@dataclass(frozen=True)
class Equivalence:
    """z3's verdict on a mutant: the same reachable behaviour as the original, or where not."""

    equal: bool
    detail: str


# Originals whose reachable set is proved an inductive invariant, by id (the spec kept alive
# beside its states' keys, so the id cannot be reused by another spec).
_PROVED_INVARIANT: dict[int, tuple[Spec, tuple[object, ...]]] = {}


def prove_equivalent(
    original: Spec,
    mutant: Spec,
    states: Sequence[Mapping[str, Value]],
    budget: Budget | None = None,
) -> Equivalence:
    """Prove that `mutant` has the original's reachable behaviour, for every real value too.

    `states` is the original's reachable set (the explorer's; its finite part). The
    proof: (1) R is an inductive invariant of the original (init ⊆ R, R closed under
    T); (2) both start in the same states; (3) from every state of R, for every
    trigger and argument, the two allow exactly the same steps: the same after-states
    and the same outputs (which row fires is a name, not behaviour). By induction
    the mutant then reaches exactly R and does there what the original does.
    """
    eo, em = Encoding(original), Encoding(mutant)
    # Both specs declare the same variables and outputs, so one set of constants serves both.
    s, s2, act = eo.frame("eq"), eo.frame("eq2"), eo.action("eq")
    distinct = {finite_key(original, x): x for x in states}
    member = z3.Or(*[finite_view(eo, s, x) for x in distinct.values()])
    member2 = z3.Or(*[finite_view(eo, s2, x) for x in distinct.values()])
    # (1) is about the original alone: proved once per original and set of states.
    invariant = (id(original), tuple(distinct))
    queries = []
    if _PROVED_INVARIANT.get(invariant[0], (None, None))[1] != invariant[1]:
        queries += [
            ("an initial state lies outside R", z3.And(eo.init(s), z3.Not(member))),
            (
                "R is not closed under the original's steps",
                z3.And(member, eo.trans(s, s2, act), z3.Not(member2)),
            ),
        ]
    queries.append(("the initial states differ", eo.init(s) != em.init(s)))
    for t in original.triggers:
        if mutant.rows_of(t.name) == original.rows_of(t.name):
            continue  # the same rows: the same steps, and the encoding is the same formula
        queries.append(
            (
                f"a {t.name} step differs (after-state or outputs)",
                z3.And(member, _moves(eo, t.name, s, s2, act) != _moves(em, t.name, s, s2, act)),
            )
        )
    budget = budget or gate_budget()
    for what, query in queries:
        solver = _solver()
        solver.add(eo.frame_ok(s), eo.frame_ok(s2), eo.action_ok(act), query)
        try:
            result = _check(budget, "equivalence", solver)
        except SolverLimit as limit:  # not proved: the mutant stays a survivor
            return Equivalence(False, f"{what}? {limit}")
        if result == z3.sat:
            return Equivalence(False, f"{what}: from {eo.read_state(solver.model(), s)}")
        if what.startswith("R is not closed"):
            _PROVED_INVARIANT[invariant[0]] = (original, invariant[1])
    return Equivalence(
        True,
        f"same initial states, and every step of every trigger the same on the {len(distinct)} "
        "reachable states",
    )


def _moves(enc: Encoding, trigger: str, pre: Frame, post: Frame, act: Action) -> Term:
    """Some row of `trigger` takes `pre` to `post` with `act`'s outputs (whichever row)."""
    # The row and trigger names live in this encoding's own sorts; the arguments are shared.
    own = Action(
        z3.Const("trigger@moves", enc.trigger_sort),
        z3.Const("row@moves", enc.row_sort),
        act.params,
        act.outputs,
    )
    steps = [
        z3.substitute(
            enc.row_step(r, pre, post, own),
            (own.row, enc.row_consts[r.name]),
            (own.trigger, enc.trigger_consts[trigger]),
        )
        for r in enc.spec.rows_of(trigger)
    ]
    return z3.simplify(z3.Or(*steps)) if steps else z3.BoolVal(False)


# ---------------------------------------------------------------- confirming a mutant's kill
#
# The mutant gate's model layer decides on the kernel explorer's graph; these replay what it
# found in z3 over the mutant's own transition relation, so that a kill never rests on the
# explorer alone (kernel/mutants.py `confirm`). Each returns None when z3 agrees, else why not.


def replay(spec: Spec, trace: Trace, target: Expr, *, step: bool) -> str | None:
    """The trace starts in an initial state, every step is a z3 transition of `spec` (its
    row, arguments, states and outputs pinned), and it ends on `target` (a state predicate,
    or a step predicate on its last step). A value the trace holds outside its domain (the
    explorer's reading of `unwrap(none)`) is left for z3 to choose: z3 must then find the
    same path to the target on its own."""
    enc = Encoding(spec)
    frames = [enc.frame(f"rp{n}") for n in range(len(trace) + 1)]
    acts = [enc.action(f"rp{n}") for n in range(len(trace))]
    solver = _solver()
    solver.add(enc.init(frames[0]), *(enc.frame_ok(f) for f in frames))
    for f, state in zip(frames, trace.states(), strict=True):
        solver.add(*_pin_known(enc, f, state))
    for n, st in enumerate(trace.steps):
        act = acts[n]
        # The row is pinned, so T narrows to that row's step (the others' disjuncts are
        # false): the same relation, without encoding every row for every step.
        solver.add(
            enc.row_step(spec.row(st.row), frames[n], frames[n + 1], act), enc.action_ok(act)
        )
        for p in spec.trigger(st.trigger).params:
            if p.domain.contains(st.params[p.name]):
                value = encode_value(p.domain, st.params[p.name])
                pinned = zip(act.params[(st.trigger, p.name)], value, strict=True)
                solver.add(*(a == b for a, b in pinned))
        for o in spec.outputs:
            if o.domain.contains(st.outputs[o.name]):
                value = encode_value(o.domain, st.outputs[o.name])
                solver.add(*(a == b for a, b in zip(act.outputs[o.name], value, strict=True)))
    if step:
        if not trace.steps:
            return "z3 replay: a step target on a trace of no steps"
        solver.add(enc.expr(target, pre=frames[-2], post=frames[-1], act=acts[-1]))
    else:
        solver.add(enc.expr(target, pre=frames[-1]))
    if _check(gate_budget(), "z3-confirm", solver) == z3.sat:
        return None
    return (
        f"z3 replay: no z3 run of the mutant follows the {plural(len(trace), 'step')} to the target"
    )


def _pin_known(enc: Encoding, frame: Frame, state: Mapping[str, Value]) -> list[Term]:
    """`frame` pinned to `state`, except where the state holds a value outside its domain."""
    return [
        a == b
        for v in enc.spec.vars
        if v.domain.contains(state[v.name])
        for a, b in zip(frame[v.name], encode_value(v.domain, state[v.name]), strict=True)
    ]


def enabled_rows(
    spec: Spec, state: Mapping[str, Value], trigger: str, params: Mapping[str, Value]
) -> set[str]:
    """The rows of `trigger` whose guard z3 finds true in `state` with these arguments."""
    enc = Encoding(spec)
    act = enc.action("enabled")
    pre = enc.frame("enabled")
    found = set()
    for r in spec.rows_of(trigger):
        pins = [
            a == b
            for p in spec.trigger(trigger).params
            for a, b in zip(
                act.params[(trigger, p.name)], encode_value(p.domain, params[p.name]), strict=True
            )
        ]
        solver = _solver()
        solver.add(enc.frame_ok(pre), *_pin_known(enc, pre, state))
        solver.add(enc.enabled(r, pre, act), *pins)
        if _check(gate_budget(), "z3-confirm", solver) == z3.sat:
            found.add(r.name)
    return found


def absent(
    spec: Spec, states: Sequence[Mapping[str, Value]], target: Expr, *, step: bool
) -> str | None:
    """Nothing reachable meets `target`: the explorer's set R (finite part) holds every
    initial state and is closed under z3's T, and no state of R (or step from R) meets it."""
    enc = Encoding(spec)
    budget = gate_budget()
    distinct = {finite_key(spec, x): x for x in states}
    s, s2, act = enc.frame("ab"), enc.frame("ab2"), enc.action("ab")
    member = z3.Or(*[finite_view(enc, s, x) for x in distinct.values()])
    member2 = z3.Or(*[finite_view(enc, s2, x) for x in distinct.values()])
    hit = (
        z3.And(enc.trans(s, s2, act), enc.expr(target, pre=s, post=s2, act=act))
        if step
        else enc.expr(target, pre=s)
    )
    queries = (
        ("z3 has an initial state outside the explorer's set", z3.And(enc.init(s), z3.Not(member))),
        (
            "z3 steps out of the explorer's set",
            z3.And(member, enc.trans(s, s2, act), z3.Not(member2)),
        ),
        ("z3 finds what the explorer did not", z3.And(member, hit)),
    )
    for what, query in queries:
        solver = _solver()
        solver.add(enc.frame_ok(s), enc.frame_ok(s2), enc.action_ok(act), query)
        try:
            result = _check(budget, "z3-confirm", solver)
        except SolverLimit as limit:
            return f"{what}? {limit.reason}"
        if result != z3.unsat:
            where = enc.read_state(solver.model(), s) if result == z3.sat else result
            return f"{what}: {where}"
    return None


def _step_terms(
    enc: Encoding, props: Sequence[Property], pre: Frame, post: Frame, act: Action
) -> list[Term]:
    return [
        enc.expr(p.pred if p.kind is Kind.ALWAYS else ex.Not(p.pred), pre=pre, post=post, act=act)
        for p in props
        if p.kind is not Kind.SOMETIMES
    ]


def same_requirements(original: Spec, mutant: Spec) -> Equivalence:
    """Prove that the mutant's properties demand what the original's do, of any step at all
    (any typed states, trigger, arguments and outputs, whatever the rows): the properties the
    two share, with either version of the changed ones, hold of exactly the same steps."""
    enc = Encoding(original)
    s, s2, act = enc.frame("rq"), enc.frame("rq2"), enc.action("rq")
    shared = [p for p in mutant.properties if p in original.properties]
    before = [p for p in original.properties if p not in mutant.properties]
    after = [p for p in mutant.properties if p not in original.properties]
    solver = _solver()
    solver.add(enc.frame_ok(s), enc.frame_ok(s2), enc.action_ok(act))
    solver.add(z3.Or(*[act.trigger == c for c in enc.trigger_consts.values()]))
    solver.add(*_step_terms(enc, shared, s, s2, act))
    one = z3.And(*_step_terms(enc, before, s, s2, act))
    other = z3.And(*_step_terms(enc, after, s, s2, act))
    solver.add(one != other)
    try:
        result = _check(gate_budget(), "equivalence", solver)
    except SolverLimit as limit:
        return Equivalence(False, f"not proved: {limit.reason}")
    if result == z3.sat:
        return Equivalence(
            False, f"the two differ on a step from {enc.read_state(solver.model(), s)}"
        )
    names = ", ".join(p.name for p in after)
    return Equivalence(True, f"{names}: the same steps pass, given the other properties")


def valid(spec: Spec, pred: Expr) -> bool:
    """Does `pred` hold of every typed step (states, trigger, arguments, outputs)?"""
    enc = Encoding(spec)
    s, s2, act = enc.frame("va"), enc.frame("va2"), enc.action("va")
    solver = _solver()
    solver.add(enc.frame_ok(s), enc.frame_ok(s2), enc.action_ok(act))
    solver.add(z3.Or(*[act.trigger == c for c in enc.trigger_consts.values()]))
    solver.add(z3.Not(enc.expr(pred, pre=s, post=s2, act=act)))
    return bool(_check(gate_budget(), "validity", solver) == z3.unsat)
