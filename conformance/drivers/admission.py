"""The admission driver: impl.mode's `admits` and `mode_admits` in the `admission` model's
vocabulary (seed `mode.rs`, policy-take.md §5).

A refusal is recognised by the canonical input of its line in §5's table, not by the
model's rows. It only translates; the table lives in models/policy.py alone. Used by
conformance/test_policy.py, the mutant gate and the admission seed plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import impl.mode as i
from conformance.drivers.policy import to_impl
from conformance.harness import BaseDriver
from models import policy as m
from models.kernel.domains import Value

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
