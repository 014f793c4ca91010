"""The free structural check `vacuity`: every antecedent of an implication is reachable.

A property `always(implies(A, B))` whose `A` never holds on a reachable
state (or step) is true of any model and checks nothing. The explorer's graph
is complete, so it decides this exactly: each premise must hold on some
reachable state (a state predicate) or some reachable step (a step
predicate, or any premise of a property over steps). It covers every spec's
properties; the kernel runs it beside determinism, totality and the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from .explore import Exploration
from .expr import Bound
from .expr import Expr
from .expr import Implies
from .expr import Quant
from .expr import is_step_expr
from .expr import walk
from .printer import show
from .spec import Spec


@dataclass(frozen=True)
class Vacuous:
    """A premise no reachable state or step satisfies."""

    prop: str
    premise: Expr
    step: bool  # a step predicate (else a state predicate)

    def describe(self) -> str:
        return f"{self.prop}: the premise {show(None, self.premise)} is never reachable"


def premises(spec: Spec) -> list[tuple[str, bool, Expr]]:
    """(property, over steps, premise) for every implication in every property, as written."""
    found: list[tuple[str, bool, Expr]] = []
    for p in spec.properties:
        step = p.over_steps
        # The premise as expanded (`enabled()` rewritten), so the explorer can evaluate it.
        for premise in _premises(p.pred, ()):
            found.append((p.name, step or is_step_expr(premise), premise))
    return found


def _premises(expr: Expr, binders: tuple[Quant, ...]) -> list[Expr]:
    """Each implication's premise; one inside quantifiers is closed by `exists` over the
    variables it reads (it must hold for some binding, not for each)."""
    found: list[Expr] = []
    if isinstance(expr, Implies):
        premise = expr.premise
        for q in reversed(binders):
            if any(isinstance(n, Bound) and n.name == q.name for n in walk(premise)):
                premise = Quant("any", q.name, q.domain, premise)
        found.append(premise)
    inner = (*binders, expr) if isinstance(expr, Quant) else binders
    for child in expr.children():
        found += _premises(child, inner)
    return found


def vacuous(spec: Spec, graph: Exploration) -> list[Vacuous]:
    """Every premise that holds nowhere in the explorer's complete graph, in property order.

    Both kinds are decided by the explorer's compiled tests over its packed states, so no
    state is unpacked into a dict: at 10^6 states that copy cost more than the search."""
    bad: list[Vacuous] = []
    found = premises(spec)
    graph.prefetch(
        states=[premise for _, step, premise in found if not step],
        steps=[premise for _, step, premise in found if step],
    )
    for prop, step, premise in found:
        if step:
            hit = graph.first_edge(premise) is not None
        else:
            hit = graph.first_state(premise) is not None
        if not hit:
            bad.append(Vacuous(prop, premise, step))
    return bad
