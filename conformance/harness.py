"""Lockstep and replay, generated from a spec and a driver.

- `lockstep(driver)` builds a hypothesis RuleBasedStateMachine with one rule
  per trigger. Each step fires the model's oracle and the implementation with
  the same arguments and compares the outputs; an invariant compares states.
- `replay(driver, trace)` runs a model trace (say, a row's shortest witness)
  against the implementation, step by step.
- `sweep(driver)` replays every trigger in every reachable state, ignore rows
  included; `run_lockstep` runs it before the random programs.

Nothing here knows a spec's rows: the driver only translates vocabulary.
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any
from typing import Protocol
from typing import cast

from hypothesis import HealthCheck
from hypothesis import event
from hypothesis import note
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis import target
from hypothesis.errors import InvalidDefinition
from hypothesis.errors import Unsatisfiable
from hypothesis.stateful import RuleBasedStateMachine
from hypothesis.stateful import initialize
from hypothesis.stateful import invariant
from hypothesis.stateful import precondition
from hypothesis.stateful import rule
from hypothesis.stateful import run_state_machine_as_test

from models.kernel.domains import Bool
from models.kernel.domains import Domain
from models.kernel.domains import Finite
from models.kernel.domains import IntRange
from models.kernel.domains import Option
from models.kernel.domains import Real
from models.kernel.domains import Value
from models.kernel.explore import Edge
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.explore import initial_states
from models.kernel.expr import Const
from models.kernel.expr import Env
from models.kernel.expr import Eq
from models.kernel.expr import In
from models.kernel.expr import Ref
from models.kernel.expr import evaluate
from models.kernel.expr import walk
from models.kernel.oracle import Oracle
from models.kernel.spec import Spec
from models.kernel.trace import Step
from models.kernel.trace import Trace


class Driver(Protocol):
    """Translates between a spec's vocabulary and one implementation."""

    spec: Spec

    def start(self, init: Mapping[str, Value]) -> Any:
        """A fresh implementation in the model's initial state `init`."""

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> Mapping[str, Value]:
        """Do `trigger` to the implementation; return its outputs in model terms."""

    def observe(self, impl: Any) -> Mapping[str, Value]:
        """The implementation's state, in model terms (the variables it exposes)."""

    def enabled(self, trigger: str, state: Mapping[str, Value]) -> bool:
        """Can the test do `trigger` to the implementation in this model state?"""

    def close(self, impl: Any) -> None:
        """Release what `start` made (an event loop, say)."""


class BaseDriver:
    """Defaults for the optional parts of a driver."""

    def enabled(self, trigger: str, state: Mapping[str, Value]) -> bool:
        return True

    def close(self, impl: Any) -> None:
        return None


