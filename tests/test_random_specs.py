"""The explorer, the oracle, z3 and SPIN cross-checked on seeded random specs.

`families.random_spec(seed)` draws a small spec over every domain kind. For
each seed in a fixed budget (`SEEDS`, no time limit) the `transitions` oracle
is stepped breadth-first on its own, from every initial state, with every
trigger and argument: its reachable states, their BFS depths, its edges
(row, target, outputs) and the firings no row answers must be the compiled
explorer's exactly. For the first `Z3_SEEDS`, every verdict is then decided
from the oracle's graph by brute force and compared with `verify` (z3 and the
explorer together) and with z3 alone (BMC's shortest trace must be as long as
the oracle's shortest path); for the first `SPIN_SEEDS`, when SPIN is
installed, SPIN's state count, verdicts and trails must agree too. A seed
that fails is a kernel bug: fix it, and keep the seed's spec as a regression
test (`test_spin_weighs_a_step_with_arguments_as_its_transitions` is one).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import pytest
from families import random_spec

from models.kernel import Bool
from models.kernel import IntRange
from models.kernel import Kind
from models.kernel import Output
from models.kernel import Param
from models.kernel import Property
from models.kernel import Real
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import and_
from models.kernel import eq
from models.kernel import lt
from models.kernel import param
from models.kernel import row
from models.kernel import sometimes
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.explore import explore
from models.kernel.explore import initial_states
from models.kernel.expr import Env
from models.kernel.expr import evaluate
from models.kernel.oracle import NotTotal
from models.kernel.oracle import Oracle
from models.kernel.smt import Found
from models.kernel.spin import disagreements
from models.kernel.spin import explorer_verdict
from models.kernel.spin import run_spin
from models.kernel.spin import tools_missing
from models.kernel.spin import transitions
from models.kernel.vacuity import premises

SEEDS = range(40)  # the oracle against the explorer: cheap
Z3_SEEDS = range(30)  # verify and z3: about a second each
SPIN_SEEDS = range(12)  # a gcc build each (cached under build/spin)

State = tuple[Any, ...]
Edge = tuple[State, str, tuple[Any, ...], str, State, tuple[Any, ...]]


@dataclass
class OracleGraph:
    """The oracle's reachable graph, found breadth-first by firing every trigger."""

    spec: Spec
    depth: dict[State, int] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    undefined: list[tuple[State, str, tuple[Any, ...]]] = field(default_factory=list)

    def state(self, key: State) -> dict[str, Any]:
        return dict(zip([v.name for v in self.spec.vars], key, strict=True))

    def env(self, e: Edge) -> Env:
        source, trigger, params, row, target, outputs = e
        return Env(
            pre=self.state(source),
            post=self.state(target),
            params=dict(params),
            outputs=dict(outputs),
            trigger=trigger,
            row=row,
            group=self.spec.group_of(trigger),
        )

    def shortest(self, pred: Any, step: bool) -> int | None:
        """The length of the shortest path to a state (or through a step) meeting `pred`."""
        if step:
            hits = [self.depth[e[0]] + 1 for e in self.edges if evaluate(pred, self.env(e))]
        else:
            hits = [d for s, d in self.depth.items() if evaluate(pred, Env(pre=self.state(s)))]
        return min(hits, default=None)


def _items(m: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(m.items()))


def oracle_graph(spec: Spec) -> OracleGraph:
    graph = OracleGraph(spec)
    names = [v.name for v in spec.vars]
    oracle = Oracle(spec)
    queue: deque[State] = deque()
    for init in initial_states(spec):
        key = tuple(init[n] for n in names)
        if key not in graph.depth:
            graph.depth[key] = 0
            queue.append(key)
    while queue:
        key = queue.popleft()
        for t in spec.triggers:
            for params in spec.param_assignments(t.name):
                oracle.load(graph.state(key))
                try:
                    fired = oracle.fire(t.name, **params)
                except NotTotal:
                    graph.undefined.append((key, t.name, _items(params)))
                    continue
                target = tuple(fired.state[n] for n in names)
                graph.edges.append(
                    (key, t.name, _items(params), fired.row, target, _items(fired.outputs))
                )
                if target not in graph.depth:
                    graph.depth[target] = graph.depth[key] + 1
                    queue.append(target)
    return graph


def expected(graph: OracleGraph, p: Property) -> tuple[str, int | None]:
    """The verdict the oracle's complete graph gives `p`, and its shortest trace's length."""
    hit = graph.shortest(p.bad, p.over_steps)
    if p.kind is Kind.SOMETIMES:
        return ("witnessed" if hit is not None else "violated"), hit
    return ("violated" if hit is not None else "proved"), hit


def structural(graph: OracleGraph) -> dict[str, tuple[str, int | None]]:
    """Each structural check's verdict from the oracle's graph, with its trace's length."""
    spec = graph.spec
    ignores = {r.name for r in spec.rows if r.ignore}
    live = {e[0] for e in graph.edges if e[3] not in ignores}
    terminal = spec.terminal

    def done(s: State) -> bool:
        return terminal is not None and bool(evaluate(terminal, Env(pre=graph.state(s))))

    undefined = [graph.depth[s] for s, _, _ in graph.undefined]
    stuck = [d for s, d in graph.depth.items() if s not in live and not done(s)]
    out: dict[str, tuple[str, int | None]] = {
        "determinism": ("proved", None),
        "totality": ("violated", min(undefined)) if undefined else ("proved", None),
        "no-deadlock": ("violated", min(stuck)) if stuck else ("proved", None),
        "reachable-set": ("proved", None),
    }
    if terminal is not None:
        moved = [graph.depth[e[0]] + 1 for e in graph.edges if done(e[0]) and e[0] != e[4]]
        out["terminal-absorbing"] = ("violated", min(moved)) if moved else ("proved", None)
    return out


