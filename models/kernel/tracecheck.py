"""Trace validation: is a recorded log of some implementation a behaviour of the model?

A log is a sequence of steps, each naming a trigger with its arguments and,
optionally, any subset of the outputs and variables the implementation could
see (partial observation); an optional first line fixes part of the initial
state. The checker keeps the set of model states consistent with the log so
far (the model may be nondeterministic, and unobserved variables may hold
several values) and accepts the log when that set never becomes empty.

It steps the spec's rows directly through their compiled expressions
(`expr.compiled`), not through the transitions Machine, so a 100,000-step
duplex log is checked in about a second. On rejection the verdict carries the
step, the line, what was observed, what the model allows there (each enabled
row with the state and outputs it would produce) and the shortest model
trace that reaches the last consistent state.

`check_trace(spec, steps)` is the library entry point (the seed differential
calls it in-process); `parse_jsonl` reads the JSON Lines form, `itf.read_itf`
the ITF form; `TraceInputError` is a malformed input, naming line and field.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from .domains import Value
from .expr import Env
from .expr import compiled
from .expr import evaluate
from .spec import Row
from .spec import Spec
from .trace import Step
from .trace import Trace
from .trace import plural
from .trace import render_trace
from .trace import trace_json
from .values import BadValue
from .values import clip
from .values import decode
from .values import encode
from .values import same
from .values import shown

State = tuple[Value, ...]


class TraceInputError(ValueError):
    """A malformed log: the message names the line and the field."""


@dataclass(frozen=True)
class LogStep:
    """One observed step: what was done, and whatever the implementation saw of the result."""

    trigger: str
    args: Mapping[str, Value]
    outputs: Mapping[str, Value] = field(default_factory=dict)
    state: Mapping[str, Value] = field(default_factory=dict)
    row: str | None = None  # an ITF trace names the row (action) that fired
    line: int = 0  # where it came from (1-based); 0 when built in memory
    place: str = ""  # where it came from when that is no line: `states[3]` of an ITF trace


@dataclass(frozen=True)
class Log:
    """A parsed log: the observed part of the initial state, then the steps."""

    init: Mapping[str, Value]
    steps: tuple[LogStep, ...]
    init_line: int = 0


@dataclass(frozen=True)
class AllowedStep:
    """One thing the model could do at the rejected step, from one consistent state."""

    row: str
    state: Mapping[str, Value]
    outputs: Mapping[str, Value]


@dataclass(frozen=True)
class TraceVerdict:
    """Accepted, or rejected at `step` (0 = the initial state) with what the model allows."""

    spec: Spec
    ok: bool
    steps: int  # steps checked (all of them when accepted)
    consistent: int  # model states consistent with the log at the end (or before the rejection)
    step: int | None = None
    line: int | None = None
    observed: LogStep | None = None
    allowed: tuple[AllowedStep, ...] = ()
    reason: str = ""
    prefix: Trace | None = None  # the shortest model trace to the last consistent state

    def report(self) -> list[str]:
        """Readable lines: the verdict, and on rejection where, why, and what was allowed."""
        spec = self.spec
        if self.ok:
            return [
                f"check-trace {spec.name}: accepted — {plural(self.steps, 'step')}, "
                f"{plural(self.consistent, 'consistent model state')} at the end"
            ]
        place = self.observed.place if self.observed is not None else ""
        where = place or (f"line {self.line}" if self.line else "in memory")
        lines = [f"check-trace {spec.name}: REJECTED at step {self.step} ({where}): {self.reason}"]
        if self.observed is not None:
            lines.append("  observed: " + _describe(spec, self.observed))
        if self.allowed:
            lines.append("  the model allows here:")
            for a in self.allowed:
                state = " ".join(f"{k}={spec.var(k).domain.label(v)}" for k, v in a.state.items())
                outs = " ".join(
                    f"{k}={spec.output(k).domain.label(v)}"
                    for k, v in a.outputs.items()
                    if not same(v, spec.output(k).default)
                )
                lines.append(f"    row {a.row}: → {state}" + (f"   out: {outs}" if outs else ""))
        elif self.step:
            lines.append("  the model allows no step of this trigger here")
        if self.prefix is not None:
            steps = plural(len(self.prefix), "step")
            lines.append(f"  shortest model trace to the last consistent state ({steps}):")
            lines.extend("    " + text for text in render_trace(spec, self.prefix))
        return lines

    def to_json(self) -> dict[str, Any]:
        spec = self.spec
        result: dict[str, Any] = {
            "spec": spec.name,
            "ok": self.ok,
            "steps": self.steps,
            "consistent": self.consistent,
        }
        if not self.ok:
            result.update(
                step=self.step,
                line=self.line,
                reason=self.reason,
                observed=None if self.observed is None else step_json(spec, self.observed),
                allowed=[
                    {
                        "row": a.row,
                        "state": _encode_vars(spec, a.state),
                        "outputs": _encode_outputs(spec, a.outputs),
                    }
                    for a in self.allowed
                ],
            )
            if self.prefix is not None:
                result["prefix"] = trace_json(spec, self.prefix)
        return result


# ---------------------------------------------------------------- reading logs


def parse_jsonl(spec: Spec, lines: Iterable[str]) -> Log:
    """Read a JSON Lines log; a malformed line raises `TraceInputError` naming line and field."""
    return parse_objects(spec, json_lines(lines))


def stream_jsonl(
    spec: Spec, lines: Iterable[str]
) -> tuple[dict[str, Value], int, Iterator[LogStep]]:
    """A JSON Lines log read as it is checked (`check_stream`): the observed initial state,
    its line (0: none), and the steps, each decoded when it is reached."""
    init, init_line, rest = _split_init(spec, json_lines(lines))
    return init, init_line, _steps(spec, rest)


def json_lines(lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number."""
    for number, text in enumerate(lines, start=1):
        if text.strip():
            try:
                yield number, loads(text)
            except TraceInputError as err:
                raise TraceInputError(f"line {number}: {err}") from None


