"""Traces: what a witness or a counterexample is, and how it reads.

A trace is an initial state plus numbered steps. Each step names its row and
trigger, the trigger's arguments, the whole state after it and the outputs.
Printing shows step 0 in full and, after that, only what changed (`old→new`).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .domains import Domain
from .domains import Option
from .domains import Real
from .domains import Value
from .spec import Spec
from .values import encode
from .values import same


@dataclass(frozen=True)
class Step:
    """What one step did: the row that fired, the trigger and its arguments, the state
    after it and the outputs (a trace's step, and what `Oracle.fire` returns)."""

    row: str
    trigger: str
    params: Mapping[str, Value]
    state: Mapping[str, Value]
    outputs: Mapping[str, Value]


@dataclass(frozen=True)
class Trace:
    init: Mapping[str, Value]
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.steps)

    def states(self) -> list[Mapping[str, Value]]:
        return [self.init, *(s.state for s in self.steps)]


def _label(spec: Spec, name: str, value: Value, *, output: bool = False) -> str:
    domain = spec.output(name).domain if output else spec.var(name).domain
    return domain.label(value)


def _param_label(spec: Spec, trigger: str, name: str, value: Value) -> str:
    return {p.name: p.domain for p in spec.trigger(trigger).params}[name].label(value)


def render_trace(spec: Spec, trace: Trace, *, sources: bool = False) -> list[str]:
    """Numbered steps with per-step state diffs and outputs, ready to print."""
    width = max([len("init"), *(len(s.row) for s in trace.steps)])
    lines = [
        f" 0  {'init'.ljust(width)}  "
        + " ".join(f"{k}={_label(spec, k, v)}" for k, v in trace.init.items())
    ]
    before = trace.init
    for i, step in enumerate(trace.steps, start=1):
        changes = [
            f"{k} {_label(spec, k, before[k])}→{_label(spec, k, v)}"
            for k, v in step.state.items()
            if not same(before[k], v)  # a NaN kept is no change
        ]
        outputs = [
            f"{k}={_label(spec, k, v, output=True)}"
            for k, v in step.outputs.items()
            if v != spec.output(k).default
        ]
        args = ", ".join(
            f"{k}={_param_label(spec, step.trigger, k, v)}" for k, v in step.params.items()
        )
        call = f"{step.trigger}({args})"
        text = f"{i:2d}  {step.row.ljust(width)}  {call}"
        text += "  " + ("  ".join(changes) if changes else "(no change)")
        if outputs:
            text += "   out: " + " ".join(outputs)
        if sources:
            text += f"   [{spec.row(step.row).cite}]"
        lines.append(text)
        before = step.state
    return lines


def trace_json(spec: Spec, trace: Trace) -> list[dict[str, Any]]:
    """The report's trace shape: one entry per state; entry 0 is the initial state.
    Values as `values.encode` writes them (check-trace logs and ITF spell them so too)."""

    def state(values: Mapping[str, Value]) -> dict[str, Any]:
        return {k: encode(spec.var(k).domain, v) for k, v in values.items()}

    entries: list[dict[str, Any]] = [
        {"action": "init", "args": {}, "state": state(trace.init), "outputs": {}}
    ]
    for step in trace.steps:
        params = {p.name: p.domain for p in spec.trigger(step.trigger).params}
        entries.append(
            {
                "action": step.row,
                "args": {k: encode(params[k], v) for k, v in step.params.items()},
                "state": state(step.state),
                "outputs": {k: encode(spec.output(k).domain, v) for k, v in step.outputs.items()},
            }
        )
    return entries


# ---------------------------------------------------------------- wording


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`1 step`, `2 steps`; `many` for irregular plurals (`property`, `properties`)."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"


def state_count(spec: Spec, states: Sequence[Sequence[Value]]) -> str:
    """The reachable-state count with its meaning.

    A real variable is explored on its `samples`, which multiplies states that
    differ only in a sampled number: the first figure counts the states apart
    from those samples, the bracket the explored (sampled) states.
    """
    sampled = [i for i, v in enumerate(spec.vars) if _is_sampled(v.domain)]
    total = plural(len(states), "reachable state")
    if not sampled:
        return total
    # Forget the sampled number, keep whether an optional one is set.
    distinct = len(
        {tuple((v is None) if i in sampled else v for i, v in enumerate(s)) for s in states}
    )
    names = ", ".join(spec.vars[i].name for i in sampled)
    return f"{plural(distinct, 'reachable state')} ({len(states)} with the samples of {names})"


def _is_sampled(domain: Domain) -> bool:
    inner = domain.inner if isinstance(domain, Option) else domain
    return isinstance(inner, Real)
