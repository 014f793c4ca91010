"""The concrete PolicyTake cell against its one-watched-policy abstraction.

Both specs are instantiated from one definition in `models/policy.py` (the
rows, properties and variant are shared; only what a slot stores differs).
The abstraction stays because conformance drives it and its 15 states keep
the diagram readable; it must give the verdict the concrete model gives, on
every property of the spec and of its variant.
"""

from __future__ import annotations

import pytest

from models import policy as m
from models.kernel import Spec
from models.kernel.checks import Checker
from models.kernel.explore import explore


def _verdicts(spec: Spec) -> dict[str, str]:
    checker = Checker(spec)
    names = [p.name for p in spec.properties] + [p.name for p in spec.liveness]
    return {name: next(checker.run(only=name)).verdict for name in names}


@pytest.mark.parametrize("variant", [None, "eager-reading", "copies-the-arrival"])
def test_the_abstraction_and_the_concrete_cell_agree_on_every_verdict(variant: str | None) -> None:
    abstract, concrete = m.POLICY_SPEC, m.POLICY_CONCRETE_SPEC
    if variant is not None:
        abstract, concrete = abstract.with_variant(variant), concrete.with_variant(variant)
    verdicts = _verdicts(concrete)
    assert verdicts == _verdicts(abstract)
    assert set(verdicts) == {p.name for p in concrete.properties} | {
        p.name for p in concrete.liveness
    }
    expected = {"violated"} if variant else {"proved", "witnessed"}
    assert set(verdicts.values()) == expected


def test_the_concrete_cell_holds_every_policy_in_every_slot() -> None:
    graph = explore(m.POLICY_CONCRETE_SPEC)
    assert len(graph.states) > len(m.POLICIES) ** 2  # (in force, pending) pairs and the ghosts
    for slot in ("in_force", "wave_start"):
        assert {graph.as_dict(i)[slot] for i in range(len(graph.states))} == set(m.POLICIES)
    for slot in ("pending", "last_arrival", "last_note"):
        seen = {graph.as_dict(i)[slot] for i in range(len(graph.states))}
        assert seen == {None, *m.POLICIES}


def test_both_cells_share_one_table() -> None:
    abstract, concrete = m.POLICY_SPEC, m.POLICY_CONCRETE_SPEC
    assert [r.name for r in abstract.rows] == [r.name for r in concrete.rows]
    assert [(r.cite, r.source, r.target) for r in abstract.rows] == [
        (r.cite, r.source, r.target) for r in concrete.rows
    ]
    # One `cell_properties`: the same requirements, each with its cell's arrival.
    assert [(p.name, p.kind, p.cite, p.doc) for p in abstract.properties] == [
        (p.name, p.kind, p.cite, p.doc) for p in concrete.properties
    ]
    pairs = zip(abstract.properties, concrete.properties, strict=True)
    differ = [a.name for a, c in pairs if a != c]
    assert differ == ["a-change-lands-in-the-mailbox"]
    assert abstract.variants == concrete.variants
