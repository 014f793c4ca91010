"""impl.duplex against the duplex model (ADR-068 D1): lockstep and per-row replay.

The driver below only translates vocabulary (model triggers to `observe` /
`apply` calls, impl values to model values); the transition table lives in
`models/duplex.py` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

import impl.duplex as d
from conformance.harness import BaseDriver, replay_row, run_lockstep
from models import duplex as m
from models.kernel.domains import Value

OBSERVATIONS: Mapping[str, Callable[[Mapping[str, Value]], d.StreamObservation]] = {
    "vad_onset": lambda p: d.VadOnset(),
    "vad_offset": lambda p: d.VadOffset(),
    "smart_turn_eou": lambda p: d.SmartTurnEou(),
    "playback_drained": lambda p: d.PlaybackDrained(),
    "erl": lambda p: d.Erl(p["value"]),
    "heartbeat_lost": lambda p: d.HeartbeatLost(),
    "link_restored": lambda p: d.LinkRestored(),
}
VERDICTS = {
    "grant_user": d.FloorVerdict.GRANT_USER,
    "grant_agent": d.FloorVerdict.GRANT_AGENT,
    "deny_barge": d.FloorVerdict.DENY_BARGE,
    "backchannel": d.FloorVerdict.BACKCHANNEL,
    "turn_shift": d.FloorVerdict.TURN_SHIFT,
}


class DuplexDriver(BaseDriver):
    spec = m.SPEC

    def start(self, init: Mapping[str, Value]) -> d.DuplexChannel:
        return d.DuplexChannel(d.PayloadKind[init["payload"].name])

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        impulse: d.DuplexImpulse | None = None
        if trigger in OBSERVATIONS:
            impulse, commands = impl.observe(OBSERVATIONS[trigger](params))
        else:
            commands = impl.apply(VERDICTS[trigger])
        return {
            "impulse": None if impulse is None else m.Impulse[impulse.kind.name],
            "impulse_erl": None if impulse is None else impulse.erl,
            "commands": tuple(m.Command[type(c).__name__.upper()] for c in commands),
        }

    def observe(self, impl: Any) -> dict[str, Value]:
        return {
            "state": m.State[impl.state.name],
            "payload": m.Payload[impl.payload.name],
            "last_erl": impl.last_erl,
        }


DRIVER = DuplexDriver()


def test_every_trigger_is_driven() -> None:
    assert set(OBSERVATIONS) | set(VERDICTS) == {t.name for t in m.SPEC.triggers}


@pytest.mark.parametrize("row", [r.name for r in m.SPEC.rows])
def test_replay_row_witness(row: str) -> None:
    """Every row's shortest model witness runs the same on the implementation."""
    replay_row(DRIVER, row)


def test_lockstep() -> None:
    run_lockstep(DRIVER)
