"""EWD840.tla (Dijkstra's termination detection on a ring), N = 3: TLC finds 302
states, without a deadlock check.

`active` and `color` are functions over the nodes, each starting at any value
(`Init`'s `\\in [Node -> ...]`). The `\\E j` of SendMsg is the trigger's `j` parameter.
Rows: cite EWD840.tla, actions InitiateProbe, PassToken(i), SendMsg(i), Deactivate(i).
"""

from __future__ import annotations

import enum

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import and_
from models.kernel import at
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import gt
from models.kernel import implies
from models.kernel import ite
from models.kernel import le
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import ne
from models.kernel import not_
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import sub
from models.kernel import update
from models.kernel import var
from models.kernel import weak

N = 3
SRC = "shared/protocols/ewd840/EWD840.tla"


class Color(enum.Enum):
    white = "white"
    black = "black"


NODE = IntRange(0, N - 1, "Node")
COLOR = Finite.of_enum(Color, "Color")
ACTIVE = Func(NODE, Bool())
COLORS = Func(NODE, COLOR)
ACT, COL, TPOS, TCOLOR = var("active"), var("color"), var("tpos"), var("tcolor")
NODE_I, J = param("i"), param("j")

TERMINATED = forall("i", NODE, lambda i: not_(at(ACT, i)))
DETECTED = and_(eq(TPOS, 0), eq(TCOLOR, Color.white), eq(at(COL, 0), Color.white), not_(at(ACT, 0)))

SPEC = Spec(
    name="EWD840",
    source=SRC,
    vars=(
        Var("active", ACTIVE, AnyOf(*ACTIVE.values)),
        Var("color", COLORS, AnyOf(*COLORS.values)),
        Var("tpos", NODE, AnyOf(*NODE.values)),
        Var("tcolor", COLOR, Color.black),
    ),
    triggers=(
        # System == InitiateProbe \/ \E i \in Node \ {0} : PassToken(i): one group.
        Trigger("InitiateProbe", group="System"),
        Trigger("PassToken", (Param("i", IntRange(1, N - 1, "Node \\ {0}")),), group="System"),
        Trigger("SendMsg", (Param("i", NODE), Param("j", NODE))),
        Trigger("Deactivate", (Param("i", NODE),)),
    ),
    rows=(
        row(
            "initiate_probe",
            "InitiateProbe",
            None,
            guard=and_(eq(TPOS, 0), or_(eq(TCOLOR, Color.black), eq(at(COL, 0), Color.black))),
            sets={"tpos": N - 1, "tcolor": Color.white, "color": update(COL, 0, Color.white)},
            cite=f"{SRC} InitiateProbe",
        ),
        row(
            "pass_token",
            "PassToken",
            None,
            guard=and_(
                eq(TPOS, NODE_I),
                or_(
                    not_(at(ACT, NODE_I)), eq(at(COL, NODE_I), Color.black), eq(TCOLOR, Color.black)
                ),
            ),
            sets={
                "tpos": sub(NODE_I, 1),
                "tcolor": ite(eq(at(COL, NODE_I), Color.black), Color.black, TCOLOR),
                "color": update(COL, NODE_I, Color.white),
            },
            cite=f"{SRC} PassToken(i)",
        ),
        row(
            "send_msg",
            "SendMsg",
            None,
            guard=and_(at(ACT, NODE_I), ne(J, NODE_I)),
            sets={
                "active": update(ACT, J, True),
                "color": update(COL, NODE_I, ite(gt(J, NODE_I), Color.black, at(COL, NODE_I))),
            },
            cite=f"{SRC} SendMsg(i), with j \\in Node \\ {{i}}",
        ),
        row(
            "deactivate",
            "Deactivate",
            None,
            guard=at(ACT, NODE_I),
            sets={"active": update(ACT, NODE_I, False)},
            cite=f"{SRC} Deactivate(i)",
        ),
    ),
    properties=(
        always(
            "TerminationDetection",
            implies(DETECTED, TERMINATED),
            cite=f"{SRC} TerminationDetection",
        ),
        always(
            "Inv",
            or_(
                forall("i", NODE, lambda i: implies(lt(TPOS, i), not_(at(ACT, i)))),
                exists("j", NODE, lambda j: and_(le(j, TPOS), eq(at(COL, j), Color.black))),
                eq(TCOLOR, Color.black),
            ),
            cite=f"{SRC} Inv (P0 \\/ P1 \\/ P2)",
        ),
    ),
    # EWD840.cfg's other PROPERTY, TDSpec (EWD840 refines SyncTerminationDetection), is a
    # refinement mapping, which the vocabulary has no form for.
    liveness=(
        leads_to(
            "Liveness",
            TERMINATED,
            DETECTED,
            cite=f"{SRC} Liveness (EWD840.cfg PROPERTIES): termination is eventually detected",
        ),
    ),
    fairness=weak("System"),  # Spec == Init /\ [][Next]_vars /\ WF_vars(System)
    totality="enabled-only",
    check_deadlock=False,
)
