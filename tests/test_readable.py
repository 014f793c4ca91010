"""What a reviewer reads: properties as written, `fails: …`, certificates, counts and plurals."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from models.cli.main import main
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Real
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import enabled
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import ge
from models.kernel import gt
from models.kernel import implies
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import lt
from models.kernel import never
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import out
from models.kernel import row
from models.kernel import row_is
from models.kernel import trigger_is
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.expr import Expr
from models.kernel.printer import show
from models.kernel.readable import read_certificate
from models.kernel.readable import why
from models.kernel.spec import Property
from models.kernel.trace import Trace
from models.kernel.trace import plural
from models.kernel.trace import state_count

LIGHT = Finite("light", ("RED", "GREEN"))


def lights() -> Spec:
    """A light with a press counter that wraps nothing: two properties break on one step."""
    return Spec(
        name="lights",
        source="tests/test_readable.py",
        vars=(
            Var("light", LIGHT, "RED"),
            Var("presses", IntRange(0, 2), 0),
            Var("held", Option(Bool()), None),
            Var("weight", Option(Real(samples=(1.0, 2.0))), None),
        ),
        triggers=(Trigger("press"),),
        outputs=(Output("beep", Bool(), False),),
        rows=(
            row(
                "press",
                "press",
                None,
                None,
                guard=lt(var("presses"), 2),
                sets={"presses": add(var("presses"), 1), "light": "GREEN"},
                emits={"beep": True},
                cite="toy",
            ),
            row("press_at_two", "press", None, None, guard=eq(var("presses"), 2), cite="toy"),
        ),
        properties=(
            always("stays-red", eq(var("light"), "RED"), cite="toy"),
            never("pressed-twice", and_(eq(var("presses"), 2), is_none(var("held"))), cite="toy"),
            always(
                "press-keeps-light",
                implies(trigger_is("press"), eq(nxt("light"), var("light"))),
                cite="toy",
            ),
        ),
    )


def test_show_prints_the_spec_vocabulary() -> None:
    spec = lights()
    assert show(spec, spec.prop("press-keeps-light").as_written) == (
        "trigger is press → light' = light"
    )
    expr = implies(and_(trigger_is("press"), eq(var("light"), "RED")), out("beep"))
    assert show(spec, expr) == "(trigger is press ∧ light = RED) → out(beep)"
    expr = or_(and_(ge(var("presses"), 1), is_none(var("weight"))), enabled("press"))
    assert show(spec, expr) == "(presses ≥ 1 ∧ weight is none) ∨ enabled(press)"
    assert show(spec, eq(eq(out("beep"), True), eq(var("presses"), 1))) == (
        "(out(beep) = true) ⇔ (presses = 1)"
    )


def test_each_violation_says_what_its_own_failure_is() -> None:
    spec = lights()
    checker = Checker(spec)
    red = next(checker.run("stays-red"))
    assert red.verdict == "violated" and red.trace is not None
    assert why(spec, spec.prop("stays-red"), red.trace) == (
        "fails: light = RED is false (light = GREEN)"
    )
    step = next(checker.run("press-keeps-light"))
    assert step.trace == red.trace and len(red.trace) == 1  # one step, two failures
    assert why(spec, spec.prop("press-keeps-light"), step.trace) == (
        "fails: trigger is press holds, but light' = light is false (light' = GREEN, light = RED)"
    )
    twice = next(checker.run("pressed-twice"))
    assert twice.trace is not None
    assert why(spec, spec.prop("pressed-twice"), twice.trace) == (
        "fails: it happens: presses = 2 and held is none"
    )


def test_a_certificate_names_option_fields_and_drops_domain_restatements() -> None:
    spec = lights()
    raw = "inv: And(Not(presses <= -1), Not(presses >= 3), Or(Not(held.0), held.1), light ≠ RED)"
    cert = read_certificate(spec, raw)
    assert cert is not None and cert.dropped == 2
    assert cert.clauses == ("held is none ∨ held.value", "light ≠ RED")
    assert cert.one_line() == "inv: (held is none ∨ held.value) ∧ light ≠ RED"
    assert cert.lines() == [
        "certificate: inv: (held is none ∨ held.value) ∧ light ≠ RED "
        "(2 clauses restating a domain left out; --full prints it raw)"
    ]
    long = read_certificate(spec, "inv: And(" + ", ".join(["Or(light == GREEN, held.0)"] * 4) + ")")
    assert long is not None and long.lines()[1:] == [
        f"  {i}. light = GREEN ∨ held is set" for i in (1, 2, 3, 4)
    ]
    assert read_certificate(spec, "0-inductive: no step breaks it") is None
    assert read_certificate(spec, "inv: And(unparsable") is None


def test_explain_prints_the_property_and_a_readable_certificate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "policy", "wave-takes-the-last-arrival"]) == 0
    out = capsys.readouterr().out
    assert "property: (trigger is wave → out(taken) = last_arrival) ∧ in_force' = " in out
    # Spacer's invariant may differ run to run (z3's state); its reading may not.
    assert "certificate: " in out and "And(" not in out and "Or(" not in out
    assert re.search(r"\b(pending|last_arrival) is (set|none)\b", out)
    assert not re.search(r"\w\.[01]\b", out)
    assert main(["explain", "policy", "wave-takes-the-last-arrival", "--full"]) == 0
    assert "certificate: inv: And(" in capsys.readouterr().out


def test_explain_says_why_a_counterexample_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "policy:eager-reading", "calls-read-the-wave-start"]) == 0
    out = capsys.readouterr().out
    assert "counterexample, 2 steps:" in out
    assert out.rstrip().endswith(
        "fails: trigger is call holds, but out(read) = wave_start is false "
        "(out(read) = WATCHED, wave_start = OTHER)"
    )


def test_counts_read_as_words() -> None:
    assert [plural(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    assert plural(1, "property", "properties") == "1 property"
    assert plural(3, "property", "properties") == "3 properties"
    spec = lights()
    sampled = [("RED", 0, None, 1.0), ("RED", 0, None, 2.0), ("GREEN", 1, None, None)]
    assert state_count(spec, sampled) == "2 reachable states (3 with the samples of weight)"
    plain = replace(spec, vars=spec.vars[:3])
    assert state_count(plain, [("RED", 0, None)]) == "1 reachable state"
    height = Var("height", Option(Real(samples=(1.0,))), None)
    two = replace(spec, vars=(*spec.vars, height))
    states = [("RED", 0, None, 1.0, 1.0), ("RED", 0, None, 2.0, 1.0)]
    assert state_count(two, states) == "1 reachable state (2 with the samples of weight, height)"


def _fails(spec: Spec, prop: Property) -> str | None:
    """`why` on the light's one press (RED, 0 presses → GREEN, 1 press, beep)."""
    trace = next(Checker(spec).run("stays-red")).trace
    assert trace is not None and len(trace) == 1
    return why(spec, prop, trace)


