"""Example tests for `impl.duplex`, the port of `seeds/duplex.rs` (ADR-068 D1).

One test per ADR-068 D1 row, then the seed's guards and no-ops from
docs/duplex-d1.md §4/§5, input validation, and the public vocabulary of
docs/api.md. Each test drives the channel through its public API only.
"""

import ast
import dataclasses
import enum
import math
from fractions import Fraction
from pathlib import Path

import pytest

from impl.duplex import Cancel
from impl.duplex import Config
from impl.duplex import DuplexChannel
from impl.duplex import DuplexImpulse
from impl.duplex import DuplexState
from impl.duplex import Erl
from impl.duplex import FloorVerdict
from impl.duplex import HeartbeatLost
from impl.duplex import ImpulseType
from impl.duplex import LinkRestored
from impl.duplex import Mute
from impl.duplex import PayloadKind
from impl.duplex import Pcm
from impl.duplex import Play
from impl.duplex import PlaybackDrained
from impl.duplex import RenderedText
from impl.duplex import Resume
from impl.duplex import Silence
from impl.duplex import SmartTurnEou
from impl.duplex import StreamObservation
from impl.duplex import VadOffset
from impl.duplex import VadOnset

S = DuplexState
V = FloorVerdict
AUDIO = PayloadKind.AUDIO
TEXT = PayloadKind.TEXT

# The shortest public path into each state (Backchannel and Overlap: Audio only).
_PATHS: dict[DuplexState, list[StreamObservation | FloorVerdict]] = {
    S.IDLE: [],
    S.LISTENING: [VadOnset()],
    S.THINKING: [VadOnset(), SmartTurnEou()],
    S.SPEAKING: [VadOnset(), SmartTurnEou(), V.GRANT_AGENT],
    S.OVERLAP: [VadOnset(), SmartTurnEou(), V.GRANT_AGENT, VadOnset()],
    S.BACKCHANNEL: [VadOnset(), SmartTurnEou(), V.GRANT_AGENT, V.BACKCHANNEL],
    S.DEGRADED: [HeartbeatLost()],
}
TEXT_STATES = [S.IDLE, S.LISTENING, S.THINKING, S.SPEAKING, S.DEGRADED]
BOTH_PAYLOADS = [(s, AUDIO) for s in S] + [(s, TEXT) for s in TEXT_STATES]


def channel_in(
    state: DuplexState, payload: PayloadKind = AUDIO, erl: float | None = None
) -> DuplexChannel:
    """A channel driven to `state`, then given `erl` (if any) as the last ERL."""
    ch = DuplexChannel(payload)
    for step in _PATHS[state]:
        if isinstance(step, FloorVerdict):
            ch.apply(step)
        else:
            ch.observe(step)
    if erl is not None:
        ch.observe(Erl(erl))
    assert ch.state is state
    assert ch.last_erl == erl
    return ch


def test_new_channel_is_idle_with_no_erl() -> None:
    for payload in PayloadKind:
        ch = DuplexChannel(payload)
        assert ch.state is S.IDLE
        assert ch.payload is payload
        assert ch.last_erl is None


# ---- the 13 rows of ADR-068 D1 (docs/duplex-d1.md §3) ----------------------


@pytest.mark.parametrize("payload", list(PayloadKind))
@pytest.mark.parametrize("erl", [None, 0.3])
def test_row_1_onset_in_idle_listens_and_claims(payload: PayloadKind, erl: float | None) -> None:
    ch = channel_in(S.IDLE, payload, erl)
    assert ch.observe(VadOnset()) == (DuplexImpulse(ImpulseType.TURN_CLAIM, erl), [])
    assert ch.state is S.LISTENING


