"""Systems of machines: one `Spec` built from component specs joined by channels.

`compose(name, components, channels, ...)` returns an ordinary `Spec`, so every face (z3,
the explorer, the oracle, Promela/SPIN, the mutant gate, ITF, check-trace) checks a system
unchanged: there is no second engine. Its shape:

- **Variables, outputs** of component `c` become `c_<name>` (`daemon_state`,
  `edge_speaker`): the brief's `component.var`, spelled with `_` because every face needs
  a plain identifier (`spec.IDENTIFIER`). `System.var(c, name)` gives the spelling. A
  component's control variable is an ordinary variable of the system (its `control` is
  None): a row's source becomes a guard on it and its target an update. Each component
  also gets the output `c_step`: the trigger it took in this step (none if it did not
  take one, or answered with an ignore row, the seed's no-op, which stays an ignore row of
  the system when nothing else happens), so a system property can say which component
  did what (`is_in(out("edge_step"), "play", "resume")`), in every variant.
- **Triggers.** A component trigger no channel delivers to stays free: system trigger
  `c_<trigger>`, same parameters, group `c_<group>` (or `c` when it has none). A trigger
  a channel delivers to is fired only by that channel.
- **Rows** are derived, never copied by hand. Each free trigger's rows are the
  component's rows; a row that emits on a synchronous channel is joined with each row of
  the receiving trigger (one step of the system fires both, as a Promela rendezvous);
  one that emits on a FIFO appends its messages. Row names join the parts with `__`
  (`gate_read_grants__daemon_grant_user_takes_floor`). Rows of one component stay
  mutually exclusive, so the system is deterministic exactly when its components are.
- **Channels** (`Channel`) connect one component's output to another's triggers. The
  output's value is read as messages: an option's value, a tuple's items, or any value
  but the output's default. `deliver` maps each message the output can carry to the
  receiving trigger (with arguments over the sender's outputs, `out(..)`, for a
  synchronous channel) or to None (not carried by this channel). `capacity=0` is a
  synchronous hand-over; `capacity=k` a FIFO of k messages, the system variable named
  after the channel (a `Seq`), delivered by trigger `<channel>_deliver`. A full FIFO
  blocks its sender (Promela's default). Its `faults` are environment triggers:
  `<channel>_lose` drops the head, `<channel>_duplicate` sends the head again at the tail,
  `<channel>_reorder` moves the head behind the rest. `cleared_by` names the component
  triggers that empty it (a lost connection drops what was in flight); `overflow="drop"`
  loses a message that does not fit instead of blocking the sender.
- **Init** conjoins the components' own and says that every FIFO starts empty.
- **Totality** is `enabled-only` by default (a blocked hand-over is no step); with
  `totality="explicit"` every system trigger must be answered in every reachable state,
  as the seeds require, and the system adds the no-ops a channel needs: `<ch>_deliver`
  on an empty FIFO, a fault with nothing to act on, a send refused by a full FIFO
  (`<row>__blocked`).
- **Properties** are the system's own, the inherited ones and `steps-name-their-triggers`
  (each `c_step` is the trigger c took, or none), `always`/`never` before `sometimes`.
- **Inherited properties.** `inherit={"daemon": names}` carries a component's own
  properties into the system as `daemon-<name>`: its names prefixed; "the component took
  trigger t" reads the system trigger when t is free, else the system rows where a row of
  t fires; a group reads the system's group of its free triggers and those rows.
- **Data independence.** `with_domain(spec, old, new)` gives a component another domain
  for values it only stores, copies and compares for equality (duplex's real ERL becomes
  the classes ECC's gate tells apart); its rows are unchanged, re-typed.
- **Variants** are component variants, `(component, Variant)`: the component's rows are
  changed and the system re-derived; the system's `Variant` is the difference.
- **Metadata** for the views: `spec.system` (a `System`) names each component (`Part`,
  with its spec and the name maps), the channels, and per system row its `Origin`:
  which component rows fire (causal order), which messages it sends and delivers, which
  fault it is. `System.owner(name)` says who owns a system variable, trigger or row.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from types import MappingProxyType
from typing import Any
from typing import Literal

from .domains import Domain
from .domains import Finite
from .domains import Option
from .domains import Seq
from .domains import Value
from .expr import TRUE
from .expr import And
from .expr import Const
from .expr import Expr
from .expr import Implies
from .expr import In
from .expr import Ite
from .expr import Not
from .expr import Or
from .expr import Ref
from .expr import Some
from .expr import StepIs
from .expr import and_
from .expr import append
from .expr import as_expr
from .expr import eq
from .expr import ge
from .expr import head
from .expr import le
from .expr import length
from .expr import lt
from .expr import tail
from .expr import var
from .layout import Layout
from .spec import Fairness
from .spec import Kind
from .spec import Liveness
from .spec import Output
from .spec import Property
from .spec import Row
from .spec import Spec
from .spec import SpecError
from .spec import Totality
from .spec import Trigger
from .spec import Var
from .spec import Variant

STEP = "step"  # the output `<component>_step`: the trigger the component took, or none
Fault = Literal["loss", "duplication", "reordering"]
FAULTS: tuple[Fault, ...] = ("loss", "duplication", "reordering")
_FAULT_TRIGGER: Mapping[Fault, str] = {
    "loss": "lose",
    "duplication": "duplicate",
    "reordering": "reorder",
}


@dataclass(frozen=True)
class Delivery:
    """A message's effect at the receiver: fire `trigger` with `args` (expressions over
    the sender's pre-state, parameters and outputs, `out(..)`; constants on a FIFO)."""

    trigger: str
    args: Mapping[str, Expr] = field(default_factory=dict)


