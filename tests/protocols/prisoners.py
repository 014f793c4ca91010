"""Prisoners.tla (the Car Guys' two-switch puzzle), Prisoner = {p1, p2, p3, p4} with
Counter = p1: TLC finds 214 states.

`timesSwitched` is a function over the other prisoners; `CountInvariant`'s recursive
sum is `total`. Rows: cite Prisoners.tla, actions CounterStep and NonCounterStep(i).
"""

from __future__ import annotations

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import at
from models.kernel import eq
from models.kernel import eventually
from models.kernel import forall
from models.kernel import gt
from models.kernel import implies
from models.kernel import ite
from models.kernel import lt
from models.kernel import not_
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import sub
from models.kernel import total
from models.kernel import update
from models.kernel import var
from models.kernel import weak

SRC = "shared/protocols/Prisoners/Prisoners.tla"
PRISONERS = 4
OTHER = Finite("OtherPrisoner", ("p2", "p3", "p4"))
TIMES = Func(OTHER, IntRange(0, 2))
A, B, TS, COUNT = var("switchAUp"), var("switchBUp"), var("timesSwitched"), var("count")
OTHER_I = param("i")
DONE = eq(COUNT, 2 * (PRISONERS - 1))

SPEC = Spec(
    name="Prisoners",
    source=SRC,
    vars=(
        Var("switchAUp", Bool(), AnyOf(False, True)),
        Var("switchBUp", Bool(), AnyOf(False, True)),
        Var("timesSwitched", TIMES, TIMES.of(lambda i: 0)),
        Var("count", IntRange(0, 2 * PRISONERS - 1), 0),
    ),
    triggers=(Trigger("CounterStep"), Trigger("NonCounterStep", (Param("i", OTHER),))),
    rows=(
        row(
            "counter_down",
            "CounterStep",
            None,
            guard=A,
            sets={"switchAUp": False, "count": add(COUNT, 1)},
            cite=f"{SRC} CounterStep, switch A up",
        ),
        row(
            "counter_flip_b",
            "CounterStep",
            None,
            guard=not_(A),
            sets={"switchBUp": not_(B)},
            cite=f"{SRC} CounterStep, switch A down",
        ),
        row(
            "other_up",
            "NonCounterStep",
            None,
            guard=and_(not_(A), lt(at(TS, OTHER_I), 2)),
            sets={"switchAUp": True, "timesSwitched": update(TS, OTHER_I, add(at(TS, OTHER_I), 1))},
            cite=f"{SRC} NonCounterStep(i), A down and fewer than two ups",
        ),
        row(
            "other_flip_b",
            "NonCounterStep",
            None,
            guard=or_(A, not_(lt(at(TS, OTHER_I), 2))),
            sets={"switchBUp": not_(B)},
            cite=f"{SRC} NonCounterStep(i), otherwise",
        ),
    ),
    properties=(
        always(
            "CountInvariant",
            or_(
                eq(COUNT, sub(total("p", OTHER, lambda p: at(TS, p)), ite(A, 1, 0))),
                eq(COUNT, add(sub(total("p", OTHER, lambda p: at(TS, p)), ite(A, 1, 0)), 1)),
            ),
            cite=f"{SRC} CountInvariant",
        ),
        always(
            "Safety",
            implies(DONE, forall("i", OTHER, lambda i: gt(at(TS, i), 0))),
            cite=f"{SRC} Safety (a [] safety property of the .cfg's PROPERTIES)",
        ),
    ),
    liveness=(eventually("Liveness", DONE, cite=f"{SRC} Liveness (Prisoners.cfg PROPERTIES)"),),
    # Fairness == WF_vars(CounterStep) /\ \A i \in OtherPrisoner : WF_vars(NonCounterStep(i))
    fairness=(*weak("CounterStep"), *weak("NonCounterStep", each="i")),
    totality="enabled-only",
)
