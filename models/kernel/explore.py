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

from .domains import IntRange, Value
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


def _bind(spec: Spec, e: Expr, params: Mapping[str, Value]) -> Expr:
    def go(x: Expr) -> Expr:
        if isinstance(x, Ref) and x.scope == "param":
            return Const(params[x.name])
        return _map(x, go)

    return go(e)


class _Compiled:
    """One spec's rows as generated functions over state tuples."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.firings = [
            _Firing(t.name, MappingProxyType(p))
            for t in spec.triggers
            for p in spec.param_assignments(t.name)
        ]
        self.rows: list[Row] = list(spec.rows)
        self.row_index = {r.name: i for i, r in enumerate(self.rows)}
        self.gen = _Gen(spec)
        # Per firing: (row index, guard source, successor source or None for "unchanged").
        self.cases: list[list[tuple[int, str, str | None, list[str]]]] = [
            self._cases(f) for f in self.firings
        ]
        self.bfs: Callable[..., None] = self._build_bfs()
        self.successors: Callable[[State], list[tuple[int, int, State]]] = self._build_succ()

    def _cases(self, f: _Firing) -> list[tuple[int, str, str | None, list[str]]]:
        spec, gen = self.spec, self.gen
        out = []
        for r in spec.rows_of(f.trigger):
            guard = _fold(_bind(spec, spec.step_guard(r), f.params))
            if isinstance(guard, Const) and not guard.value:
                continue
            checks: list[str] = []
            slots: list[str] = []
            changed = False
            for j, v in enumerate(spec.vars):
                if v.name == spec.control and r.target is not None:
                    slots.append(gen.const(r.target))
                    changed = True
                elif v.name in r.updates:
                    upd = _fold(_bind(spec, r.updates[v.name], f.params))
                    if isinstance(upd, Const):
                        if not v.domain.contains(upd.value):
                            checks.append(
                                f"_bad({self.row_index[r.name]}, {j}, {gen.const(upd.value)})"
                            )
                        slots.append(gen.const(upd.value))
                    elif isinstance(upd, Ref) and upd.scope == "pre" and upd.name == v.name:
                        slots.append(f"v{j}")
                        continue
                    else:
                        tmp = f"u{j}"
                        checks.append(f"{tmp} = {gen.src(upd)}")
                        if isinstance(v.domain, IntRange):
                            lo, hi = v.domain.lo, v.domain.hi
                            checks.append(
                                f"if not ({lo} <= {tmp} <= {hi}): "
                                f"_bad({self.row_index[r.name]}, {j}, {tmp})"
                            )
                        else:
                            checks.append(
                                f"if not {gen.const(v.domain)}.contains({tmp}): "
                                f"_bad({self.row_index[r.name]}, {j}, {tmp})"
                            )
                        slots.append(tmp)
                    changed = True
                else:
                    slots.append(f"v{j}")
            succ = "(" + "".join(s + ", " for s in slots) + ")" if changed else None
            out.append((self.row_index[r.name], gen.src(guard), succ, checks))
            if isinstance(guard, Const):
                break  # always enabled: later rows of this firing never fire
        return out

    def _bad(self, row: int, slot: int, value: Value) -> None:
        r, v = self.rows[row], self.spec.vars[slot]
        raise OracleError(
            f"row {r.name!r} sets {v.name!r} to {value!r}, outside {v.domain.describe()}"
        )

    def _unpack(self) -> str:
        n = len(self.spec.vars)
        if n == 0:
            return "pass"
        return "".join(f"v{j}, " for j in range(n)) + "= s"

    def _namespace(self) -> dict[str, Any]:
        return {**self.gen.consts, "_bad": self._bad}

    def _build_bfs(self) -> Callable[..., None]:
        R = len(self.rows)
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
        for k, cases in enumerate(self.cases):
            first = True
            for row, guard, succ, checks in cases:
                lines.append(f"        {'if' if first else 'elif'} {guard}:")
                first = False
                lines += [f"            {c}" for c in checks]
                if succ is None:
                    lines.append("            pass")
                    continue
                lines += [
                    f"            t = {succ}",
                    "            if sd(t, n) == n:",
                    "                if n >= limit: raise _Limit(limit)",
                    f"                push(t); dpush(d); ppush(i); cpush({k * R + row}); n += 1",
                ]
            if first:
                lines.append(f"        undefined.append((i, {k}))")
            else:
                lines += ["        else:", f"            undefined.append((i, {k}))"]
        lines.append("        i += 1")
        ns = {**self._namespace(), "_Limit": ExplorationLimit}
        exec(compile("\n".join(lines), f"<bfs {self.spec.name}>", "exec"), ns)  # noqa: S102
        return ns["bfs"]  # type: ignore[no-any-return]

    def _build_succ(self) -> Callable[[State], list[tuple[int, int, State]]]:
        """Every edge out of a state, in firing order: (firing, row, target)."""
        lines = ["def succ(s):", f"    {self._unpack()}", "    out = []"]
        for k, cases in enumerate(self.cases):
            first = True
            for row, guard, succ, checks in cases:
                lines.append(f"    {'if' if first else 'elif'} {guard}:")
                first = False
                lines += [f"        {c}" for c in checks]
                lines.append(f"        out.append(({k}, {row}, {succ or 's'}))")
        lines.append("    return out")
        ns = self._namespace()
        exec(compile("\n".join(lines), f"<succ {self.spec.name}>", "exec"), ns)  # noqa: S102
        return ns["succ"]  # type: ignore[no-any-return]

    def state_test(self, pred: Expr) -> Callable[[list[State]], int | None]:
        """The first state (in BFS order) satisfying a state predicate."""
        body = self.gen.src(_fold(pred))
        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
            f"        if {body}: return i",
            "    return None",
        ]
        ns = self._namespace()
        exec(compile("\n".join(lines), "<state test>", "exec"), ns)  # noqa: S102
        return ns["first"]  # type: ignore[no-any-return]

    def step_test(self, pred: Expr) -> Callable[[list[State]], tuple[int, int, int] | None]:
        """The first edge (BFS order of its source, then firing order) satisfying a step
        predicate, as (source, firing, row). The predicate is specialised to each firing and
        row: parameters, outputs, the post-state and the step's names become expressions
        over the pre-state, so it compiles like a guard."""
        lines = [
            "def first(states):",
            "    for i, s in enumerate(states):",
            f"        {self._unpack()}",
        ]
        for k, cases in enumerate(self.cases):
            first = True
            for row, guard, _succ, _checks in cases:
                test = self.gen.src(_fold(self._on_step(pred, self.firings[k], self.rows[row])))
                lines.append(f"        {'if' if first else 'elif'} {guard}:")
                first = False
                lines.append(f"            if {test}: return (i, {k}, {row})")
        lines.append("    return None")
        ns = self._namespace()
        exec(compile("\n".join(lines), "<step test>", "exec"), ns)  # noqa: S102
        return ns["first"]  # type: ignore[no-any-return]

    def _on_step(self, pred: Expr, f: _Firing, r: Row) -> Expr:
        spec = self.spec
        group = spec.group_of(f.trigger)

        def post(name: str) -> Expr:
            if name == spec.control and r.target is not None:
                return Const(r.target)
            if name in r.updates:
                return _bind(spec, r.updates[name], f.params)
            return Ref("pre", name)

        def go(x: Expr) -> Expr:
            if isinstance(x, Ref):
                if x.scope == "param":
                    return Const(f.params[x.name])
                if x.scope == "post":
                    return post(x.name)
                if x.scope == "out":
                    if x.name in r.outputs:
                        return _bind(spec, r.outputs[x.name], f.params)
                    return Const(spec.output(x.name).default)
                return x
            if isinstance(x, StepIs):
                seen = {"trigger": f.trigger, "row": r.name, "group": group}[x.kind]
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
        return Trace(self.as_dict(i), tuple(self._step(e) for e in edges))

    def path_through(self, edge: Edge) -> Trace:
        head = self.path_to(edge.source)
        return Trace(head.init, (*head.steps, self._step(edge)))

    def _step(self, edge: Edge) -> Step:
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
