"""`compose`: two small machines over a FIFO, checked by every face, with state counts
computed independently of the kernel.

The pair: a sender alternating A→B→A on `tick`, sending X then Y, and a receiver that
counts X up to 2 (R0→R1→R2, then ignores X) and resets on Y. Over a lossy FIFO of two,
the queue always holds the last `len` messages of the alternating stream (a loss drops
the oldest, so what stays is a suffix), so it is fixed by the sender's state and its
length: 2 sender states × 3 lengths × 3 receiver states = 18 states, all reachable (the
receiver can be brought to any count with the queue empty, and the sender then fills
it). `_product` recomputes each count by a plain breadth-first search over Python
tuples, written from the channel semantics in compose.py's docstring, not from the
kernel.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import replace

import pytest

from models.kernel import (
    Finite,
    Option,
    Output,
    Spec,
    SpecError,
    Trigger,
    Var,
    Variant,
    always,
    and_,
    eq,
    ignore,
    implies,
    is_in,
    leads_to,
    length,
    lt,
    not_,
    nxt,
    out,
    row,
    some,
    sometimes,
    trigger_is,
    unchanged,
    var,
    weak,
)
from models.kernel.checks import verify
from models.kernel.compose import Fault, channel, compose
from models.kernel.explore import explore
from models.kernel.itf import itf_text, read_itf
from models.kernel.oracle import Oracle
from models.kernel.spin import disagreements, run_spin
from models.kernel.tracecheck import check_trace, trace_to_log


class S(enum.Enum):
    A = "a"
    B = "b"


class M(enum.Enum):
    X = "x"
    Y = "y"


class R(enum.Enum):
    R0 = "r0"
    R1 = "r1"
    R2 = "r2"


SENDER = Spec(
    name="sender",
    source="tests/test_compose.py",
    control="s",
    vars=(Var("s", Finite.of_enum(S), S.A),),
    triggers=(Trigger("tick"),),
    outputs=(Output("msg", Option(Finite.of_enum(M)), None),),
    rows=(
        row("a_sends_x", "tick", S.A, S.B, emits={"msg": some(M.X)}, cite="test"),
        row("b_sends_y", "tick", S.B, S.A, emits={"msg": some(M.Y)}, cite="test"),
    ),
)
RECEIVER = Spec(
    name="receiver",
    source="tests/test_compose.py",
    control="r",
    vars=(Var("r", Finite.of_enum(R), R.R0),),
    triggers=(Trigger("x"), Trigger("y")),
    rows=(
        row("x_up0", "x", R.R0, R.R1, cite="test"),
        row("x_up1", "x", R.R1, R.R2, cite="test"),
        ignore("x_top", "x", R.R2, cite="test"),
        row("y_resets", "y", None, R.R0, cite="test"),
    ),
)


def pair(faults: Iterable[Fault] = ("loss",), capacity: int = 2, **extra: object) -> Spec:
    return compose(
        "pair",
        {"snd": SENDER, "rcv": RECEIVER},
        [
            channel(
                "q",
                ("snd", "msg"),
                "rcv",
                {M.X: "x", M.Y: "y"},
                capacity=capacity,
                faults=faults,
                cite="test",
            )
        ],
        source="tests/test_compose.py",
        **extra,  # type: ignore[arg-type]
    )


Triple = tuple[S, tuple[M, ...], R]


def _product(faults: Iterable[Fault], capacity: int) -> set[Triple]:
    """The reachable (sender, queue, receiver) triples, by brute force."""
    faults = set(faults)

    def receive(r: R, m: M) -> R:
        if m is M.Y:
            return R.R0
        return {R.R0: R.R1, R.R1: R.R2, R.R2: R.R2}[r]

    start: Triple = (S.A, (), R.R0)
    seen = {start}
    todo = [start]
    while todo:
        s, q, r = todo.pop()
        nexts: list[Triple] = []
        if len(q) < capacity:
            nexts.append((S.B if s is S.A else S.A, (*q, M.X if s is S.A else M.Y), r))
        if q:
            nexts.append((s, q[1:], receive(r, q[0])))
            if "loss" in faults:
                nexts.append((s, q[1:], r))
            if "duplication" in faults and len(q) < capacity:
                nexts.append((s, (*q, q[0]), r))
            if "reordering" in faults and len(q) >= 2:
                nexts.append((s, (*q[1:], q[0]), r))
        for n in nexts:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def _explored(spec: Spec) -> set[Triple]:
    graph = explore(spec)
    return {
        (d["snd_s"], d["q"], d["rcv_r"])
        for d in (graph.as_dict(i) for i in range(len(graph.states)))
    }


def test_two_machines_over_a_lossy_fifo_have_18_states() -> None:
    spec = pair()
    assert len(explore(spec).states) == 18
    assert _explored(spec) == _product({"loss"}, 2)


@pytest.mark.parametrize(
    ("faults", "capacity", "states"),
    [((), 2, 6), (("loss", "duplication", "reordering"), 2, 42), (("reordering",), 3, 73)],
)
def test_fault_models_match_a_brute_force_product(
    faults: tuple[Fault, ...], capacity: int, states: int
) -> None:
    spec = pair(faults, capacity)
    assert _explored(spec) == _product(faults, capacity)
    assert len(_product(faults, capacity)) == states


def test_every_check_passes_and_z3_agrees_on_the_reachable_set() -> None:
    report = verify(pair(("loss", "duplication", "reordering")))
    assert report.ok, [(c.id, c.verdict) for c in report.checks if not c.ok]
    assert {c.id for c in report.checks} >= {"determinism", "reachable-set", "rows-fire"}


ALTERNATING = always(
    "alternating",
    not_(is_in(var("q"), (M.X, M.X), (M.Y, M.Y))),
    cite="test: the sender alternates, and a loss keeps a suffix of its stream",
)


def test_system_properties_read_component_variables_and_the_channel() -> None:
    props = (
        ALTERNATING,
        sometimes("counted-two", eq(var("rcv_r"), R.R2), cite="test"),
        always(
            "a-loss-moves-no-machine",
            implies(trigger_is("q_lose"), and_(unchanged("snd_s", "rcv_r"))),
            cite="test",
        ),
    )
    verdicts = {c.id: c.verdict for c in verify(pair(properties=props)).checks}
    assert verdicts["alternating"] == "proved"
    assert verdicts["counted-two"] == "witnessed"  # X, (Y lost), X
    assert verdicts["a-loss-moves-no-machine"] == "proved"
    duplicating = pair(
        ("duplication",), properties=(ALTERNATING,), expect_violated=("alternating",)
    )
    report = verify(duplicating)
    assert {c.id: c.verdict for c in report.checks}["alternating"] == "violated"
    assert report.ok


def test_the_metadata_names_owners_and_origins() -> None:
    spec = pair(("loss",))
    system = spec.system
    assert system is not None
    assert system.var("rcv", "r") == "rcv_r"
    assert system.owner("rcv_r") == "rcv"
    assert system.owner("q") == "q"
    assert system.owner("snd_tick") == "snd"
    assert system.owner("q_lose") == "q"
    origin = system.origins["q_deliver_X__rcv_x_up0"]
    assert origin.parts == (("rcv", "x_up0"),)
    assert origin.delivers == ("q", M.X)
    assert system.origins["snd_a_sends_x"].sends == (("q", M.X),)
    assert system.origins["q_lose"].fault == ("q", "loss")
    assert system.rows_of("rcv", "y_resets") == ("q_deliver_Y__rcv_y_resets",)


def test_a_synchronous_hand_over_fires_both_rows_in_one_step() -> None:
    spec = compose(
        "sync",
        {"snd": SENDER, "rcv": RECEIVER},
        [channel("h", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y"}, cite="test")],
        source="t",
    )
    assert [r.name for r in spec.rows] == [
        "snd_a_sends_x__rcv_x_up0",
        "snd_a_sends_x__rcv_x_up1",
        "snd_a_sends_x__rcv_x_top",
        "snd_b_sends_y__rcv_y_resets",
    ]
    # (A,R0) → (B,R1) → (A,R0): the receiver's count never passes 1, and rows-fire says so.
    assert len(explore(spec).states) == 2
    checks = {c.id: c for c in verify(spec).checks}
    assert checks["rows-fire"].detail == (
        "rows that never fire: snd_a_sends_x__rcv_x_up1, snd_a_sends_x__rcv_x_top"
    )
    assert all(c.ok for n, c in checks.items() if n != "rows-fire")


def test_a_component_variant_is_rederived() -> None:
    resets = sometimes(
        "two-resets-to-zero", and_(eq(var("rcv_r"), R.R2), eq(nxt("rcv_r"), R.R0)), cite="test"
    )
    broken = Variant(
        "ignores_y",
        "the receiver drops Y",
        "test",
        ("two-resets-to-zero",),
        replace={"y_resets": ignore("y_resets", "y", None, cite="test")},
    )
    spec = pair(properties=(resets,), variants=[("rcv", broken)])
    (v,) = spec.variants
    assert set(v.replace) == {"q_deliver_Y__rcv_y_resets"} and not v.add and not v.remove
    assert {c.id: c.verdict for c in verify(spec).checks}["two-resets-to-zero"] == "witnessed"
    faulty = spec.with_variant("ignores_y")
    assert faulty.system is spec.system
    report = verify(faulty)
    assert {c.id: c.verdict for c in report.checks}["two-resets-to-zero"] == "violated"


def test_faces_replay_a_system_trace() -> None:
    spec = pair(("loss", "duplication"))
    graph = explore(spec)
    target = max(range(len(graph.states)), key=lambda i: len(graph.path_to(i).steps))
    trace = graph.path_to(target)
    assert check_trace(spec, trace_to_log(spec, trace)).ok
    assert check_trace(spec, read_itf(spec, itf_text(spec, trace))).ok
    oracle = Oracle(spec)
    for step in trace.steps:
        oracle.fire(step.trigger, **step.params)
    assert oracle.state == graph.as_dict(target)


@pytest.mark.parametrize(
    ("deliver", "capacity", "message"),
    [
        ({M.X: "x"}, 2, "does not say what message Y"),
        ({M.X: "x", M.Y: "nope"}, 2, "has no trigger 'nope'"),
        ({M.X: "x", M.Y: "y"}, -1, "capacity"),
    ],
)
def test_a_malformed_channel_is_refused(deliver: dict[M, str], capacity: int, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        compose(
            "bad",
            {"snd": SENDER, "rcv": RECEIVER},
            [channel("q", ("snd", "msg"), "rcv", deliver, capacity=capacity, cite="t")],
            source="t",
        )


@pytest.mark.slow
def test_spin_agrees_on_the_pair() -> None:
    spec = pair(("loss", "duplication", "reordering"), properties=(ALTERNATING,))
    graph = explore(spec)
    result = run_spin(spec)
    assert disagreements(spec, result, graph) == []
    assert result.states == len(graph.states) == 42


def _cleared_pair(cleared_by: Iterable[tuple[str, str]]) -> Spec:
    return compose(
        "pair",
        {"snd": SENDER, "rcv": RECEIVER},
        [
            channel(
                "q",
                ("snd", "msg"),
                "rcv",
                {M.X: "x", M.Y: "y"},
                capacity=2,
                faults=("loss",),
                cleared_by=cleared_by,
                cite="test",
            )
        ],
        source="t",
        properties=(
            always("y-empties-q", implies(eq(out("rcv_step"), "y"), eq(nxt("q"), ())), cite="t"),
            always(
                "only-the-sender-ticks",
                eq(eq(out("snd_step"), "tick"), trigger_is("snd_tick")),
                cite="t",
            ),
        ),
    )


def test_a_clearing_trigger_empties_the_fifo_and_each_part_says_its_step() -> None:
    report = verify(_cleared_pair([("rcv", "y")]))
    assert report.ok, [(c.id, c.verdict) for c in report.checks if not c.ok]
    verdicts = {c.id: c.verdict for c in verify(_cleared_pair([])).checks}
    assert verdicts["y-empties-q"] == "violated"  # Y then X queued: X stays
    assert verdicts["only-the-sender-ticks"] == "proved"


def test_a_system_takes_liveness_under_fairness_of_a_channel() -> None:
    full_drains = leads_to(
        "a-full-queue-drains",
        eq(length(var("q")), 2),
        lt(length(var("q")), 2),
        cite="test",
        fair=[weak("q_deliver")],
    )
    unfair = replace(full_drains, name="unfair", fairness=())
    spec = pair((), liveness=(full_drains, unfair), expect_violated=("unfair",))
    verdicts = {c.id: c.verdict for c in verify(spec).checks}
    assert verdicts["a-full-queue-drains"] == "proved"
    assert verdicts["unfair"] == "violated"  # without fairness the run may stop there
