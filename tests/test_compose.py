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

from models.kernel import TRUE
from models.kernel import AnyOf
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Kind
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Row
from models.kernel import Seq
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import always
from models.kernel import and_
from models.kernel import append
from models.kernel import eq
from models.kernel import ge
from models.kernel import group_is
from models.kernel import head
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import ite
from models.kernel import le
from models.kernel import leads_to
from models.kernel import length
from models.kernel import lt
from models.kernel import not_
from models.kernel import nxt
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import row_is
from models.kernel import some
from models.kernel import sometimes
from models.kernel import tail
from models.kernel import trigger_is
from models.kernel import unchanged
from models.kernel import var
from models.kernel import weak
from models.kernel.checks import verify
from models.kernel.compose import Channel
from models.kernel.compose import Fault
from models.kernel.compose import Origin
from models.kernel.compose import channel
from models.kernel.compose import compose
from models.kernel.compose import with_domain
from models.kernel.explore import explore
from models.kernel.expr import And
from models.kernel.expr import Const
from models.kernel.expr import Expr
from models.kernel.expr import Implies
from models.kernel.expr import In
from models.kernel.expr import Or
from models.kernel.itf import itf_text
from models.kernel.itf import read_itf
from models.kernel.layout import Layout
from models.kernel.oracle import Oracle
from models.kernel.spin import disagreements
from models.kernel.spin import run_spin
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import trace_to_log


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


def _product(faults: Iterable[Fault], capacity: int, drop: bool = False) -> set[Triple]:
    """The reachable (sender, queue, receiver) triples, by brute force (`drop`: a message
    that does not fit is lost, and the sender moves on)."""
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
        sent = M.X if s is S.A else M.Y
        if len(q) < capacity or drop:
            kept = (*q, sent) if len(q) < capacity else q
            nexts.append((S.B if s is S.A else S.A, kept, r))
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


# ---------------------------------------------------------------- the system's declarations


def test_the_systems_names_groups_domains_and_docs() -> None:
    spec = pair(("loss", "duplication"))
    assert [(t.name, t.params, t.group, t.doc) for t in spec.triggers] == [
        ("snd_tick", (), "snd", ""),
        ("q_deliver", (), "q", "q delivers its head"),
        ("q_lose", (), "q", "q: loss"),
        ("q_duplicate", (), "q", "q: duplication"),
    ]
    assert [(v.name, v.init, v.doc) for v in spec.vars] == [
        ("snd_s", S.A, ""),
        ("rcv_r", R.R0, ""),
        ("q", (), "FIFO q"),
    ]
    fifo = spec.var("q").domain
    assert isinstance(fifo, Seq) and (fifo.name, fifo.max_len) == ("Fifo[q]", 2)
    assert isinstance(fifo.element, Finite)
    assert (fifo.element.name, fifo.element.members) == ("q_message", (M.X, M.Y))
    assert fifo.element.label(M.X) == "X"  # a message reads by its enum name
    assert [(o.name, o.default, o.doc) for o in spec.outputs] == [
        ("snd_msg", None, ""),
        ("snd_step", None, "the trigger snd took"),
        ("rcv_step", None, "the trigger rcv took"),
    ]
    assert spec.output("snd_msg").domain == SENDER.output("msg").domain
    assert spec.output("rcv_step").domain == Option(Finite("rcv_triggers", ("x", "y")))
    assert spec.control is None
    # Every FIFO starts empty, said in Init as well as in its variable's initial value.
    assert spec.init == eq(var("q"), ())
    assert pair((), capacity=0).init is None  # a hand-over holds nothing


def test_a_channels_own_doc_names_its_fifo() -> None:
    ch = replace(_q(), doc="commands in flight")
    spec = compose("p", {"snd": SENDER, "rcv": RECEIVER}, [ch], source="t")
    assert spec.var("q").doc == "commands in flight"


def _q(cite: str = "test", capacity: int = 2, **extra: object) -> Channel:
    return channel(
        "q",
        ("snd", "msg"),
        "rcv",
        {M.X: "x", M.Y: "y"},
        capacity=capacity,
        cite=cite,
        **extra,  # type: ignore[arg-type]
    )


def test_what_compose_passes_through_to_the_spec() -> None:
    live = leads_to("drains", eq(length(var("q")), 2), lt(length(var("q")), 2), cite="t")
    spec = pair(
        (),
        properties=(sometimes("counted", eq(var("rcv_r"), R.R2), cite="t"), ALTERNATING),
        liveness=(live,),
        fairness=weak("q_deliver"),
        expect_violated=("drains",),
        check_deadlock=False,
        doc="the pair",
    )
    assert (spec.name, spec.source, spec.doc) == ("pair", "tests/test_compose.py", "the pair")
    assert spec.liveness == (live,) and spec.fairness == weak("q_deliver")
    assert spec.expect_violated == ("drains",)
    assert (spec.check_deadlock, spec.totality) == (False, "enabled-only")
    # Safety first, witnesses last; the attribution property comes first of all.
    assert [p.name for p in spec.properties] == [
        "steps-name-their-triggers",
        "alternating",
        "counted",
    ]
    attribution = spec.properties[0]
    assert attribution.kind is Kind.ALWAYS
    assert attribution.cite == "compose.py: `<component>_step` is the trigger the component took"
    assert pair().check_deadlock is True and pair().doc == ""


