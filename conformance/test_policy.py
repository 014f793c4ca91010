"""impl.mode against the `policy` and `admission` models (seed `mode.rs`, policy-take.md).

- `policy`: the driver runs a `PolicyCell`, one gate's `PolicyReader`, and
  the notes window that the driver loop appends to (§2 taking (2)). It is run
  in lockstep over change/wave/call, with one rule per step kind, and every
  row's shortest model witness is replayed (rows change_arrives,
  change_overrides, wave_takes_arrival, wave_takes_nothing,
  call_reads_in_force). The model watches one policy (see models/policy.py),
  so the driver maps each concrete policy it sees to WATCHED or OTHER.
- The threaded run (four gates reading while waves are taken) is in
  `test_policy_threads.py`.
- `admission`: every input of both triggers goes through the oracle and
  through `impl.mode`: 1,728 `admits` inputs, and `mode_admits` for all 32
  policies with every tool name. A refusal is recognised by the canonical
  input of its line in §5's table, not by the model's rows.

The drivers (conformance/drivers/policy.py and admission.py) only translate
vocabulary. The transition tables live in models/policy.py alone.
"""

from __future__ import annotations

import itertools

import pytest

import impl.mode as i
from conformance.drivers.admission import ADMISSION
from conformance.drivers.admission import REFUSALS
from conformance.drivers.admission import Outcome
from conformance.drivers.admission import gate_allows
from conformance.drivers.policy import ALL_POLICIES
from conformance.drivers.policy import CELL
from conformance.drivers.policy import NOTED
from conformance.drivers.policy import to_impl
from conformance.harness import compare
from conformance.harness import replay_row
from conformance.harness import run_lockstep
from models import policy as m
from models.kernel.explore import initial_states
from models.kernel.expr import Const
from models.kernel.expr import Ref
from models.kernel.expr import eq
from models.kernel.expr import param
from models.kernel.expr import walk
from models.kernel.oracle import Oracle


def test_every_cell_trigger_is_driven() -> None:
    assert {t.name for t in m.POLICY_SPEC.triggers} == {"change", "wave", "call"}
    assert [s["in_force"] for s in initial_states(m.POLICY_SPEC)] == [m.OTHER]


def test_the_note_names_the_policy_it_was_taken_for() -> None:
    # Reading a policy back from its note is only sound if no two policies share a note.
    assert len(NOTED) == len(ALL_POLICIES) == 32


def test_the_cell_tells_policies_apart_only_by_the_watched_one() -> None:
    """What the model's symmetry argument rests on, and `seen` with it: no guard reads the
    arrival, and every other use of it compares it with the watched policy."""
    probe = eq(param("policy"), m.WATCHED_POLICY)
    for r in m.POLICY_SPEC.rows:
        assert not any(isinstance(n, Ref) and n.scope == "param" for n in walk(r.guard))
        for expr in (*r.updates.values(), *r.outputs.values()):
            nodes = walk(expr)
            reads = sum(n == param("policy") for n in nodes)
            assert sum(n == probe for n in nodes) == reads, r.name
            constants = [n.value for n in nodes if isinstance(n, Const)]
            assert [c for c in constants if isinstance(c, m.Policy)] == [m.WATCHED_POLICY] * reads


@pytest.mark.parametrize("row", [r.name for r in m.POLICY_SPEC.rows])
def test_replay_cell_row_witness(row: str) -> None:
    """Every row's shortest model witness runs the same on the implementation."""
    replay_row(CELL, row)


def test_cell_lockstep() -> None:
    run_lockstep(CELL)


def test_the_model_counterexample_splits_a_wave_only_under_eager_reading() -> None:
    """The checker's trace against eager reading, replayed: the real cell keeps the wave whole."""
    trace = [("change", {"policy": m.WATCHED_POLICY}), ("call", {})]
    eager = Oracle(m.POLICY_SPEC.with_variant("eager-reading"))
    model = Oracle(m.POLICY_SPEC)
    run = CELL.start(model.state)
    for trigger, params in trace:
        eager_read = eager.fire(trigger, **params).outputs["read"]
        fired = model.fire(trigger, **params)
        compare(f"{trigger} outputs", fired.outputs, CELL.fire(run, trigger, params))
    assert eager_read is m.WATCHED and fired.outputs["read"] is m.OTHER


# ================================================================ admission: the table


def test_the_seven_refusals_are_told_apart_and_say_what_the_seed_pins() -> None:
    assert len(REFUSALS) == 7, "two lines of §5's table share one refusal"
    by_outcome = {outcome: refusal for refusal, outcome in REFUSALS.items()}
    assert "no tests" in by_outcome[Outcome.NO_TESTS].because
    assert "did not pass" in by_outcome[Outcome.TESTS_FAILED].because
    assert "held-out" in by_outcome[Outcome.FAILED_HELD_OUT].because
    assert "double_validated" in by_outcome[Outcome.CONTRACT_MOVED].alternative


@pytest.mark.parametrize("row", [r.name for r in m.ADMISSION_SPEC.rows])
def test_replay_admission_row_witness(row: str) -> None:
    replay_row(ADMISSION, row)


def test_admits_agrees_with_the_model_on_every_input() -> None:
    oracle = Oracle(m.ADMISSION_SPEC)
    assignments = m.ADMISSION_SPEC.param_assignments("admits")
    assert len(assignments) == 32 * 3 * 2 * 3 * 3 == 1728
    for params in assignments:
        fired = oracle.fire("admits", **params)
        compare(
            f"admits({params}) [row {fired.row}]",
            fired.outputs,
            ADMISSION.fire(None, "admits", params),
        )


def test_mode_admits_agrees_with_the_model_for_every_policy_and_tool() -> None:
    oracle = Oracle(m.ADMISSION_SPEC)
    for policy, tool in itertools.product(m.POLICIES, m.TOOL.values):
        fired = oracle.fire("mode_admits", mode=policy.mode, tool=tool)
        assert gate_allows(to_impl(policy), tool) is fired.outputs["allowed"], (policy, tool)
        assert i.in_some_core(tool) is fired.outputs["judged"], tool
    assert set(i.TOOLS) == set(m.TOOL_NAMES) == set(m.IN_SOME_CORE)
    assert {mode: i.core_tools(i.Mode(mode.value)) for mode in m.Mode} == m.CORES
