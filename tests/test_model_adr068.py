"""The closed ADR-068 loop: its figures pinned, its findings shown, its properties' teeth.

The daemon is the `duplex` spec's own rows; the gate, the edge and the link are
duplex-d1 §7 and §8. The variants (an edge that un-mutes on restore, gates that admit a
missing ERL or exclude 0.50, a daemon that commands in Degraded) are checked by `verify`;
here each one's counterexample is read for what it must show.
"""

from __future__ import annotations

import pytest

from models import adr068 as m
from models import duplex
from models.kernel import Spec
from models.kernel import compose
from models.kernel.checks import CheckResult
from models.kernel.checks import verify
from models.kernel.compose import channel
from models.kernel.explore import explore


@pytest.fixture(scope="module")
def checks() -> dict[str, CheckResult]:
    report = verify(m.SPEC)
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    return {c.id: c for c in report.checks}


def test_the_daemon_is_the_duplex_spec_as_it_is() -> None:
    assert m.DAEMON.rows is duplex.SPEC.rows
    system = m.SPEC.system
    assert system is not None
    assert [p.name for p in system.parts] == ["daemon", "gate", "edge", "link"]
    # every duplex row fires somewhere in the loop
    fired = {part for origin in system.origins.values() for part in origin.parts}
    assert {("daemon", r.name) for r in duplex.SPEC.rows} <= fired


def test_state_space_figures() -> None:
    graph = explore(m.SPEC)
    assert len(graph.states) == 14276
    assert graph.diameter == 23
    assert len(m.SPEC.rows) == 42


def test_d4_and_self_echo_are_proved(checks: dict[str, CheckResult]) -> None:
    for name in (
        "d4-no-open-mic-into-a-dead-link",
        "d4-silent-while-disconnected",
        "d4-never-speaks-unprompted",
        "restore-leaves-the-speaker-off",
        "daemon-never-commands-a-dead-link",
        "self-echo-never-mutes-or-cancels",
        "gate-follows-floor-rs",
        "edge-moves-only-on-commands-and-its-link",
        "floor-one-holder-by-each-reading",
    ):
        assert checks[name].verdict == "proved", name
        assert checks[name].basis == "exhaustive" or checks[name].states == 14276


def test_the_coupling_note_is_witnessed_after_a_granted_barge(
    checks: dict[str, CheckResult],
) -> None:
    trace = checks["muted-through-the-next-speaking-turn"].trace
    assert trace is not None
    rows = [s.row for s in trace.steps]
    grant = rows.index("gate_read_grants__daemon_grant_user_takes_floor")
    mute = rows.index("control_deliver_MUTE__edge_mute_cuts")
    assert grant < mute < len(rows) - 1
    assert rows[-1] == "daemon_grant_agent_speaks"
    # nothing between the mute and the next turn turns the speaker back on
    assert not any("speaks" in r and r.startswith(("control", "edge")) for r in rows[mute:])
    assert checks["play-unmutes-the-next-turn"].verdict == "witnessed"


@pytest.mark.parametrize(
    ("variant", "shows"),
    [
        ("edge_unmutes_on_restore", "link_comes_back__edge_restore_streams_silent"),
        ("gate_admits_missing_erl", "gate_read_grants__daemon_grant_user_"),
        ("daemon_commands_in_degraded", "daemon_heartbeat_lost_degrades"),
    ],
)
def test_each_variant_violates_what_it_must(variant: str, shows: str) -> None:
    faulty = m.SPEC.with_variant(variant)
    report = verify(faulty)
    assert report.ok  # every property it names is violated
    for c in report.checks:
        if c.kind in ("always", "sometimes") and c.trace is not None:
            assert any(s.row.startswith(shows) for s in c.trace.steps), (variant, c.id)


def test_the_missing_erl_counterexample_grants_a_claim_without_an_erl() -> None:
    report = verify(m.SPEC.with_variant("gate_admits_missing_erl"))
    trace = {c.id: c for c in report.checks}["self-echo-never-mutes-or-cancels"].trace
    assert trace is not None
    last = trace.states()[-2]  # the state the Mute, Cancel was sent from
    assert last["gate_erl"] is None and last["daemon_state"] is duplex.OVERLAP


def test_the_exclusive_gate_denies_exactly_0_50() -> None:
    report = verify(m.SPEC.with_variant("gate_exclusive_floor"))
    trace = {c.id: c for c in report.checks}["gate-follows-floor-rs"].trace
    assert trace is not None
    assert trace.states()[-2]["gate_erl"] is m.ErlClass.AT_FLOOR


def test_a_verdict_wired_to_the_edge_is_caught() -> None:
    """The actuator property has teeth: hand the gate's verdicts to the edge instead."""
    wired = list(m.CHANNELS)
    wired[1] = channel(
        "verdicts",
        ("gate", "verdict"),
        "edge",
        {m.GRANT_USER: "mute", m.DENY_BARGE: "resume"},
        cite="test: a miswired loop",
    )
    spec: Spec = compose(
        "miswired",
        {"daemon": m.DAEMON, "gate": m.GATE, "edge": m.EDGE, "link": m.LINK},
        wired,
        source="test",
        properties=(m.SPEC.prop("edge-moves-only-on-commands-and-its-link"),),
    )
    verdicts = {c.id: c.verdict for c in verify(spec).checks}
    assert verdicts["edge-moves-only-on-commands-and-its-link"] == "violated"
