"""Example tests for `impl.ecc`, ECC's floor gate (docs/duplex-d1.md §7, `floor.rs`).

The inclusive 0.50 bound from both sides, the non-finite and missing ERLs the
gate must deny (the self-echo fix of ADR-068 D1), the gate put to a real
channel's TurnClaim, and input validation. The closed loop holds the gate to
the `adr068` model's ECC component in conformance/test_adr068.py.
"""

import math
from fractions import Fraction

import pytest

from impl.duplex import DuplexChannel
from impl.duplex import Erl as ErlObs
from impl.duplex import FloorVerdict
from impl.duplex import Mute
from impl.duplex import PayloadKind
from impl.duplex import Resume
from impl.duplex import SmartTurnEou
from impl.duplex import VadOnset
from impl.ecc import ERL_BARGE_FLOOR
from impl.ecc import barge_admitted
from impl.ecc import floor_verdict_from_erl

GRANT, DENY = FloorVerdict.GRANT_USER, FloorVerdict.DENY_BARGE


def test_the_floor_is_one_half() -> None:
    assert ERL_BARGE_FLOOR == 0.5
    assert type(ERL_BARGE_FLOOR) is float


@pytest.mark.parametrize(
    "erl", [0.5, 0.50000001, 0.75, 1.0, 1.5, 1e300, 1, Fraction(1, 2), 10**400 // 10**390]
)
def test_a_finite_erl_at_or_above_the_floor_grants_the_user(erl: float) -> None:
    assert barge_admitted(erl) is True
    assert floor_verdict_from_erl(erl) is GRANT


@pytest.mark.parametrize(
    "erl",
    [0.49, 0.49999999, math.nextafter(0.5, 0.0), 0.0, -0.0, -1.0, 0, Fraction(49, 100), -1e300],
)
def test_a_finite_erl_below_the_floor_is_denied(erl: float) -> None:
    assert barge_admitted(erl) is False
    assert floor_verdict_from_erl(erl) is DENY


@pytest.mark.parametrize("erl", [math.nan, math.inf, -math.inf, None, 10**400, -(10**400)])
def test_a_non_finite_or_missing_erl_is_denied(erl: float | None) -> None:
    # +inf is above the floor, yet denied: only a finite ERL is a measurement.
    assert barge_admitted(erl) is False
    assert floor_verdict_from_erl(erl) is DENY


def test_the_gate_judges_an_erl_as_the_erl_observation_records_it() -> None:
    given: float
    for given in (0.5, 0.49, 10**400, Fraction(3, 4), 7):  # type: ignore[assignment]
        assert barge_admitted(given) is barge_admitted(ErlObs(given).value)


@pytest.mark.parametrize(
    ("erl", "verdict", "commands", "state"),
    [
        (0.9, GRANT, [Mute()], "LISTENING"),
        (0.5, GRANT, [Mute()], "LISTENING"),
        (0.2, DENY, [Resume()], "SPEAKING"),
        (math.nan, DENY, [Resume()], "SPEAKING"),
        (None, DENY, [Resume()], "SPEAKING"),
    ],
)
def test_the_gate_answers_a_barge_claim_of_the_channel(
    erl: float | None, verdict: FloorVerdict, commands: list[Mute | Resume], state: str
) -> None:
    """The loop of ADR-068 D1: the channel claims, the gate judges the claim's ERL, the
    channel actuates. A low or missing ERL never mutes or cancels the answer."""
    ch = DuplexChannel(PayloadKind.AUDIO)
    ch.observe(VadOnset())
    ch.observe(SmartTurnEou())
    ch.apply(FloorVerdict.GRANT_AGENT)
    if erl is not None:
        ch.observe(ErlObs(erl))
    impulse, _ = ch.observe(VadOnset())
    assert impulse is not None and ch.state.name == "OVERLAP"
    got = floor_verdict_from_erl(impulse.erl)
    assert got is verdict
    assert ch.apply(got)[: len(commands)] == commands
    assert ch.state.name == state


@pytest.mark.parametrize("bad", [True, False, "0.5", 1j, [0.5], ErlObs(0.5)])
def test_the_gate_rejects_what_is_no_erl(bad: object) -> None:
    for gate in (barge_admitted, floor_verdict_from_erl):
        with pytest.raises(TypeError) as info:
            gate(bad)  # type: ignore[arg-type]
        assert str(info.value) == (
            f"erl must be a real number or None (not bool), got {type(bad).__name__}"
        )
