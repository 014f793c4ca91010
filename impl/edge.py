"""The edge reflex: the thin edge's own three-state shadow of the floor (ADR-068 D4, D5).

A port of `edge_reflex.rs` as docs/duplex-d1.md §8 records it (no seed of its
own; `seeds/duplex.rs` only says the edge holds "the reflex shadow" of the
daemon's seven states). The edge is an actuator: it sees `EdgeCommand`s and
nothing else, so no method here takes a `FloorVerdict` or an impulse (ADR-068
D3). It starts STREAMING with the mic (`tx`) and the speaker on, no ERL and
squelch off.

| Input | Effect |
|---|---|
| any command while DEGRADED | ignored |
| `Mute`, `Silence`, `Cancel` | MUTED, speaker off; the mic stays up |
| `Resume`, `Play` | STREAMING, speaker on |
| `Config` | nothing |
| `link_lost()` (the only self-firing rule) | DEGRADED, mic and speaker off |
| `link_restored()` | STREAMING, mic on, speaker off, ERL cleared |
| `erl_measured(v)` | the ERL is kept and relayed up; no state change |

So D4 holds by construction: a disconnected edge holds no open mic and plays
nothing, and after a restore it stays silent until a `Play` or `Resume` says
otherwise. The table guards nothing on `link_restored()`: a restore is obeyed
from any state, as §8 states it (a link restores only what it lost, so the edge
never sees one otherwise). The mic transmits a frame when `tx ∧ ¬(squelch ∧
silent)` (§8's transmit rule); the squelch is the user's knob, since no input in
§8 sets it, and it decides only whether silent frames go up.
"""

import enum

from ._args import expect
from ._args import type_error
from .duplex import Cancel
from .duplex import EdgeCommand
from .duplex import Erl
from .duplex import Mute
from .duplex import Play
from .duplex import Resume
from .duplex import Silence


class EdgeState(enum.Enum):
    """The edge's three states (§8), not the daemon's seven."""

    STREAMING = enum.auto()
    MUTED = enum.auto()
    DEGRADED = enum.auto()


class EdgeReflex:
    """One edge's reflex: pure logic, no I/O."""

    def __init__(self) -> None:
        self._state = EdgeState.STREAMING
        self._tx = True
        self._speaker = True
        self._erl: float | None = None
        self._squelch = False

    @property
    def state(self) -> EdgeState:
        return self._state

    @property
    def tx(self) -> bool:
        """Is the mic up (streaming to the daemon)?"""
        return self._tx

    @property
    def speaker(self) -> bool:
        """Is the speaker on (playing what comes down the media lane)?"""
        return self._speaker

    @property
    def erl(self) -> float | None:
        """The last ERL this edge measured since it (re)connected."""
        return self._erl

    @property
    def squelch(self) -> bool:
        return self._squelch

    def command(self, cmd: EdgeCommand) -> None:
        """Obey a command from the daemon or the renderer; ignored while DEGRADED."""
        if not isinstance(cmd, EdgeCommand):
            raise type_error("cmd", "an EdgeCommand", cmd)
        if self._state is EdgeState.DEGRADED:
            return  # no link: whatever arrives is stale
        match cmd:
            case Mute() | Silence() | Cancel():
                self._state = EdgeState.MUTED
                self._speaker = False  # the mic stays up: the user may be barging in
            case Resume() | Play():
                self._state = EdgeState.STREAMING
                self._speaker = True

    def link_lost(self) -> None:
        """The edge's only self-firing rule: no open mic, no speaker into a dead link (D4)."""
        self._state = EdgeState.DEGRADED
        self._tx = False
        self._speaker = False

    def link_restored(self) -> None:
        """Stream again, but never speak unprompted: the speaker waits for Play or Resume."""
        self._state = EdgeState.STREAMING
        self._tx = True
        self._speaker = False
        self._erl = None

    def erl_measured(self, value: float) -> Erl:
        """Keep a local ERL measurement and return it as the observation to relay up."""
        relayed = Erl(value)
        self._erl = relayed.value
        return relayed

    def set_squelch(self, on: bool) -> None:
        expect(on, bool, "on")
        self._squelch = on

    def transmits(self, silent: bool) -> bool:
        """Does the mic send a frame up? `tx ∧ ¬(squelch ∧ silent)` (§8)."""
        expect(silent, bool, "silent")
        return self._tx and not (self._squelch and silent)
