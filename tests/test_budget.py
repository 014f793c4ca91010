"""z3 limits are `unknown` verdicts on a spec with a real variable, never exceptions and
never passes; on a finite model the explorer's exhaustive search stands (issue 16 §3).

The hard query is the one that used to crash `verify` with
`Z3Exception: canceled` from Spacer's `fp.query`: reaching the deepest state of
three counters (depth 27) symbolically.
"""

from __future__ import annotations

import itertools
import re
import signal
import threading
from types import SimpleNamespace

import pytest
import z3  # only to interrupt a running query, as a second thread (or a signal) would
from families import counters

from models import duplex
from models.cli.main import main
from models.kernel import TRUE
from models.kernel import and_
from models.kernel import eq
from models.kernel import smt
from models.kernel import var
from models.kernel.checks import verify
from models.kernel.explore import explore
from models.kernel.smt import Budget
from models.kernel.smt import Encoding
from models.kernel.smt import Engines
from models.kernel.smt import SolverLimit
from models.kernel.smt import Unknown
from models.kernel.trace import Trace

TOP = and_(*(eq(var(f"c{i}"), 9) for i in range(3)))


def test_spacer_past_its_budget_is_unknown_not_a_crash() -> None:
    engines = Engines(Encoding(counters(3)), Budget(0.3))
    verdict = engines.spacer(TOP, step=False)
    assert isinstance(verdict, Unknown) and verdict.method == "spacer"
    assert re.search(r"canceled|timeout|budget", verdict.reason), verdict.reason


def test_bmc_past_its_budget_is_unknown() -> None:
    engines = Engines(Encoding(counters(3)), Budget(0.3))
    verdict = engines.bmc(TOP, step=False, max_depth=27)
    assert isinstance(verdict, Unknown) and verdict.method == "bmc"
    assert re.search(r"at depth \d+: .*(canceled|timeout|budget)", verdict.reason), verdict.reason


def _deepest_duplex_trace() -> Trace:
    graph = explore(duplex.SPEC)
    return graph.path_to(max(range(len(graph.states)), key=graph.depth.__getitem__))


def test_the_mutant_gates_z3_queries_do_not_depend_on_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A machine so busy that every clock read is 100 s after the last must not change the
    # gate's verdicts: its queries are bounded by z3's resource count (GATE_RLIMIT), and
    # time only guards against a hang. With a 20 s budget, the replay below gave up.
    trace = _deepest_duplex_trace()
    stalled = itertools.count(0.0, 100.0)
    monkeypatch.setattr(smt, "time", SimpleNamespace(monotonic=lambda: next(stalled)))
    assert smt.replay(duplex.SPEC, trace, TRUE, step=False) is None
    assert smt.valid(duplex.SPEC, TRUE)


def test_a_gate_query_past_its_resource_count_is_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    trace = _deepest_duplex_trace()
    monkeypatch.setattr(smt, "GATE_RLIMIT", 1)
    with pytest.raises(SolverLimit, match="resource limit"):
        smt.replay(duplex.SPEC, trace, TRUE, step=False)


def test_an_interrupted_query_is_unknown() -> None:
    # As in a worker of the process pool, which ignores SIGINT: there an interrupt from
    # outside is a limit (in a process that takes Ctrl-C, it is the user's Ctrl-C).
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    engines = Engines(Encoding(counters(3)), Budget(60))
    # Interrupt again and again until the query returns: one interrupt sent before the query
    # starts (a slow machine) would be lost, and the verdict would hang on the machine's speed.
    returned = threading.Event()

    def interrupt() -> None:
        while not returned.wait(0.05):
            z3.main_ctx().interrupt()

    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    try:
        verdict = engines.spacer(TOP, step=False)
    finally:
        returned.set()
        interrupter.join()
        signal.signal(signal.SIGINT, before)
    assert isinstance(verdict, Unknown) and "canceled" in verdict.reason, verdict
    # The canceled fixedpoint is dropped: the next query works on a fresh one.
    engines.budget = Budget(20)
    assert engines.spacer(eq(var("c0"), 12), step=False) is not None


def test_a_tiny_timeout_makes_every_z3_check_of_a_real_spec_unknown() -> None:
    # duplex has a real variable: the explorer only samples it, so z3 is the prover there.
    report = verify(duplex.SPEC, timeout=0.001)
    assert not report.ok
    explorer_only = ("rows-fire", "vacuity")  # decided on the explorer's graph, no z3 budget
    # leads-to is decided on the explorer's graph too (its fair cycles), no z3 budget.
    by_z3 = [c for c in report.checks if c.id not in explorer_only and c.kind != "leads-to"]
    assert by_z3 and all(c.verdict == "unknown" for c in by_z3), [(c.id, c.verdict) for c in by_z3]
    for c in by_z3:
        assert re.match(rf"[\w ,-]+ gave up on {c.id}: .*budget of 0.001s is spent", c.detail), (
            c.detail
        )
    rows = next(c for c in report.checks if c.id == "rows-fire")
    assert rows.verdict == "witnessed"  # the explorer alone needs no z3 budget
    assert next(c for c in report.checks if c.id == "vacuity").verdict == "proved"


def test_a_tiny_timeout_leaves_a_finite_models_verdicts_on_its_exhaustive_search() -> None:
    report = verify(counters(2), timeout=0.001)
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    safety = next(c for c in report.checks if c.id == "counters-stay-in-range")
    assert (safety.verdict, safety.basis, safety.states) == ("proved", "exhaustive", 100)
    assert safety.certificate is None and "no certificate within budget" in safety.basis_text
    witness = next(c for c in report.checks if c.id == "all-at-top")
    assert witness.verdict == "witnessed" and witness.basis == "trace"
    assert "not confirmed by z3" in witness.basis_text
    reach = next(c for c in report.checks if c.id == "reachable-set")
    assert reach.basis == "exhaustive" and "not cross-checked by z3" in reach.basis_text


def test_verify_timeout_reports_unknown_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "duplex", "--timeout", "0.001", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "unknown" in out and "gave up on" in out and "Traceback" not in out


def test_verify_timeout_on_a_finite_model_still_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "policy", "--timeout", "0.001", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "no certificate within budget" in out and "unknown" not in out


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf"])
def test_verify_refuses_a_timeout_that_is_not_a_positive_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "duplex", "--timeout", value]) == 2
    assert "expected a positive number of seconds" in capsys.readouterr().err
