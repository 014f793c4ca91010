"""Model mutants: single-point faults generated from a spec's own rows, and their judging.

`generate` applies every operator the gate knows to every row (and every
variable's initial value), then keeps a bounded sample chosen with a fixed
seed, so the same spec always yields the same mutants:

- drop-guard, drop-conjunct: the row's guard, or one conjunct of it, goes;
- drop-update, replace-update: one update goes (the variable is unchanged),
  or its value becomes another value of the variable's domain;
- retarget: the row moves to another control value;
- drop-output, swap-outputs, replace-output: an output falls back to its
  default, two outputs of one domain (or two items of a constant tuple)
  trade places, or an output's value becomes another value of its domain;
- move-to-ignore, ignore-to-move: a row that does something becomes an
  ignore row; an ignore row becomes a move to another control value;
- widen-init, change-init: a variable may also start at, or starts at,
  another value.

`model_kill` is the model layer: the spec's own checks (its properties, and
the structural checks determinism, totality, no-deadlock, terminal-absorbing,
rows-fire and vacuity), decided on the explorer's complete graph, which is
exact for every finite property and needs no solver. The kernel's
reachable-set check is left out: it tests the kernel (z3 against the
explorer), not the model. A mutant no layer kills goes to
`smt.prove_equivalent`, which proves with z3 that it behaves as the
original, or it has survived.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType

from .domains import Domain, Value
from .explore import Edge, Exploration, explore, initial_states
from .expr import TRUE, And, Const, Env, Expr, compiled
from .spec import AnyOf, Kind, Property, Row, Spec, SpecError
from .vacuity import vacuous

SEED = 20260701
# At most this many values replace one update or output (sampled when the domain is larger).
VALUES_PER_SLOT = 2
# At most this many mutants per spec: the rest are counted as skipped.
LIMIT = 120


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    row: str | None
    detail: str
    spec: Spec


@dataclass(frozen=True)
class Generation:
    mutants: tuple[Mutant, ...]
    candidates: int
    invalid: int

    @property
    def skipped(self) -> int:
        return self.candidates - len(self.mutants)


@dataclass(frozen=True)
class Kill:
    layer: str  # "model" | "conformance" | "seed"
    check: str
    trace_length: int | None


# ---------------------------------------------------------------- generation

Candidate = tuple[str, str | None, str, Callable[[], Spec]]


def _others(rng: random.Random, domain: Domain, current: Value | None) -> list[Value]:
    choices = [v for v in domain.sample() if not (v == current and type(v) is type(current))]
    if len(choices) > VALUES_PER_SLOT:
        choices = rng.sample(choices, VALUES_PER_SLOT)
    return choices


def _const(expr: Expr) -> Value | None:
    return expr.value if isinstance(expr, Const) else None


def _with_row(spec: Spec, new: Row) -> Callable[[], Spec]:
    return lambda: replace(
        spec, rows=tuple(new if r.name == new.name else r for r in spec.rows), variants=()
    )


def _frozen(mapping: Mapping[str, Expr]) -> Mapping[str, Expr]:
    return MappingProxyType(dict(mapping))


def _row_candidates(spec: Spec, r: Row, rng: random.Random) -> Iterator[Candidate]:
    control = spec.control_domain
    if r.guard != TRUE:
        yield "drop-guard", r.name, "guard dropped", _with_row(spec, replace(r, guard=TRUE))
        if isinstance(r.guard, And) and len(r.guard.args) > 1:
            for k in range(len(r.guard.args)):
                rest = r.guard.args[:k] + r.guard.args[k + 1 :]
                yield (
                    "drop-conjunct",
                    r.name,
                    f"conjunct {k + 1} of the guard dropped",
                    _with_row(spec, replace(r, guard=And(rest))),
                )
    for name, value in r.updates.items():
        kept = {k: v for k, v in r.updates.items() if k != name}
        yield (
            "drop-update",
            r.name,
            f"update of {name} dropped",
            _with_row(spec, replace(r, updates=_frozen(kept))),
        )
        for other in _others(rng, spec.var(name).domain, _const(value)):
            label = spec.var(name).domain.label(other)
            yield (
                "replace-update",
                r.name,
                f"{name} := {label}",
                _with_row(spec, replace(r, updates=_frozen({**r.updates, name: Const(other)}))),
            )
    if control is not None and not r.ignore:
        sources = r.source if r.source is not None else control.values or ()
        for target in control.values or ():
            if target == r.target or (r.target is None and tuple(sources) == (target,)):
                continue
            yield (
                "retarget",
                r.name,
                f"target {control.label(target)}",
                _with_row(spec, replace(r, target=target)),
            )
    outputs = list(r.outputs.items())
    for name, value in outputs:
        kept = {k: v for k, v in r.outputs.items() if k != name}
        default = spec.output(name).default
        if _const(value) != default or not isinstance(value, Const):
            yield (
                "drop-output",
                r.name,
                f"output {name} dropped",
                _with_row(spec, replace(r, outputs=_frozen(kept))),
            )
        for other in _others(rng, spec.output(name).domain, _const(value)):
            label = spec.output(name).domain.label(other)
            yield (
                "replace-output",
                r.name,
                f"{name} := {label}",
                _with_row(spec, replace(r, outputs=_frozen({**r.outputs, name: Const(other)}))),
            )
        items = _const(value)
        if isinstance(items, tuple) and len(items) > 1 and items != items[::-1]:
            swapped = Const(items[::-1])
            yield (
                "swap-outputs",
                r.name,
                f"items of {name} reversed",
                _with_row(spec, replace(r, outputs=_frozen({**r.outputs, name: swapped}))),
            )
    for i, (a, ea) in enumerate(outputs):
        for b, eb in outputs[i + 1 :]:
            if spec.output(a).domain == spec.output(b).domain and ea != eb:
                yield (
                    "swap-outputs",
                    r.name,
                    f"outputs {a} and {b} swapped",
                    _with_row(spec, replace(r, outputs=_frozen({**r.outputs, a: eb, b: ea}))),
                )
    if not r.ignore:
        yield (
            "move-to-ignore",
            r.name,
            "turned into an ignore row",
            _with_row(
                spec, replace(r, ignore=True, target=None, updates=_frozen({}), outputs=_frozen({}))
            ),
        )
    elif control is not None:
        sources = r.source if r.source is not None else control.values or ()
        targets = [v for v in control.values or () if tuple(sources) != (v,)]
        if len(targets) > VALUES_PER_SLOT:
            targets = rng.sample(targets, VALUES_PER_SLOT)
        for target in targets:
            yield (
                "ignore-to-move",
                r.name,
                f"moves to {control.label(target)}",
                _with_row(spec, replace(r, ignore=False, target=target)),
            )


def _init_candidates(spec: Spec, rng: random.Random) -> Iterator[Candidate]:
    for v in spec.vars:
        current = v.inits
        for other in _others(rng, v.domain, current[0] if len(current) == 1 else None):
            if other in current:
                continue
            label = v.domain.label(other)
            widened = replace(v, init=AnyOf(*current, other))
            changed = replace(v, init=other)
            for op, new in (("widen-init", widened), ("change-init", changed)):
                yield (
                    op,
                    None,
                    f"{v.name} {'may also start' if op == 'widen-init' else 'starts'} at {label}",
                    lambda new=new: replace(  # type: ignore[misc]
                        spec,
                        vars=tuple(new if x.name == new.name else x for x in spec.vars),
                        variants=(),
                    ),
                )


def candidates(spec: Spec, *, seed: int = SEED) -> tuple[list[Candidate], random.Random]:
    """Every mutant the operators make of the spec, not yet built: (operator, row, detail,
    build). The value replacements are sampled with the seeded generator it returns."""
    rng = random.Random(f"{seed}:{spec.name}")
    found = [c for r in spec.rows for c in _row_candidates(spec, r, rng)]
    found += list(_init_candidates(spec, rng))
    return found, rng


def generate(spec: Spec, *, limit: int = LIMIT, seed: int = SEED) -> Generation:
    """The spec's mutants: every operator on every row and variable, at most `limit` kept."""
    candidates_, rng = candidates(spec, seed=seed)
    # One seeded ranking of every candidate: a smaller limit keeps a subset of a larger one.
    ranking = list(range(len(candidates_)))
    rng.shuffle(ranking)
    keep = set(ranking[:limit])
    chosen = [c for k, c in enumerate(candidates_) if k in keep]
    mutants: list[Mutant] = []
    invalid = 0
    for op, row, detail, build in chosen:
        try:
            mutated = build()
        except SpecError:
            invalid += 1  # a fault the spec vocabulary refuses to express (say, a type error)
            continue
        mid = f"{spec.name}-{len(mutants) + 1:03d}"
        mutants.append(Mutant(mid, op, row, detail, replace(mutated, name=mid)))
    return Generation(tuple(mutants), len(candidates_), invalid)


