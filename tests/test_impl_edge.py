"""Example tests for `impl.edge`, the edge reflex (docs/duplex-d1.md §8, `edge_reflex.rs`).

One test per line of §8's table, in every state the edge can be in, then D4
(a disconnected edge holds no open mic and never speaks unprompted), the
transmit rule, the coupling notes at the end of §8, and input validation.
The closed loop holds the reflex to the `adr068` model's edge component in
conformance/test_adr068.py.
"""

import dataclasses
import enum
import math

import pytest

from impl.duplex import Cancel
from impl.duplex import Config
from impl.duplex import DuplexChannel
from impl.duplex import EdgeCommand
from impl.duplex import Erl
from impl.duplex import FloorVerdict
from impl.duplex import Mute
from impl.duplex import PayloadKind
from impl.duplex import Pcm
from impl.duplex import Play
from impl.duplex import RenderedText
from impl.duplex import Resume
from impl.duplex import Silence
from impl.duplex import SmartTurnEou
from impl.duplex import VadOnset
from impl.edge import EdgeReflex
from impl.edge import EdgeState

E = EdgeState
QUIETING: list[EdgeCommand] = [Mute(), Silence(), Cancel()]
SPEAKING: list[EdgeCommand] = [Resume(), Play(Pcm(b"\x00")), Play(RenderedText("hi"))]
EVERY_COMMAND: list[EdgeCommand] = [*QUIETING, *SPEAKING, Config()]


def edge_in(state: EdgeState, erl: float | None = None) -> EdgeReflex:
    """An edge driven to `state` through its public inputs, holding `erl`."""
    edge = EdgeReflex()
    if state is E.MUTED:
        edge.command(Mute())
    if erl is not None:
        edge.erl_measured(erl)
    if state is E.DEGRADED:
        edge.link_lost()
    assert edge.state is state
    return edge


def looks(edge: EdgeReflex) -> tuple[EdgeState, bool, bool, float | None, bool]:
    return edge.state, edge.tx, edge.speaker, edge.erl, edge.squelch


def test_a_new_edge_streams_with_mic_and_speaker_on() -> None:
    assert looks(EdgeReflex()) == (E.STREAMING, True, True, None, False)


@pytest.mark.parametrize("state", [E.STREAMING, E.MUTED])
@pytest.mark.parametrize("cmd", QUIETING)
def test_mute_silence_and_cancel_mute_the_speaker_but_keep_the_mic(
    state: EdgeState, cmd: EdgeCommand
) -> None:
    edge = edge_in(state, 0.3)
    edge.command(cmd)
    assert looks(edge) == (E.MUTED, True, False, 0.3, False)


@pytest.mark.parametrize("state", [E.STREAMING, E.MUTED])
@pytest.mark.parametrize("cmd", SPEAKING)
def test_resume_and_play_stream_with_the_speaker_on(state: EdgeState, cmd: EdgeCommand) -> None:
    edge = edge_in(state, 0.3)
    edge.command(cmd)
    assert looks(edge) == (E.STREAMING, True, True, 0.3, False)


@pytest.mark.parametrize("state", [E.STREAMING, E.MUTED])
def test_config_changes_nothing(state: EdgeState) -> None:
    edge = edge_in(state, 0.3)
    before = looks(edge)
    edge.command(Config())
    assert looks(edge) == before


@pytest.mark.parametrize("cmd", EVERY_COMMAND)
def test_every_command_is_ignored_while_degraded(cmd: EdgeCommand) -> None:
    edge = edge_in(E.DEGRADED, 0.3)
    edge.command(cmd)
    assert looks(edge) == (E.DEGRADED, False, False, 0.3, False)


@pytest.mark.parametrize("state", list(E))
def test_link_loss_degrades_with_mic_and_speaker_off_keeping_the_erl(state: EdgeState) -> None:
    edge = edge_in(state, 0.7)
    edge.link_lost()
    assert looks(edge) == (E.DEGRADED, False, False, 0.7, False)


@pytest.mark.parametrize("state", list(E))
def test_link_restored_streams_with_the_speaker_off_and_no_erl(state: EdgeState) -> None:
    # §8 guards nothing on a restore: it is obeyed from every state.
    edge = edge_in(state, 0.7)
    edge.link_restored()
    assert looks(edge) == (E.STREAMING, True, False, None, False)


@pytest.mark.parametrize("state", list(E))
@pytest.mark.parametrize("value", [0.2, 0.9, math.inf, -math.inf])
def test_an_erl_is_kept_and_relayed_without_a_state_change(state: EdgeState, value: float) -> None:
    edge = edge_in(state, 0.5)
    before = looks(edge)
    assert edge.erl_measured(value) == Erl(value)
    assert looks(edge) == (*before[:3], value, before[4])


def test_a_nan_erl_is_relayed_as_nan() -> None:
    edge = EdgeReflex()
    relayed = edge.erl_measured(math.nan)
    assert math.isnan(relayed.value)
    assert edge.erl is not None and math.isnan(edge.erl)


def test_an_erl_past_a_doubles_range_is_kept_as_the_observation_carries_it() -> None:
    edge = EdgeReflex()
    assert edge.erl_measured(10**400) == Erl(math.inf)
    assert edge.erl == math.inf


# ---- D4 and the coupling notes of §8 ---------------------------------------


@pytest.mark.parametrize("cmd", EVERY_COMMAND)
def test_d4_a_disconnected_edge_never_speaks_or_listens_whatever_arrives(
    cmd: EdgeCommand,
) -> None:
    edge = edge_in(E.STREAMING)
    edge.link_lost()
    edge.command(cmd)
    edge.erl_measured(0.9)
    assert (edge.tx, edge.speaker) == (False, False)
    assert not edge.transmits(silent=False)


