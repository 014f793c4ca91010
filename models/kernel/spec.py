"""The vocabulary a spec is written in, and its validation.

A `Spec` is data: variables with finite domains (one real allowed where the
seed carries a number; sequences, functions and sets as TLA+ has them),
triggers with parameters, named rows with a guard, updates and outputs,
explicit ignore rows, properties, an optional initial predicate, and its
totality: `explicit` (every trigger answered in every state, the seeds' rule)
or `enabled-only` (a trigger no row answers is not enabled, as in TLA+). Every row and
property cites its source. A malformed spec is refused when it is built, with
a `SpecError` that names the row (or variable, property) and the cause.
"""

from __future__ import annotations

import copy as _copy
import enum
import itertools
import re
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING
from typing import Literal
from typing import Protocol
from typing import TypedDict
from typing import TypeVar
from typing import Unpack
from typing import assert_never

from .domains import Bool
from .domains import Domain
from .domains import Finite
from .domains import Value
from .domains import all_assignments
from .expr import FALSE
from .expr import TRUE
from .expr import VALUED
from .expr import And
from .expr import Bound
from .expr import Cmp
from .expr import Const
from .expr import Enabled
from .expr import Env
from .expr import Eq
from .expr import Expr
from .expr import ExprTypeError
from .expr import Implies
from .expr import In
from .expr import Ite
from .expr import Not
from .expr import Or
from .expr import Quant
from .expr import Ref
from .expr import Scope
from .expr import StepIs
from .expr import as_expr
from .expr import check
from .expr import defined
from .expr import evaluate
from .expr import is_step_expr
from .expr import node
from .expr import partial
from .expr import walk
from .layout import Layout

if TYPE_CHECKING:
    from .compose import System


class SpecError(ValueError):
    """A spec is malformed: the message names the row, variable or property, and the cause."""


@dataclass(frozen=True)
class AnyOf:
    """A variable that may start at any of these values (a nondeterministic initial state)."""

    values: tuple[Value, ...]

    def __init__(self, *values: Value) -> None:
        object.__setattr__(self, "values", tuple(values))


@dataclass(frozen=True)
class Var:
    name: str
    domain: Domain
    init: Value | AnyOf
    doc: str = ""

    @property
    def inits(self) -> tuple[Value, ...]:
        return self.init.values if isinstance(self.init, AnyOf) else (self.init,)


@dataclass(frozen=True)
class Output:
    """A value a step emits; `default` is what a row that does not set it emits."""

    name: str
    domain: Domain
    default: Value
    doc: str = ""


@dataclass(frozen=True)
class Param:
    name: str
    domain: Domain


@dataclass(frozen=True)
class Trigger:
    """An input the machine reacts to. `group` gathers triggers (say, every `observe`)."""

    name: str
    params: tuple[Param, ...] = ()
    group: str = ""
    doc: str = ""


@dataclass(frozen=True)
class Row:
    """One transition: on `trigger`, from a control value in `source`, when `guard` holds.

    `source=None` means from any control value; `target=None` means the control
    value stays. `updates` set other variables and `outputs` set step outputs;
    both are expressions over the state before the step and the trigger's
    parameters. An `ignore` row is the seed's explicit no-op.
    """

    name: str
    trigger: str
    source: tuple[Value, ...] | None
    target: Value | None = None
    guard: Expr = TRUE
    updates: Mapping[str, Expr] = field(default_factory=dict)
    outputs: Mapping[str, Expr] = field(default_factory=dict)
    cite: str = ""
    ignore: bool = False
    doc: str = ""


def row(
    name: str,
    trigger: str,
    source: Value | Sequence[Value] | None,
    target: Value | None = None,
    *,
    guard: Expr = TRUE,
    sets: Mapping[str, Expr | Value] | None = None,
    emits: Mapping[str, Expr | Value] | None = None,
    cite: str,
    doc: str = "",
) -> Row:
    return Row(
        name,
        trigger,
        _sources(source),
        target,
        guard,
        MappingProxyType({k: as_expr(v) for k, v in (sets or {}).items()}),
        MappingProxyType({k: as_expr(v) for k, v in (emits or {}).items()}),
        cite,
        False,
        doc,
    )


def others(*excluded: enum.Enum) -> tuple[enum.Enum, ...]:
    """Every member of the excluded values' enum but these: `ignore(..., others(OVERLAP))`."""
    if not excluded or len({type(e) for e in excluded}) != 1:
        raise SpecError("others() needs one or more members of one enum")
    return tuple(m for m in type(excluded[0]) if m not in excluded)


