"""ITF, the Informal Trace Format of Apalache and Quint (ADR-015), both ways.

Written: `{"#meta": {...}, "vars": [...], "states": [...]}`; state i carries
`#meta.index` = i and every spec variable. States after the first also carry
the MBT fields Quint uses, `mbt::actionTaken` (the row that fired: a row is
the model's action) and `mbt::nondetPicks` (the trigger's arguments), plus
`statecheck::trigger` and `statecheck::outputs`, so a checker that knows the
spec can replay the step exactly.

Values: enum members are their label strings, lists and sequences JSON arrays,
sets `{"#set": [...]}`, functions `{"#map": [[key, value], ...]}`, integers
beyond 2^53 `{"#bigint": "..."}`, an option Quint's variant
`{"tag": "Some", "value": v}` / `{"tag": "None", "value": {"#tup": []}}`.
ITF has no reals; a real is written as a JSON number (or "nan"/"inf"),
which Quint would not read back: the one departure, and only the duplex ERL
is a real. Reading accepts `null` for an absent option too, and `#tup`/`#set`
as lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .domains import Domain
from .domains import Func
from .domains import IntRange
from .domains import Option
from .domains import Seq
from .domains import Set
from .domains import Value
from .files import write_atomic
from .spec import Spec
from .trace import Trace
from .tracecheck import Log
from .tracecheck import LogStep
from .tracecheck import TraceInputError
from .tracecheck import decode_step
from .tracecheck import decode_vars
from .tracecheck import loads
from .values import BadValue
from .values import decode
from .values import encode
from .values import shown

ADR = "https://apalache-mc.org/docs/adr/015adr-trace.html"
BIG = 2**53
NONE_VARIANT = {"tag": "None", "value": {"#tup": []}}


def to_itf(
    spec: Spec, trace: Trace, *, description: str = "", loop: int | None = None
) -> dict[str, Any]:
    """A model trace (a witness or a counterexample) as an ITF object; a lasso (a liveness
    counterexample) carries `loop`, the index of the state its last state repeats (Apalache's
    convention: states[-1] equals states[loop]; loop = the last index: it stutters there)."""
    states: list[dict[str, Any]] = []
    init: dict[str, Any] = {"#meta": {"index": 0}}
    init.update({k: _out(spec.var(k).domain, v) for k, v in trace.init.items()})
    states.append(init)
    for i, step in enumerate(trace.steps, start=1):
        params = {p.name: p.domain for p in spec.trigger(step.trigger).params}
        entry: dict[str, Any] = {"#meta": {"index": i}}
        entry.update({k: _out(spec.var(k).domain, v) for k, v in step.state.items()})
        entry["mbt::actionTaken"] = step.row
        entry["mbt::nondetPicks"] = {k: _out(params[k], v) for k, v in step.params.items()}
        entry["statecheck::trigger"] = step.trigger
        entry["statecheck::outputs"] = {
            k: _out(spec.output(k).domain, v) for k, v in step.outputs.items()
        }
        states.append(entry)
    obj: dict[str, Any] = {
        "#meta": {
            "format": "ITF",
            "format-description": ADR,
            "source": spec.source,
            "spec": spec.name,
            "description": description,
            "generator": "statecheck",
        },
        "vars": [v.name for v in spec.vars],
        "states": states,
    }
    if loop is not None:
        obj["loop"] = loop
    return obj


def itf_text(spec: Spec, trace: Trace, *, description: str = "", loop: int | None = None) -> str:
    return json.dumps(to_itf(spec, trace, description=description, loop=loop), indent=1) + "\n"


def write_itf(
    spec: Spec, trace: Trace, path: Path, *, description: str = "", loop: int | None = None
) -> Path:
    text = itf_text(spec, trace, description=description, loop=loop)
    write_atomic(path, text)  # nothing half-written
    return path


def _out(domain: Domain, value: Value) -> Any:
    if isinstance(domain, Option):
        if value is None:
            return NONE_VARIANT
        return {"tag": "Some", "value": _out(domain.inner, value)}
    if isinstance(domain, IntRange) and abs(int(value)) >= BIG:
        return {"#bigint": str(int(value))}
    if isinstance(domain, Seq):
        return [_out(domain.element, x) for x in value]
    if isinstance(domain, Set):
        return {"#set": [_out(domain.element, x) for x in domain.ordered(value)]}
    if isinstance(domain, Func):
        return {"#map": [[_out(domain.index, k), _out(domain.value, x)] for k, x in value.items()]}
    return encode(domain, value)


def _in(domain: Domain, raw: Any, where: str) -> Any:
    """ITF JSON to the plain JSON `values.decode` reads; a malformed ITF value is refused."""
    if isinstance(domain, Seq | Set):
        items = raw.get("#set", raw.get("#tup")) if isinstance(raw, dict) else raw
        if isinstance(items, list):
            return [_in(domain.element, x, where) for x in items]
        return raw  # values.decode names what is wrong
    if isinstance(domain, Func) and isinstance(raw, dict) and isinstance(raw.get("#map"), list):
        plain: dict[str, Any] = {}
        for pair in raw["#map"]:
            try:
                key = decode(domain.index, _in(domain.index, pair[0], where))
            except (BadValue, TypeError, IndexError, KeyError):
                return raw  # values.decode names what is wrong, with the state and field
            plain[domain.index.label(key)] = _in(domain.value, pair[1], where)
        return plain
    if isinstance(raw, dict):
        if "#bigint" in raw:
            digits = raw["#bigint"]
            if not isinstance(digits, str) or not BIGINT.fullmatch(digits):
                raise TraceInputError(
                    f"{where}: #bigint must be a string of digits, got {shown(digits)}"
                )
            try:
                return int(digits)
            except ValueError:  # past the interpreter's digit limit
                raise TraceInputError(f"{where}: #bigint has too many digits") from None
        for tag in ("#tup", "#set"):
            if tag in raw:
                items = raw[tag]
                if not isinstance(items, list):
                    raise TraceInputError(f"{where}: {tag} must be a list, got {shown(items)}")
                return [_in(domain, x, where) for x in items]
        if raw.get("tag") == "None":
            return None
        if raw.get("tag") == "Some" and isinstance(domain, Option):
            return _in(domain.inner, raw.get("value"), where)
    return raw


BIGINT = re.compile(r"-?[0-9]+")


def read_itf(spec: Spec, text: str) -> Log:
    """An ITF trace as a fully observed log (exit-2 errors name the state index and field)."""
    obj = loads(text, lines=True)
    if not isinstance(obj, dict) or not isinstance(obj.get("states"), list):
        raise TraceInputError("not an ITF trace (no 'states' list)")
    states = obj["states"]
    if not states:
        raise TraceInputError("ITF 'states' is empty")
    init = _vars(spec, states[0], "states[0]")
    steps: list[LogStep] = []
    for i, entry in enumerate(states[1:], start=1):
        where = f"states[{i}]"
        if not isinstance(entry, dict):
            raise TraceInputError(f"{where}: not an object")
        action = entry.get("mbt::actionTaken")
        trigger = entry.get("statecheck::trigger")
        row: str | None = None
        if isinstance(action, str) and any(r.name == action for r in spec.rows):
            row = action
            trigger = trigger or spec.row(action).trigger
        elif trigger is None:
            trigger = action  # a foreign trace may name the trigger itself
        if not isinstance(trigger, str):
            raise TraceInputError(f"{where}: field 'mbt::actionTaken' is missing")
        try:
            params = {p.name: p.domain for p in spec.trigger(trigger).params}
        except KeyError:
            params = {}
        picks = entry.get("mbt::nondetPicks", {})
        if not isinstance(picks, dict):
            raise TraceInputError(f"{where}: field 'mbt::nondetPicks' must be an object")
        raw_outputs = entry.get("statecheck::outputs", {})
        if not isinstance(raw_outputs, dict):
            raise TraceInputError(f"{where}: field 'statecheck::outputs' must be an object")
        outputs: dict[str, Any] = {}
        for k, v in raw_outputs.items():
            try:
                outputs[k] = _in(spec.output(k).domain, v, f"{where}.statecheck::outputs.{k}")
            except KeyError:
                outputs[k] = v  # decode_step names the unknown output
        step_obj: dict[str, Any] = {
            "trigger": trigger,
            "args": {
                k: _in(params[k], v, f"{where}.mbt::nondetPicks.{k}") if k in params else v
                for k, v in picks.items()
            },
            "outputs": outputs,
            "state": _raw_vars(spec, entry, where),
        }
        if row is not None:
            step_obj["row"] = row
        steps.append(decode_step(spec, step_obj, where, 0, ITF_NAMES))
    if "loop" in obj:
        _closes(spec, obj["loop"], states)
    return Log(init, tuple(steps))


def _closes(spec: Spec, loop: Any, states: list[Any]) -> None:
    """A lasso's `loop` must name a state its last state repeats: replaying the states then
    checks the whole lasso, since the loop's steps are among them."""
    last = len(states) - 1
    if isinstance(loop, bool) or not isinstance(loop, int) or not 0 <= loop <= last:
        raise TraceInputError(f"'loop' must be a state index 0..{last}, got {shown(loop)}")
    if _vars(spec, states[loop], f"states[{loop}]") != _vars(spec, states[last], f"states[{last}]"):
        raise TraceInputError(
            f"'loop' is {loop} but states[{last}] is not states[{loop}] again: not a lasso"
        )


ITF_NAMES = {"args": "mbt::nondetPicks", "outputs": "statecheck::outputs", "state": ""}


def _raw_vars(spec: Spec, entry: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A state's variables in plain JSON; an unknown one is passed on for `decode_vars` to name."""
    names = {v.name for v in spec.vars}
    return {
        k: _in(spec.var(k).domain, v, f"{where}.{k}") if k in names else v
        for k, v in entry.items()
        if not k.startswith(("#", "mbt::", "statecheck::"))
    }


def _vars(spec: Spec, entry: Any, where: str) -> dict[str, Value]:
    if not isinstance(entry, dict):
        raise TraceInputError(f"{where}: not an object")
    return decode_vars(spec, _raw_vars(spec, entry, where), where)


def looks_like_itf(path: Path, head: str) -> bool:
    return path.name.endswith(".itf.json") or head.lstrip().startswith('{"#meta"')
