"""The daemon-side full-duplex conversation-floor machine: a port of `seeds/duplex.rs`.

`DuplexChannel` actuates ECC floor verdicts; it never decides the floor. The two
mutators are split by what they take, which is what keeps the boundary honest:

- `observe` takes a `StreamObservation` (derived from the media stream) and makes
  the daemon-local moves, ADR-068 D1 rows 1, 2, 5, 7, 11, 12 and 13. Its impulses
  carry only an `ImpulseType`, so it cannot grant the floor.
- `apply` is the only method that takes a `FloorVerdict`; it makes the ECC moves,
  rows 3, 4, 6, 8, 9 and 10, and is the only source of edge commands.

Everything else is a silent no-op, as in the seed (docs/duplex-d1.md §4 and §5):
an onset in Speaking enters the provisional Overlap with no ERL gate (ECC judges
the ERL carried on the TurnClaim), and Text reaches neither Overlap nor Backchannel.

The ERL is a Python float. The seed's `Erl(f32)` narrows every reading to f32;
this port keeps the float it is given, so an impulse carries exactly what the
edge measured: 0.49999999 stays below floor.rs's 0.50 barge floor here and
becomes 0.5 in the seed (1e39 becomes inf there, 1e-46 becomes 0). The seed
differential allows exactly this difference (conformance/seeds/duplex.py,
`erl-f32-narrowing`; README "Seed differential").
"""

import enum
from dataclasses import dataclass
from typing import TypeAlias

from ._args import expect
from ._args import real
from ._args import type_error


class DuplexState(enum.Enum):
    """The seven floor states of the ADR-068 D1 states table."""

    IDLE = enum.auto()
    LISTENING = enum.auto()
    THINKING = enum.auto()
    SPEAKING = enum.auto()
    OVERLAP = enum.auto()
    BACKCHANNEL = enum.auto()
    DEGRADED = enum.auto()


class PayloadKind(enum.Enum):
    """What rides the media lane; Text cannot reach Overlap or Backchannel (D6)."""

    AUDIO = enum.auto()
    TEXT = enum.auto()


class FloorVerdict(enum.Enum):
    """An ECC floor verdict: the only type that carries a grant."""

    GRANT_USER = enum.auto()
    GRANT_AGENT = enum.auto()
    DENY_BARGE = enum.auto()
    BACKCHANNEL = enum.auto()
    TURN_SHIFT = enum.auto()


class ImpulseType(enum.IntEnum):
    """ECC impulse wire codes; the channel emits only TURN_CLAIM and END_OF_UTTERANCE."""

    BELIEF_UPDATE = 0x01
    COHERENCE_ALERT = 0x02
    NOVELTY_DETECTED = 0x03
    EDGE_CONFIRMED = 0x04
    EMBEDDING_REFINED = 0x05
    TURN_CLAIM = 0x50
    END_OF_UTTERANCE = 0x51
    TURN_SHIFT = 0x52
    BACKCHANNEL = 0x60


# Stream observations: what the daemon derived from the media stream.


@dataclass(frozen=True)
class VadOnset:
    """VAD onset in the up-stream: a floor claim."""


@dataclass(frozen=True)
class VadOffset:
    """VAD end of speech: ends a Backchannel continuer."""


@dataclass(frozen=True)
class SmartTurnEou:
    """Smart-turn endpoint: the user's utterance is complete."""


@dataclass(frozen=True)
class PlaybackDrained:
    """The edge's TTS playout has drained."""


@dataclass(frozen=True)
class Erl:
    """The latest echo-return-loss confidence the edge measured."""

    value: float

    def __post_init__(self) -> None:
        # Non-finite values are kept as they are: the floor read (impl.ecc) judges them.
        object.__setattr__(self, "value", real(self.value, "value"))


@dataclass(frozen=True)
class HeartbeatLost:
    """The edge heartbeat was lost: the link is down."""


@dataclass(frozen=True)
class LinkRestored:
    """The link came back and the edge re-handshook."""


StreamObservation: TypeAlias = (
    VadOnset | VadOffset | SmartTurnEou | PlaybackDrained | Erl | HeartbeatLost | LinkRestored
)


# Media payloads and edge commands: all the edge ever sees.


@dataclass(frozen=True)
class Pcm:
    """16 kHz PCM frame bytes for the edge speaker."""

    data: bytes


@dataclass(frozen=True)
class RenderedText:
    """Rendered text for a text edge."""

    text: str


MediaPayload: TypeAlias = Pcm | RenderedText


@dataclass(frozen=True)
class Play:
    """Media down the media lane; the renderer's, never produced by the channel."""

    payload: MediaPayload


@dataclass(frozen=True)
class Mute:
    """Silence the speaker at once, without draining (barge granted)."""