def ignore(
    name: str,
    trigger: str,
    source: Value | Sequence[Value] | None,
    *,
    guard: Expr = TRUE,
    cite: str,
    doc: str = "",
) -> Row:
    return Row(name, trigger, _sources(source), None, guard, {}, {}, cite, True, doc)


def _sources(source: Value | Sequence[Value] | None) -> tuple[Value, ...] | None:
    if source is None:
        return None
    if isinstance(source, list | tuple | set | frozenset):
        return tuple(source)
    return (source,)


Totality = Literal["explicit", "enabled-only"]


class Kind(enum.StrEnum):
    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


@dataclass(frozen=True)
class Property:
    """`always` holds on every reachable state (or step); `sometimes` is reachable;
    `never` is proved unreachable."""

    name: str
    kind: Kind
    pred: Expr
    cite: str
    doc: str = ""
    written: Expr | None = field(default=None, compare=False, repr=False)

    @property
    def as_written(self) -> Expr:
        """The predicate before its spec expanded `enabled()`."""
        return self.pred if self.written is None else self.written

    @property
    def over_steps(self) -> bool:
        return is_step_expr(self.pred)

    @cached_property
    def bad(self) -> Expr:
        """What a counterexample (or, for `sometimes`, a witness) must reach: one object per
        property, so that the searches and compiled closures keyed by identity find it."""
        return self.pred if self.kind is not Kind.ALWAYS else Not(self.pred)


def always(name: str, pred: Expr, *, cite: str, doc: str = "") -> Property:
    return Property(name, Kind.ALWAYS, pred, cite, doc)


def sometimes(name: str, pred: Expr, *, cite: str, doc: str = "") -> Property:
    return Property(name, Kind.SOMETIMES, pred, cite, doc)


def never(name: str, pred: Expr, *, cite: str, doc: str = "") -> Property:
    return Property(name, Kind.NEVER, pred, cite, doc)


class LiveKind(enum.StrEnum):
    EVENTUALLY = "eventually"
    LEADS_TO = "leads-to"
    INFINITELY_OFTEN = "infinitely-often"


@dataclass(frozen=True)
class Fairness:
    """One fairness constraint over a trigger, or a group taken as one action.

    `weak`: a step that stays enabled is eventually taken (TLA+'s WF); `strong`: a step
    enabled infinitely often is eventually taken (SF). Enabled means a non-ignore row of
    it is enabled; taken means such a row fires (an ignore row is the seed's no-op). With
    `each`, a parameter every named trigger has, it is one constraint per value of that
    parameter (TLA+'s `\\A self \\in Procs : WF_vars(Proc(self))`, a process each)."""

    kind: Literal["weak", "strong"]
    name: str
    each: str | None = None

    def __str__(self) -> str:
        each = "" if self.each is None else f" for each {self.each}"
        return f"{self.kind}({self.name}{each})"


@dataclass(frozen=True)
class FairCase:
    """One fairness constraint as the engines check it: over `triggers`, and when its
    declaration has `each`, only the steps whose `param` is `value`."""

    kind: Literal["weak", "strong"]
    label: str
    triggers: frozenset[str]
    param: str | None = None
    value: Value = None


def weak(*names: str, each: str | None = None) -> tuple[Fairness, ...]:
    """Weak fairness of each named trigger or group, one constraint per name (and per
    value of the parameter `each`, if given)."""
    return tuple(Fairness("weak", n, each) for n in names)


def strong(*names: str, each: str | None = None) -> tuple[Fairness, ...]:
    """Strong fairness of each named trigger or group, one constraint per name (and per
    value of the parameter `each`, if given)."""
    return tuple(Fairness("strong", n, each) for n in names)


@dataclass(frozen=True)
class Liveness:
    """A property of infinite runs, over state predicates. `eventually`: every fair run
    reaches `pred`; `leads_to`: on every fair run, a state where `pred` holds is followed
    (at once or later) by one where `then` holds; `infinitely_often`: `pred` holds again
    and again. Runs may stutter: without fairness a run may stop anywhere. `fairness`
    adds to the spec's own. `promised=False` states what the spec does not promise: the
    check must find a fair run that violates it, and that lasso is the witness."""

    name: str
    kind: LiveKind
    pred: Expr
    cite: str
    then: Expr | None = None
    fairness: tuple[Fairness, ...] = ()
    doc: str = ""
    promised: bool = True


# What `fair=` takes: constraints, or the tuples `weak(...)`/`strong(...)` return.
FairArg = Iterable[Fairness | tuple[Fairness, ...]]


