"""The closed ADR-068 loop's driver (models/adr068.py): `DRIVER` plays the loop's daemon,
gate and edge by `impl.duplex`, `impl.ecc` and `impl.edge`, the link by the model.

The loop's daemon reads its ERL as the gate's classes (`ErlClass`: 0.49, 0.50, 0.75,
NaN, ±inf); the component drivers put each class to `impl` as that float and read
`impl`'s floats back as classes, which is all the translation there is. The gate's model
holds a TurnClaim until ECC's floor read, and `impl.ecc` is the read alone
(`floor_verdict_from_erl`), so its driver holds the claim's ERL and asks `impl.ecc` at
the read. Used by conformance/test_adr068.py and the mutant gate (`harness.drivers()`).
The component drivers are not module-level instances: the daemon's spec is named
`duplex`, and `drivers()` would take it for duplex's own driver.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import impl.duplex as d
import impl.ecc as ecc
import impl.edge as edge
from conformance.drivers.duplex import DuplexDriver
from conformance.harness import BaseDriver
from conformance.harness import Driver
from conformance.harness import SystemDriver
from models import adr068
from models.kernel.domains import Value

# Each class as the float it is named by ("0.49", "NaN", "+inf", ...).
ERL: Mapping[adr068.ErlClass, float] = {c: float(c.value) for c in adr068.ErlClass}


def erl_class(value: float | None) -> adr068.ErlClass | None:
    """A float `impl` holds, as the class it was given as."""
    if value is None:
        return None
    return next(c for c, v in ERL.items() if v == value or (math.isnan(v) and math.isnan(value)))


class DaemonDriver(DuplexDriver):
    """The duplex driver, its ERL read as the loop's classes."""

    spec = adr068.DAEMON

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        if trigger == "erl":
            params = {"value": ERL[params["value"]]}
        got = super().fire(impl, trigger, params)
        return {**got, "impulse_erl": erl_class(got["impulse_erl"])}

    def observe(self, impl: Any) -> dict[str, Value]:
        seen = super().observe(impl)
        return {**seen, "last_erl": erl_class(seen["last_erl"])}


class Gate:
    """ECC's queue holding the last TurnClaim's ERL for the floor read; the read is impl.ecc."""

    def __init__(self) -> None:
        self.held = False
        self.erl: float | None = None


class GateDriver(BaseDriver):
    spec = adr068.GATE
    VERDICTS: Mapping[d.FloorVerdict, adr068.Verdict] = {
        d.FloorVerdict.GRANT_USER: adr068.GRANT_USER,
        d.FloorVerdict.DENY_BARGE: adr068.DENY_BARGE,
    }

    def start(self, init: Mapping[str, Value]) -> Gate:
        return Gate()

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        if trigger == "claim":
            claimed = params["erl"]
            impl.held, impl.erl = True, None if claimed is None else ERL[claimed]
            return {"verdict": None}
        if not impl.held:
            return {"verdict": None}
        verdict = ecc.floor_verdict_from_erl(impl.erl)
        impl.held, impl.erl = False, None
        return {"verdict": self.VERDICTS[verdict]}

    def observe(self, impl: Any) -> dict[str, Value]:
        return {"held": impl.held, "erl": erl_class(impl.erl)}


class EdgeDriver(BaseDriver):
    spec = adr068.EDGE
    COMMANDS: Mapping[str, d.EdgeCommand] = {
        "mute": d.Mute(),
        "cancel": d.Cancel(),
        "resume": d.Resume(),
        "play": d.Play(d.Pcm(b"\x00\x01")),
    }

    def start(self, init: Mapping[str, Value]) -> edge.EdgeReflex:
        return edge.EdgeReflex()

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        if trigger in self.COMMANDS:
            impl.command(self.COMMANDS[trigger])
        elif trigger == "link_lost":
            impl.link_lost()
        else:
            impl.link_restored()
        return {}

    def observe(self, impl: Any) -> dict[str, Value]:
        return {
            "state": adr068.EdgeState[impl.state.name],
            "tx": impl.tx,
            "speaker": impl.speaker,
        }


def played() -> dict[str, Driver]:
    """A driver for each component impl can play: all but the link."""
    return {"daemon": DaemonDriver(), "gate": GateDriver(), "edge": EdgeDriver()}


# The whole loop in impl, only the link played by the model: what the mutant gate drives.
DRIVER = SystemDriver(adr068.SPEC, played())
