"""ReadersWriters.tla (a queue serves readers and writers fairly), NumActors = 3 (MC.tla):
TLC finds 21,527 states.

`readers` and `writers` are sets of actors, `waiting` a bounded sequence of requests
`<<kind, actor>>` (members of `REQUEST`, read through the constant functions `KIND` and
`ACTOR`). An actor waits at most once to read and once to write, so six requests fit;
the well-defined check proves no append overflows. `Stop`'s `\\E actor` is the
trigger's parameter. Rows: cite ReadersWriters.tla, actions TryRead, TryWrite,
ReadOrWrite (Read, Write) and Stop.
"""

from __future__ import annotations

import itertools

from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Seq
from models.kernel import Set
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import and_
from models.kernel import append
from models.kernel import at
from models.kernel import eq
from models.kernel import exists
from models.kernel import func
from models.kernel import gt
from models.kernel import head
from models.kernel import index
from models.kernel import infinitely_often
from models.kernel import le
from models.kernel import length
from models.kernel import member
from models.kernel import ne
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import set_add
from models.kernel import set_remove
from models.kernel import size
from models.kernel import tail
from models.kernel import var
from models.kernel import weak

SRC = "shared/protocols/ReadersWriters/ReadersWriters.tla"
ACTORS = 3
ACTOR_DOMAIN = IntRange(1, ACTORS, "Actors")
REQUEST = Finite(
    "Request",
    tuple(itertools.product(("read", "write"), range(1, ACTORS + 1))),
    namer=lambda r: f"<<{r[0]},{r[1]}>>",
)
KIND = func(Func(REQUEST, Finite("Kind", ("read", "write"))), lambda r: r[0])
ACTOR = func(Func(REQUEST, ACTOR_DOMAIN), lambda r: r[1])
QUEUE = Seq(REQUEST, 2 * ACTORS)
READERS, WRITERS, WAITING = var("readers"), var("writers"), var("waiting")
A = param("actor")
EMPTY: frozenset[int] = frozenset()


def request(kind: str, actor: Expr) -> Expr:
    return at(func(Func(ACTOR_DOMAIN, REQUEST), lambda a: (kind, a)), actor)


def waiting_to(kind: str, actor: Expr) -> Expr:
    """actor \\in WaitingToRead (or WaitingToWrite): some queued request is <<kind, actor>>."""
    return exists(
        "k",
        IntRange(1, QUEUE.max_len, "position"),
        lambda k: and_(le(k, length(WAITING)), eq(index(WAITING, k), request(kind, actor))),
    )


HEAD_IS = and_(gt(length(WAITING), 0), eq(WRITERS, EMPTY))  # waiting /= <<>> /\ writers = {}

SPEC = Spec(
    name="ReadersWriters",
    source=SRC,
    vars=(
        Var("readers", Set(ACTOR_DOMAIN), EMPTY),
        Var("writers", Set(ACTOR_DOMAIN), EMPTY),
        Var("waiting", QUEUE, ()),
    ),
    triggers=(
        Trigger("TryRead", (Param("actor", ACTOR_DOMAIN),)),
        Trigger("TryWrite", (Param("actor", ACTOR_DOMAIN),)),
        Trigger("ReadOrWrite"),
        Trigger("Stop", (Param("actor", ACTOR_DOMAIN),)),
    ),
    rows=(
        row(
            "try_read",
            "TryRead",
            None,
            guard=not_(waiting_to("read", A)),
            sets={"waiting": append(WAITING, request("read", A))},
            cite=f"{SRC} TryRead(actor)",
        ),
        row(
            "try_write",
            "TryWrite",
            None,
            guard=not_(waiting_to("write", A)),
            sets={"waiting": append(WAITING, request("write", A))},
            cite=f"{SRC} TryWrite(actor)",
        ),
        row(
            "read",
            "ReadOrWrite",
            None,
            guard=and_(HEAD_IS, eq(at(KIND, head(WAITING)), "read")),
            sets={"readers": set_add(READERS, at(ACTOR, head(WAITING))), "waiting": tail(WAITING)},
            cite=f"{SRC} ReadOrWrite, the head reads: Read(actor)",
        ),
        row(
            "write",
            "ReadOrWrite",
            None,
            guard=and_(HEAD_IS, eq(at(KIND, head(WAITING)), "write"), eq(READERS, EMPTY)),
            sets={"writers": set_add(WRITERS, at(ACTOR, head(WAITING))), "waiting": tail(WAITING)},
            cite=f"{SRC} ReadOrWrite, the head writes: Write(actor)",
        ),
        row(
            "stop_reading",
            "Stop",
            None,
            guard=member(A, READERS),
            sets={"readers": set_remove(READERS, A)},
            cite=f"{SRC} Stop, StopActivity(actor) of a reader",
        ),
        row(
            "stop_writing",
            "Stop",
            None,
            guard=and_(not_(member(A, READERS)), member(A, WRITERS)),
            sets={"writers": set_remove(WRITERS, A)},
            cite=f"{SRC} Stop, StopActivity(actor) of a writer",
        ),
    ),
    properties=(
        always(
            "Safety",
            and_(
                not_(and_(ne(READERS, EMPTY), ne(WRITERS, EMPTY))),
                le(size(WRITERS), 1),
            ),
            cite=f"{SRC} Safety",
        ),
    ),
    # Liveness: four conjuncts, each \A actor \in Actors : []<>(...); one property per actor.
    liveness=tuple(
        infinitely_often(
            f"Liveness-{what}-{a}",
            pred,
            cite=f"{SRC} Liveness (MC.cfg PROPERTY), []<>(actor {tla}), actor = {a}",
        )
        for what, tla, role, inside in (
            ("reads", "\\in readers", READERS, True),
            ("writes", "\\in writers", WRITERS, True),
            ("stops-reading", "\\notin readers", READERS, False),
            ("stops-writing", "\\notin writers", WRITERS, False),
        )
        for a in ACTOR_DOMAIN.values
        for pred in (member(a, role) if inside else not_(member(a, role)),)
    ),
    # Fairness: WF of TryRead(actor) and TryWrite(actor) per actor, of ReadOrWrite, of Stop.
    fairness=(*weak("TryRead", "TryWrite", each="actor"), *weak("ReadOrWrite", "Stop")),
    totality="enabled-only",
)