# ---------------------------------------------------------------- the model layer

Firing = tuple[str, tuple[tuple[str, Value], ...]]


class Baseline:
    """The original spec's complete graph, which every mutant of it is judged against.

    A mutant changes one row (or one initial value), so a firing of any other
    trigger from a state the original reaches does what it did there: those
    steps are taken from the original's graph, and only the rest are stepped.
    Every original state and step satisfies every property (verify proves it),
    so only the mutant's new states and steps can break one, unless the
    mutant's own expansion of a property (`enabled()` reads its rows) differs.
    """

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.graph = explore(spec)
        g = self.graph
        self.firings = _firings(spec)
        number = {(t, tuple(p.items())): k for k, (t, p) in enumerate(self.firings)}
        # steps[state][firing]: the original's edge (states and firings by index: hashing
        # tuples of enum members on every lookup costs more than the step itself).
        self.steps: list[dict[int, Edge]] = [{} for _ in g.states]
        for e in g.edges:
            self.steps[e.source][number[(e.trigger, tuple(e.params.items()))]] = e
        self.props = {p.name: p.pred for p in spec.properties}


def _firings(spec: Spec) -> list[tuple[str, dict[str, Value]]]:
    return [(t.name, params) for t in spec.triggers for params in spec.param_assignments(t.name)]