@pytest.mark.parametrize("payload", list(PayloadKind))
@pytest.mark.parametrize("erl", [None, 0.3])
def test_row_2_eou_in_listening_thinks_and_emits_eou(
    payload: PayloadKind, erl: float | None
) -> None:
    ch = channel_in(S.LISTENING, payload, erl)
    assert ch.observe(SmartTurnEou()) == (DuplexImpulse(ImpulseType.END_OF_UTTERANCE, erl), [])
    assert ch.state is S.THINKING


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_row_3_grant_agent_in_thinking_speaks(payload: PayloadKind) -> None:
    ch = channel_in(S.THINKING, payload, 0.4)
    assert ch.apply(V.GRANT_AGENT) == []
    assert ch.state is S.SPEAKING
    assert ch.last_erl == 0.4


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_row_4_turn_shift_in_thinking_listens(payload: PayloadKind) -> None:
    ch = channel_in(S.THINKING, payload)
    assert ch.apply(V.TURN_SHIFT) == []
    assert ch.state is S.LISTENING


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_row_5_drained_in_speaking_goes_idle(payload: PayloadKind) -> None:
    ch = channel_in(S.SPEAKING, payload, 0.4)
    assert ch.observe(PlaybackDrained()) == (None, [])
    assert ch.state is S.IDLE
    assert ch.last_erl == 0.4


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_row_6_grant_agent_in_speaking_is_a_self_loop(payload: PayloadKind) -> None:
    ch = channel_in(S.SPEAKING, payload)
    assert ch.apply(V.GRANT_AGENT) == []
    assert ch.state is S.SPEAKING


@pytest.mark.parametrize("erl", [None, 0.1, 0.9])
def test_row_7_audio_onset_in_speaking_overlaps_whatever_the_erl(erl: float | None) -> None:
    # No ERL gate at entry (duplex-d1.md §5.1) and no duck command (§5.2).
    ch = channel_in(S.SPEAKING, AUDIO, erl)
    assert ch.observe(VadOnset()) == (DuplexImpulse(ImpulseType.TURN_CLAIM, erl), [])
    assert ch.state is S.OVERLAP


def test_row_8_grant_user_in_overlap_listens_mutes_then_cancels() -> None:
    ch = channel_in(S.OVERLAP, AUDIO, 0.9)
    assert ch.apply(V.GRANT_USER) == [Mute(), Cancel()]
    assert ch.state is S.LISTENING
    assert ch.last_erl == 0.9


def test_row_9_deny_barge_in_overlap_resumes_speaking() -> None:
    ch = channel_in(S.OVERLAP, AUDIO, 0.1)
    assert ch.apply(V.DENY_BARGE) == [Resume()]
    assert ch.state is S.SPEAKING
    assert ch.last_erl == 0.1


def test_row_10_backchannel_verdict_in_audio_speaking() -> None:
    ch = channel_in(S.SPEAKING, AUDIO)
    assert ch.apply(V.BACKCHANNEL) == []
    assert ch.state is S.BACKCHANNEL


def test_row_11_offset_in_backchannel_speaks_again() -> None:
    ch = channel_in(S.BACKCHANNEL, AUDIO, 0.5)
    assert ch.observe(VadOffset()) == (None, [])
    assert ch.state is S.SPEAKING
    assert ch.last_erl == 0.5


@pytest.mark.parametrize(("state", "payload"), BOTH_PAYLOADS)
@pytest.mark.parametrize("erl", [None, 0.6])
def test_row_12_heartbeat_lost_degrades_from_every_state_keeping_erl(
    state: DuplexState, payload: PayloadKind, erl: float | None
) -> None:
    ch = channel_in(state, payload, erl)
    assert ch.observe(HeartbeatLost()) == (None, [])
    assert ch.state is S.DEGRADED
    assert ch.last_erl == erl


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_row_13_link_restored_in_degraded_idles_and_clears_erl(payload: PayloadKind) -> None:
    ch = channel_in(S.DEGRADED, payload, 0.6)
    assert ch.observe(LinkRestored()) == (None, [])
    assert ch.state is S.IDLE
    assert ch.last_erl is None


# ---- guards and the seed's resolutions (docs/duplex-d1.md §4, §5) ----------


def test_text_onset_in_speaking_stays_speaking_but_claims() -> None:
    ch = channel_in(S.SPEAKING, TEXT, 0.2)
    assert ch.observe(VadOnset()) == (DuplexImpulse(ImpulseType.TURN_CLAIM, 0.2), [])
    assert ch.state is S.SPEAKING


