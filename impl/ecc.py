"""ECC's floor gate: the one rule that turns an ERL into a floor verdict.

A port of `floor.rs` as docs/duplex-d1.md §7 records it (no seed of its own;
`seeds/duplex.rs` only says ECC weighs the ERL a TurnClaim carries). ECC, not
the daemon, decides the floor: `DuplexChannel` enters the provisional Overlap
on any Audio onset and carries its last ERL on the TurnClaim; this gate reads
that ERL and answers

- `GRANT_USER` when the barge is admitted: the ERL is finite and at least
  `ERL_BARGE_FLOOR` (0.50, inclusive: 0.49 is denied, 0.50 admitted);
- `DENY_BARGE` for any other value, NaN and ±inf included, and for a missing
  ERL (the safe default): the self-echo fix of ADR-068 D1.

It is the only ERL-to-verdict code the docs know: GrantAgent, TurnShift and
Backchannel have no rule anywhere (ECC's loop produces none yet), so they are
not here. The urgency score of ADR-062 D4 (§7) is not the gate and is not
ported: its inputs' ranges and units are not recorded.

The ERL is judged as a Python float, the way `impl.duplex.Erl` records it
(the seed's f32 would round 0.49999999 up to 0.5 and admit it); a number past
a float's range is an infinity, so it is denied, as `Erl` would carry it.
"""

import math

from ._args import real
from .duplex import FloorVerdict

ERL_BARGE_FLOOR = 0.50
"""The lowest ERL confidence that admits a barge (floor.rs, inclusive)."""


def barge_admitted(erl: float | None) -> bool:
    """Is a barge with this ERL a real one? Finite and at least `ERL_BARGE_FLOOR`."""
    if erl is None:
        return False
    value = real(erl, "erl", "a real number or None (not bool)")
    return math.isfinite(value) and value >= ERL_BARGE_FLOOR


def floor_verdict_from_erl(erl: float | None) -> FloorVerdict:
    """ECC's verdict on a barge: `GRANT_USER` when admitted, else `DENY_BARGE` (missing
    included: a barge nobody measured is treated as the agent's own echo)."""
    return FloorVerdict.GRANT_USER if barge_admitted(erl) else FloorVerdict.DENY_BARGE