@pytest.mark.parametrize("state", list(E))
def test_d4_after_a_restore_the_speaker_waits_for_play_or_resume(state: EdgeState) -> None:
    for cmd in [*QUIETING, Config()]:
        edge = edge_in(state)
        edge.link_restored()
        edge.command(cmd)
        assert edge.speaker is False, cmd
    for cmd in SPEAKING:
        edge = edge_in(state)
        edge.link_restored()
        edge.command(cmd)
        assert edge.speaker is True, cmd


def test_a_granted_barge_leaves_the_edge_muted_through_the_next_speaking_turn() -> None:
    """§8's coupling note: the daemon's only commands are Overlap verdicts, and Phase 0
    never sends Play, so after GrantUser's [Mute, Cancel] the edge stays Muted while the
    daemon speaks its next answer; only the renderer's Play (or a Resume) turns it back on."""
    ch, edge = DuplexChannel(PayloadKind.AUDIO), EdgeReflex()

    def send(commands: list[EdgeCommand]) -> None:
        for cmd in commands:
            edge.command(cmd)

    ch.observe(VadOnset())
    ch.observe(SmartTurnEou())
    send(ch.apply(FloorVerdict.GRANT_AGENT))
    ch.observe(VadOnset())
    send(ch.apply(FloorVerdict.GRANT_USER))
    assert (ch.state.name, edge.state) == ("LISTENING", E.MUTED)
    ch.observe(SmartTurnEou())
    send(ch.apply(FloorVerdict.GRANT_AGENT))
    assert ch.state.name == "SPEAKING"
    assert (edge.state, edge.speaker) == (E.MUTED, False)
    edge.command(Play(Pcm(b"\x01")))
    assert (edge.state, edge.speaker) == (E.STREAMING, True)


def test_a_denied_barge_resumes_an_edge_that_never_ducked() -> None:
    ch, edge = DuplexChannel(PayloadKind.AUDIO), EdgeReflex()
    ch.observe(VadOnset())
    ch.observe(SmartTurnEou())
    ch.apply(FloorVerdict.GRANT_AGENT)
    ch.observe(VadOnset())
    for cmd in ch.apply(FloorVerdict.DENY_BARGE):
        edge.command(cmd)
    assert looks(edge) == (E.STREAMING, True, True, None, False)


# ---- the transmit rule: tx ∧ ¬(squelch ∧ silent) ---------------------------


@pytest.mark.parametrize("state", list(E))
@pytest.mark.parametrize("squelch", [False, True])
@pytest.mark.parametrize("silent", [False, True])
def test_transmit_rule(state: EdgeState, squelch: bool, silent: bool) -> None:
    edge = edge_in(state)
    edge.set_squelch(squelch)
    assert edge.squelch is squelch
    assert edge.transmits(silent) is (edge.tx and not (squelch and silent))
    assert edge.tx is (state is not E.DEGRADED)


def test_squelch_survives_link_loss_and_restore() -> None:
    edge = EdgeReflex()
    edge.set_squelch(True)
    edge.link_lost()
    edge.link_restored()
    assert edge.squelch is True
    assert edge.transmits(silent=True) is False
    assert edge.transmits(silent=False) is True


# ---- input validation and vocabulary ---------------------------------------


@pytest.mark.parametrize(
    "bad", [FloorVerdict.GRANT_USER, VadOnset(), Erl(0.5), "Mute", None, Mute, Pcm(b"")]
)
def test_command_rejects_what_is_not_a_command_untouched(bad: object) -> None:
    """The edge has no door for a verdict or an impulse (ADR-068 D3)."""
    edge = edge_in(E.MUTED, 0.4)
    with pytest.raises(TypeError) as info:
        edge.command(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"cmd must be an EdgeCommand, got {type(bad).__name__}"
    assert looks(edge) == (E.MUTED, True, False, 0.4, False)


@pytest.mark.parametrize("bad", [True, "0.5", None, 1j])
def test_erl_measured_rejects_what_is_no_number_untouched(bad: object) -> None:
    edge = edge_in(E.STREAMING, 0.4)
    with pytest.raises(TypeError, match="^value must be a real number"):
        edge.erl_measured(bad)  # type: ignore[arg-type]
    assert edge.erl == 0.4


@pytest.mark.parametrize("bad", [1, 0, None, "yes"])
def test_squelch_and_transmits_take_a_bool(bad: object) -> None:
    edge = EdgeReflex()
    with pytest.raises(TypeError) as info:
        edge.set_squelch(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"on must be bool, got {type(bad).__name__}"
    with pytest.raises(TypeError) as info:
        edge.transmits(bad)  # type: ignore[arg-type]
    assert str(info.value) == f"silent must be bool, got {type(bad).__name__}"
    assert edge.squelch is False


def test_edge_state_is_a_plain_enum_of_three() -> None:
    assert [m.name for m in EdgeState] == ["STREAMING", "MUTED", "DEGRADED"]
    assert issubclass(EdgeState, enum.Enum) and not issubclass(EdgeState, int | str)


def test_edge_properties_are_read_only() -> None:
    edge = EdgeReflex()
    for name in ("state", "tx", "speaker", "erl", "squelch"):
        with pytest.raises(AttributeError):
            setattr(edge, name, None)
    assert looks(edge) == (E.STREAMING, True, True, None, False)


def test_the_relayed_erl_is_a_frozen_observation() -> None:
    relayed = EdgeReflex().erl_measured(0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        relayed.value = 0.1  # type: ignore[misc]
