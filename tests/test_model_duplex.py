"""The duplex model: its figures pinned, and its properties shown to have teeth.

Each seeded fault below is a one-row change to the model, in the spirit of the
implementation mutants of the issue (swap Mute and Cancel, let TEXT enter
Overlap, keep the ERL on link restore, emit in Degraded...). The checker must
find each fault by itself and return a counterexample.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models import duplex as m
from models.kernel import Spec
from models.kernel import Variant
from models.kernel import some
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.checks import verify
from models.kernel.explore import explore
from models.kernel.expr import Const
from models.kernel.expr import eq
from models.kernel.trace import Trace
from models.kernel.trace import render_trace


def test_the_duplex_model_verifies() -> None:
    report = verify(m.SPEC)
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    unbounded = {c.id: c.method for c in report.checks if c.kind in ("always", "never")}
    assert set(unbounded.values()) <= {"spacer", "k-induction"}  # none rests on BMC alone


def test_state_space_figures() -> None:
    graph = explore(m.SPEC)
    # 7 audio states + 5 text states, each with no ERL or one of the two samples.
    assert len(graph.states) == (7 + 5) * 3
    assert graph.diameter == 5
    assert len(m.SPEC.rows) == 28
    texts = {s[0] for s in graph.states if s[1] is m.Payload.TEXT}
    assert texts == {m.IDLE, m.LISTENING, m.THINKING, m.SPEAKING, m.DEGRADED}


def faulty(name: str, replacement: dict[str, object], violates: str) -> Spec:
    """The duplex spec with one row replaced, expected to violate one property."""
    old = m.SPEC.row(name)
    new = replace(old, **replacement)  # type: ignore[arg-type]
    variant = Variant(f"fault-{name}", "a seeded fault", "tests", (violates,), replace={name: new})
    return replace(m.SPEC, variants=(variant,)).with_variant(variant.name)


FAULTS = [
    (
        "grant_user_takes_floor",
        {"outputs": {"commands": Const((m.Command.CANCEL, m.Command.MUTE))}},
        "grant-user-mutes-then-cancels",
    ),
    ("onset_enters_overlap", {"guard": eq(var("payload"), m.TEXT)}, "text-never-overlap"),
    ("link_restored_resets", {"updates": {}}, "link-restored-clears-erl"),
    (
        "heartbeat_lost_degrades",
        {"outputs": {"commands": Const((m.Command.SILENCE,))}},
        "degraded-is-silent",
    ),
    (
        "onset_claims_idle",
        {"outputs": {"impulse": some(m.Impulse.TURN_CLAIM)}},
        "impulse-carries-last-erl",
    ),
    ("drain_leaves_overlap_or_backchannel", {"target": m.LISTENING}, "observe-never-grants"),
    (
        "heartbeat_lost_degrades",
        {"source": (m.IDLE, m.LISTENING), "target": m.DEGRADED},
        "totality",
    ),
]


@pytest.mark.parametrize(("name", "change", "violates"), FAULTS, ids=[f[2] for f in FAULTS])
def test_a_seeded_fault_is_caught_with_a_counterexample(
    name: str, change: dict[str, object], violates: str
) -> None:
    if violates == "totality":
        spec = replace(
            m.SPEC,
            rows=tuple(
                replace(r, **change) if r.name == name else r  # type: ignore[arg-type]
                for r in m.SPEC.rows
            ),
        )
        check = next(Checker(spec).run("totality"))
    else:
        spec = faulty(name, change, violates)
        check = next(Checker(spec).run(violates))
    assert check.verdict == "violated", check
    assert isinstance(check.trace, Trace) and len(check.trace) >= 1
    assert render_trace(spec, check.trace)[-1].split()[0] == str(len(check.trace))


def test_the_overlap_witness_reads_as_numbered_steps() -> None:
    check = next(Checker(m.SPEC).run("grant-user-in-overlap"))
    assert check.trace is not None
    assert [s.row for s in check.trace.steps] == [
        "onset_claims_idle",
        "eou_ends_utterance",
        "grant_agent_speaks",
        "onset_enters_overlap",
        "grant_user_takes_floor",
    ]
    last = render_trace(m.SPEC, check.trace)[-1]
    assert "state OVERLAP→LISTENING" in last and "commands=[MUTE,CANCEL]" in last
