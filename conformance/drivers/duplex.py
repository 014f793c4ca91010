"""The duplex driver: impl.duplex in the duplex model's vocabulary (ADR-068 D1).

It only translates (model triggers to `observe` / `apply` calls, impl values to model
values); the transition table lives in `models/duplex.py` alone. Used by
conformance/test_duplex.py, the mutant gate and the duplex seed plugin.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from typing import Any

import impl.duplex as d
from conformance.harness import BaseDriver
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
