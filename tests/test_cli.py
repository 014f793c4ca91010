"""The command line: exit codes, the report's JSON shape, explain's numbered steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.cli.main import main


def test_verify_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert main(["verify", "duplex", "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "verify: ok" in out
    assert "  never      text-never-overlap" in out
    data = json.loads(report.read_text())
    assert data["ok"] is True and isinstance(data["seconds"], float)
    spec, variant = data["specs"]
    assert variant["name"] == "duplex:backchannel-holds-overlap"
    assert spec["name"] == "duplex" and spec["reachable_states"] == 36 and spec["rows"] == 28
    keys = {
        "id",
        "kind",
        "verdict",
        "method",
        "bound",
        "seconds",
        "certificate",
        "basis",
        "states",
        "basis_text",
        "detail",
        "expected",
        "cite",
        "trace",
        "loop",
    }
    for check in spec["checks"]:
        assert set(check) == keys
        if check["id"] == "a-turn-claim-outlives-a-lost-link":  # not promised: its lasso
            assert (check["verdict"], check["expected"], check["loop"]) == (
                "violated",
                "violate",
                5,
            )
            continue
        assert check["verdict"] in ("proved", "witnessed")
        assert check["expected"] == "hold"
    witness = next(c for c in spec["checks"] if c["id"] == "grant-user-in-overlap")
    assert witness["trace"][0]["action"] == "init"
    assert witness["trace"][-1] == {
        "action": "grant_user_takes_floor",
        "args": {},
        "state": {"state": "LISTENING", "payload": "AUDIO", "last_erl": None},
        "outputs": {"impulse": None, "impulse_erl": None, "commands": ["MUTE", "CANCEL"]},
    }
    proof = next(c for c in spec["checks"] if c["id"] == "text-never-overlap")
    assert proof["method"] == "spacer" and proof["certificate"].startswith("inv:")
    # duplex has a real variable the explorer only samples: z3's certificate is the proof.
    assert (proof["basis"], proof["basis_text"]) == ("certificate", "z3 certificate")


def test_an_unknown_spec_is_named_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "duplx"]) == 2
    err = capsys.readouterr().err
    assert "unknown spec 'duplx'" in err and "duplex" in err


def test_an_unknown_variant_lists_the_variants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "duplex:seed", "x"]) == 2
    assert "has no variant 'seed'" in capsys.readouterr().err


def test_explain_prints_numbered_steps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "duplex", "grant-user-in-overlap", "--sources"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "SOMETIMES grant-user-in-overlap: witnessed (bfs, k=5)"
    steps = [line for line in lines if line[:2].strip().isdigit()]
    assert [line.split()[0] for line in steps] == ["0", "1", "2", "3", "4", "5"]
    assert "[ADR-068 D1 row 8" in steps[-1]


def test_explain_prints_a_certificate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "duplex", "text-never-overlap"]) == 0
    assert "certificate: inv: " in capsys.readouterr().out


def test_explain_rejects_an_unknown_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "duplex", "nope"]) == 2
    assert "has no check 'nope'" in capsys.readouterr().err


def test_diagram_check_finds_a_stale_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagram", "duplex", "--out", str(tmp_path)]) == 0
    assert main(["diagram", "duplex", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "duplex-text.dot").write_text("digraph {}\n")
    assert main(["diagram", "duplex", "--out", str(tmp_path), "--check"]) == 1
    assert "stale diagram" in capsys.readouterr().err


@pytest.mark.slow  # draws every spec twice (about 80 s on 2 shared cores): make test runs it
def test_diagram_check_finds_a_drawing_no_spec_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """wave.dot, say, once wave is drawn as two halves: left behind, it would go stale."""
    assert main(["diagram", "--out", str(tmp_path)]) == 0
    assert main(["diagram", "--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "wave.dot").write_text("digraph {}\n")
    assert main(["diagram", "--out", str(tmp_path), "--check"]) == 1
    assert "wave.dot (no spec draws it: delete it)" in capsys.readouterr().err


@pytest.mark.slow  # the gate runs this very check as a phase of its own (make verify, 4/7)
def test_committed_diagrams_are_current() -> None:
    assert main(["diagram", "--check"]) == 0


def test_forked_map_runs_elsewhere_keeps_the_order_and_never_pickles_the_work() -> None:
    import os
    from collections.abc import Callable

    from models.cli.kit import forked_map

    # Lambdas cannot be pickled: the workers must inherit the items, not receive them.
    items: list[Callable[[], int]] = [lambda: 1, os.getpid, lambda: 3]
    got = forked_map(lambda f: f(), items, jobs=2, cost=lambda f: 0 if f is os.getpid else 1)
    assert got[0] == 1 and got[2] == 3
    assert got[1] != os.getpid()  # it ran in a forked process
    assert forked_map(lambda f: f(), items, jobs=1)[1] == os.getpid()  # one job: this process