@dataclass(frozen=True)
class Channel:
    name: str
    source: str  # the sending component
    output: str  # its output carrying the messages
    target: str  # the receiving component
    deliver: Mapping[Value, Delivery | None]
    capacity: int = 0  # 0: synchronous hand-over; k >= 1: a FIFO of k messages
    faults: tuple[Fault, ...] = ()
    cite: str = ""
    doc: str = ""
    # (component, trigger): a step of that component on that trigger empties the FIFO (a
    # connection lost or re-made drops what was in flight)
    cleared_by: tuple[tuple[str, str], ...] = ()
    # a full FIFO blocks its sender ("block", Promela's default) or loses what does not fit
    overflow: Literal["block", "drop"] = "block"

    @property
    def synchronous(self) -> bool:
        return self.capacity == 0

    @property
    def messages(self) -> tuple[Value, ...]:
        """The messages this channel carries, in `deliver`'s order."""
        return tuple(m for m, d in self.deliver.items() if d is not None)


def channel(
    name: str,
    source: tuple[str, str],
    target: str,
    deliver: Mapping[Value, str | tuple[str, Mapping[str, Expr | Value]] | None],
    *,
    capacity: int = 0,
    faults: Iterable[Fault] = (),
    cleared_by: Iterable[tuple[str, str]] = (),
    overflow: Literal["block", "drop"] = "block",
    cite: str,
    doc: str = "",
) -> Channel:
    """`channel("link", ("daemon", "commands"), "edge", {MUTE: "mute", ...}, capacity=2)`."""
    table: dict[Value, Delivery | None] = {}
    for message, d in deliver.items():
        if d is None or isinstance(d, str):
            table[message] = None if d is None else Delivery(d)
        else:
            trig, args = d
            table[message] = Delivery(
                trig, MappingProxyType({k: as_expr(v) for k, v in args.items()})
            )
    return Channel(
        name,
        source[0],
        source[1],
        target,
        MappingProxyType(table),
        capacity,
        tuple(faults),
        cite,
        doc,
        tuple(cleared_by),
        overflow,
    )


def with_domain(spec: Spec, old: Domain, new: Domain) -> Spec:
    """`spec` with every variable, parameter and output of domain `old` (or an option of
    it) taken from `new` instead; its rows are unchanged. Sound for a spec that only stores,
    copies and compares its `old` values for equality (data independence): the rows are
    re-typed, so one that computes with them is refused."""

    def swap(d: Domain) -> Domain:
        if d == old:
            return new
        if isinstance(d, Option) and d.inner == old:
            return Option(new)
        return d

    return dataclasses.replace(
        spec,
        vars=tuple(dataclasses.replace(v, domain=swap(v.domain)) for v in spec.vars),
        triggers=tuple(
            dataclasses.replace(
                t, params=tuple(dataclasses.replace(p, domain=swap(p.domain)) for p in t.params)
            )
            for t in spec.triggers
        ),
        outputs=tuple(dataclasses.replace(o, domain=swap(o.domain)) for o in spec.outputs),
    )


# ---------------------------------------------------------------- the metadata the views read