def _fair(fairness: FairArg) -> tuple[Fairness, ...]:
    flat: list[Fairness] = []
    for f in fairness:
        flat.extend(f if isinstance(f, tuple) else (f,))
    return tuple(flat)


class _LiveOptions(TypedDict, total=False):
    """What every liveness constructor takes besides its predicates and `cite`; `Liveness`
    says what each means."""

    fair: FairArg
    doc: str
    promised: bool


def _liveness(
    name: str, kind: LiveKind, pred: Expr, then: Expr | None, cite: str, options: _LiveOptions
) -> Liveness:
    # `**options` takes any keyword at run time: refuse a misspelt one as a signature would.
    unknown = sorted(options.keys() - _LiveOptions.__optional_keys__)
    if unknown:
        raise TypeError(f"{kind.name.lower()}() got an unexpected keyword argument {unknown[0]!r}")
    fair = _fair(options.get("fair", ()))
    return Liveness(
        name, kind, pred, cite, then, fair, options.get("doc", ""), options.get("promised", True)
    )


def eventually(name: str, pred: Expr, *, cite: str, **options: Unpack[_LiveOptions]) -> Liveness:
    return _liveness(name, LiveKind.EVENTUALLY, pred, None, cite, options)


def leads_to(
    name: str, p: Expr, q: Expr, *, cite: str, **options: Unpack[_LiveOptions]
) -> Liveness:
    return _liveness(name, LiveKind.LEADS_TO, p, q, cite, options)


def infinitely_often(
    name: str, pred: Expr, *, cite: str, **options: Unpack[_LiveOptions]
) -> Liveness:
    return _liveness(name, LiveKind.INFINITELY_OFTEN, pred, None, cite, options)


@dataclass(frozen=True)
class Variant:
    """A deliberately faulty copy of a spec (a historical bug, a rejected design).

    It differs from the spec in the rows named here, and the checker must
    report every property in `violates` as violated.
    """

    name: str
    doc: str
    cite: str
    violates: tuple[str, ...]
    replace: Mapping[str, Row] = field(default_factory=dict)
    add: tuple[Row, ...] = ()
    remove: tuple[str, ...] = ()


