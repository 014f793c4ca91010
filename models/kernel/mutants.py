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
  another value (data values are sampled only from small domains);
- flip-quantifier, drop-init: a `forall` in a guard becomes `exists` (or back);
  the spec's initial predicate goes.

`model_kill` is the model layer: the spec's own checks (its properties, and
the structural checks determinism, totality (explicit specs), no-deadlock
(where the spec checks it), well-defined, terminal-absorbing, rows-fire and
vacuity), decided on the kernel explorer's complete graph of the mutant
(`explore`, the compiled rows; its edges generated once from the compiled
successor function), which is exact for every finite property and
needs no solver. What the original's graph already shows to hold is not
tested again (see `_View`). The kernel's
reachable-set check is left out: it tests the kernel (z3 against the
explorer), not the model. A mutant no layer kills goes to
`smt.prove_equivalent`, which proves with z3 that it behaves as the
original, or it has survived.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from types import MappingProxyType

from .domains import Domain, Value, count
from .explore import Exploration, ExplorationLimit, explore
from .expr import TRUE, And, Const, Env, Expr, Not, Quant, compiled, walk
from .oracle import OracleError
from .spec import AnyOf, Kind, Property, Row, Spec, SpecError
from .vacuity import premises

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


# A data domain (a function over the nodes, say) is sampled only below this many values.
SAMPLED_UP_TO = 1 << 16


def _others(rng: random.Random, domain: Domain, current: Value | None) -> list[Value]:
    if (count(domain) or 0) > SAMPLED_UP_TO:
        return []
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


def _replacements(
    spec: Spec, r: Row, rng: random.Random, table: str, name: str, domain: Domain
) -> Iterator[Candidate]:
    """`replace-update` / `replace-output`: `name` in the row's `table` (updates or outputs)
    set to each other value of its domain, or a sample of them."""
    operator = {"updates": "replace-update", "outputs": "replace-output"}[table]
    entries: Mapping[str, Expr] = getattr(r, table)
    for other in _others(rng, domain, _const(entries[name])):
        changed = _frozen({**entries, name: Const(other)})
        rebuilt = _with_row(spec, replace(r, **{table: changed}))  # type: ignore[arg-type]
        yield operator, r.name, f"{name} := {domain.label(other)}", rebuilt


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
    for name in r.updates:
        kept = {k: v for k, v in r.updates.items() if k != name}
        yield (
            "drop-update",
            r.name,
            f"update of {name} dropped",
            _with_row(spec, replace(r, updates=_frozen(kept))),
        )
        yield from _replacements(spec, r, rng, "updates", name, spec.var(name).domain)
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
        yield from _replacements(spec, r, rng, "outputs", name, spec.output(name).domain)
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
    for q in _quantifiers(r.guard):
        flipped = Quant("any" if q.kind == "all" else "all", q.name, q.domain, q.body)
        yield (
            "flip-quantifier",
            r.name,
            f"{'∀' if q.kind == 'all' else '∃'}{q.name} becomes {'∃' if q.kind == 'all' else '∀'}",
            _with_row(spec, replace(r, guard=_replaced(r.guard, q, flipped))),
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


def _quantifiers(expr: Expr) -> list[Quant]:
    return [n for n in walk(expr) if isinstance(n, Quant) and n.kind != "sum"]


def _replaced(expr: Expr, old: Expr, new: Expr) -> Expr:
    """`expr` with the node `old` (by identity) replaced by `new`."""
    if expr is old:
        return new
    changes: dict[str, object] = {}
    for key, child in vars(expr).items():
        if isinstance(child, Expr):
            changes[key] = _replaced(child, old, new)
        elif isinstance(child, tuple) and child and isinstance(child[0], Expr):
            changes[key] = tuple(_replaced(c, old, new) for c in child)
    return replace(expr, **changes) if changes else expr  # type: ignore[type-var]


def _init_candidates(spec: Spec, rng: random.Random) -> Iterator[Candidate]:
    if spec.init is not None:
        yield (
            "drop-init",
            None,
            "the initial predicate dropped",
            lambda: replace(spec, init=None, variants=()),
        )
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


class Baseline:
    """The original spec and its complete graph, which every mutant of it is judged against
    (conformance compares a mutant's steps with these; z3 proves equivalence on its states)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.graph = explore(spec)
        states = [self.graph.as_dict(i) for i in range(len(self.graph.states))]
        # steps[state][firing] = (row, target, outputs): what a mutant's step is compared with.
        self.steps: list[dict[int, tuple[str, int, dict[str, Value]]]] = [{} for _ in states]
        for i, k, row, j, outputs in _steps(spec, self.graph, states):
            self.steps[i][k] = (row, j, outputs)


Step = tuple[int, int, str, int, dict[str, Value]]  # source, firing, row, target, outputs


def _steps(spec: Spec, g: Exploration, states: Sequence[Mapping[str, Value]]) -> Iterator[Step]:
    """Every edge of `g` in BFS order, from the explorer's compiled successor function, its
    outputs computed from the given state dicts (cheaper than `Exploration.edges`)."""
    code = g.code
    number = {code.key(state): i for i, state in enumerate(g.states)}
    defaults = {o.name: o.default for o in spec.outputs}
    outputs = [[(k, compiled(e)) for k, e in r.outputs.items()] for r in code.rows]
    for i, state in enumerate(g.states):
        pre = states[i]
        for k, r, target in code.successors(code.key(state)):
            env = Env(pre=pre, params=code.firings[k].params)
            emitted = dict(defaults)
            emitted.update({o: fn(env) for o, fn in outputs[r]})
            yield i, k, code.rows[r].name, number[target], emitted


# A mutant whose graph outgrows the original's this many times over gets no model verdict.
GROWTH = 20


def _bound(base: Baseline) -> int:
    return GROWTH * len(base.graph.states) + 1000


def mutant_graph(base: Baseline, spec: Spec) -> Exploration | None:
    """The mutant's complete graph (None if it outgrows its bound or a row leaves its
    domain), for the layers after the model's."""
    try:
        return explore(spec, max_states=_bound(base))
    except (OracleError, ExplorationLimit):
        return None


