"""What every `python -m models` subcommand shares: argument types, outputs and error handling.

- Two base exceptions: `UsageError`, a mistake on the command line or in its
  input (one line, exit 2), and `CheckError`, a check that failed or could not
  finish (one line, exit 1). Raise a subclass; `run` prints its first line.
- `output_file` is the argparse `type=` of every flag that names a file to
  write. It checks the place when the command line is parsed, so an unwritable
  path, a directory, a device, a FIFO or a symbolic-link loop is refused (exit
  2) before any work; `-` is standard output. Its `Output.write` writes
  atomically (`kernel/files.py`): a failure or a Ctrl-C leaves nothing half-written.
  `output_dir` does the same for a flag that names a directory.
- `positive_int` refuses counts below 1 (`--jobs 0`), for every command alike, and
  `add_jobs` declares that flag.
- `process_pool` runs work in forked processes that a Ctrl-C stops at once, and
  `forked_map` maps a function over them;
  `Beside` runs a call (graphviz's layout) in a thread while the command goes on.
- `collect_less` raises the cyclic collector's thresholds for a checking process.
- `run` parses and runs a command: a wrong flag shows the subcommand's usage,
  a user mistake prints `error: …` and exits 2, an OS error names the file and
  the reason (never an errno), a closed output pipe ends quietly, Ctrl-C exits
  130, and no error prints a traceback unless `--traceback` is on the line.

Exit codes: 0 ok; 1 a check failed (or did not finish: a closed pipe, a spec
too big for the explorer, a kernel error); 2 a usage or input error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import multiprocessing
import multiprocessing.pool
import os
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Generic
from typing import TypeVar

from models.kernel.files import NotRegular
from models.kernel.files import target
from models.kernel.files import write_atomic

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
TRACEBACK_FLAG = "--traceback"


class UsageError(Exception):
    """A mistake on the command line or in its input; `args[0]` is the one-line message."""


class CheckError(Exception):
    """A check that failed or could not finish; `args[0]` is the one-line message (exit 1)."""


ECHO = 80  # characters of the user's input an error message repeats


def clip(text: str, width: int = ECHO) -> str:
    """`text` cut to `width` characters, so that echoed input keeps a message on one line."""
    return text if len(text) <= width else text[: width - 1] + "…"


def reason(err: OSError) -> str:
    """What went wrong, in words: "No space left on device", never "28"."""
    if err.strerror:
        return err.strerror
    number = err.errno if err.errno else (err.args[0] if err.args else None)
    if isinstance(number, int):  # `OSError(28)` carries the number alone, in args
        return os.strerror(number)
    return str(err) or type(err).__name__


@dataclass(frozen=True)
class Output:
    """A file a command writes, checked when parsed; `-` is standard output."""

    text: str

    @property
    def to_stdout(self) -> bool:
        return self.text == "-"

    @property
    def path(self) -> Path:
        return Path(self.text)

    def __str__(self) -> str:
        return self.text

    def write(self, data: str | bytes) -> None:
        """All of `data`, or nothing: a failure is a `UsageError` naming the file and why."""
        if self.to_stdout:
            if isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
            sys.stdout.flush()
            return
        try:
            write_atomic(self.path, data)
        except OSError as err:
            raise UsageError(f"cannot write {self.text}: {reason(err)}") from None


def output_file(text: str) -> Output:
    """A file the command will write (`-` is standard output); refused now if it cannot be."""
    if text == "-":
        return Output(text)
    if not text:
        raise UsageError("an empty file name")
    try:
        real = target(Path(text))
    except NotRegular as err:
        raise UsageError(f"{text}: {err.strerror}") from None
    except OSError as err:  # a link loop, a path through a file
        raise UsageError(f"{text}: {reason(err)}") from None
    if real.exists() and not os.access(real, os.W_OK):
        raise UsageError(f"{text}: not writable")
    _check_creatable(real.parent, text)
    return Output(text)


def output_dir(text: str) -> Path:
    """A directory the command will write into (created if missing); refused now if it cannot be."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{text}: is not a directory")
    _check_creatable(path, text)
    return path