class _Named(Protocol):
    @property
    def name(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def _named(items: Iterable[_N], name: str) -> _N:
    """The item called `name` (a variable, trigger, row, property or output)."""
    for item in items:
        if item.name == name:
            return item
    raise KeyError(name)


@dataclass(frozen=True)
class Spec:
    name: str
    source: str
    vars: tuple[Var, ...]
    triggers: tuple[Trigger, ...]
    rows: tuple[Row, ...]
    properties: tuple[Property, ...] = ()
    outputs: tuple[Output, ...] = ()
    control: str | None = None
    terminal: Expr | None = None
    views: Mapping[str, Expr] = field(default_factory=dict)
    variants: tuple[Variant, ...] = ()
    doc: str = ""
    expect_violated: tuple[str, ...] = ()
    layout: Layout = field(default_factory=Layout)  # diagram hints only (layout.py)
    # An initial predicate over the variables' initial choices (TLA+'s `Init`): the initial
    # states are the product of every variable's `inits` where it holds.
    init: Expr | None = None
    # "explicit": every trigger answers in every state (a row or an ignore row), as the
    # seeds require; "enabled-only": a trigger no row answers is simply not enabled there,
    # as in TLA+ and Promela.
    totality: Totality = "explicit"
    # TLC's CHECK_DEADLOCK: False drops the no-deadlock check (a protocol that may stop).
    check_deadlock: bool = True
    # Liveness properties, and the fairness every one of them assumes (liveness.py).
    liveness: tuple[Liveness, ...] = ()
    fairness: tuple[Fairness, ...] = ()
    # A system built by `compose` (compose.py): its components, channels and who owns what.
    system: System | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _validate(self)
        # When each row's guard and updates are defined (sequence operations can fail);
        # rows without such operations are missing.
        object.__setattr__(self, "_defined", _row_definedness(self))
        if self.rows:
            # `enabled()` is expanded against this spec's own rows, from the predicate as
            # written: a variant (or a copy made with `replace`) expands it afresh.
            object.__setattr__(
                self,
                "properties",
                tuple(
                    replace(p, pred=self.expand(p.as_written), written=p.as_written)
                    for p in self.properties
                ),
            )
            object.__setattr__(
                self, "terminal", self.expand(self.terminal) if self.terminal is not None else None
            )

    # ------------------------------------------------------------ lookups

    def var(self, name: str) -> Var:
        return _named(self.vars, name)

    def trigger(self, name: str) -> Trigger:
        return _named(self.triggers, name)

    def row(self, name: str) -> Row:
        return _named(self.rows, name)

    def prop(self, name: str) -> Property:
        return _named(self.properties, name)

    def live(self, name: str) -> Liveness:
        for p in self.liveness:
            if p.name == name:
                return p
        raise KeyError(name)

    def fairness_of(self, p: Liveness) -> tuple[Fairness, ...]:
        """The spec's fairness refined by the property's own (a name listed twice keeps
        the stronger kind)."""
        kinds: dict[tuple[str, str | None], Literal["weak", "strong"]] = {}
        for f in (*self.fairness, *p.fairness):
            key = (f.name, f.each)
            kinds[key] = "strong" if "strong" in (kinds.get(key), f.kind) else "weak"
        return tuple(Fairness(k, n, each) for (n, each), k in kinds.items())

    def fairness_triggers(self, f: Fairness) -> frozenset[str]:
        """The triggers a fairness constraint names: a trigger, or every trigger of a group."""
        return frozenset(t.name for t in self.triggers if f.name in (t.name, t.group))

    def fair_cases(self, p: Liveness) -> tuple[FairCase, ...]:
        """The property's fairness as the engines check it: one case per declared
        constraint, or per value of its `each` parameter."""
        cases: list[FairCase] = []
        for f in self.fairness_of(p):
            triggers = self.fairness_triggers(f)
            if f.each is None:
                cases.append(FairCase(f.kind, str(f), triggers))
                continue
            domain = next(q.domain for q in self.trigger(min(triggers)).params if q.name == f.each)
            cases += [
                FairCase(
                    f.kind, f"{f.kind}({f.name}, {f.each}={domain.label(v)})", triggers, f.each, v
                )
                for v in domain.sample()
            ]
        return tuple(cases)

    def output(self, name: str) -> Output:
        return _named(self.outputs, name)

    @property
    def control_domain(self) -> Domain | None:
        return self.var(self.control).domain if self.control else None

    def rows_of(self, trigger: str) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.trigger == trigger)

    def group_of(self, trigger: str) -> str:
        return self.trigger(trigger).group

    def initial_states(self) -> list[dict[str, Value]]:
        """Every initial state: the product of the variables' initial values, where `init`
        holds."""
        names = [v.name for v in self.vars]
        states = [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(v.inits for v in self.vars))
        ]
        if self.init is None:
            return states
        return [s for s in states if evaluate(self.init, Env(pre=s))]

    def defined(self, r: Row) -> Expr | None:
        """When the row's guard, updates and outputs are defined (None: always)."""
        found: Mapping[str, Expr] = getattr(self, "_defined")  # noqa: B009
        return found.get(r.name)

    def source_expr(self, r: Row) -> Expr:
        if r.source is None or self.control is None:
            return TRUE
        return In(Ref("pre", self.control), r.source)

    def step_guard(self, r: Row) -> Expr:
        """The row's full enabling condition over the pre-state and parameters. A row whose
        operations can be undefined fires only where they are defined (the well-defined
        check reports the states where they are not)."""
        guard = self.row_guard(r)
        return And((self.source_expr(r), guard))

    def row_guard(self, r: Row) -> Expr:
        """The row's guard, and that it and the updates are defined when it can fail."""
        when = self.defined(r)
        return r.guard if when is None else And((when, r.guard))

    def param_assignments(self, trigger: str) -> list[dict[str, Value]]:
        return list(all_assignments([(p.name, p.domain) for p in self.trigger(trigger).params]))

    def for_some_arguments(self, trigger: str, expr: Expr) -> Expr:
        """`expr` over the trigger's parameters, as a state predicate: it holds for some
        values of them (finite parameters only)."""
        read = {n.name for n in walk(expr) if isinstance(n, Ref) and n.scope == "param"}
        named = [(p.name, p.domain) for p in self.trigger(trigger).params if p.name in read]
        cases = tuple(bind(expr, params) for params in all_assignments(named))
        return cases[0] if len(cases) == 1 else Or(cases)

    def expand(self, expr: Expr) -> Expr:
        """Rewrite `enabled(...)` into a disjunction over rows and finite parameters."""
        return _expand_enabled(self, expr)

    def renamed(self, name: str) -> Spec:
        """This spec under another name. No check reads a spec's name (only its messages
        do), so the copy is not validated and derived again, as `replace` would."""
        copy = _copy.copy(self)
        object.__setattr__(copy, "name", name)
        return copy

    def with_variant(self, name: str) -> Spec:
        for variant in self.variants:
            if variant.name == name:
                return _apply_variant(self, variant)
        known = ", ".join(v.name for v in self.variants) or "none"
        raise SpecError(f"spec {self.name!r} has no variant {name!r} (known: {known})")