class SystemDriver(BaseDriver):
    """A system (compose.py) in lockstep with some of its components played by their
    implementations, each through the driver of that component's own spec, and the rest
    played by the model.

    Each system step is fired on the driver's own oracle of the system, which says which
    component rows the step fires (compose's `Origin.parts`) and so which call each played
    component gets, with which arguments: a free trigger's own, a FIFO message's constants,
    or a synchronous message's arguments evaluated over its sender's step. The step's
    outputs are the model's, with each played component's replaced by what its
    implementation answered; its state, the played components' variables.
    """

    def __init__(self, spec: Spec, played: Mapping[str, Driver]) -> None:
        system = spec.system
        if system is None:
            raise ValueError(f"spec {spec.name!r} is not a system of machines (compose.py)")
        for name, d in played.items():
            if system.part(name).spec.name != d.spec.name:
                raise ValueError(
                    f"component {name!r} is {system.part(name).spec.name!r}, "
                    f"its driver drives {d.spec.name!r}"
                )
        self.spec = spec
        self.played = dict(played)
        self._oracle = Oracle(spec)  # one, reset by `start`: a run drives one system at a time

    def start(self, init: Mapping[str, Value]) -> dict[str, Any]:
        assert self.spec.system is not None
        if self._oracle.spec is not self.spec:
            # `against` gave this copy a mutant: the components the model plays follow it.
            self._oracle = Oracle(self.spec)
        self._oracle.load(init)
        return {
            c: d.start({v: init[sv] for v, sv in self.spec.system.part(c).vars.items()})
            for c, d in self.played.items()
        }

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        system = self.spec.system
        assert system is not None
        before = self._oracle.state
        step = self._oracle.fire(trigger, **params)
        outputs = dict(step.outputs)
        for c, row, args in self.calls(step, before):
            if c in self.played:
                got = self.played[c].fire(impl[c], system.part(c).spec.row(row).trigger, args)
                outputs.update({system.part(c).outputs[o]: v for o, v in got.items()})
        return outputs

    def calls(
        self, step: Step, before: Mapping[str, Value]
    ) -> list[tuple[str, str, dict[str, Value]]]:
        """Each component row a system step fires, in causal order, with its arguments."""
        system = self.spec.system
        assert system is not None
        origin = system.origins[step.row]
        parts = list(origin.parts)
        if not parts:
            return []  # a fault: the channel alone moves
        first, row = parts.pop(0)
        if origin.delivers is not None:
            name, message = origin.delivers
            delivery = system.channel(name).deliver[message]
            assert delivery is not None
            args = {k: evaluate(e, Env(pre={})) for k, e in delivery.args.items()}
        else:
            args = dict(step.params)
        calls = [(first, row, args)]
        for name, message in origin.sends:
            ch = system.channel(name)
            if not ch.synchronous:
                continue
            # The message's arguments read its sender's step: its state before, its own
            # arguments, its outputs.
            sender = next(call for call in reversed(calls) if call[0] == ch.source)
            part = system.part(ch.source)
            env = Env(
                pre={v: before[sv] for v, sv in part.vars.items()},
                params=sender[2],
                outputs={o: step.outputs[so] for o, so in part.outputs.items()},
            )
            delivery = ch.deliver[message]
            assert delivery is not None
            receiver, row = parts.pop(0)
            calls.append((receiver, row, {k: evaluate(e, env) for k, e in delivery.args.items()}))
        return calls

    def observe(self, impl: Any) -> dict[str, Value]:
        system = self.spec.system
        assert system is not None
        return {
            system.part(c).vars[v]: value
            for c, d in self.played.items()
            for v, value in d.observe(impl[c]).items()
        }

    def enabled(self, trigger: str, state: Mapping[str, Value]) -> bool:
        """Some row of the trigger can fire here (a system is `enabled-only`)."""
        return any(
            evaluate(self.spec.row_guard(r), Env(pre=state, params=args))
            for args in _arguments_of(self.spec, trigger)
            for r in self.spec.rows_of(trigger)
        )

    def close(self, impl: Any) -> None:
        for c, d in self.played.items():
            d.close(impl[c])


def _arguments_of(spec: Spec, trigger: str) -> list[dict[str, Value]]:
    """Every argument tuple the explorer tries for a trigger (a real's samples)."""
    params = spec.trigger(trigger).params
    combos: list[dict[str, Value]] = [{}]
    for p in params:
        combos = [{**c, p.name: v} for c in combos for v in p.domain.sample()]
    return combos


def values_of(domain: Domain) -> st.SearchStrategy[Any]:
    """Every value of a domain; a real draws any finite float, the samples included."""
    if isinstance(domain, Real):
        return st.one_of(
            st.sampled_from(domain.samples),
            st.floats(allow_nan=False, allow_infinity=False, width=32),
        )
    if isinstance(domain, Option):
        return st.one_of(st.none(), values_of(domain.inner))
    if isinstance(domain, Bool):
        return st.booleans()
    if isinstance(domain, IntRange):
        return st.integers(domain.lo, domain.hi)
    assert isinstance(domain, Finite)
    return st.sampled_from(domain.values)


@dataclass
class Coverage:
    """Which rows a run exercised, and how often."""

    spec: Spec
    hits: Counter[str] = field(default_factory=Counter)

    @property
    def missing(self) -> list[str]:
        return [r.name for r in self.spec.rows if r.name not in self.hits]

    @property
    def triggers_missing(self) -> list[str]:
        fired = {self.spec.row(r).trigger for r in self.hits}
        return [t.name for t in self.spec.triggers if t.name not in fired]

    def summary(self) -> str:
        rows = len(self.spec.rows)
        hit = rows - len(self.missing)
        return f"{self.spec.name}: {hit}/{rows} rows ({100 * hit / rows:.0f}%)"


class Mismatch(AssertionError):
    """The implementation and the model parted ways."""


def compare(what: str, model: Mapping[str, Value], impl: Mapping[str, Value]) -> None:
    differences = [
        f"{k}: model {model[k]!r}, impl {impl.get(k, '<missing>')!r}"
        for k in model
        if not _same(model[k], impl.get(k, _MISSING))
    ]
    if differences:
        raise Mismatch(f"{what}: " + "; ".join(differences))


_MISSING = object()