def _check_creatable(directory: Path, text: str) -> None:
    """Can files be created in `directory`, or in its nearest existing ancestor?"""
    probe = directory
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise UsageError(f"{text}: {probe} is not a directory")
    try:
        # A real write, not os.access: it also sees read-only file systems, and root.
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as err:
        raise UsageError(f"{text}: cannot write in {probe} ({err.strerror})") from None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


MAX_SECONDS = (2**32 - 1) // 1000  # z3 takes its timeout as an unsigned 32-bit count of ms


def positive_seconds(text: str) -> float:
    """A finite number of seconds above zero (a budget), at most z3's largest timeout."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SECONDS} seconds (z3's limit), got {text}")
    return value


def add_jobs(parser: argparse.ArgumentParser, what: str) -> None:
    """The `--jobs N` flag of every command that works in parallel: `what` runs in up to N
    processes, one per CPU by default."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        help=f"{what} (default: one per CPU)",
    )


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def process_pool(jobs: int) -> Iterator[multiprocessing.pool.Pool]:
    """Forked workers for independent work. They ignore Ctrl-C: the parent, on its
    KeyboardInterrupt (or any error), terminates them at once instead of waiting for
    their current task, so an interrupted run stops promptly and writes nothing."""
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_ignore_sigint)
    try:
        yield pool
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


T = TypeVar("T")
R = TypeVar("R")

# How often a wait in the main thread goes back to Python. A SIGINT that lands after CPython
# last looked for signals and before a lock wait blocks is handled in C but wakes no one, so
# a wait with no timeout would hold that Ctrl-C up forever (seen under load: a run that
# ignored Ctrl-C in 1 of ~50 tries). A timed wait returns, and Python raises it then.
POLL = 0.2


def settled(wait: Callable[[float], object], done: Callable[[], bool]) -> None:
    """Wait until `done()`, in `POLL`-second `wait`s, so that a Ctrl-C always gets through."""
    while not done():
        wait(POLL)


def result_of(result: multiprocessing.pool.AsyncResult[R]) -> R:
    """A pool task's result (or its exception), waited for so that Ctrl-C gets through."""
    settled(result.wait, result.ready)
    return result.get()


# What `forked_map`'s workers call: set before the pool forks, so each worker reads it from
# the memory it inherits, and only an index and its result cross between processes.
_FORKED: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def forked_map(
    fn: Callable[[T], R], items: Sequence[T], jobs: int, cost: Callable[[T], int] | None = None
) -> list[R]:
    """`[fn(x) for x in items]`, on up to `jobs` forked processes (in this one for a single
    job or item). `fn` and the items are inherited, never pickled (a spec holds lambdas);
    each result is, so it must be plain data. The costliest items (`cost`) start first, so
    no process idles at the end; the results keep the items' order."""
    global _FORKED
    if jobs <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    order = sorted(range(len(items)), key=lambda i: -cost(items[i]) if cost else 0)
    _FORKED = (fn, items)
    try:
        with process_pool(min(jobs, len(items))) as pool:
            futures = {i: pool.apply_async(_forked_call, (i,)) for i in order}
            return [result_of(futures[i]) for i in range(len(items))]
    finally:
        _FORKED = None


def _forked_call(index: int) -> Any:
    assert _FORKED is not None, "forked_map sets the work before it forks"
    fn, items = _FORKED
    return fn(items[index])


# As many calls run beside the command as there are cores (each runs a `dot` process).
_BESIDE = threading.BoundedSemaphore(os.cpu_count() or 2)


class Beside(Generic[T]):
    """`fn(*args)` run in a daemon thread, its `result()` (or its exception) taken later.
    Not a ThreadPoolExecutor: that joins its threads on the way out, so one stuck call
    would hold a Ctrl-C up forever; a daemon thread is left behind, and `result()`
    waits on an event in timed steps (`settled`), which a Ctrl-C interrupts."""

    def __init__(self, fn: Callable[..., T], *args: object) -> None:
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, args=(fn, args), daemon=True).start()

    def _run(self, fn: Callable[..., T], args: tuple[object, ...]) -> None:
        with _BESIDE:
            try:
                self._value = fn(*args)
            except BaseException as error:  # handed to the caller of result()
                self._error = error
            finally:
                self._done.set()

    def result(self) -> T:
        settled(self._done.wait, self._done.is_set)
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set: the call returned


