"""`python -m models check-trace SPEC FILE [--variant V] [--json OUT]`.

FILE is a JSON Lines log (`-` reads stdin) or an ITF trace (`*.itf.json`).
Exit codes: 0 the model accepts the log; 1 it rejects it (the report names
the step, the line, what was observed, what the model allows there and the
shortest model trace to the last consistent state); 2 the input is malformed
(the one-line error names the line and the field), the log has no steps (an
empty log is refused: a crashed logger's empty file is no pass), FILE is not a
regular file (a FIFO, a device), or the command is wrong. A JSON Lines log is
read as it is checked, so memory does not grow with its length; reading stops
at a rejection.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any
from typing import TextIO

from models.cli.kit import UsageError
from models.cli.kit import output_file
from models.cli.kit import reason
from models.cli.registry import lookup
from models.kernel.files import kind
from models.kernel.files import write_atomic
from models.kernel.itf import itf_text
from models.kernel.itf import looks_like_itf
from models.kernel.itf import read_itf
from models.kernel.spec import Spec
from models.kernel.trace import Trace
from models.kernel.tracecheck import TraceInputError
from models.kernel.tracecheck import TraceVerdict
from models.kernel.tracecheck import check_stream
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import stream_jsonl


def add_parser(sub: Any) -> None:
    """Add `check-trace` to the `python -m models` subcommands."""
    p = sub.add_parser(
        "check-trace",
        help="check a recorded log (JSON Lines or ITF) against a spec",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("spec", metavar="SPEC", help="spec name, or SPEC:VARIANT")
    p.add_argument("file", metavar="FILE", help="the log: JSON Lines, or *.itf.json; - for stdin")
    p.add_argument("--variant", metavar="V", help="check against this variant of SPEC")
    p.add_argument(
        "--json", type=output_file, metavar="OUT", help="also write the verdict as JSON (-: stdout)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    spec = lookup(f"{args.spec}:{args.variant}" if args.variant else args.spec)
    started = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            stream = sys.stdin if args.file == "-" else stack.enter_context(_open(args.file))
            verdict, empty = _check(spec, args.file, stream)
    except OSError as err:
        raise UsageError(f"cannot read {args.file}: {reason(err)}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{args.file} is not UTF-8 text") from None
    except (TraceInputError, RecursionError) as err:
        what = err if isinstance(err, TraceInputError) else "nested too deeply to read"
        raise UsageError(f"{args.file}: {what}") from None
    if empty:
        # A crashed logger leaves an empty file: that is no evidence, so it is no pass.
        raise UsageError(f"{args.file}: the log is empty (no init line, no step): refused")
    seconds = time.perf_counter() - started
    # `--json -`: standard output carries only the JSON, the report goes to standard error.
    text = sys.stderr if args.json is not None and args.json.to_stdout else sys.stdout
    for line in verdict.report():
        print(line, file=text)
    if verdict.ok:
        print(f"  checked in {seconds:.2f}s", file=text)
    if args.json is not None:
        args.json.write(json.dumps(verdict.to_json(), indent=2) + "\n")
    return 0 if verdict.ok else 1


def _open(name: str) -> TextIO:
    """The log file to read, which must be a regular file: a FIFO, a device or a directory
    is refused (a FIFO with no writer would hang, /dev/zero never ends)."""
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: a FIFO does not hang here
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UsageError(f"{name}: is {kind(info.st_mode)}, not a regular file")
    os.set_blocking(fd, True)
    return open(fd, encoding="utf-8")


def _check(spec: Spec, name: str, stream: TextIO) -> tuple[TraceVerdict, bool]:
    """Read and check the log a line at a time (JSON Lines), or whole (ITF); and is it empty?"""
    head = stream.read(64)
    if looks_like_itf(Path(name), head):
        return check_trace(spec, read_itf(spec, head + stream.read())), False
    first = head + stream.readline()  # the rest of the line the head cut
    lines = itertools.chain(io.StringIO(first), stream)
    init, init_line, steps = stream_jsonl(spec, lines)
    verdict = check_stream(spec, init, steps, init_line=init_line)
    return verdict, verdict.steps == 0 and not init_line and verdict.ok


def itf_name(spec: Spec, check: str) -> str:
    """The file a check's trace is written to: `wave.seed.always-settles.itf.json`, say."""
    return f"{spec.name.replace(':', '.')}.{check}.itf.json"


def check_itf(spec: Spec, check: str, verdict: str, trace: Trace, loop: int | None = None) -> str:
    """A check's witness or counterexample (a lasso when `loop` is set) as ITF text."""
    what = {"witnessed": "witness", "violated": "counterexample"}.get(verdict, verdict)
    return itf_text(spec, trace, description=f"{spec.name} {check}: {what}", loop=loop)


def write_check_itf(
    spec: Spec, check: str, verdict: str, trace: Trace, path: Path, loop: int | None = None
) -> Path:
    write_atomic(path, check_itf(spec, check, verdict, trace, loop))
    return path
