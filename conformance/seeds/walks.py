"""Walks generated from the model: what the seed and impl are both driven through.

Three kinds, all from the one spec: every row's shortest witness (of a seed variant
too: `witness_walks`), every edge of
the explorer's graph when the graph is small (the shortest path to its source,
then the edge), and seeded random walks over every trigger. A random real
argument is drawn from the domain's samples, a few values that f32 cannot hold
exactly (0.49999999 rounds up to the 0.50 barge floor; 1e39 overflows; 1e-46
underflows), NaN, and uniform draws.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models.kernel.domains import Domain
from models.kernel.domains import Option
from models.kernel.domains import Real
from models.kernel.domains import Value
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.explore import initial_states
from models.kernel.spec import Spec
from models.kernel.trace import Trace
from models.kernel.tracecheck import stepper_for
from models.kernel.values import encode

EDGE_LIMIT = 3000  # "the graph is small": every edge gets its own walk below this
SPECIAL_REALS = (0.49999999, 0.5, 1e39, -1e39, 1e-46, float("nan"), 0.0)


@dataclass(frozen=True)
class Walks:
    walks: list[dict[str, Any]]
    kinds: dict[str, int]  # how many of each kind


def trace_walk(spec: Spec, trace: Trace) -> dict[str, Any]:
    return {
        "init": {k: encode(spec.var(k).domain, v) for k, v in trace.init.items()},
        "steps": [_step(spec, s.trigger, dict(s.params)) for s in trace.steps],
    }


def witness_walks(spec: Spec, graph: Exploration | None = None) -> list[dict[str, Any]]:
    """Every row's shortest witness, as a walk."""
    graph = graph or explore(spec)
    return [trace_walk(spec, graph.path_through(e)) for e in graph.row_witnesses().values()]


def _step(spec: Spec, trigger: str, args: dict[str, Value]) -> dict[str, Any]:
    params = {p.name: p.domain for p in spec.trigger(trigger).params}
    return {"trigger": trigger, "args": {k: encode(params[k], v) for k, v in args.items()}}


def _draw(domain: Domain, rnd: random.Random) -> Value:
    if isinstance(domain, Real):
        pick = rnd.random()
        if pick < 0.4:
            return rnd.choice(domain.samples)
        if pick < 0.6:
            return rnd.choice(SPECIAL_REALS)
        return rnd.uniform(-0.5, 1.5)
    if isinstance(domain, Option) and isinstance(domain.inner, Real):
        return None if rnd.random() < 0.2 else _draw(domain.inner, rnd)
    values = domain.values
    assert values is not None
    return rnd.choice(values)


Enabled = Callable[[str, Mapping[str, Value]], bool]


def model_walks(
    spec: Spec, *, random_walks: int, length: int, seed: int = 8, enabled: Enabled | None = None
) -> Walks:
    """The walks for one spec. A random walk follows the model, choosing at each step among
    the triggers `enabled(trigger, state)` allows (a conformance driver's `enabled`: what the
    implementation can be asked in that model state); all of them when it is None."""
    graph = explore(spec)
    walks = witness_walks(spec, graph)
    kinds: dict[str, int] = {"row witnesses": len(walks)}
    if len(graph.edges) <= EDGE_LIMIT:
        for edge in graph.edges:
            walks.append(trace_walk(spec, graph.path_through(edge)))
        kinds["explorer edges"] = len(graph.edges)
    rnd = random.Random(seed)
    starts = initial_states(spec)
    stepper = stepper_for(spec)
    names = [v.name for v in spec.vars]
    for _ in range(random_walks):
        init = rnd.choice(starts)
        state = tuple(init[n] for n in names)
        steps = []
        for _ in range(rnd.randint(1, length)):
            here = stepper.as_dict(state)
            choices = [t for t in spec.triggers if enabled is None or enabled(t.name, here)]
            if not choices:
                break
            trigger = rnd.choice(choices)
            args = {p.name: _draw(p.domain, rnd) for p in trigger.params}
            after = [s for _, s, _ in stepper.successors(state, trigger.name, args)]
            if not after:  # not total here: the totality check reports it; walk on elsewhere
                continue
            state = rnd.choice(after)
            steps.append(_step(spec, trigger.name, args))
        walks.append(
            {"init": {k: encode(spec.var(k).domain, v) for k, v in init.items()}, "steps": steps}
        )
    kinds["random walks"] = random_walks
    return Walks(walks, kinds)
