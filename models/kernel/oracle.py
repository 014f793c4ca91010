"""The executable form of a spec: a `transitions` Machine built from its rows.

The machine's states are the values of the spec's control variable; every row
becomes one transition (ignore rows become internal transitions), its guard a
condition and its updates a callback. It is the conformance oracle, and the
explicit-state explorer steps it to find the reachable set.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from transitions import EventData
from transitions import Machine
from transitions import MachineError

from .domains import Value
from .expr import Env
from .expr import evaluate
from .spec import Row
from .spec import Spec
from .trace import Step

_SINGLE_STATE = "run"


class OracleError(RuntimeError):
    """The oracle was asked something the spec does not define."""


class NotTotal(OracleError):
    """No row (not even an ignore row) of a trigger is enabled in the current state."""


class NotEnabled(NotTotal):
    """An `enabled-only` spec: no row of the trigger is enabled, so it cannot fire here."""


# The model attribute transitions keeps the state in: not an identifier, so no trigger (whose
# name is one) can be named like it; transitions refuses a trigger named as that attribute.
STATE = "machine state"


class _Model:
    """The object the machine drives: the machine's state (`STATE`), and the spec's values."""

    trigger: Any  # attached by transitions at runtime

    def __init__(self) -> None:
        self.values: dict[str, Value] = {}
        self.fired: Row | None = None
        self.emitted: dict[str, Value] = {}


def _arguments(event: EventData) -> Mapping[str, Value]:
    """The trigger's arguments: `fire` passes them as the one positional argument."""
    (arguments,) = tuple(event.args)
    return arguments  # type: ignore[no-any-return]


class Oracle:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        control = spec.control_domain
        self._labels: dict[Value, str] = (
            {v: control.label(v) for v in control.values or ()} if control else {}
        )
        self._values = {label: value for value, label in self._labels.items()}
        self._model = _Model()
        self._machine = Machine(
            model=self._model,
            states=list(self._labels.values()) or [_SINGLE_STATE],
            initial=self._initial_label(),
            auto_transitions=False,
            send_event=True,
            model_attribute=STATE,
        )
        for r in spec.rows:
            self._machine.add_transition(
                trigger=r.trigger,
                source=[self._labels[s] for s in r.source] if r.source is not None else "*",
                dest=self._labels[r.target] if r.target is not None else None,
                conditions=[self._guard(r)],
                before=[self._effect(r)],
            )
        self.reset()

    def _initial_label(self) -> str:
        if self.spec.control is None:
            return _SINGLE_STATE
        return self._labels[self.spec.initial_states()[0][self.spec.control]]

    def _guard(self, r: Row) -> Any:
        # The arguments travel as one positional dict, never as keywords: a parameter may be
        # named `self`, `model` or `trigger_name`, which transitions' own signatures take.
        def guard(event: EventData) -> bool:
            return bool(evaluate(guard_expr, Env(pre=self.state, params=_arguments(event))))

        guard_expr = self.spec.row_guard(r)

        guard.__name__ = f"guard_{r.name}"
        return guard

    def _effect(self, r: Row) -> Any:
        def effect(event: EventData) -> None:
            env = Env(pre=self.state, params=_arguments(event))
            updates = {name: evaluate(expr, env) for name, expr in r.updates.items()}
            emitted = {o.name: o.default for o in self.spec.outputs}
            emitted.update({name: evaluate(expr, env) for name, expr in r.outputs.items()})
            for name, value in updates.items():
                domain = self.spec.var(name).domain
                if not domain.contains(value):
                    raise OracleError(
                        f"row {r.name!r} sets {name!r} to {value!r}, outside {domain.describe()}"
                    )
            self._model.values.update(updates)
            self._model.fired = r
            self._model.emitted = emitted

        effect.__name__ = f"effect_{r.name}"
        return effect

    # ------------------------------------------------------------ state

    @property
    def state(self) -> dict[str, Value]:
        values = dict(self._model.values)
        if self.spec.control is not None:
            values[self.spec.control] = self._values[getattr(self._model, STATE)]
        return values

    def load(self, state: Mapping[str, Value]) -> None:
        """Put the machine in `state` (every variable must be given)."""
        missing = {v.name for v in self.spec.vars} - set(state)
        if missing:
            raise OracleError(f"state lacks {sorted(missing)}")
        self._model.values = {k: v for k, v in state.items() if k != self.spec.control}
        if self.spec.control is not None:
            self._machine.set_state(self._labels[state[self.spec.control]], model=self._model)

    def reset(self, choice: Mapping[str, Value] | None = None) -> None:
        """Back to the initial state (the first initial state unless chosen)."""
        init = self.spec.initial_states()[0]
        init.update(choice or {})
        self.load(init)

    # ------------------------------------------------------------ stepping

    def fire(self, trigger: str, /, **params: Value) -> Step:
        """Fire `trigger` with its arguments; `trigger` is positional-only, so any
        identifier (`self` and `trigger` included) can name a parameter."""
        try:
            declared = self.spec.trigger(trigger)
        except KeyError:
            raise OracleError(f"spec {self.spec.name!r} has no trigger {trigger!r}") from None
        if set(params) != {p.name for p in declared.params}:
            raise OracleError(
                f"trigger {trigger!r} takes {[p.name for p in declared.params]}, "
                f"got {sorted(params)}"
            )
        for p in declared.params:
            if not p.domain.contains(params[p.name]):
                raise OracleError(
                    f"trigger {trigger!r}: {p.name}={params[p.name]!r} "
                    f"is not in {p.domain.describe()}"
                )
        self._model.fired = None
        try:
            self._model.trigger(trigger, dict(params))
        except MachineError:
            self._model.fired = None
        fired = self._model.fired
        if fired is None and self.spec.totality == "enabled-only":
            raise NotEnabled(f"no row of {trigger!r} is enabled in {self.state}")
        if fired is None:
            raise NotTotal(
                f"no row of {trigger!r} is enabled in {self.state} — the spec is not total here"
            )
        return Step(
            fired.name,
            trigger,
            MappingProxyType(dict(params)),
            MappingProxyType(self.state),
            MappingProxyType(dict(self._model.emitted)),
        )
