"""The results `verify` and `Checker` hand back, field by field.

tests/test_checks_teeth.py makes each check fail with its counterexample; this
file pins the rest of each result (its kind, cite, expectation, method, bound,
basis and its words) and the orchestration around the checks: which checks a
spec gets and in what order, `only`, the progress callback, a z3 limit turned
into an `unknown`. Each spec is built inside its test (a spec built at import
time would never be rebuilt under a kernel mutant).

Covers models/kernel/checks.py (`Checker`, `verify`, `CheckResult`, `SpecReport`).
"""

from __future__ import annotations

import itertools
import time
import types
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from test_checks_teeth import CITES
from test_checks_teeth import DONE
from test_checks_teeth import IS_DONE
from test_checks_teeth import OFF
from test_checks_teeth import ON
from test_checks_teeth import PUSH_FULL
from test_checks_teeth import PUSH_ON
from test_checks_teeth import ROWS
from test_checks_teeth import TICK_DONE
from test_checks_teeth import TICK_IDLE
from test_checks_teeth import TICK_WAIT
from test_checks_teeth import TRUE_N
from test_checks_teeth import lamp
from test_checks_teeth import make

from models.kernel import Bool
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Param
from models.kernel import Real
from models.kernel import Row
from models.kernel import Seq
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import checks as checks_module
from models.kernel import eq
from models.kernel import eventually
from models.kernel import ge
from models.kernel import ignore
from models.kernel import implies
from models.kernel import ite
from models.kernel import le
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import never
from models.kernel import nxt
from models.kernel import param
from models.kernel import row
from models.kernel import sometimes
from models.kernel import sub
from models.kernel import var
from models.kernel import weak
from models.kernel.checks import Checker
from models.kernel.checks import CheckResult
from models.kernel.checks import Head
from models.kernel.checks import Method
from models.kernel.checks import _result
from models.kernel.checks import verify
from models.kernel.explore import explore
from models.kernel.expr import append
from models.kernel.expr import head
from models.kernel.expr import length
from models.kernel.expr import tail
from models.kernel.smt import Budget
from models.kernel.smt import Found
from models.kernel.smt import Proved
from models.kernel.smt import SetCheck
from models.kernel.smt import SolverLimit
from models.kernel.smt import Unknown
from models.kernel.smt import Verdict

STRUCTURAL = [
    "determinism",
    "totality",
    "no-deadlock",
    "terminal-absorbing",
    "rows-fire",
    "vacuity",
    "reachable-set",
]


def _props() -> list[object]:
    return [
        always("n-bounded", le(var("n"), 2), cite="toy: bounded"),
        sometimes("gets-done", IS_DONE, cite="toy: done"),
    ]


def test_a_spec_gets_its_properties_then_the_structural_checks_in_order() -> None:
    checker = make(lamp(properties=_props()))
    assert checker.check_ids() == ["n-bounded", "gets-done", *STRUCTURAL]
    assert [r.id for r in checker.run()] == checker.check_ids()
    # Without a terminal predicate there is nothing to keep absorbing.
    bare = make(lamp(terminal=None, rows=[r for r in ROWS if r.name != "tick_done"]))
    assert "terminal-absorbing" not in bare.check_ids()
    assert "no-deadlock" in bare.check_ids()
    # A faulty variant runs its properties only.
    faulty = replace(lamp(properties=_props()), expect_violated=("n-bounded",))
    assert make(faulty).check_ids() == ["n-bounded", "gets-done"]
    # Deadlock and totality are asked for by the spec.
    quiet = replace(lamp(), check_deadlock=False, totality="enabled-only")
    assert make(quiet).check_ids() == [
        c for c in STRUCTURAL if c not in ("totality", "no-deadlock")
    ]


def test_only_runs_the_one_check_named() -> None:
    checker = make(lamp(properties=_props()))
    assert [r.id for r in checker.run("vacuity")] == ["vacuity"]
    assert [r.id for r in checker.run("gets-done")] == ["gets-done"]
    assert list(checker.run("no-such-check")) == []


def test_verify_reports_each_result_as_it_comes_and_says_whether_all_passed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A clock that ticks once a reading: each check's time and the run's, never a speed. It
    # starts past 0, so a time added to its start instead of taken from it shows.
    ticks = itertools.count(100)
    clock = types.SimpleNamespace(perf_counter=lambda: float(next(ticks)), monotonic=time.monotonic)
    monkeypatch.setattr(checks_module, "time", clock)
    seen: list[CheckResult] = []
    report = verify(lamp(properties=_props()), progress=seen.append, timeout=600, certificates=600)
    assert [r.id for r in seen] == ["n-bounded", "gets-done", *STRUCTURAL]
    assert report.checks == seen
    assert report.ok
    assert [r.seconds for r in seen] == [1.0] * len(seen)  # read before and after each check
    assert report.seconds == 2 * len(seen) + 1  # and once before and after them all
    assert len(report.exploration.states) == report.checks[0].states == 6
    only = verify(lamp(properties=_props()), only="gets-done", timeout=600)
    assert [r.id for r in only.checks] == ["gets-done"]
    broken = verify(lamp(properties=[never("done", IS_DONE, cite="t")]), timeout=600)
    assert not broken.ok
    assert [r.id for r in broken.checks if not r.ok] == ["done"]


def test_a_result_is_ok_when_it_meets_its_expectation() -> None:
    head = Head("p", "always", "t")
    wanted = Head("p", "always", "t", "violate")
    assert _result(head, "proved", "bfs", None, basis="exhaustive").ok
    assert _result(head, "witnessed", "bfs", 1).ok
    assert not _result(head, "violated", "bfs", 1).ok
    assert not _result(head, "unknown", "bfs", None).ok
    assert _result(wanted, "violated", "bfs", 1).ok
    for verdict in ("proved", "witnessed", "unknown"):
        assert not _result(wanted, verdict, "bfs", 1).ok


