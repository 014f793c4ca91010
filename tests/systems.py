"""A small system of three machines for the tests of a system's views (diagram, sequence chart).

- `ctl`, a switch: OFF→ON on `press` sends START, ON→OFF sends STOP;
- `dev`, a device: IDLE→RUN on `start`, RUN→IDLE on `stop`, each emitting a `light`;
- `lamp`: DARK/LIT, switched by what the device emits; BROKEN is never reached.

`link` carries the switch's commands to the device as a FIFO of one that may lose
them; `wire` hands the device's light to the lamp synchronously (one step of the
system fires both). `trace_of(...)` walks named system rows from the initial state.

`counter(...)` builds the one-variable counter many tests of the engines start from.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from models.kernel import TRUE
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import ignore
from models.kernel import row
from models.kernel import some
from models.kernel import var
from models.kernel.compose import Channel
from models.kernel.compose import Fault
from models.kernel.compose import channel
from models.kernel.compose import compose
from models.kernel.explore import explore
from models.kernel.trace import Trace


class Switch(enum.Enum):
    OFF = "off"
    ON = "on"


class Device(enum.Enum):
    IDLE = "idle"
    RUN = "run"


class Lamp(enum.Enum):
    DARK = "dark"
    LIT = "lit"
    BROKEN = "broken"


class Cmd(enum.Enum):
    START = "start"
    STOP = "stop"


class Light(enum.Enum):
    ON = "on"
    OFF = "off"


SOURCE = "tests/systems.py"
CTL = Spec(
    name="switch",
    source=SOURCE,
    control="s",
    vars=(Var("s", Finite.of_enum(Switch), Switch.OFF),),
    triggers=(Trigger("press"),),
    outputs=(Output("cmd", Option(Finite.of_enum(Cmd)), None),),
    rows=(
        row("on", "press", Switch.OFF, Switch.ON, emits={"cmd": some(Cmd.START)}, cite="t"),
        row("off", "press", Switch.ON, Switch.OFF, emits={"cmd": some(Cmd.STOP)}, cite="t"),
    ),
)
DEV = Spec(
    name="device",
    source=SOURCE,
    control="d",
    vars=(Var("d", Finite.of_enum(Device), Device.IDLE),),
    triggers=(Trigger("start"), Trigger("stop")),
    outputs=(Output("light", Option(Finite.of_enum(Light)), None),),
    rows=(
        row("run", "start", Device.IDLE, Device.RUN, emits={"light": some(Light.ON)}, cite="t"),
        ignore("running", "start", Device.RUN, cite="t"),
        row("halt", "stop", Device.RUN, Device.IDLE, emits={"light": some(Light.OFF)}, cite="t"),
        ignore("halted", "stop", Device.IDLE, cite="t"),
    ),
)
LAMP = Spec(
    name="lamp",
    source=SOURCE,
    control="l",
    vars=(Var("l", Finite.of_enum(Lamp), Lamp.DARK),),
    triggers=(Trigger("on"), Trigger("off")),
    rows=(
        row("light", "on", (Lamp.DARK, Lamp.LIT), Lamp.LIT, cite="t"),
        ignore("broken_on", "on", Lamp.BROKEN, cite="t"),
        row("dark", "off", (Lamp.DARK, Lamp.LIT), Lamp.DARK, cite="t"),
        ignore("broken_off", "off", Lamp.BROKEN, cite="t"),
    ),
)


def link(capacity: int = 1, faults: tuple[Fault, ...] = ("loss",)) -> Channel:
    """The switch's commands to the device: the plant's lane, or one with other faults."""
    return channel(
        "link",
        ("ctl", "cmd"),
        "dev",
        {Cmd.START: "start", Cmd.STOP: "stop"},
        capacity=capacity,
        faults=faults,
        cite="t",
    )


SYSTEM = compose(
    "plant",
    {"ctl": CTL, "dev": DEV, "lamp": LAMP},
    [
        link(),
        channel("wire", ("dev", "light"), "lamp", {Light.ON: "on", Light.OFF: "off"}, cite="t"),
    ],
    source=SOURCE,
)


def trace_of(*rows: str, spec: Spec = SYSTEM) -> Trace:
    """The trace that fires these system rows of `spec` in turn from its initial state."""
    graph = explore(spec)
    state = 0
    trace = Trace(graph.as_dict(0), ())
    for name in rows:
        edge = next(e for e in graph.successors(state) if e.row == name)
        trace = Trace(trace.init, (*trace.steps, graph.step(edge)))
        state = edge.target
    return trace


def counter(
    name: str,
    source: str,
    top: int,
    *,
    count: str = "n",
    guard: Expr = TRUE,
    emits: Mapping[str, Expr] | None = None,
    cite: str = "t",
    **more: Any,
) -> Spec:
    """`count`, in 0..top from 0, that the trigger `inc` (its one row, `inc`) adds 1 to
    under `guard`; `more` are the spec's other fields (properties, totality, ...)."""
    return Spec(
        name=name,
        source=source,
        vars=(Var(count, IntRange(0, top), 0),),
        triggers=(Trigger("inc"),),
        rows=(
            row(
                "inc",
                "inc",
                None,
                guard=guard,
                sets={count: add(var(count), 1)},
                emits=emits,
                cite=cite,
            ),
        ),
        **more,
    )