@dataclass(frozen=True)
class Part:
    """One component: its own spec and how its names read in the system."""

    name: str
    spec: Spec
    vars: Mapping[str, str]  # component variable -> system variable
    outputs: Mapping[str, str]  # component output -> system output
    triggers: Mapping[str, str]  # free component trigger -> system trigger

    @property
    def control(self) -> str | None:
        """The system variable holding the component's control state."""
        return self.vars[self.spec.control] if self.spec.control else None


@dataclass(frozen=True)
class Origin:
    """What one system row is: the component rows it fires in causal order (the sender
    first), the messages it puts on channels, the one it takes off a FIFO, or the fault."""

    parts: tuple[tuple[str, str], ...]  # (component, component row)
    sends: tuple[tuple[str, Value], ...] = ()  # (channel, message)
    delivers: tuple[str, Value] | None = None  # (channel, message) taken off a FIFO
    fault: tuple[str, Fault] | None = None  # (channel, fault)


@dataclass(frozen=True)
class System:
    parts: tuple[Part, ...]
    channels: tuple[Channel, ...]
    origins: Mapping[str, Origin]  # system row -> what it is
    triggers: Mapping[str, str]  # system trigger -> its owner (component or channel)

    def part(self, name: str) -> Part:
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(name)

    def channel(self, name: str) -> Channel:
        for c in self.channels:
            if c.name == name:
                return c
        raise KeyError(name)

    def var(self, component: str, name: str) -> str:
        """The system variable of a component's variable: `var("daemon", "state")`."""
        return self.part(component).vars[name]

    def owner(self, name: str) -> str:
        """The component (or channel) owning a system variable, output, trigger or row; a
        row fired by several components belongs to the first (the sender)."""
        for p in self.parts:
            if name in p.vars.values() or name in p.outputs.values():
                return p.name
        if name in self.triggers:
            return self.triggers[name]
        if name in self.origins:
            o = self.origins[name]
            if o.fault is not None:
                return o.fault[0]
            if o.parts:
                return o.parts[0][0]
            # A no-op fires nothing: a send a full FIFO refuses is its sender's row's, a
            # channel's idle answer the channel's.
            if name.endswith("__blocked"):
                return self.owner(name.removesuffix("__blocked"))
            return self.triggers[name.removesuffix("_nothing")]
        if any(c.name == name and not c.synchronous for c in self.channels):
            return name
        raise KeyError(name)

    def rows_of(self, component: str, row: str) -> tuple[str, ...]:
        """The system rows in which a component's row fires."""
        return tuple(n for n, o in self.origins.items() if (component, row) in o.parts)


# ---------------------------------------------------------------- building


def compose(
    name: str,
    components: Mapping[str, Spec],
    channels: Sequence[Channel],
    *,
    source: str,
    properties: Sequence[Property] = (),
    liveness: Sequence[Liveness] = (),
    fairness: Sequence[Fairness] = (),
    variants: Sequence[tuple[str, Variant]] = (),
    expect_violated: Sequence[str] = (),
    check_deadlock: bool = True,
    totality: Totality = "enabled-only",
    inherit: Mapping[str, Sequence[str]] = MappingProxyType({}),
    doc: str = "",
    layout: Layout | None = None,
) -> Spec:
    """One spec for the system of `components` (name -> spec) joined by `channels`."""
    b = _Builder(name, dict(components), tuple(channels), totality == "explicit")
    rows, origins = b.rows({c: s.rows for c, s in b.components.items()})
    system_variants = tuple(b.variant(rows, comp, v) for comp, v in variants)
    inits = [b.lift(c, s.init) for c, s in b.components.items() if s.init is not None]
    # A channel starts empty: said in Init too, so every face states it (TLA+'s q = <<>>).
    inits += [eq(var(ch.name), ()) for ch in b.channels if not ch.synchronous]
    return Spec(
        name=name,
        source=source,
        vars=b.vars(),
        triggers=b.triggers(),
        rows=tuple(rows.values()),
        # Safety first, witnesses last: the mutant gate kills with the first failing check,
        # and a counterexample replays cheaply where a missing witness needs z3 to prove
        # it absent from the whole reachable set.
        properties=tuple(
            sorted(
                (b.attribution(origins), *properties, *b.inherited(inherit, origins)),
                key=lambda p: p.kind is Kind.SOMETIMES,
            )
        ),
        outputs=b.outputs(),
        control=None,
        variants=system_variants,
        doc=doc,
        expect_violated=tuple(expect_violated),
        layout=layout or Layout(),
        init=and_(*inits) if inits else None,
        totality=totality,
        check_deadlock=check_deadlock,
        liveness=tuple(liveness),
        fairness=tuple(fairness),
        system=System(
            b.parts(), b.channels, MappingProxyType(origins), MappingProxyType(b.owners())
        ),
    )