class _Refused(Exception):
    """A row computes a value outside its variable's domain (the oracle refuses it too)."""


@dataclass
class _Graph:
    """A mutant's graph, and which of its states and steps the original lacks."""

    g: Exploration
    new_states: list[int]
    new_edges: list[Edge]


class _Stop(Exception):
    """A property broke during the search (its kill), or the graph outgrew its bound (None)."""

    def __init__(self, kill: Kill | None) -> None:
        super().__init__(kill)
        self.kill = kill


StateWatch = Callable[[Exploration, int, bool], Kill | None]
EdgeWatch = Callable[[Exploration, Edge, bool], Kill | None]


def _explore(
    base: Baseline, spec: Spec, on_state: StateWatch, on_edge: EdgeWatch, max_states: int
) -> _Graph:
    """Breadth-first search of the mutant, reusing the original's steps where they are the same.

    Each state (in BFS order, so the first hit is a shallowest one) and each step is
    shown to the watchers as it is found, with whether the original lacks it; a hit
    stops the search with its kill.
    """
    g = Exploration(spec)
    names = g.names
    same = {t.name for t in spec.triggers if spec.rows_of(t.name) == base.spec.rows_of(t.name)}
    stepper = _Stepper(spec)
    firings = base.firings
    reuse = [trigger in same for trigger, _ in firings]
    queue: deque[int] = deque()
    new_states: list[int] = []
    new_edges: list[Edge] = []

    def add(state: tuple[Value, ...], depth: int, parent: Edge | None) -> int:
        j = len(g.states)
        if j >= max_states:
            raise _Stop(None)
        g.index[state] = j
        g.states.append(state)
        g.depth.append(depth)
        g.parent.append(parent)
        queue.append(j)
        return j

    for init in initial_states(spec):
        state = tuple(init[n] for n in names)
        if state not in g.index:
            add(state, 0, None)
    while queue:
        i = queue.popleft()
        current = g.states[i]
        b = base.graph.index.get(current)
        if b is None:
            new_states.append(i)
        if (kill := on_state(g, i, b is None)) is not None:
            raise _Stop(kill)
        known = base.steps[b] if b is not None else {}
        pre = dict(zip(names, current, strict=True))
        for k, (trigger, params) in enumerate(firings):
            old = known.get(k) if reuse[k] else None
            if old is not None:
                row, outputs = old.row, old.outputs
                target = base.graph.states[old.target]
            else:
                fired = stepper.fire(pre, trigger, params)
                if fired is None:
                    g.undefined.append((i, trigger, params))
                    continue
                row, post, outputs = fired
                target = tuple(post[n] for n in names)
            j = g.index.get(target)
            if j is None:
                edge = Edge(i, row, trigger, params, len(g.states), outputs)
                add(target, g.depth[i] + 1, edge)
            else:
                edge = Edge(i, row, trigger, params, j, outputs)
            g.edges.append(edge)
            if old is None:
                new_edges.append(edge)
            if (kill := on_edge(g, edge, old is None)) is not None:
                raise _Stop(kill)
    return _Graph(g, new_states, new_edges)