# ---------------------------------------------------------------- validation


# A name every face can use as it is (issue 16 §4): z3 constants, Promela globals (behind a
# prefix: `v_`, `o_`, `a<k>_`), ITF keys, diagram ids, keyword arguments are all safe for an
# ASCII identifier, Python keywords, `self` and Promela's reserved words included (each face
# prefixes, quotes or passes names as data). Properties may also use hyphens.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PROPERTY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")
# The structural checks' names: a property of the same name would be two checks in one.
STRUCTURAL_CHECKS = (
    "determinism",
    "totality",
    "no-deadlock",
    "well-defined",
    "terminal-absorbing",
    "rows-fire",
    "vacuity",
    "reachable-set",
)


def _names(spec: Spec) -> None:
    named = [("variable", v.name) for v in spec.vars]
    named += [("output", o.name) for o in spec.outputs]
    named += [("trigger", t.name) for t in spec.triggers]
    named += [(f"parameter of trigger {t.name!r}", p.name) for t in spec.triggers for p in t.params]
    named += [("row", r.name) for r in spec.rows]
    for what, name in named:
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise SpecError(
                f"spec {spec.name!r}: {what} {name!r} is not a name every face can use: "
                "use ASCII letters, digits and _, not starting with a digit"
            )
    props: tuple[Property | Liveness, ...] = (*spec.properties, *spec.liveness)
    for p in props:
        if not isinstance(p.name, str) or not PROPERTY_NAME.match(p.name):
            raise SpecError(
                f"spec {spec.name!r}: property {p.name!r} is not a name every face can use: "
                "use ASCII letters, digits, _ and -, not starting with -"
            )
        if p.name in STRUCTURAL_CHECKS:
            raise SpecError(
                f"spec {spec.name!r}: property {p.name!r} has the name of a structural check "
                f"({', '.join(STRUCTURAL_CHECKS)})"
            )


def _validate(spec: Spec) -> None:
    _names(spec)
    _unique(spec, "variable", [v.name for v in spec.vars])
    _unique(spec, "trigger", [t.name for t in spec.triggers])
    _unique(spec, "row", [r.name for r in spec.rows])
    _unique(spec, "property", [p.name for p in spec.properties] + [p.name for p in spec.liveness])
    _unique(spec, "output", [o.name for o in spec.outputs])
    if not spec.source.strip():
        raise SpecError(f"spec {spec.name!r}: no source file named")
    for kind, items in (("variable", spec.vars), ("output", spec.outputs)):
        for item in items:
            if not isinstance(item.domain, Domain):
                raise SpecError(
                    f"{kind} {item.name!r}: domain must be a Domain (Finite, Bool, IntRange, "
                    f"Option, Real), got {type(item.domain).__name__}"
                )
    for r in spec.rows:
        if not isinstance(r.guard, Expr):
            raise SpecError(f"row {r.name!r}: guard must be an expression, got {r.guard!r}")
    names = {v.name for v in spec.vars}
    if spec.control is not None:
        if spec.control not in names:
            raise SpecError(
                f"spec {spec.name!r}: control variable {spec.control!r} is not declared"
            )
        if not isinstance(spec.var(spec.control).domain, Finite):
            raise SpecError(f"spec {spec.name!r}: control variable {spec.control!r} must be finite")
    for v in spec.vars:
        for value in v.inits:
            if not v.domain.contains(value):
                raise SpecError(
                    f"variable {v.name!r}: initial value {value!r} is not in {v.domain.describe()}"
                )
    for o in spec.outputs:
        if not o.domain.contains(o.default):
            raise SpecError(
                f"output {o.name!r}: default {o.default!r} is not in {o.domain.describe()}"
            )
    for t in spec.triggers:
        _unique(spec, f"parameter of trigger {t.name!r}", [p.name for p in t.params])
    triggers = {t.name for t in spec.triggers}
    for r in spec.rows:
        _validate_row(spec, r, triggers)
    for p in spec.properties:
        _validate_property(spec, p)
    for f in spec.fairness:
        _validate_fairness(spec, "spec fairness", f)
    for lp in spec.liveness:
        _validate_liveness(spec, lp)
    if spec.terminal is not None:
        _typed(spec, "terminal predicate", spec.terminal, allowed={"pre"}, params={})
    if spec.init is not None:
        _reads_no_step("initial predicate", spec.init)
        _typed(spec, "initial predicate", spec.init, allowed={"pre"}, params={})
        if not spec.initial_states():
            raise SpecError(f"spec {spec.name!r}: no initial state satisfies the initial predicate")
    if spec.totality not in ("explicit", "enabled-only"):
        raise SpecError(
            f"spec {spec.name!r}: totality must be 'explicit' or 'enabled-only', "
            f"got {spec.totality!r}"
        )
    for view, pred in spec.views.items():
        _typed(spec, f"view {view!r}", pred, allowed={"pre"}, params={})
    for variant in spec.variants:
        if not variant.cite.strip():
            raise SpecError(f"variant {variant.name!r}: no source citation")
        for prop in variant.violates:
            if prop not in {p.name for p in spec.properties} | {p.name for p in spec.liveness}:
                raise SpecError(f"variant {variant.name!r}: violates unknown property {prop!r}")
        for old in (*variant.replace, *variant.remove):
            if old not in {r.name for r in spec.rows}:
                raise SpecError(f"variant {variant.name!r}: changes unknown row {old!r}")