@dataclass
class _Step:
    """A system row under construction."""

    trigger: str
    names: list[str]
    parts: list[tuple[str, str]]
    guard: list[Expr]
    updates: dict[str, Expr]
    outputs: dict[str, Expr]
    fifo: dict[str, Expr]  # FIFO variable -> its value so far in this step
    room: list[Expr]  # each FIFO it sends on has room for what it sends
    sends: list[tuple[str, Value]]
    cites: list[str]
    ignore: bool

    def copy(self) -> _Step:
        return _Step(
            self.trigger,
            list(self.names),
            list(self.parts),
            list(self.guard),
            dict(self.updates),
            dict(self.outputs),
            dict(self.fifo),
            list(self.room),
            list(self.sends),
            list(self.cites),
            self.ignore,
        )


class _Builder:
    def __init__(
        self,
        name: str,
        components: dict[str, Spec],
        channels: tuple[Channel, ...],
        explicit: bool,
    ):
        self.name = name
        self.explicit = explicit
        self.components = components
        self.channels = channels
        if not components:
            raise SpecError(f"system {name!r}: no components")
        self._check_channels()
        self.delivered = {(c.target, d.trigger) for c in channels for d in c.deliver.values() if d}
        self.sending = {(c.source, c.output): c for c in channels}

    # ------------------------------------------------------------ names

    def sys(self, component: str, name: str) -> str:
        return f"{component}_{name}"

    def group(self, component: str, group: str) -> str:
        return self.sys(component, group) if group else component

    def _check_channels(self) -> None:
        seen: set[tuple[str, str]] = set()
        names: set[str] = set()
        for ch in self.channels:
            where = f"system {self.name!r}: channel {ch.name!r}"
            if ch.name in names:
                raise SpecError(f"system {self.name!r}: duplicate channel {ch.name!r}")
            names.add(ch.name)
            if not ch.cite.strip():
                raise SpecError(f"{where}: no source citation")
            for c in (ch.source, ch.target):
                if c not in self.components:
                    raise SpecError(f"{where}: unknown component {c!r}")
            if ch.source == ch.target:
                raise SpecError(f"{where}: a component cannot send to itself")
            try:
                out = self.components[ch.source].output(ch.output)
            except KeyError:
                raise SpecError(f"{where}: {ch.source!r} has no output {ch.output!r}") from None
            if (ch.source, ch.output) in seen:
                raise SpecError(f"{where}: output {ch.source}.{ch.output} feeds two channels")
            seen.add((ch.source, ch.output))
            if ch.capacity < 0:
                raise SpecError(f"{where}: capacity must be 0 (synchronous) or more")
            if ch.synchronous and (ch.faults or ch.cleared_by):
                raise SpecError(f"{where}: a synchronous hand-over has no faults and holds nothing")
            for comp, by in ch.cleared_by:
                if comp not in self.components or by not in {
                    t.name for t in self.components[comp].triggers
                }:
                    raise SpecError(f"{where}: cleared by unknown trigger {comp}.{by}")
            for f in ch.faults:
                if f not in FAULTS:
                    raise SpecError(f"{where}: unknown fault {f!r} (faults: {', '.join(FAULTS)})")
            element = _element(out.domain)
            target = self.components[ch.target]
            for message, d in ch.deliver.items():
                if element is not None and not element.contains(message):
                    raise SpecError(f"{where}: {message!r} is not a message of {ch.output!r}")
                if d is None:
                    continue
                try:
                    trig = target.trigger(d.trigger)
                except KeyError:
                    raise SpecError(
                        f"{where}: {ch.target!r} has no trigger {d.trigger!r}"
                    ) from None
                params = {p.name for p in trig.params}
                if set(d.args) != params:
                    raise SpecError(
                        f"{where}: {message!r} gives {d.trigger!r} arguments "
                        f"{sorted(d.args)}, it takes {sorted(params)}"
                    )
                if not ch.synchronous and any(not isinstance(a, Const) for a in d.args.values()):
                    raise SpecError(f"{where}: a FIFO message's arguments must be constants")

    # ------------------------------------------------------------ declarations

    def vars(self) -> tuple[Var, ...]:
        out = [
            Var(self.sys(c, v.name), v.domain, v.init, doc=v.doc)
            for c, s in self.components.items()
            for v in s.vars
        ]
        for ch in self.channels:
            if not ch.synchronous:
                out.append(Var(ch.name, self.fifo_domain(ch), (), doc=ch.doc or f"FIFO {ch.name}"))
        return tuple(out)

    def fifo_domain(self, ch: Channel) -> Seq:
        element = Finite(f"{ch.name}_message", ch.messages, namer=_label)
        return Seq(element, ch.capacity, name=f"Fifo[{ch.name}]")

    def outputs(self) -> tuple[Output, ...]:
        out: list[Output] = []
        for c, s in self.components.items():
            out += [dataclasses.replace(o, name=self.sys(c, o.name)) for o in s.outputs]
            steps = Finite(f"{c}_triggers", tuple(t.name for t in s.triggers))
            out.append(Output(self.sys(c, STEP), Option(steps), None, doc=f"the trigger {c} took"))
        return tuple(out)

    def triggers(self) -> tuple[Trigger, ...]:
        out = [
            Trigger(self.sys(c, t.name), t.params, self.group(c, t.group), t.doc)
            for c, s in self.components.items()
            for t in s.triggers
            if (c, t.name) not in self.delivered
        ]
        for ch in self.channels:
            if ch.synchronous:
                continue
            out.append(Trigger(f"{ch.name}_deliver", (), ch.name, f"{ch.name} delivers its head"))
            out += [
                Trigger(f"{ch.name}_{_FAULT_TRIGGER[f]}", (), ch.name, f"{ch.name}: {f}")
                for f in ch.faults
            ]
        return tuple(out)

    def owners(self) -> dict[str, str]:
        return {
            **{
                self.sys(c, t.name): c
                for c, s in self.components.items()
                for t in s.triggers
                if (c, t.name) not in self.delivered
            },
            **{
                f"{ch.name}_{suffix}": ch.name
                for ch in self.channels
                if not ch.synchronous
                for suffix in ("deliver", *(_FAULT_TRIGGER[f] for f in ch.faults))
            },
        }

    def parts(self) -> tuple[Part, ...]:
        return tuple(
            Part(
                c,
                s,
                MappingProxyType({v.name: self.sys(c, v.name) for v in s.vars}),
                MappingProxyType(
                    {o.name: self.sys(c, o.name) for o in s.outputs} | {STEP: self.sys(c, STEP)}
                ),
                MappingProxyType(
                    {
                        t.name: self.sys(c, t.name)
                        for t in s.triggers
                        if (c, t.name) not in self.delivered
                    }
                ),
            )
            for c, s in self.components.items()
        )

    # ------------------------------------------------------------ expressions

    def lift(
        self,
        component: str,
        expr: Expr,
        params: Mapping[str, Expr] | None = None,
        outs: Mapping[str, Expr] | None = None,
    ) -> Expr:
        """A component's expression in the system's names: its variables prefixed, its
        parameters replaced by `params`, its outputs (in an argument) by `outs`."""

        def f(e: Expr) -> Expr | None:
            if isinstance(e, Ref):
                if e.scope in ("pre", "post"):
                    return Ref(e.scope, self.sys(component, e.name))
                if e.scope == "param":
                    return params[e.name] if params is not None else e
                if e.scope == "out":
                    return (
                        outs[e.name]
                        if outs is not None
                        else Ref("out", self.sys(component, e.name))
                    )
            return None  # a component's rows and init read no step: its spec refused that

        return _rewrite(expr, f)

    def inherited(
        self, inherit: Mapping[str, Sequence[str]], origins: Mapping[str, Origin]
    ) -> list[Property]:
        """The named properties of each component, read in the system as `<c>-<name>`."""
        out: list[Property] = []
        for c, names in inherit.items():
            if c not in self.components:
                raise SpecError(f"system {self.name!r}: inherits from unknown component {c!r}")
            for n in names:
                try:
                    p = self.components[c].prop(n)
                except KeyError:
                    raise SpecError(
                        f"system {self.name!r}: component {c!r} has no property {n!r}"
                    ) from None
                pred = self._lift_step(c, p.pred, origins)
                out.append(Property(f"{c}-{p.name}", p.kind, pred, p.cite, p.doc))
        return out

    def attribution(self, origins: Mapping[str, Origin]) -> Property:
        """`<c>_step` names the trigger component c took, in every step (the charts read it)."""
        terms = [
            self._lift_step(
                c,
                And(
                    tuple(
                        Implies(StepIs("trigger", (t.name,)), In(Ref("out", STEP), (None, t.name)))
                        for t in s.triggers
                    )
                ),
                origins,
            )
            for c, s in self.components.items()
        ]
        return Property(
            "steps-name-their-triggers",
            Kind.ALWAYS,
            _and(terms),
            cite="compose.py: `<component>_step` is the trigger the component took",
        )

    def _lift_step(self, c: str, expr: Expr, origins: Mapping[str, Origin]) -> Expr:
        """A component's property in the system: its names prefixed; "the component took
        trigger t" is the system trigger when t is free, else the system rows where a row
        of t takes part; a group, the free triggers' system group and those rows."""
        spec = self.components[c]

        def rows_where(own: set[str]) -> list[str]:
            return [n for n, o in origins.items() if any(p == (c, r) for p in o.parts for r in own)]

        def of_triggers(triggers: set[str], groups: tuple[str, ...] = ()) -> Expr:
            free = sorted(t for t in triggers if (c, t) not in self.delivered)
            held = {r.name for r in spec.rows if r.trigger in triggers and r.trigger not in free}
            parts: list[Expr] = []
            if free and groups:  # the system's own groups: a regrouped trigger is seen
                parts.append(StepIs("group", tuple(self.group(c, g) for g in groups)))
            elif free:
                parts.append(StepIs("trigger", tuple(self.sys(c, t) for t in free)))
            if held and rows_where(held):
                parts.append(StepIs("row", tuple(rows_where(held))))
            return parts[0] if len(parts) == 1 else Or(tuple(parts)) if parts else Const(False)

        def f(e: Expr) -> Expr | None:
            if isinstance(e, Ref) and e.scope in ("pre", "post", "out"):
                return Ref(e.scope, self.sys(c, e.name))
            if isinstance(e, StepIs):
                if e.kind == "trigger":
                    return of_triggers(set(e.names))
                if e.kind == "group":
                    return of_triggers(
                        {t.name for t in spec.triggers if t.group in e.names}, e.names
                    )
                found = rows_where(set(e.names))
                return StepIs("row", tuple(found)) if found else Const(False)
            return None

        return _rewrite(expr, f)

    # ------------------------------------------------------------ rows

    def rows(
        self, rows_of: Mapping[str, Sequence[Row]]
    ) -> tuple[dict[str, Row], dict[str, Origin]]:
        """Every system row, from each component's `rows_of[c]`."""
        steps: list[tuple[_Step, tuple[str, Value] | None, tuple[str, Fault] | None]] = []
        for c, spec in self.components.items():
            for t in spec.triggers:
                if (c, t.name) in self.delivered:
                    continue
                params: dict[str, Expr] = {p.name: Ref("param", p.name) for p in t.params}
                for r in rows_of[c]:
                    if r.trigger == t.name:
                        start = _Step(self.sys(c, t.name), [], [], [], {}, {}, {}, [], [], [], True)
                        steps += [
                            (s, None, None) for s in self.fire(c, r, params, start, rows_of, ())
                        ]
        for ch in self.channels:
            if ch.synchronous:
                continue
            q = var(ch.name)
            for message in ch.messages:
                d = ch.deliver[message]
                assert d is not None
                start = _Step(
                    f"{ch.name}_deliver",
                    [f"{ch.name}_deliver_{_ident(_label(message))}"],
                    [],
                    [ge(length(q), 1), eq(head(q), message)],
                    {},
                    {},
                    {ch.name: tail(q)},
                    [],
                    [],
                    [ch.cite],
                    False,
                )
                for r in rows_of[ch.target]:
                    if r.trigger == d.trigger:
                        for s in self.fire(ch.target, r, dict(d.args), start.copy(), rows_of, ()):
                            steps.append((s, (ch.name, message), None))
            for fault in ch.faults:
                steps.append((self._fault(ch, fault), None, (ch.name, fault)))
        rows: dict[str, Row] = {}
        origins: dict[str, Origin] = {}

        def add(r: Row, origin: Origin) -> None:
            if r.name in rows:
                raise SpecError(f"system {self.name!r}: two system rows named {r.name!r}")
            rows[r.name] = r
            origins[r.name] = origin

        for s, delivers, broken in steps:
            add(self._row(s), Origin(tuple(s.parts), tuple(s.sends), delivers, broken))
            if self.explicit and s.room:
                # A full FIFO refuses the send: the step is the seed's no-op (totality).
                blocked = Row(
                    "__".join(s.names) + "__blocked",
                    s.trigger,
                    None,
                    None,
                    _and([*s.guard, Not(_and(s.room))]),
                    cite="; ".join(dict.fromkeys(c for c in s.cites if c)),
                    ignore=True,
                    doc="the FIFO it sends on is full",
                )
                add(blocked, Origin(()))  # nothing fired
        if self.explicit:
            for ch in self.channels:
                if ch.synchronous:
                    continue
                idle = [(f"{ch.name}_deliver", eq(length(var(ch.name)), 0))]
                idle += [
                    (f"{ch.name}_{_FAULT_TRIGGER[f]}", Not(_and(self._fault(ch, f).guard)))
                    for f in ch.faults
                ]
                for trigger, guard in idle:
                    r = Row(
                        f"{trigger}_nothing", trigger, None, None, guard, cite=ch.cite, ignore=True
                    )
                    add(r, Origin((), fault=None))
        return rows, origins

    def _fault(self, ch: Channel, fault: Fault) -> _Step:
        q = var(ch.name)
        guard, new = {
            "loss": ([ge(length(q), 1)], tail(q)),
            "duplication": ([ge(length(q), 1), le(length(q), ch.capacity - 1)], append(q, head(q))),
            "reordering": ([ge(length(q), 2)], append(tail(q), head(q))),
        }[fault]
        name = f"{ch.name}_{_FAULT_TRIGGER[fault]}"
        return _Step(name, [name], [], guard, {}, {}, {ch.name: new}, [], [], [ch.cite], False)

    def fire(
        self,
        c: str,
        r: Row,
        params: Mapping[str, Expr],
        step: _Step,
        rows_of: Mapping[str, Sequence[Row]],
        chain: tuple[str, ...],
    ) -> list[_Step]:
        """`step` extended by component `c` firing row `r` (its parameters bound to
        `params`), then by whatever its messages fire: one step per receiving row."""
        if c in chain:
            raise SpecError(
                f"system {self.name!r}: synchronous channels form a cycle through {c!r}"
            )
        spec = self.components[c]
        step.names.append(self.sys(c, r.name))
        step.parts.append((c, r.name))
        step.cites.append(r.cite)
        step.ignore = step.ignore and r.ignore
        if r.source is not None and spec.control is not None:
            step.guard.append(In(Ref("pre", self.sys(c, spec.control)), r.source))
        if r.guard != TRUE:
            step.guard.append(self.lift(c, r.guard, params))
        if r.target is not None and spec.control is not None:
            step.updates[self.sys(c, spec.control)] = Const(r.target)
        for v, e in r.updates.items():
            step.updates[self.sys(c, v)] = self.lift(c, e, params)
        outs = {
            o.name: self.lift(c, r.outputs[o.name], params)
            if o.name in r.outputs
            else Const(o.default)
            for o in spec.outputs
        }
        for name in r.outputs:
            step.outputs[self.sys(c, name)] = outs[name]
        if not r.ignore:  # an ignore row is the seed's no-op: no step, and no output
            step.outputs[self.sys(c, STEP)] = Const(r.trigger)
        for cleared in self.channels:
            if (c, r.trigger) in cleared.cleared_by:
                step.fifo[cleared.name] = Const(())
        steps = [step]
        for od in spec.outputs:
            ch = self.sending.get((c, od.name))
            if ch is None:
                continue
            messages = self._messages(ch, r, od.domain, od.default, outs[od.name])
            carried = [m for m in messages if ch.deliver[m] is not None]
            if carried and r.ignore:
                raise SpecError(f"row {r.name!r} of {c!r}: an ignore row sends nothing")
            if ch.synchronous:
                if len(carried) > 1:
                    raise SpecError(
                        f"system {self.name!r}: row {r.name!r} of {c!r} hands {len(carried)} "
                        f"messages to synchronous channel {ch.name!r} at once (give it a capacity)"
                    )
                for m in carried:
                    d = ch.deliver[m]
                    assert d is not None
                    args = {k: self.lift(c, a, params, outs) for k, a in d.args.items()}
                    fanned: list[_Step] = []
                    for s in steps:
                        s.sends.append((ch.name, m))
                        for r2 in rows_of[ch.target]:
                            if r2.trigger == d.trigger:
                                fanned += self.fire(
                                    ch.target, r2, args, s.copy(), rows_of, (*chain, c)
                                )
                    steps = fanned
            elif carried:
                for s in steps:
                    q = s.fifo.get(ch.name, var(ch.name))
                    s.sends += [(ch.name, m) for m in carried]
                    if isinstance(q, Const):
                        # Emptied earlier in this step: its contents are known, and a
                        # constant has no length to guard (a send that cannot fit never fires).
                        held = (*q.value, *carried)
                        if ch.overflow == "block" and len(held) > ch.capacity:
                            s.room.append(Const(False))
                        s.fifo[ch.name] = Const(held[: ch.capacity])
                        continue
                    if ch.overflow == "block":
                        s.room.append(le(length(q), ch.capacity - len(carried)))
                    for m in carried:
                        if ch.overflow == "block":
                            q = append(q, m)
                        else:  # a message that does not fit is lost
                            q = Ite(lt(length(q), ch.capacity), append(q, m), q)
                    s.fifo[ch.name] = q
        return steps

    def _messages(
        self, ch: Channel, r: Row, domain: Domain, default: Value, e: Expr
    ) -> tuple[Value, ...]:
        if isinstance(e, Some) and isinstance(e.arg, Const):
            e = Const(e.arg.value)
        if not isinstance(e, Const):
            raise SpecError(
                f"system {self.name!r}: row {r.name!r} of {ch.source!r} emits a computed value "
                f"on channel {ch.name!r}; a channel's messages are constants"
            )
        v = e.value
        if v is None or (v == default and not isinstance(v, tuple)):
            messages: tuple[Value, ...] = ()
        elif isinstance(v, tuple) and not isinstance(domain, Option):
            messages = v
        else:
            messages = (v,)
        for m in messages:
            if m not in ch.deliver:
                raise SpecError(
                    f"system {self.name!r}: channel {ch.name!r} does not say what message "
                    f"{_label(m)} (sent by row {r.name!r}) does: map it to a trigger or None"
                )
        return messages

    def _row(self, s: _Step) -> Row:
        updates = {**s.updates, **s.fifo}
        guard = _and([*s.guard, *s.room])
        return Row(
            "__".join(s.names),
            s.trigger,
            None,
            None,
            guard,
            MappingProxyType(updates),
            MappingProxyType(s.outputs),
            "; ".join(dict.fromkeys(c for c in s.cites if c)),
            s.ignore and not updates and not s.outputs,
        )

    # ------------------------------------------------------------ variants

    def variant(self, base: Mapping[str, Row], component: str, v: Variant) -> Variant:
        """The system variant in which `component`'s rows change as `v` says."""
        if component not in self.components:
            raise SpecError(f"variant {v.name!r}: unknown component {component!r}")
        own = self.components[component].rows
        for old in (*v.replace, *v.remove):
            if old not in {r.name for r in own}:
                raise SpecError(f"variant {v.name!r}: changes unknown row {old!r} of {component!r}")
        changed = [v.replace.get(r.name, r) for r in own if r.name not in v.remove]
        rows_of = {c: s.rows for c, s in self.components.items()} | {component: (*changed, *v.add)}
        rows, _ = self.rows(rows_of)
        return Variant(
            name=v.name,
            doc=v.doc,
            cite=v.cite,
            violates=v.violates,
            replace=MappingProxyType({n: r for n, r in rows.items() if n in base and base[n] != r}),
            add=tuple(r for n, r in rows.items() if n not in base),
            remove=tuple(n for n in base if n not in rows),
        )