L, P = var("light"), var("presses")


@pytest.mark.parametrize(
    ("pred", "said"),
    [
        # Each failing conjunct, none of the holding ones.
        (
            and_(eq(L, "GREEN"), eq(P, 2), is_none(var("held")), eq(P, 0)),
            "presses = 2 is false (presses = 1); presses = 0 is false (presses = 1)",
        ),
        (
            or_(eq(L, "RED"), gt(P, 1)),
            "none of its cases holds: light = RED is false (light = GREEN); presses > 1 is false",
        ),
        # Under a negation, the cases that hold are the failure.
        (not_(or_(eq(L, "RED"), eq(P, 1), eq(L, "GREEN"))), "presses = 1; light = GREEN"),
        (not_(and_(eq(L, "GREEN"), eq(P, 1))), "light = GREEN and presses = 1"),
        (not_(not_(eq(L, "RED"))), "light ≠ RED (light = GREEN)"),
        (not_(implies(eq(L, "GREEN"), eq(P, 1))), "presses = 1"),
        (
            forall("c", LIGHT, lambda c: eq(L, c)),
            "for c = RED: light = RED is false (light = GREEN)",
        ),
        # An equivalence names the side that holds and the side that does not.
        (
            eq(eq(L, "GREEN"), eq(P, 0)),
            "(light = GREEN) holds, but presses = 0 is false (presses = 1)",
        ),
        (eq(eq(L, "RED"), eq(P, 1)), "light = RED is false (light = GREEN), but presses = 1"),
        (is_some(var("held")), "held is set is false (held = none)"),
        (
            implies(trigger_is("press"), eq(out("beep"), False)),
            "trigger is press holds, but out(beep) = false is false (out(beep) = true)",
        ),
        (not_(row_is("press")), "row is not press is false"),
        (eq(L, "GREEN"), None),
    ],
)
def test_always_says_which_part_fails_with_the_values_it_read(pred: Expr, said: str | None) -> None:
    spec = lights()
    assert _fails(spec, always("p", pred, cite="toy")) == (said and "fails: " + said)


@pytest.mark.parametrize(
    ("pred", "said"),
    [
        (or_(eq(L, "GREEN"), eq(P, 2), eq(P, 1)), "light = GREEN; presses = 1"),
        (implies(eq(L, "RED"), eq(P, 2)), "light = RED is false (light = GREEN)"),
        (implies(eq(L, "GREEN"), eq(P, 1)), "presses = 1"),
        (not_(and_(eq(L, "GREEN"), eq(P, 2))), "presses = 2 is false (presses = 1)"),
        (exists("c", LIGHT, lambda c: eq(L, c)), "for c = GREEN: light = GREEN"),
        (and_(eq(L, "GREEN"), ge(P, 1)), "light = GREEN and presses ≥ 1"),
        (eq(L, "RED"), None),
    ],
)
def test_never_says_what_happens(pred: Expr, said: str | None) -> None:
    spec = lights()
    assert _fails(spec, never("p", pred, cite="toy")) == (said and "fails: it happens: " + said)


