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

The drivers only translate vocabulary. The transition tables live in
models/policy.py alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

import impl.mode as i
from conformance.harness import (
    BaseDriver,
    compare,
    replay_row,
    run_lockstep,
)
from models import policy as m
from models.kernel.domains import Value
from models.kernel.explore import initial_states
from models.kernel.expr import Const, Ref, eq, param, walk
from models.kernel.oracle import Oracle


def to_impl(policy: m.Policy) -> i.RunPolicy:
    return i.RunPolicy(
        i.Mode(policy.mode.value),
        i.WriteLimit(policy.write.value),
        i.AdmissionRequirement(policy.admit.value),
        i.LandingPolicy(policy.landing.value),
    )


ALL_POLICIES = [to_impl(p) for p in m.POLICIES]
WATCHED = to_impl(m.WATCHED_POLICY)
START = to_impl(m.UPSTREAM_START)
# The driver loop's note names the policy it took; this reads the policy back from the note.
NOTED = {i.policy_note(p): p for p in ALL_POLICIES}


def seen(policy: i.RunPolicy | None) -> m.Watch | None:
    """A concrete policy as the model sees it: the watched one, or another."""
    if policy is None:
        return None
    return m.WATCHED if policy == WATCHED else m.OTHER


# ================================================================ policy: the cell


@dataclass
class Run:
    """What a run's driver loop holds: the cell, one write gate's reader, the notes appended."""

    cell: i.PolicyCell
    gate: i.PolicyReader
    window: list[str] = field(default_factory=list)


class CellDriver(BaseDriver):
    spec = m.POLICY_SPEC

    def start(self, init: Mapping[str, Value]) -> Run:
        # The model's run starts under a policy other than the watched one: upstream's start.
        assert init["in_force"] is m.OTHER and START != WATCHED
        cell = i.PolicyCell(START)
        return Run(cell, cell.reader())

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        run: Run = impl
        outputs: dict[str, Value] = {"read": None, "taken": None, "note": None}
        if trigger == "change":
            run.cell.arrive(to_impl(params["policy"]))
        elif trigger == "wave":
            taken = run.cell.take_at_wave()
            outputs["taken"] = seen(taken)
            if taken is not None:
                # The driver loop appends one note after the wave's results (D28 taking (2)).
                run.window.append(i.policy_note(taken))
                outputs["note"] = seen(NOTED[run.window[-1]])
        else:
            assert trigger == "call"
            outputs["read"] = seen(run.gate.now())
        return outputs

    def observe(self, impl: Any) -> dict[str, Value]:
        run: Run = impl
        return {
            "in_force": seen(run.gate.now()),
            "notes": min(len(run.window), m.CAP),
            "last_note": seen(NOTED[run.window[-1]]) if run.window else None,
        }


CELL = CellDriver()


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

Outcome = m.Outcome
A = i.AdmissionRequirement


def _work(admit: i.AdmissionRequirement, landing: i.LandingPolicy) -> i.RunPolicy:
    return i.RunPolicy(i.Mode.WORK, i.WriteLimit.FULL, admit, landing)


ORDINARY, EXPERIMENT = i.LandingPolicy.ORDINARY, i.LandingPolicy.EXPERIMENT
# Each refusal of §5's table, asked for with the input its line names.
CANONICAL: dict[Outcome, tuple[i.RunPolicy, i.Produced]] = {
    Outcome.EXPERIMENT_NEVER_LANDS: (_work(A.STANDING, EXPERIMENT), i.Produced()),
    Outcome.TESTS_FAILED: (_work(A.TESTED, ORDINARY), i.Produced(tests_passed=False)),
    Outcome.NO_TESTS: (_work(A.TESTED, ORDINARY), i.Produced()),
    Outcome.CONTRACT_MOVED: (_work(A.CONTRACT_KEPT, ORDINARY), i.Produced(contract_moved=True)),
    Outcome.WORSE_HELD_IN: (_work(A.DOUBLE_VALIDATED, ORDINARY), i.Produced(held_in=False)),
    Outcome.FAILED_HELD_OUT: (
        _work(A.DOUBLE_VALIDATED, ORDINARY),
        i.Produced(held_in=True, held_out=False),
    ),
    Outcome.HALF_MISSING: (_work(A.DOUBLE_VALIDATED, ORDINARY), i.Produced(held_in=True)),
}


def _refusals() -> dict[i.Refused, Outcome]:
    found: dict[i.Refused, Outcome] = {}
    for outcome, (policy, produced) in CANONICAL.items():
        answer = i.admits(policy, produced)
        assert isinstance(answer, i.Refused), f"{outcome.value}: the canonical input landed"
        found[answer] = outcome
    return found


REFUSALS = _refusals()


def outcome_of(answer: i.Admission) -> Outcome:
    if isinstance(answer, i.Lands):
        return Outcome.LANDS
    assert answer in REFUSALS, f"a refusal that is none of §5's seven: {answer}"
    return REFUSALS[answer]


def _other(mode: i.Mode) -> i.Mode:
    return i.Mode.WORK if mode is i.Mode.CHAT else i.Mode.CHAT


class AdmissionDriver(BaseDriver):
    """Stateless: each step asks `admits` or `mode_admits` once, and reports as the model does."""

    spec = m.ADMISSION_SPEC

    def start(self, init: Mapping[str, Value]) -> None:
        return None

    def fire(self, impl: Any, trigger: str, params: Mapping[str, Value]) -> dict[str, Value]:
        # The outputs the other trigger sets keep their declared defaults.
        outputs = {o.name: o.default for o in self.spec.outputs}
        if trigger == "admits":
            policy = to_impl(
                m.Policy(params["mode"], params["write"], params["admit"], params["landing"])
            )
            produced = i.Produced(
                params["tests_passed"],
                params["contract_moved"],
                params["held_in"],
                params["held_out"],
            )
            outcome = outcome_of(i.admits(policy, produced))
            flipped = i.RunPolicy(_other(policy.mode), policy.write, policy.admit, policy.landing)
            echoed = {k: v for k, v in params.items() if k in m.ECHO_ADMITS}
            outputs.update(echoed)
            outputs["outcome"] = outcome
            outputs["decides_in_other_mode"] = outcome_of(i.admits(flipped, produced)) is outcome
        else:
            assert trigger == "mode_admits"
            mode = i.Mode(params["mode"].value)
            # The model's gate reads only the mode; the exhaustive test tries every policy.
            allowed = gate_allows(i.RunPolicy.of(mode), params["tool"])
            outputs.update(
                mode=params["mode"],
                tool=params["tool"],
                allowed=allowed,
                judged=i.in_some_core(params["tool"]),
            )
        return outputs

    def observe(self, impl: Any) -> dict[str, Value]:
        return {}


def gate_allows(policy: i.RunPolicy, tool: str) -> bool:
    try:
        i.mode_admits(policy, tool)
    except i.AxError as refused:
        assert refused.code is i.AxCode.GATE_DENIED
        assert tool in refused.action and policy.mode.value in refused.subject
        assert refused.recovery
        return False
    return True


ADMISSION = AdmissionDriver()


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
