"""Finite (and one real) value domains for spec variables, parameters and outputs.

A domain says which Python values a variable may hold and how each value is
named in traces and diagrams. The z3 encoding of each domain lives in `smt.py`;
nothing here imports z3.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
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


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


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
        for bound in (self.lo, self.hi):
            if not _is_int(bound):  # a float would fail only later, in `range`
                raise ValueError(f"an int range's bounds are integers, got {bound!r}")
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


def real_text(value: float) -> str:
    """A real as every face prints it: the shortest text that reads back as the same float
    (not `g`'s six digits, which print 0.4999999 as 0.5), so two values a trace tells apart
    never read alike; a whole number without `.0`."""
    return repr(float(value)).removesuffix(".0")


@dataclass(frozen=True)
class Real(Domain):
    """A real number. z3 reasons about every value; the explorer tries `samples`."""

    samples: tuple[float, ...]
    name: str = "real"

    def __post_init__(self) -> None:
        if not self.samples or any(
            isinstance(s, bool) or not math.isfinite(s) for s in self.samples
        ):  # a bool is not a real here: `contains` refuses it
            raise ValueError("a real domain needs a non-empty sample of finite numbers")

    @property
    def values(self) -> None:
        return None

    def contains(self, value: Value) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool)

    def label(self, value: Value) -> str:
        return real_text(value)

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


# ---------------------------------------------------------------- data: sequences, functions, sets
#
# Values are plain hashables, so every face can store and compare them: a sequence is a
# tuple of its elements, a function a `FuncValue` (read by key), a set a frozenset. Each
# domain enumerates its values lazily (the explorer packs a state by value index).

_MAX_ENUMERATED = 1 << 20


def _finite_values(domain: Domain, what: str) -> tuple[Value, ...]:
    values = domain.values
    if values is None:
        raise ValueError(f"{what} needs a finite domain, got {domain.describe()}")
    return values


class _Listed(Domain):
    """A data domain: finite, its values listed by `_enumerate` on first use, once."""

    @property
    def is_finite(self) -> bool:
        return True  # without listing the values, which may be many

    @property
    def values(self) -> tuple[Value, ...]:
        hit = _VALUES.get(id(self))
        if hit is None or hit[0] is not self:
            hit = _VALUES[id(self)] = (self, self._enumerate())
        return hit[1]

    def _enumerate(self) -> tuple[Value, ...]:
        raise NotImplementedError


# Keyed by identity; the entry keeps its domain alive, so the id cannot pass to another.
_VALUES: dict[int, tuple[Domain, tuple[Value, ...]]] = {}


@dataclass(frozen=True)
class Seq(_Listed):
    """Sequences of `element` values, at most `max_len` long (TLA+ `Seq(S)`, bounded)."""

    element: Domain
    max_len: int
    name: str = ""

    def __post_init__(self) -> None:
        _finite_values(self.element, "a sequence")
        if not _is_int(self.max_len) or self.max_len < 1:
            raise ValueError(f"a sequence needs max_len >= 1, got {self.max_len!r}")
        if not self.name:
            object.__setattr__(self, "name", f"Seq[{self.element.name}, {self.max_len}]")

    def _enumerate(self) -> tuple[Value, ...]:
        elements = _finite_values(self.element, "a sequence")
        count = sum(len(elements) ** k for k in range(self.max_len + 1))
        if count > _MAX_ENUMERATED:
            raise ValueError(f"{self.name} has {count} values, too many to list")
        out: list[Value] = []
        for k in range(self.max_len + 1):
            out += itertools.product(elements, repeat=k)
        return tuple(out)

    def contains(self, value: Value) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) <= self.max_len
            and all(self.element.contains(x) for x in value)
        )

    def label(self, value: Value) -> str:
        return "<<" + ", ".join(self.element.label(x) for x in value) + ">>"

    def describe(self) -> str:
        return f"sequences of {self.element.describe()} up to {self.max_len} long"


class FuncValue:
    """A function's value: immutable, hashable, read by key (`f[k]`) as TLA+ reads `f[k]`."""

    __slots__ = ("_hash", "_index", "keys", "vals")

    def __init__(self, keys: tuple[Value, ...], vals: tuple[Value, ...]) -> None:
        self.keys, self.vals = keys, vals
        self._index = _key_index(keys)
        self._hash = hash(vals)

    def __getitem__(self, key: Value) -> Value:
        return self.vals[self._index[key]]

    def set(self, key: Value, value: Value) -> FuncValue:
        i = self._index[key]
        return FuncValue(self.keys, (*self.vals[:i], value, *self.vals[i + 1 :]))

    def items(self) -> Iterable[tuple[Value, Value]]:
        return zip(self.keys, self.vals, strict=True)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FuncValue)
            and self._hash == other._hash
            and self.vals == other.vals
            and self.keys == other.keys
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items()) + "}"


