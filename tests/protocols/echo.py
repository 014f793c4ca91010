"""Echo.tla (the echo algorithm builds a spanning tree), MCEcho: Node = {a, b, c},
the initiator a, R the complete graph: TLC finds 75 states.

`inbox` is a function from nodes to sets of messages, `children` to sets of nodes,
`parent` to an optional node (`NoNode` is none), `rcvd` and `pc` functions over the
nodes; `nbrs`, constant in the TLA+, is the constant function `NBRS`. A message
`[kind |-> k, sndr |-> p]` is a member of `MSG`, read through the constant
functions `KIND` and `SNDR`. The `\\E msg \\in inbox[self]` of n1 is the trigger's
`msg` parameter. Rows: cite Echo.tla, the translated actions n0, n1 and n2.
"""

from __future__ import annotations

import enum
import itertools

from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Param
from models.kernel import Set
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import at
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import func
from models.kernel import implies
from models.kernel import is_none
from models.kernel import ite
from models.kernel import le
from models.kernel import lt
from models.kernel import member
from models.kernel import ne
from models.kernel import not_
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import set_add
from models.kernel import set_remove
from models.kernel import size
from models.kernel import some
from models.kernel import unwrap
from models.kernel import update
from models.kernel import var
from models.kernel.expr import as_expr

SRC = "shared/protocols/echo/Echo.tla"


class Pc(enum.Enum):
    n0 = "n0"
    n1 = "n1"
    n2 = "n2"
    Done = "Done"


NODES = ("a", "b", "c")
INITIATOR = "a"
INIT = as_expr(INITIATOR)
NODE = Finite("Node", NODES)
MSG = Finite("Msg", tuple(itertools.product(("m", "c"), NODES)), namer=lambda m: f"[{m[0]}|{m[1]}]")
KIND = func(Func(MSG, Finite("Kind", ("m", "c"))), lambda m: m[0])
SNDR = func(Func(MSG, NODE), lambda m: m[1])
NBRS = func(Func(NODE, Set(NODE)), lambda n: frozenset(x for x in NODES if x != n))  # R1
INBOX = Func(NODE, Set(MSG))
PARENT = Func(NODE, Option(NODE))
CHILDREN = Func(NODE, Set(NODE))
RCVD = Func(NODE, IntRange(0, len(NODES) - 1))
PC = Func(NODE, Finite.of_enum(Pc, "pc"))
SELF, M = param("p"), param("msg")
BOX, PAR, KIDS, GOT = var("inbox"), var("parent"), var("children"), var("rcvd")


def message(kind: str, sender: Expr) -> Expr:
    """[kind |-> kind, sndr |-> sender], for a sender known only as an expression."""
    return at(func(Func(NODE, MSG), lambda n: (kind, n)), sender)


def multicast(net: Expr, sender: Expr, dest: Expr, kind: str) -> Expr:
    return func(
        INBOX,
        lambda n: ite(member(n, dest), set_add(at(net, n), message(kind, sender)), at(net, n)),
    )


def at_pc(pc: Pc) -> Expr:
    return eq(at(var("pc"), SELF), pc)


NET = update(BOX, SELF, set_remove(at(BOX, SELF), M))  # receive(inbox, self, msg)
RECEIVING = and_(at_pc(Pc.n1), lt(at(GOT, SELF), size(at(NBRS, SELF))), member(M, at(BOX, SELF)))
ADOPT = and_(ne(SELF, INITIATOR), eq(at(GOT, SELF), 0))  # self # initiator /\ rcvd'[self] = 1
CHILD = ite(eq(at(KIND, M), "c"), update(KIDS, SELF, set_add(at(KIDS, SELF), at(SNDR, M))), KIDS)
COUNTED = update(GOT, SELF, add(at(GOT, SELF), 1))


def _parent_is(n: Expr, x: Expr) -> Expr:
    return eq(at(PAR, n), some(x))


def _ancestor(n: Expr, x: Expr, hops: int) -> Expr:
    """x is reached from n by following `parent` at most `hops` times (IsAncestor)."""
    if hops == 1:
        return _parent_is(n, x)
    return or_(
        _parent_is(n, x),
        exists("z" * hops, NODE, lambda z: and_(_parent_is(n, z), _ancestor(z, x, hops - 1))),
    )