def _and(parts: Sequence[Expr]) -> Expr:
    return parts[0] if len(parts) == 1 else And(tuple(parts)) if parts else TRUE


def _rewrite(e: Expr, f: Callable[[Expr], Expr | None]) -> Expr:
    """`e` with every node `f` maps (to a non-None) replaced, bottom-up elsewhere."""
    hit = f(e)
    if hit is not None:
        return hit
    changes: dict[str, Any] = {}
    for fld in dataclasses.fields(e):  # type: ignore[arg-type]
        value = getattr(e, fld.name)
        if isinstance(value, Expr):
            changes[fld.name] = _rewrite(value, f)
        elif isinstance(value, tuple) and value and all(isinstance(x, Expr) for x in value):
            changes[fld.name] = tuple(_rewrite(x, f) for x in value)
    return dataclasses.replace(e, **changes) if changes else e  # type: ignore[type-var]


def _element(domain: Domain) -> Domain | None:
    """The domain of one message of an output (None: not known, any value is checked
    where it is sent)."""
    if isinstance(domain, Option):
        return domain.inner
    if isinstance(domain, Seq):
        return domain.element
    if isinstance(domain, Finite) and all(isinstance(m, tuple) for m in domain.members):
        return None
    return domain


def _label(value: Value) -> str:
    return value.name if isinstance(value, enum.Enum) else str(value)


def _ident(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)