def dead_rows(graph: OracleGraph) -> list[str]:
    fired = {e[3] for e in graph.edges}
    return [r.name for r in graph.spec.rows if r.name not in fired]


def vacuous(graph: OracleGraph) -> list[str]:
    return [
        prop
        for prop, step, premise in premises(graph.spec)
        if graph.shortest(premise, step) is None
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_explorer_reaches_what_the_oracle_reaches(seed: int) -> None:
    spec = random_spec(seed)
    ours, theirs = explore(spec), oracle_graph(spec)
    assert {ours.states[i]: ours.depth[i] for i in range(len(ours.states))} == theirs.depth
    assert list(ours.states) == sorted(ours.states, key=lambda s: theirs.depth[s])
    edges = [
        (
            ours.states[e.source],
            e.trigger,
            _items(e.params),
            e.row,
            ours.states[e.target],
            _items(e.outputs),
        )
        for e in ours.iter_edges()
    ]
    # Sorted by repr: enum members do not compare.
    assert sorted(edges, key=repr) == sorted(theirs.edges, key=repr)
    undefined = [(ours.states[i], t, _items(p)) for i, t, p in ours.undefined]
    assert sorted(undefined, key=repr) == sorted(theirs.undefined, key=repr)
    for i in range(len(ours.states)):
        assert len(ours.path_to(i)) == ours.depth[i]


@pytest.mark.parametrize("seed", Z3_SEEDS)
def test_verify_and_z3_give_the_oracle_graphs_verdicts(seed: int) -> None:
    spec = random_spec(seed)
    graph = oracle_graph(spec)
    checker = Checker(spec)
    results = {r.id: r for r in checker.run()}
    assert not [(r.id, r.detail) for r in results.values() if r.verdict == "unknown"]
    for p in spec.properties:
        verdict, length = expected(graph, p)
        got = results[p.name]
        assert got.verdict == verdict, (p.name, got.detail)
        assert (None if got.trace is None else len(got.trace)) == length, p.name
        # z3 alone finds the same shortest trace (verify itself takes the explorer's and
        # has z3 confirm it); where there is none, verify's verdict is already z3's proof.
        if length is not None:
            found = checker.z3.bmc(p.bad, step=p.over_steps, max_depth=length)
            assert isinstance(found, Found) and len(found.trace) == length, p.name
        else:
            assert got.method != "bfs" and got.certificate, p.name
    for check, (verdict, length) in structural(graph).items():
        got = results[check]
        assert got.verdict == verdict, (check, got.detail)
        if length is not None:
            assert got.trace is not None and len(got.trace) == length, check
    dead = dead_rows(graph)
    assert results["rows-fire"].verdict == ("violated" if dead else "witnessed")
    if dead:
        assert results["rows-fire"].detail == f"rows that never fire: {', '.join(dead)}"
    empty = vacuous(graph)
    assert results["vacuity"].verdict == ("violated" if empty else "proved")
    assert [d.split(":")[0] for d in results["vacuity"].detail.split("; ") if d] == empty


@pytest.mark.skipif(bool(tools_missing()), reason="SPIN is not installed (make spin)")
@pytest.mark.parametrize("seed", SPIN_SEEDS)
def test_spin_agrees_on_random_specs(seed: int) -> None:
    spec = random_spec(seed)
    graph = explore(spec)
    result = run_spin(spec)
    assert result.states == len(oracle_graph(spec).depth)
    assert disagreements(spec, result, graph) == []


@pytest.mark.skipif(bool(tools_missing()), reason="SPIN is not installed (make spin)")
def test_spin_weighs_a_step_with_arguments_as_its_transitions() -> None:
    """Found by seeds 0 and 1: a real output's default outside the samples had no Promela
    code, and SPIN's shortest trail is shortest in pan's transitions, not in steps."""
    weight = Real(samples=(1.0,))
    spec = Spec(
        name="weighed",
        source="tests/test_random_specs.py",
        vars=(Var("f", Bool(), False), Var("n", IntRange(0, 2), 0)),
        triggers=(Trigger("tick"), Trigger("put", (Param("k", Bool()), Param("kg", weight)))),
        outputs=(Output("mass", weight, 0.0),),
        rows=(
            row(
                "tick", "tick", None, guard=lt(var("n"), 2), sets={"n": add(var("n"), 1)}, cite="t"
            ),
            row("tick_set", "tick", None, guard=eq(var("n"), 2), sets={"f": True}, cite="t"),
            row("put", "put", None, sets={"f": param("k")}, emits={"mass": param("kg")}, cite="t"),
        ),
        properties=(sometimes("set", and_(var("f")), cite="t"),),
    )
    graph = explore(spec)
    result = run_spin(spec)
    assert disagreements(spec, result, graph) == []
    _, hit = explorer_verdict(graph, spec.properties[0])
    trail = result.verdicts["set"].trace
    assert hit is not None and trail is not None
    # put(k=true) is one step of 4 transitions; tick, tick, tick are 3 steps of 1 each.
    assert [s.row for s in hit.steps] == ["put"] and transitions(spec, hit) == 4
    assert [s.row for s in trail.steps] == ["tick", "tick", "tick_set"]
    assert transitions(spec, trail) == 3
