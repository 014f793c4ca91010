"""The explicit-state explorer: breadth-first search over the oracle.

It computes the complete reachable set (real variables drawn from their
declared samples), every edge, the shortest path to each state and the
shortest witness for each row. BFS order makes every path it returns a
shortest one.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .domains import Value
from .expr import Env, Expr, compiled
from .oracle import NotTotal, Oracle
from .spec import Spec
from .trace import Step, Trace

State = tuple[Value, ...]


@dataclass(frozen=True)
class Edge:
    source: int
    row: str
    trigger: str
    params: Mapping[str, Value]
    target: int
    outputs: Mapping[str, Value]


@dataclass
class Exploration:
    spec: Spec
    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    depth: list[int] = field(default_factory=list)
    parent: list[Edge | None] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    # Firings no row answered: the spec is not total there (the totality check reports it).
    undefined: list[tuple[int, str, Mapping[str, Value]]] = field(default_factory=list)
    seconds: float = 0.0
    _envs: list[Env] = field(default_factory=list, repr=False)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.spec.vars]

    def as_dict(self, i: int) -> dict[str, Value]:
        return dict(zip(self.names, self.states[i], strict=True))

    def _env_of(self, edge_index: int) -> Env:
        # Every property reads every edge: build each edge's view once.
        if not self._envs:
            self._envs = [self.edge_env(e) for e in self.edges]
        return self._envs[edge_index]

    @property
    def diameter(self) -> int:
        return max(self.depth, default=0)

    def path_to(self, i: int) -> Trace:
        edges: list[Edge] = []
        while (edge := self.parent[i]) is not None:
            edges.append(edge)
            i = edge.source
        edges.reverse()
        return Trace(self.as_dict(i), tuple(self._step(e) for e in edges))

    def path_through(self, edge: Edge) -> Trace:
        head = self.path_to(edge.source)
        return Trace(head.init, (*head.steps, self._step(edge)))

    def _step(self, edge: Edge) -> Step:
        return Step(edge.row, edge.trigger, edge.params, self.as_dict(edge.target), edge.outputs)

    def edge_env(self, edge: Edge) -> Env:
        return Env(
            pre=self.as_dict(edge.source),
            post=self.as_dict(edge.target),
            params=edge.params,
            outputs=edge.outputs,
            trigger=edge.trigger,
            row=edge.row,
            group=self.spec.group_of(edge.trigger),
        )

    def first_state(self, pred: Expr) -> int | None:
        """The shallowest state satisfying a state predicate (BFS order)."""
        test = compiled(pred)
        for i in range(len(self.states)):
            if test(Env(pre=self.as_dict(i))):
                return i
        return None

    def first_edge(self, pred: Expr | Callable[[Edge], bool]) -> Edge | None:
        """The edge satisfying a step predicate with the shortest path through it."""
        # Edges are recorded in BFS order of their source, so the first hit is a shallowest one.
        test = compiled(pred) if isinstance(pred, Expr) else None
        for k, edge in enumerate(self.edges):
            if test(self._env_of(k)) if test is not None else pred(edge):  # type: ignore[operator]
                return edge
        return None

    def row_witnesses(self) -> dict[str, Edge]:
        """For each row that can fire, the edge with the shortest path through it."""
        found: dict[str, Edge] = {}
        for edge in self.edges:
            best = found.get(edge.row)
            if best is None or self.depth[edge.source] < self.depth[best.source]:
                found[edge.row] = edge
        return found


def initial_states(spec: Spec) -> list[dict[str, Value]]:
    names = [v.name for v in spec.vars]
    return [
        dict(zip(names, combo, strict=True))
        for combo in itertools.product(*(v.inits for v in spec.vars))
    ]


def explore(spec: Spec, *, max_states: int = 200_000) -> Exploration:
    """Breadth-first search of every reachable state, stepping the oracle."""
    started = time.perf_counter()
    oracle = Oracle(spec)
    result = Exploration(spec)
    names = result.names
    queue: deque[int] = deque()

    def add(state: State, depth: int, parent: Edge | None) -> int:
        known = result.index.get(state)
        if known is not None:
            return known
        if len(result.states) >= max_states:
            raise RuntimeError(f"spec {spec.name!r}: more than {max_states} reachable states")
        result.index[state] = len(result.states)
        result.states.append(state)
        result.depth.append(depth)
        result.parent.append(parent)
        queue.append(result.index[state])
        return result.index[state]

    for init in initial_states(spec):
        add(tuple(init[n] for n in names), 0, None)
    firings = [(t.name, params) for t in spec.triggers for params in spec.param_assignments(t.name)]
    while queue:
        i = queue.popleft()
        current = result.as_dict(i)
        for trigger, params in firings:
            oracle.load(current)
            try:
                fired = oracle.fire(trigger, **params)
            except NotTotal:
                result.undefined.append((i, trigger, params))
                continue
            target = tuple(fired.state[n] for n in names)
            pending = Edge(i, fired.row, trigger, fired.params, -1, fired.outputs)
            j = result.index.get(target)
            if j is None:
                j = len(result.states)
                pending = Edge(i, fired.row, trigger, fired.params, j, fired.outputs)
                add(target, result.depth[i] + 1, pending)
            else:
                pending = Edge(i, fired.row, trigger, fired.params, j, fired.outputs)
            result.edges.append(pending)
    result.seconds = time.perf_counter() - started
    return result