def model_kill(base: Baseline, spec: Spec) -> Kill | None:
    """The first of the spec's own checks that fails on the mutant's complete graph.

    The mutant is explored by the kernel's compiled explorer; its edges are
    generated once, in BFS order (so a first hit is a shallowest counterexample).
    A mutant changes one row (or one initial value), and the original satisfies
    every check (verify proves it): so a property whose predicate is unchanged is
    only tested on what the original lacks (new states; steps from new states or
    of a changed trigger), the others everywhere. Checks run in `verify`'s order.
    """
    try:
        g = explore(spec, max_states=_bound(base))
    except OracleError as err:  # a row leaves its variable's domain, as the oracle reports
        return Kill("model", f"explorer ({err})", None)
    except ExplorationLimit:
        return None  # no model verdict: the later layers and the equivalence proof decide
    view = _View(base, spec, g)
    checks: list[Callable[[], Kill | None]] = [
        *[partial(view.prop, p) for p in spec.properties],
        view.determinism,
        view.totality,
        view.deadlock,
        view.defined,
        view.terminal,
        view.rows_fire,
        view.vacuity,
    ]
    for check in checks:
        kill = check()
        if kill is not None:
            return kill
    return None


class _View:
    """A mutant's graph beside its original's: every state and edge, flagged new or not."""

    def __init__(self, base: Baseline, spec: Spec, g: Exploration) -> None:
        self.base, self.spec, self.g = base, spec, g
        same = {t.name for t in spec.triggers if spec.rows_of(t.name) == base.spec.rows_of(t.name)}
        known = base.graph.index
        self.states = [Env(pre=g.as_dict(i)) for i in range(len(g.states))]
        # The original's number of each state (None: a state the original never reaches).
        base_of = [known.get(state) for state in g.states]
        self.new_state = [b is None for b in base_of]
        # Every edge: (source, row, trigger, env, new). A step is new when its source is,
        # or when a changed trigger does there what the original does not (another row,
        # target or output); a step the original takes too satisfies what it satisfies.
        code = g.code
        self.edges: list[tuple[int, str, str, Env, bool]] = []
        for i, k, row, j, emitted in _steps(spec, g, [e.pre for e in self.states]):
            firing = code.firings[k]
            b = base_of[i]
            new = b is None or (
                firing.trigger not in same and base.steps[b].get(k) != (row, base_of[j], emitted)
            )
            env = Env(
                pre=self.states[i].pre,
                post=self.states[j].pre,
                params=firing.params,
                outputs=emitted,
                trigger=firing.trigger,
                row=row,
                group=spec.group_of(firing.trigger),
            )
            self.edges.append((i, row, firing.trigger, env, new))
        self.props = {p.name: p.pred for p in base.spec.properties}

    def _first_state(self, check: str, test: Callable[[Env], Value], every: bool) -> Kill | None:
        for i, env in enumerate(self.states):
            if (every or self.new_state[i]) and test(env):
                return Kill("model", check, self.g.depth[i])
        return None

    def _first_edge(self, check: str, test: Callable[[Env], Value], every: bool) -> Kill | None:
        for source, _, _, env, new in self.edges:
            if (every or new) and test(env):
                return Kill("model", check, self.g.depth[source] + 1)
        return None

    def prop(self, p: Property) -> Kill | None:
        if p.kind is Kind.SOMETIMES:
            test = compiled(p.pred)
            found = self._first_edge if p.over_steps else self._first_state
            return Kill("model", p.name, None) if found("", test, True) is None else None
        every = p.pred != self.props.get(p.name)
        find = self._first_edge if p.over_steps else self._first_state
        return find(p.name, compiled(p.bad), every)

    def determinism(self) -> Kill | None:
        spec, base, g = self.spec, self.base, self.g
        guards = {r.name: compiled(spec.step_guard(r)) for r in spec.rows}
        for t in spec.triggers:
            rows = spec.rows_of(t.name)
            if len(rows) < 2:
                continue
            # The original is deterministic on its own states: there, only a changed row
            # can be enabled beside another one.
            changed = [r for r in rows if r not in base.spec.rows_of(t.name)]
            assignments = spec.param_assignments(t.name)
            for i, state in enumerate(self.states):
                suspects = rows if self.new_state[i] else changed
                if not suspects:
                    continue
                for params in assignments:
                    env = Env(pre=state.pre, params=params)
                    if not any(guards[r.name](env) for r in suspects):
                        continue
                    if sum(1 for r in rows if guards[r.name](env)) > 1:
                        return Kill("model", "determinism", g.depth[i] + 1)
        return None

    def totality(self) -> Kill | None:
        g = self.g
        if not g.undefined or self.spec.totality == "enabled-only":
            return None
        return Kill("model", "totality", g.depth[g.undefined[0][0]] + 1)

    def deadlock(self) -> Kill | None:
        spec = self.spec
        if not spec.check_deadlock:
            return None
        live = {source for source, row, _, _, _ in self.edges if not spec.row(row).ignore}
        terminal = compiled(spec.terminal) if spec.terminal is not None else None
        for i, env in enumerate(self.states):
            if i not in live and not (terminal is not None and terminal(env)):
                return Kill("model", "no-deadlock", self.g.depth[i])
        return None

    def defined(self) -> Kill | None:
        """`well-defined`: no reachable state lets a row append to a full sequence, etc."""
        spec = self.spec
        for r in spec.rows:
            when = spec.defined(r)
            if when is not None:
                bad = spec.for_some_arguments(r.trigger, And((spec.source_expr(r), Not(when))))
                kill = self._first_state("well-defined", compiled(bad), True)
                if kill is not None:
                    return kill
        return None

    def terminal(self) -> Kill | None:
        spec = self.spec
        if spec.terminal is None:
            return None
        test = compiled(spec.terminal)

        def moves(env: Env) -> bool:
            return env.pre != env.post and bool(test(env))

        return self._first_edge(
            "terminal-absorbing", moves, spec.terminal != self.base.spec.terminal
        )

    def rows_fire(self) -> Kill | None:
        fired = {row for _, row, _, _, _ in self.edges}
        dead = [r.name for r in self.spec.rows if r.name not in fired]
        return Kill("model", "rows-fire", None) if dead else None

    def vacuity(self) -> Kill | None:
        """`vacuity` (kernel/vacuity.py), on the edges already generated."""
        for _, step, premise in premises(self.spec):
            test = compiled(premise)
            if step:
                hit = any(test(env) for _, _, _, env, _ in self.edges)
            else:
                hit = any(test(env) for env in self.states)
            if not hit:
                return Kill("model", "vacuity", None)
        return None