def test_a_z3_limit_inside_a_check_is_an_unknown_naming_the_engine_and_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    faulty = replace(lamp(properties=_props()), expect_violated=("n-bounded",))
    checker = make(faulty)

    def give_up(*args: object, **kwargs: object) -> CheckResult:
        raise SolverLimit("spacer", "out of time")

    monkeypatch.setattr(checker, "check_property", give_up)
    (bounded,) = checker.run("n-bounded")
    assert (bounded.id, bounded.kind, bounded.cite, bounded.expected) == (
        "n-bounded",
        "always",
        "toy: bounded",
        "violate",
    )
    assert (bounded.verdict, bounded.method, bounded.bound, bounded.trace) == (
        "unknown",
        "spacer",
        None,
        None,
    )
    assert bounded.detail == "spacer gave up on n-bounded: out of time"
    assert bounded.basis_text == "none: no engine decided it"
    (done,) = checker.run("gets-done")
    assert (done.kind, done.cite, done.expected) == ("sometimes", "toy: done", "hold")
    checker = make(lamp())
    monkeypatch.setattr(checker, "check_rows", give_up)
    (rows,) = checker.run("rows-fire")
    assert (rows.id, rows.kind, rows.cite, rows.expected, rows.verdict) == (
        "rows-fire",
        "structural",
        "kernel",
        "hold",
        "unknown",
    )
    assert rows.detail == "spacer gave up on rows-fire: out of time"


def test_a_result_says_its_basis_in_words() -> None:
    head = Head("p", "always", "t")
    words = {
        "certificate": "z3",
        "cross-check": "z3 and the explorer side by side",
        "exhaustive": "exhaustive search, 1,234 states",
        "sampled": "the explorer's search, 1,234 states on the real samples",
    }
    for basis, text in words.items():
        result = _result(head, "proved", "bfs", None, basis=basis, states=1234)  # type: ignore[arg-type]
        assert result.basis_text == text, basis
    assert _result(head, "proved", "x", 0, certificate="c").basis_text == "z3 certificate"
    assert _result(head, "proved", "x", 0, basis="exhaustive").basis_text == (
        "exhaustive search, 0 states"
    )
    assert _result(head, "proved", "x", 0, basis="trace").basis_text == ""
    kept = _result(head, "unknown", "x", None, basis_text="mine")
    assert kept.basis_text == "mine"
    fields = _result(
        Head("p", "never", "cite", "violate"),
        "violated",
        "bmc",
        3,
        certificate="cert",
        detail="why",
        basis="trace",
        states=7,
        basis_text="words",
        loop=2,
    )
    assert fields == CheckResult(
        "p", "never", "cite", "violate", verdict="violated", method="bmc", bound=3, seconds=0.0,
        certificate="cert", trace=None, detail="why", basis="trace", states=7,
        basis_text="words", loop=2,
    )  # fmt: skip


# ---------------------------------------------------------------- a real variable: z3 proves


def real_lamp(rows: Sequence[Row] = ROWS, **changes: Any) -> Spec:
    """The lamp with a real variable no row touches: the explorer only samples it, so z3
    is the prover (basis `certificate`) and BMC finds the counterexamples."""
    spec = lamp(rows, **changes)
    return replace(spec, vars=(*spec.vars, Var("w", Real(samples=(0.5,)), 0.0)))


def fields(result: CheckResult) -> tuple[object, ...]:
    trace = None if result.trace is None else [s.row for s in result.trace.steps]
    return (result.verdict, result.method, result.bound, result.basis, result.states, trace)


PUSHES = ["push_on", "push_off", "push_on", "push_off"]


@pytest.mark.parametrize("method", ["spacer", "k-induction"])
def test_on_a_real_variable_each_property_rests_on_z3(method: Method) -> None:
    off_at_zero = and_(eq(var("n"), 0), eq(var("mode"), ON))
    props = [
        always("n-bounded", le(var("n"), 2), cite="toy: bounded"),
        sometimes("gets-done", IS_DONE, cite="toy: done"),
        never("done", IS_DONE, cite="t"),
        sometimes("on-at-zero", off_at_zero, cite="t"),
    ]
    checker = make(real_lamp(properties=props), method)
    assert checker.sampled and checker.states == 6 and checker.depth == 7
    results = {r.id: r for r in checker.run()}
    bounded = results["n-bounded"]
    assert (bounded.kind, bounded.cite, bounded.expected) == ("always", "toy: bounded", "hold")
    proof_bound = None if method == "spacer" else 0
    assert fields(bounded) == ("proved", method, proof_bound, "certificate", None, None)
    assert bounded.basis_text == "z3 certificate" and bounded.certificate
    assert bounded.detail == ""
    done = results["gets-done"]
    assert (done.kind, done.cite) == ("sometimes", "toy: done")
    assert fields(done) == ("witnessed", "bfs", 5, "trace", None, [*PUSHES, "tick_done"])
    assert done.detail == "trace of 5 steps, each confirmed by z3"
    assert done.basis_text == "trace of 5 steps"
    never_done = results["done"]
    assert fields(never_done) == ("violated", "bfs", 5, "trace", None, [*PUSHES, "tick_done"])
    assert (never_done.kind, never_done.detail) == ("never", "")
    unreachable = results["on-at-zero"]
    bound = None if method == "spacer" else 1
    assert fields(unreachable) == ("violated", method, bound, "certificate", None, None)
    assert unreachable.detail == "never reachable: the certificate excludes it"
    assert unreachable.certificate
    for check in ("determinism", "totality", "no-deadlock", "terminal-absorbing"):
        assert fields(results[check])[:5] == ("proved", "k-induction", 0, "certificate", None)
        assert results[check].basis_text == "z3 certificate"
    assert results["determinism"].certificate == (
        "9 of 9 cases hold in every state (k=0), 0 on every reachable state"
    )
    assert results["no-deadlock"].certificate == (
        "1 of 1 case holds in every state (k=0), 0 on every reachable state"
    )
    rows = results["rows-fire"]
    assert fields(rows) == ("witnessed", "bfs", 6, "trace", None, None)
    assert rows.basis_text == "a shortest trace through each of 7 rows"
    vacuity = results["vacuity"]
    assert fields(vacuity) == ("proved", "bfs", 5, "trace", None, None)
    assert vacuity.basis_text == "a reachable state or step for each of 0 antecedents"


