"""`python -m models diagram` and `report` as a user runs them: outputs, errors, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.cli.main import main
from models.kernel.diagram import TRACE


def test_one_picture_with_a_counterexample(tmp_path: Path) -> None:
    out = tmp_path / "eager.dot"
    check = "calls-read-the-wave-start"
    args = ["diagram", "policy", "--variant", "eager-reading", "--trace", check, "-o", str(out)]
    assert main(args) == 0
    text = out.read_text()
    assert f"counterexample of {check}: violated, 2 steps" in text
    assert text.count(f'color="{TRACE}"') >= 3  # the path's arrows and nodes are highlighted


def test_the_view_follows_the_trace(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "duplex", "--trace", "reach-overlap-audio", "--format", "dot"]) == 0
    assert "duplex (audio)" in capsys.readouterr().out


def test_mermaid_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diagram", "policy", "--format", "mermaid"]) == 0
    assert capsys.readouterr().out.startswith('---\ntitle: "policy')  # YAML, quoted


def test_dash_output_is_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no reports/verify.json here: the smallest spec is checked
    assert main(["diagram", "admission", "--format", "dot", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("digraph admission")
    assert not (tmp_path / "-").exists()  # not a file named "-"


def test_svg_by_suffix(tmp_path: Path) -> None:
    out = tmp_path / "a.svg"
    assert main(["diagram", "admission", "-o", str(out)]) == 0
    assert out.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diagram", "duplex", "--format", "dot"], "pick one with --view"),
        (["diagram", "duplex", "--view", "video"], "has no view 'video'"),
        (["diagram", "policy", "--trace", "nope"], "has no check 'nope'"),
        (["diagram", "policy", "--trace", "calls-read-the-wave-start"], "no trace to draw"),
        (["diagram", "policy", "duplex", "--format", "dot"], "name exactly one"),
        (["diagram", "wave", "--variant", "nope"], "has no variant 'nope'"),
    ],
)
def test_wrong_commands_exit_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_report_writes_one_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "policy", "-o", str(tmp_path)]) == 0
    page = (tmp_path / "index.html").read_text()
    assert "policy:eager-reading" in page and "<svg" in page
    assert not any(bad in page for bad in ('src="http', 'href="http', "<script src", "<link"))
    assert str(tmp_path / "index.html") in capsys.readouterr().out


def test_an_unwritable_output_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["report", "policy", "-o", str(blocker / "sub")]) == 2
    assert main(["diagram", "policy", "-o", str(blocker / "x.dot")]) == 2
    err = capsys.readouterr().err
    # refused by the output-path check before anything is drawn: one line each
    assert err.count("is not a directory") == 2 and len(err.splitlines()) == 2
    assert "Traceback" not in err
