"""Unit tests of the modelling kernel on small specs whose answers are known by hand.

Each check is shown to fail on a spec built to fail it: a check that cannot
fail is a defect.
"""

from __future__ import annotations

import enum
from dataclasses import replace

import pytest

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Real
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import ge
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_none
from models.kernel import ite
from models.kernel import lt
from models.kernel import never
from models.kernel import nxt
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import trigger_is
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.checks import verify
from models.kernel.explore import explore
from models.kernel.oracle import Oracle
from models.kernel.oracle import OracleError
from models.kernel.trace import Step
from models.kernel.trace import Trace
from models.kernel.trace import render_trace
from models.kernel.trace import trace_json


class Door(enum.Enum):
    SHUT = "shut"
    OPEN = "open"
    LOCKED = "locked"


SHUT, OPEN, LOCKED = Door
DOOR = Finite.of_enum(Door)


def door_spec(**changes: object) -> Spec:
    """A door with a use counter: open/close/lock/unlock, and a knock that does nothing."""
    rows = [
        row(
            "open",
            "open",
            SHUT,
            OPEN,
            guard=lt(var("uses"), 3),
            sets={"uses": add(var("uses"), 1)},
            cite="toy: open",
        ),
        ignore("open_ignored", "open", (OPEN, LOCKED), cite="toy"),
        ignore("open_worn_out", "open", SHUT, guard=ge(var("uses"), 3), cite="toy"),
        row("close", "close", OPEN, SHUT, emits={"sound": True}, cite="toy: close"),
        ignore("close_ignored", "close", (SHUT, LOCKED), cite="toy"),
        row("lock", "lock", SHUT, LOCKED, cite="toy: lock"),
        ignore("lock_ignored", "lock", (OPEN, LOCKED), cite="toy"),
        row("unlock", "unlock", LOCKED, SHUT, guard=param("right_key"), cite="toy: unlock"),
        ignore(
            "unlock_wrong_key", "unlock", LOCKED, guard=eq(param("right_key"), False), cite="toy"
        ),
        ignore("unlock_ignored", "unlock", (SHUT, OPEN), cite="toy"),
        row("weigh", "weigh", None, sets={"weight": some(param("kg"))}, cite="toy: weigh"),
    ]
    fields: dict[str, object] = dict(
        name="door",
        source="tests/test_kernel.py",
        control="door",
        vars=(
            Var("door", DOOR, SHUT),
            Var("uses", IntRange(0, 3), 0),
            Var("weight", Option(Real(samples=(1.0,))), None),
        ),
        triggers=(
            Trigger("open"),
            Trigger("close"),
            Trigger("lock"),
            Trigger("unlock", (Param("right_key", Bool()),)),
            Trigger("weigh", (Param("kg", Real(samples=(1.0,))),)),
        ),
        outputs=(Output("sound", Bool(), False),),
        rows=tuple(rows),
        properties=(
            always(
                "open-means-used", implies(eq(var("door"), OPEN), ge(var("uses"), 1)), cite="toy"
            ),
            never(
                "open-and-locked", and_(eq(var("door"), OPEN), eq(var("door"), LOCKED)), cite="toy"
            ),
            sometimes("worn-out", eq(var("uses"), 3), cite="toy"),
            always(
                "close-makes-a-sound",
                implies(and_(trigger_is("close"), eq(var("door"), OPEN)), out("sound")),
                cite="toy",
            ),
        ),
    )
    fields.update(changes)
    return Spec(**fields)  # type: ignore[arg-type]


