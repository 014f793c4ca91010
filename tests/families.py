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
- `transaction_commit(n)`: Lamport's two-phase commit (TwoPhase.tla, the
  TLA+ examples' TCommit refinement) with n resource managers, one variable
  per manager. TLC's counts: 288 states at n=3, 1,568 at n=4. Its invariant
  TCConsistent (no manager committed while another aborted) is where z3's
  certificate search gave up at n=4 (issue 16 §3).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from models import duplex
from models.kernel import (
    Bool,
    Finite,
    IntRange,
    Output,
    Row,
    Spec,
    Trigger,
    Var,
    add,
    always,
    and_,
    eq,
    ignore,
    implies,
    is_in,
    le,
    lt,
    ne,
    not_,
    row,
    sometimes,
    var,
)
from models.kernel.expr import Enabled, Expr, Ref, StepIs, as_expr

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
