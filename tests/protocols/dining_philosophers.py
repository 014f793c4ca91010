"""DiningPhilosophers.tla (Chandy-Misra forks, PlusCal), NP = 5: TLC finds 67 states.

`forks` is a function from forks to records; here two functions over the forks (its
`holder` and `clean` fields), `hungry` and `pc` functions over the philosophers.
Rows: cite DiningPhilosophers.tla, the translated actions Loop, Eat and Think.
"""

from __future__ import annotations

import enum

from models.kernel import Bool
from models.kernel import Expr
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
from models.kernel import bound
from models.kernel import eq
from models.kernel import forall
from models.kernel import func
from models.kernel import implies
from models.kernel import infinitely_often
from models.kernel import ite
from models.kernel import ne
from models.kernel import not_
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import update
from models.kernel import var
from models.kernel import weak

NP = 5
SRC = "shared/protocols/DiningPhilosophers/DiningPhilosophers.tla"


class Pc(enum.Enum):
    Loop = "Loop"
    Eat = "Eat"
    Think = "Think"


PHIL = IntRange(1, NP, "Philosopher")
FORK = IntRange(1, NP, "Fork")
PC = Finite.of_enum(Pc, "pc")
HOLDER = Func(FORK, PHIL)
CLEAN = Func(FORK, Bool())
# The define block's operators, as constant functions.
RIGHT_FORK = func(Func(PHIL, FORK), lambda p: 1 if p == NP else p + 1)
LEFT_PHIL = func(Func(PHIL, PHIL), lambda p: NP if p == 1 else p - 1)
RIGHT_PHIL = func(Func(PHIL, PHIL), lambda p: 1 if p == NP else p + 1)


def left_fork(p: Expr) -> Expr:
    return p  # LeftFork(p) == p


def right_fork(p: Expr) -> Expr:
    return at(RIGHT_FORK, p)


def can_eat(p: Expr) -> Expr:
    holder, clean = var("holder"), var("clean")
    return and_(
        eq(at(holder, left_fork(p)), p),
        eq(at(holder, right_fork(p)), p),
        at(clean, left_fork(p)),
        at(clean, right_fork(p)),
    )


def share_fork(p: Expr, q: Expr) -> Expr:
    return or_(
        eq(left_fork(p), left_fork(q)),
        eq(left_fork(p), right_fork(q)),
        eq(right_fork(p), left_fork(q)),
        eq(right_fork(p), right_fork(q)),
    )


P = param("p")
HOLDER_VAR, CLEAN_VAR = var("holder"), var("clean")
# Loop: hand over a dirty fork held (the left one first), cleaning it.
GIVE_LEFT = and_(eq(at(HOLDER_VAR, left_fork(P)), P), not_(at(CLEAN_VAR, left_fork(P))))
GIVE_RIGHT = and_(eq(at(HOLDER_VAR, right_fork(P)), P), not_(at(CLEAN_VAR, right_fork(P))))

SPEC = Spec(
    name="DiningPhilosophers",
    source=SRC,
    vars=(
        Var("holder", HOLDER, HOLDER.of(lambda f: 1 if f == 2 else f), doc="forks[f].holder"),
        Var("clean", CLEAN, CLEAN.of(lambda f: False), doc="forks[f].clean"),
        Var("hungry", Func(PHIL, Bool()), Func(PHIL, Bool()).of(lambda p: True)),
        Var("pc", Func(PHIL, PC), Func(PHIL, PC).of(lambda p: Pc.Loop)),
    ),
    # The PlusCal process Philosopher(self) is the three labels' actions, one group.
    triggers=tuple(
        Trigger(name, (Param("p", PHIL),), group="Philosopher") for name in ("Loop", "Eat", "Think")
    ),
    rows=(
        row(
            "loop",
            "Loop",
            None,
            guard=eq(at(var("pc"), P), Pc.Loop),
            sets={
                "holder": ite(
                    GIVE_LEFT,
                    update(HOLDER_VAR, left_fork(P), at(LEFT_PHIL, P)),
                    ite(
                        GIVE_RIGHT, update(HOLDER_VAR, right_fork(P), at(RIGHT_PHIL, P)), HOLDER_VAR
                    ),
                ),
                "clean": ite(
                    GIVE_LEFT,
                    update(CLEAN_VAR, left_fork(P), True),
                    ite(GIVE_RIGHT, update(CLEAN_VAR, right_fork(P), True), CLEAN_VAR),
                ),
                "pc": update(
                    var("pc"),
                    P,
                    ite(at(var("hungry"), P), ite(can_eat(P), Pc.Eat, Pc.Loop), Pc.Think),
                ),
            },
            cite=f"{SRC} Loop(self)",
        ),
        row(
            "eat",
            "Eat",
            None,
            guard=eq(at(var("pc"), P), Pc.Eat),
            sets={
                "hungry": update(var("hungry"), P, False),
                "clean": update(update(CLEAN_VAR, left_fork(P), False), right_fork(P), False),
                "pc": update(var("pc"), P, Pc.Loop),
            },
            cite=f"{SRC} Eat(self)",
        ),
        row(
            "think",
            "Think",
            None,
            guard=eq(at(var("pc"), P), Pc.Think),
            sets={"hungry": update(var("hungry"), P, True), "pc": update(var("pc"), P, Pc.Loop)},
            cite=f"{SRC} Think(self)",
        ),
    ),
    properties=(
        always(
            "ExclusiveAccess",
            forall(
                "p",
                PHIL,
                forall(
                    "q",
                    PHIL,
                    implies(
                        and_(ne(bound("p"), bound("q")), share_fork(bound("p"), bound("q"))),
                        not_(
                            and_(
                                eq(at(var("pc"), bound("p")), Pc.Eat),
                                eq(at(var("pc"), bound("q")), Pc.Eat),
                            )
                        ),
                    ),
                ),
            ),
            cite=f"{SRC} ExclusiveAccess",
        ),
    ),
    # NobodyStarves == \A p \in 1..NP : []<>(~hungry[p]): one property per philosopher.
    liveness=tuple(
        infinitely_often(
            f"NobodyStarves-{p}",
            not_(at(var("hungry"), p)),
            cite=f"{SRC} NobodyStarves (DiningPhilosophers.cfg PROPERTY), p = {p}",
        )
        for p in PHIL.values
    ),
    fairness=weak("Philosopher", each="p"),  # \A self \in 1..NP : WF_vars(Philosopher(self))
    totality="enabled-only",
)
