"""Exhaustive search is a proof for a finite model (issue 16 §3).

The explorer visits the complete reachable set of a model whose domains are all
finite, so its verdict holds for every trace length; z3's inductive certificate
is sought within a budget and printed when found, and where both engines answer
they must agree. The regression is two-phase commit with 4 resource managers
(1,568 states), where z3 gave up on TCConsistent and `verify` used to exit 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from families import counters
from families import transaction_commit

from models import duplex
from models.cli.main import main
from models.kernel.checks import verify
from models.kernel.explore import explore
from models.kernel.smt import Engines
from models.kernel.smt import Found

TCOMMIT = """
from families import transaction_commit
SPECS = (transaction_commit(4),)
"""


@pytest.fixture
def tcommit_module(spec_module: Callable[[str, str], str]) -> str:
    """`tcommit4` as a spec module, so the command line verifies it as a user's spec."""
    spec_module("zz_tcommit", TCOMMIT)
    return "tcommit4"


def test_transaction_commit_matches_tlcs_counts() -> None:
    assert [len(explore(transaction_commit(n)).states) for n in (3, 4)] == [288, 1568]


def test_verify_proves_transaction_commit_without_a_certificate(
    tcommit_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    # A tiny certificate budget forces z3 to give up: the verdicts stand on the search.
    argv = ["verify", tcommit_module, "--certificates", "0.001", "--jobs", "1"]
    assert main([*argv, "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "verify: ok" in out
    assert "exhaustive search, 1,568 states, no certificate within budget" in out
    (spec,) = json.loads(report.read_text())["specs"]
    checks = {c["id"]: c for c in spec["checks"]}
    for name in ("consistent", "commit-only-when-all-prepared"):
        check = checks[name]
        assert (check["verdict"], check["basis"], check["states"]) == ("proved", "exhaustive", 1568)
        assert check["certificate"] is None
        assert (
            check["basis_text"] == "exhaustive search, 1,568 states, no certificate within budget"
        )
        assert "no certificate within budget" in check["detail"]
    witness = checks["all-committed"]
    assert (witness["verdict"], witness["basis"]) == ("witnessed", "trace")
    assert len(witness["trace"]) == 14  # the initial state and 13 steps: TLC's depth


def test_a_certificate_found_in_budget_is_printed_beside_the_search() -> None:
    report = verify(counters(2), certificates=60)
    safety = next(c for c in report.checks if c.id == "counters-stay-in-range")
    assert (safety.verdict, safety.basis, safety.states) == ("proved", "exhaustive", 100)
    assert safety.certificate and safety.method in ("spacer", "k-induction")
    assert safety.basis_text == "exhaustive search, 100 states, and a z3 certificate"


def test_a_spec_with_a_real_variable_keeps_z3_as_its_prover() -> None:
    report = verify(duplex.SPEC)
    proof = next(c for c in report.checks if c.id == "text-never-overlap")
    assert (proof.verdict, proof.basis, proof.states) == ("proved", "certificate", None)


def test_the_engines_must_agree_where_both_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # z3 "finds" a counterexample the complete search does not have: a kernel bug, unknown.
    def bogus_spacer(self: Engines, bad: object, **_: object) -> None:
        return None  # reachable, says Spacer; BMC is then asked for the trace

    monkeypatch.setattr(Engines, "spacer", bogus_spacer)
    spec = counters(1)
    trace = explore(spec).path_to(9)
    monkeypatch.setattr(Engines, "bmc", lambda self, *a, **k: Found("bmc", trace))
    report = verify(spec, certificates=60)
    safety = next(c for c in report.checks if c.id == "counters-stay-in-range")
    assert safety.verdict == "unknown" and "disagree" in safety.detail
