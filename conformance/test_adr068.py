"""impl held to the closed ADR-068 loop (models/adr068.py), not just to its own machine.

`impl.duplex.DuplexChannel` plays the loop's `daemon` component in lockstep, the
other components (ECC's floor gate, the edge reflex, the link) played by the
model; then `impl.ecc` plays the gate and `impl.edge` the edge as well.
`SystemDriver` (conformance/harness.py) fires each system step on the model and
gives each played component the call its row in that step answers; the step's
outputs and the played components' states are compared after every step. The
component drivers (the ERL classes' translation, ECC's held claim) live in
conformance/drivers/adr068.py, where the mutant gate finds the loop's driver too.
Every daemon row the loop can fire must be hit, and so must every row of the gate
and the edge when they are played.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from functools import cache

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import impl.ecc as ecc
from conformance.drivers.adr068 import ERL
from conformance.drivers.adr068 import played
from conformance.harness import EXAMPLES_PER_MISSED_ROW
from conformance.harness import TARGETED_RUNS
from conformance.harness import Coverage
from conformance.harness import Driver
from conformance.harness import SystemDriver
from conformance.harness import coverage_for
from conformance.harness import lockstep
from conformance.harness import replay
from conformance.harness import row_witnesses
from models import adr068
from models.kernel.compose import Origin
from models.kernel.trace import Trace

SPEC = adr068.SPEC
PLAYED: dict[str, Driver] = played()
# The loop has 14,276 states: fewer, shorter programs than a machine's, each starting
# half the time deep in the loop (at the end of a row's witness).
LOCKSTEP = settings(max_examples=60, stateful_step_count=25, deadline=None)


def _component_rows(hits: Counter[str], component: str) -> set[str]:
    """The component's own rows that these system rows fire."""
    assert SPEC.system is not None
    return {r for row in hits for c, r in SPEC.system.origins[row].parts if c == component}


@cache
def _witnesses() -> dict[str, Trace]:
    """Every system row's shortest witness (every row of the loop fires)."""
    return row_witnesses(SPEC)


def _drive(played: Mapping[str, Driver]) -> tuple[Coverage, Coverage]:
    """The loop with these components played by impl: every system row's shortest witness
    replayed, then lockstep (random programs, half of them from the end of a witness, and
    targeted runs for the rows of the played components still missed). The session's
    coverage record, which the report reads, gathers both. Returns (replay, lockstep)."""
    driver = SystemDriver(SPEC, played)
    replayed, stepped = Coverage(SPEC), Coverage(SPEC)
    for trace in _witnesses().values():
        replay(driver, trace, replayed)
    run_state_machine_as_test(lockstep(driver, stepped), settings=LOCKSTEP)
    for _ in range(TARGETED_RUNS):
        missed = {c: _rows_of(c) - _component_rows(stepped.hits, c) for c in played}
        rows = sorted(
            row
            for row, origin in _origins().items()
            if any(r in missed[c] for c, r in origin.parts if c in missed)
        )
        if not rows:
            break
        targeted = settings(LOCKSTEP, max_examples=EXAMPLES_PER_MISSED_ROW * len(rows))
        run_state_machine_as_test(lockstep(driver, stepped, starts_from=rows), settings=targeted)
    for kind, got in (("replay", replayed), ("lockstep", stepped)):
        coverage_for(kind, SPEC).hits.update(got.hits)
    return replayed, stepped


def _origins() -> Mapping[str, Origin]:
    assert SPEC.system is not None
    return SPEC.system.origins


def _rows_of(component: str) -> set[str]:
    assert SPEC.system is not None
    return {r.name for r in SPEC.system.part(component).spec.rows}


def test_impl_ecc_tells_the_erl_classes_apart_as_the_loops_gate() -> None:
    assert [ERL[c] for c in adr068.ADMITTED] == [0.5, 0.75]
    assert math.isnan(ERL[adr068.ErlClass.NAN]) and ERL[adr068.ErlClass.NEG_INF] == -math.inf
    for c, v in ERL.items():
        assert ecc.barge_admitted(v) is (c in adr068.ADMITTED), c


def test_the_loop_fires_every_row_of_its_components() -> None:
    """What the lockstep below must hit: every row of the daemon, the gate and the edge
    fires in some reachable step of the loop."""
    fired = Counter(_witnesses())
    assert set(fired) == {r.name for r in SPEC.rows}
    for component in PLAYED:
        assert _component_rows(fired, component) == _rows_of(component), component


def test_the_daemon_in_the_loop() -> None:
    """DuplexChannel as the loop's daemon, everything else the model: every daemon row is
    hit by the replayed witnesses and again by lockstep."""
    replayed, stepped = _drive({"daemon": PLAYED["daemon"]})
    assert _component_rows(replayed.hits, "daemon") == _rows_of("daemon")
    assert _component_rows(stepped.hits, "daemon") == _rows_of("daemon")


def test_the_whole_loop_in_impl() -> None:
    """DuplexChannel, impl.ecc and impl.edge together, only the link played by the model:
    every row of the daemon, the gate and the edge is hit in lockstep."""
    _, stepped = _drive(PLAYED)
    for component in PLAYED:
        missed = _rows_of(component) - _component_rows(stepped.hits, component)
        assert not missed, f"{component}: rows never hit in lockstep: {sorted(missed)}"
