"""The explicit-state explorer: breadth-first search over compiled rows.

Each spec's rows are compiled once into straight-line Python over compact
states (one tuple of values per state, variables in declaration order): for
every firing (a trigger with one assignment of its parameters) the guards of
that trigger's rows are tested in spec order and the first enabled row builds
the successor tuple, exactly as the `transitions` Machine in `oracle.py`
fires the first transition whose conditions hold (a test cross-checks the two
on every spec and variant). Parameters are bound to constants per firing and
constant subterms are folded before the code is generated.

The search keeps, per state, its depth and its BFS parent (the source state
and which firing and row led there), so every path it returns is a shortest
one. Edges are not stored: they are regenerated on demand from the compiled
successor function, in BFS order, for the checks that need them (step
properties, rows-fire, diagrams, conformance replays). Real variables are
drawn from their declared samples.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .domains import Domain, IntRange, Option, Value
from .expr import (
    Add,
    And,
    Cmp,
    Const,
    Env,
    Eq,
    Expr,
    ExprTypeError,
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
    evaluate,
    walk,
)
from .oracle import OracleError
from .spec import Row, Spec
from .trace import Step, Trace

State = tuple[Value, ...]

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
    """`e` with `f` applied to each direct child expression."""
    changes: dict[str, Any] = {}
    for fld in dataclasses.fields(e):  # type: ignore[arg-type]
        value = getattr(e, fld.name)
        if isinstance(value, Expr):
            changes[fld.name] = f(value)
        elif isinstance(value, tuple) and value and all(isinstance(x, Expr) for x in value):
            changes[fld.name] = tuple(f(x) for x in value)
    return dataclasses.replace(e, **changes) if changes else e  # type: ignore[type-var]


def _closed(e: Expr) -> bool:
    return not any(isinstance(n, Ref | StepIs) for n in walk(e))


def _fold(e: Expr) -> Expr:
    """Evaluate closed subterms; simplify connectives with constant arguments."""
    e = _map(e, _fold)
    if isinstance(e, Const):
        return e
    if _closed(e):
        try:
            return Const(evaluate(e, Env(pre={})))
        except (TypeError, ValueError, ExprTypeError):
            return e  # a dead branch (say, unwrapping None): it is never evaluated at run time
    if isinstance(e, And):
        if any(isinstance(a, Const) and not a.value for a in e.args):
            return Const(False)
        args = tuple(a for a in e.args if not isinstance(a, Const))
        return args[0] if len(args) == 1 else And(args) if args else Const(True)
    if isinstance(e, Or):
        if any(isinstance(a, Const) and a.value for a in e.args):
            return Const(True)
        args = tuple(a for a in e.args if not isinstance(a, Const))
        return args[0] if len(args) == 1 else Or(args) if args else Const(False)
    if isinstance(e, Implies) and isinstance(e.premise, Const):
        return e.conclusion if e.premise.value else Const(True)
    if isinstance(e, Ite) and isinstance(e.cond, Const):
        return e.then if e.cond.value else e.other
    return e


# ---------------------------------------------------------------- code generation


class _Gen:
    """Python source for expressions over the pre-state locals `v0, v1, …`."""

    def __init__(self, spec: Spec) -> None:
        self.slot = {v.name: i for i, v in enumerate(spec.vars)}
        self.params: dict[str, str] = {}  # the current trigger's parameters, as locals
        self.consts: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}

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
        if isinstance(e, Const):
            return self.const(e.value)
        if isinstance(e, Ref):
            if e.scope == "param" and e.name in self.params:
                return self.params[e.name]
            if e.scope != "pre":
                raise ExprTypeError(f"{e.scope} values are not available here")
            return f"v{self.slot[e.name]}"
        if isinstance(e, Eq):
            return f"({self.src(e.left)} == {self.src(e.right)})"
        if isinstance(e, In):
            try:
                options: Any = frozenset(e.options)
            except TypeError:
                options = tuple(e.options)
            return f"({self.src(e.item)} in {self.const(options)})"
        if isinstance(e, Not):
            return f"(not {self.src(e.arg)})"
        if isinstance(e, And):
            return "(" + " and ".join(self.src(a) for a in e.args) + ")" if e.args else "True"
        if isinstance(e, Or):
            return "(" + " or ".join(self.src(a) for a in e.args) + ")" if e.args else "False"
        if isinstance(e, Implies):
            return f"((not {self.src(e.premise)}) or bool({self.src(e.conclusion)}))"
        if isinstance(e, Ite):
            return f"({self.src(e.then)} if {self.src(e.cond)} else {self.src(e.other)})"
        if isinstance(e, Cmp):
            return f"({self.src(e.left)} {e.op} {self.src(e.right)})"
        if isinstance(e, Add):
            return f"({self.src(e.left)} + {self.src(e.right)})"
        if isinstance(e, IsSome):
            return f"({self.src(e.arg)} is not None)"
        if isinstance(e, Some | Unwrap):
            return self.src(e.arg)
        raise ExprTypeError(f"cannot compile {type(e).__name__} here")


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


def _may_leave(domain: Domain, update: Expr) -> bool:
    """Can this update's value fall outside the variable's domain? Only through `add`."""
    bounded = isinstance(domain, IntRange) or (
        isinstance(domain, Option) and isinstance(domain.inner, IntRange)
    )
    return bounded and any(isinstance(n, Add) for n in walk(update))


class _Compiled:
    """One spec's rows as generated functions over state tuples.

    Per trigger, the code loops over its parameter assignments (locals `p0, p1, …`)
    and tests the trigger's rows in spec order; the first enabled row fires.
    """

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.rows: list[Row] = list(spec.rows)
        self.row_index = {r.name: i for i, r in enumerate(self.rows)}
        self.firings: list[_Firing] = []
        self.gen = _Gen(spec)
        # Per trigger: the first firing's index, its parameter tuples, and its cases.
        self.blocks: list[tuple[str, int, list[tuple[Value, ...]], list[_Case]]] = []
        for t in spec.triggers:
            assignments = spec.param_assignments(t.name)
            base = len(self.firings)
            self.firings += [_Firing(t.name, MappingProxyType(a)) for a in assignments]
            values = [tuple(a[p.name] for p in t.params) for a in assignments]
            self.blocks.append((t.name, base, values, self._cases(t.name)))
        self.bfs: Callable[..., None] = self._build_bfs()
        self.successors: Callable[[State], list[tuple[int, int, State]]] = self._build_succ()

    def _params(self, trigger: str) -> None:
        params = self.spec.trigger(trigger).params
        self.gen.params = {p.name: f"p{j}" for j, p in enumerate(params)}

    def _cases(self, trigger: str) -> list[_Case]:
        spec, gen = self.spec, self.gen
        self._params(trigger)
        out = []
        for r in spec.rows_of(trigger):
            ri = self.row_index[r.name]
            guard = _fold(spec.step_guard(r))
            if isinstance(guard, Const) and not guard.value:
                continue
            checks: list[str] = []
            slots: list[str] = []
            changed = False
            for j, v in enumerate(spec.vars):
                if v.name == spec.control and r.target is not None:
                    slots.append(gen.const(r.target))
                    changed = True
                    continue
                if v.name not in r.updates:
                    slots.append(f"v{j}")
                    continue
                upd = _fold(r.updates[v.name])
                if isinstance(upd, Ref) and upd.scope == "pre" and upd.name == v.name:
                    slots.append(f"v{j}")
                    continue
                changed = True
                if isinstance(upd, Const):
                    if not v.domain.contains(upd.value):
                        checks.append(f"_bad({ri}, {j}, {gen.const(upd.value)})")
                    slots.append(gen.const(upd.value))
                    continue
                if not _may_leave(v.domain, upd):
                    slots.append(gen.src(upd))
                    continue
                # Integer arithmetic can leave its range, as the oracle reports; nothing else
                # can: the spec's type check keeps every other update inside its domain.
                tmp = f"u{j}"
                checks.append(f"{tmp} = {gen.src(upd)}")
                if isinstance(v.domain, IntRange):
                    lo, hi = v.domain.lo, v.domain.hi
                    checks.append(f"if not ({lo} <= {tmp} <= {hi}): _bad({ri}, {j}, {tmp})")
                else:
                    domain = gen.const(v.domain)
                    checks.append(f"if not {domain}.contains({tmp}): _bad({ri}, {j}, {tmp})")
                slots.append(tmp)
            succ = "(" + "".join(x + ", " for x in slots) + ")" if changed else None
            out.append(_Case(ri, gen.src(guard), tuple(checks), succ))
            if isinstance(guard, Const):
                break  # always enabled: later rows of this trigger never fire
        return out

    def _bad(self, row: int, slot: int, value: Value) -> None:
        r, v = self.rows[row], self.spec.vars[slot]
        raise OracleError(
            f"row {r.name!r} sets {v.name!r} to {value!r}, outside {v.domain.describe()}"
        )

    def _unpack(self) -> str:
        n = len(self.spec.vars)
        return "".join(f"v{j}, " for j in range(n)) + "= s" if n else "pass"

    def _emit(
        self,
        lines: list[str],
        indent: str,
        body: Callable[[str, int, _Case, list[str]], None],
        undefined: str | None,
    ) -> None:
        """Per trigger: the loop over its parameters, then an if/elif chain over its rows.

        `body(indent, trigger index, case, lines)` writes what a firing row does; `undefined`
        is the statement for a firing no row answers (None: nothing)."""
        for t, (trigger, base, values, cases) in enumerate(self.blocks):
            arity = len(self.spec.trigger(trigger).params)
            inner = indent
            if arity:
                table = self.gen.const(tuple((base + j, v) for j, v in enumerate(values)))
                names = "".join(f"p{j}, " for j in range(arity))
                lines.append(f"{indent}for k, ({names}) in {table}:")
                inner = indent + "    "
            else:
                lines.append(f"{indent}k = {base}")
            first = True
            for case in cases:
                lines.append(f"{inner}{'if' if first else 'elif'} {case.guard}:")
                first = False
                body(inner + "    ", t, case, lines)
            if undefined is not None:
                if first:
                    lines.append(f"{inner}{undefined}")
                else:
                    lines += [f"{inner}else:", f"{inner}    {undefined}"]
            elif first and arity:
                lines.append(f"{inner}pass")

    def _exec(self, lines: list[str], name: str, extra: Mapping[str, Any] | None = None) -> Any:
        ns: dict[str, Any] = {**self.gen.consts, "_bad": self._bad, **(extra or {})}
        exec(compile("\n".join(lines), f"<{name} {self.spec.name}>", "exec"), ns)  # noqa: S102
        return ns[name]

    def _build_bfs(self) -> Callable[..., None]:
        rows = len(self.rows)

        def body(ind: str, t: int, case: _Case, lines: list[str]) -> None:
            lines += [f"{ind}{c}" for c in case.checks]
            if case.succ is None:
                lines.append(f"{ind}pass")
                return
            lines += [
                f"{ind}t = {case.succ}",
                f"{ind}if sd(t, n) == n:",
                f"{ind}    if n >= limit: raise _Limit(limit)",
                f"{ind}    push(t); dpush(d); ppush(i); cpush(k * {rows} + {case.row}); n += 1",
            ]

        lines = [
            "def bfs(states, index, depth, psrc, pcode, undefined, limit):",
            "    sd = index.setdefault",
            "    push, dpush = states.append, depth.append",
            "    ppush, cpush = psrc.append, pcode.append",
            "    n = len(states)",
            "    i = 0",
            "    while i < n:",
            "        s = states[i]",
            f"        {self._unpack()}",
            "        d = depth[i] + 1",
        ]
        self._emit(lines, "        ", body, "undefined.append((i, k))")
        lines.append("        i += 1")
        return self._exec(lines, "bfs", {"_Limit": ExplorationLimit})  # type: ignore[no-any-return]

    def _build_succ(self) -> Callable[[State], list[tuple[int, int, State]]]:
        """Every edge out of a state, in firing order: (firing, row, target)."""

        def body(ind: str, t: int, case: _Case, lines: list[str]) -> None:
            lines += [f"{ind}{c}" for c in case.checks]
            lines.append(f"{ind}out.append((k, {case.row}, {case.succ or 's'}))")

        lines = ["def succ(s):", f"    {self._unpack()}", "    out = []"]
        self._emit(lines, "    ", body, None)
        lines.append("    return out")
        return self._exec(lines, "succ")  # type: ignore[no-any-return]

    def state_test(self, pred: Expr) -> Callable[[list[State]], int | None]:
        """The first state (in BFS order) satisfying a state predicate."""
        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
            f"        if {self.gen.src(_fold(pred))}: return i",
            "    return None",
        ]
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def step_test(self, pred: Expr) -> Callable[[list[State]], tuple[int, int, int] | None]:
        """The first edge (BFS order of its source, then firing order) satisfying a step
        predicate, as (source, firing, row). The predicate is specialised to each row:
        outputs, the post-state and the step's names become expressions over the
        pre-state and the parameters, so it compiles like a guard."""

        def body(ind: str, t: int, case: _Case, lines: list[str]) -> None:
            self._params(self.blocks[t][0])
            test = self.gen.src(_fold(self._on_step(pred, self.rows[case.row])))
            lines.append(f"{ind}if {test}: return (i, k, {case.row})")

        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
        ]
        self._emit(lines, "        ", body, None)
        lines.append("    return None")
        return self._exec(lines, "first")  # type: ignore[no-any-return]

    def _on_step(self, pred: Expr, r: Row) -> Expr:
        spec = self.spec
        group = spec.group_of(r.trigger)

        def post(name: str) -> Expr:
            if name == spec.control and r.target is not None:
                return Const(r.target)
            return r.updates.get(name, Ref("pre", name))

        def go(x: Expr) -> Expr:
            if isinstance(x, Ref):
                if x.scope == "post":
                    return post(x.name)
                if x.scope == "out":
                    if x.name in r.outputs:
                        return r.outputs[x.name]
                    return Const(spec.output(x.name).default)
                return x
            if isinstance(x, StepIs):
                seen = {"trigger": r.trigger, "row": r.name, "group": group}[x.kind]
                return Const(seen in x.names)
            return _map(x, go)

        return go(pred)


# ---------------------------------------------------------------- the exploration


@dataclass
class Exploration:
    """The reachable states in BFS order, with depths and shortest-path parents."""

    spec: Spec
    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    depth: array[int] = field(default_factory=lambda: array("q"))
    # Firings no row answered: the spec is not total there (the totality check reports it).
    undefined: list[tuple[int, str, Mapping[str, Value]]] = field(default_factory=list)
    seconds: float = 0.0
    _code: _Compiled | None = field(default=None, repr=False)
    _psrc: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _pcode: array[int] = field(default_factory=lambda: array("q"), repr=False)
    _edges: list[Edge] | None = field(default=None, repr=False)
    _parents: list[Edge | None] | None = field(default=None, repr=False)

    @property
    def code(self) -> _Compiled:
        if self._code is None:
            self._code = _Compiled(self.spec)
        return self._code

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.spec.vars]

    def as_dict(self, i: int) -> dict[str, Value]:
        return dict(zip(self.names, self.states[i], strict=True))

    @property
    def diameter(self) -> int:
        return max(self.depth, default=0)

    @property
    def edge_count(self) -> int:
        """Every firing that some row answers (ignore rows are self-loops)."""
        return len(self.states) * len(self.code.firings) - len(self.undefined)

    # ------------------------------------------------------------ edges, on demand

    def _edge(self, source: int, firing: int, row: int, target: State) -> Edge:
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
            self.index[target],
            MappingProxyType(outputs),
        )

    def successors(self, i: int) -> list[Edge]:
        """The edges out of state `i`, in firing order."""
        return [self._edge(i, k, r, t) for k, r, t in self.code.successors(self.states[i])]

    def iter_edges(self) -> Iterator[Edge]:
        """Every edge, in BFS order of its source (so the first hit is a shallowest one)."""
        for i in range(len(self.states)):
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
            return self._edge(source, firing, row, self.states[i])
        return None

    @property
    def parent(self) -> list[Edge | None]:
        if self._parents is None:
            self._parents = [self.parent_of(i) for i in range(len(self.states))]
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

    def first_state(self, pred: Expr) -> int | None:
        """The shallowest state satisfying a state predicate (BFS order)."""
        return self.code.state_test(pred)(self.states)

    def first_edge(self, pred: Expr | Callable[[Edge], bool]) -> Edge | None:
        """The edge satisfying a step predicate with the shortest path through it."""
        if isinstance(pred, Expr):
            hit = self.code.step_test(pred)(self.states)
            if hit is None:
                return None
            i, firing, row = hit
            targets = [t for k, _, t in self.code.successors(self.states[i]) if k == firing]
            return self._edge(i, firing, row, targets[0])
        return next((e for e in self.iter_edges() if pred(e)), None)

    def row_witnesses(self) -> dict[str, Edge]:
        """For each row that can fire, the edge with the shortest path through it."""
        # BFS order means depth never decreases: the first edge of each row is a shallowest.
        found: dict[int, tuple[int, int, State]] = {}
        succ, total = self.code.successors, len(self.code.rows)
        for i, s in enumerate(self.states):
            for k, r, t in succ(s):
                if r not in found:
                    found[r] = (i, k, t)
            if len(found) == total:
                break
        edges = {r: self._edge(i, k, r, t) for r, (i, k, t) in found.items()}
        return {self.code.rows[r].name: e for r, e in sorted(edges.items())}


def initial_states(spec: Spec) -> list[dict[str, Value]]:
    names = [v.name for v in spec.vars]
    return [
        dict(zip(names, combo, strict=True))
        for combo in itertools.product(*(v.inits for v in spec.vars))
    ]


def explore(spec: Spec, *, max_states: int = DEFAULT_MAX_STATES) -> Exploration:
    """Breadth-first search of every reachable state, running the compiled rows."""
    started = time.perf_counter()
    result = Exploration(spec)
    code = result.code
    names = result.names
    for init in initial_states(spec):
        state = tuple(init[n] for n in names)
        if state not in result.index:
            if len(result.states) >= max_states:
                raise ExplorationLimit(max_states)
            result.index[state] = len(result.states)
            result.states.append(state)
            result.depth.append(0)
            result._psrc.append(-1)
            result._pcode.append(-1)
    undefined: list[tuple[int, int]] = []
    try:
        code.bfs(
            result.states,
            result.index,
            result.depth,
            result._psrc,
            result._pcode,
            undefined,
            max_states,
        )
    except ExplorationLimit:
        raise ExplorationLimit(
            f"spec {spec.name!r}: more than {max_states} reachable states"
        ) from None
    result.undefined = [(i, code.firings[k].trigger, code.firings[k].params) for i, k in undefined]
    result.seconds = time.perf_counter() - started
    return result