@pytest.mark.parametrize("method", ["spacer", "k-induction"])
def test_on_a_real_variable_each_structural_check_fails_with_z3s_trace(method: Method) -> None:
    def check(spec: Spec, name: str) -> CheckResult:
        (result,) = make(spec, method).run(name)
        assert (result.kind, result.cite, result.expected) == ("structural", CITES[name], "hold")
        return result

    found = "bmc" if method == "spacer" else "k-induction"
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    proved = check(real_lamp((*ROWS, odd)), "determinism")
    assert fields(proved) == ("proved", method, None, "certificate", None, None)
    assert proved.certificate == (
        "12 of 13 cases hold in every state (k=0), 1 on every reachable state"
    )
    again = row("push_again", "push", OFF, ON, guard=eq(var("n"), 1), cite="toy")
    both = check(real_lamp((*ROWS[:2], again, *ROWS[2:])), "determinism")
    assert fields(both) == ("violated", found, 2, "trace", None, PUSHES[:2])
    assert both.detail == "rows 'push_on' and 'push_again' are both enabled"
    assert both.basis_text == "trace of 2 steps"
    narrow = ignore("tick_wait", "tick", OFF, guard=lt(var("n"), 1), cite="toy")
    total = check(real_lamp([narrow if r is TICK_WAIT else r for r in ROWS]), "totality")
    assert fields(total) == ("violated", found, 2, "trace", None, PUSHES[:2])
    assert total.detail == "no row or ignore of 'tick' is enabled"
    stuck = check(real_lamp(terminal=None), "no-deadlock")
    assert fields(stuck) == ("violated", found, 5, "trace", None, [*PUSHES, "tick_done"])
    assert stuck.detail == "a reachable non-terminal state enables only ignore rows"
    moved = check(real_lamp(terminal=eq(var("n"), 2)), "terminal-absorbing")
    assert fields(moved) == ("violated", found, 4, "trace", None, PUSHES)
    assert (moved.detail, moved.basis_text) == ("", "trace of 4 steps")
    ghost = ignore("push_ghost", "push", ON, guard=eq(var("n"), 0), cite="toy")
    dead = check(real_lamp((PUSH_FULL, PUSH_ON, ghost, *ROWS[2:])), "rows-fire")
    assert fields(dead) == ("violated", "bfs", 6, "sampled", 6, None)
    assert dead.basis_text == "the explorer's search, 6 states on the real samples"
    props = [always("x", implies(and_(eq(var("mode"), ON), eq(var("n"), 0)), TRUE_N), cite="t")]
    vacuous = check(real_lamp(properties=props), "vacuity")
    assert fields(vacuous) == ("violated", "bfs", None, "sampled", 6, None)
    assert vacuous.detail == "x: the premise mode = ON ∧ n = 0 is never reachable"


# ---------------------------------------------------------------- z3 giving up


@pytest.mark.parametrize("sampled", [False, True], ids=["whole", "sampled"])
def test_a_set_check_with_its_budget_spent_stands_on_the_search(
    sampled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sampled:
        monkeypatch.setattr(checks_module, "FULL_SET_CHECK_UP_TO", 2)
    checker = make(lamp())
    checker.budget = Budget(0.0)  # spent before z3's first query: the same on any machine
    result = checker.check_reachable_set()
    assert fields(result) == ("proved", "bfs", 5, "exhaustive", 6, None)
    assert (result.kind, result.cite) == ("structural", CITES["reachable-set"])
    assert result.detail == (
        "z3 did not finish its side within budget (the check's budget of 0s is spent)"
    )
    assert result.basis_text == "exhaustive search, 6 states, not cross-checked by z3"
    # With a real variable the explorer's set is a sample: z3's limit is the verdict.
    checker = make(real_lamp())
    checker.budget = Budget(0.0)
    with pytest.raises(SolverLimit, match="budget of 0s is spent"):
        checker.check_reachable_set()


def test_a_certificate_z3_gives_up_on_shrinks_the_next_ones_budget_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    props = [
        always("n-bounded", le(var("n"), 2), cite="t"),
        never("n-big", lt(var("n"), 0), cite="t"),
    ]
    checker = Checker(lamp(properties=props), timeout=600, certificates=1.0)
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "no invariant"))
    assert not checker.shrunk
    first, second = checker.run("n-bounded"), checker.run("n-big")
    assert next(first).detail == "no certificate within budget (spacer: no invariant)"
    assert checker.shrunk and checker.certificate_budget.seconds == pytest.approx(0.2)
    assert next(second).verdict == "proved"
    assert checker.shrunk and checker.certificate_budget.seconds == pytest.approx(0.2)


def test_a_z3_answer_that_is_no_verdict_is_an_unknown_naming_its_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = always("n-bounded", le(var("n"), 2), cite="toy: bounded")
    checker = make(real_lamp(properties=[prop]))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "out of ideas"))
    (result,) = checker.run("n-bounded")
    assert fields(result) == ("unknown", "spacer", None, "certificate", None, None)
    assert (result.kind, result.cite) == ("always", "toy: bounded")
    assert result.detail == "spacer gave up on n-bounded: out of ideas"
    assert result.basis_text == "none: no engine decided it"
    odd = Checker._unknown(Head("p", "always", "t"), Proved("spacer", 0, "c"))
    assert (odd.verdict, odd.method, odd.detail) == (
        "unknown",
        "spacer",
        "spacer gave up on p: no verdict",
    )


def test_on_a_real_variable_z3_and_the_explorer_must_still_agree() -> None:
    # As in test_checks_teeth's finite case: a graph that is not the spec's must turn z3's
    # verdict into `unknown`, saying what each engine found.
    moving = row("tick_idle", "tick", (ON, DONE), OFF, cite="toy")  # DONE moves
    checker = make(real_lamp())
    checker.graph = explore(real_lamp([moving if r is TICK_IDLE else r for r in ROWS]))
    proved = checker.check_terminal()
    assert (proved.verdict, proved.method, proved.trace is not None) == (
        "unknown",
        "k-induction",
        True,
    )
    assert proved.detail == (
        "z3 and the explorer disagree: z3 found nothing, the explorer a trace of 6 steps"
        " (a kernel bug, or a real sample that misses a guard's boundary)"
    )
    checker = make(real_lamp([moving if r is TICK_IDLE else r for r in ROWS]))
    checker.graph = explore(real_lamp())
    moved = checker.check_terminal()
    assert (moved.verdict, moved.method, moved.bound) == ("unknown", "bmc", 6)
    assert moved.detail.startswith(
        "z3 and the explorer disagree: z3 found a trace of 6 steps, the explorer nothing"
    )
    assert moved.trace is not None and moved.trace.steps[-1].row == "tick_idle"
    prop = never("done", IS_DONE, cite="t")
    never_done = [r for r in ROWS if r not in (TICK_DONE, TICK_WAIT)]
    checker = make(real_lamp(properties=[prop]))
    checker.graph = explore(real_lamp([*never_done, ignore("tick_wait", "tick", OFF, cite="t")]))
    missed = checker.check_property(prop)
    assert (missed.verdict, missed.bound) == ("unknown", 5)
    assert missed.detail.startswith(
        "z3 and the explorer disagree: z3 found a trace of 5 steps, the explorer nothing"
    )


# ---------------------------------------------------------------- the prover's fallbacks


def _spacer_gives_up(checker: Checker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker.z3, "spacer", lambda *a, **k: Unknown("spacer", "timeout"))


def test_when_spacer_gives_up_k_induction_proves_or_both_are_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = always("n-bounded", le(var("n"), 2), cite="t")
    checker = make(real_lamp(properties=[prop]))
    _spacer_gives_up(checker, monkeypatch)
    fallback = checker.check_property(prop)
    assert fields(fallback) == ("proved", "k-induction", 0, "certificate", None, None)
    assert fallback.certificate == "0-inductive over simple paths"
    monkeypatch.setattr(checker.z3, "k_induction", lambda *a, **k: Unknown("k-induction", "k=12"))
    neither = checker.check_property(prop)
    assert fields(neither) == ("unknown", "spacer, k-induction", None, "certificate", None, None)
    assert (
        neither.detail
        == "spacer, k-induction gave up on n-bounded: spacer: timeout; k-induction: k=12"
    )
    checker.z3.budget = Budget(0.0)  # spent: k-induction is not even started
    # The clock stands at the deadline itself: a budget is spent at its deadline.
    deadline = checker.z3.budget.deadline
    clock = types.SimpleNamespace(monotonic=lambda: deadline, perf_counter=time.perf_counter)
    monkeypatch.setattr(checks_module, "time", clock)
    monkeypatch.setattr(checker.z3, "k_induction", lambda *a, **k: pytest.fail("started"))
    spent = checker.check_property(prop)
    assert spent.detail == (
        "spacer, k-induction gave up on n-bounded: spacer: timeout; "
        "k-induction: the check's budget of 0s is spent"
    )


def test_the_k_induction_fallback_proves_a_step_property_over_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = always("n-steps-by-at-most-one", le(nxt("n"), add(var("n"), 1)), cite="t")
    checker = make(real_lamp(properties=[prop]))
    _spacer_gives_up(checker, monkeypatch)
    asked: list[object] = []
    prove = checker.z3.k_induction

    def k_induction(*args: Any, **kwargs: Any) -> Verdict:
        asked.append(kwargs["step"])
        return prove(*args, **kwargs)

    monkeypatch.setattr(checker.z3, "no_bad_step", lambda *a, **k: False)
    monkeypatch.setattr(checker.z3, "k_induction", k_induction)
    result = checker.check_property(prop)
    assert asked == [True]
    assert (result.verdict, result.method) == ("proved", "k-induction")


def test_a_finite_models_certificate_names_both_engines_that_gave_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = always("n-bounded", le(var("n"), 2), cite="t")
    checker = make(lamp(properties=[prop]))
    _spacer_gives_up(checker, monkeypatch)
    monkeypatch.setattr(checker.z3, "k_induction", lambda *a, **k: Unknown("k-induction", "k=12"))
    result = checker.check_property(prop)
    assert fields(result) == ("proved", "bfs", None, "exhaustive", 6, None)
    assert result.detail == (
        "no certificate within budget (spacer, k-induction: spacer: timeout; k-induction: k=12)"
    )
    assert checker.shrunk


def test_when_spacer_reaches_the_bad_state_bmc_gives_the_trace_or_says_it_found_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reached = never("done", IS_DONE, cite="t")
    unreachable = always("n-bounded", le(var("n"), 2), cite="t")
    checker = make(real_lamp(properties=[reached, unreachable]))
    monkeypatch.setattr(checker.z3, "spacer", lambda *a, **k: None)
    assert checker._prove(IS_DONE, False) == checker.z3.bmc(IS_DONE, step=False, max_depth=7)
    found = checker._prove(IS_DONE, False)
    assert isinstance(found, Found) and len(found.trace) == 5
    lost = checker.check_property(unreachable)
    assert fields(lost) == ("unknown", "spacer", None, "certificate", None, None)
    assert lost.detail == (
        "spacer gave up on n-bounded: Spacer reaches it but BMC finds no trace within the diameter"
    )


# ---------------------------------------------------------------- well-defined


def test_an_undefined_step_names_every_partial_operation_of_its_row() -> None:
    q = var("q")
    spec = Spec(
        name="ring",
        source="tests/test_checks.py",
        vars=(Var("q", Seq(IntRange(0, 1), 1), ()),),
        triggers=(Trigger("rotate"), Trigger("put"), Trigger("keep")),
        rows=(
            # Len is never undefined: it is not named; Head and Tail of the empty q are.
            row(
                "rotate",
                "rotate",
                None,
                guard=le(length(q), 1),
                sets={"q": append(tail(q), head(q))},
                cite="t",
            ),
            row("put", "put", None, guard=le(length(q), 0), sets={"q": append(q, 1)}, cite="t"),
            row("keep", "keep", None, cite="t"),  # defined everywhere
        ),
        totality="enabled-only",
    )
    assert "well-defined" in make(spec).check_ids()
    (result,) = make(spec).run("well-defined")
    assert (result.kind, result.cite) == (
        "structural",
        "kernel: no step appends to a full sequence or reads past either end",
    )
    assert fields(result) == ("violated", "bfs", 0, "trace", None, [])
    assert result.detail == (
        "row 'rotate' takes Append(Tail(q), Head(q)) or Head(q) or Tail(q) where it is undefined"
    )


def test_an_undefined_step_names_its_operations_by_the_spec_s_labels() -> None:
    """The operations are printed with the spec: a level compared inside one is named as its
    domain names it (MID), not by its raw value (2)."""
    level = Finite("Level", (1, 2, 3), namer=lambda v: ("LOW", "MID", "HIGH")[v - 1])
    q = var("q")
    spec = Spec(
        name="levels",
        source="tests/test_checks.py",
        vars=(Var("q", Seq(IntRange(0, 1), 1), ()), Var("lvl", level, 2)),
        triggers=(Trigger("put"),),
        rows=(
            row("put", "put", None, sets={"q": append(q, ite(eq(var("lvl"), 2), 1, 0))}, cite="t"),
        ),
        totality="enabled-only",
    )
    (result,) = make(spec).run("well-defined")
    assert result.detail == (
        "row 'put' takes Append(q, (if lvl = MID then 1 else 0)) where it is undefined"
    )


# ---------------------------------------------------------------- a finite model's z3 side


def _again() -> Row:
    # Overlaps push_on in (OFF,1), two steps in.
    return row("push_again", "push", OFF, ON, guard=eq(var("n"), 1), cite="toy")


def test_a_trace_z3_cannot_confirm_in_time_stands_on_the_complete_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    props = [never("done", IS_DONE, cite="t"), sometimes("gets-done", IS_DONE, cite="t")]
    checker = make(lamp(properties=props))

    def slow(*args: object, **kwargs: object) -> None:
        raise SolverLimit("z3-confirm", "timeout")

    monkeypatch.setattr(checker.z3, "confirm", slow)
    results = {r.id: r for r in checker.run()}
    done = [*PUSHES, "tick_done"]
    for name, verdict in (("done", "violated"), ("gets-done", "witnessed")):
        assert fields(results[name]) == (verdict, "bfs", 5, "trace", None, done)
        assert results[name].detail == (
            "trace of 5 steps; z3 did not confirm it within budget (timeout)"
        )
        assert results[name].basis_text == (
            "trace of 5 steps on the complete search, not confirmed by z3"
        )


def test_on_a_real_variable_a_witness_z3_refuses_is_unknown_naming_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checker = make(real_lamp(properties=[sometimes("gets-done", IS_DONE, cite="toy: done")]))
    monkeypatch.setattr(checker.z3, "confirm", lambda *a, **k: Unknown("bmc", "step 3 refused"))
    (result,) = checker.run("gets-done")
    assert (result.id, result.kind, result.cite, result.expected) == (
        "gets-done",
        "sometimes",
        "toy: done",
        "hold",
    )
    assert fields(result) == ("unknown", "bmc", None, "certificate", None, None)
    assert result.detail == "bmc gave up on gets-done: step 3 refused"


def test_on_a_real_variable_a_witness_the_samples_miss_is_bmcs_trace() -> None:
    spec = Spec(
        name="scale",
        source="tests/test_checks.py",
        vars=(Var("w", Real(samples=(0.5, 1.5)), 0.0),),
        triggers=(Trigger("weigh", (Param("kg", Real(samples=(0.5, 1.5))),)),),
        rows=(row("weigh", "weigh", None, sets={"w": param("kg")}, cite="t"),),
        properties=(sometimes("one-kilo", eq(var("w"), 1.0), cite="t"),),
    )
    (result,) = make(spec).run("one-kilo")
    assert fields(result) == ("witnessed", "bmc", 1, "trace", None, ["weigh"])
    assert result.trace is not None and result.trace.states()[-1]["w"] == 1.0
    assert result.detail == "trace of 1 steps (the explorer's real samples miss it)"


def test_on_a_real_variable_a_witness_z3_can_neither_find_nor_exclude_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unreachable = and_(eq(var("n"), 0), eq(var("mode"), ON))
    checker = make(real_lamp(properties=[sometimes("on-at-zero", unreachable, cite="t")]))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "too hard"))
    (result,) = checker.run("on-at-zero")
    assert (result.id, result.kind, result.cite) == ("on-at-zero", "sometimes", "t")
    assert fields(result) == ("unknown", "spacer", None, "certificate", None, None)
    assert result.detail == "spacer gave up on on-at-zero: too hard"


def test_a_structural_case_z3_reaches_and_the_explorer_misses_is_a_disagreement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checker = make(lamp((*ROWS[:2], _again(), *ROWS[2:])))
    monkeypatch.setattr(checker.graph, "first_states_with", lambda cases: [None] * len(cases))
    (result,) = checker.run("determinism")
    assert fields(result) == ("unknown", "bfs", None, "exhaustive", None, PUSHES[:2])
    assert result.detail == (
        "rows 'push_on' and 'push_again' are both enabled: z3 and the explorer disagree: "
        "z3 found a trace of 2 steps, the explorer nothing "
        "(a kernel bug, or a real sample that misses a guard's boundary)"
    )


def test_a_structural_certificate_z3_cannot_give_leaves_the_search_standing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    checker = make(lamp((*ROWS, odd)))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "no invariant"))
    (result,) = checker.run("determinism")
    assert fields(result) == ("proved", "bfs", None, "exhaustive", 6, None)
    assert result.detail == "no certificate within budget (spacer: no invariant)"
    assert checker.shrunk
    # z3 gives up on the cheap cases: the explorer still decides every case on its own.
    checker = make(lamp((*ROWS, odd)))

    def stop(*args: object, **kwargs: object) -> bool:
        raise SolverLimit("z3", "out of memory")

    monkeypatch.setattr(checker.z3, "impossible", stop)
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: pytest.fail("no certificate to ask"))
    (result,) = checker.run("determinism")
    assert fields(result) == ("proved", "bfs", None, "exhaustive", 6, None)
    assert result.detail == "no certificate within budget (z3: out of memory)"
    checker = make(lamp((*ROWS[:2], _again(), *ROWS[2:])))
    monkeypatch.setattr(checker.z3, "impossible", stop)
    (found,) = checker.run("determinism")
    assert fields(found) == ("violated", "bfs", 2, "trace", None, PUSHES[:2])
    # A case z3 gives up on midway: the certificate is missing, the search stands.
    checker = make(lamp((*ROWS, odd)))
    monkeypatch.setattr(checker, "_prove", stop)
    (result,) = checker.run("determinism")
    assert result.detail == "no certificate within budget (z3: out of memory)"


def test_on_a_real_variable_a_case_or_terminal_z3_cannot_decide_is_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    checker = make(real_lamp((*ROWS, odd)))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "no invariant"))
    for name in ("determinism", "terminal-absorbing"):
        (result,) = checker.run(name)
        assert fields(result) == ("unknown", "spacer", None, "certificate", None, None)
        assert (result.kind, result.cite) == ("structural", CITES[name])
        assert result.detail == f"spacer gave up on {name}: no invariant"


def test_a_set_z3_reads_otherwise_is_an_unknown_naming_where(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checker = make(lamp())
    monkeypatch.setattr(checker, "_z3_set", lambda: SetCheck(False, "(ON,0) is missing"))
    (result,) = checker.run("reachable-set")
    assert fields(result) == ("unknown", "bfs", 5, "cross-check", None, None)
    assert result.detail == "z3 and the explorer disagree: (ON,0) is missing"
    assert (result.kind, result.cite) == ("structural", CITES["reachable-set"])


# ---------------------------------------------------------------- liveness


def _live_spec(rows: Sequence[Row], live: Any, *, real: bool = False, **more: Any) -> Spec:
    vars_ = [Var("x", IntRange(0, 2), 0), Var("r", Bool(), False)]
    if real:
        vars_.append(Var("w", Real(samples=(0.5,)), 0.0))
    return Spec(
        name="tiny",
        source="tests/test_checks.py",
        vars=tuple(vars_),
        triggers=tuple(Trigger(r.trigger) for r in rows),
        rows=tuple(rows),
        liveness=(live,),
        totality="enabled-only",
        check_deadlock=False,
        **more,
    )


@pytest.mark.parametrize("real", [False, True], ids=["finite", "real"])
def test_a_liveness_result_gives_its_lasso_its_fairness_and_what_was_searched(
    real: bool,
) -> None:
    searched = (
        "the explorer's search on the real variables' samples, 3 states"
        if real
        else "exhaustive search, 3 states"
    )
    on = searched if real else f"the {searched}"
    go = row("go", "go", None, guard=lt(var("x"), 2), sets={"x": add(var("x"), 1)}, cite="t")
    finished = eventually("finished", eq(var("x"), 2), cite="t: the run finishes")
    fair = next(make(_live_spec([go], finished, real=real, fairness=weak("go"))).run())
    assert (fair.id, fair.kind, fair.cite, fair.expected) == (
        "finished",
        "eventually",
        "t: the run finishes",
        "hold",
    )
    basis = "sampled" if real else "exhaustive"
    assert fields(fair) == ("proved", "scc", None, basis, 3, None)
    assert fair.loop is None and fair.certificate is None
    assert fair.detail == ("on the real variables' samples: " if real else "") + (
        "no fair cycle avoids it (fairness: weak(go))"
    )
    assert fair.basis_text == f"{searched}, no fair cycle avoids it"
    # No fairness and a promise not made: the lasso that stops at once is its witness.
    unpromised = eventually("np", eq(var("x"), 2), cite="t", promised=False)
    stop = next(make(_live_spec([go], unpromised, real=real)).run())
    assert (stop.expected, stop.ok) == ("violate", True)
    assert fields(stop) == ("violated", "scc", 0, "trace", None, [])
    assert stop.loop == 0
    assert stop.detail == (
        "lasso: 0 steps of stem, then stutters forever at step 0 "
        "(no fairness: a run may stop anywhere; no constraint)"
    )
    assert stop.basis_text == f"lasso of 0 steps, stutters forever at step 0, on {on}"
    # A stem of one step, then a loop of two; one constraint is never enabled on it.
    first = row("go", "go", None, guard=eq(var("x"), 0), sets={"x": 1}, cite="t")
    tick = row("tick", "tick", None, guard=ge(var("x"), 1), sets={"x": sub(3, var("x"))}, cite="t")
    never_r = eventually("r-set", var("r"), cite="t")
    spec = _live_spec([first, tick], never_r, real=real, fairness=weak("go", "tick"))
    loop = next(make(spec).run())
    assert fields(loop) == ("violated", "scc", 3, "trace", None, ["go", "tick", "tick"])
    assert loop.loop == 1
    assert loop.detail == (
        "lasso: 1 step of stem, then loop back to step 1 (fairness: weak(go), weak(tick); "
        "weak(go): never enabled on the loop; weak(tick): taken on the loop)"
    )
    assert loop.basis_text == f"lasso of 3 steps, loop back to step 1, on {on}"
    stuck = next(make(replace(spec, expect_violated=("r-set",))).run())
    assert (stuck.expected, stuck.ok) == ("violate", True)


def test_a_lasso_that_stops_after_its_stem_stutters_there() -> None:
    ask = row("ask", "ask", None, guard=eq(var("r"), False), sets={"r": True}, cite="t")
    serve = row("serve", "serve", None, guard=var("r"), sets={"r": False}, cite="t")
    answered = leads_to("answered", var("r"), eq(var("r"), False), cite="t")
    (result,) = make(_live_spec([ask, serve], answered)).run("answered")
    assert fields(result) == ("violated", "scc", 1, "trace", None, ["ask"])
    assert result.loop == 1
    assert result.detail == (
        "lasso: 1 step of stem, then stutters forever at step 1 "
        "(no fairness: a run may stop anywhere; no constraint)"
    )
    assert result.basis_text == (
        "lasso of 1 step, stutters forever at step 1, on the exhaustive search, 2 states"
    )


def test_z3_and_the_explorer_must_agree_on_the_length_of_the_trace() -> None:
    # From n = 1 the explorer sees (ON,2) move after 2 steps; z3, from n = 0, after 4.
    checker = make(real_lamp(terminal=eq(var("n"), 2)))
    checker.graph = explore(real_lamp(terminal=eq(var("n"), 2), n_init=1))
    result = checker.check_terminal()
    assert (result.verdict, result.bound) == ("unknown", 4)
    assert result.detail == (
        "z3 and the explorer disagree: z3 found a trace of 4 steps, the explorer a trace of "
        "2 steps (a kernel bug, or a real sample that misses a guard's boundary)"
    )
    assert result.trace is not None and len(result.trace) == 4


def test_a_checker_keeps_its_settings_and_the_searchs_figures() -> None:
    checker = Checker(lamp(), method="k-induction", max_k=3, timeout=2.0, certificates=5.0)
    assert (checker.method, checker.max_k) == ("k-induction", 3)
    assert checker.budget.seconds == 2.0 and checker.z3.budget is checker.budget
    assert checker.certificate_budget.seconds == 2.0  # never more than the check's own
    assert Checker(lamp(), timeout=2.0, certificates=0.5).certificate_budget.seconds == 0.5
    assert (checker.sampled, checker.states, checker.depth, checker.shrunk) == (
        False,
        6,
        7,
        False,
    )
    defaults = Checker(lamp())
    assert (defaults.method, defaults.max_k) == ("spacer", 12)
    assert defaults.budget.seconds == checks_module.DEFAULT_TIMEOUT
    assert defaults.certificate_budget.seconds == checks_module.DEFAULT_CERTIFICATE_BUDGET
    # The search keeps its edges for the liveness checks only (a cost the others skip).
    assert defaults.graph._moves is None
    go = row("go", "go", None, guard=lt(var("x"), 2), sets={"x": add(var("x"), 1)}, cite="t")
    live = make(_live_spec([go], eventually("finished", eq(var("x"), 2), cite="t")))
    assert live.graph._moves is not None


def test_a_spec_whose_rows_never_fire_names_each_and_searched_no_step() -> None:
    at_one = eq(var("n"), 1)  # never: n starts at 0 and only these rows could change it
    spec = Spec(
        name="stuck",
        source="tests/test_checks.py",
        vars=(Var("n", IntRange(0, 1), 0),),
        triggers=(Trigger("go"), Trigger("stay")),
        rows=(
            row("go", "go", None, guard=at_one, sets={"n": 0}, cite="t"),
            row("stay", "stay", None, guard=at_one, cite="t"),
        ),
        totality="enabled-only",
        check_deadlock=False,
    )
    results = {r.id: r for r in make(spec).run()}
    assert list(results) == ["determinism", "rows-fire", "vacuity", "reachable-set"]
    dead = results["rows-fire"]
    assert fields(dead) == ("violated", "bfs", 0, "exhaustive", 1, None)
    assert dead.detail == "rows that never fire: go, stay"
    assert dead.basis_text == "exhaustive search, 1 states"
    assert results["determinism"].certificate == (
        "0 of 0 cases hold in every state (k=0), 0 on every reachable state"
    )
    assert results["vacuity"].certificate == (
        "all 0 antecedents hold on some reachable state or step"
    )
    assert results["vacuity"].bound == results["reachable-set"].bound == 0


def test_a_structural_trace_z3_cannot_confirm_in_time_says_the_case_and_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checker = make(lamp((*ROWS[:2], _again(), *ROWS[2:])))

    def slow(*args: object, **kwargs: object) -> None:
        raise SolverLimit("z3-confirm", "timeout")

    monkeypatch.setattr(checker.z3, "confirm", slow)
    (result,) = checker.run("determinism")
    assert fields(result) == ("violated", "bfs", 2, "trace", None, PUSHES[:2])
    assert result.detail == (
        "rows 'push_on' and 'push_again' are both enabled; "
        "trace of 2 steps; z3 did not confirm it within budget (timeout)"
    )


@pytest.mark.parametrize("method", ["spacer", "k-induction"])
def test_a_case_that_needs_reachability_reads_its_triggers_arguments(method: Method) -> None:
    # ring_loud and ring_quiet overlap only at n = 2, loud: type-correct, never reached.
    spec = Spec(
        name="bell",
        source="tests/test_checks.py",
        vars=(Var("n", IntRange(0, 2), 0),),
        triggers=(Trigger("ring", (Param("loud", Bool()),)),),
        rows=(
            row("ring_loud", "ring", None, guard=and_(param("loud"), eq(var("n"), 2)), cite="t"),
            row("ring_quiet", "ring", None, guard=eq(var("n"), 2), sets={"n": 0}, cite="t"),
            row("ring_idle", "ring", None, guard=eq(var("n"), 0), cite="t"),
        ),
        totality="enabled-only",
    )
    for sampled in (False, True):
        if sampled:
            spec = replace(spec, vars=(*spec.vars, Var("w", Real(samples=(0.5,)), 0.0)))
        (result,) = make(spec, method).run("determinism")
        basis = "certificate" if sampled else "exhaustive"
        assert fields(result) == ("proved", method, None, basis, None if sampled else 1, None)
        assert result.certificate == (
            "2 of 3 cases hold in every state (k=0), 1 on every reachable state"
        )


def test_every_check_gives_z3_back_the_checks_own_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    props = [always("n-bounded", le(var("n"), 2), cite="t")]
    checker = make(lamp((*ROWS, odd), properties=props))
    for result in checker.run():
        assert checker.z3.budget is checker.budget, result.id

    # And when z3 gives up midway through a check's certificates.
    def stop(*args: object, **kwargs: object) -> bool:
        raise SolverLimit("z3", "out of memory")

    for name, stopped in (
        ("impossible", ["determinism"]),
        ("spacer", ["n-bounded", "determinism"]),
    ):
        checker = make(lamp((*ROWS, odd), properties=props))
        monkeypatch.setattr(checker.z3, name, stop)
        for result in checker.run():
            assert checker.z3.budget is checker.budget, (name, result.id)
            if result.id in stopped:
                assert result.detail == "no certificate within budget (z3: out of memory)"


def test_a_trigger_with_no_row_at_all_breaks_totality_at_once() -> None:
    spec = Spec(
        name="bare",
        source="tests/test_checks.py",
        vars=(Var("n", IntRange(0, 1), 0),),
        triggers=(Trigger("nothing"), Trigger("go")),
        rows=(row("go", "go", None, guard=eq(var("n"), 0), sets={"n": 1}, cite="t"),),
    )
    (result,) = make(spec).run("totality")
    assert fields(result) == ("violated", "bfs", 0, "trace", None, [])
    assert result.detail == "no row or ignore of 'nothing' is enabled"
    assert result.basis_text == "trace of 0 steps, confirmed by z3"


def test_a_proved_structural_check_says_nothing_more_than_its_certificate() -> None:
    results = {r.id: r for r in make(lamp()).run()}
    for name in ("determinism", "totality", "no-deadlock", "terminal-absorbing"):
        assert results[name].detail == "", name
        assert results[name].basis_text == "exhaustive search, 6 states, and a z3 certificate"


def test_a_witness_never_reachable_without_a_certificate_says_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = sometimes("on-at-zero", and_(eq(var("n"), 0), eq(var("mode"), ON)), cite="t")
    checker = make(lamp(properties=[prop]))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "no invariant"))
    (result,) = checker.run("on-at-zero")
    assert fields(result) == ("violated", "bfs", None, "exhaustive", 6, None)
    assert result.detail == (
        "never reachable: no reachable state or step is it; "
        "no certificate within budget (spacer: no invariant)"
    )
    assert result.basis_text == "exhaustive search, 6 states, no certificate within budget"


def test_verify_hands_its_settings_to_the_checker() -> None:
    prop = always("n-bounded", le(var("n"), 2), cite="t")
    (induction,) = verify(
        lamp(properties=[prop]),
        method="k-induction",
        only="n-bounded",
        timeout=600,
        certificates=600,
    ).checks
    assert (induction.method, induction.bound) == ("k-induction", 0)
    # Budgets of no time at all are spent before z3's first query, on any machine.
    spent = {r.id: r for r in verify(lamp(properties=[prop]), timeout=0.0).checks}
    assert spent["reachable-set"].detail.startswith("z3 did not finish its side within budget")
    assert spent["n-bounded"].detail.startswith("no certificate within budget")
    uncertified = {
        r.id: r for r in verify(lamp(properties=[prop]), timeout=600, certificates=0.0).checks
    }
    assert uncertified["n-bounded"].detail.startswith("no certificate within budget")
    assert uncertified["reachable-set"].verdict == "proved"
    assert uncertified["reachable-set"].basis == "cross-check"


def test_a_property_z3_breaks_and_the_complete_search_does_not_keeps_the_search_basis() -> None:
    prop = never("done", IS_DONE, cite="t")
    never_done = [r for r in ROWS if r not in (TICK_DONE, TICK_WAIT)]
    checker = make(lamp(properties=[prop]))
    checker.graph = explore(lamp([*never_done, ignore("tick_wait", "tick", OFF, cite="t")]))
    result = checker.check_property(prop)
    assert fields(result) == ("unknown", "bfs", None, "exhaustive", 6, [*PUSHES, "tick_done"])
    assert result.basis_text == "exhaustive search, 6 states"


def test_a_vacuous_premise_on_a_finite_model_rests_on_the_complete_search() -> None:
    props = [always("x", implies(and_(eq(var("mode"), ON), eq(var("n"), 0)), TRUE_N), cite="t")]
    (vacuous,) = make(lamp(properties=props)).run("vacuity")
    assert fields(vacuous) == ("violated", "bfs", None, "exhaustive", 6, None)
    assert vacuous.detail == "x: the premise mode = ON ∧ n = 0 is never reachable"
    assert vacuous.basis_text == "exhaustive search, 6 states"
    assert (vacuous.kind, vacuous.cite) == ("structural", CITES["vacuity"])


@pytest.mark.parametrize("up_to", [2, 1])
def test_a_real_variables_samples_count_once_toward_the_whole_set_check(
    up_to: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Six states, two apart from w's samples: the whole set is checked up to two.
    monkeypatch.setattr(checks_module, "FULL_SET_CHECK_UP_TO", up_to)
    spec = Spec(
        name="scale",
        source="tests/test_checks.py",
        vars=(Var("n", IntRange(0, 1), 0), Var("w", Real(samples=(0.5, 1.5)), 0.0)),
        triggers=(Trigger("weigh", (Param("kg", Real(samples=(0.5, 1.5))),)), Trigger("flip")),
        rows=(
            row("weigh", "weigh", None, sets={"w": param("kg")}, cite="t"),
            row("flip", "flip", None, sets={"n": sub(1, var("n"))}, cite="t"),
        ),
    )
    checker = make(spec)
    (result,) = checker.run("reachable-set")
    assert checker.states == 6
    assert fields(result) == ("proved", "bfs", 2, "cross-check", None, None)
    assert result.certificate == (
        "2 states: init ⊆ R, R closed under T, 5 tree edges are z3 transitions"
        if up_to == 2
        else "sampled 6 of 6 states (seed 0): init = z3's; from each, z3's successors = "
        "the explorer's (18 steps)"
    )


def test_on_a_real_variable_a_case_reading_arguments_is_found_and_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ring_loud and ring_quiet overlap at n = 0 when loud: BMC finds it, at the start.
    def bell(overlap: int) -> Spec:
        return Spec(
            name="bell",
            source="tests/test_checks.py",
            vars=(Var("n", IntRange(0, 2), 0), Var("w", Real(samples=(0.5,)), 0.0)),
            triggers=(Trigger("ring", (Param("loud", Bool()),)), Trigger("tock")),
            rows=(
                row(
                    "ring_loud",
                    "ring",
                    None,
                    guard=and_(param("loud"), eq(var("n"), overlap)),
                    cite="t",
                ),
                row(
                    "ring_quiet", "ring", None, guard=eq(var("n"), overlap), sets={"n": 0}, cite="t"
                ),
                row("tock_a", "tock", None, guard=eq(var("n"), 0), cite="t"),
                row("tock_b", "tock", None, guard=eq(var("n"), 1), cite="t"),
            ),
            totality="enabled-only",
        )

    # Spacer giving up, k-induction is asked about the case with the trigger's arguments.
    fallback = make(bell(2))
    _spacer_gives_up(fallback, monkeypatch)
    (proved,) = fallback.run("determinism")
    assert fields(proved) == ("proved", "k-induction", None, "certificate", None, None)
    (found,) = make(bell(0)).run("determinism")
    assert fields(found) == ("violated", "bmc", 0, "trace", None, [])
    assert found.detail == "rows 'ring_loud' and 'ring_quiet' are both enabled"
    # At n = 2, never reached: one case of two needs reachability.
    (proved,) = make(bell(2)).run("determinism")
    assert proved.method == "spacer"
    assert proved.certificate == (
        "1 of 2 cases holds in every state (k=0), 1 on every reachable state"
    )


def test_a_structural_proof_names_every_engine_that_proved_one_of_its_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two cases need reachability (n never reaches 2); Spacer gives up on the first only,
    # so k-induction proves that one and Spacer the other: the method names both.
    at_two = eq(var("n"), 2)
    spec = Spec(
        name="chime",
        source="tests/test_checks.py",
        vars=(Var("n", IntRange(0, 2), 0), Var("w", Real(samples=(0.5,)), 0.0)),
        triggers=(Trigger("ring"), Trigger("tock")),
        rows=tuple(
            row(f"{t}_{side}", t, None, guard=at_two, cite="t")
            for t in ("ring", "tock")
            for side in "ab"
        ),
        totality="enabled-only",
    )
    checker = make(spec)
    spacer, asked = checker.z3.spacer, list[int]()

    def first_gives_up(*args: Any, **kwargs: Any) -> object:
        asked.append(1)
        return Unknown("spacer", "timeout") if len(asked) == 1 else spacer(*args, **kwargs)

    monkeypatch.setattr(checker.z3, "spacer", first_gives_up)
    (proved,) = checker.run("determinism")
    assert fields(proved) == ("proved", "spacer, k-induction", None, "certificate", None, None)
    assert len(asked) == 2
