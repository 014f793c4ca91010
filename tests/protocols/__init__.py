"""Classic TLA+ protocols ported to the kernel: worked examples and kernel fixtures.

Each module ports one model of `/work/shared/protocols/` (the public tlaplus/Examples,
MIT licence) with the constants of the model TLC checked, written with the kernel's
data types where the TLA+ uses them (functions over the process set, sets, bounded
sequences, quantifiers, initial predicates) and `enabled-only` totality, as TLA+ has.
A PlusCal process `p \\in Procs` becomes a trigger parameter; a nondeterministic
`\\E x \\in S` inside an action becomes another parameter, with `x \\in S` in the guard.

`FIXTURES` lists them with TLC's recorded figures (`manifest.json`): the distinct
states, the invariants the `.cfg` checks (each a property here; `TypeOK`'s domain part
is the variables' declared domains), whether TLC checks deadlock, and the `.cfg` file.
Each `.cfg` `PROPERTY` is ported: a liveness property (one per process where the TLA+
quantifies over them) under the spec's fairness (`weak(..., each=p)` for a fair process),
or an `always` where it is a `[]` safety property. `tests/test_protocols.py` holds the
kernel to every figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.kernel import Spec

from . import chang_roberts
from . import dining_philosophers
from . import echo
from . import ewd840
from . import prisoners
from . import readers_writers
from . import single_lane_bridge
from . import sync_termination


@dataclass(frozen=True)
class Fixture:
    spec: Spec
    folder: str  # under /work/shared/protocols
    tlc_states: int  # manifest.json distinctStates
    invariants: tuple[str, ...]  # the .cfg's INVARIANTs, as property names
    check_deadlock: bool  # the .cfg's CHECK_DEADLOCK (TLC's default: TRUE)
    cfg: str  # the .cfg TLC checked, in `folder`


FIXTURES: tuple[Fixture, ...] = (
    Fixture(
        dining_philosophers.SPEC,
        "DiningPhilosophers",
        67,
        ("TypeOK", "ExclusiveAccess"),
        True,
        "DiningPhilosophers.cfg",
    ),
    Fixture(prisoners.SPEC, "Prisoners", 214, ("TypeOK", "CountInvariant"), True, "Prisoners.cfg"),
    Fixture(
        chang_roberts.SPEC,
        "chang_roberts",
        137,
        ("TypeOK", "Correctness"),
        False,
        "MCChangRoberts.cfg",
    ),
    Fixture(echo.SPEC, "echo", 75, ("TypeOK", "AncestorProperties"), True, "MCEcho.cfg"),
    Fixture(
        ewd840.SPEC, "ewd840", 302, ("TypeOK", "TerminationDetection", "Inv"), False, "EWD840.cfg"
    ),
    Fixture(readers_writers.SPEC, "ReadersWriters", 21527, ("TypeOK", "Safety"), True, "MC.cfg"),
    Fixture(single_lane_bridge.SPEC, "SingleLaneBridge", 3605, ("Invariants",), True, "MC.cfg"),
    Fixture(
        sync_termination.SPEC,
        "ewd840",
        129,
        ("TypeOK", "TDCorrect"),
        True,
        "SyncTerminationDetection.cfg",
    ),
)