def test_the_parts_and_the_owner_of_each_name() -> None:
    spec = pair(("loss", "reordering"))
    system = spec.system
    assert system is not None
    snd, rcv = system.parts
    assert (snd.name, snd.spec, rcv.name, rcv.spec) == ("snd", SENDER, "rcv", RECEIVER)
    assert dict(snd.vars) == {"s": "snd_s"} and snd.control == "snd_s"
    assert dict(snd.outputs) == {"msg": "snd_msg", "step": "snd_step"}
    assert dict(rcv.outputs) == {"step": "rcv_step"}
    assert dict(snd.triggers) == {"tick": "snd_tick"}
    assert dict(rcv.triggers) == {}  # both of its triggers are the channel's to fire
    assert system.part("rcv") is rcv
    assert system.channel("q") is system.channels[0]
    with pytest.raises(KeyError, match="^'q'$"):
        system.part("q")
    with pytest.raises(KeyError, match="^'snd'$"):
        system.channel("snd")
    assert dict(system.triggers) == {
        "snd_tick": "snd",
        "q_deliver": "q",
        "q_lose": "q",
        "q_reorder": "q",
    }
    assert [system.owner(n) for n in ("snd_s", "snd_msg", "rcv_step", "q_reorder")] == [
        "snd",
        "snd",
        "rcv",
        "q",
    ]
    assert system.owner("snd_b_sends_y") == "snd"
    assert system.owner("q_deliver_Y__rcv_y_resets") == "rcv"
    assert system.owner("q_reorder") == "q"
    for unknown in ("rcv", "snd_tock", "rcv_x_up0"):
        with pytest.raises(KeyError, match=f"^{unknown!r}$"):
            system.owner(unknown)
    hand_over = pair((), capacity=0).system
    assert hand_over is not None
    with pytest.raises(KeyError):
        hand_over.owner("q")  # a hand-over holds nothing, so it is no variable
    assert hand_over.rows_of("rcv", "x_top") == ("snd_a_sends_x__rcv_x_top",)
    free = replace(SENDER, control=None, vars=(), rows=(row("t", "tick", None, cite="t"),))
    lone = compose("lone", {"snd": free}, [], source="t").system
    assert lone is not None and lone.part("snd").control is None
    assert lone.origins["snd_t"].parts == (("snd", "t"),)