@dataclass(frozen=True)
class Silence:
    """Stop output at the end of a floor; never produced by the channel."""


@dataclass(frozen=True)
class Resume:
    """Back to full playback: the un-duck of a denied barge."""


@dataclass(frozen=True)
class Cancel:
    """Cancel the in-flight TTS render (barge granted)."""


@dataclass(frozen=True)
class Config:
    """Handshake configuration; carries nothing yet, never produced by the channel."""


EdgeCommand: TypeAlias = Play | Mute | Silence | Resume | Cancel | Config


@dataclass(frozen=True)
class DuplexImpulse:
    """Floor pressure lifted onto the ECC queue, with the ERL known at that moment."""

    kind: ImpulseType
    erl: float | None


class DuplexChannel:
    """One conversation's floor machine: pure logic, no I/O."""

    def __init__(self, payload: PayloadKind) -> None:
        expect(payload, PayloadKind, "payload")
        self._state = DuplexState.IDLE
        self._payload = payload
        self._last_erl: float | None = None

    @property
    def state(self) -> DuplexState:
        return self._state

    @property
    def payload(self) -> PayloadKind:
        return self._payload

    @property
    def last_erl(self) -> float | None:
        return self._last_erl

    def observe(self, obs: StreamObservation) -> tuple[DuplexImpulse | None, list[EdgeCommand]]:
        """Make a daemon-local move; return the impulse for ECC (if any) and no commands."""
        match obs:
            case Erl(value):
                # A scalar for the next claim, never a transition by itself.
                self._last_erl = value
            case VadOnset():
                if self._state is DuplexState.DEGRADED:
                    return None, []  # no link, no stream
                if self._state is DuplexState.IDLE:
                    self._state = DuplexState.LISTENING  # ADR-068 D1 row 1
                elif self._state is DuplexState.SPEAKING and self._payload is PayloadKind.AUDIO:
                    # ADR-068 D1 row 7: provisional, no duck; ECC weighs the ERL.
                    self._state = DuplexState.OVERLAP
                # Every other state stays put but still surfaces the claim to ECC.
                return DuplexImpulse(ImpulseType.TURN_CLAIM, self._last_erl), []
            case SmartTurnEou():
                if self._state is DuplexState.LISTENING:
                    self._state = DuplexState.THINKING  # ADR-068 D1 row 2
                    return DuplexImpulse(ImpulseType.END_OF_UTTERANCE, self._last_erl), []
            case PlaybackDrained():
                # ADR-068 D1 row 5; the seed also drains Overlap and Backchannel.
                if self._state in (
                    DuplexState.SPEAKING,
                    DuplexState.OVERLAP,
                    DuplexState.BACKCHANNEL,
                ):
                    self._state = DuplexState.IDLE
            case VadOffset():
                if self._state is DuplexState.BACKCHANNEL:
                    self._state = DuplexState.SPEAKING  # ADR-068 D1 row 11
            case HeartbeatLost():
                # ADR-068 D1 row 12, from any state: the link is down, so no command.
                self._state = DuplexState.DEGRADED
            case LinkRestored():
                if self._state is DuplexState.DEGRADED:
                    # ADR-068 D1 row 13: the resync starts from nothing measured.
                    self._state = DuplexState.IDLE
                    self._last_erl = None
            case _:
                raise type_error("obs", "a StreamObservation", obs)
        return None, []

    def apply(self, verdict: FloorVerdict) -> list[EdgeCommand]:
        """Actuate an ECC verdict; a verdict out of place is dropped silently."""
        expect(verdict, FloorVerdict, "verdict")
        match verdict, self._state:
            case FloorVerdict.GRANT_USER, DuplexState.OVERLAP:
                # ADR-068 D1 row 8: cut the speaker first, then drop the answer.
                self._state = DuplexState.LISTENING
                return [Mute(), Cancel()]
            case FloorVerdict.DENY_BARGE, DuplexState.OVERLAP:
                # ADR-068 D1 row 9: the self-cancel fix; the answer is kept.
                self._state = DuplexState.SPEAKING
                return [Resume()]
            case FloorVerdict.GRANT_AGENT, DuplexState.THINKING | DuplexState.SPEAKING:
                self._state = DuplexState.SPEAKING  # ADR-068 D1 rows 3 and 6
            case FloorVerdict.TURN_SHIFT, DuplexState.THINKING:
                self._state = DuplexState.LISTENING  # ADR-068 D1 row 4
            case FloorVerdict.BACKCHANNEL, DuplexState.SPEAKING if (
                self._payload is PayloadKind.AUDIO
            ):
                self._state = DuplexState.BACKCHANNEL  # ADR-068 D1 row 10; inert for Text
        return []
