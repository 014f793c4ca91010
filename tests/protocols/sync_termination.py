"""SyncTerminationDetection.tla (the abstract termination detection EWD840 refines),
N = 7: TLC finds 129 states.

`active` is a function over the nodes starting at any value; the initial predicate
ties `terminationDetected` to it (`\\in {FALSE, terminated}`). Terminate's
`terminationDetected' \\in {terminationDetected, terminated'}` is the trigger's
`detect` parameter. Rows: cite SyncTerminationDetection.tla, actions Terminate(i),
Wakeup(i, j) and DetectTermination.
"""

from __future__ import annotations

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import at
from models.kernel import eq
from models.kernel import forall
from models.kernel import implies
from models.kernel import ite
from models.kernel import leads_to
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import update
from models.kernel import var
from models.kernel import weak

N = 7
SRC = "shared/protocols/ewd840/SyncTerminationDetection.tla"
NODE = IntRange(0, N - 1, "Node")
ACTIVE = Func(NODE, Bool())
ACT, DETECTED = var("active"), var("terminationDetected")
TERMINATED = forall("n", NODE, lambda n: not_(at(ACT, n)))
NODE_I = param("i")

SPEC = Spec(
    name="SyncTerminationDetection",
    source=SRC,
    vars=(
        Var("active", ACTIVE, AnyOf(*ACTIVE.values)),
        Var("terminationDetected", Bool(), AnyOf(False, True)),
    ),
    init=implies(DETECTED, TERMINATED),
    triggers=(
        Trigger("Terminate", (Param("i", NODE), Param("detect", Bool()))),
        Trigger("Wakeup", (Param("i", NODE), Param("j", NODE))),
        Trigger("DetectTermination"),
    ),
    rows=(
        row(
            "terminate",
            "Terminate",
            None,
            guard=at(ACT, NODE_I),
            sets={
                "active": update(ACT, NODE_I, False),
                # terminated' (every node but i was already inactive), if detected now.
                "terminationDetected": ite(
                    param("detect"),
                    forall("n", NODE, lambda n: or_(eq(n, NODE_I), not_(at(ACT, n)))),
                    DETECTED,
                ),
            },
            cite=f"{SRC} Terminate(i)",
        ),
        row(
            "wakeup",
            "Wakeup",
            None,
            guard=at(ACT, NODE_I),
            sets={"active": update(ACT, param("j"), True)},
            cite=f"{SRC} Wakeup(i, j)",
        ),
        row(
            "detect",
            "DetectTermination",
            None,
            guard=TERMINATED,
            sets={"terminationDetected": True},
            cite=f"{SRC} DetectTermination",
        ),
    ),
    properties=(
        always("TDCorrect", implies(DETECTED, TERMINATED), cite=f"{SRC} TDCorrect"),
        # Quiescence == [](terminated => []terminated): no step leaves a terminated state.
        always(
            "Quiescence",
            implies(TERMINATED, forall("n", NODE, lambda n: not_(at(nxt("active"), n)))),
            cite=f"{SRC} Quiescence (SyncTerminationDetection.cfg PROPERTIES, a [] property)",
        ),
    ),
    liveness=(
        leads_to(
            "Liveness",
            TERMINATED,
            DETECTED,
            cite=f"{SRC} Liveness (SyncTerminationDetection.cfg PROPERTIES)",
        ),
    ),
    fairness=weak("DetectTermination"),  # Spec == ... /\ WF_vars(DetectTermination)
    totality="enabled-only",
)
