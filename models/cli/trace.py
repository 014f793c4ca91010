"""`python -m models check-trace SPEC FILE [--variant V] [--json OUT]`.

FILE is a JSON Lines log (`-` reads stdin) or an ITF trace (`*.itf.json`).
Exit codes: 0 the model accepts the log; 1 it rejects it (the report names
the step, the line, what was observed, what the model allows there and the
shortest model trace to the last consistent state); 2 the input is malformed
(the one-line error names the line and the field) or the command is wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from models.cli.registry import lookup
from models.kernel.itf import looks_like_itf, read_itf
from models.kernel.spec import Spec
from models.kernel.trace import Trace
from models.kernel.tracecheck import TraceInputError, check_trace, parse_jsonl


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
    p.add_argument("--json", type=Path, metavar="OUT", help="also write the verdict as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    spec = lookup(f"{args.spec}:{args.variant}" if args.variant else args.spec)
    started = time.perf_counter()
    try:
        if args.file == "-":
            text, path = sys.stdin.read(), Path("-")
        else:
            path = Path(args.file)
            text = path.read_text()
    except OSError as err:
        print(f"error: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"error: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        if looks_like_itf(path, text[:64]):
            log = read_itf(spec, text)
        else:
            log = parse_jsonl(spec, text.splitlines())
    except TraceInputError as err:
        print(f"error: {args.file}: {err}", file=sys.stderr)
        return 2
    verdict = check_trace(spec, log)
    seconds = time.perf_counter() - started
    for line in verdict.report():
        print(line)
    if verdict.ok:
        print(f"  checked in {seconds:.2f}s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps(verdict.to_json(), indent=2) + "\n")
        tmp.replace(args.json)
    return 0 if verdict.ok else 1


def itf_name(spec: Spec, check: str) -> str:
    """The file a check's trace is written to: `wave.seed.always-settles.itf.json`, say."""
    return f"{spec.name.replace(':', '.')}.{check}.itf.json"


def write_check_itf(spec: Spec, check: str, verdict: str, trace: Trace, path: Path) -> Path:
    from models.kernel.itf import write_itf

    what = {"witnessed": "witness", "violated": "counterexample"}.get(verdict, verdict)
    return write_itf(spec, trace, path, description=f"{spec.name} {check}: {what}")