def test_a_hand_over_listed_first_leaves_the_fifos_after_it_whole() -> None:
    spec = compose(
        "two_pairs",
        {"snd": SENDER, "rcv": RECEIVER, "snd2": SENDER, "rcv2": RECEIVER},
        [
            channel("h", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y"}, cite="t"),
            channel("q", ("snd2", "msg"), "rcv2", {M.X: "x", M.Y: "y"}, capacity=1, cite="t"),
        ],
        source="t",
        totality="explicit",
    )
    assert [r.name for r in spec.rows if r.ignore] == [
        "snd2_a_sends_x__blocked",
        "snd2_b_sends_y__blocked",
        "q_deliver_nothing",
    ]
    assert [t.name for t in spec.triggers] == ["snd_tick", "snd2_tick", "q_deliver"]
    assert [r.name for r in spec.rows if r.trigger == "q_deliver" and not r.ignore] == [
        "q_deliver_X__rcv2_x_up0",
        "q_deliver_X__rcv2_x_up1",
        "q_deliver_X__rcv2_x_top",
        "q_deliver_Y__rcv2_y_resets",
    ]
    # A row with nothing to check has the guard true, not an empty conjunction.
    free = compose(
        "free", {"snd": replace(SENDER, rows=(row("t", "tick", None, cite="t"),))}, [], source="t"
    )
    assert free.row("snd_t").guard == TRUE


def test_each_system_row_is_its_parts_joined() -> None:
    spec = pair(("loss",))
    rows = {r.name: r for r in spec.rows}
    assert list(rows) == [
        "snd_a_sends_x",
        "snd_b_sends_y",
        "q_deliver_X__rcv_x_up0",
        "q_deliver_X__rcv_x_up1",
        "q_deliver_X__rcv_x_top",
        "q_deliver_Y__rcv_y_resets",
        "q_lose",
    ]
    sends = rows["snd_a_sends_x"]
    assert (sends.trigger, sends.source, sends.target, sends.cite) == (
        "snd_tick",
        None,
        None,
        "test",
    )
    assert sends.guard == and_(is_in(var("snd_s"), S.A), le(length(var("q")), 1)), (
        "the sender's state, and room for one message"
    )
    assert dict(sends.updates) == {"snd_s": Const(S.B), "q": append(var("q"), M.X)}
    assert dict(sends.outputs) == {"snd_msg": some(M.X), "snd_step": Const("tick")}
    top = rows["q_deliver_X__rcv_x_top"]
    # The receiver ignores X, yet the step takes X off the queue: no ignore row.
    assert not top.ignore and "rcv_step" not in top.outputs
    assert dict(top.updates) == {"q": tail(var("q"))}
    assert top.cite == "test"
    up = rows["q_deliver_X__rcv_x_up0"]
    assert up.guard == and_(
        ge(length(var("q")), 1), eq(head(var("q")), M.X), is_in(var("rcv_r"), R.R0)
    )
    assert dict(up.outputs) == {"rcv_step": Const("x")}
    lose = rows["q_lose"]
    assert (lose.trigger, lose.guard, dict(lose.updates)) == (
        "q_lose",
        ge(length(var("q")), 1),
        {"q": tail(var("q"))},
    )


def test_a_free_ignore_row_stays_an_ignore_row_of_the_system_and_cites_join() -> None:
    idle = replace(
        SENDER,
        triggers=(*SENDER.triggers, Trigger("poke", group="env")),
        rows=(*SENDER.rows, ignore("poked", "poke", None, cite="s1")),
    )
    spec = compose("pair", {"snd": idle, "rcv": RECEIVER}, [_q("chan")], source="t")
    poked = spec.row("snd_poked")
    assert poked.ignore and poked.trigger == "snd_poke" and poked.cite == "s1"
    assert not poked.updates and not poked.outputs
    assert spec.trigger("snd_poke").group == "snd_env"
    # The channel's citation first, then the receiving row's; each once.
    assert spec.row("q_deliver_Y__rcv_y_resets").cite == "chan; test"
    assert spec.row("snd_a_sends_x").cite == "test"


# ---------------------------------------------------------------- refusals


class Ping(enum.Enum):
    IDLE = "idle"


def _echo(trigger: str, output: str, *, free: str = "") -> Spec:
    """A machine that, on `trigger` (and on `free`, a trigger no channel fires), sends X."""
    triggers = tuple(Trigger(t) for t in (trigger, free) if t)
    return Spec(
        name=f"echo_{output}",
        source="t",
        control=None,
        vars=(),
        triggers=triggers,
        outputs=(Output(output, Option(Finite.of_enum(M)), None),),
        rows=tuple(
            row(t.name, t.name, None, emits={output: some(M.X)}, cite="t") for t in triggers
        ),
    )


def _refusal(components: dict[str, Spec], channels: list[Channel], **extra: object) -> str:
    with pytest.raises(SpecError) as refused:
        compose("bad", components, channels, source="t", **extra)  # type: ignore[arg-type]
    return str(refused.value)


PAIR = {"snd": SENDER, "rcv": RECEIVER}
TWO_Q = f"{M.X!r}"  # how a message is named in a refusal


@pytest.mark.parametrize(
    ("channels", "message"),
    [
        ([_q(), _q()], "system 'bad': duplicate channel 'q'"),
        ([_q(" ")], "system 'bad': channel 'q': no source citation"),
        (
            [channel("q", ("nobody", "msg"), "rcv", {}, cite="t")],
            "system 'bad': channel 'q': unknown component 'nobody'",
        ),
        (
            [channel("q", ("snd", "msg"), "nobody", {}, cite="t")],
            "system 'bad': channel 'q': unknown component 'nobody'",
        ),
        (
            [channel("q", ("snd", "msg"), "snd", {M.X: "tick"}, cite="t")],
            "system 'bad': channel 'q': a component cannot send to itself",
        ),
        (
            [channel("q", ("snd", "nope"), "rcv", {}, cite="t")],
            "system 'bad': channel 'q': 'snd' has no output 'nope'",
        ),
        (
            [_q(), channel("q2", ("snd", "msg"), "rcv", {}, cite="t")],
            "system 'bad': channel 'q2': output snd.msg feeds two channels",
        ),
        (
            [_q(capacity=-1)],
            "system 'bad': channel 'q': capacity must be 0 (synchronous) or more",
        ),
        (
            [_q(capacity=0, faults=("loss",))],
            "system 'bad': channel 'q': a synchronous hand-over has no faults and holds nothing",
        ),
        (
            [_q(capacity=0, cleared_by=[("rcv", "y")])],
            "system 'bad': channel 'q': a synchronous hand-over has no faults and holds nothing",
        ),
        (
            [_q(cleared_by=[("rcv", "z")])],
            "system 'bad': channel 'q': cleared by unknown trigger rcv.z",
        ),
        (
            [_q(cleared_by=[("nobody", "y")])],
            "system 'bad': channel 'q': cleared by unknown trigger nobody.y",
        ),
        (
            [_q(faults=("corruption",))],
            "system 'bad': channel 'q': unknown fault 'corruption' "
            "(faults: loss, duplication, reordering)",
        ),
        (
            [channel("q", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y", S.A: None}, cite="t")],
            f"system 'bad': channel 'q': {S.A!r} is not a message of 'msg'",
        ),
        (
            [channel("q", ("snd", "msg"), "rcv", {M.X: "nope", M.Y: "y"}, cite="t")],
            "system 'bad': channel 'q': 'rcv' has no trigger 'nope'",
        ),
        (
            [channel("q", ("snd", "msg"), "rcv", {M.X: None, M.Y: "nope"}, cite="t")],
            "system 'bad': channel 'q': 'rcv' has no trigger 'nope'",
        ),
        (
            [channel("q", ("snd", "msg"), "rcv", {M.X: ("x", {"n": 1}), M.Y: "y"}, cite="t")],
            f"system 'bad': channel 'q': {TWO_Q} gives 'x' arguments ['n'], it takes []",
        ),
        (
            [channel("q", ("snd", "msg"), "rcv", {M.X: "x"}, cite="t")],
            "system 'bad': channel 'q' does not say what message Y (sent by row "
            "'b_sends_y') does: map it to a trigger or None",
        ),
    ],
)
def test_a_malformed_channel_is_refused_with_its_reason(
    channels: list[Channel], message: str
) -> None:
    assert _refusal(PAIR, channels) == message


def test_a_system_of_nothing_is_refused() -> None:
    assert _refusal({}, []) == "system 'bad': no components"


LOG = Spec(
    name="log",
    source="t",
    control=None,
    vars=(
        Var("last", Option(Finite.of_enum(M)), None),
        Var("prev", Option(Finite.of_enum(M)), None),
    ),
    triggers=(Trigger("put", (Param("m", Finite.of_enum(M)),)),),
    outputs=(Output("echo", Option(Finite.of_enum(M)), None),),
    rows=(
        row(
            "put",
            "put",
            None,
            guard=not_(eq(var("last"), some(param("m")))),
            sets={"prev": var("last"), "last": some(param("m"))},
            emits={"echo": some(param("m"))},
            cite="t",
        ),
    ),
)


def test_a_fifo_carries_constant_arguments_and_a_hand_over_reads_the_senders_outputs() -> None:
    computed: dict[M, tuple[str, dict[str, Expr | M]]] = {
        M.X: ("put", {"m": M.X}),
        M.Y: ("put", {"m": head(var("q"))}),
    }
    assert _refusal(
        {"snd": SENDER, "log": LOG},
        [channel("q", ("snd", "msg"), "log", computed, capacity=1, cite="t")],
    ) == ("system 'bad': channel 'q': a FIFO message's arguments must be constants")
    fifo = compose(
        "ok",
        {"snd": SENDER, "log": LOG},
        [
            channel(
                "q",
                ("snd", "msg"),
                "log",
                {M.X: ("put", {"m": M.Y}), M.Y: ("put", {"m": M.X})},
                capacity=1,
                cite="t",
            )
        ],
        source="t",
    )
    assert fifo.system is not None
    delivery = fifo.system.channel("q").deliver[M.X]
    assert delivery is not None and dict(delivery.args) == {"m": Const(M.Y)}
    put = fifo.row("q_deliver_X__log_put")
    # The receiving row's guard, updates and outputs read the message's arguments.
    assert put.guard == and_(
        ge(length(var("q")), 1), eq(head(var("q")), M.X), not_(eq(var("log_last"), some(M.Y)))
    )
    assert dict(put.updates) == {
        "log_prev": var("log_last"),
        "log_last": some(M.Y),
        "q": tail(var("q")),
    }
    assert dict(put.outputs) == {"log_echo": some(M.Y), "log_step": Const("put")}
    # A hand-over's argument reads what the sender emits in that very step.
    echo = replace(
        SENDER,
        outputs=(Output("said", Finite.of_enum(M), M.X), *SENDER.outputs),
        rows=(
            row("a_sends_x", "tick", S.A, S.B, emits={"msg": some(M.X), "said": M.Y}, cite="t"),
            row("b_sends_y", "tick", S.B, S.A, emits={"msg": some(M.Y)}, cite="t"),
        ),
    )
    sync = compose(
        "ok",
        {"snd": echo, "log": LOG},
        [
            channel(
                "h",
                ("snd", "msg"),
                "log",
                {
                    M.X: ("put", {"m": out("said")}),
                    M.Y: ("put", {"m": ite(eq(var("s"), S.B), out("said"), M.Y)}),
                },
                cite="t",
            )
        ],
        source="t",
    )
    assert sync.row("snd_a_sends_x__log_put").updates["log_last"] == some(M.Y)
    # The sender's state read as it was; the output it does not set, as its default.
    assert sync.row("snd_b_sends_y__log_put").updates["log_last"] == some(
        ite(eq(var("snd_s"), S.B), M.X, M.Y)
    )
    assert sync.system is not None
    assert sync.system.origins["snd_a_sends_x__log_put"].sends == (("h", M.X),)
    graph = explore(sync)
    assert {graph.as_dict(i)["log_last"] for i in range(len(graph.states))} == {None, M.X, M.Y}


def test_what_a_row_cannot_do_in_a_system_is_refused() -> None:
    ping, pong = _echo("pong", "msg", free="go"), _echo("ping", "back")
    loop = [
        channel("there", ("ping", "msg"), "pong", {M.X: "ping", M.Y: None}, cite="t"),
        channel("back", ("pong", "back"), "ping", {M.X: "pong", M.Y: None}, cite="t"),
    ]
    assert _refusal({"ping": ping, "pong": pong}, loop) == (
        "system 'bad': synchronous channels form a cycle through 'ping'"
    )
    burst = replace(
        SENDER,
        outputs=(Output("msg", Seq(Finite.of_enum(M), 2), ()),),
        rows=(row("both", "tick", None, emits={"msg": (M.X, M.Y)}, cite="t"),),
    )
    hand_over = channel("h", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y"}, cite="t")
    assert _refusal({"snd": burst, "rcv": RECEIVER}, [hand_over]) == (
        "system 'bad': row 'both' of 'snd' hands 2 messages to synchronous channel 'h' at once "
        "(give it a capacity)"
    )
    chosen = replace(
        SENDER,
        triggers=(Trigger("tick", (Param("m", Finite.of_enum(M)),)),),
        rows=(row("pick", "tick", None, emits={"msg": some(param("m"))}, cite="t"),),
    )
    assert _refusal({"snd": chosen, "rcv": RECEIVER}, [_q()]) == (
        "system 'bad': row 'pick' of 'snd' emits a computed value on channel 'q'; "
        "a channel's messages are constants"
    )
    # A row that reads the step: its component refuses it before any system is built.
    with pytest.raises(SpecError, match=r"^row 'y_resets' guard: trigger_is\(\) may be used only"):
        replace(
            RECEIVER,
            rows=(
                *RECEIVER.rows[:3],
                row("y_resets", "y", None, R.R0, guard=trigger_is("y"), cite="t"),
            ),
        )
    # Two components whose names run together name two rows alike.
    twin = replace(SENDER, rows=(row("sends_x", "tick", None, cite="t"),))
    assert _refusal({"snd": SENDER, "snd_a": twin}, []) == (
        "system 'bad': two system rows named 'snd_a_sends_x'"
    )


def test_a_variant_or_an_inherited_name_that_is_not_there_is_refused() -> None:
    v = Variant("v", "d", "c", (), remove=("zz",))
    assert _refusal(PAIR, [_q()], variants=[("nobody", v)]) == (
        "variant 'v': unknown component 'nobody'"
    )
    assert _refusal(PAIR, [_q()], variants=[("rcv", v)]) == (
        "variant 'v': changes unknown row 'zz' of 'rcv'"
    )
    replaced = Variant("v", "d", "c", (), replace={"zz": ignore("zz", "x", None, cite="t")})
    assert _refusal(PAIR, [_q()], variants=[("rcv", replaced)]) == (
        "variant 'v': changes unknown row 'zz' of 'rcv'"
    )
    # A variant's row is the system's to check: an ignore row that sends is refused.
    loud = Row("a_sends_x", "tick", (S.A,), None, TRUE, {}, {"msg": some(M.X)}, "t", True)
    noisy = Variant("noisy", "d", "c", (), replace={"a_sends_x": loud})
    assert _refusal(PAIR, [_q()], variants=[("snd", noisy)]) == (
        "row 'a_sends_x' of 'snd': an ignore row sends nothing"
    )
    assert _refusal(PAIR, [_q()], inherit={"nobody": ()}) == (
        "system 'bad': inherits from unknown component 'nobody'"
    )
    assert _refusal(PAIR, [_q()], inherit={"rcv": ("zz",)}) == (
        "system 'bad': component 'rcv' has no property 'zz'"
    )


# ---------------------------------------------------------------- what a channel does


def test_explicit_totality_answers_every_trigger_with_the_channels_no_ops() -> None:
    spec = pair(("loss", "duplication", "reordering"), totality="explicit")
    assert spec.totality == "explicit"
    report = verify(spec)
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    assert {c.id: c.verdict for c in report.checks}["totality"] == "proved"
    noops = {r.name: r for r in spec.rows if r.ignore}
    assert list(noops) == [
        "snd_a_sends_x__blocked",
        "snd_b_sends_y__blocked",
        "q_deliver_nothing",
        "q_lose_nothing",
        "q_duplicate_nothing",
        "q_reorder_nothing",
    ]
    q = var("q")
    blocked = noops["snd_a_sends_x__blocked"]
    assert (blocked.trigger, blocked.cite, blocked.doc) == (
        "snd_tick",
        "test",
        "the FIFO it sends on is full",
    )
    assert blocked.guard == and_(is_in(var("snd_s"), S.A), not_(le(length(q), 1)))
    assert [(r.trigger, r.guard, r.cite) for n, r in noops.items() if n.endswith("_nothing")] == [
        ("q_deliver", eq(length(q), 0), "test"),
        ("q_lose", not_(ge(length(q), 1)), "test"),
        ("q_duplicate", not_(and_(ge(length(q), 1), le(length(q), 1))), "test"),
        ("q_reorder", not_(ge(length(q), 2)), "test"),
    ]
    system = spec.system
    assert system is not None
    assert system.origins["snd_a_sends_x__blocked"] == Origin(())  # nothing fired
    assert system.origins["q_lose_nothing"] == Origin(())
    # Without it the system adds no no-op: a blocked hand-over is no step.
    assert not [r.name for r in pair(("loss",)).rows if r.ignore]


def test_a_no_op_row_has_an_owner() -> None:
    """The refused sender's, the idle channel's (once an AssertionError: it fires nothing)."""
    system = pair(("loss", "reordering"), totality="explicit").system
    assert system is not None
    assert system.owner("snd_b_sends_y__blocked") == "snd"
    assert [system.owner(f"q_{t}_nothing") for t in ("deliver", "lose", "reorder")] == ["q"] * 3


def test_each_fault_moves_the_queue_as_it_says() -> None:
    spec = pair(("loss", "duplication", "reordering"), capacity=3)
    oracle = Oracle(spec)
    for _ in range(3):
        oracle.fire("snd_tick")
    assert oracle.state["q"] == (M.X, M.Y, M.X)
    oracle.fire("q_reorder")
    assert oracle.state["q"] == (M.Y, M.X, M.X)
    oracle.fire("q_lose")
    assert oracle.state["q"] == (M.X, M.X)
    oracle.fire("q_duplicate")
    assert oracle.state["q"] == (M.X, M.X, M.X)
    assert spec.row("q_duplicate").guard == and_(ge(length(var("q")), 1), le(length(var("q")), 2))
    assert spec.row("q_reorder").guard == ge(length(var("q")), 2)
    assert spec.system is not None
    assert spec.system.origins["q_reorder"].fault == ("q", "reordering")
    assert spec.system.origins["q_duplicate"].fault == ("q", "duplication")


def test_a_full_fifo_that_drops_loses_the_message_and_the_sender_moves_on() -> None:
    spec = compose(
        "pair",
        {"snd": SENDER, "rcv": RECEIVER},
        [_q(capacity=1, overflow="drop")],
        source="t",
    )
    oracle = Oracle(spec)
    oracle.fire("snd_tick")
    oracle.fire("snd_tick")  # no room for Y: lost, and the sender is back at A
    assert (oracle.state["snd_s"], oracle.state["q"]) == (S.A, (M.X,))
    assert spec.row("snd_b_sends_y").guard == is_in(var("snd_s"), S.B)  # never blocked
    assert (
        len(_product((), 1, drop=True)) == 18
    )  # any of the 2 × 3 × 3: a drop breaks the alternation
    assert _explored(spec) == _product((), 1, drop=True)


# ---------------------------------------------------------------- inherited properties, domains


def test_an_inherited_property_reads_who_took_which_trigger_in_the_system() -> None:
    clocked = replace(
        SENDER,
        triggers=(Trigger("tick", group="clock"),),
        properties=(
            always(
                "ticks-move", implies(trigger_is("tick"), not_(eq(nxt("s"), var("s")))), cite="c"
            ),
            always(
                "clock-moves", implies(group_is("clock"), not_(eq(nxt("s"), var("s")))), cite="c"
            ),
            sometimes("sends-x", row_is("a_sends_x"), cite="c", doc="X goes out"),
        ),
    )
    counting = replace(
        RECEIVER,
        triggers=(Trigger("x", group="in"), Trigger("y", group="in"), Trigger("z", group="in")),
        rows=(*RECEIVER.rows, row("z_resets", "z", None, R.R0, cite="t")),
        properties=(
            always("x-counts", implies(trigger_is("x", "z"), not_(eq(nxt("r"), R.R0))), cite="c"),
            always("in-moves", implies(group_is("in"), eq(nxt("r"), R.R0)), cite="c"),
            always("y-only", implies(trigger_is("y"), eq(nxt("r"), R.R0)), cite="c"),
        ),
    )
    spec = compose(
        "pair",
        {"snd": clocked, "rcv": counting},
        [_q()],
        source="t",
        inherit={
            "snd": ("ticks-move", "clock-moves", "sends-x"),
            "rcv": ("x-counts", "in-moves", "y-only"),
        },
    )
    props = {p.name: p for p in spec.properties}
    moved = not_(eq(nxt("snd_s"), var("snd_s")))
    assert props["snd-ticks-move"].pred == implies(trigger_is("snd_tick"), moved)
    assert props["snd-clock-moves"].pred == implies(group_is("snd_clock"), moved)
    sends = props["snd-sends-x"]
    assert (sends.pred, sends.kind, sends.cite, sends.doc) == (
        row_is("snd_a_sends_x"),
        Kind.SOMETIMES,
        "c",
        "X goes out",
    )
    xs = row_is("q_deliver_X__rcv_x_up0", "q_deliver_X__rcv_x_up1", "q_deliver_X__rcv_x_top")
    y = row_is("q_deliver_Y__rcv_y_resets")
    assert props["rcv-x-counts"].pred == implies(
        Or((trigger_is("rcv_z"), xs)), not_(eq(nxt("rcv_r"), R.R0))
    )
    assert props["rcv-in-moves"].pred == implies(
        Or((group_is("rcv_in"), row_is(*xs.names, *y.names))),  # type: ignore[attr-defined]
        eq(nxt("rcv_r"), R.R0),
    )
    assert props["rcv-y-only"].pred == implies(y, eq(nxt("rcv_r"), R.R0))
    verdicts = {c.id: c.verdict for c in verify(spec).checks}
    assert verdicts["snd-ticks-move"] == verdicts["snd-clock-moves"] == "proved"
    assert verdicts["snd-sends-x"] == "witnessed"
    assert verdicts["rcv-y-only"] == "proved"
    assert verdicts["rcv-x-counts"] == verdicts["rcv-in-moves"] == "violated"  # z resets; x counts
    assert [p.name for p in spec.properties][-1] == "snd-sends-x"  # witnesses last


def test_a_trigger_or_row_that_never_fires_in_the_system_reads_as_never_taken() -> None:
    spare = replace(
        RECEIVER,
        triggers=(*RECEIVER.triggers, Trigger("w")),
        properties=(
            always("no-w", not_(trigger_is("w")), cite="c"),  # free, though no row answers it
            always("no-y", not_(trigger_is("y")), cite="c"),  # Y is never handed over
            always("no-reset", not_(row_is("y_resets")), cite="c"),
        ),
    )
    only_x = replace(
        SENDER, rows=(row("a_sends_x", "tick", None, emits={"msg": some(M.X)}, cite="t"),)
    )
    spec = compose(
        "pair",
        {"snd": only_x, "rcv": spare},
        [channel("h", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y"}, cite="t")],
        source="t",
        inherit={"rcv": ("no-w", "no-y", "no-reset")},
    )
    preds = [spec.prop(f"rcv-{n}").pred for n in ("no-w", "no-y", "no-reset")]
    assert preds == [not_(trigger_is("rcv_w")), not_(Const(False)), not_(Const(False))]


def test_with_domain_swaps_a_stored_domain_everywhere_and_keeps_the_rows() -> None:
    small = Finite("small", ("a", "b"))
    big = Finite("big", ("a", "b", "c"))
    stores = Spec(
        name="stores",
        source="t",
        control="s",
        vars=(
            Var("s", Finite.of_enum(S), S.A),
            Var("kept", small, "a", doc="d"),
            Var("maybe", Option(small), None),
            Var("n", IntRange(0, 1), 0),
        ),
        triggers=(
            Trigger("put", (Param("m", small), Param("k", IntRange(0, 1))), group="g", doc="p"),
        ),
        outputs=(Output("said", Option(small), None, doc="o"), Output("k", IntRange(0, 1), 0)),
        rows=(row("put", "put", None, sets={"kept": param("m")}, cite="t"),),
    )
    swapped = with_domain(stores, small, big)
    assert [v.domain for v in swapped.vars] == [Finite.of_enum(S), big, Option(big), IntRange(0, 1)]
    assert [(v.name, v.init, v.doc) for v in swapped.vars] == [
        (v.name, v.init, v.doc) for v in stores.vars
    ]
    (put,) = swapped.triggers
    assert [p.domain for p in put.params] == [big, IntRange(0, 1)]
    assert (put.name, put.group, put.doc, [p.name for p in put.params]) == (
        "put",
        "g",
        "p",
        ["m", "k"],
    )
    assert [(o.name, o.domain, o.doc) for o in swapped.outputs] == [
        ("said", Option(big), "o"),
        ("k", IntRange(0, 1), ""),
    ]
    assert swapped.rows is stores.rows and swapped.name == "stores"


def test_a_message_that_is_no_identifier_names_its_delivery_row_in_one() -> None:
    words = Finite("words", ("go-now", "y"))
    speaker = replace(
        SENDER,
        outputs=(Output("msg", Option(words), None),),
        rows=(row("a_sends_x", "tick", None, emits={"msg": some("go-now")}, cite="t"),),
    )
    spec = compose(
        "p",
        {"snd": speaker, "rcv": RECEIVER},
        [channel("q", ("snd", "msg"), "rcv", {"go-now": "x", "y": "y"}, capacity=1, cite="t")],
        source="t",
    )
    assert [r.name for r in spec.rows if r.trigger == "q_deliver"] == [
        "q_deliver_go_now__rcv_x_up0",
        "q_deliver_go_now__rcv_x_up1",
        "q_deliver_go_now__rcv_x_top",
        "q_deliver_y__rcv_y_resets",
    ]


def test_a_variant_that_adds_and_removes_rows_is_the_systems_difference() -> None:
    v = Variant(
        "counts_y",
        "Y counts instead of resetting",
        "a bug report",
        ("alternating",),
        add=(row("y_up", "y", R.R0, R.R1, cite="t"),),
        remove=("y_resets",),
    )
    spec = pair(properties=(ALTERNATING,), variants=[("rcv", v)])
    (system_v,) = spec.variants
    assert (system_v.name, system_v.doc, system_v.cite, system_v.violates) == (
        "counts_y",
        "Y counts instead of resetting",
        "a bug report",
        ("alternating",),
    )
    assert [r.name for r in system_v.add] == ["q_deliver_Y__rcv_y_up"]
    assert system_v.remove == ("q_deliver_Y__rcv_y_resets",)
    assert not system_v.replace
    assert system_v.add[0].guard == and_(
        ge(length(var("q")), 1), eq(head(var("q")), M.Y), is_in(var("rcv_r"), R.R0)
    )


def test_the_attribution_property_names_each_components_step() -> None:
    spec = pair()
    attribution = spec.prop("steps-name-their-triggers")
    xs = ("q_deliver_X__rcv_x_up0", "q_deliver_X__rcv_x_up1", "q_deliver_X__rcv_x_top")
    assert attribution.pred == And(
        (
            And((Implies(trigger_is("snd_tick"), In(out("snd_step"), (None, "tick"))),)),
            And(
                (
                    Implies(row_is(*xs), In(out("rcv_step"), (None, "x"))),
                    Implies(row_is("q_deliver_Y__rcv_y_resets"), In(out("rcv_step"), (None, "y"))),
                )
            ),
        )
    )


def test_what_a_component_brings_is_kept_in_the_system() -> None:
    """A component's docs, parameters, initial predicate and layout reach the system."""
    poking = replace(
        SENDER,
        vars=(Var("s", Finite.of_enum(S), AnyOf(S.A, S.B), doc="the sender's state"),),
        triggers=(
            Trigger("tick", doc="a tick"),
            Trigger("poke", (Param("hard", Finite("hard", (False, True))),), doc="a poke"),
        ),
        outputs=(Output("msg", Option(Finite.of_enum(M)), None, doc="what it sends"),),
        rows=(*SENDER.rows, row("poked", "poke", None, guard=eq(param("hard"), True), cite="t")),
        init=eq(var("s"), S.B),
    )
    layout = Layout(meanings={"snd": "the sender"})
    spec = compose(
        "p",
        {"snd": poking, "rcv": RECEIVER},
        [_q(doc="commands in flight")],
        source="t",
        layout=layout,
    )
    assert spec.var("snd_s").doc == "the sender's state"
    assert spec.var("q").doc == "commands in flight"
    assert spec.output("snd_msg").doc == "what it sends"
    assert [(t.name, t.doc) for t in spec.triggers[:2]] == [
        ("snd_tick", "a tick"),
        ("snd_poke", "a poke"),
    ]
    assert spec.trigger("snd_poke").params == poking.trigger("poke").params
    assert spec.row("snd_poked").guard == eq(param("hard"), True)
    assert spec.init == and_(eq(var("snd_s"), S.B), eq(var("q"), ()))
    assert {explore(spec).as_dict(0)["snd_s"]} == {S.B}
    assert spec.layout is layout
    assert pair().layout == Layout()


def _speaker(output: Output, a: object, b: object) -> Spec:
    """The sender, emitting `a` on its way to B and `b` on its way back, on `output`."""
    return replace(
        SENDER,
        outputs=(output,),
        rows=(
            row("a_sends_x", "tick", S.A, S.B, emits={output.name: a}, cite="t"),
            row("b_sends_y", "tick", S.B, S.A, emits={output.name: b}, cite="t"),
        ),
    )


def test_how_an_outputs_value_reads_as_messages() -> None:
    # A tuple of messages, on a finite domain of tuples: each item is sent, in order.
    bundles = Output("cmds", Finite("cmds", ((), (M.X,), (M.X, M.Y))), ())
    spec = compose(
        "p",
        {"snd": _speaker(bundles, (M.X, M.Y), ()), "rcv": RECEIVER},
        # Any message may be named: a bundle's items are checked where they are sent.
        [
            channel(
                "q",
                ("snd", "cmds"),
                "rcv",
                {M.X: "x", M.Y: "y", "other": None},
                capacity=2,
                cite="t",
            )
        ],
        source="t",
    )
    sends = spec.row("snd_a_sends_x")
    q = var("q")
    assert sends.guard == and_(is_in(var("snd_s"), S.A), le(length(q), 0))  # room for two
    assert sends.updates["q"] == append(append(q, M.X), M.Y)
    assert spec.row("snd_b_sends_y").guard == is_in(var("snd_s"), S.B)  # sends nothing
    assert spec.system is not None and spec.system.origins["snd_a_sends_x"].sends == (
        ("q", M.X),
        ("q", M.Y),
    )
    # A sequence's items are its messages; a value outside its element is refused.
    seq = Output("cmds", Seq(Finite.of_enum(M), 2), ())
    assert (
        _refusal(
            {"snd": _speaker(seq, (M.X,), (M.Y, M.X)), "rcv": RECEIVER},
            [
                channel(
                    "q",
                    ("snd", "cmds"),
                    "rcv",
                    {M.X: "x", M.Y: "y", "other": None},
                    capacity=2,
                    cite="t",
                )
            ],
        )
        == "system 'bad': channel 'q': 'other' is not a message of 'cmds'"
    )
    # A plain value is a message unless it is the output's default.
    plain = Output("msg", Finite.of_enum(M), M.X)
    spec = compose(
        "p",
        {"snd": _speaker(plain, M.Y, M.X), "rcv": RECEIVER},
        [channel("q", ("snd", "msg"), "rcv", {M.X: "x", M.Y: "y"}, capacity=1, cite="t")],
        source="t",
    )
    assert spec.row("snd_a_sends_x").updates["q"] == append(var("q"), M.Y)
    assert "q" not in spec.row("snd_b_sends_y").updates
    # An option's value is one message, a tuple as much as any.
    pairs = Output("msg", Option(Finite("pairs", ((M.X, M.Y), (M.Y, M.X)))), None)
    spec = compose(
        "p",
        {"snd": _speaker(pairs, some((M.X, M.Y)), some((M.Y, M.X))), "rcv": RECEIVER},
        [
            channel(
                "q", ("snd", "msg"), "rcv", {(M.X, M.Y): "x", (M.Y, M.X): "y"}, capacity=1, cite="t"
            )
        ],
        source="t",
    )
    assert spec.row("snd_a_sends_x").updates["q"] == append(var("q"), (M.X, M.Y))
    # A number is a message too.
    numbers = Output("n", IntRange(0, 2), 0)
    spec = compose(
        "p",
        {"snd": _speaker(numbers, 1, 2), "rcv": RECEIVER},
        [channel("q", ("snd", "n"), "rcv", {1: "x", 2: "y"}, capacity=1, cite="t")],
        source="t",
    )
    assert spec.row("snd_b_sends_y").updates["q"] == append(var("q"), 2)


@pytest.mark.parametrize("overflow", ["block", "drop"])
def test_a_step_that_clears_its_fifo_and_sends_on_it_leaves_only_what_it_sent(
    overflow: str,
) -> None:
    """Once refused: the room guard read the length of the emptied FIFO, a constant."""
    spec = compose(
        "p",
        {"snd": SENDER, "rcv": RECEIVER},
        [_q(capacity=1, cleared_by=[("snd", "tick")], overflow=overflow)],
        source="t",
    )
    oracle = Oracle(spec)
    oracle.fire("snd_tick")
    oracle.fire("snd_tick")
    assert oracle.state["q"] == (M.Y,)
    sends = spec.row("snd_b_sends_y")
    assert (sends.guard, sends.updates["q"]) == (is_in(var("snd_s"), S.B), Const((M.Y,)))
    assert spec.system is not None and spec.system.origins[sends.name].sends == (("q", M.Y),)
    assert verify(spec).ok
    # A send that cannot fit even an emptied FIFO never fires (or loses what does not fit).
    burst = replace(
        SENDER,
        outputs=(Output("msg", Seq(Finite.of_enum(M), 2), ()),),
        rows=(row("both", "tick", None, emits={"msg": (M.X, M.Y)}, cite="t"),),
    )
    spec = compose(
        "p",
        {"snd": burst, "rcv": RECEIVER},
        [_q(capacity=1, cleared_by=[("snd", "tick")], overflow=overflow)],
        source="t",
    )
    both = spec.row("snd_both")
    assert both.updates["q"] == Const((M.X,))
    assert both.guard == (Const(False) if overflow == "block" else TRUE)


def test_a_hand_over_passes_on_what_it_was_handed() -> None:
    """Three machines in one step: the relay's argument, bound by the first hand-over, is
    what the second hands on."""
    relay = Spec(
        name="relay",
        source="t",
        control=None,
        vars=(),
        triggers=(Trigger("take", (Param("m", Finite.of_enum(M)),)),),
        outputs=(Output("fwd", Option(Finite.of_enum(M)), None),),
        rows=(row("take", "take", None, emits={"fwd": some(M.X)}, cite="t"),),
    )
    swapped = channel(  # the relay is handed the other message
        "h",
        ("snd", "msg"),
        "relay",
        {M.X: ("take", {"m": M.Y}), M.Y: ("take", {"m": M.X})},
        cite="t",
    )
    spec = compose(
        "chain",
        {"snd": SENDER, "relay": relay, "log": LOG},
        [
            swapped,
            channel("h2", ("relay", "fwd"), "log", {M.X: ("put", {"m": param("m")})}, cite="t"),
        ],
        source="t",
    )
    rows = {r.name: r for r in spec.rows}
    assert list(rows) == [
        "snd_a_sends_x__relay_take__log_put",
        "snd_b_sends_y__relay_take__log_put",
    ]
    assert rows["snd_a_sends_x__relay_take__log_put"].updates["log_last"] == some(M.Y)
    assert rows["snd_b_sends_y__relay_take__log_put"].updates["log_last"] == some(M.X)
    assert spec.system is not None
    assert spec.system.origins["snd_b_sends_y__relay_take__log_put"].parts == (
        ("snd", "b_sends_y"),
        ("relay", "take"),
        ("log", "put"),
    )
    # A FIFO at the end of the chain: a full one refuses the whole step, named by every part.
    fifo = compose(
        "chain",
        {"snd": SENDER, "relay": relay, "log": LOG},
        [
            swapped,
            channel("q", ("relay", "fwd"), "log", {M.X: ("put", {"m": M.X})}, capacity=1, cite="q"),
        ],
        source="t",
        totality="explicit",
    )
    blocked = fifo.row("snd_b_sends_y__relay_take__blocked")
    assert (blocked.ignore, blocked.cite) == (True, "test; t")
