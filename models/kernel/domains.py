"""Finite (and one real) value domains for spec variables, parameters and outputs.

A domain says which Python values a variable may hold and how each value is
named in traces and diagrams. The z3 encoding of each domain lives in `smt.py`;
nothing here imports z3.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Value = Any  # a domain member: an enum member, bool, int, float, None (option), or tuple


class Domain:
    """Base of every domain. `values` is None only for the real domain."""

    name: str

    @property
    def values(self) -> tuple[Value, ...] | None:
        raise NotImplementedError

    def contains(self, value: Value) -> bool:
        raise NotImplementedError

    def label(self, value: Value) -> str:
        raise NotImplementedError

    def sample(self) -> tuple[Value, ...]:
        """The values the explicit explorer tries: all of them, or the declared sample."""
        values = self.values
        assert values is not None
        return values

    @property
    def is_finite(self) -> bool:
        return self.values is not None

    def describe(self) -> str:
        values = self.values
        if values is None:
            return self.name
        shown = ", ".join(self.label(v) for v in values[:8])
        more = ", …" if len(values) > 8 else ""
        return f"{self.name} ({shown}{more})"


@dataclass(frozen=True)
class Finite(Domain):
    """A finite set of named values: enum members, tuples, or any hashables."""

    name: str
    members: tuple[Hashable, ...]
    namer: Callable[[Value], str] = field(default=str, compare=False)

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError(f"domain {self.name!r} has no values")
        if len(set(self.members)) != len(self.members):
            raise ValueError(f"domain {self.name!r} lists a value twice")
        labels = [self.namer(v) for v in self.members]
        if len(set(labels)) != len(labels):
            raise ValueError(f"domain {self.name!r} gives two values the same label")

    @classmethod
    def of_enum(cls, enum_type: type[enum.Enum], name: str | None = None) -> Finite:
        return cls(name or enum_type.__name__, tuple(enum_type), namer=_enum_label)

    @classmethod
    def of_sequences(
        cls, name: str, element: type[enum.Enum], max_len: int, allowed: Iterable[Sequence[Any]]
    ) -> Finite:
        """Tuples of enum members, up to `max_len` long, restricted to `allowed`.

        An output that is a list (edge commands, say) becomes a finite domain
        of the lists the spec can name, so every backend sees a plain enum.
        """
        members = tuple(tuple(seq) for seq in allowed)
        for seq in members:
            if len(seq) > max_len or any(not isinstance(x, element) for x in seq):
                raise ValueError(f"domain {name!r}: {seq!r} is not a list of {element.__name__}")
        return cls(name, members, namer=_seq_label)

    @property
    def values(self) -> tuple[Value, ...]:
        return self.members

    def contains(self, value: Value) -> bool:
        try:
            return value in self.members and any(
                type(value) is type(m) for m in self.members if m == value
            )
        except TypeError:
            return False

    def label(self, value: Value) -> str:
        return self.namer(value)


def _enum_label(value: Value) -> str:
    return str(value.name) if isinstance(value, enum.Enum) else str(value)


def _seq_label(value: Value) -> str:
    return "[" + ",".join(_enum_label(x) for x in value) + "]"


@dataclass(frozen=True)
class Bool(Domain):
    name: str = "bool"

    @property
    def values(self) -> tuple[Value, ...]:
        return (False, True)

    def contains(self, value: Value) -> bool:
        return isinstance(value, bool)

    def label(self, value: Value) -> str:
        return "true" if value else "false"


@dataclass(frozen=True)
class IntRange(Domain):
    """The integers lo..hi inclusive."""

    lo: int
    hi: int
    name: str = "int"

    def __post_init__(self) -> None:
        if self.lo > self.hi:
            raise ValueError(f"int range {self.lo}..{self.hi} is empty")

    @property
    def values(self) -> tuple[Value, ...]:
        return tuple(range(self.lo, self.hi + 1))

    def contains(self, value: Value) -> bool:
        return (
            isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi
        )

    def label(self, value: Value) -> str:
        return str(value)

    def describe(self) -> str:
        return f"int {self.lo}..{self.hi}"


@dataclass(frozen=True)
class Real(Domain):
    """A real number. z3 reasons about every value; the explorer tries `samples`."""

    samples: tuple[float, ...]
    name: str = "real"

    def __post_init__(self) -> None:
        if not self.samples or any(not math.isfinite(s) for s in self.samples):
            raise ValueError("a real domain needs a non-empty sample of finite numbers")

    @property
    def values(self) -> None:
        return None

    def contains(self, value: Value) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool)

    def label(self, value: Value) -> str:
        return format(float(value), "g")

    def sample(self) -> tuple[Value, ...]:
        return self.samples


@dataclass(frozen=True)
class Option(Domain):
    """`None` or a value of `inner` (which may not itself be an option)."""

    inner: Domain
    name: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.inner, Option):
            raise ValueError("options do not nest")
        if not self.name:
            object.__setattr__(self, "name", f"Option[{self.inner.name}]")

    @property
    def values(self) -> tuple[Value, ...] | None:
        inner = self.inner.values
        return None if inner is None else (None, *inner)

    def contains(self, value: Value) -> bool:
        return value is None or self.inner.contains(value)

    def label(self, value: Value) -> str:
        return "none" if value is None else self.inner.label(value)

    def sample(self) -> tuple[Value, ...]:
        return (None, *self.inner.sample())


def product_size(domains: Iterable[Domain]) -> int:
    return math.prod(len(d.sample()) for d in domains)


def all_assignments(named: Sequence[tuple[str, Domain]]) -> Iterable[dict[str, Value]]:
    """Every assignment of sampled values to the named domains, in declaration order."""
    names = [n for n, _ in named]
    for combo in itertools.product(*(d.sample() for _, d in named)):
        yield dict(zip(names, combo, strict=True))