def result(spec: Spec, check: str) -> object:
    return next(Checker(spec).run(check))


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"rows": (row("r", "open", "AJAR", None, cite="x"),)},
            "row 'r': source 'AJAR' is not a state",
        ),
        (
            {"rows": (row("r", "open", SHUT, "AJAR", cite="x"),)},
            "row 'r': target 'AJAR' is not a state",
        ),
        (
            {"rows": (row("r", "open", SHUT, sets={"colour": 1}, cite="x"),)},
            "row 'r': updates unknown variable 'colour'",
        ),
        (
            {"rows": (row("r", "open", SHUT, sets={"uses": True}, cite="x"),)},
            "row 'r' update of 'uses': True is not in int 0..3",
        ),
        (
            {"rows": (row("r", "open", SHUT, guard=eq(var("uses"), OPEN), cite="x"),)},
            "row 'r' guard",
        ),
        ({"rows": (row("r", "open", SHUT, cite=""),)}, "row 'r': no source citation"),
        (
            {"rows": (row("r", "open", SHUT, cite="x"), row("r", "close", SHUT, cite="x"))},
            "duplicate row 'r'",
        ),
        ({"rows": (row("r", "fly", SHUT, cite="x"),)}, "row 'r': unknown trigger 'fly'"),
        (
            {"rows": (row("r", "open", SHUT, sets={"door": OPEN}, cite="x"),)},
            "sets the control variable 'door'",
        ),
        (
            {"rows": (row("r", "weigh", SHUT, guard=lt(param("kg"), 2.0), cite="x"),)},
            "may not test the real parameter 'kg'",
        ),
        (
            {"rows": (row("r", "open", SHUT, guard=eq(var("nope"), 1), cite="x"),)},
            "unknown variable 'nope'",
        ),
        ({"properties": (always("p", eq(var("uses"), 1), cite=""),)}, "property 'p': no source"),
        ({"properties": (always("p", trigger_is("fly"), cite="x"),)}, "unknown trigger 'fly'"),
        ({"control": "weight"}, "control variable 'weight' must be finite"),
    ],
)
def test_malformed_specs_are_refused_naming_the_cause(
    change: dict[str, object], message: str
) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        door_spec(**change)


def test_an_ignore_row_may_not_change_anything() -> None:
    bad = ignore("quiet", "open", SHUT, cite="x")
    bad = type(bad)(**{**vars(bad), "updates": {"uses": var("uses")}})
    with pytest.raises(SpecError, match="an ignore row changes nothing"):
        door_spec(rows=(bad,))


# ---------------------------------------------------------------- oracle and explorer


def test_the_explorer_finds_every_state_and_shortest_paths() -> None:
    graph = explore(door_spec())
    # door × uses × weight: SHUT/OPEN/LOCKED with uses 0..3 (OPEN needs uses ≥ 1),
    # weight none or the one sample. The set itself, not only its size.
    assert set(graph.states) == {
        (d, u, w) for d in Door for u in range(4) for w in (None, 1.0) if not (d is OPEN and u == 0)
    }
    assert len(graph.states) == 22
    for i in range(len(graph.states)):
        path = graph.path_to(i)
        assert len(path) == graph.depth[i] and path.states()[-1] == graph.as_dict(i)
    worn = graph.first_state(eq(var("uses"), 3))
    assert worn is not None
    assert [s.row for s in graph.path_to(worn).steps] == ["open", "close", "open", "close", "open"]


def test_the_oracle_refuses_what_the_spec_does_not_define() -> None:
    oracle = Oracle(door_spec())
    with pytest.raises(OracleError, match="has no trigger 'fly'"):
        oracle.fire("fly")
    with pytest.raises(OracleError, match="takes \\['right_key'\\]"):
        oracle.fire("unlock")
    with pytest.raises(OracleError, match="is not in bool"):
        oracle.fire("unlock", right_key=3)
    assert oracle.fire("open").row == "open"
    assert oracle.state["door"] is OPEN and oracle.state["uses"] == 1


def test_a_non_total_spec_stops_the_oracle() -> None:
    partial = door_spec(rows=door_spec().rows[:1] + door_spec().rows[3:])
    oracle = Oracle(partial)
    oracle.fire("open")
    with pytest.raises(OracleError, match="no row of 'open' is enabled"):
        oracle.fire("open")


# ---------------------------------------------------------------- checks


def test_the_door_verifies_with_certificates_and_witnesses() -> None:
    report = verify(door_spec(), certificates=60)  # the certificates are what is tested
    verdicts = {c.id: (c.verdict, c.method) for c in report.checks}
    assert verdicts["open-means-used"] == ("proved", "spacer")
    assert verdicts["open-and-locked"] == ("proved", "spacer")
    assert verdicts["worn-out"] == ("witnessed", "bfs")  # the explorer's path, z3-confirmed
    assert verdicts["close-makes-a-sound"][0] == "proved"
    assert report.ok, [c for c in report.checks if not c.ok]
    witness = next(c for c in report.checks if c.id == "worn-out")
    assert witness.bound == 5 and witness.trace is not None
    proved = next(c for c in report.checks if c.id == "open-means-used")
    assert proved.certificate and proved.certificate.startswith("inv:")


