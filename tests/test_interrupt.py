"""Ctrl-C in every phase of `verify`, `report`, `diagram --render` and `mutants`: exit 130,
promptly, with no file written or half-written (issue 20 §5).

No test rests on timing. The child is `python -m models` with one function patched
to print a marker ("PHASE <name>") when its phase starts and then to stay in it: a
"solve" phase runs a z3 query that takes hours (a pigeonhole formula) through
`smt._check`, so the signal lands while z3 solves, where z3 catches Ctrl-C itself;
the other phases sleep in a loop forever. The test reads the marker,
sends SIGINT, and asserts exit 130 within a generous bound. A Ctrl-C that lands just
before z3 takes over SIGINT is z3-interrupted by `smt._watch`, so the race between the
marker and the solve cannot lose it.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from models.cli import kit

BOUND = 120  # seconds: generous, for a loaded machine; a hang fails, a slow start does not

CHILD = textwrap.dedent(
    """
    import signal, sys, time
    import z3
    from models.kernel import smt

    # A child of a background job starts with SIGINT ignored: take Ctrl-C as a terminal would.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def marker(name):
        # One write, its newline in it: print() writes the newline apart, and a drawing
        # thread's marker could land between the two.
        sys.stderr.write(f"PHASE {name}\\n")
        sys.stderr.flush()

    def hours_of_z3(*args, **kwargs):
        # n+1 pigeons in n holes: unsat, and hours of search for z3 at n = 14.
        n = 14
        p = [[z3.Bool(f"p{i}_{j}") for j in range(n)] for i in range(n + 1)]
        solver = z3.Solver()
        solver.add([z3.Or(*row) for row in p])
        for j in range(n):
            for i in range(n + 1):
                for k in range(i + 1, n + 1):
                    solver.add(z3.Not(z3.And(p[i][j], p[k][j])))
        marker("solve")
        return original_check(smt.Budget(3600), "test", solver)

    def stay(name):
        def stuck(*args, **kwargs):
            marker(name)
            while True:  # busy in Python, as a phase is; never a lock wait, which can lose a SIGINT
                time.sleep(0.05)
        return stuck

    original_check = smt._check
    phase, target = sys.argv[1], sys.argv[2]
    module, _, attribute = target.rpartition(".")
    __import__(module)
    owner = sys.modules[module]
    setattr(owner, attribute, hours_of_z3 if phase == "solve" else stay(phase))
    from models.cli.main import main
    sys.exit(main(sys.argv[3:]))
    """
)

# (phase, the function that starts it, the command line; {out} is the scratch folder)
CASES = [
    ("explore", "models.kernel.checks.explore", "verify policy --jobs 1 --json {out}/v.json"),
    ("solve", "models.kernel.smt._check", "verify policy --jobs 1 --json {out}/v.json"),
    ("write", "os.replace", "verify policy --jobs 1 --json {out}/v.json"),
    ("workers", "models.cli.main._verify_one", "verify --jobs 2 --json {out}/v.json"),
    ("solve", "models.kernel.smt._check", "report policy -o {out}"),
    ("render", "models.cli.report.render", "report policy -o {out}"),
    ("write", "os.replace", "report policy -o {out}"),
    ("render", "models.cli.diagram.render", "diagram policy --render --out {out}"),
    ("write", "os.replace", "diagram policy --render --out {out}"),
    ("generate", "models.cli.mutants.generate", "mutants policy --jobs 1 --json {out}/m.json"),
    ("solve", "models.cli.mutants.model_kill", "mutants policy --jobs 1 --json {out}/m.json"),
    ("write", "os.replace", "mutants policy --jobs 1 --json {out}/m.json"),
]


@pytest.mark.parametrize(
    ("phase", "target", "argv"), CASES, ids=[f"{c[2].split()[0]}-{c[0]}" for c in CASES]
)
def test_ctrl_c_exits_130_and_writes_nothing(
    phase: str, target: str, argv: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    command = [sys.executable, "-c", CHILD, phase, target, *argv.format(out=out).split()]
    child = subprocess.Popen(
        command,
        cwd=tmp_path,  # no reports/verify.json here: report and diagram run the checks
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    seen = []
    for line in child.stderr:
        seen.append(line)
        if line.startswith("PHASE "):
            break
    assert seen and seen[-1].strip().startswith("PHASE"), "".join(seen)
    child.send_signal(signal.SIGINT)
    try:
        _, rest = child.communicate(timeout=BOUND)
    finally:
        child.kill()
    code = child.returncode
    assert code == 130, "".join(seen) + rest
    # A second marker may follow: `report` draws beside itself (kit.Beside), and a drawing
    # thread can enter the patched phase after the main thread said "interrupted", even
    # between that word and its newline (print writes them apart).
    said = re.sub(r"PHASE \S+\n", "", rest).strip().splitlines()
    assert said and said[-1].endswith("interrupted") and "Traceback" not in rest, rest
    # Nothing half-written and no temporary file; `diagram --render` lays every picture out
    # before it writes any file, so a Ctrl-C in the layout leaves no .dot without its .svg.
    assert sorted(os.listdir(out)) == []


def _lock_released_under_the_with() -> None:
    """What CI saw: Ctrl-C inside `with lock` after the lock was released, before the
    code that takes it back (`Condition.wait`'s window); the `with` then fails."""
    lock = threading.Lock()
    with lock:
        lock.release()
        raise KeyboardInterrupt


def _ctypes_wrapped() -> None:
    raise ctypes.ArgumentError("argument 1: KeyboardInterrupt")


def _a_bug_while_handling_a_bug() -> None:
    try:
        raise ValueError("first")
    except ValueError:
        raise RuntimeError("second") from None


@pytest.mark.parametrize(
    ("raise_it", "code", "last_line"),
    [
        (_lock_released_under_the_with, 130, "interrupted"),
        (_ctypes_wrapped, 130, "interrupted"),
        (_a_bug_while_handling_a_bug, 1, "internal error: RuntimeError: second"),
    ],
)
def test_an_error_that_a_ctrl_c_caused_is_the_ctrl_c(
    raise_it: Callable[[], None], code: int, last_line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="models")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("go").set_defaults(run=lambda args: raise_it())
    assert kit.run(parser, ["go"]) == code
    assert last_line in capsys.readouterr().err.strip().splitlines()[-1]


def test_a_wait_in_the_main_thread_goes_back_to_python_in_timed_steps() -> None:
    timeouts: list[float] = []
    answers = iter([False, False, True])
    kit.settled(timeouts.append, lambda: next(answers))
    assert timeouts == [kit.POLL, kit.POLL]


def test_a_ctrl_c_that_wakes_no_wait_still_gets_through() -> None:
    """CPython handles a SIGINT that lands just before a lock wait blocks and wakes no one;
    one that another thread takes does the same, and that is how this test makes it happen,
    once the main thread waits. A plain `Event.wait()` would then wait forever (measured:
    until the event is set); `settled` raises the Ctrl-C within a step."""
    done, waiting, stop = threading.Event(), threading.Event(), threading.Event()

    def elsewhere() -> None:
        waiting.wait()
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # handled in this thread
        if not stop.wait(BOUND):  # the main thread missed the Ctrl-C: fail, do not hang
            done.set()

    def wait(seconds: float) -> None:
        waiting.set()
        done.wait(seconds)

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            threading.Thread(target=elsewhere, daemon=True).start()
            kit.settled(wait, done.is_set)
    finally:
        stop.set()
        signal.signal(signal.SIGINT, before)