def test_text_backchannel_verdict_in_speaking_is_inert() -> None:
    ch = channel_in(S.SPEAKING, TEXT, 0.2)
    assert ch.apply(V.BACKCHANNEL) == []
    assert ch.state is S.SPEAKING
    assert ch.last_erl == 0.2


def test_text_collapses_to_the_linear_path_without_commands() -> None:
    ch = DuplexChannel(TEXT)
    seen = [ch.state]
    steps: list[StreamObservation | FloorVerdict] = [
        VadOnset(),
        SmartTurnEou(),
        V.GRANT_AGENT,
        VadOnset(),
        PlaybackDrained(),
    ]
    for step in steps:
        if isinstance(step, FloorVerdict):
            assert ch.apply(step) == []
        else:
            assert ch.observe(step)[1] == []
        seen.append(ch.state)
    assert seen == [S.IDLE, S.LISTENING, S.THINKING, S.SPEAKING, S.SPEAKING, S.IDLE]


@pytest.mark.parametrize(
    ("state", "payload"),
    [(s, p) for s, p in BOTH_PAYLOADS if s in (S.LISTENING, S.THINKING, S.OVERLAP, S.BACKCHANNEL)],
)
def test_onset_elsewhere_stays_put_but_claims(state: DuplexState, payload: PayloadKind) -> None:
    ch = channel_in(state, payload, 0.7)
    assert ch.observe(VadOnset()) == (DuplexImpulse(ImpulseType.TURN_CLAIM, 0.7), [])
    assert ch.state is state


@pytest.mark.parametrize("payload", list(PayloadKind))
def test_onset_in_degraded_emits_nothing(payload: PayloadKind) -> None:
    ch = channel_in(S.DEGRADED, payload, 0.7)
    assert ch.observe(VadOnset()) == (None, [])
    assert ch.state is S.DEGRADED
    assert ch.last_erl == 0.7


@pytest.mark.parametrize(("state", "payload"), BOTH_PAYLOADS)
def test_erl_is_recorded_in_every_state(state: DuplexState, payload: PayloadKind) -> None:
    ch = channel_in(state, payload, 0.1)
    assert ch.observe(Erl(0.8)) == (None, [])
    assert ch.state is state
    assert ch.last_erl == 0.8


@pytest.mark.parametrize(
    ("state", "payload"), [(s, p) for s, p in BOTH_PAYLOADS if s is not S.DEGRADED]
)
def test_link_restored_outside_degraded_keeps_erl(state: DuplexState, payload: PayloadKind) -> None:
    ch = channel_in(state, payload, 0.6)
    assert ch.observe(LinkRestored()) == (None, [])
    assert ch.state is state
    assert ch.last_erl == 0.6


def test_impulse_carries_the_erl_of_that_moment() -> None:
    ch = DuplexChannel(AUDIO)
    impulse, _ = ch.observe(VadOnset())
    assert impulse == DuplexImpulse(ImpulseType.TURN_CLAIM, None)
    ch.observe(Erl(0.9))
    ch.observe(Erl(0.2))
    impulse, _ = ch.observe(SmartTurnEou())
    assert impulse == DuplexImpulse(ImpulseType.END_OF_UTTERANCE, 0.2)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -3.5, 7])
def test_any_real_erl_is_recorded_as_given(value: float) -> None:
    ch = channel_in(S.SPEAKING)
    ch.observe(Erl(value))
    impulse, _ = ch.observe(VadOnset())
    assert impulse is not None
    for got in (ch.last_erl, impulse.erl):
        assert type(got) is float
        assert got == value or (math.isnan(value) and math.isnan(got))


# Where each verdict acts (§4); everywhere else it must be a no-op.
_APPLY_ACTS = {
    V.GRANT_USER: {S.OVERLAP},
    V.DENY_BARGE: {S.OVERLAP},
    V.GRANT_AGENT: {S.THINKING, S.SPEAKING},
    V.BACKCHANNEL: {S.SPEAKING},
    V.TURN_SHIFT: {S.THINKING},
}
# Where each non-Erl, non-heartbeat observation acts (§4); VadOnset is covered above.
_OBSERVE_ACTS: dict[StreamObservation, set[DuplexState]] = {
    VadOffset(): {S.BACKCHANNEL},
    SmartTurnEou(): {S.LISTENING},
    PlaybackDrained(): {S.SPEAKING, S.OVERLAP, S.BACKCHANNEL},
    LinkRestored(): {S.DEGRADED},
}


