"""The command line: `verify`, `explain`, `diagram` and `list`.

Exit codes: 0 every verdict matched its expectation; 1 some check was
violated or unknown (or a diagram is stale); 2 the command was wrong (an
unknown spec or check name, a bad argument).
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from models import cli_mutants
from models.kernel.checks import Checker, CheckResult, SpecReport, verify
from models.kernel.diagram import DotMissing, render_svg, write_dot
from models.kernel.spec import Spec
from models.kernel.trace import render_trace, trace_json
from models.registry import UnknownSpec, all_specs, expand, lookup

CERT_WIDTH = 70


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UnknownSpec as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    except DotMissing as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m models", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    p = sub.add_parser("verify", help="run every check of the named specs (default: all)")
    p.add_argument("specs", nargs="*", metavar="SPEC", help="spec names, or SPEC:VARIANT")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the report as JSON")
    p.add_argument(
        "--method",
        choices=("spacer", "k-induction"),
        default="spacer",
        help="the unbounded engine for always/never (default: spacer)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="specs checked in parallel (default: one per CPU)",
    )
    p.set_defaults(run=_verify)

    p = sub.add_parser("explain", help="print one check's witness, counterexample or certificate")
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("check", metavar="CHECK")
    p.add_argument("--sources", action="store_true", help="cite each step's row source")
    p.add_argument("--method", choices=("spacer", "k-induction"), default="spacer")
    p.set_defaults(run=_explain)

    p = sub.add_parser("diagram", help="write each spec view's DOT (and SVG with --render)")
    p.add_argument("specs", nargs="*", metavar="SPEC")
    p.add_argument(
        "--out", type=Path, default=Path("diagrams"), help="directory (default: diagrams)"
    )
    p.add_argument("--check", action="store_true", help="fail if a committed .dot is stale")
    p.add_argument("--render", action="store_true", help="also render .svg with graphviz's dot")
    p.set_defaults(run=_diagram)

    cli_mutants.add_parser(sub)

    p = sub.add_parser("list", help="list the specs, their variants and their checks")
    p.set_defaults(run=_list)
    return parser


# ---------------------------------------------------------------- verify


@dataclass(frozen=True)
class Outcome:
    """One spec's verification, as printed and as reported (plain data, so it crosses processes)."""

    name: str
    text: str
    report: dict[str, Any]
    failures: list[str]
    checks: int


