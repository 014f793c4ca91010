"""The wave model: its figures pinned, its variants' counterexamples, and seeded faults caught.

Each seeded fault is a one-row change of the kind a port could make (spawn before the
subscription, a lost unsubscribe, a foreign completion taken as the match, a read with no
deadline); the checker must find each by itself, with a counterexample. The full model is
proved by `python -m models verify wave` (the merge gate), not here.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from models import wave as m
from models.kernel import TRUE
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Variant
from models.kernel import ignore
from models.kernel.checks import Checker
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.expr import Const
from models.kernel.expr import Env
from models.kernel.expr import evaluate
from models.kernel.trace import Trace
from models.kernel.trace import render_trace

GRAPH = explore(m.SPEC)


def test_state_space_figures() -> None:
    assert len(GRAPH.states) == 98
    assert GRAPH.diameter == 8
    assert len(m.SPEC.rows) == 63
    assert {s[0] for s in GRAPH.states} == set(m.Phase)  # every phase is reachable
    settled = [GRAPH.as_dict(i) for i, s in enumerate(GRAPH.states) if s[0] is m.SETTLED]
    # one per match (none, or one of our seven kinds), and one still watching a late spawn
    assert len(settled) == 9
    assert [s["matched"] for s in settled if s["reaping"]] == [None]


def test_every_run_settles_within_the_rank_bound() -> None:
    """The rank bound, checked on the graph: no path takes more runner or time steps."""
    # Relax along every edge, counting runner and time steps (the adapter's answers are the
    # environment's, so a path may wait on them); only unsettled sources count.
    longest = {i: 0 for i in range(len(GRAPH.states))}
    for _ in range(len(GRAPH.states)):
        for e in GRAPH.edges:
            if GRAPH.states[e.source][0] is m.SETTLED:
                continue
            counts = m.SPEC.group_of(e.trigger) != m.ENV and e.row not in m.PASSIVE
            longest[e.source] = max(longest[e.source], longest[e.target] + counts)
    assert longest[0] == m.RANK_BOUND - 1


def witnessed(pred: object) -> Trace:
    edge = GRAPH.first_edge(pred)  # type: ignore[arg-type]
    assert edge is not None
    return GRAPH.path_through(edge)


def test_the_subtle_arms_are_reachable() -> None:
    abort_then_match = witnessed(
        lambda e: (
            e.row == "spawn_reply_takes_buffered_match"
            and GRAPH.as_dict(e.source)["aborted"] is True
        )
    )
    assert [s.row for s in abort_then_match.steps][-1] == "spawn_reply_takes_buffered_match"
    hung = witnessed(lambda e: e.row == "grace_abandons_stop" and GRAPH.as_dict(e.source)["hung"])
    assert hung.steps[-1].outputs["detail"] in (
        m.Detail.TIMED_OUT_STOP_ABANDONED,
        m.Detail.WAS_CANCELLED_STOP_ABANDONED,
    )
    retained = witnessed(lambda e: e.outputs["value"] is m.Value.RETAINED)
    assert retained.steps[-1].row == "read_native_partial_retained"


def _bad_edges(spec: Spec, prop: str) -> list[str]:
    graph = explore(spec)
    bad = spec.prop(prop).bad
    return [e.row for e in graph.edges if evaluate(bad, graph.edge_env(e))]


def _stuck(spec: Spec) -> list[dict[str, object]]:
    graph = explore(spec)
    bad = spec.prop("always-settles").bad
    return [
        graph.as_dict(i) for i in range(len(graph.states)) if evaluate(bad, Env(graph.as_dict(i)))
    ]


def test_the_seed_breaks_its_promises_through_kb8() -> None:
    seed = m.SPEC.with_variant("seed")
    rejecting = set(_bad_edges(seed, "never-throws"))
    assert rejecting == {
        "subscribe_raises_rejects_start",  # KB8(a)
        "spawn_failure_unsubscribe_throws",  # KB8(b), on the start
        "stop_path_unsubscribe_throws",  # KB8(b), masking the result
        "read_path_unsubscribe_throws",
        "unreadable_path_unsubscribe_throws",
        "read_malformed_throws_in_settle",  # same family: settle has no catch
        "seed_null_terminal_outcome_throws_in_settle",  # issue 8 §3: `null.reason`
    }
    # KB8(c) and its family: with the adapter's answers in the environment, every await the
    # seed does not bound (ping, spawn, stop, read) can wait forever.
    stuck = _stuck(seed)
    assert {s["phase"] for s in stuck} == {m.PING, m.SPAWN, m.STOP, m.READ}
    assert not _stuck(m.SPEC)


@pytest.mark.parametrize(
    ("variant", "check", "steps"),
    [
        ("seed", "never-throws", 4),  # KB8(a): on_complete raising rejects the start
        ("seed", "a-raising-unsubscribe-is-swallowed", 5),  # KB8(b)
        ("seed", "a-hung-stop-is-abandoned", 7),  # KB8(c)
        ("seed", "always-settles", 1),  # the ping is unbounded
        ("seed", "value-only-on-the-partial-arm", 7),  # a malformed terminalOutcome
        ("h1-no-abort-recheck", "no-spawn-after-abort-seen", 5),
        ("h4-buffer-everything", "buffer-only-while-handle-unknown", 6),
    ],
)
def test_a_variant_is_violated_with_a_shortest_counterexample(
    variant: str, check: str, steps: int
) -> None:
    spec = m.SPEC.with_variant(variant)
    graph = explore(spec)
    bad = spec.prop(check).bad
    if spec.prop(check).over_steps:
        edge = graph.first_edge(bad)
        assert edge is not None
        trace = graph.path_through(edge)
    else:
        first = graph.first_state(bad)
        assert first is not None
        trace = graph.path_to(first)
    assert len(trace) == steps


def faulty(name: str, replacement: Row, violates: str) -> Spec:
    """The wave spec with one row replaced, expected to violate one property."""
    variant = Variant(
        f"fault-{name}", "a seeded fault", "tests", (violates,), replace={name: replacement}
    )
    return replace(m.SPEC, variants=(variant,)).with_variant(variant.name)


def _row(name: str, **changes: object) -> Row:
    return replace(m.SPEC.row(name), **changes)  # type: ignore[arg-type]


FAULTS = [
    (
        "subscribe_then_spawn",
        _row(
            "subscribe_then_spawn",
            outputs={"calls": Const((m.Call.SPAWN, m.Call.SUBSCRIBE))},
        ),
        "subscribed-before-spawn",
    ),
    (
        "stop_returns",
        _row("stop_returns", outputs={**m.SPEC.row("stop_returns").outputs, "calls": Const(())}),
        "unsubscribes-exactly-once",
    ),
    ("completion_matches", _row("completion_matches", guard=TRUE), "first-match-wins"),
    (
        "read_deadline_unreadable",
        ignore("no_read_deadline", "deadline", m.READ, cite="a fault"),
        "always-settles",
    ),
]


@pytest.mark.parametrize(("name", "replacement", "violates"), FAULTS, ids=[f[2] for f in FAULTS])
def test_a_seeded_fault_is_caught_with_a_counterexample(
    name: str, replacement: Row, violates: str
) -> None:
    """The explorer's shortest counterexample (z3 finds the same length: `verify` checks that
    they agree on every check; the first fault is also run through z3 here)."""
    spec = faulty(name, replacement, violates)
    checker = Checker(spec)
    prop = spec.prop(violates)
    trace = checker._explorer_hit(prop.bad, prop.over_steps)
    assert isinstance(trace, Trace) and len(trace) >= 1
    assert render_trace(spec, trace)[-1].split()[0] == str(len(trace))
    if violates == "subscribed-before-spawn":
        check = next(checker.run(violates))
        assert check.verdict == "violated" and check.trace is not None
        assert len(check.trace) == len(trace)


SEED_GRAPH = explore(m.SPEC.with_variant("seed"))


def _rows_on_paths(graph: Exploration, pred: object) -> list[str]:
    edge = graph.first_edge(pred)  # type: ignore[arg-type]
    assert edge is not None
    return [s.row for s in graph.path_through(edge).steps]


def test_the_seed_waits_out_a_spawn_answer_that_is_no_handle() -> None:
    """wave-transport.md §8, as running the seed shows: no throw, the timeout, stop(null),
    and a receipt without run ids; the fixed model refuses the answer at once."""
    rows = _rows_on_paths(
        SEED_GRAPH,
        lambda e: e.outputs["result"] is m.Result.TIMEOUT and e.outputs["ids"] is False,
    )
    assert rows[-3:] == ["seed_spawn_no_handle_waits", "timer_fires_timeout", "stop_returns"]
    fixed = GRAPH
    assert not [
        e for e in fixed.edges if e.outputs["result"] is m.Result.TIMEOUT and not e.outputs["ids"]
    ]


def test_a_buffered_null_completion_orphans_the_seeds_run() -> None:
    """The seed's F5 find throws on a null buffered before the first match: spawn-failed after
    a spawn that succeeded, and no stop: the run is orphaned. impl ignores the null."""
    rows = _rows_on_paths(
        SEED_GRAPH, lambda e: e.row == "seed_spawn_reply_throws_on_a_buffered_null"
    )
    assert "seed_null_completion_buffered" in rows
    fixed = GRAPH
    nulls = [e for e in fixed.edges if e.params.get("of") is m.NULL_COMPLETION]
    assert nulls and all(m.SPEC.row(e.row).ignore for e in nulls)


def test_an_abort_settles_a_hung_front_half_and_a_late_handle_is_stopped() -> None:
    """issue 8 §3 in the fixed model: an abort during a ping or spawn that never answers
    settles at the next deadline; a spawn answering later is stopped."""
    settled = {e.target for e in GRAPH.edges if e.row == "spawn_deadline_after_abort"}
    assert settled and all(GRAPH.as_dict(t)["reaping"] for t in settled)
    late = [e for e in GRAPH.edges if e.source in settled and e.row == "late_spawn_reply_stopped"]
    assert late and all(e.outputs["calls"] == (m.Call.STOP,) for e in late)
    ping = witnessed(lambda e: e.row == "ping_deadline_after_abort")
    assert ping.steps[-1].outputs["detail"] is m.Detail.BEFORE_LAUNCH