def loads(text: str, *, lines: bool = False) -> Any:
    """`json.loads` for a user's input: malformed JSON, a duplicate key (refused by name,
    where json would keep the last), nesting too deep for the parser and an integer past
    the interpreter's digit limit are each a `TraceInputError`; `lines` names the line."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        at = f"line {err.lineno}: " if lines else ""
        raise TraceInputError(f"not JSON ({at}{err.msg})") from None
    except _DuplicateKey as err:
        raise TraceInputError(f"duplicate key {shown(err.args[0])}") from None
    except RecursionError:
        raise TraceInputError("nested too deeply to read") from None
    except ValueError as err:
        raise TraceInputError(f"not readable JSON ({err})") from None


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _steps(spec: Spec, objects: Iterable[tuple[int, Any]]) -> Iterator[LogStep]:
    for number, obj in objects:
        if not isinstance(obj, dict):
            raise TraceInputError(f"line {number}: a step must be a JSON object")
        yield decode_step(spec, obj, f"line {number}", number)


def parse_objects(spec: Spec, objects: Iterable[tuple[int, Any]]) -> Log:
    """A log from already-decoded JSON objects, each with its line number."""
    init, init_line, rest = _split_init(spec, objects)
    return Log(init, tuple(_steps(spec, rest)), init_line)


def _split_init(
    spec: Spec, objects: Iterable[tuple[int, Any]]
) -> tuple[dict[str, Value], int, Iterator[tuple[int, Any]]]:
    """The `init` line, when it comes first, and the objects after it."""
    rest = iter(objects)
    first = next(rest, None)
    if first is None:
        return {}, 0, rest
    number, obj = first
    if not isinstance(obj, dict) or "init" not in obj:
        return {}, 0, itertools.chain([first], rest)
    extra = set(obj) - {"init"}
    if extra:
        raise TraceInputError(f"line {number}: unknown field {shown(sorted(extra)[0])}")
    return decode_vars(spec, obj["init"], f"line {number}: init"), number, rest


STEP_FIELDS = {"trigger", "args", "outputs", "state", "row"}


JSONL_NAMES = {"args": "args", "outputs": "outputs", "state": "state"}


def decode_step(
    spec: Spec,
    obj: Mapping[str, Any],
    where: str,
    line: int = 0,
    names: Mapping[str, str] = JSONL_NAMES,
) -> LogStep:
    """One step object (`trigger`, `args`, optional `outputs`, `state`, `row`) in model values.

    `names` are the fields as the input spells them, for the messages (ITF's differ);
    a step with no line number has `where` as its place."""
    extra = set(obj) - STEP_FIELDS
    if extra:
        name = sorted(extra)[0]
        hint = " (an init line must come first)" if name == "init" else ""
        raise TraceInputError(f"{where}: unknown field {shown(name)}{hint}")
    trigger = obj.get("trigger")
    if not isinstance(trigger, str):
        raise TraceInputError(f"{where}: field 'trigger' is missing or not a string")
    try:
        declared = spec.trigger(trigger)
    except KeyError:
        known = ", ".join(t.name for t in spec.triggers)
        raise TraceInputError(
            f"{where}: unknown trigger {shown(trigger)} (known: {known})"
        ) from None
    raw_args = obj.get("args", {})
    a = names["args"]
    if not isinstance(raw_args, dict):
        raise TraceInputError(f"{where}: field {a!r} must be an object")
    args: dict[str, Value] = {}
    for p in declared.params:
        if p.name not in raw_args:
            raise TraceInputError(f"{where}: {a}: missing argument {p.name!r} of {trigger!r}")
        try:
            args[p.name] = decode(p.domain, raw_args[p.name])
        except BadValue as err:
            raise TraceInputError(f"{where}: {a}.{p.name}: {err}") from None
    unknown = set(raw_args) - {p.name for p in declared.params}
    if unknown:
        raise TraceInputError(
            f"{where}: {a}: {trigger!r} takes no argument {shown(sorted(unknown)[0])}"
        )
    outputs = _decode_named(
        spec, obj.get("outputs", {}), f"{where}: {names['outputs']}", output=True
    )
    state_at = f"{where}: {names['state']}" if names["state"] else where
    state = decode_vars(spec, obj.get("state", {}), state_at)
    row = obj.get("row")
    if row is not None and (
        not isinstance(row, str) or row not in {r.name for r in spec.rows_of(trigger)}
    ):
        raise TraceInputError(f"{where}: row {shown(row)} is no row of trigger {trigger!r}")
    return LogStep(trigger, args, outputs, state, row, line, "" if line else where)


def decode_vars(spec: Spec, raw: Any, where: str) -> dict[str, Value]:
    return _decode_named(spec, raw, where, output=False)


def _decode_named(spec: Spec, raw: Any, where: str, *, output: bool) -> dict[str, Value]:
    if not isinstance(raw, dict):
        raise TraceInputError(f"{where}: must be an object")
    kind = "output" if output else "variable"
    values: dict[str, Value] = {}
    for name, value in raw.items():
        try:
            domain = spec.output(name).domain if output else spec.var(name).domain
        except KeyError:
            raise TraceInputError(f"{where}: unknown {kind} {shown(name)}") from None
        try:
            values[name] = decode(domain, value)
        except BadValue as err:
            raise TraceInputError(f"{where}.{clip(name)}: {err}") from None
    return values


def step_json(spec: Spec, step: LogStep) -> dict[str, Any]:
    """The JSON Lines form of a step (what `parse_jsonl` reads back)."""
    params = {p.name: p.domain for p in spec.trigger(step.trigger).params}
    result: dict[str, Any] = {
        "trigger": step.trigger,
        "args": {k: encode(params[k], v) for k, v in step.args.items()},
    }
    if step.outputs:
        result["outputs"] = _encode_outputs(spec, step.outputs)
    if step.state:
        result["state"] = _encode_vars(spec, step.state)
    if step.row is not None:
        result["row"] = step.row
    return result


def _encode_vars(spec: Spec, values: Mapping[str, Value]) -> dict[str, Any]:
    return {k: encode(spec.var(k).domain, v) for k, v in values.items()}


def _encode_outputs(spec: Spec, values: Mapping[str, Value]) -> dict[str, Any]:
    return {k: encode(spec.output(k).domain, v) for k, v in values.items()}


def _describe(spec: Spec, step: LogStep) -> str:
    return json.dumps(step_json(spec, step))


# ---------------------------------------------------------------- stepping


@dataclass(frozen=True)
class _CompiledRow:
    row: Row
    sources: frozenset[Value] | None
    guard: Callable[[Env], Value]
    updates: tuple[tuple[int, Callable[[Env], Value]], ...]
    outputs: tuple[tuple[str, Callable[[Env], Value]], ...]
    target: int | None  # position of the control variable, when the row moves it


class Stepper:
    """The spec's rows as compiled closures over state tuples: fast, and nondeterminism-aware."""

    def __init__(self, spec: Spec) -> None:
        self.names = [v.name for v in spec.vars]
        position = {n: i for i, n in enumerate(self.names)}
        self.control = position.get(spec.control) if spec.control else None
        self.defaults = {o.name: o.default for o in spec.outputs}
        self.rows: dict[str, tuple[_CompiledRow, ...]] = {}
        for t in spec.triggers:
            self.rows[t.name] = tuple(
                _CompiledRow(
                    r,
                    None if r.source is None or self.control is None else frozenset(r.source),
                    compiled(spec.row_guard(r)),  # undefined steps never fire
                    tuple((position[k], compiled(e)) for k, e in r.updates.items()),
                    tuple((k, compiled(e)) for k, e in r.outputs.items()),
                    self.control if r.target is not None else None,
                )
                for r in spec.rows_of(t.name)
            )
        self._dicts: dict[State, dict[str, Value]] = {}

    def as_dict(self, state: State) -> dict[str, Value]:
        hit = self._dicts.get(state)
        if hit is None:
            if len(self._dicts) > 100_000:  # a real variable can make states without bound
                self._dicts.clear()
            hit = self._dicts[state] = dict(zip(self.names, state, strict=True))
        return hit

    def successors(
        self, state: State, trigger: str, args: Mapping[str, Value]
    ) -> Iterable[tuple[Row, State, dict[str, Value]]]:
        """Every row of `trigger` enabled in `state`, with the state and outputs it produces."""
        env = Env(pre=self.as_dict(state), params=args)
        for c in self.rows[trigger]:
            if c.sources is not None and state[self.control] not in c.sources:  # type: ignore[index]
                continue
            if not c.guard(env):
                continue
            after = list(state)
            for i, fn in c.updates:
                after[i] = fn(env)
            if c.target is not None:
                after[c.target] = c.row.target
            outputs = dict(self.defaults)
            for name, fn in c.outputs:
                outputs[name] = fn(env)
            yield c.row, tuple(after), outputs


_STEPPERS: dict[int, tuple[Spec, Stepper]] = {}


def stepper_for(spec: Spec) -> Stepper:
    """One `Stepper` per spec object: the seed differential checks thousands of logs."""
    hit = _STEPPERS.get(id(spec))
    if hit is None or hit[0] is not spec:
        hit = _STEPPERS[id(spec)] = (spec, Stepper(spec))
    return hit[1]


def initial_states(spec: Spec, fixed: Mapping[str, Value]) -> list[State]:
    choices = [
        (fixed[v.name],) if v.name in fixed else v.inits for v in spec.vars
    ]  # an observed initial value outside `inits` is checked below
    states = [tuple(c) for c in itertools.product(*choices)]
    inits = [v.inits for v in spec.vars]
    names = [v.name for v in spec.vars]
    return [
        s
        for s in states
        if all(any(same(x, i) for i in ok) for x, ok in zip(s, inits, strict=True))
        and (spec.init is None or evaluate(spec.init, Env(pre=dict(zip(names, s, strict=True)))))
    ]


def _matches(observed: Mapping[str, Value], actual: Mapping[str, Value]) -> bool:
    return all(same(v, actual[k]) for k, v in observed.items())


def check_trace(
    spec: Spec, steps: Log | Sequence[LogStep], *, explain: bool = True
) -> TraceVerdict:
    """Is this log a behaviour of `spec`? A `Log`, or bare steps from the initial states."""
    log = steps if isinstance(steps, Log) else Log({}, tuple(steps))
    return check_stream(spec, log.init, log.steps, init_line=log.init_line, explain=explain)


USED = 16  # argument values remembered per trigger parameter, for the shortest-trace search


def check_stream(
    spec: Spec,
    init: Mapping[str, Value],
    steps: Iterable[LogStep],
    *,
    init_line: int = 0,
    explain: bool = True,
) -> TraceVerdict:
    """`check_trace` over steps read one at a time: memory does not grow with the log's
    length (a 50 MB log is never held whole). A rejection stops reading the steps."""
    stepper = stepper_for(spec)
    names = stepper.names
    current = set(initial_states(spec, init))
    if not current:
        return TraceVerdict(
            spec,
            False,
            0,
            0,
            step=0,
            line=init_line or None,
            reason="no initial state of the model has the observed initial values "
            + json.dumps(_encode_vars(spec, init)),
        )
    successors = stepper.successors
    position = {n: i for i, n in enumerate(names)}
    # The latest distinct argument values, so that the shortest trace can reuse a real the log set.
    used: dict[tuple[str, str], deque[Value]] = {}
    number = 0
    for number, step in enumerate(steps, start=1):
        observed_state = [(position[k], v) for k, v in step.state.items()]
        observed_outputs = step.outputs
        nxt: set[State] = set()
        for state in current:
            for r, after, outputs in successors(state, step.trigger, step.args):
                if step.row is not None and r.name != step.row:
                    continue
                if observed_outputs and not _matches(observed_outputs, outputs):
                    continue
                if observed_state and not all(same(v, after[i]) for i, v in observed_state):
                    continue
                nxt.add(after)
        if not nxt:
            prefix = _shortest_to(spec, stepper, init, used, current) if explain else None
            return _rejected(spec, stepper, step, number, current, prefix)
        current = nxt
        for name, value in step.args.items():
            recent = used.setdefault((step.trigger, name), deque(maxlen=USED))
            if not any(same(value, v) for v in recent):
                recent.append(value)
    return TraceVerdict(spec, True, number, len(current))


def _rejected(
    spec: Spec,
    stepper: Stepper,
    step: LogStep,
    number: int,
    current: set[State],
    prefix: Trace | None,
) -> TraceVerdict:
    allowed: list[AllowedStep] = []
    for state in sorted(current, key=repr)[:8]:
        for r, after, outputs in stepper.successors(state, step.trigger, step.args):
            allowed.append(AllowedStep(r.name, stepper.as_dict(after), outputs))
    fired = [a for a in allowed if step.row is None or a.row == step.row]
    if not allowed:
        reason = f"no row of {step.trigger!r} is enabled in any consistent state"
    elif not fired:
        reason = f"row {step.row!r} is not enabled here"
    else:
        fields = [("outputs", k, v) for k, v in step.outputs.items()]
        fields += [("state", k, v) for k, v in step.state.items()]
        unmatched = [
            f"{part}.{k}"
            for part, k, v in fields
            if not any(same(v, (a.outputs if part == "outputs" else a.state)[k]) for a in fired)
        ]
        reason = (
            f"no step the model allows here has the observed {', '.join(unmatched)}"
            if unmatched
            else "no step the model allows here has all the observed values together"
        )
    return TraceVerdict(
        spec,
        False,
        number - 1,
        len(current),
        step=number,
        line=step.line or None,
        observed=step,
        allowed=tuple(allowed),
        reason=reason,
        prefix=prefix,
    )


def _shortest_to(
    spec: Spec,
    stepper: Stepper,
    init: Mapping[str, Value],
    used: Mapping[tuple[str, str], Iterable[Value]],
    goal: set[State],
    budget: int = 50_000,
) -> Trace | None:
    """BFS from the log's initial states to any goal state, with the arguments the explorer
    samples plus the latest the log used (so a real the log set can be reached)."""
    firings: list[tuple[str, dict[str, Value]]] = []
    # Of the values the log used, only those a goal state holds can matter to reaching it.
    held = [v for state in goal for v in state]
    for t in spec.triggers:
        pools = []
        for p in t.params:
            seen = [v for v in used.get((t.name, p.name), ()) if any(same(v, h) for h in held)]
            pool: list[Value] = []
            for v in (*p.domain.sample(), *seen):
                if not any(same(v, x) for x in pool):
                    pool.append(v)
            pools.append(pool)
        for combo in itertools.product(*pools):
            firings.append((t.name, dict(zip((p.name for p in t.params), combo, strict=True))))
    start = initial_states(spec, init)
    parent: dict[State, tuple[State, Row, dict[str, Value], dict[str, Value]] | None] = {
        s: None for s in start
    }
    queue = deque(start)
    found = next((s for s in start if s in goal), None)
    while queue and found is None and len(parent) < budget:
        state = queue.popleft()
        for trigger, args in firings:
            for r, after, outputs in stepper.successors(state, trigger, args):
                if after in parent:
                    continue
                parent[after] = (state, r, args, outputs)
                if after in goal:
                    found = after
                    break
                queue.append(after)
            if found is not None:
                break
    if found is None:
        return None
    chain: list[Step] = []
    at = found
    while (link := parent[at]) is not None:
        before, r, args, outputs = link
        chain.append(Step(r.name, r.trigger, args, stepper.as_dict(at), outputs))
        at = before
    chain.reverse()
    return Trace(stepper.as_dict(at), tuple(chain))


def trace_to_log(spec: Spec, trace: Trace) -> Log:
    """A model trace as a fully observed log (every variable and output, and the row)."""
    return Log(
        dict(trace.init),
        tuple(
            LogStep(s.trigger, dict(s.params), dict(s.outputs), dict(s.state), s.row)
            for s in trace.steps
        ),
    )
