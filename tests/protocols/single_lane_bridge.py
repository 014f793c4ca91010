"""SingleLaneBridge.tla (cars share a one-lane bridge), MC.tla: CarsRight = {r1, r2},
CarsLeft = {l1, l2}, Bridge = {4, 5}, Positions = 1..8: TLC finds 3,605 states.

`Location` is a function from cars to positions, `WaitingBeforeBridge` a bounded
sequence of cars (each car waits at most once, so four fit; the well-defined check
proves no append overflows). `Cardinality(CarsInBridge)` is a `total`. Next's
`\\E car` is the trigger's parameter (EnterBridge takes none). Rows: cite
SingleLaneBridge.tla, actions MoveOutsideBridge, MoveInsideBridge and EnterBridge.
"""

from __future__ import annotations

from models.kernel import Expr
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Seq
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import append
from models.kernel import at
from models.kernel import eq
from models.kernel import forall
from models.kernel import gt
from models.kernel import head
from models.kernel import implies
from models.kernel import is_in
from models.kernel import ite
from models.kernel import leads_to
from models.kernel import length
from models.kernel import lt
from models.kernel import ne
from models.kernel import not_
from models.kernel import or_
from models.kernel import param
from models.kernel import row
from models.kernel import sub
from models.kernel import tail
from models.kernel import total
from models.kernel import update
from models.kernel import var
from models.kernel import weak
from models.kernel.expr import Const

SRC = "shared/protocols/SingleLaneBridge/SingleLaneBridge.tla"
RIGHT, LEFT = ("r1", "r2"), ("l1", "l2")
CARS = Finite("Cars", (*RIGHT, *LEFT))
BRIDGE = (4, 5)
START_POS, END_POS = 1, 8
START_BRIDGE, END_BRIDGE = min(BRIDGE), max(BRIDGE)
POSITION = IntRange(START_POS, END_POS, "Positions")
LOCATION = Func(CARS, POSITION)
WAIT = Seq(CARS, len(CARS.values))
LOC, WAITING = var("Location"), var("WaitingBeforeBridge")
CAR = param("car")


def is_right(car: Expr) -> Expr:
    return is_in(car, *RIGHT)


def next_location(car: Expr) -> Expr:
    pos = at(LOC, car)
    r_move = ite(gt(pos, START_POS), sub(pos, 1), END_POS)
    l_move = ite(lt(pos, END_POS), add(pos, 1), START_POS)
    return ite(is_right(car), r_move, l_move)


def on_bridge(position: Expr) -> Expr:
    return is_in(position, *BRIDGE)


def change_location(car: Expr) -> dict[str, Expr]:
    """ChangeLocation(car): move, and queue up on arriving just before the bridge."""
    arrives = or_(
        and_(is_right(car), eq(next_location(car), END_BRIDGE + 1)),
        and_(not_(is_right(car)), eq(next_location(car), START_BRIDGE - 1)),
    )
    return {
        "WaitingBeforeBridge": ite(arrives, append(WAITING, car), WAITING),
        "Location": update(LOC, car, next_location(car)),
    }


def in_bridge(car: Expr) -> Expr:
    return on_bridge(at(LOC, car))


def free(position: Expr) -> Expr:
    return forall("c", CARS, lambda c: ne(at(LOC, c), position))


FIRST = head(WAITING)
BRIDGE_EMPTY = forall("c", CARS, lambda c: not_(in_bridge(c)))
SAME_DIRECTION = ite(
    is_right(FIRST),
    forall("c", CARS, lambda c: implies(in_bridge(c), is_right(c))),
    forall("c", CARS, lambda c: implies(in_bridge(c), not_(is_right(c)))),
)

SPEC = Spec(
    name="SingleLaneBridge",
    source=SRC,
    vars=(
        Var("Location", LOCATION, LOCATION.of(lambda c: END_POS if c in RIGHT else START_POS)),
        # SeqFromSet(CarsBeforeBridge): no car starts just before the bridge here.
        Var("WaitingBeforeBridge", WAIT, ()),
    ),
    triggers=(
        Trigger("MoveOutsideBridge", (Param("car", CARS),)),
        Trigger("MoveInsideBridge", (Param("car", CARS),)),
        Trigger("EnterBridge"),
    ),
    rows=(
        row(
            "move_outside",
            "MoveOutsideBridge",
            None,
            guard=not_(on_bridge(next_location(CAR))),
            sets=change_location(CAR),
            cite=f"{SRC} MoveOutsideBridge(car)",
        ),
        row(
            "move_inside",
            "MoveInsideBridge",
            None,
            guard=and_(in_bridge(CAR), free(next_location(CAR))),
            sets=change_location(CAR),
            cite=f"{SRC} MoveInsideBridge(car)",
        ),
        row(
            "enter",
            "EnterBridge",
            None,
            guard=and_(
                gt(length(WAITING), 0),
                or_(
                    BRIDGE_EMPTY,
                    and_(not_(in_bridge(FIRST)), SAME_DIRECTION, free(next_location(FIRST))),
                ),
            ),
            sets={
                "Location": update(LOC, FIRST, next_location(FIRST)),
                "WaitingBeforeBridge": tail(WAITING),
            },
            cite=f"{SRC} EnterBridge (its two disjuncts move the same car)",
        ),
    ),
    properties=(
        always(
            "Invariants",
            and_(
                forall(
                    "a",
                    CARS,
                    lambda a: forall(
                        "b",
                        CARS,
                        lambda b: implies(and_(in_bridge(a), eq(at(LOC, a), at(LOC, b))), eq(a, b)),
                    ),
                ),
                lt(total("c", CARS, lambda c: ite(in_bridge(c), 1, 0)), len(BRIDGE) + 1),
                forall(
                    "r",
                    CARS,
                    lambda r: forall(
                        "l",
                        CARS,
                        lambda left: implies(
                            and_(is_right(r), not_(is_right(left))),
                            not_(and_(in_bridge(r), in_bridge(left))),
                        ),
                    ),
                ),
            ),
            cite=f"{SRC} Invariants",
        ),
    ),
    # \A car \in Cars : P(car) ~> Q(car): one property per car.
    liveness=tuple(
        leads_to(
            f"{name}-{car}",
            on if enters else not_(on),
            not_(on) if enters else on,
            cite=f"{SRC} {name} (MC.cfg PROPERTY), car = {car}",
        )
        for name, enters in (("CarsInBridgeExitBridge", True), ("CarsEnterBridge", False))
        for car in CARS.values
        for on in (in_bridge(Const(car)),)
    ),
    # Fairness: WF of MoveOutsideBridge(car) and MoveInsideBridge(car) per car, of EnterBridge.
    fairness=(*weak("MoveOutsideBridge", "MoveInsideBridge", each="car"), *weak("EnterBridge")),
    totality="enabled-only",
)
