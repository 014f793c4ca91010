"""Bad input never hurts (issue 20): every command-line case as one table.

Each row is (argv, what the scratch folder holds) → (exit code, the one line of
stderr): no traceback, and no file in the folder left, replaced or turned into
another kind (a device stays a device, a link stays a link). The devices are
made with `mknod` in the scratch folder (copies of /dev/null, /dev/full and
/dev/zero: the real ones are never touched); the table is skipped when mknod
is not permitted. Also: `-` is standard output for every output flag, a symbolic
link is written through, and check-trace of hypothesis-made malformed logs only
ever exits 1 or 2.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from models.cli.main import main

DUPLEX_STEP = '{"trigger": "vad_onset", "args": {}}\n'
DEEP = 10_000


def _erl(number: str) -> str:
    return '{"trigger": "erl", "args": {"value": ' + number + "}}\n"


def _itf(value: object) -> str:
    init = {"#meta": {"index": 0}}
    step = {
        "#meta": {"index": 1},
        "mbt::actionTaken": "erl",
        "mbt::nondetPicks": {"value": value},
    }
    return json.dumps({"#meta": {"format": "ITF"}, "vars": [], "states": [init, step]})


# What the scratch folder holds, by name: text files, or a maker.
FILES: dict[str, str] = {
    "ok.jsonl": DUPLEX_STEP,
    "empty.jsonl": "",
    "blank.jsonl": "\n  \n",
    "deep.jsonl": "[" * DEEP + "]" * DEEP + "\n",
    "deep.itf.json": '{"states": ' + "[" * DEEP + "]" * DEEP + "}",
    "digits400.jsonl": _erl("9" * 400),
    "digits5001.jsonl": _erl("9" * 5001),
    "bigint-abc.itf.json": _itf({"#bigint": "abc"}),
    "bigint-list.itf.json": _itf({"#bigint": [1]}),
    "tup-5.itf.json": _itf({"#tup": 5}),
    "set-null.itf.json": _itf({"#set": None}),
    "duplicate.jsonl": '{"trigger": "vad_onset", "trigger": "erl", "args": {}}\n',
    "long-trigger.jsonl": '{"trigger": "' + "x" * 2_000_000 + '", "args": {}}\n',
    "binary.pml": "",
    "binary.pml.trail": "",
}


def _mknod(path: Path, major: int, minor: int) -> None:
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))


def _loop(path: Path) -> None:
    path.symlink_to(path.with_name("loop2"))
    path.with_name("loop2").symlink_to(path)


MAKERS: dict[str, Callable[[Path], None]] = {
    "null": lambda p: _mknod(p, 1, 3),
    "full": lambda p: _mknod(p, 1, 7),
    "zero": lambda p: _mknod(p, 1, 5),
    "fifo": os.mkfifo,
    "dir": lambda p: p.mkdir(),
    "loop": _loop,
}


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    for name, maker in MAKERS.items():
        try:
            maker(tmp_path / name)
        except PermissionError:
            pytest.skip("mknod is not permitted here")
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "binary.pml").write_bytes(bytes(range(256)) * 4)
    return tmp_path


def _snapshot(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """Every entry's kind, inode, size and mtime: a replaced or rewritten file shows."""
    found = {}
    for entry in os.scandir(folder):
        info = entry.stat(follow_symlinks=False)
        found[entry.name] = (stat.S_IFMT(info.st_mode), info.st_ino, info.st_size, info.st_mtime_ns)
    return found