def _same(a: Value, b: Value) -> bool:
    return bool(a == b or (a != a and b != b))  # NaN equals NaN here


def project(state: Mapping[str, Value], seen: Mapping[str, Value]) -> dict[str, Value]:
    return {k: state[k] for k in seen}


def lockstep(
    driver: Driver,
    coverage: Coverage,
    *,
    starts_from: Sequence[str] | None = None,
    witnesses: Mapping[str, Trace] | None = None,
) -> type[RuleBasedStateMachine]:
    """A state machine class that drives `driver`'s implementation beside the oracle.

    Each case starts either at an initial state or, half the time, at the end
    of some row's shortest witness (walked in lockstep too), so the random
    steps that follow also explore deep corners of the state space. `witnesses`:
    the spec's `row_witnesses`, when the caller has them (else the spec is explored).
    """
    spec = driver.spec
    starts = initial_states(spec)
    traces = row_witnesses(spec) if witnesses is None else witnesses
    # Deepest first: hypothesis favours early choices, and shallow rows are easy to reach anyway.
    by_depth = sorted(traces, key=lambda row: (-len(traces[row]), row))
    prefixes: st.SearchStrategy[str | None] = st.one_of(st.none(), st.sampled_from(by_depth))
    if starts_from is not None:
        # A targeted run: every case starts at the end of one of these rows' witnesses.
        prefixes = st.sampled_from([r for r in by_depth if r in starts_from])
    oracle = Oracle(spec)  # built once (a transitions Machine is slow to build): `start` resets it

    class Lockstep(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.oracle = oracle
            self.impl: Any = None
            self.rows_seen: set[str] = set()

        @initialize(init=st.sampled_from(starts), prefix=prefixes)
        def start(self, init: dict[str, Value], prefix: str | None) -> None:
            trace = traces[prefix] if prefix is not None else Trace(init, ())
            note(f"init: {trace.init}; prefix: witness of {prefix}")
            self.oracle.reset(trace.init)
            self.impl = driver.start(trace.init)
            for step in trace.steps:
                _lockstep_step(self, driver, coverage, step.trigger, dict(step.params))

        @invariant()
        def states_agree(self) -> None:
            if self.impl is not None:
                seen = driver.observe(self.impl)
                compare("state", project(self.oracle.state, seen), seen)

        def teardown(self) -> None:
            # Steer generation towards cases that exercise many distinct rows.
            target(float(len(self.rows_seen)), label="distinct rows")
            if self.impl is not None:
                driver.close(self.impl)

    for trigger in spec.triggers:
        _add_rule(Lockstep, driver, coverage, trigger.name)
    Lockstep.__name__ = Lockstep.__qualname__ = f"Lockstep_{spec.name}"
    return Lockstep


def _lockstep_step(
    machine: Any, driver: Driver, coverage: Coverage, trigger: str, args: dict[str, Value]
) -> None:
    fired = machine.oracle.fire(trigger, **args)
    coverage.hits[fired.row] += 1
    event(f"row {fired.row}")
    machine.rows_seen.add(fired.row)
    got = driver.fire(machine.impl, trigger, args)
    compare(f"outputs of {trigger}({args}) [row {fired.row}]", fired.outputs, got)


def _add_rule(
    machine: type[RuleBasedStateMachine], driver: Driver, coverage: Coverage, trigger: str
) -> None:
    params: dict[str, st.SearchStrategy[Any]] = {
        p.name: arguments(driver.spec, trigger, p.name) for p in driver.spec.trigger(trigger).params
    }

    def step(self: Any, **args: Value) -> None:
        _lockstep_step(self, driver, coverage, trigger, args)

    # Name the rule before decorating it, so failing programs print the trigger's name.
    step.__name__ = step.__qualname__ = trigger
    guarded: Callable[..., None] = precondition(
        lambda self: self.impl is not None and driver.enabled(trigger, self.oracle.state)
    )(step)
    # hypothesis types `rule(**strategies)` by its keyword overloads; the names are ours.
    setattr(machine, trigger, cast(Any, rule)(**params)(guarded))


def distinguished(spec: Spec, trigger: str, name: str) -> tuple[Value, ...]:
    """The values the model tells parameter `name` apart by: the constants its rows compare
    it with (the watched policy, say)."""
    me = Ref("param", name)
    found: list[Value] = []
    for r in spec.rows_of(trigger):
        for expr in (r.guard, *r.updates.values(), *r.outputs.values()):
            for node in walk(expr):
                if isinstance(node, Eq):
                    for a, b in ((node.left, node.right), (node.right, node.left)):
                        if a == me and isinstance(b, Const) and b.value not in found:
                            found.append(b.value)
                elif isinstance(node, In) and node.item == me:
                    found.extend(v for v in node.options if v not in found)
    return tuple(found)


def arguments(spec: Spec, trigger: str, name: str) -> st.SearchStrategy[Any]:
    """A parameter's values, with the ones the model distinguishes drawn half the time when
    they are rare in a large domain (one watched policy among 32 would hardly come up)."""
    domain = _param(spec, trigger, name)
    every = values_of(domain)
    special = distinguished(spec, trigger, name)
    values = domain.values
    if special and values is not None and len(values) > 2 * len(special):
        return st.one_of(st.sampled_from(special), every)
    return every


def _param(spec: Spec, trigger: str, name: str) -> Domain:
    for p in spec.trigger(trigger).params:
        if p.name == name:
            return p.domain
    raise KeyError(name)


def replay(driver: Driver, trace: Trace, coverage: Coverage | None = None) -> None:
    """Run a model trace against the implementation, comparing every step."""
    impl = driver.start(trace.init)
    try:
        compare("initial state", project(trace.init, driver.observe(impl)), driver.observe(impl))
        for i, step in enumerate(trace.steps, start=1):
            got = driver.fire(impl, step.trigger, step.params)
            compare(f"step {i} ({step.row}) outputs", step.outputs, got)
            seen = driver.observe(impl)
            compare(f"step {i} ({step.row}) state", project(step.state, seen), seen)
            if coverage is not None:
                coverage.hits[step.row] += 1
    finally:
        driver.close(impl)


def row_witnesses(spec: Spec, graph: Exploration | None = None) -> dict[str, Trace]:
    """For every row, the model's shortest trace that ends by firing it."""
    graph = graph or explore(spec)
    return {row: graph.path_through(edge) for row, edge in graph.row_witnesses().items()}


COVERAGE: dict[str, dict[str, Coverage]] = {"replay": {}, "lockstep": {}}


def coverage_for(kind: str, spec: Spec) -> Coverage:
    """The session-wide coverage record the terminal summary prints."""
    return COVERAGE[kind].setdefault(spec.name, Coverage(spec))


def write_coverage(path: Path) -> None:
    """Each spec's row hit counts this session, replay and lockstep, into `path` as JSON
    (`python -m models report` shows them). Specs this session did not drive keep the
    figures of the run that did; the file is replaced whole, never half-written."""
    try:
        known: dict[str, Any] = json.loads(path.read_text())["specs"]
    except (OSError, ValueError, KeyError, TypeError):
        known = {}
    for name in sorted({n for kind in COVERAGE.values() for n in kind}):
        spec = next(c.spec for kind in COVERAGE.values() for n, c in kind.items() if n == name)
        known[name] = {
            "rows": {
                r.name: {k: COVERAGE[k][name].hits[r.name] for k in COVERAGE if name in COVERAGE[k]}
                for r in spec.rows
            },
            "profile": os.environ.get("HYPOTHESIS_PROFILE", "default"),
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"specs": known}, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def replay_row(driver: Driver, row: str) -> None:
    """Replay `row`'s shortest model witness against the implementation, counting coverage."""
    witnesses = _WITNESSES.get(driver.spec.name)
    if witnesses is None:
        witnesses = _WITNESSES[driver.spec.name] = row_witnesses(driver.spec)
    assert row in witnesses, f"row {row!r} has no witness: the model never fires it"
    replay(driver, witnesses[row], coverage_for("replay", driver.spec))


def sweep(driver: Driver, coverage: Coverage | None = None) -> int:
    """Every trigger in every reachable state, each replayed after the state's shortest path
    (`transitions`: each argument of a row that acts, each no-op once per state); the
    number of transitions. Ignore rows included: where the model ignores a trigger, the
    implementation is sent it all the same and must do nothing observable (every output at
    its default, every exposed variable unchanged). The random run cannot promise this, and
    a driver's `enabled` may keep it from no-ops, so a fault that turns an action into a
    no-op would otherwise go untested."""
    graph = explore(driver.spec)
    edges = transitions(graph)
    for edge in edges:
        replay(driver, graph.path_through(edge), coverage)
    return len(edges)


def run_lockstep(
    driver: Driver, settings: Settings | None = None, *, require_every_trigger: bool = True
) -> Coverage:
    """The `sweep` of every trigger in every reachable state, then the lockstep machine
    under `settings` (default: the loaded profile).

    A rule that never fires tests nothing: every trigger must be driven at least once, and
    every row, ignore rows included, must be hit. The rows the random run missed (deep
    ones, mostly) get targeted runs that start each case at the end of one of their
    witnesses; a row still missed after that fails the test.
    """
    coverage = coverage_for("lockstep", driver.spec)
    sweep(driver, coverage)
    run_state_machine_as_test(lockstep(driver, coverage), settings=settings)
    if require_every_trigger:
        assert not coverage.triggers_missing, f"triggers never driven: {coverage.triggers_missing}"
        chosen = settings or Settings()
        for _ in range(TARGETED_RUNS):
            missing = coverage.missing
            if not missing:
                break
            targeted = Settings(chosen, max_examples=EXAMPLES_PER_MISSED_ROW * len(missing))
            run_state_machine_as_test(
                lockstep(driver, coverage, starts_from=missing), settings=targeted
            )
        assert not coverage.missing, f"lockstep never fired rows: {coverage.missing}"
    return coverage


TARGETED_RUNS = 3  # targeted runs for the rows a random lockstep run missed
EXAMPLES_PER_MISSED_ROW = 4


_WITNESSES: dict[str, dict[str, Trace]] = {}


# ---------------------------------------------------------------- the mutant gate's layer


def drivers() -> dict[str, Driver]:
    """Every driver in conformance/drivers/, by the name of the spec it drives."""
    import importlib
    import pkgutil

    import conformance.drivers

    found: dict[str, Driver] = {}
    for module in pkgutil.iter_modules(conformance.drivers.__path__):
        loaded = importlib.import_module(f"conformance.drivers.{module.name}")
        for value in vars(loaded).values():
            spec = getattr(value, "spec", None)
            if isinstance(value, BaseDriver) and isinstance(spec, Spec):
                found[spec.name] = cast(Driver, value)
    return found


def against(driver: Driver, spec: Spec) -> Driver:
    """The same driver, translating for `spec` (a mutant of its own) instead."""
    other = copy.copy(driver)
    other.spec = spec
    return other


def transitions(graph: Exploration) -> list[Edge]:
    """One edge per reachable state and firing: each argument of a row that does
    something, and each no-op once per state."""
    chosen: dict[tuple[Any, ...], Edge] = {}
    for edge in graph.edges:
        if graph.spec.row(edge.row).ignore:
            key: tuple[Any, ...] = (edge.source, edge.row)
        else:
            key = (edge.source, edge.row, tuple(edge.params.items()))
        chosen.setdefault(key, edge)
    return list(chosen.values())


def edge_keys(graph: Exploration) -> set[tuple[Any, ...]]:
    """Every step of a graph, as plain data: (state, trigger, arguments, row, state, outputs)."""
    return set(_keys(graph))


# Above this many reachable states a mutant's transition replay (every reachable step, each
# after its own shortest path: adr068's 14,276 states have 285,520 steps, about 12 minutes a
# mutant, timed over 2,000 of them) and new-step replay (every step compared with the
# original's) are not run: the row witnesses, the changed rows' shallowest steps and lockstep
# are (`layers`).
REPLAY_STATES = 2_000
CHANGED_ROW_STEPS = 200  # such a spec: the changed rows' steps replayed, shallowest first


def layers(states: int, lockstep_examples: int) -> str:
    """What `conformance_kill` runs on a mutant of `states` reachable states, and what not."""
    run = lockstep_examples > 0
    tail = f", lockstep ({lockstep_examples} examples)" if run else ", no lockstep"
    if states <= REPLAY_STATES:
        return f"row witnesses, every transition, new steps{tail}"
    return (
        f"row witnesses, the changed rows' first {CHANGED_ROW_STEPS} steps{tail}; "
        f"transition and new-step replays not run: {states:,} states > REPLAY_STATES "
        f"({REPLAY_STATES:,}), one replay per reachable step"
    )


def conformance_kill(
    driver: Driver,
    spec: Spec,
    *,
    original: set[tuple[Any, ...]] | None = None,
    graph: Exploration | None = None,
    lockstep_examples: int = 0,
    max_states: int = 20_000,
) -> tuple[str, int | None] | None:
    """Run `spec` (a mutated model) against the implementation: the first disagreement.

    In order: every row's shortest witness replayed (each starts from the initial
    state, so a wrong one fails at once); every reachable transition
    replayed (its shortest path, then the step); given the `original` model's steps
    (`edge_keys`), every step the mutant takes that the original does not and that
    leads back to a state the original knows, followed by each step from there (a
    fault in state the implementation does not expose shows one step later); and,
    when asked, a short derandomized lockstep run. A mutant of more than
    `REPLAY_STATES` states gets, in place of the transition and new-step replays, the
    first `CHANGED_ROW_STEPS` steps (BFS order) of the rows it changes (`layers`). Returns
    the check that failed and the length of its trace, or None when the implementation
    agrees with the mutant everywhere. `graph` is the mutant's complete graph, when
    the caller has it.
    """
    mutated = against(driver, spec)
    if graph is None:  # else the caller explored the mutant already
        try:
            graph = explore(spec, max_states=max_states)
        except RuntimeError:
            return None  # beyond the replay budget, or a model the oracle refuses: no verdict
    witnesses = row_witnesses(spec, graph)
    for row, trace in sorted(witnesses.items()):
        if _disagrees(mutated, trace):
            return f"replay {row}", len(trace)
    if len(graph.states) > REPLAY_STATES:
        found = _changed_rows_kill(mutated, driver.spec, graph)
        if found is not None:
            return found
    else:
        found = _transitions_kill(mutated, graph, original)
        if found is not None:
            return found
    # A spec without state (admission) has nothing to step through: the transition replay
    # above already put every input to the implementation.
    if lockstep_examples and spec.vars:
        budget = Settings(
            max_examples=lockstep_examples,
            stateful_step_count=20,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
        )
        machine = lockstep(mutated, Coverage(spec), witnesses=witnesses)
        try:
            run_state_machine_as_test(machine, settings=budget)
        except (InvalidDefinition, Unsatisfiable):
            return None  # the run could not be built or found no valid case: no verdict
        except Exception:  # noqa: BLE001 - any other failure of the run is a disagreement
            return "lockstep", None
    return None


def _transitions_kill(
    mutated: Driver, graph: Exploration, original: set[tuple[Any, ...]] | None
) -> tuple[str, int] | None:
    """Every reachable transition replayed, then the new steps back into known states."""
    for edge in transitions(graph):
        trace = graph.path_through(edge)
        if _disagrees(mutated, trace):
            return f"transition replay {edge.row}", len(trace)
    if original is None:
        return None
    mine = {key: e for key, e in zip(_keys(graph), graph.edges, strict=True)}
    leaving: dict[int, list[Edge]] = {}
    for e in graph.edges:
        leaving.setdefault(e.source, []).append(e)
    known = {k[0] for k in original}
    for key, edge in mine.items():
        # A new step into a new state is followed by the new steps out of it, replayed
        # above; only a new step back into a known state can hide a difference.
        if key in original or graph.states[edge.target] not in known:
            continue
        head = graph.path_through(edge)
        for after in leaving.get(edge.target, []):
            step = Step(
                after.row,
                after.trigger,
                after.params,
                graph.as_dict(after.target),
                after.outputs,
            )
            trace = Trace(head.init, (*head.steps, step))
            if _disagrees(mutated, trace):
                return f"new step replay {edge.row} then {after.row}", len(trace)
    return None


def _changed_rows_kill(
    mutated: Driver, original: Spec, graph: Exploration
) -> tuple[str, int] | None:
    """The first `CHANGED_ROW_STEPS` steps, in BFS order, of the rows the mutant changes
    (a row unlike the `original` spec's of its name), each after its shortest path."""
    rows = graph.code.rows
    changed = {i for i, r in enumerate(rows) if r not in original.rows}
    if not changed:
        return None
    replayed = 0
    for i in range(len(graph.states)):
        for firing, row, to in graph.moves(i):
            if row not in changed:
                continue
            if replayed == CHANGED_ROW_STEPS:
                return None
            trace = graph.path_through(graph.edge_of(i, firing, row, to))
            if _disagrees(mutated, trace):
                return f"changed row replay {rows[row].name}", len(trace)
            replayed += 1
    return None


def _keys(graph: Exploration) -> list[tuple[Any, ...]]:
    return [
        (
            graph.states[e.source],
            e.trigger,
            tuple(e.params.items()),
            e.row,
            graph.states[e.target],
            tuple(e.outputs.items()),
        )
        for e in graph.edges
    ]


def _disagrees(driver: Driver, trace: Trace) -> bool:
    try:
        replay(driver, trace)
    except Exception:  # noqa: BLE001 - a mismatch, or an impl that cannot do what the model says
        return True
    return False