class _Stepper:
    """The oracle's step (the first enabled row of the trigger, in row order) on compiled rows."""

    def __init__(self, spec: Spec) -> None:
        self.control = spec.control
        self.defaults = {o.name: o.default for o in spec.outputs}
        self.rows = {
            t.name: [
                (
                    r,
                    compiled(r.guard),
                    [(k, compiled(v), spec.var(k).domain) for k, v in r.updates.items()],
                    [(k, compiled(v)) for k, v in r.outputs.items()],
                )
                for r in spec.rows_of(t.name)
            ]
            for t in spec.triggers
        }

    def fire(
        self, pre: dict[str, Value], trigger: str, params: Mapping[str, Value]
    ) -> tuple[str, dict[str, Value], Mapping[str, Value]] | None:
        env = Env(pre=pre, params=params)
        control = self.control
        for r, guard, updates, outs in self.rows[trigger]:
            if r.source is not None and control is not None and pre[control] not in r.source:
                continue
            if not guard(env):
                continue
            post = dict(pre)
            for name, value, domain in updates:
                post[name] = value(env)
                if not domain.contains(post[name]):
                    raise _Refused(f"row {r.name!r} sets {name!r} to {post[name]!r}")
            if r.target is not None and control is not None:
                post[control] = r.target
            emitted = dict(self.defaults)
            emitted.update({name: value(env) for name, value in outs})
            return r.name, post, MappingProxyType(emitted)
        return None


# A mutant whose graph outgrows the original's this many times over gets no model verdict.
GROWTH = 20


def mutant_graph(base: Baseline, spec: Spec) -> Exploration | None:
    """The mutant's complete graph (None if it outgrows its bound or a row leaves its
    domain), for the layers after the model's."""
    try:
        return _explore(base, spec, _quiet, _quiet, GROWTH * len(base.graph.states) + 1000).g
    except (_Refused, _Stop):
        return None


def _quiet(*_: object) -> None:
    return None