@pytest.mark.parametrize(
    ("clause", "read"),
    [
        # Each operator, on a clause true for every value of presses (0..2: left out)
        # and on one that is not (kept, in the spec's vocabulary or as z3 wrote it).
        ("presses + 1 <= 3", None),
        ("presses + 1 <= 2", "presses + 1 ≤ 2"),
        ("presses - 1 >= -1", None),
        ("presses - 1 >= 0", "presses - 1 ≥ 0"),
        ("presses * 2 <= 4", None),
        ("presses * 2 < 4", "presses * 2 < 4"),
        ("presses / 2 <= 1", None),
        ("presses / 2 < 1", "presses / 2 < 1"),
        ("-presses <= 0", None),
        ("-presses < 0", "-presses < 0"),
        ("presses != 3", None),
        ("presses != 2", "presses ≠ 2"),
        ("presses > -1", None),
        ("presses > 0", "presses > 0"),
        ("presses >= 0.5", "presses ≥ 0.5"),
        ("presses >= -0.5", None),
        ("presses < 3", None),
        ("presses == -(1)", "presses = -1"),
        ("Implies(presses > 1, presses == 2)", None),
        ("If(presses > 0, presses >= 1, True)", None),
        ("Or(held.0 == True, Not(held.0))", None),
        ("held.0", "held is set"),
        ("Or(And(light == RED, presses > 0), held.0)", "(light = RED ∧ presses > 0) ∨ held is set"),
        ("presses == presses", None),
        ("Implies(held.0, Or(held.1, Not(held.1)))", None),
        ("Implies(held.0, held.1)", "held is set → held.value"),
        ("If(held.0, held.1 == held.1, True)", None),
        ("If(held.0, held.1, True)", "(if held is set then held.value else true)"),
        ("If(held.0, held.1, False)", "(if held is set then held.value else false)"),
        ("If(held.0, presses, 1) >= 1", "(if held is set then presses else 1) ≥ 1"),
        ("Or(light == RED, light == GREEN)", None),
        ("Not(And(light == RED, light == GREEN))", None),
        ("Or(held.0 == False, held.0)", None),
        ("held.1 == True", "held.value = true"),
        ("held.1 == False", "held.value = false"),
        ("Not(held.0)", "held is none"),
        ("RED == light", "RED = light"),
        ("Implies(light == RED, presses <= 1)", "light = RED → presses ≤ 1"),
        # Two variables, or one with infinitely many values: never a domain's restatement.
        ("Or(presses >= 0, light == RED)", "presses ≥ 0 ∨ light = RED"),
        ("weight.0", "weight is set"),
        ("weight.1 >= 1.5", "weight.value ≥ 1.5"),
        # A name or function the spec does not know: as z3 wrote it.
        ("Or(light == BLUE, held.0)", "Or(light == BLUE, held.0)"),
        ("foo(presses)", "foo(presses)"),
        ("foo(presses, 1)", "foo(presses, 1)"),
        ("foo(held.0, presses, 1)", "foo(held.0, presses, 1)"),
        ("(presses)", "presses"),
        ("presses > 0  ", "presses > 0"),
    ],
)
def test_a_certificate_reads_each_operator(clause: str, read: str | None) -> None:
    cert = read_certificate(lights(), "inv: " + clause)
    assert cert is not None and cert.raw == "inv: " + clause
    assert (cert.clauses, cert.dropped) == (((), 1) if read is None else ((read,), 0))
    assert cert.one_line() == f"inv: {read or 'true'}"
    assert cert.lines() == [
        f"certificate: inv: {read}"
        if read
        else "certificate: inv: true (1 clause restating a domain left out; --full prints it raw)"
    ]


@pytest.mark.parametrize(
    "text", ["inv: presses @ 1", "inv: (presses 1", "inv: foo(1 2)", "inv: foo(1 2"]
)
def test_a_certificate_z3_did_not_write_is_not_read(text: str) -> None:
    assert read_certificate(lights(), text) is None


def test_a_clause_with_an_implication_is_bracketed_among_others() -> None:
    cert = read_certificate(lights(), "inv: And(Implies(held.0, held.1), presses < 2)")
    assert cert is not None
    assert cert.one_line() == "inv: (held is set → held.value) ∧ presses < 2"


def test_two_clauses_too_long_for_one_line_are_numbered() -> None:
    two = (
        "inv: And(Or(light == GREEN, held.0, presses > 1), Or(light == GREEN, held.0, presses > 0))"
    )
    long = read_certificate(lights(), two)
    assert long is not None and long.lines() == [
        "certificate: an inductive invariant, all of these 2 clauses:",
        "  1. light = GREEN ∨ held is set ∨ presses > 1",
        "  2. light = GREEN ∨ held is set ∨ presses > 0",
    ]


def test_a_trigger_no_row_can_fire_is_named() -> None:
    spec = lights()
    alone = replace(spec, rows=spec.rows[:1])  # no row for two presses
    trace = Trace({"light": "GREEN", "presses": 2, "held": None, "weight": None}, ())
    assert why(alone, always("p", enabled("press"), cite="toy"), trace) == (
        "fails: enabled(press) is false: no row of these triggers can fire here"
    )