def ancestor(n: Expr, x: Expr) -> Expr:
    return _ancestor(n, x, len(NODES))


SPEC = Spec(
    name="Echo",
    source=SRC,
    vars=(
        Var("inbox", INBOX, INBOX.of(lambda n: frozenset())),
        Var("parent", PARENT, PARENT.of(lambda n: None)),
        Var("children", CHILDREN, CHILDREN.of(lambda n: frozenset())),
        Var("rcvd", RCVD, RCVD.of(lambda n: 0)),
        Var("pc", PC, PC.of(lambda n: Pc.n0)),
    ),
    triggers=(
        Trigger("n0", (Param("p", NODE),)),
        Trigger("n1", (Param("p", NODE), Param("msg", MSG))),
        Trigger("n1_exit", (Param("p", NODE),)),
        Trigger("n2", (Param("p", NODE),)),
    ),
    rows=(
        row(
            "n0",
            "n0",
            None,
            guard=at_pc(Pc.n0),
            sets={
                "inbox": ite(eq(SELF, INITIATOR), multicast(BOX, SELF, at(NBRS, SELF), "m"), BOX),
                "pc": update(var("pc"), SELF, Pc.n1),
            },
            cite=f"{SRC} n0(self)",
        ),
        row(
            "n1_adopt",
            "n1",
            None,
            guard=and_(RECEIVING, ADOPT),
            sets={
                "rcvd": COUNTED,
                "parent": update(PAR, SELF, some(at(SNDR, M))),
                "inbox": multicast(NET, SELF, set_remove(at(NBRS, SELF), at(SNDR, M)), "m"),
                "children": CHILD,
            },
            cite=f"{SRC} n1(self), the first message of a non-initiator: adopt its sender",
        ),
        row(
            "n1_receive",
            "n1",
            None,
            guard=and_(RECEIVING, not_(ADOPT)),
            sets={"rcvd": COUNTED, "inbox": NET, "children": CHILD},
            cite=f"{SRC} n1(self), any other message",
        ),
        row(
            "n1_exit",
            "n1_exit",
            None,
            guard=and_(at_pc(Pc.n1), not_(lt(at(GOT, SELF), size(at(NBRS, SELF))))),
            sets={"pc": update(var("pc"), SELF, Pc.n2)},
            cite=f"{SRC} n1(self), every neighbour heard: leave the loop",
        ),
        row(
            "n2",
            "n2",
            None,
            guard=at_pc(Pc.n2),
            sets={
                "inbox": ite(
                    ne(SELF, INITIATOR),
                    update(
                        BOX,
                        unwrap(at(PAR, SELF)),
                        set_add(at(BOX, unwrap(at(PAR, SELF))), message("c", SELF)),
                    ),
                    BOX,
                ),
                "pc": update(var("pc"), SELF, Pc.Done),
            },
            cite=f"{SRC} n2(self)",
        ),
    ),
    properties=(
        always(
            "TypeOK",
            forall(
                "n",
                NODE,
                lambda n: and_(
                    le(at(GOT, n), size(at(NBRS, n))),
                    forall(
                        "msg",
                        MSG,
                        lambda m: implies(member(m, at(BOX, n)), member(at(SNDR, m), at(NBRS, n))),
                    ),
                ),
            ),
            cite=f"{SRC} TypeOK (its parts the domains do not already say)",
        ),
        always(
            "AncestorProperties",
            implies(
                forall("n", NODE, lambda n: eq(at(var("pc"), n), Pc.Done)),
                and_(
                    forall(
                        "n",
                        NODE,
                        lambda n: implies(ne(n, INITIATOR), ancestor(n, INIT)),
                    ),
                    forall("n", NODE, lambda n: not_(ancestor(n, n))),
                ),
            ),
            cite=f"{SRC} AncestorProperties",
        ),
        always(
            "InitiatorNoParent",
            is_none(at(PAR, INITIATOR)),
            cite=f"{SRC} InitiatorNoParent",
        ),
    ),
    terminal=forall("n", NODE, lambda n: eq(at(var("pc"), n), Pc.Done)),
    totality="enabled-only",
)