def test_k_induction_agrees_with_spacer() -> None:
    report = verify(door_spec(), method="k-induction", certificates=60)
    assert report.ok
    methods = {c.id: c.method for c in report.checks}
    assert methods["open-means-used"] == "k-induction"


def test_a_violated_always_gets_the_shortest_counterexample() -> None:
    spec = door_spec(properties=(always("never-worn", lt(var("uses"), 3), cite="toy"),))
    check = next(Checker(spec).run())
    assert check.verdict == "violated" and check.method == "bfs"
    assert check.trace is not None and len(check.trace) == 5
    lines = render_trace(spec, check.trace)
    assert lines[0].startswith(" 0  init")
    assert lines[1].split()[:3] == ["1", "open", "open()"]
    assert "door SHUT→OPEN" in lines[1] and "uses 0→1" in lines[1]


def test_a_trace_reads_step_by_step_with_only_what_changed() -> None:
    spec = door_spec()
    weigh = Trigger("weigh", (Param("kg", Real(samples=(1.0,))), Param("unit", Bool())))
    spec = replace(
        spec,
        triggers=(*spec.triggers[:4], weigh),
        outputs=(*spec.outputs, Output("bell", Bool(), False)),
    )
    nan, quiet = float("nan"), {"sound": False, "bell": False}
    opened = {"door": OPEN, "uses": 1, "weight": None}
    weighed = {**opened, "weight": nan}
    trace = Trace(
        {"door": SHUT, "uses": 0, "weight": None},
        (
            Step("open", "open", {}, opened, quiet),
            Step("weigh", "weigh", {"kg": nan, "unit": True}, weighed, quiet),
            Step("weigh", "weigh", {"kg": 2.5, "unit": False}, weighed, quiet),
            Step("close", "close", {}, {**weighed, "door": SHUT}, {"sound": True, "bell": True}),
        ),
    )
    assert render_trace(spec, trace, sources=True) == [
        " 0  init   door=SHUT uses=0 weight=none",
        " 1  open   open()  door SHUT→OPEN  uses 0→1   [toy: open]",
        " 2  weigh  weigh(kg=nan, unit=true)  weight none→nan   [toy: weigh]",
        " 3  weigh  weigh(kg=2.5, unit=false)  (no change)   [toy: weigh]",  # NaN kept
        " 4  close  close()  door OPEN→SHUT   out: sound=true bell=true   [toy: close]",
    ]
    assert (
        render_trace(spec, trace)[4]
        == " 4  close  close()  door OPEN→SHUT   out: sound=true bell=true"
    )
    entries = trace_json(spec, trace)
    assert entries[0] == {
        "action": "init",
        "args": {},
        "state": {"door": "SHUT", "uses": 0, "weight": None},
        "outputs": {},
    }
    assert entries[2]["action"] == "weigh" and entries[2]["args"] == {"kg": "nan", "unit": True}
    assert entries[4]["outputs"] == {"sound": True, "bell": True}


def test_a_sometimes_that_cannot_happen_is_violated_with_a_proof() -> None:
    spec = door_spec(
        properties=(
            sometimes(
                "opens-when-locked",
                and_(trigger_is("open"), eq(var("door"), LOCKED), eq(nxt("door"), OPEN)),
                cite="toy",
            ),
        )
    )
    check = next(Checker(spec).run())
    assert check.verdict == "violated" and check.certificate


def test_overlapping_rows_break_determinism() -> None:
    rows = (*door_spec().rows, row("open_twice", "open", SHUT, OPEN, cite="toy"))
    check = result(door_spec(rows=rows), "determinism")
    assert check.verdict == "violated"  # type: ignore[attr-defined]
    assert "'open' and 'open_twice'" in check.detail  # type: ignore[attr-defined]


def test_a_missing_ignore_breaks_totality() -> None:
    rows = tuple(r for r in door_spec().rows if r.name != "close_ignored")
    check = result(door_spec(rows=rows), "totality")
    assert check.verdict == "violated"  # type: ignore[attr-defined]
    assert "'close'" in check.detail  # type: ignore[attr-defined]