_KEY_INDEX: dict[tuple[Value, ...], dict[Value, int]] = {}


def _key_index(keys: tuple[Value, ...]) -> dict[Value, int]:
    hit = _KEY_INDEX.get(keys)
    if hit is None:
        hit = _KEY_INDEX[keys] = {k: i for i, k in enumerate(keys)}
    return hit


@dataclass(frozen=True)
class Func(_Listed):
    """Total functions from the finite `index` domain to `value` (TLA+ `[I -> V]`)."""

    index: Domain
    value: Domain
    name: str = ""

    def __post_init__(self) -> None:
        _finite_values(self.index, "a function's index")
        _finite_values(self.value, "a function's value")
        if not self.name:
            object.__setattr__(self, "name", f"[{self.index.name} -> {self.value.name}]")

    @property
    def keys(self) -> tuple[Value, ...]:
        return _finite_values(self.index, "a function's index")

    def _enumerate(self) -> tuple[Value, ...]:
        inner = _finite_values(self.value, "a function's value")
        count = len(inner) ** len(self.keys)
        if count > _MAX_ENUMERATED:
            raise ValueError(f"{self.name} has {count} values, too many to list")
        keys = self.keys
        return tuple(FuncValue(keys, c) for c in itertools.product(inner, repeat=len(keys)))

    def contains(self, value: Value) -> bool:
        return (
            isinstance(value, FuncValue)
            and value.keys == self.keys
            and all(self.value.contains(x) for x in value.vals)
        )

    def label(self, value: Value) -> str:
        pairs = (f"{self.index.label(k)} |-> {self.value.label(x)}" for k, x in value.items())
        return "[" + ", ".join(pairs) + "]"

    def of(self, mapping: Mapping[Value, Value] | Callable[[Value], Value]) -> FuncValue:
        """The function value for a dict (or a callable) over the index values."""
        get = mapping.__getitem__ if isinstance(mapping, Mapping) else mapping
        return FuncValue(self.keys, tuple(get(k) for k in self.keys))

    def describe(self) -> str:
        return f"functions {self.name}"


@dataclass(frozen=True)
class Set(_Listed):
    """Subsets of the finite `element` domain (TLA+ `SUBSET S`)."""

    element: Domain
    name: str = ""

    def __post_init__(self) -> None:
        _finite_values(self.element, "a set")
        if not self.name:
            object.__setattr__(self, "name", f"Set[{self.element.name}]")

    def _enumerate(self) -> tuple[Value, ...]:
        elements = _finite_values(self.element, "a set")
        if 2 ** len(elements) > _MAX_ENUMERATED:
            raise ValueError(f"{self.name} has 2^{len(elements)} values, too many to list")
        return tuple(
            frozenset(c)
            for k in range(len(elements) + 1)
            for c in itertools.combinations(elements, k)
        )

    def contains(self, value: Value) -> bool:
        return isinstance(value, frozenset) and all(self.element.contains(x) for x in value)

    def ordered(self, value: Value) -> list[Value]:
        """The members in the element domain's order (for labels and listings)."""
        return [x for x in _finite_values(self.element, "a set") if x in value]

    def label(self, value: Value) -> str:
        return "{" + ", ".join(self.element.label(x) for x in self.ordered(value)) + "}"

    def describe(self) -> str:
        return f"sets of {self.element.describe()}"


def count(domain: Domain) -> int | None:
    """How many values the domain has (None: infinitely many), without listing them."""
    if isinstance(domain, Seq):
        n = count(domain.element)
        assert n is not None
        return sum(math.prod([n] * k) for k in range(domain.max_len + 1))
    if isinstance(domain, Func):
        n = count(domain.value)
        assert n is not None
        return math.prod([n] * len(domain.keys))
    if isinstance(domain, Set):
        n = count(domain.element)
        assert n is not None
        return 1 << n
    if isinstance(domain, Option):
        inner = count(domain.inner)
        return None if inner is None else inner + 1
    values = domain.values
    return None if values is None else len(values)


def is_data(domain: Domain) -> bool:
    """A sequence, function or set domain (a value with parts)."""
    return isinstance(domain, Seq | Func | Set)