# (argv with {folder}, exit code, a piece of the one stderr line). Argparse's own refusals
# (a type=) print the usage before their line: those rows expect "usage" and check the last.
CASES: list[tuple[str, int, str]] = [
    # 1. output flags pointed at a device, a FIFO, a link loop, a directory, /proc
    ("explain duplex reach-listening-audio --itf {folder}/null", 2, "is a character device"),
    ("diagram duplex --view audio -o {folder}/null", 2, "is a character device"),
    ("check-trace duplex {folder}/ok.jsonl --json {folder}/null", 2, "is a character device"),
    ("promela duplex -o {folder}/null", 2, "null: is a character device, not a regular file"),
    ("check-trace duplex {folder}/ok.jsonl --json {folder}/full", 2, "is a character device"),
    ("check-trace duplex {folder}/ok.jsonl --json {folder}/fifo", 2, "is a FIFO"),
    ("verify duplex --json {folder}/loop", 2, "Too many levels of symbolic links"),
    ("check-trace duplex {folder}/ok.jsonl --json {folder}/loop", 2, "symbolic links"),
    ("check-trace duplex {folder}/ok.jsonl --json {folder}/dir", 2, "is a directory"),
    ("check-trace duplex {folder}/ok.jsonl --json /proc/statecheck.json", 2, "cannot write in"),
    ("promela duplex -o {folder}/dir", 2, "is a directory"),
    ("mutants duplex --json /proc/statecheck/m.json", 2, "cannot write in /proc"),
    ("report duplex -o {folder}/ok.jsonl", 2, "is not a directory"),
    # 2. inputs that ended in `internal error`
    ("check-trace duplex {folder}/deep.jsonl", 2, "line 1: nested too deeply to read"),
    ("check-trace duplex {folder}/deep.itf.json", 2, "nested too deeply to read"),
    ("check-trace duplex {folder}/digits400.jsonl", 2, "args.value: 9999"),
    ("check-trace duplex {folder}/digits5001.jsonl", 2, "line 1: not readable JSON"),
    ("check-trace duplex {folder}/bigint-abc.itf.json", 2, "#bigint must be a string of digits"),
    ("check-trace duplex {folder}/bigint-list.itf.json", 2, "#bigint must be a string"),
    ("check-trace duplex {folder}/tup-5.itf.json", 2, "#tup must be a list, got 5"),
    ("check-trace duplex {folder}/set-null.itf.json", 2, "#set must be a list, got None"),
    ("spin-trail duplex {folder}/binary.pml.trail", 2, "is not text"),
    ("verify duplex --timeout 1e308", 2, "usage"),
    # 4. hangs: a FIFO with no writer, an endless device
    ("check-trace duplex {folder}/fifo", 2, "is a FIFO, not a regular file"),
    ("check-trace duplex {folder}/zero", 2, "is a character device, not a regular file"),
    # 6. --jobs: one rule everywhere
    ("verify --jobs 0", 2, "usage"),
    ("spin duplex --jobs 0", 2, "usage"),
    ("mutants duplex --jobs -5", 2, "usage"),
    # 7. an empty log is refused (exit 2), and so is /dev/null (not a regular file)
    ("check-trace duplex {folder}/empty.jsonl", 2, "the log is empty"),
    ("check-trace duplex {folder}/blank.jsonl", 2, "the log is empty"),
    ("check-trace duplex {folder}/null", 2, "is a character device"),
    # 8. duplicate keys, 9. echoed input cut
    ("check-trace duplex {folder}/duplicate.jsonl", 2, "line 1: duplicate key 'trigger'"),
    ("check-trace duplex {folder}/long-trigger.jsonl", 2, "unknown trigger 'xxxxxxx"),
    # 11. a picture format the file name contradicts
    ("diagram duplex --view audio -o {folder}/x.jpg", 2, "cannot tell the format"),
    ("diagram duplex --view audio --format svg -o {folder}/x.png", 2, "does not match"),
]