def _unique(spec: Spec, what: str, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SpecError(f"spec {spec.name!r}: duplicate {what} {name!r}")
        seen.add(name)


def _validate_row(spec: Spec, r: Row, triggers: set[str]) -> None:
    where = f"row {r.name!r}"
    if not r.cite.strip():
        raise SpecError(f"{where}: no source citation (cite the ADR row or seed line it ports)")
    if r.trigger not in triggers:
        raise SpecError(f"{where}: unknown trigger {r.trigger!r}")
    control = spec.control_domain
    for label, values in (
        ("source", r.source or ()),
        ("target", () if r.target is None else (r.target,)),
    ):
        for value in values:
            if control is None:
                raise SpecError(f"{where}: has a {label} but the spec declares no control variable")
            if not control.contains(value):
                raise SpecError(
                    f"{where}: {label} {value!r} is not a state (states: {control.describe()})"
                )
    params = {p.name: p.domain for p in spec.trigger(r.trigger).params}
    parts = [
        ("guard", r.guard),
        *((f"update of {t!r}", v) for t, v in r.updates.items()),
        *((f"output {t!r}", v) for t, v in r.outputs.items()),
    ]
    for part, e in parts:
        _reads_no_step(f"{where} {part}", e)
    _typed(spec, where + " guard", r.guard, allowed={"pre", "param"}, params=params)
    for n in walk(r.guard):
        # `enabled()` and totality enumerate parameters, so guards test finite ones only.
        if isinstance(n, Ref) and n.scope == "param" and params[n.name].values is None:
            raise SpecError(f"{where}: a guard may not test the real parameter {n.name!r}")
    names = {v.name for v in spec.vars}
    for target, value in r.updates.items():
        if target not in names:
            raise SpecError(f"{where}: updates unknown variable {target!r}")
        if target == spec.control:
            raise SpecError(f"{where}: sets the control variable {target!r}; use the row's target")
        _typed(
            spec,
            f"{where} update of {target!r}",
            value,
            allowed={"pre", "param"},
            params=params,
            expected=spec.var(target).domain,
        )
    outputs = {o.name for o in spec.outputs}
    for target, value in r.outputs.items():
        if target not in outputs:
            raise SpecError(f"{where}: emits unknown output {target!r}")
        _typed(
            spec,
            f"{where} output {target!r}",
            value,
            allowed={"pre", "param"},
            params=params,
            expected=spec.output(target).domain,
        )
    if r.ignore and (r.updates or r.outputs or r.target is not None):
        raise SpecError(f"{where}: an ignore row changes nothing and emits nothing")


def _validate_property(spec: Spec, p: Property) -> None:
    where = f"property {p.name!r}"
    if not p.cite.strip():
        raise SpecError(f"{where}: no source citation")
    # A property may read a trigger's arguments (under `trigger_is`): no row writes them, so
    # they keep echo outputs and ghosts honest. A name must mean one domain in every trigger.
    arguments: dict[str, Domain] = {}
    ambiguous: set[str] = set()
    for t in spec.triggers:
        for param in t.params:
            if arguments.setdefault(param.name, param.domain) != param.domain:
                ambiguous.add(param.name)
    for n in walk(p.as_written):
        if isinstance(n, Ref) and n.scope == "param" and n.name in ambiguous:
            raise SpecError(f"{where}: parameter {n.name!r} has different domains in two triggers")
    _typed(
        spec,
        where,
        p.as_written,
        allowed={"pre", "post", "out", "param"},
        params={k: v for k, v in arguments.items() if k not in ambiguous},
    )
    if partial(p.as_written):
        raise SpecError(
            f"{where}: head, tail, append and index can be undefined; a property may not "
            "use them (test length() and use a quantifier over positions instead)"
        )
    for n in walk(p.as_written):
        if isinstance(n, StepIs):
            known = {
                "trigger": {t.name for t in spec.triggers},
                "row": {r.name for r in spec.rows},
                "group": {t.group for t in spec.triggers},
            }[n.kind]
            for name in n.names:
                if name not in known:
                    raise SpecError(f"{where}: unknown {n.kind} {name!r}")
        if isinstance(n, Enabled):
            for name in n.triggers:
                if name not in {t.name for t in spec.triggers}:
                    raise SpecError(f"{where}: enabled() names unknown trigger {name!r}")


def _validate_fairness(spec: Spec, where: str, f: object) -> None:
    if not isinstance(f, Fairness) or f.kind not in ("weak", "strong"):
        raise SpecError(f"{where}: {f!r} is not weak(...) or strong(...)")
    triggers = spec.fairness_triggers(f)
    if not triggers:
        raise SpecError(f"{where}: {f.kind}({f.name!r}) names no trigger or group")
    if f.each is not None:
        domains = {
            next((q.domain for q in spec.trigger(t).params if q.name == f.each), None)
            for t in triggers
        }
        if None in domains or len(domains) != 1:
            raise SpecError(
                f"{where}: {f}: every trigger it names needs the parameter {f.each!r}, "
                "of one domain"
            )
        (domain,) = domains
        if domain is None or domain.values is None:
            raise SpecError(f"{where}: {f}: {f.each!r} has no finite domain")


def _validate_liveness(spec: Spec, p: Liveness) -> None:
    where = f"property {p.name!r}"
    if not isinstance(p, Liveness):
        raise SpecError(f"{where}: liveness holds eventually(), leads_to() or infinitely_often()")
    if not p.cite.strip():
        raise SpecError(f"{where}: no source citation")
    for f in p.fairness:
        _validate_fairness(spec, where, f)
    # Only `leads_to` has a consequent; a missing predicate is refused like any non-expression.
    preds = [("", p.pred)] if p.then is None else [("", p.pred), (" (its consequent)", p.then)]
    for label, pred in preds:
        if not isinstance(pred, Expr):
            raise SpecError(f"{where}{label}: must be an expression, got {pred!r}")
        if is_step_expr(pred) or any(isinstance(n, Enabled) for n in walk(pred)):
            raise SpecError(f"{where}{label}: a liveness property reads states only")
        _typed(spec, where + label, pred, allowed={"pre"}, params={})
        if partial(pred):
            raise SpecError(f"{where}{label}: head, tail, append and index can be undefined")


def _reads_no_step(where: str, expr: Expr) -> None:
    """A row and the initial predicate read states and arguments: the step a state is part
    of, and which triggers it enables, are for properties (no engine evaluates them here)."""
    for n in walk(expr):
        if isinstance(n, StepIs | Enabled):
            name = "enabled" if isinstance(n, Enabled) else f"{n.kind}_is"
            raise SpecError(f"{where}: {name}() may be used only in a property")


def _typed(
    spec: Spec,
    where: str,
    expr: Expr,
    *,
    allowed: set[str],
    params: Mapping[str, Domain],
    expected: Domain | None = None,
) -> None:
    def typer(scope: Scope, name: str) -> Domain:
        if scope == "bound":
            raise ExprTypeError(f"{name!r} is not bound by an enclosing forall or exists")
        if scope not in allowed:
            raise ExprTypeError(f"{scope} {name!r} cannot be used here")
        try:
            if scope in ("pre", "post"):
                return spec.var(name).domain
            if scope == "out":
                return spec.output(name).domain
        except KeyError:
            kind = "output" if scope == "out" else "variable"
            raise ExprTypeError(f"unknown {kind} {name!r}") from None
        if name not in params:
            raise ExprTypeError(f"unknown parameter {name!r}")
        return params[name]

    try:
        check(expr, typer, expected or Bool())
    except ExprTypeError as err:
        raise SpecError(f"{where}: {err}") from None


# ---------------------------------------------------------------- derived forms


def _row_definedness(spec: Spec) -> Mapping[str, Expr]:
    """Per row that can fail: the condition that its guard is defined and, where it holds,
    its updates and outputs are."""
    found: dict[str, Expr] = {}
    for r in spec.rows:
        effects = (*r.updates.values(), *r.outputs.values())
        if not partial(r.guard) and not any(partial(e) for e in effects):
            continue
        params = {p.name: p.domain for p in spec.trigger(r.trigger).params}

        def typer(scope: Scope, name: str, params: Mapping[str, Domain] = params) -> Domain:
            return params[name] if scope == "param" else spec.var(name).domain

        then = [defined(e, typer) for e in effects]
        found[r.name] = And((defined(r.guard, typer), Implies(r.guard, And(tuple(then)))))
    return MappingProxyType(found)


def _expand_enabled(spec: Spec, expr: Expr) -> Expr:
    expr = node(expr)
    if isinstance(expr, Enabled):
        alternatives: list[Expr] = []
        for name in expr.triggers:
            for r in spec.rows_of(name):
                if r.ignore:
                    continue
                # Only the parameters the guard reads need values: the rest exist anyway.
                guard = spec.step_guard(r)
                read = {n.name for n in walk(guard) if isinstance(n, Ref) and n.scope == "param"}
                named = [(p.name, p.domain) for p in spec.trigger(name).params if p.name in read]
                for params in all_assignments(named):
                    alternatives.append(bind(guard, params))
        return Or(tuple(alternatives)) if alternatives else FALSE
    if isinstance(expr, Const | Ref | StepIs | Bound):
        return expr
    if isinstance(expr, Quant):
        return Quant(expr.kind, expr.name, expr.domain, _expand_enabled(spec, expr.body))
    if isinstance(expr, Eq):
        return Eq(_expand_enabled(spec, expr.left), _expand_enabled(spec, expr.right))
    if isinstance(expr, Not):
        return Not(_expand_enabled(spec, expr.arg))
    if isinstance(expr, And):
        return And(tuple(_expand_enabled(spec, a) for a in expr.args))
    if isinstance(expr, Or):
        return Or(tuple(_expand_enabled(spec, a) for a in expr.args))
    if isinstance(expr, Implies):
        return Implies(_expand_enabled(spec, expr.premise), _expand_enabled(spec, expr.conclusion))
    if isinstance(expr, Ite):
        cond = _expand_enabled(spec, expr.cond)
        return Ite(cond, _expand_enabled(spec, expr.then), _expand_enabled(spec, expr.other))
    if isinstance(expr, VALUED):
        return expr  # their arguments are values, never a boolean `enabled`
    assert_never(expr)


def bind(expr: Expr, params: Mapping[str, Value]) -> Expr:
    """Substitute parameter values (parameters of a finite domain only)."""
    if isinstance(expr, Ref) and expr.scope == "param":
        return Const(params[expr.name])
    if isinstance(expr, Const | Ref | StepIs | Enabled):
        return expr
    fields = {k: v for k, v in vars(expr).items()}
    for key, value in fields.items():
        if isinstance(value, Expr):
            fields[key] = bind(value, params)
        elif isinstance(value, tuple) and value and isinstance(value[0], Expr):
            fields[key] = tuple(bind(v, params) for v in value)
    bound = type(expr)(**fields)
    if isinstance(bound, _TESTS) and not any(isinstance(n, _OPEN) for n in walk(bound)):
        # A test of constants only (`is_in(car, ...)` once `car` is bound): its value, since
        # no face can type a comparison of two constants.
        try:
            return Const(bool(evaluate(bound, Env(pre={}))))
        except (ExprTypeError, KeyError, IndexError, TypeError):
            return bound
    return bound


_TESTS = (Eq, In, Cmp)
_OPEN = (Ref, StepIs, Enabled, Bound)


def _apply_variant(spec: Spec, variant: Variant) -> Spec:
    rows: list[Row] = []
    for r in spec.rows:
        if r.name in variant.remove:
            continue
        rows.append(variant.replace.get(r.name, r))
    rows.extend(variant.add)
    keep = tuple(p for p in spec.properties if p.name in variant.violates)
    live = tuple(p for p in spec.liveness if p.name in variant.violates)
    return Spec(
        name=f"{spec.name}:{variant.name}",
        source=spec.source,
        vars=spec.vars,
        triggers=spec.triggers,
        rows=tuple(rows),
        properties=keep,
        outputs=spec.outputs,
        control=spec.control,
        terminal=None,
        views=spec.views,
        variants=(),
        doc=variant.doc,
        expect_violated=variant.violates,
        layout=spec.layout,
        init=spec.init,
        totality=spec.totality,
        check_deadlock=spec.check_deadlock,
        liveness=live,
        fairness=spec.fairness,
        system=spec.system,
    )
