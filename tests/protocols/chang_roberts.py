"""ChangRoberts.tla (leader election on a unidirectional ring), N = 3 with Id[i] = i
(MCChangRoberts.tla): TLC finds 137 states, without a deadlock check.

`msgs` is a function from nodes to sets of identities; `initiator \\in [Node -> BOOLEAN]`
is a nondeterministic initial function and `state` is tied to it by the initial
predicate. The `\\E id \\in msgs[self]` of action n1 is the trigger's `id` parameter.
Rows: cite ChangRoberts.tla, the translated actions n0(self) and n1(self).
"""

from __future__ import annotations

import enum

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Set
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import and_
from models.kernel import at
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import func
from models.kernel import gt
from models.kernel import implies
from models.kernel import ite
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import member
from models.kernel import ne
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import set_add
from models.kernel import set_remove
from models.kernel import update
from models.kernel import var
from models.kernel import weak

N = 3
SRC = "shared/protocols/chang_roberts/ChangRoberts.tla"


class Pc(enum.Enum):
    n0 = "n0"
    n1 = "n1"
    Done = "Done"


class State(enum.Enum):
    cand = "cand"
    lost = "lost"
    won = "won"


NODE = IntRange(1, N, "Node")
ID = func(Func(NODE, NODE), lambda n: n)  # MCChangRoberts: Id == [i \in 1..N |-> i]
SUCC = func(Func(NODE, NODE), lambda n: 1 if n == N else n + 1)
MSGS = Func(NODE, Set(NODE, "Ids"))
PC = Func(NODE, Finite.of_enum(Pc, "pc"))
INITIATOR = Func(NODE, Bool())
STATE = Func(NODE, Finite.of_enum(State, "state"))
SELF, MSG_ID = param("p"), param("id")
MSGS_VAR, STATE_VAR = var("msgs"), var("state")


def add_to(msgs: Expr, node: Expr, item: Expr) -> Expr:
    """[msgs EXCEPT ![node] = @ \\cup {item}]"""
    return update(msgs, node, set_add(at(msgs, node), item))


# n1: _msgs == [msgs EXCEPT ![self] = @ \ {id}], then forward id to the successor.
TAKEN = update(MSGS_VAR, SELF, set_remove(at(MSGS_VAR, SELF), MSG_ID))
FORWARDED = add_to(TAKEN, at(SUCC, SELF), MSG_ID)
RECEIVING = and_(eq(at(var("pc"), SELF), Pc.n1), member(MSG_ID, at(MSGS_VAR, SELF)))
LOST = eq(at(STATE_VAR, SELF), State.lost)

SPEC = Spec(
    name="ChangRoberts",
    source=SRC,
    vars=(
        Var("msgs", MSGS, MSGS.of(lambda n: frozenset())),
        Var("pc", PC, PC.of(lambda n: Pc.n0)),
        Var("initiator", INITIATOR, AnyOf(*INITIATOR.values)),
        Var("state", STATE, AnyOf(*STATE.values)),
    ),
    init=forall(
        "n",
        NODE,
        lambda n: eq(at(STATE_VAR, n), ite(at(var("initiator"), n), State.cand, State.lost)),
    ),
    # The PlusCal process node(self) is n0(self) \/ n1(self): one group.
    triggers=(
        Trigger("n0", (Param("p", NODE),), group="node"),
        Trigger("n1", (Param("p", NODE), Param("id", NODE)), group="node"),
    ),
    rows=(
        row(
            "n0",
            "n0",
            None,
            guard=eq(at(var("pc"), SELF), Pc.n0),
            sets={
                "msgs": ite(
                    at(var("initiator"), SELF),
                    add_to(MSGS_VAR, at(SUCC, SELF), at(ID, SELF)),
                    MSGS_VAR,
                ),
                "pc": update(var("pc"), SELF, Pc.n1),
            },
            cite=f"{SRC} n0(self)",
        ),
        row(
            "n1_relay",
            "n1",
            None,
            guard=and_(RECEIVING, LOST),
            sets={"msgs": FORWARDED},
            cite=f"{SRC} n1(self), state = lost: forward",
        ),
        row(
            "n1_lose",
            "n1",
            None,
            guard=and_(RECEIVING, not_(LOST), lt(MSG_ID, at(ID, SELF))),
            sets={"msgs": FORWARDED, "state": update(STATE_VAR, SELF, State.lost)},
            cite=f"{SRC} n1(self), a smaller id: lose and forward",
        ),
        row(
            "n1_keep",
            "n1",
            None,
            guard=and_(RECEIVING, not_(LOST), not_(lt(MSG_ID, at(ID, SELF)))),
            sets={
                "msgs": TAKEN,
                "state": ite(
                    eq(MSG_ID, at(ID, SELF)), update(STATE_VAR, SELF, State.won), STATE_VAR
                ),
            },
            cite=f"{SRC} n1(self), otherwise: swallow it, and win on one's own id",
        ),
    ),
    properties=(
        always(
            "Correctness",
            forall(
                "n",
                NODE,
                lambda n: implies(
                    eq(at(STATE_VAR, n), State.won),
                    and_(
                        at(var("initiator"), n),
                        forall(
                            "m",
                            NODE,
                            lambda m: implies(
                                ne(m, n),
                                and_(
                                    eq(at(STATE_VAR, m), State.lost),
                                    implies(at(var("initiator"), m), gt(at(ID, m), at(ID, n))),
                                ),
                            ),
                        ),
                    ),
                ),
            ),
            cite=f"{SRC} Correctness",
        ),
    ),
    # Liveness == (\E n : state[n] = "cand") => <>(\E n : state[n] = "won"), a formula read
    # at the initial state. Every pc is n0 exactly there (n0 is the only step from it, and
    # it moves its pc to n1 for good), so it is `leads_to` from the states where all are n0.
    liveness=(
        leads_to(
            "Liveness",
            and_(
                forall("n", NODE, lambda n: eq(at(var("pc"), n), Pc.n0)),
                exists("n", NODE, lambda n: eq(at(STATE_VAR, n), State.cand)),
            ),
            exists("n", NODE, lambda n: eq(at(STATE_VAR, n), State.won)),
            cite=f"{SRC} Liveness (MCChangRoberts.cfg PROPERTY)",
        ),
    ),
    fairness=weak("node", each="p"),  # \A self \in Node : WF_vars(node(self))
    totality="enabled-only",
    check_deadlock=False,
)