@pytest.mark.parametrize(("argv", "code", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_leaves_every_file_alone(
    argv: str, code: int, message: str, scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(scratch)
    assert main(argv.format(folder=scratch).split()) == code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    lines = err.splitlines()
    if message == "usage":
        assert lines[0].startswith("usage: python -m models") and ": error: argument" in lines[-1]
    else:
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err
        assert len(lines[0]) < 400  # the 2 MB trigger is not echoed whole
    assert _snapshot(scratch) == before


def test_dash_is_standard_output_for_every_output_flag(
    scratch: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(scratch)  # a file named `-` would appear here
    assert main(["explain", "duplex", "reach-listening-audio", "--itf", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["#meta"]["format"] == "ITF"
    assert main(["check-trace", "duplex", "ok.jsonl", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["promela", "duplex", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("/* duplex")
    assert main(["diagram", "duplex", "--view", "audio", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("digraph")
    assert not (scratch / "-").exists()


def test_a_symbolic_link_is_written_through_and_stays_a_link(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "real.json").write_text("old")
    (scratch / "link.json").symlink_to(scratch / "real.json")
    ok, link = str(scratch / "ok.jsonl"), str(scratch / "link.json")
    assert main(["check-trace", "duplex", ok, "--json", link]) == 0
    assert (scratch / "link.json").is_symlink()
    assert json.loads((scratch / "real.json").read_text())["ok"] is True
    assert not [p for p in scratch.iterdir() if p.name.endswith(".tmp")]


def test_a_rejected_itf_step_is_named_by_its_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.itf.json"
    trace = json.loads(_itf(0.5))
    trace["states"][1]["last_erl"] = {"tag": "Some", "value": 0.25}  # the step set 0.5
    path.write_text(json.dumps(trace))
    assert main(["check-trace", "duplex", str(path)]) == 1
    assert "REJECTED at step 1 (states[1])" in capsys.readouterr().out


def test_a_wrong_itf_field_is_named_as_itf_spells_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.itf.json"
    path.write_text(_itf(True))
    assert main(["check-trace", "duplex", str(path)]) == 2
    assert "states[1]: mbt::nondetPicks.value: True is not a number" in capsys.readouterr().err


def test_one_step_is_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "one.jsonl").write_text(DUPLEX_STEP)
    assert main(["check-trace", "duplex", str(tmp_path / "one.jsonl")]) == 0
    assert "accepted — 1 step, 2 consistent model states at the end" in capsys.readouterr().out


# ---------------------------------------------------------------- the fuzz test

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
_step = st.fixed_dictionaries(
    {},
    optional={
        "trigger": st.sampled_from(["vad_onset", "erl", "grant_user", "nope"]) | st.text(),
        "args": st.dictionaries(st.sampled_from(["value", "x"]), _json) | _json,
        "outputs": st.dictionaries(st.text(max_size=6), _json) | _json,
        "state": st.dictionaries(st.sampled_from(["state", "mode", "x"]), _json) | _json,
        "row": st.text(max_size=8) | _json,
        "init": _json,
    },
)
_line = st.one_of(
    _step.map(json.dumps),
    _json.map(json.dumps),
    st.text(max_size=40),  # not JSON at all
    _step.map(lambda s: json.dumps(s)[:-1]),  # cut short
)
# Every log ends in a line or a state that cannot be read, so a log is rejected (1) before
# it, or malformed (2) there: never accepted, never a crash.
_bad_line = st.sampled_from(["{", "[1,", '{"trigger": 5}', '{"trigger": "erl"}', "nul"])
_jsonl = st.tuples(st.lists(_line, max_size=12), _bad_line).map(
    lambda parts: "\n".join([*parts[0], parts[1]]) + "\n"
)
_itf_doc = st.builds(
    lambda states, meta: json.dumps({"#meta": meta, "vars": [], "states": [*states, 5]}),
    st.lists(st.dictionaries(st.text(max_size=12), _json), max_size=4),
    _json,
)


@pytest.fixture
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("fuzz")


# The budget is a count of small inputs (at most 13 lines of a few leaves each), no clock.
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_jsonl | _itf_doc, itf=st.booleans())
def test_check_trace_of_malformed_input_is_a_rejection_or_malformed_never_a_crash(
    text: str, itf: bool, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = logs / ("log.itf.json" if itf else "log.jsonl")
    path.write_text(text)
    code = main(["check-trace", "duplex", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err
    assert code in (1, 2), (code, text)
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("error: ")
    else:
        assert "REJECTED" in out


def test_an_os_error_prints_its_reason_in_words_never_an_errno(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC)  # as a device reports it: the number alone

    monkeypatch.setattr("models.kernel.files.os.replace", full)
    out = tmp_path / "verdict.json"
    argv = ["check-trace", "duplex", str(tmp_path / "ok.jsonl"), "--json", str(out)]
    (tmp_path / "ok.jsonl").write_text(DUPLEX_STEP)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write {out}: No space left on device\n"
    assert list(tmp_path.iterdir()) == [tmp_path / "ok.jsonl"]  # no temporary file left


def test_list_help_promises_what_list_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "list the specs, their variants and how many properties" in capsys.readouterr().out
    assert main(["list"]) == 0
    assert "duplex: seeds/duplex.rs (ADR-068 D1) — 28 rows, " in capsys.readouterr().out
