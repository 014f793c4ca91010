"""What every `python -m models` subcommand shares: argument types and error handling.

- `output_file` / `output_dir` are argparse `type=`s for flags that name a
  place to write. They check the place when the command line is parsed, so an
  unwritable path is a one-line error (exit 2) before any check runs. Use them
  for every new writing flag: `p.add_argument("--itf-dir", type=output_dir)`.
  `output_file` accepts `-` for standard output.
- `positive_int` refuses counts below 1 (`--jobs 0`).
- `run` parses and runs a command: a wrong flag shows the subcommand's usage,
  a user mistake (`UsageError`, an unknown or broken spec, a missing tool)
  prints `error: …` and exits 2, a closed output pipe ends quietly, and no
  error prints a traceback unless `--traceback` is given anywhere on the line.

Exit codes: 0 ok; 1 a check failed (or did not finish: a closed pipe, a spec
too big for the explorer, a kernel error); 2 a usage or input error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
TRACEBACK_FLAG = "--traceback"


class UsageError(Exception):
    """A mistake on the command line or in its input; `args[0]` is the one-line message."""


def output_file(text: str) -> Path:
    """A file the command will write (`-` is standard output); refused now if it cannot be."""
    path = Path(text)
    if text == "-":
        return path
    if path.is_dir():
        raise UsageError(f"{text}: is a directory, not a file")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise UsageError(f"{text}: not writable")
        return path
    _check_creatable(path.parent, text)
    return path


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


def positive_seconds(text: str) -> float:
    """A finite number of seconds above zero (a budget)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


Handler = Callable[[argparse.Namespace], int]


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
    except user_errors as err:
        _report(err, show_traceback)
        return USAGE
    except check_errors as err:
        _report(err, show_traceback)
        return FAILED
    except BrokenPipeError:
        # The reader went away (`verify | head -1`): stop quietly, and let nothing flush later.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as err:
        _report(err, show_traceback, prefix=f"internal error: {type(err).__name__}: ")
        return FAILED


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen = action.choices[name]
            assert isinstance(chosen, argparse.ArgumentParser)
            return chosen
    return None


def _report(err: BaseException, show_traceback: bool, prefix: str = "") -> None:
    if show_traceback:
        traceback.print_exception(err, file=sys.stderr)
    message = str(err.args[0]) if err.args else type(err).__name__
    hint = "" if show_traceback or not prefix else f" (rerun with {TRACEBACK_FLAG} to see where)"
    print(f"error: {prefix}{message.splitlines()[0] if message else ''}{hint}", file=sys.stderr)
