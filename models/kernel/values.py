"""Spec values to JSON and back, as the `--json` report, check-trace logs and ITF spell them.

An enum member is its label (`"IDLE"`), an option's absence `null`, a number
a number, a list of commands a JSON list of labels (the report's label string
`"[MUTE,CANCEL]"` is read too), a boolean a boolean. A real that is not finite
is the string `"nan"`, `"inf"` or `"-inf"` (JSON has no such numbers).

`decode` raises `BadValue` naming what was expected; callers add the line and
the field.
"""

from __future__ import annotations

import math
from typing import Any

from .domains import Bool
from .domains import Domain
from .domains import Finite
from .domains import Func
from .domains import FuncValue
from .domains import IntRange
from .domains import Option
from .domains import Real
from .domains import Seq
from .domains import Set
from .domains import Value


class BadValue(ValueError):
    """A JSON value that is no member of the domain; the message says what the domain holds."""


ECHO = 80  # characters of a user's input that a message repeats


def clip(text: str, width: int = ECHO) -> str:
    """`text` cut to `width` characters, so that echoed input keeps a message readable."""
    return text if len(text) <= width else text[: width - 1] + "…"


def shown(raw: Any) -> str:
    """`repr(raw)`, clipped: a 20 MB string in a log is not echoed whole."""
    try:
        return clip(repr(raw))
    except ValueError:  # an int past the interpreter's digit limit
        return "a number of over 4300 digits"


def encode(domain: Domain, value: Value) -> Any:
    """The JSON form of `value` (a member of `domain`)."""
    if value is None:
        return None
    if isinstance(domain, Option):
        return encode(domain.inner, value)
    if isinstance(domain, Seq):
        return [encode(domain.element, x) for x in value]
    if isinstance(domain, Set):
        return [encode(domain.element, x) for x in domain.ordered(value)]
    if isinstance(domain, Func):
        return {domain.index.label(k): encode(domain.value, x) for k, x in value.items()}
    if isinstance(domain, Bool):
        return bool(value)
    if isinstance(domain, IntRange):
        return int(value)
    if isinstance(domain, Real):
        number = float(value) if not isinstance(value, int) else value
        return number if math.isfinite(number) else domain.label(number)
    if isinstance(value, tuple) and isinstance(domain, Finite) and _is_sequence_domain(domain):
        return [_element_label(x) for x in value]
    return domain.label(value)


def decode(domain: Domain, raw: Any) -> Value:
    """The member of `domain` that the JSON value `raw` spells, or `BadValue`."""
    if isinstance(domain, Option):
        return None if raw is None else decode(domain.inner, raw)
    if isinstance(domain, Seq | Set | Func):
        return _decode_data(domain, raw)
    if isinstance(domain, Bool):
        if isinstance(raw, bool):
            return raw
        raise BadValue(f"{shown(raw)} is not a boolean (true or false)")
    if isinstance(domain, IntRange):
        if isinstance(raw, int) and not isinstance(raw, bool) and domain.contains(raw):
            return raw
        raise BadValue(f"{shown(raw)} is not an integer in {domain.lo}..{domain.hi}")
    if isinstance(domain, Real):
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            try:
                float(raw)
            except OverflowError:
                raise BadValue(f"{shown(raw)} is beyond a double's range") from None
            return raw
        if isinstance(raw, str) and raw in ("nan", "inf", "-inf"):
            return float(raw)
        raise BadValue(f"{shown(raw)} is not a number")
    assert isinstance(domain, Finite)
    table = _labels(domain)
    key: Any = tuple(raw) if isinstance(raw, list) else raw
    if isinstance(key, tuple) and not all(isinstance(x, str) for x in key):
        key = None
    try:
        return table[key]
    except (KeyError, TypeError):
        pass
    if domain.contains(raw):  # a plain member (a tool name, say) spelled as itself
        return raw
    known = ", ".join(str(domain.label(v)) for v in domain.values[:8])
    more = ", …" if len(domain.values) > 8 else ""
    raise BadValue(f"{shown(raw)} is not a value of {domain.name} ({known}{more})") from None


def _decode_data(domain: Seq | Set | Func, raw: Any) -> Value:
    """A sequence or set is a JSON list, a function an object keyed by its index labels."""
    if isinstance(domain, Func):
        labels = {domain.index.label(k): k for k in domain.keys}
        if not isinstance(raw, dict) or set(raw) != set(labels):
            shown = ", ".join(labels)
            raise BadValue(f"{raw!r} is not a function {domain.name} (an object keyed {shown})")
        return FuncValue(domain.keys, tuple(decode(domain.value, raw[k]) for k in labels))
    if not isinstance(raw, list):
        raise BadValue(f"{raw!r} is not a list ({domain.describe()})")
    items = [decode(domain.element, x) for x in raw]
    if isinstance(domain, Set):
        return frozenset(items)
    if len(items) > domain.max_len:
        raise BadValue(f"{raw!r} is longer than {domain.max_len} ({domain.describe()})")
    return tuple(items)


_TABLES: dict[int, tuple[Finite, dict[Any, Value]]] = {}


def _labels(domain: Finite) -> dict[Any, Value]:
    """Label → member (and, for lists, tuple of element labels → member), built once."""
    hit = _TABLES.get(id(domain))
    if hit is None or hit[0] is not domain:
        table: dict[Any, Value] = {}
        for member in domain.values:
            table[domain.label(member)] = member
            if isinstance(member, tuple) and _is_sequence_domain(domain):
                table[tuple(_element_label(x) for x in member)] = member
        hit = _TABLES[id(domain)] = (domain, table)
    return hit[1]


_SEQUENCES: dict[int, tuple[Finite, bool]] = {}


def _is_sequence_domain(domain: Finite) -> bool:
    """A `Finite.of_sequences` domain: every member a tuple of enum members (asked once)."""
    hit = _SEQUENCES.get(id(domain))
    if hit is None or hit[0] is not domain:
        answer = all(
            isinstance(m, tuple) and all(hasattr(x, "name") for x in m) for m in domain.values
        ) and not any(hasattr(m, "_fields") for m in domain.values)
        hit = _SEQUENCES[id(domain)] = (domain, answer)
    return hit[1]


def _element_label(x: Value) -> str:
    return str(x.name)  # a sequence domain's elements are enum members (_is_sequence_domain)


def same(a: Value, b: Value) -> bool:
    """Equality in which NaN equals NaN (a log that reports NaN reports what the model holds)."""
    return bool(a == b and type(a) is type(b)) or (a != a and b != b) or _numeric_same(a, b)


def _numeric_same(a: Value, b: Value) -> bool:
    numeric = (int, float)
    return (
        isinstance(a, numeric)
        and isinstance(b, numeric)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )
