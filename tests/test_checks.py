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

from dataclasses import replace

import pytest
from test_checks_teeth import IS_DONE, ROWS, lamp, make

from models.kernel import always, le, never, sometimes, var
from models.kernel.checks import CheckResult, Head, _result, verify
from models.kernel.smt import SolverLimit

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


def test_verify_reports_each_result_as_it_comes_and_says_whether_all_passed() -> None:
    seen: list[CheckResult] = []
    report = verify(lamp(properties=_props()), progress=seen.append, timeout=600, certificates=600)
    assert [r.id for r in seen] == ["n-bounded", "gets-done", *STRUCTURAL]
    assert report.checks == seen
    assert report.ok
    assert report.seconds > 0 and all(r.seconds > 0 for r in seen)
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
        "p", "never", "violated", "bmc", 3, 0.0, "cert", "violate", None, "why", "cite", "trace",
        7, "words", 2,
    )  # fmt: skip