def test_a_state_with_only_ignores_is_a_deadlock() -> None:
    # Without weigh and with unlock never possible, a locked door is stuck.
    rows = tuple(
        r
        if r.name != "unlock"
        else row(
            "unlock",
            "unlock",
            LOCKED,
            SHUT,
            guard=and_(param("right_key"), eq(param("right_key"), False)),
            cite="toy",
        )
        for r in door_spec().rows
        if r.name != "weigh"
    )
    rows = (
        *rows,
        ignore("weigh_ignored", "weigh", None, cite="toy"),
        ignore("unlock_never", "unlock", LOCKED, guard=param("right_key"), cite="toy"),
    )
    check = result(door_spec(rows=rows), "no-deadlock")
    assert check.verdict == "violated"  # type: ignore[attr-defined]
    assert check.trace is not None and check.trace.steps[-1].row == "lock"  # type: ignore[attr-defined]


def test_a_row_that_never_fires_is_reported() -> None:
    rows = (
        *door_spec().rows[:-1],
        row(
            "weigh",
            "weigh",
            None,
            guard=eq(var("uses"), 3),
            sets={"weight": some(param("kg"))},
            cite="toy",
        ),
        ignore("weigh_ignored", "weigh", None, guard=lt(var("uses"), 3), cite="toy"),
        row("never", "lock", LOCKED, guard=is_none(var("weight")), cite="toy"),
    )
    spec = door_spec(rows=rows)
    check = result(spec, "rows-fire")
    assert check.verdict == "violated"  # type: ignore[attr-defined]
    assert "never" in check.detail  # type: ignore[attr-defined]


def test_terminal_states_must_be_absorbing() -> None:
    moves = result(door_spec(terminal=eq(var("uses"), 3)), "terminal-absorbing")
    assert moves.verdict == "violated"  # type: ignore[attr-defined]  # close still moves


def test_a_variant_is_expected_to_violate() -> None:
    leaky = row("close", "close", OPEN, SHUT, cite="toy: a silent close")
    spec = door_spec(
        variants=(
            Variant(
                "silent",
                "closes quietly",
                "toy",
                ("close-makes-a-sound",),
                replace={"close": leaky},
            ),
        )
    )
    faulty = spec.with_variant("silent")
    assert faulty.name == "door:silent"
    report = verify(faulty)
    assert [c.id for c in report.checks] == ["close-makes-a-sound"]
    assert report.checks[0].verdict == "violated" and report.checks[0].expected == "violate"
    assert report.ok


def test_a_witness_the_real_samples_miss_is_found_by_bmc() -> None:
    # The explorer cannot decide a real value outside its samples: BMC searches every value.
    spec = door_spec(properties=(sometimes("heavy", eq(var("weight"), some(2.0)), cite="toy"),))
    check = next(Checker(spec).run())
    assert (check.verdict, check.method) == ("witnessed", "bmc")
    assert "samples miss" in check.detail
    assert check.trace is not None and check.trace.steps[-1].state["weight"] == 2.0


def test_initial_choice_is_part_of_the_state_space() -> None:
    spec = door_spec(vars=(Var("door", DOOR, AnyOf(SHUT, LOCKED)), *door_spec().vars[1:]))
    graph = explore(spec)
    assert sum(1 for d in graph.depth if d == 0) == 2


def test_a_domain_that_is_not_a_domain_is_refused() -> None:
    with pytest.raises(SpecError, match="variable 'uses': domain must be a Domain"):
        door_spec(vars=(Var("door", DOOR, SHUT), Var("uses", int, 0)))  # type: ignore[arg-type]


def test_nested_if_then_else_of_constants_is_typed_by_its_context() -> None:
    nested = ite(eq(var("door"), OPEN), 1, ite(eq(var("door"), LOCKED), 2, 0))
    counted = row("count", "lock", SHUT, LOCKED, sets={"uses": nested}, cite="toy")
    rows = tuple(counted if r.name == "lock" else r for r in door_spec().rows)
    report = verify(door_spec(rows=rows, properties=()))
    assert report.ok, [(c.id, c.detail) for c in report.checks if not c.ok]
