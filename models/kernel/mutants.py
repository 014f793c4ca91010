"""Model mutants: single-point faults generated from a spec's own definition, and their judging.

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

and then every definition operator (`definition_candidates`), which changes a
piece the spec module shares between rows, everywhere it is used, ranked and
bounded apart (`EXTRA_LIMIT`) so the row sample does not move:

- regroup: a trigger moves to another group (who decides it);
- guard-constant: a constant a guard compares with becomes another value of
  its domain; table-constant: an integer in a guard, update or output (a
  saturation bound, a count's step) moves by one;
- drop-set-entry: one entry leaves a set a row tests (a mode's tool table);
- reset-forgets: a variable is left out of every reset that puts two or more
  variables back to their initial values;
- init-each: each initial value becomes each other value of its domain (or
  one of several goes); the spec keeps its variants, which start there too;
- out-for-param, param-for-out: a property reads an output where it meant
  the trigger's argument of that name, or the argument for the output.

and then the liveness operators (`liveness_candidates`), on a spec with a
promised liveness property, ranked and bounded apart (`LIVE_LIMIT`):

- drop-fairness: a row made unfair: one fairness constraint (of the spec or
  of one property) goes;
- self-loop: a fair trigger's row that makes progress stays put instead.

`model_kill` is the model layer: the spec's own checks (determinism first,
its properties, its promised liveness properties (a lasso, replayed by z3),
the structural checks totality (explicit specs), no-deadlock
(where the spec checks it), well-defined, terminal-absorbing, rows-fire and
vacuity, and each variant still failing as it declares), decided on the
kernel explorer's complete graph of the mutant (`explore`, the compiled rows;
its edges generated once from the compiled successor function), which is
exact for every finite property and
needs no solver. What the original's graph already shows to hold is not
tested again (see `_View`). The kernel's
reachable-set check is left out: it tests the kernel (z3 against the
explorer), not the model. A mutant no layer kills goes to
`smt.prove_equivalent`, which proves with z3 that it behaves as the
original (and, for liveness, `same_fairness`: its fair runs are the
original's), or it has survived.

A model kill counts only once z3 agrees (`confirmed`): its counterexample is
replayed over the mutant's own transition relation (`smt.replay`), a missing
witness is checked absent from z3's reachable set (`smt.absent`), two rows
enabled (or none) are asked of z3 in the state the replay reaches
(`smt.enabled_rows`). A kill z3 does not confirm is a kernel disagreement,
which fails the gate. A changed property that still holds is killed when z3
proves one of its demands true of every step (`toothless`).
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import cached_property
from functools import partial
from types import MappingProxyType

from . import smt
from .domains import Domain
from .domains import Value
from .domains import count
from .explore import Exploration
from .explore import ExplorationLimit
from .explore import explore
from .expr import FALSE
from .expr import TRUE
from .expr import Add
from .expr import And
from .expr import Cmp
from .expr import Const
from .expr import Env
from .expr import Eq
from .expr import Expr
from .expr import Implies
from .expr import In
from .expr import Not
from .expr import Or
from .expr import Quant
from .expr import Ref
from .expr import Scope
from .expr import StepIs
from .expr import compiled
from .expr import walk
from .liveness import Graph
from .liveness import check_liveness
from .oracle import OracleError
from .printer import show
from .smt import SolverLimit
from .spec import AnyOf
from .spec import FairCase
from .spec import Kind
from .spec import Liveness
from .spec import Property
from .spec import Row
from .spec import Spec
from .spec import SpecError
from .trace import Step as TraceStep
from .trace import Trace
from .trace import plural
from .vacuity import premises
from .vacuity import vacuous

SEED = 20260701
# At most this many values replace one update or output (sampled when the domain is larger).
VALUES_PER_SLOT = 2
# At most this many mutants per spec: the rest are counted as skipped.
LIMIT = 120
# At most this many of the definition operators' mutants per spec, ranked apart.
EXTRA_LIMIT = 120
# `init-each`: at most this many other values replace one initial value.
INIT_VALUES = 4
# At most this many of the liveness operators' mutants per spec, ranked apart.
LIVE_LIMIT = 40


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


# What a second engine must agree with before a model kill counts: None, or why not.
Confirm = Callable[[], str | None]


@dataclass(frozen=True)
class Kill:
    layer: str  # "model" | "conformance" | "seed"
    check: str
    trace_length: int | None
    # The model layer's counterexample replayed in z3 over the mutant (`confirmed`).
    confirm: Confirm | None = field(default=None, compare=False, repr=False)


def confirmed(kill: Kill) -> str | None:
    """None when z3 agrees with a model kill (or the kill is another layer's), else the
    disagreement: then the kernel's evaluator and z3 read the mutant differently."""
    if kill.confirm is None:
        return None if kill.layer != "model" else "no counterexample to replay"
    try:
        return kill.confirm()
    except SolverLimit as limit:
        return f"z3 could not decide: {limit.reason}"


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


# ---------------------------------------------------------------- definition operators
#
# A spec module builds its rows from helpers and tables (a reset dict, a saturating count, a
# mode's tool list, a trigger's group): a slip there changes every row that uses it. These
# operators find such shared pieces in the spec itself and change every use at once, and
# change what the properties read (an output for the argument it echoes, and back).


def _rewrite(e: Expr, f: Callable[[Expr], Expr | None]) -> Expr:
    """`e` with every node `f` answers for replaced (bottom-up where it answers None)."""
    hit = f(e)
    if hit is not None:
        return hit
    parts: dict[str, object] = {}
    changed = False
    for key, value in vars(e).items():
        if isinstance(value, Expr):
            new: object = _rewrite(value, f)
        elif isinstance(value, tuple) and value and all(isinstance(v, Expr) for v in value):
            new = tuple(_rewrite(v, f) for v in value)
        else:
            new = value
        changed = changed or new != value
        parts[key] = new
    return type(e)(**parts) if changed else e


def _slots(spec: Spec) -> Iterator[tuple[Row, str, str | None, Expr]]:
    """Every expression a row holds: (row, kind, name, expression), kind guard/update/output."""
    for r in spec.rows:
        yield r, "guard", None, r.guard
        for name, value in r.updates.items():
            yield r, "update", name, value
        for name, value in r.outputs.items():
            yield r, "output", name, value


def _map_rows(spec: Spec, f: Callable[[Expr], Expr | None]) -> tuple[Row, ...]:
    return tuple(
        replace(
            r,
            guard=_rewrite(r.guard, f),
            updates=_frozen({k: _rewrite(v, f) for k, v in r.updates.items()}),
            outputs=_frozen({k: _rewrite(v, f) for k, v in r.outputs.items()}),
        )
        for r in spec.rows
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _regroup(spec: Spec) -> Iterator[Candidate]:
    """A trigger moved to another group (who decides it)."""
    groups = list(dict.fromkeys(t.group for t in spec.triggers))
    if len(groups) < 2:
        return
    for t in spec.triggers:
        for g in groups:
            if g == t.group:
                continue
            moved = replace(t, group=g)
            yield (
                "regroup",
                None,
                f"trigger {t.name} in group {g or '(none)'}",
                lambda moved=moved: replace(  # type: ignore[misc]
                    spec,
                    triggers=tuple(moved if x.name == moved.name else x for x in spec.triggers),
                ),
            )


def _table_constants(spec: Spec) -> Iterator[Candidate]:
    """An integer constant of a guard, update or output changed by one, in every row whose
    same expression holds it (a saturation bound, a count's step, a limit in a guard)."""
    seen: dict[Expr, list[str]] = {}
    for r, _, _, e in _slots(spec):
        if any(isinstance(n, Cmp) for n in walk(e)):
            seen.setdefault(e, []).append(r.name)
    for e, rows in seen.items():
        numbers = sorted({n.value for n in walk(e) if isinstance(n, Const) and _is_int(n.value)})
        for n in numbers:
            for m in (n - 1, n + 1):
                if m < 0:
                    continue

                def change(x: Expr, e: Expr = e, n: int = n, m: int = m) -> Expr | None:
                    if x != e:
                        return None
                    return _rewrite(e, lambda y: Const(m) if y == Const(n) else None)

                yield (
                    "table-constant",
                    rows[0] if len(rows) == 1 else None,
                    f"{n} → {m} in {_clipped(show(spec, e), 40)} ({plural(len(rows), 'row')})",
                    lambda change=change: replace(  # type: ignore[misc]
                        spec, rows=_map_rows(spec, change)
                    ),
                )


def _clipped(text: str, width: int) -> str:
    """A condition cut to `width` at a word, marked: a cut inside a word could read as
    another value (`level = HI` for HIGH)."""
    return textwrap.shorten(text, width, placeholder=" …")


def _guard_constants(spec: Spec, rng: random.Random) -> Iterator[Candidate]:
    """A constant a guard compares a variable or argument with, replaced by another value of
    its domain, in every row whose guard holds that comparison (a guard's table entry)."""
    found: dict[Expr, tuple[Domain, list[str]]] = {}
    for r in spec.rows:
        domains = {("pre", v.name): v.domain for v in spec.vars}
        domains.update({("param", p.name): p.domain for p in spec.trigger(r.trigger).params})
        for n in walk(r.guard):
            if isinstance(n, Eq | Cmp) and isinstance(n.right, Const) and isinstance(n.left, Ref):
                domain = domains.get((n.left.scope, n.left.name))
                if domain is not None:
                    found.setdefault(n, (domain, []))[1].append(r.name)
    for node, (domain, rows) in found.items():
        assert isinstance(node, Eq | Cmp) and isinstance(node.right, Const)
        for other in _others(rng, domain, node.right.value):
            new = replace(node, right=Const(other))

            def change(x: Expr, node: Expr = node, new: Expr = new) -> Expr | None:
                return new if x == node else None

            shown = _clipped(show(spec, node), 30)
            yield (
                "guard-constant",
                rows[0] if len(rows) == 1 else None,
                f"{shown} → {domain.label(other)} ({plural(len(rows), 'row')})",
                lambda change=change: replace(spec, rows=_map_rows(spec, change)),  # type: ignore[misc]
            )


def _set_entries(spec: Spec) -> Iterator[Candidate]:
    """One entry dropped from a set a row tests membership of (a mode's tool table), in
    every row that tests the same set."""
    found: dict[tuple[Value, ...], list[str]] = {}
    for r, _, _, e in _slots(spec):
        for n in walk(e):
            if isinstance(n, In) and len(n.options) > 1:
                rows = found.setdefault(n.options, [])
                if r.name not in rows:
                    rows.append(r.name)
    for options, rows in found.items():
        for k, entry in enumerate(options):
            rest = options[:k] + options[k + 1 :]

            def change(
                x: Expr, options: tuple[Value, ...] = options, rest: tuple[Value, ...] = rest
            ) -> Expr | None:
                return In(x.item, rest) if isinstance(x, In) and x.options == options else None

            yield (
                "drop-set-entry",
                rows[0] if len(rows) == 1 else None,
                f"{str(entry)[:24]} dropped from a set of {len(options)} "
                f"({plural(len(rows), 'row')})",
                lambda change=change: replace(spec, rows=_map_rows(spec, change)),  # type: ignore[misc]
            )


def _resets(spec: Spec) -> Iterator[Candidate]:
    """A field left out of a state reset: a row that puts two or more variables back to
    their initial value resets them; one variable is dropped from every such row."""
    initial = {v.name: Const(v.init) for v in spec.vars if not isinstance(v.init, AnyOf)}
    resetting: dict[str, list[str]] = {}
    for r in spec.rows:
        reset = [k for k, e in r.updates.items() if initial.get(k) == e]
        if len(reset) >= 2:
            for k in reset:
                resetting.setdefault(k, []).append(r.name)
    for name, rows in resetting.items():

        def forget(name: str = name, rows: tuple[str, ...] = tuple(rows)) -> Spec:
            return replace(
                spec,
                rows=tuple(
                    replace(r, updates=_frozen({k: e for k, e in r.updates.items() if k != name}))
                    if r.name in rows
                    else r
                    for r in spec.rows
                ),
            )

        yield (
            "reset-forgets",
            rows[0] if len(rows) == 1 else None,
            f"{name} left out of the reset ({plural(len(rows), 'row')})",
            forget,
        )


def _inits(spec: Spec) -> Iterator[Candidate]:
    """Each initial value of each variable replaced by every other value of its domain (at
    most `INIT_VALUES`), or dropped when the variable has several. The spec keeps its
    variants, so each variant starts in the changed state too, and must still fail."""
    for v in spec.vars:
        values = v.domain.sample()
        for k, current in enumerate(v.inits):
            others = [x for x in values if x not in v.inits][:INIT_VALUES]
            news: list[tuple[str, Value | AnyOf]] = [
                (
                    f"{v.name} starts at {v.domain.label(x)} for {v.domain.label(current)}",
                    AnyOf(*v.inits[:k], x, *v.inits[k + 1 :]) if len(v.inits) > 1 else x,
                )
                for x in others
            ]
            if len(v.inits) > 1:
                rest = v.inits[:k] + v.inits[k + 1 :]
                news.append(
                    (
                        f"{v.name} no longer starts at {v.domain.label(current)}",
                        AnyOf(*rest) if len(rest) > 1 else rest[0],
                    )
                )
            for detail, init in news:
                new = replace(v, init=init)
                yield (
                    "init-each",
                    None,
                    detail,
                    lambda new=new: replace(  # type: ignore[misc]
                        spec, vars=tuple(new if x.name == new.name else x for x in spec.vars)
                    ),
                )


def _echo_swaps(spec: Spec) -> Iterator[Candidate]:
    """A property reading an output where it meant the trigger's argument of the same name and
    domain, or the argument where it meant the output."""
    params: dict[str, Domain] = {}
    for t in spec.triggers:
        for a in t.params:
            params.setdefault(a.name, a.domain)
    outputs = {o.name: o.domain for o in spec.outputs}
    both = {n for n in params if outputs.get(n) == params[n]}
    for p in spec.properties:
        sites = sorted({(n.scope, n.name) for n in walk(p.as_written) if isinstance(n, Ref)})
        for scope, name in sites:
            if name not in both or scope not in ("out", "param"):
                continue
            other: Scope = "param" if scope == "out" else "out"
            original, swapped = Ref(scope, name), Ref(other, name)

            def change(x: Expr, old: Expr = original, new: Expr = swapped) -> Expr | None:
                return new if x == old else None

            mutated = replace(p, pred=_rewrite(p.as_written, change), written=None)
            yield (
                "out-for-param" if scope == "param" else "param-for-out",
                None,
                f"{p.name} reads {other} {name} for {scope} {name}",
                lambda mutated=mutated: replace(  # type: ignore[misc]
                    spec,
                    properties=tuple(
                        mutated if q.name == mutated.name else q for q in spec.properties
                    ),
                ),
            )


def definition_candidates(spec: Spec, *, seed: int = SEED) -> list[Candidate]:
    """Every mutant the definition operators make of the spec, not yet built (deterministic;
    `guard-constant`'s replacement values are sampled with a generator of its own)."""
    rng = random.Random(f"{seed}:{spec.name}:guard-constant")
    return [
        *_regroup(spec),
        *_guard_constants(spec, rng),
        *_table_constants(spec),
        *_set_entries(spec),
        *_resets(spec),
        *_inits(spec),
        *_echo_swaps(spec),
    ]


def liveness_candidates(spec: Spec) -> list[Candidate]:
    """The operators only liveness can kill (issue 17 §4), deterministic:

    - drop-fairness: a row made unfair: one fairness constraint, of the spec or of one
      liveness property, goes, so the rows of its trigger may wait forever;
    - self-loop: where a fair trigger's row makes progress (it leaves its one source
      control value, or changes some variable), it stays put instead: the same guard
      and outputs, no update, back to its source. It still counts as taken, so weak
      fairness is met by taking it forever.
    """
    if not any(p.promised for p in spec.liveness):
        return []
    found: list[Candidate] = []
    for f in spec.fairness:
        kept = tuple(x for x in spec.fairness if x != f)
        found.append(
            (
                "drop-fairness",
                None,
                f"{f} dropped from the spec",
                lambda kept=kept: replace(spec, fairness=kept),  # type: ignore[misc]
            )
        )
    promised = [p for p in spec.liveness if p.promised]  # less fairness only eases a witness
    for p in promised:
        for f in p.fairness:
            live = replace(p, fairness=tuple(x for x in p.fairness if x != f))
            found.append(
                (
                    "drop-fairness",
                    None,
                    f"{f} dropped from {p.name}",
                    lambda live=live: replace(  # type: ignore[misc]
                        spec,
                        liveness=tuple(live if x.name == live.name else x for x in spec.liveness),
                    ),
                )
            )
    fair = {
        t
        for f in (*spec.fairness, *(f for p in promised for f in p.fairness))
        for t in spec.fairness_triggers(f)
    }
    control = spec.control_domain
    for r in spec.rows:
        if r.ignore or r.trigger not in fair:
            continue
        sources = tuple(r.source) if r.source is not None else ()
        if control is not None and len(sources) == 1 and r.target not in (None, sources[0]):
            stay = replace(r, target=sources[0], updates=_frozen({}))
        elif r.updates and (control is None or r.target is None):
            stay = replace(r, updates=_frozen({}))
        else:
            continue
        found.append(("self-loop", r.name, "stays where it was", _with_row(spec, stay)))
    return found


def candidates(spec: Spec, *, seed: int = SEED) -> tuple[list[Candidate], random.Random]:
    """Every mutant the operators make of the spec, not yet built: (operator, row, detail,
    build). The value replacements are sampled with the seeded generator it returns."""
    rng = random.Random(f"{seed}:{spec.name}")
    found = [c for r in spec.rows for c in _row_candidates(spec, r, rng)]
    found += list(_init_candidates(spec, rng))
    return found, rng


def _ranked(found: list[Candidate], rng: random.Random, limit: int) -> list[Candidate]:
    # One seeded ranking of every candidate: a smaller limit keeps a subset of a larger one.
    ranking = list(range(len(found)))
    rng.shuffle(ranking)
    keep = set(ranking[:limit])
    return [c for k, c in enumerate(found) if k in keep]


def generate(
    spec: Spec,
    *,
    limit: int = LIMIT,
    extra_limit: int = EXTRA_LIMIT,
    live_limit: int = LIVE_LIMIT,
    seed: int = SEED,
) -> Generation:
    """The spec's mutants: every row operator on every row and variable, at most `limit`
    kept, then every definition operator (`definition_candidates`), at most `extra_limit`
    kept, then the liveness operators (`liveness_candidates`), at most `live_limit`. The
    samples are ranked apart, so each is the same with or without the others."""
    candidates_, rng = candidates(spec, seed=seed)
    chosen = _ranked(candidates_, rng, limit)
    extra = definition_candidates(spec)
    chosen += _ranked(extra, random.Random(f"{seed}:{spec.name}:definition"), extra_limit)
    live = liveness_candidates(spec)
    chosen += _ranked(live, random.Random(f"{seed}:{spec.name}:liveness"), live_limit)
    candidates_ = candidates_ + extra + live
    mutants: list[Mutant] = []
    invalid = 0
    for op, row, detail, build in chosen:
        try:
            mutated = build()
        except SpecError:
            invalid += 1  # a fault the spec vocabulary refuses to express (say, a type error)
            continue
        mid = f"{spec.name}-{len(mutants) + 1:03d}"
        mutants.append(Mutant(mid, op, row, detail, mutated.renamed(mid)))
    return Generation(tuple(mutants), len(candidates_), invalid)


# ---------------------------------------------------------------- the model layer


class Baseline:
    """The original spec and its complete graph, which every mutant of it is judged against
    (conformance compares a mutant's steps with these; z3 proves equivalence on its states)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.graph = explore(spec)
        # The last mutant `model_kill` explored, and its graph: `mutant_graph` reuses it.
        self.last: tuple[Spec, Exploration] | None = None

    @cached_property
    def steps(self) -> list[dict[int, tuple[str, int, dict[str, Value]]]]:
        """steps[state][firing] = (row, target, outputs): what a mutant's step is compared
        with (a small graph's only: see COMPILED_EDGES)."""
        states = [self.graph.as_dict(i) for i in range(len(self.graph.states))]
        steps: list[dict[int, tuple[str, int, dict[str, Value]]]] = [{} for _ in states]
        for i, k, row, j, outputs in _steps(self.spec, self.graph, states):
            steps[i][k] = (row, j, outputs)
        return steps


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


# `_leaves_domain` looks this deep for a state whose update leaves its domain.
BMC_DEPTH = 12

# A mutant whose graph outgrows the original's this many times over gets no model verdict.
GROWTH = 20


def _bound(base: Baseline) -> int:
    return GROWTH * len(base.graph.states) + 1000


def mutant_graph(base: Baseline, spec: Spec) -> Exploration | None:
    """The mutant's complete graph (None if it outgrows its bound or a row leaves its
    domain), for the layers after the model's."""
    if base.last is not None and base.last[0] is spec:
        return base.last[1]  # model_kill explored it already (a large spec's costs seconds)
    try:
        return explore(spec, max_states=_bound(base))
    except (OracleError, ExplorationLimit):
        return None


def model_kill(base: Baseline, spec: Spec) -> Kill | None:
    """The first of the spec's own checks that fails on the mutant's complete graph.

    The mutant is explored by the kernel's compiled explorer. On a small graph its edges
    are generated once, in BFS order (so a first hit is a shallowest counterexample).
    A mutant changes one row (or one initial value), and the original satisfies
    every check (verify proves it): so a property whose predicate is unchanged is
    only tested on what the original lacks (new states; steps from new states or
    of a changed trigger), the others everywhere. On a large graph (COMPILED_EDGES)
    each check is the explorer's compiled search of the whole graph, as in `verify`:
    its first hit is the same. Checks run in `verify`'s order, but determinism first.
    """
    try:
        g = explore(spec, max_states=_bound(base))
    except OracleError as err:  # a row leaves its variable's domain, as the oracle reports
        return Kill("model", f"explorer ({err})", None, partial(_leaves_domain, spec))
    except ExplorationLimit:
        return None  # no model verdict: the later layers and the equivalence proof decide
    base.last = (spec, g)
    view = _View(base, spec, g)
    # Determinism first: the explorer fires the first enabled row of a trigger (an if/elif
    # chain), so its graph is all the mutant does only when no two rows are enabled at once;
    # z3's relation, which the kills are replayed in, takes any enabled row.
    checks: list[Callable[[], Kill | None]] = [
        view.determinism,
        *[partial(view.prop, p) for p in spec.properties],
        *[partial(view.live, p) for p in spec.liveness if p.promised],
        view.totality,
        view.deadlock,
        view.defined,
        view.terminal,
        view.rows_fire,
        view.vacuity,
        *[partial(_variant, base, spec, v.name) for v in spec.variants],
    ]
    for check in checks:
        kill = check()
        if kill is not None:
            return kill
    return None


# Above this many edges each check is the explorer's compiled search of the whole graph;
# below, the edges are listed once and only new ones evaluated: generating code for each
# row costs more than that on a small graph (the fast gate's wave, 4,410 edges: 10 s, 29 s
# compiled), and listing costs more than the search on a large one (adr068, 285,520 edges:
# 41 s listed, 9 s compiled; CPU seconds of `mutants --fast`, 2 December 2026).
COMPILED_EDGES = 50_000


class _View:
    """A mutant's graph beside its original's: every state and edge, flagged new or not
    (listed only for a small graph; a large one is searched whole)."""

    def __init__(self, base: Baseline, spec: Spec, g: Exploration) -> None:
        self.base, self.spec, self.g = base, spec, g
        self.compiled = g.edge_count > COMPILED_EDGES
        self.states = [Env(pre=g.as_dict(i)) for i in range(len(g.states))]
        # The original's number of each state (None: a state the original never reaches).
        self.base_of = [base.graph.index.get(state) for state in g.states]
        self.new_state = [b is None for b in self.base_of]
        self.props = {p.name: p.pred for p in base.spec.properties}
        # A trigger in another group changes what every property reading a group sees.
        self.regrouped = spec.triggers != base.spec.triggers
        self._live: Graph | None = None

    @cached_property
    def edges(self) -> list[tuple[int, str, str, Env, bool]]:
        """Every edge: (source, row, trigger, env, new). A step is new when its source is,
        or when a changed trigger does there what the original does not (another row,
        target or output); a step the original takes too satisfies what it satisfies."""
        spec, base, base_of, code = self.spec, self.base, self.base_of, self.g.code
        same = {t.name for t in spec.triggers if spec.rows_of(t.name) == base.spec.rows_of(t.name)}
        edges: list[tuple[int, str, str, Env, bool]] = []
        for i, k, row, j, emitted in _steps(spec, self.g, [e.pre for e in self.states]):
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
            edges.append((i, row, firing.trigger, env, new))
        return edges

    # ------------------------------------------------------------ counterexamples for z3

    def _trace_to(self, i: int) -> Trace:
        return self.g.path_to(i)

    def _trace_through(self, source: int, env: Env) -> Trace:
        head = self.g.path_to(source)
        assert env.post is not None and env.trigger is not None and env.row is not None
        step = TraceStep(env.row, env.trigger, env.params or {}, env.post, env.outputs or {})
        return Trace(head.init, (*head.steps, step))

    def _reach(self, trace: Trace, target: Expr, step: bool) -> Confirm:
        return partial(smt.replay, self.spec, trace, target, step=step)

    def _absent(self, target: Expr, step: bool) -> Confirm:
        return partial(smt.absent, self.spec, [e.pre for e in self.states], target, step=step)

    # ------------------------------------------------------------ the checks

    def _first_state(self, check: str, test: Expr, every: bool) -> Kill | None:
        if self.compiled:
            i = self.g.first_state(test)
        else:
            fn = compiled(test)
            hits = (i for i, e in enumerate(self.states) if (every or self.new_state[i]) and fn(e))
            i = next(hits, None)
        if i is None:
            return None
        return Kill("model", check, self.g.depth[i], self._reach(self._trace_to(i), test, False))

    def _first_edge(self, check: str, test: Expr, every: bool) -> Kill | None:
        if self.compiled:
            edge = self.g.first_edge(test)
            if edge is None:
                return None
            source, trace = edge.source, self.g.path_through(edge)
        else:
            fn = compiled(test)
            hits = ((i, env) for i, _, _, env, new in self.edges if (every or new) and fn(env))
            hit = next(hits, None)
            if hit is None:
                return None
            source, trace = hit[0], self._trace_through(*hit)
        return Kill("model", check, self.g.depth[source] + 1, self._reach(trace, test, True))

    def prop(self, p: Property) -> Kill | None:
        find = self._first_edge if p.over_steps else self._first_state
        if p.kind is Kind.SOMETIMES:
            if find("", p.pred, True) is not None:
                return None
            return Kill("model", p.name, None, self._absent(p.pred, p.over_steps))
        every = p.pred != self.props.get(p.name) or self.regrouped
        return find(p.name, p.bad, every)

    def live(self, p: Liveness) -> Kill | None:
        """A promised liveness property on the mutant's complete graph: a fair lasso kills,
        once z3 replays its stem and loop as steps of the mutant. (A property the spec does
        not promise documents a lasso; a mutant that removes it is not a fault.)"""
        if self._live is None:
            self._live = Graph(self.g)
        found = check_liveness(self._live, p)
        if found.lasso is None:
            return None
        trace = found.lasso.trace
        return Kill(
            "model", p.name, len(trace), partial(smt.replay, self.spec, trace, TRUE, step=False)
        )

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
                        confirm = self._both(i, t.name, params, lambda n: n > 1, "two rows")
                        return Kill("model", "determinism", g.depth[i] + 1, confirm)
        return None

    def _both(
        self,
        i: int,
        trigger: str,
        params: Mapping[str, Value],
        ok: Callable[[int], bool],
        what: str,
    ) -> Confirm:
        """z3 replays the path to state i, and finds `ok` of the rows it enables there."""
        trace, spec = self._trace_to(i), self.spec

        def confirm() -> str | None:
            found = smt.replay(spec, trace, TRUE, step=False)
            if found is not None:
                return found
            enabled = smt.enabled_rows(spec, trace.states()[-1], trigger, params)
            if not ok(len(enabled)):
                return f"z3 finds {sorted(enabled) or 'no row'} of {trigger} enabled, not {what}"
            return None

        return confirm

    def totality(self) -> Kill | None:
        g = self.g
        if self.spec.totality == "enabled-only" or not g.undefined:
            return None
        i, trigger, params = g.undefined[0]
        confirm = self._both(i, trigger, params, lambda n: n == 0, "none")
        return Kill("model", "totality", g.depth[i] + 1, confirm)

    def deadlock(self) -> Kill | None:
        spec = self.spec
        if not spec.check_deadlock:
            return None
        starts, codes, _ = self.g.move_table()
        rows = self.g.code.rows
        moves = [not r.ignore for r in rows]  # by `firing * len(rows) + row`, modulo
        terminal = compiled(spec.terminal) if spec.terminal is not None else None
        for i, env in enumerate(self.states):
            live = any(moves[c % len(rows)] for c in codes[starts[i] : starts[i + 1]])
            if not live and not (terminal is not None and terminal(env)):
                return Kill("model", "no-deadlock", self.g.depth[i], self._stuck(i))
        return None

    def _stuck(self, i: int) -> Confirm:
        spec, trace = self.spec, self._trace_to(i)
        target = Not(spec.terminal) if spec.terminal is not None else TRUE

        def confirm() -> str | None:
            found = smt.replay(spec, trace, target, step=False)
            if found is not None:
                return found
            state = trace.states()[-1]
            for t in spec.triggers:
                for params in spec.param_assignments(t.name):
                    live = [r for r in smt.enabled_rows(spec, state, t.name, params)]
                    if any(not spec.row(r).ignore for r in live):
                        return f"z3 finds {live} of {t.name} enabled in the deadlocked state"
            return None

        return confirm

    def defined(self) -> Kill | None:
        """`well-defined`: no reachable state lets a row append to a full sequence, etc."""
        spec = self.spec
        for r in spec.rows:
            when = spec.defined(r)
            if when is not None:
                bad = spec.for_some_arguments(r.trigger, And((spec.source_expr(r), Not(when))))
                kill = self._first_state("well-defined", bad, True)
                if kill is not None:
                    return kill
        return None

    def terminal(self) -> Kill | None:
        spec = self.spec
        if spec.terminal is None:
            return None
        moves = And(
            (
                spec.terminal,
                Or(tuple(Not(Eq(Ref("pre", v.name), Ref("post", v.name))) for v in spec.vars)),
            )
        )
        every = spec.terminal != self.base.spec.terminal
        return self._first_edge("terminal-absorbing", moves, every)

    def rows_fire(self) -> Kill | None:
        fired = self.g.row_witnesses()
        dead = [r.name for r in self.spec.rows if r.name not in fired]
        if not dead:
            return None
        return Kill("model", "rows-fire", None, self._absent(StepIs("row", (dead[0],)), True))

    def vacuity(self) -> Kill | None:
        """`vacuity` (kernel/vacuity.py): its own compiled searches on a large graph, else
        on the edges already listed."""
        if self.compiled:
            for v in vacuous(self.spec, self.g)[:1]:
                return Kill("model", "vacuity", None, self._absent(v.premise, v.step))
            return None
        for _, step, premise in premises(self.spec):
            test = compiled(premise)
            if step:
                hit = any(test(env) for _, _, _, env, _ in self.edges)
            else:
                hit = any(test(env) for env in self.states)
            if not hit:
                return Kill("model", "vacuity", None, self._absent(premise, step))
        return None


def same_fairness(base: Baseline, mutant: Spec) -> bool:
    """The mutant's fair runs are the original's, for every liveness property over states:
    the same liveness and fairness, and on the reachable graph the same fair view of every
    step. Only then does z3's proof of the same steps (`smt.prove_equivalent`) make the
    mutant equivalent for its liveness properties too: an ignore row made a move, or back,
    changes which steps are fair without changing a step.

    With weak fairness only, a step that stays in its state is seen only as an escape: a
    weak constraint a state can take without leaving it, or does not enable, is met there
    by a run that stays (taking it, or stuttering), and the fair-cycle search reads nothing
    else of such a step (liveness.py: a component is fair for a weak constraint it takes
    inside or escapes somewhere). So a no-op move and an ignore row are alike there."""
    spec = base.spec
    if not spec.liveness:
        return True
    if (mutant.liveness, mutant.fairness) != (spec.liveness, spec.fairness):
        return False
    g = mutant_graph(base, mutant)
    if g is None:
        return False
    ours, theirs = Graph(base.graph), Graph(g)
    return all(
        _fair_view(ours, spec.fair_cases(p)) == _fair_view(theirs, mutant.fair_cases(p))
        for p in spec.liveness
    )


def _fair_view(graph: Graph, cases: tuple[FairCase, ...]) -> set[tuple[object, ...]]:
    """Every step of the graph, by its states, with the fairness constraints it takes; with
    weak fairness only, the moves that stay put are folded into each state's escapes (the
    weak constraints it does not enable, or takes without leaving)."""
    adj, enabled = graph.moves(cases)
    states = graph.g.states
    if any(f.kind == "strong" for f in cases):
        return {
            (states[i], k, bits, states[t]) for i, out in enumerate(adj) for k, _, t, bits in out
        }
    every = (1 << len(cases)) - 1
    view: set[tuple[object, ...]] = set()
    for i, out in enumerate(adj):
        escapes = every & ~enabled[i]
        for k, _, t, bits in out:
            if t == i:
                escapes |= bits
            else:
                view.add((states[i], k, bits, states[t]))
        view.add((states[i], escapes))
    return view


def _variant(base: Baseline, spec: Spec, name: str) -> Kill | None:
    """A mutant keeps the spec's variants: each, applied to the mutant, must still violate
    what it is declared to violate (a variant's rows replace the mutant's, its start is the
    mutant's start)."""
    faulty = spec.with_variant(name)
    try:
        g = explore(faulty, max_states=_bound(base))
    except (OracleError, ExplorationLimit):
        return None  # the variant's own verdict is not the mutant's to give
    states = [g.as_dict(i) for i in range(len(g.states))]
    for p in faulty.properties:
        step = p.over_steps
        if p.kind is Kind.SOMETIMES:
            edge = g.first_edge(p.pred) if step else None
            state = None if step else g.first_state(p.pred)
            if edge is None and state is None:
                continue  # still violated: no witness
            trace = g.path_through(edge) if edge is not None else g.path_to(state or 0)
            confirm: Confirm = partial(smt.replay, faulty, trace, p.pred, step=step)
        else:
            if (g.first_edge(p.bad) if step else g.first_state(p.bad)) is not None:
                continue
            confirm = partial(smt.absent, faulty, states, p.bad, step=step)
        return Kill("model", f"variant {name} no longer violates {p.name}", None, confirm)
    live = Graph(g)
    for lp in faulty.liveness:
        if check_liveness(live, lp).holds:
            # No lasso to replay: z3 confirms the graph it was decided on is the variant's.
            confirm = partial(smt.absent, faulty, states, FALSE, step=False)
            return Kill("model", f"variant {name} no longer violates {lp.name}", None, confirm)
    return None


def _conjuncts(e: Expr) -> list[Expr]:
    """What a property demands, piece by piece: the conjuncts of its conclusion."""
    if isinstance(e, Implies):
        return _conjuncts(e.conclusion)
    if isinstance(e, And):
        return [c for a in e.args for c in _conjuncts(a)]
    return [e]


def toothless(original: Spec, mutant: Spec) -> Kill | None:
    """A changed property one of whose demands z3 proves true of every step, whatever the
    rows do, where the original's was not: the change took that demand's teeth out."""
    for p in mutant.properties:
        if p in original.properties or p.kind is Kind.SOMETIMES:
            continue
        before = _conjuncts(original.prop(p.name).pred)
        after = _conjuncts(p.pred)
        for old, new in zip(before, after, strict=False):
            if old != new and smt.valid(mutant, new) and not smt.valid(original, old):
                # Decided by z3 itself, not by the kernel's evaluator: nothing to replay.
                return Kill("model", f"{p.name} demands nothing (z3)", None, lambda: None)
    return None


def _leaves_domain(spec: Spec) -> str | None:
    """z3's reading of an explorer refusal: some reachable state lets a row's update leave
    its variable's domain (found by BMC over the mutant, with the update's value free)."""
    engines = smt.Engines(smt.Encoding(spec))
    for r in spec.rows:
        for name, update in r.updates.items():
            values = spec.var(name).domain.values
            if values is None or not any(isinstance(n, Add) for n in walk(update)):
                continue
            target = And((spec.step_guard(r), Not(In(update, tuple(values)))))
            found = engines.bmc(target, step=False, max_depth=BMC_DEPTH, params_of=r.trigger)
            if isinstance(found, smt.Found):
                return None
    return f"z3 finds no update leaving its domain within {BMC_DEPTH} steps"