@pytest.mark.parametrize(
    ("verdict", "state", "payload"),
    [(v, s, p) for v, acts in _APPLY_ACTS.items() for s, p in BOTH_PAYLOADS if s not in acts],
)
def test_out_of_place_verdict_is_a_noop(
    verdict: FloorVerdict, state: DuplexState, payload: PayloadKind
) -> None:
    ch = channel_in(state, payload, 0.25)
    assert ch.apply(verdict) == []
    assert ch.state is state
    assert ch.last_erl == 0.25


@pytest.mark.parametrize(
    ("obs", "state", "payload"),
    [(o, s, p) for o, acts in _OBSERVE_ACTS.items() for s, p in BOTH_PAYLOADS if s not in acts],
)
def test_out_of_place_observation_is_a_noop(
    obs: StreamObservation, state: DuplexState, payload: PayloadKind
) -> None:
    ch = channel_in(state, payload, 0.25)
    impulse, commands = ch.observe(obs)
    assert impulse is None
    assert commands == []
    assert ch.state is state
    assert ch.last_erl == 0.25


# ---- input validation ------------------------------------------------------


@pytest.mark.parametrize(
    "bad", [V.GRANT_USER, "VadOnset", None, VadOnset, Mute(), S.IDLE, ImpulseType.TURN_CLAIM]
)
def test_observe_rejects_a_non_observation_untouched(bad: object) -> None:
    ch = channel_in(S.OVERLAP, AUDIO, 0.3)
    with pytest.raises(TypeError) as info:
        ch.observe(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"obs must be a StreamObservation, got {type(bad).__name__}"
    assert ch.state is S.OVERLAP
    assert ch.last_erl == 0.3


@pytest.mark.parametrize(
    "bad", [VadOnset(), Erl(0.9), "GRANT_USER", None, 1, S.OVERLAP, ImpulseType.TURN_SHIFT]
)
def test_apply_rejects_a_non_verdict_untouched(bad: object) -> None:
    ch = channel_in(S.OVERLAP, AUDIO, 0.3)
    with pytest.raises(TypeError) as info:
        ch.apply(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"verdict must be FloorVerdict, got {type(bad).__name__}"
    assert ch.state is S.OVERLAP
    assert ch.last_erl == 0.3


@pytest.mark.parametrize("bad", ["audio", None, S.IDLE, 0])
def test_channel_rejects_a_non_payload_kind(bad: object) -> None:
    with pytest.raises(TypeError) as info:
        DuplexChannel(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"payload must be PayloadKind, got {type(bad).__name__}"


@pytest.mark.parametrize("bad", [True, False, "0.5", None, 1j, [0.5]])
def test_erl_rejects_non_numbers_and_bool(bad: object) -> None:
    with pytest.raises(TypeError) as info:
        Erl(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"value must be a real number (not bool), got {type(bad).__name__}"


@pytest.mark.parametrize(
    ("given", "stored"), [(1, 1.0), (0, 0.0), (0.5, 0.5), (Fraction(1, 4), 0.25)]
)
def test_erl_accepts_real_numbers_as_float(given: float, stored: float) -> None:
    erl = Erl(given)
    assert type(erl.value) is float
    assert erl.value == stored


def test_erl_keeps_full_float_precision() -> None:
    # The seed's f32 is not reproduced: 0.1 must not round to 0.10000000149.
    assert Erl(0.1).value == 0.1


def test_channel_properties_are_read_only() -> None:
    ch = DuplexChannel(AUDIO)
    for name, value in [("state", S.SPEAKING), ("payload", TEXT), ("last_erl", 0.5)]:
        with pytest.raises(AttributeError):
            setattr(ch, name, value)
    assert (ch.state, ch.payload, ch.last_erl) == (S.IDLE, AUDIO, None)


# ---- the public vocabulary (docs/api.md) -----------------------------------


def test_enum_members_are_in_api_order_and_plain() -> None:
    assert [m.name for m in DuplexState] == [
        "IDLE",
        "LISTENING",
        "THINKING",
        "SPEAKING",
        "OVERLAP",
        "BACKCHANNEL",
        "DEGRADED",
    ]
    assert [m.name for m in PayloadKind] == ["AUDIO", "TEXT"]
    assert [m.name for m in FloorVerdict] == [
        "GRANT_USER",
        "GRANT_AGENT",
        "DENY_BARGE",
        "BACKCHANNEL",
        "TURN_SHIFT",
    ]
    for cls in (DuplexState, PayloadKind, FloorVerdict):
        assert issubclass(cls, enum.Enum)
        assert not issubclass(cls, int | str)


def test_impulse_type_wire_codes() -> None:
    assert issubclass(ImpulseType, enum.IntEnum)
    assert [(m.name, int(m)) for m in ImpulseType] == [
        ("BELIEF_UPDATE", 0x01),
        ("COHERENCE_ALERT", 0x02),
        ("NOVELTY_DETECTED", 0x03),
        ("EDGE_CONFIRMED", 0x04),
        ("EMBEDDING_REFINED", 0x05),
        ("TURN_CLAIM", 0x50),
        ("END_OF_UTTERANCE", 0x51),
        ("TURN_SHIFT", 0x52),
        ("BACKCHANNEL", 0x60),
    ]


def test_carriers_are_frozen_with_value_equality() -> None:
    assert VadOnset() == VadOnset()
    # Field-less carriers are told apart by class alone.
    fieldless: list[object] = [
        VadOnset(),
        VadOffset(),
        SmartTurnEou(),
        PlaybackDrained(),
        HeartbeatLost(),
        LinkRestored(),
        Mute(),
        Silence(),
        Resume(),
        Cancel(),
        Config(),
    ]
    for i, a in enumerate(fieldless):
        for j, b in enumerate(fieldless):
            assert (a == b) is (i == j)
    assert Erl(0.5) == Erl(0.5) != Erl(0.6)
    assert Erl(1) == Erl(1.0)
    assert Play(Pcm(b"\x00\x01")) == Play(Pcm(b"\x00\x01")) != Play(Pcm(b"\x00"))
    assert Play(RenderedText("hi")) != Play(Pcm(b"hi"))
    assert DuplexImpulse(ImpulseType.TURN_CLAIM, 0.5) == DuplexImpulse(ImpulseType.TURN_CLAIM, 0.5)
    assert DuplexImpulse(ImpulseType.TURN_CLAIM, None) != DuplexImpulse(
        ImpulseType.END_OF_UTTERANCE, None
    )
    assert len({Silence(), Silence(), Config(), Erl(0.5), Erl(0.5)}) == 3
    for carrier, field in [
        (Erl(0.5), "value"),
        (Pcm(b""), "data"),
        (RenderedText(""), "text"),
        (Play(Pcm(b"")), "payload"),
        (DuplexImpulse(ImpulseType.TURN_CLAIM, None), "erl"),
    ]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(carrier, field, None)


# ---- layering --------------------------------------------------------------


def _imported_modules(path: Path, package: str) -> set[str]:
    """Every absolute module name `path` imports; `package` resolves relative ones."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}".lstrip(".") for alias in node.names)
    return found


def test_import_scan_sees_absolute_and_relative_imports(tmp_path: Path) -> None:
    src = tmp_path / "x.py"
    src.write_text("import models.spec\nfrom conformance import c\nfrom .. import models\n")
    assert {"models.spec", "conformance", "models"} <= _imported_modules(src, "impl")


def test_impl_never_imports_models_or_conformance() -> None:
    impl_dir = Path(__file__).resolve().parent.parent / "impl"
    files = sorted(impl_dir.rglob("*.py"))
    assert impl_dir / "duplex.py" in files
    for path in files:
        rel = path.relative_to(impl_dir.parent).with_suffix("")
        package = ".".join(rel.parts[:-1])
        for module in _imported_modules(path, package):
            top = module.split(".")[0]
            assert top not in {"models", "conformance"}, f"{path} imports {module}"
