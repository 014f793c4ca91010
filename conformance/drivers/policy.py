"""The policy driver: impl.mode's PolicyCell in the `policy` model's vocabulary.

The driver runs a `PolicyCell`, one gate's `PolicyReader`, and the notes window that
the driver loop appends to (policy-take.md §2 taking (2)). The model watches one
policy (see models/policy.py), so the driver maps each concrete policy it sees to
WATCHED or OTHER. It only translates; the transition table lives in
models/policy.py alone. Used by conformance/test_policy*.py, the mutant gate and the
policy seed plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import impl.mode as i
from conformance.harness import BaseDriver
from models import policy as m
from models.kernel.domains import Value


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
