"""What a reviewer reads: properties as written, `fails: …`, certificates, counts and plurals."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from models.cli.main import main
from models.kernel import (
    Bool,
    Finite,
    IntRange,
    Option,
    Output,
    Real,
    Spec,
    Trigger,
    Var,
    add,
    always,
    and_,
    enabled,
    eq,
    ge,
    implies,
    is_none,
    lt,
    never,
    nxt,
    or_,
    out,
    row,
    trigger_is,
    var,
)
from models.kernel.checks import Checker
from models.kernel.printer import show
from models.kernel.readable import read_certificate, why
from models.kernel.trace import plural, state_count

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