def _verify(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    specs = expand(args.specs)
    names = [spec.name for spec in specs]
    jobs = max(1, min(args.jobs, len(names)))
    outcomes: list[Outcome] = []
    if jobs == 1:
        outcomes = [_run_spec(name, args.method, stream=True) for name in names]
    else:
        # Specs are independent: check them in parallel, print each block in order.
        print(f"checking {len(names)} specs in {jobs} processes", flush=True)
        context = multiprocessing.get_context("fork")
        # Start the biggest specs first (rows × properties), so no process idles at the end.
        cost = {s.name: len(s.rows) * (len(s.properties) + 1) for s in specs}
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = {
                name: pool.submit(_run_spec, name, args.method)
                for name in sorted(names, key=lambda n: -cost[n])
            }
            for name in names:
                outcome = futures[name].result()
                print(outcome.text, end="", flush=True)
                outcomes.append(outcome)
    seconds = time.perf_counter() - started
    failures = [f for o in outcomes for f in o.failures]
    checks = sum(o.checks for o in outcomes)
    print()
    if not failures:
        print(f"verify: ok — {checks} checks on {len(outcomes)} specs in {seconds:.2f}s")
    else:
        print(
            f"verify: FAILED — {len(failures)} of {checks} checks did not match their expectation"
        )
        for text in failures:
            print(text)
    if args.json:
        report = {
            "ok": not failures,
            "seconds": round(seconds, 3),
            "specs": [o.report for o in outcomes],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if not failures else 1


def _run_spec(name: str, method: str, stream: bool = False) -> Outcome:
    spec = lookup(name)
    out: TextIO = sys.stdout if stream else io.StringIO()
    report = _verify_one(spec, method, out)
    failures = [
        f"  {spec.name} {c.id}: {c.verdict}, expected to {c.expected}. {c.detail}\n"
        f"    source: {c.cite}\n"
        f"    look:   python -m models explain {spec.name} {c.id}"
        for c in report.checks
        if not c.ok
    ]
    text = "" if stream else out.getvalue()  # type: ignore[attr-defined]
    return Outcome(spec.name, text, _spec_json(report), failures, len(report.checks))


def _verify_one(spec: Spec, method: str, stream: TextIO) -> SpecReport:
    stream.write(f"{spec.name} — {spec.source}\n")
    stream.flush()

    def line(check: CheckResult) -> None:
        stream.write(_check_line(check) + "\n")
        stream.flush()

    report = verify(spec, method=method, progress=line)  # type: ignore[arg-type]
    g = report.exploration
    stream.write(
        f"  {len(g.states)} reachable states (diameter {g.diameter}), {len(spec.rows)} rows, "
        f"explored in {g.seconds:.2f}s; spec checked in {report.seconds:.2f}s\n"
    )
    return report


def _check_line(check: CheckResult) -> str:
    if check.certificate:
        evidence = check.certificate
    elif check.trace is not None:
        evidence = f"trace of {len(check.trace)} steps"
    else:
        evidence = check.detail
    if len(evidence) > CERT_WIDTH:
        evidence = evidence[: CERT_WIDTH - 1] + "…"
    bound = "" if check.bound is None else f"k={check.bound}"
    mark = "" if check.ok else "  ✗"
    expect = " (expected: violate)" if check.expected == "violate" else ""
    return (
        f"  {check.kind:<10} {check.id:<38} {check.verdict:<9} {check.method:<11} "
        f"{bound:<5} {check.seconds:6.3f}s  {evidence}{expect}{mark}"
    )


def _spec_json(r: SpecReport) -> dict[str, Any]:
    return {
        "name": r.spec.name,
        "source": r.spec.source,
        "reachable_states": len(r.exploration.states),
        "rows": len(r.spec.rows),
        "checks": [
            {
                "id": c.id,
                "kind": c.kind,
                "verdict": c.verdict,
                "method": c.method,
                "bound": c.bound,
                "seconds": round(c.seconds, 4),
                "certificate": c.certificate,
                "expected": c.expected,
                "trace": None if c.trace is None else trace_json(r.spec, c.trace),
            }
            for c in r.checks
        ],
    }


# ---------------------------------------------------------------- explain


def _explain(args: argparse.Namespace) -> int:
    spec = lookup(args.spec)
    checker = Checker(spec, method=args.method)
    known = checker.check_ids()
    if args.check not in known:
        print(
            f"error: spec {spec.name!r} has no check {args.check!r}; "
            f"its checks: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    check = next(checker.run(args.check))
    what = {"witnessed": "witness", "violated": "counterexample"}.get(check.verdict, check.verdict)
    how = f"{check.method}" + ("" if check.bound is None else f", k={check.bound}")
    print(f"{check.kind.upper()} {check.id}: {check.verdict} ({how})")
    if check.cite:
        print(f"source: {check.cite}")
    try:
        doc = spec.prop(check.id).doc
    except KeyError:
        doc = ""
    if doc:
        print(doc)
    if check.trace is not None:
        print(f"{what}, {len(check.trace)} steps:")
        for text in render_trace(spec, check.trace, sources=args.sources):
            print(text)
    if check.certificate:
        print(f"certificate: {check.certificate}")
    if check.detail:
        print(check.detail)
    return 0 if check.ok else 1


# ---------------------------------------------------------------- diagram


def _diagram(args: argparse.Namespace) -> int:
    specs = [lookup(n) for n in args.specs] if args.specs else list(all_specs().values())
    stale = []
    for spec in specs:
        for path, text in write_dot(spec, args.out, dry_run=args.check).items():
            if args.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(path)
            else:
                print(f"wrote {path}")
            if args.render:
                svg = render_svg(text, path.with_suffix(".svg"))
                if not args.check:
                    print(f"wrote {svg}")
    if stale:
        for path in stale:
            print(f"stale diagram: {path} (run `make diagrams` and commit it)", file=sys.stderr)
        return 1
    if args.check:
        print("diagrams: up to date")
    return 0


# ---------------------------------------------------------------- list


def _list(args: argparse.Namespace) -> int:
    for name, spec in all_specs().items():
        print(f"{name}: {spec.source} — {len(spec.rows)} rows, {len(spec.properties)} properties")
        for variant in spec.variants:
            print(f"  {name}:{variant.name} (violates {', '.join(variant.violates)})")
    return 0
