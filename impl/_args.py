"""Argument checks at the library's public doors, with one message shape.

Python cannot hold the seeds' static signatures, so each public function or
constructor checks what it is given and refuses a wrong type with

    TypeError("<parameter> must be <expected>, got <type received>")

e.g. `timeout_ms must be int, got str`. A value of the right type that is not
allowed (an unknown mode string) is a `ValueError` in the same shape, naming
the value: `mode must be one of 'chat', 'work', got 'plan'`.
"""

from __future__ import annotations

import math
import numbers
from enum import StrEnum
from typing import TypeVar
from typing import cast

E = TypeVar("E", bound=StrEnum)


def type_error(name: str, expected: str, value: object) -> TypeError:
    return TypeError(f"{name} must be {expected}, got {type(value).__name__}")


def expect(value: object, kind: type[object], name: str) -> None:
    if not isinstance(value, kind):
        raise type_error(name, kind.__name__, value)


def real(value: object, name: str, expected: str = "a real number (not bool)") -> float:
    """A real number (not bool) as a float. A number past a float's range becomes an
    infinity of its sign, as the seeds' `f32` narrowing (`as f32` saturates) would have it,
    rather than an OverflowError; non-finite values are kept for the caller to judge."""
    # bool is an int, but True is no measurement.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise type_error(name, expected, value)
    try:
        return float(value)
    except OverflowError:
        # Real orders its values, but typeshed's Real declares no `>` against an int.
        return math.inf if cast(float, value) > 0 else -math.inf


def expect_optional_bool(value: object, name: str) -> None:
    if value is not None and not isinstance(value, bool):
        raise type_error(name, "bool or None", value)


def member(value: object, kind: type[E], name: str) -> E:
    """A StrEnum member, or its wire string (`"chat"` for `Mode.CHAT`)."""
    if isinstance(value, kind):
        return value
    if not isinstance(value, str):
        raise type_error(name, f"{kind.__name__} or str", value)
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in kind)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}") from None