def model_kill(base: Baseline, spec: Spec) -> Kill | None:
    """The first of the spec's own checks that fails on the mutant's complete graph.

    `always`/`never` properties are checked as the search finds each state and step
    (a broken one stops it); the checks that need the whole graph run after it.
    """
    state_props: list[tuple[str, Callable[[Env], Value], bool]] = []
    step_props: list[tuple[str, Callable[[Env], Value], bool]] = []
    for p in spec.properties:
        if p.kind is Kind.SOMETIMES:
            continue
        # The original satisfies the property on its own states and steps; with the same
        # predicate, only what is new can break it.
        entry = (p.name, compiled(p.bad), p.pred == base.props.get(p.name))
        (step_props if p.over_steps else state_props).append(entry)

    def on_state(g: Exploration, i: int, new: bool) -> Kill | None:
        if state_props:
            env = Env(pre=g.as_dict(i))
            for name, test, unchanged in state_props:
                if (new or not unchanged) and test(env):
                    return Kill("model", name, g.depth[i])
        return None

    def on_edge(g: Exploration, edge: Edge, new: bool) -> Kill | None:
        if step_props:
            env = g.edge_env(edge)
            for name, test, unchanged in step_props:
                if (new or not unchanged) and test(env):
                    return Kill("model", name, g.depth[edge.source] + 1)
        return None

    bound = GROWTH * len(base.graph.states) + 1000
    try:
        graph = _explore(base, spec, on_state, on_edge, bound)
    except _Refused as err:
        return Kill("model", f"explorer ({err})", None)
    except _Stop as stop:
        return stop.kill
    g, new_states = graph.g, graph.new_states
    checks: list[Callable[[], Kill | None]] = [
        lambda: _totality(g),
        *[partial(_sometimes, g, p) for p in spec.properties if p.kind is Kind.SOMETIMES],
        lambda: _determinism(spec, base, g, new_states),
        lambda: _deadlock(spec, g),
        lambda: _terminal(spec, base, g, graph.new_edges),
        lambda: _rows_fire(spec, g),
        lambda: _vacuity(spec, g),
    ]
    for check in checks:
        kill = check()
        if kill is not None:
            return kill
    return None


def _totality(g: Exploration) -> Kill | None:
    if not g.undefined:
        return None
    return Kill("model", "totality", g.depth[g.undefined[0][0]] + 1)


def _sometimes(g: Exploration, p: Property) -> Kill | None:
    hit = g.first_edge(p.pred) if p.over_steps else g.first_state(p.pred)
    return Kill("model", p.name, None) if hit is None else None


def _determinism(spec: Spec, base: Baseline, g: Exploration, new_states: list[int]) -> Kill | None:
    guards = {r.name: compiled(spec.step_guard(r)) for r in spec.rows}
    new = set(new_states)
    for t in spec.triggers:
        rows = spec.rows_of(t.name)
        if len(rows) < 2:
            continue
        # The original is deterministic on its own states: there, only a changed row can
        # be enabled beside another one.
        changed = [r for r in rows if r not in base.spec.rows_of(t.name)]
        if not changed and not new:
            continue
        for i in range(len(g.states)):
            suspects = rows if i in new else changed
            if not suspects:
                continue
            pre = g.as_dict(i)
            for params in spec.param_assignments(t.name):
                env = Env(pre=pre, params=params)
                if not any(guards[r.name](env) for r in suspects):
                    continue
                if sum(1 for r in rows if guards[r.name](env)) > 1:
                    return Kill("model", "determinism", g.depth[i] + 1)
    return None


def _deadlock(spec: Spec, g: Exploration) -> Kill | None:
    live = {e.source for e in g.edges if not spec.row(e.row).ignore}
    terminal = compiled(spec.terminal) if spec.terminal is not None else None
    for i in range(len(g.states)):
        if i not in live and not (terminal is not None and terminal(Env(pre=g.as_dict(i)))):
            return Kill("model", "no-deadlock", len(g.path_to(i)))
    return None


def _terminal(spec: Spec, base: Baseline, g: Exploration, new_edges: list[Edge]) -> Kill | None:
    if spec.terminal is None:
        return None
    test_terminal = compiled(spec.terminal)
    edges = new_edges if spec.terminal == base.spec.terminal else g.edges
    for edge in edges:
        if g.states[edge.source] != g.states[edge.target] and test_terminal(
            Env(pre=g.as_dict(edge.source))
        ):
            return Kill("model", "terminal-absorbing", len(g.path_through(edge)))
    return None


def _rows_fire(spec: Spec, g: Exploration) -> Kill | None:
    fired = g.row_witnesses()
    dead = [r.name for r in spec.rows if r.name not in fired]
    return Kill("model", "rows-fire", None) if dead else None


def _vacuity(spec: Spec, g: Exploration) -> Kill | None:
    return Kill("model", "vacuity", None) if vacuous(spec, g) else None