Handler = Callable[[argparse.Namespace], int]


# The checks allocate short-lived objects by the million (states, environments, z3 terms,
# hypothesis's choices) and few cycles: at Python's default thresholds (700, 10, 10) the
# cyclic collector ran often enough to cost a tenth of the mutant gate's CPU and a twentieth
# of the gate's pytest (mypy raises its own for the same reason).
GC_THRESHOLDS = (10_000, 20, 20)


def collect_less() -> None:
    """Run the cyclic collector less often, in a process that checks (not in a library)."""
    gc.set_threshold(*GC_THRESHOLDS)


def run(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    input_errors: tuple[type[BaseException], ...] = (),
    check_errors: tuple[type[BaseException], ...] = (),
) -> int:
    """Parse `argv` and run the chosen subcommand's `run=` default, mapping errors to exit codes.

    The parser's subparsers must be created with `dest="command"`. `input_errors`
    are further exception types that mean the user's input was wrong (exit 2);
    `check_errors` mean a check could not be finished (one line, exit 1).
    """
    user_errors: tuple[type[BaseException], ...] = (UsageError, *input_errors)
    check_errors = (CheckError, *check_errors)
    words = list(sys.argv[1:] if argv is None else argv)
    show_traceback = TRACEBACK_FLAG in words
    words = [w for w in words if w != TRACEBACK_FLAG]
    try:
        try:
            args, extra = parser.parse_known_args(words)
            if extra:
                # argparse would print the top-level usage; the subcommand's is the useful one.
                command = _subparser(parser, getattr(args, "command", None)) or parser
                command.error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as stop:  # argparse has printed its usage and message
            return stop.code if isinstance(stop.code, int) else USAGE
        handler: Handler = args.run
        args.traceback = show_traceback
        code = int(handler(args))
        sys.stdout.flush()  # a closed pipe shows here at the latest, still inside this handler
        return code
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as err:
        if _is_interrupt(err):  # whatever became of it on its way up, it was a Ctrl-C
            return _interrupted()
        if isinstance(err, user_errors):
            _report(err, show_traceback)
            return USAGE
        if isinstance(err, check_errors):
            _report(err, show_traceback)
            return FAILED
        if isinstance(err, BrokenPipeError):
            # The reader went away (`verify | head -1`): stop quietly, let nothing flush later.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return FAILED
        if isinstance(err, OSError):  # a file the user named: its name and the reason, in words
            where = f"{err.filename}: " if err.filename else ""
            _report(UsageError(f"{where}{reason(err)}"), show_traceback, err)
            return USAGE
        _report(err, show_traceback, prefix=f"internal error: {type(err).__name__}: ")
        return FAILED


def _interrupted() -> int:
    print("interrupted", file=sys.stderr)
    return INTERRUPTED


def _is_interrupt(err: BaseException) -> bool:
    """A Ctrl-C that turned into another error on its way up.

    ctypes (z3's bindings) wraps it in an `ArgumentError` that names it. A cleanup the
    interrupt cut short fails with the interrupt as its context: a Ctrl-C between a
    `Condition.wait`'s release and its `try` leaves the `with` to release an unlocked
    lock (a RuntimeError), as CI saw under load.
    """
    if isinstance(err, ctypes.ArgumentError) and "KeyboardInterrupt" in str(err):
        return True
    seen: set[int] = set()
    cause: BaseException | None = err.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__context__
    return False


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen = action.choices[name]
            assert isinstance(chosen, argparse.ArgumentParser)
            return chosen
    return None


def _report(
    err: BaseException, show_traceback: bool, cause: BaseException | None = None, prefix: str = ""
) -> None:
    if show_traceback:
        traceback.print_exception(cause or err, file=sys.stderr)
    message = str(err.args[0]) if err.args else type(err).__name__
    hint = "" if show_traceback or not prefix else f" (rerun with {TRACEBACK_FLAG} to see where)"
    print(f"error: {prefix}{message.splitlines()[0] if message else ''}{hint}", file=sys.stderr)
