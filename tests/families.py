"""Generated spec families for scaling tests and `make bench`, written as a user would.

- `counters(k)`: k independent counters 0..9, each with an increment (an
  ignore row at the top, so the spec is total) and a reset: 10**k reachable
  states, diameter 9k. A safety property (every counter stays in 0..9, from
  the rows, not the types: the counters are declared 0..15) and a `sometimes`
  (all counters at 9: the deepest state, so the explorer scans everything).
- `duplex_product(k)`: k independent copies of the duplex machine
  (`models/duplex.py`), 36**k reachable states, and a `sometimes` (every copy in
  Overlap at once: 4k steps deep). Each copy's variables,
  triggers, rows and outputs get a `_i` suffix; a copy's control variable
  becomes an ordinary variable read by its rows' guards.
- `random_spec(seed)`: a small spec drawn from a seeded generator, for the
  cross-check of the explorer, the oracle, z3 and SPIN (tests/test_random_specs.py).
  Every domain kind appears (a finite control variable, Bool, an IntRange not
  always starting at 0, options of an IntRange and of a Real); guards, updates,
  outputs and properties are random expressions over them. A trigger's rows are
  made exclusive by construction (each guard excludes the rows above it), so
  the spec is deterministic and the first-match explorer and oracle mean what
  z3's any-enabled-row relation means; most triggers end in a catch-all row
  (an ignore row or a real one), the rest may leave states undefined. Real
  values only flow into the real option and an output, and the one real guard
  compares with 1.0, which the samples 0.5 and 1.5 straddle, so the explorer's
  samples see every finite behaviour z3 sees.
- `transaction_commit(n)`: Lamport's two-phase commit (TwoPhase.tla, the
  TLA+ examples' TCommit refinement) with n resource managers, one variable
  per manager. TLC's counts: 288 states at n=3, 1,568 at n=4. Its invariant
  TCConsistent (no manager committed while another aborted) is where z3's
  certificate search gave up at n=4 (issue 16 §3).
- `swing()`: phases A and B swap on `tick` forever, and only `done` (not fair: weak
  fairness covers `tick` alone) leaves B for C, so `eventually C` is violated by a
  lasso with a real loop, A B A back to step 0 (the seeds' only lasso stutters):
  what the diagram overlay and the report's player are tested on.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from typing import Any

from models import duplex
from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Property
from models.kernel import Real
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import eventually
from models.kernel import ge
from models.kernel import gt
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import ite
from models.kernel import le
from models.kernel import lt
from models.kernel import ne
from models.kernel import never
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import sub
from models.kernel import trigger_is
from models.kernel import unchanged
from models.kernel import unwrap
from models.kernel import var
from models.kernel import weak
from models.kernel.expr import Enabled
from models.kernel.expr import Expr
from models.kernel.expr import Ref
from models.kernel.expr import StepIs
from models.kernel.expr import as_expr

TOP = 9


def counters(k: int) -> Spec:
    """k independent counters 0..9: 10**k reachable states."""
    names = [f"c{i}" for i in range(k)]
    rows: list[Row] = []
    for c in names:
        rows += [
            row(
                f"inc_{c}",
                f"inc_{c}",
                None,
                guard=lt(var(c), TOP),
                sets={c: add(var(c), 1)},
                cite="family: increment below the top",
            ),
            ignore(
                f"inc_{c}_at_top",
                f"inc_{c}",
                None,
                guard=eq(var(c), TOP),
                cite="family: increment at the top is a no-op",
            ),
            row(f"reset_{c}", f"reset_{c}", None, sets={c: 0}, cite="family: reset"),
        ]
    return Spec(
        name=f"counters{k}",
        source="tests/families.py",
        vars=tuple(Var(c, IntRange(0, 15), 0) for c in names),
        triggers=tuple(Trigger(f"{op}_{c}") for c in names for op in ("inc", "reset")),
        rows=tuple(rows),
        properties=(
            always(
                "counters-stay-in-range", and_(*(le(var(c), TOP) for c in names)), cite="family"
            ),
            sometimes("all-at-top", and_(*(eq(var(c), TOP) for c in names)), cite="family"),
        ),
    )


def _rename(e: Any, i: int, spec: Spec) -> Any:
    """`e` with every variable, output, trigger and row name of one duplex copy suffixed."""
    if isinstance(e, Ref):
        return Ref(e.scope, e.name if e.scope == "param" else f"{e.name}_{i}")
    if isinstance(e, Enabled):
        return Enabled(tuple(f"{t}_{i}" for t in e.triggers))
    if isinstance(e, StepIs):
        if e.kind == "group":  # groups are per copy, so a group test names that copy's triggers
            names = tuple(f"{t.name}_{i}" for t in spec.triggers if t.group in e.names)
            return StepIs("trigger", names)
        return StepIs(e.kind, tuple(f"{n}_{i}" for n in e.names))
    if isinstance(e, Expr):
        changes = {}
        for f in dataclasses.fields(e):  # type: ignore[arg-type]
            value = getattr(e, f.name)
            if isinstance(value, Expr) or (
                isinstance(value, tuple) and value and isinstance(value[0], Expr)
            ):
                changes[f.name] = (
                    _rename(value, i, spec)
                    if isinstance(value, Expr)
                    else tuple(_rename(x, i, spec) for x in value)
                )
        return dataclasses.replace(e, **changes)  # type: ignore[type-var]
    return e


def duplex_product(k: int) -> Spec:
    """k independent copies of the duplex machine: 36**k reachable states."""
    base = duplex.SPEC
    control = base.control
    assert control is not None
    rows: list[Row] = []
    for i in range(k):
        for r in base.rows:
            source = is_in(var(f"{control}_{i}"), *r.source) if r.source is not None else None
            guard = _rename(r.guard, i, base)
            updates = {f"{n}_{i}": _rename(x, i, base) for n, x in r.updates.items()}
            if r.target is not None:
                updates[f"{control}_{i}"] = as_expr(r.target)
            rows.append(
                dataclasses.replace(
                    r,
                    name=f"{r.name}_{i}",
                    trigger=f"{r.trigger}_{i}",
                    source=None,
                    target=None,
                    guard=and_(source, guard) if source is not None else guard,
                    updates=updates,
                    outputs={f"{n}_{i}": _rename(x, i, base) for n, x in r.outputs.items()},
                )
            )
    properties = []
    for i in range(k):
        for p in base.properties:
            if p.kind.value != "sometimes":
                properties.append(
                    dataclasses.replace(
                        p, name=f"{p.name}_{i}", pred=_rename(p.as_written, i, base), written=None
                    )
                )
    properties.append(
        sometimes(
            "every-copy-overlaps",
            and_(*(eq(var(f"{control}_{i}"), duplex.OVERLAP) for i in range(k))),
            cite="family: each copy 4 steps deep, so the witness is 4k steps",
        )
    )
    return Spec(
        name=f"duplex{k}",
        source="tests/families.py (k copies of models/duplex.py)",
        vars=tuple(
            dataclasses.replace(v, name=f"{v.name}_{i}") for i in range(k) for v in base.vars
        ),
        triggers=tuple(
            dataclasses.replace(t, name=f"{t.name}_{i}", group=f"{t.group}_{i}")
            for i in range(k)
            for t in base.triggers
        ),
        rows=tuple(rows),
        outputs=tuple(
            Output(f"{o.name}_{i}", o.domain, o.default) for i in range(k) for o in base.outputs
        ),
        properties=tuple(properties),
    )


# ---------------------------------------------------------------- random specs


class Phase(enum.Enum):
    A = "a"
    B = "b"
    C = "c"


PHASE = Finite.of_enum(Phase)
SLOT = IntRange(0, 2)
WEIGHT = Real(samples=(0.5, 1.5))
# Every trigger a random spec may have: one per parameter kind, and one with none.
TRIGGERS = (
    Trigger("tick"),
    Trigger("flip", (Param("b", Bool()),)),
    Trigger("put", (Param("k", SLOT),)),
    Trigger("go", (Param("p", PHASE),)),
    Trigger("weigh", (Param("kg", WEIGHT),)),
)


class _Draw:
    """Random expressions over one random spec's variables (`lo..lo+3` is `n`'s range)."""

    def __init__(self, rng: random.Random, lo: int) -> None:
        self.rng, self.lo, self.hi = rng, lo, lo + 3

    def n(self) -> int:
        return self.rng.randint(self.lo, self.hi)

    def atom(self, trigger: Trigger | None) -> Expr:
        r = self.rng
        cmp = r.choice((lt, le, gt, ge, eq))
        atoms: list[Expr] = [
            eq(var("phase"), r.choice(list(Phase))),
            is_in(var("phase"), *r.sample(list(Phase), 2)),
            var("flag"),
            cmp(var("n"), self.n()),
            is_some(var("slot")),
            and_(is_some(var("slot")), cmp(unwrap(var("slot")), r.randint(0, 2))),
            is_none(var("w")),
            and_(is_some(var("w")), lt(unwrap(var("w")), 1.0)),
        ]
        names = {p.name for p in trigger.params} if trigger is not None else set()
        if "b" in names:
            atoms += [param("b"), eq(param("b"), var("flag"))]
        if "k" in names:
            atoms += [cmp(param("k"), r.randint(0, 2)), eq(some(param("k")), var("slot"))]
        if "p" in names:
            atoms += [eq(param("p"), var("phase")), eq(param("p"), r.choice(list(Phase)))]
        return r.choice(atoms)

    def pred(self, trigger: Trigger | None = None, depth: int = 2) -> Expr:
        r = self.rng
        if depth == 0 or r.random() < 0.4:
            return self.atom(trigger)
        shape = r.choice(("and", "or", "not", "implies"))
        if shape == "not":
            return not_(self.pred(trigger, depth - 1))
        a, b = self.pred(trigger, depth - 1), self.pred(trigger, depth - 1)
        if shape == "implies":
            return implies(a, b)
        return and_(a, b) if shape == "and" else or_(a, b)

    def updates(self, trigger: Trigger) -> dict[str, Any]:
        r = self.rng
        names = {p.name for p in trigger.params}
        choices: dict[str, list[Any]] = {
            "flag": [True, False, not_(var("flag")), self.pred(trigger, 1)],
            "n": [
                self.n(),
                ite(lt(var("n"), self.hi), add(var("n"), 1), self.lo),
                ite(gt(var("n"), self.lo), sub(var("n"), 1), var("n")),
                ite(self.pred(trigger, 1), self.n(), var("n")),
            ],
            "slot": [None, some(r.randint(0, 2))],
            "w": [None],
        }
        if "b" in names:
            choices["flag"].append(param("b"))
        if "k" in names:
            choices["slot"] += [some(param("k"))] * 2
        if "kg" in names:
            choices["w"] += [some(param("kg"))] * 3
        picked = r.sample(sorted(choices), r.randint(1, 3))
        return {name: r.choice(choices[name]) for name in picked}

    def outputs(self, trigger: Trigger) -> dict[str, Any]:
        r = self.rng
        names = {p.name for p in trigger.params}
        emits: dict[str, Any] = {}
        if r.random() < 0.5:
            emits["beep"] = self.pred(trigger, 1)
        if r.random() < 0.4:
            emits["seen"] = some(param("k")) if "k" in names else var("slot")
        if "kg" in names and r.random() < 0.5:
            emits["mass"] = param("kg")
        return emits

    def prop(self, name: str, triggers: list[Trigger]) -> Property:
        r = self.rng
        kind = r.choice((always, never, sometimes))
        t = r.choice(triggers)
        preds = [
            self.pred(),
            self.pred(),
            and_(self.pred(), eq(var("n"), self.n())),
            implies(and_(trigger_is(t.name), self.pred(t, 1)), unchanged(r.choice(("flag", "n")))),
            and_(trigger_is(t.name), eq(nxt("phase"), r.choice(list(Phase)))),
            implies(trigger_is(t.name), out("beep")),
            and_(self.pred(), eq(nxt("n"), self.n()), not_(out("beep"))),
        ]
        return kind(name, r.choice(preds), cite="random")


def random_spec(seed: int) -> Spec:
    """A small random spec, the same for the same seed (see the module docstring)."""
    rng = random.Random(seed)
    draw = _Draw(rng, rng.choice((-1, 0, 2)))
    triggers = [TRIGGERS[0], *rng.sample(TRIGGERS[1:], rng.randint(1, 3))]
    phases = list(Phase)
    rows: list[Row] = []
    for t in triggers:
        taken: list[Expr] = []  # what each earlier row of this trigger answers
        for i in range(rng.randint(1, 3)):
            source = tuple(rng.sample(phases, rng.randint(1, 2))) if rng.random() < 0.4 else None
            cond = draw.pred(t, rng.choice((0, 1, 1, 2)))
            guard = and_(cond, *(not_(x) for x in taken)) if taken else cond
            taken.append(and_(is_in(var("phase"), *source), cond) if source else cond)
            name = f"{t.name}_{i}"
            if rng.random() < 0.15:
                rows.append(ignore(name, t.name, source, guard=guard, cite="random"))
                continue
            target = rng.choice((None, *phases))
            rows.append(
                row(
                    name,
                    t.name,
                    source,
                    target,
                    guard=guard,
                    sets=draw.updates(t),
                    emits=draw.outputs(t),
                    cite="random",
                )
            )
        if rng.random() < 0.85:  # a catch-all: the trigger is total
            rest = not_(or_(*taken))
            if rng.random() < 0.4:
                rows.append(ignore(f"{t.name}_else", t.name, None, guard=rest, cite="random"))
            else:
                rows.append(
                    row(
                        f"{t.name}_else",
                        t.name,
                        None,
                        rng.choice((None, *phases)),
                        guard=rest,
                        sets=draw.updates(t),
                        cite="random",
                    )
                )
    start = rng.choice(phases)
    return Spec(
        name=f"random{seed}",
        source="tests/families.py",
        control="phase",
        vars=(
            Var("phase", PHASE, AnyOf(start, rng.choice(phases)) if rng.random() < 0.3 else start),
            Var("flag", Bool(), rng.choice((True, False))),
            Var("n", IntRange(draw.lo, draw.hi), draw.n()),
            Var("slot", Option(SLOT), AnyOf(None, 1) if rng.random() < 0.3 else None),
            Var("w", Option(WEIGHT), None),
        ),
        triggers=tuple(triggers),
        outputs=(
            Output("beep", Bool(), False),
            Output("seen", Option(SLOT), None),
            Output("mass", WEIGHT, 0.0),
        ),
        rows=tuple(rows),
        properties=tuple(draw.prop(f"p{i}", triggers) for i in range(rng.randint(2, 4))),
        terminal=eq(var("phase"), Phase.C) if rng.random() < 0.2 else None,
    )


RM_STATES = Finite("RMState", ("working", "prepared", "committed", "aborted"))
TM_STATES = Finite("TMState", ("init", "done"))
TWO_PHASE = "TwoPhase.tla (tlaplus/Examples, MIT)"


def _action(name: str, guard: Expr, sets: dict[str, Expr | object], cite: str) -> list[Row]:
    """A TLA+ action as one trigger: its row, and the ignore row where it is not enabled."""
    return [
        row(name, name, None, guard=guard, sets=sets, cite=f"{TWO_PHASE}: {cite}"),
        ignore(f"{name}_disabled", name, None, guard=not_(guard), cite=f"{TWO_PHASE}: {cite}"),
    ]


def transaction_commit(n: int) -> Spec:
    """Two-phase commit with n resource managers (TwoPhase.tla, TCommit's refinement)."""
    rms = range(n)
    rows: list[Row] = []
    rows += _action(
        "tm_commit",
        and_(eq(var("tm"), "init"), *(var(f"tm_prepared_{i}") for i in rms)),
        {"tm": "done", "msg_commit": True},
        "TMCommit",
    )
    rows += _action("tm_abort", eq(var("tm"), "init"), {"tm": "done", "msg_abort": True}, "TMAbort")
    for i in rms:
        rm = var(f"rm_{i}")
        rows += _action(
            f"tm_rcv_prepared_{i}",
            and_(eq(var("tm"), "init"), var(f"msg_prepared_{i}")),
            {f"tm_prepared_{i}": True},
            "TMRcvPrepared(rm)",
        )
        rows += _action(
            f"rm_prepare_{i}",
            eq(rm, "working"),
            {f"rm_{i}": "prepared", f"msg_prepared_{i}": True},
            "RMPrepare(rm)",
        )
        rows += _action(
            f"rm_choose_to_abort_{i}",
            eq(rm, "working"),
            {f"rm_{i}": "aborted"},
            "RMChooseToAbort(rm)",
        )
        rows += _action(
            f"rm_rcv_commit_{i}", var("msg_commit"), {f"rm_{i}": "committed"}, "RMRcvCommitMsg(rm)"
        )
        rows += _action(
            f"rm_rcv_abort_{i}", var("msg_abort"), {f"rm_{i}": "aborted"}, "RMRcvAbortMsg(rm)"
        )
    triggers = tuple(Trigger(r.trigger) for r in rows if not r.ignore)
    consistent = and_(
        *(
            not_(and_(eq(var(f"rm_{i}"), "aborted"), eq(var(f"rm_{j}"), "committed")))
            for i in rms
            for j in rms
            if i != j
        )
    )
    return Spec(
        name=f"tcommit{n}",
        source=f"tests/families.py ({TWO_PHASE}, {n} resource managers)",
        vars=(
            *(Var(f"rm_{i}", RM_STATES, "working") for i in rms),
            Var("tm", TM_STATES, "init"),
            *(Var(f"tm_prepared_{i}", Bool(), False) for i in rms),
            *(Var(f"msg_prepared_{i}", Bool(), False) for i in rms),
            Var("msg_commit", Bool(), False),
            Var("msg_abort", Bool(), False),
        ),
        triggers=triggers,
        rows=tuple(rows),
        properties=(
            always("consistent", consistent, cite=f"TCommit.tla: TCConsistent, via {TWO_PHASE}"),
            always(
                "commit-only-when-all-prepared",
                implies(var("msg_commit"), and_(*(ne(var(f"rm_{i}"), "working") for i in rms))),
                cite=f"{TWO_PHASE}: TMCommit needs tmPrepared = RM",
            ),
            sometimes(
                "all-committed",
                and_(*(eq(var(f"rm_{i}"), "committed") for i in rms)),
                cite=f"{TWO_PHASE}: the commit path",
            ),
        ),
    )


class _Swing(enum.Enum):
    A = "A"
    B = "B"
    C = "C"


def swing() -> Spec:
    phase = Finite.of_enum(_Swing)
    return Spec(
        name="swing",
        source="tests/families.py swing",
        control="phase",
        vars=(Var("phase", phase, _Swing.A),),
        triggers=(Trigger("tick"), Trigger("done")),
        rows=(
            row("a_to_b", "tick", _Swing.A, _Swing.B, cite="swing: tick"),
            row("b_to_a", "tick", _Swing.B, _Swing.A, cite="swing: tick back"),
            row("b_done", "done", _Swing.B, _Swing.C, cite="swing: done"),
        ),
        liveness=(eventually("finished", eq(var("phase"), _Swing.C), cite="swing: finishes"),),
        fairness=weak("tick"),
        totality="enabled-only",
        check_deadlock=False,
    )
