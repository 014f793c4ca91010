"""The command line, `python -m models`: `verify`, `explain` and `list` here; `diagram`
(diagram.py), `report` (report.py), `check-trace` (trace.py), `mutants` (mutants.py),
`promela`, `spin` and `spin-trail` (spin.py). `models.cli.kit` holds the shared error handling
and the output files.

Exit codes, the same for every command:
  0    every verdict matched its expectation
  1    a check was violated or unknown, a spec's checks stopped, a spec module
       is broken, a diagram is stale, or the output pipe closed early
  2    a usage or input error: an unknown spec or check, a bad flag or value,
       an output path that cannot be written
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import TextIO

from models.cli import cache
from models.cli import mutants as cli_mutants
from models.cli.diagram import add_diagram
from models.cli.diff import add_diff
from models.cli.kit import TRACEBACK_FLAG
from models.cli.kit import Output
from models.cli.kit import add_jobs
from models.cli.kit import clip
from models.cli.kit import output_dir
from models.cli.kit import output_file
from models.cli.kit import positive_seconds
from models.cli.kit import process_pool
from models.cli.kit import result_of
from models.cli.kit import run
from models.cli.registry import Broken
from models.cli.registry import BrokenSpec
from models.cli.registry import UnknownSpec
from models.cli.registry import expand
from models.cli.registry import load
from models.cli.registry import lookup
from models.cli.registry import one_line
from models.cli.report import add_report
from models.cli.results import spec_json
from models.cli.spin import add_parsers as add_spin_parsers
from models.cli.trace import add_parser as add_check_trace
from models.cli.trace import check_itf
from models.cli.trace import itf_name
from models.cli.trace import write_check_itf
from models.kernel.checks import DEFAULT_CERTIFICATE_BUDGET
from models.kernel.checks import DEFAULT_TIMEOUT
from models.kernel.checks import Checker
from models.kernel.checks import CheckResult
from models.kernel.checks import SpecReport
from models.kernel.checks import verify
from models.kernel.diagram import DotMissing
from models.kernel.explore import ExplorationLimit
from models.kernel.oracle import OracleError
from models.kernel.printer import show
from models.kernel.readable import read_certificate
from models.kernel.readable import why
from models.kernel.spec import Spec
from models.kernel.trace import plural
from models.kernel.trace import render_trace
from models.kernel.trace import state_count

CERT_WIDTH = 70


def main(argv: Sequence[str] | None = None) -> int:
    return run(
        _parser(),
        argv,
        input_errors=(UnknownSpec, BrokenSpec, DotMissing, OracleError),
        # Too big to explore is a check that could not finish, not a mistake in the command.
        check_errors=(ExplorationLimit,),
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m models",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        TRACEBACK_FLAG, action="store_true", help="on an error, also print the Python traceback"
    )
    sub = parser.add_subparsers(required=True, metavar="COMMAND", dest="command")

    p = sub.add_parser("verify", help="run every check of the named specs (default: all)")
    p.add_argument("specs", nargs="*", metavar="SPEC", help="spec names, or SPEC:VARIANT")
    p.add_argument(
        "--json",
        type=output_file,
        metavar="FILE",
        help="also write the report as JSON (`-`: to standard output, the text to standard error)",
    )
    p.add_argument(
        "--method",
        choices=("spacer", "k-induction"),
        default="spacer",
        help="the unbounded engine for always/never (default: spacer)",
    )
    add_jobs(p, "specs checked in parallel")
    p.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="S",
        help="z3's budget per check in seconds; past it a check of a spec with a real variable "
        "is `unknown`, and a finite model's verdict stands on its exhaustive search "
        f"(default: {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--certificates",
        type=positive_seconds,
        nargs="?",
        const=math.inf,
        default=DEFAULT_CERTIFICATE_BUDGET,
        metavar="S",
        help="z3's budget per check for a finite model's optional inductive certificate; "
        "alone: the whole --timeout (default: "
        f"{DEFAULT_CERTIFICATE_BUDGET:g})",
    )
    p.add_argument(
        "--itf-dir", type=output_dir, metavar="DIR", help="write every trace as ITF here"
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="check every spec again, whatever the result cache holds (models/cli/cache.py)",
    )
    p.set_defaults(run=_verify)

    p = sub.add_parser("explain", help="print one check's witness, counterexample or certificate")
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("check", metavar="CHECK")
    p.add_argument("--sources", action="store_true", help="cite each step's row source")
    p.add_argument("--full", action="store_true", help="print a certificate as z3 gave it")
    p.add_argument("--method", choices=("spacer", "k-induction"), default="spacer")
    p.add_argument("--itf", type=output_file, metavar="FILE", help="also write the trace as ITF")
    p.set_defaults(run=_explain)

    add_diagram(sub)
    add_report(sub)
    add_diff(sub)

    add_check_trace(sub)

    cli_mutants.add_parser(sub)

    p = sub.add_parser("list", help="list the specs, their variants and how many properties")
    p.set_defaults(run=_list)
    add_spin_parsers(sub)
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
    stopped: bool = False  # the checks stopped on an error (the failure says which)
    cached: bool = False  # replayed from the result cache, not checked in this run

    def shown(self) -> str:
        """The text to print: a cached outcome says so."""
        if not self.cached:
            return self.text
        return self.text + f"  (cached: nothing {self.name}'s checks read has changed)\n"

    def stored(self) -> dict[str, Any]:
        """What the cache keeps: the fields of a run outcome."""
        return {
            "name": self.name,
            "text": self.text,
            "report": self.report,
            "failures": self.failures,
            "checks": self.checks,
        }


def _cache_key(name: str, args: argparse.Namespace) -> str:
    """What a spec's checks read: its module and the kernel, and how verify was asked."""
    deps = [*cache.KERNEL, *cache.spec_modules(name)]
    budgets = (args.timeout, args.certificates)
    return cache.key(f"verify-{name}", deps, (), args.method, repr(budgets))


def _verify(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    broken, specs = _selected(args.specs)
    to_stdout = args.json is not None and args.json.to_stdout
    text: TextIO = sys.stderr if to_stdout else sys.stdout  # stdout carries only the JSON then
    for b in broken:
        text.write(f"{b.module} — BROKEN: models/{b.module}.py: {b.error}\n")
        if args.traceback:
            text.write(b.traceback)
    outcomes = _check_all(specs, args, text)
    seconds = time.perf_counter() - started
    failures = [
        f"  models/{b.module}.py: {b.error}\n"
        f"    look:   python -m models verify {b.module} --traceback"
        for b in broken
    ] + [f for o in outcomes for f in o.failures]
    text.write("\n")
    text.write(_verdict_line(broken, outcomes, failures, seconds))
    for failure in failures:
        text.write(failure + "\n")
    if args.itf_dir:
        text.write(f"every witness and counterexample written as ITF to {args.itf_dir}/\n")
    text.flush()
    if args.json is not None:
        report = {
            "ok": not failures,
            "seconds": round(seconds, 3),
            "specs": [o.report for o in outcomes],
            "broken": [{"module": b.module, "error": b.error} for b in broken],
        }
        args.json.write(json.dumps(report, indent=2) + "\n")
    return 0 if not failures else 1


def _selected(asked: Sequence[str]) -> tuple[list[Broken], list[Spec]]:
    """The broken modules among those asked for (all, when none is named) and the specs.
    A broken module fails as a spec of its own; the others are still checked."""
    registry = load()
    broken = [
        registry.broken[n]
        for n in (asked or registry.broken)
        if n not in registry.specs and n in registry.broken
    ]
    named = [n for n in asked if n not in registry.broken or n in registry.specs]
    return broken, expand(named, registry) if named or not asked else []


def _check_all(specs: Sequence[Spec], args: argparse.Namespace, text: TextIO) -> list[Outcome]:
    """Every spec's checks, in order; in `--jobs` processes when there are several. A spec's
    passing outcome is cached under a hash of all its checks read (cache.py); ITF files are
    written only by a run."""
    names = [spec.name for spec in specs]
    use_cache = cache.enabled(args.no_cache)
    # A key hashes every file the spec reads: with the cache off, no key is worth its cost.
    keys = {n: _cache_key(n, args) for n in names} if use_cache and not args.itf_dir else {}
    cached = {
        n: Outcome(**stored, cached=True)
        for n, k in keys.items()
        if use_cache and (stored := cache.get(f"verify-{n}", k)) is not None
    }
    to_run = [n for n in names if n not in cached]
    jobs = max(1, min(args.jobs, len(to_run)))
    run = (args.method, (args.timeout, args.certificates))
    outcomes: list[Outcome] = []
    if jobs == 1:
        for name in names:
            if name in cached:
                text.write(cached[name].shown())
                outcomes.append(cached[name])
            else:
                outcomes.append(_run_spec(name, *run, text, args.traceback, args.itf_dir))
    else:
        # Specs are independent: check them in parallel, print each block in order.
        text.write(f"checking {plural(len(to_run), 'spec')} in {jobs} processes\n")
        text.flush()
        # Start the biggest specs first (rows × properties), so no process idles at the end.
        cost = {s.name: len(s.rows) * (len(s.properties) + 1) for s in specs}
        with process_pool(jobs) as pool:
            futures = {
                name: pool.apply_async(_run_spec, (name, *run, None, args.traceback, args.itf_dir))
                for name in sorted(to_run, key=lambda n: -cost[n])
            }
            for name in names:
                outcome = cached[name] if name in cached else result_of(futures[name])
                text.write(outcome.shown())
                text.flush()
                outcomes.append(outcome)
    for o in outcomes:
        if not o.cached and not o.failures and o.name in keys:
            cache.put(f"verify-{o.name}", keys[o.name], o.stored())
    return outcomes


def _verdict_line(
    broken: Sequence[Broken], outcomes: Sequence[Outcome], failures: Sequence[str], seconds: float
) -> str:
    """`verify: ok — …` or `verify: FAILED — …`, counting what failed and why."""
    checks = sum(o.checks for o in outcomes)
    if not failures:
        reused = sum(o.cached for o in outcomes)
        return (
            f"verify: ok — {plural(checks, 'check')} on {plural(len(outcomes), 'spec')} "
            f"in {seconds:.2f}s" + (f" ({reused} of them cached)" if reused else "") + "\n"
        )
    wrong = sum(len(o.failures) for o in outcomes if not o.stopped)
    stopped = sum(o.stopped for o in outcomes)
    parts = [f"{plural(len(broken), 'spec module')} broken"] if broken else []
    if stopped:
        parts.append(f"{plural(stopped, 'spec')} stopped on an error")
    their = "its" if checks == 1 else "their"
    if wrong:
        parts.append(f"{wrong} of {plural(checks, 'check')} did not match {their} expectation")
    else:
        parts.append(f"the other {plural(checks, 'check')} matched {their} expectation")
    return f"verify: FAILED — {'; '.join(parts)}\n"


def _run_spec(
    name: str,
    method: str,
    budgets: tuple[float, float],
    stream: TextIO | None = None,
    show_traceback: bool = False,
    itf_dir: Path | None = None,
) -> Outcome:
    spec = lookup(name)
    out = _Tee(stream)
    try:
        report = _verify_one(spec, method, budgets, out)
    except Exception as err:  # a spec the kernel cannot check fails alone; the others go on
        # Too big to explore is a limit, not a kernel bug: its message is enough.
        reason = str(err) if isinstance(err, ExplorationLimit) else one_line(err)
        out.write(f"  error: the checks stopped: {reason}\n")
        failure = (
            f"  {spec.name}: the checks stopped: {reason}\n"
            f"    look:   python -m models verify {spec.name} --jobs 1 --traceback"
        )
        if show_traceback:
            traceback.print_exception(err, file=sys.stderr)
        report_json = {"name": spec.name, "source": spec.source, "error": reason}
        return Outcome(spec.name, out.getvalue(), report_json, [failure], 0, stopped=True)
    if itf_dir is not None:
        for c in report.checks:
            if c.trace is not None:
                path = itf_dir / itf_name(spec, c.id)
                write_check_itf(spec, c.id, c.verdict, c.trace, path, c.loop)
    failures = [
        f"  {spec.name} {c.id}: {c.verdict}, expected to {c.expected}. {c.detail}\n"
        f"    source: {c.cite}\n"
        f"    look:   python -m models explain {spec.name} {c.id}"
        for c in report.checks
        if not c.ok
    ]
    return Outcome(spec.name, out.getvalue(), spec_json(report), failures, len(report.checks))


class _Tee(io.StringIO):
    """Keeps what is written (for the outcome and the cache), and passes it on to `also`."""

    def __init__(self, also: TextIO | None) -> None:
        super().__init__()
        self.also = also

    def write(self, text: str) -> int:
        if self.also is not None:
            self.also.write(text)
        return super().write(text)

    def flush(self) -> None:
        if self.also is not None:
            self.also.flush()


def _verify_one(
    spec: Spec, method: str, budgets: tuple[float, float], stream: TextIO
) -> SpecReport:
    stream.write(f"{spec.name} — {spec.source}\n")
    stream.flush()

    def line(check: CheckResult) -> None:
        stream.write(_check_line(spec, check) + "\n")
        stream.flush()

    timeout, certificates = budgets  # z3's budget per check; a finite model's certificate's
    report = verify(
        spec,
        method=method,  # type: ignore[arg-type]
        progress=line,
        timeout=timeout,
        certificates=certificates,
    )
    g = report.exploration
    stream.write(
        f"  {state_count(spec, g.states)} (diameter {g.diameter}), "
        f"{plural(len(spec.rows), 'row')}, explored in {g.seconds:.2f}s; "
        f"spec checked in {report.seconds:.2f}s\n"
    )
    return report


def _check_line(spec: Spec, check: CheckResult) -> str:
    cert = read_certificate(spec, check.certificate or "")
    # An exhaustive basis comes first; a certificate, when z3 found one, follows it.
    searched = f"exhaustive, {check.states:,} states + " if check.basis == "exhaustive" else ""
    if check.basis == "exhaustive" and not check.certificate:
        evidence = check.basis_text
    elif cert is not None:
        evidence = searched + cert.one_line()
    elif check.certificate:
        evidence = searched + check.certificate
    elif check.loop is not None:
        evidence = check.basis_text  # the lasso: its length and where it loops back
    elif check.trace is not None:
        evidence = f"trace of {plural(len(check.trace), 'step')}"
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


# ---------------------------------------------------------------- explain


def _explain(args: argparse.Namespace) -> int:
    if args.itf is None or not args.itf.to_stdout:
        return _explain_to(args, args.itf)
    # `--itf -`: standard output carries only the ITF, the explanation goes to standard error.
    written: list[str] = []
    with contextlib.redirect_stdout(sys.stderr):
        code = _explain_to(args, written)
    args.itf.write("".join(written))
    return code


def _explain_to(args: argparse.Namespace, itf: Output | list[str] | None) -> int:
    spec = lookup(args.spec)
    # Explaining one check is asking for its evidence: the certificate gets the whole budget.
    checker = Checker(spec, method=args.method, certificates=math.inf)
    known = checker.check_ids()
    if args.check not in known:
        print(
            f"error: spec {spec.name!r} has no check {clip(args.check)!r}; "
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
    if check.basis_text:
        print(f"basis: {check.basis_text}")
    prop = next((p for p in spec.properties if p.name == check.id), None)
    if prop is not None:
        print(f"property: {show(spec, prop.as_written)}")
        if prop.doc:
            print(prop.doc)
    live = next((p for p in spec.liveness if p.name == check.id), None)
    if live is not None:
        then = "" if live.then is None else f" ~> {show(spec, live.then)}"
        print(f"property: {live.kind} {show(spec, live.pred)}{then}")
        if live.doc:
            print(live.doc)
    if check.trace is not None:
        print(f"{what}, {plural(len(check.trace), 'step')}:")
        for text in render_trace(spec, check.trace, sources=args.sources):
            print(text)
        if check.loop is not None:
            print(
                f"    then stutters forever at step {check.loop}"
                if check.loop == len(check.trace)
                else f"    loop back to step {check.loop}, forever"
            )
        reason = why(spec, prop, check.trace) if prop and check.verdict == "violated" else None
        if reason:
            print(reason)
        if isinstance(itf, list):
            itf.append(check_itf(spec, check.id, check.verdict, check.trace, check.loop))
        elif itf is not None:
            itf.write(check_itf(spec, check.id, check.verdict, check.trace, check.loop))
            print(f"wrote {itf}")
    elif itf is not None:
        print(f"no ITF written: {check.id} has no trace ({check.verdict})", file=sys.stderr)
    if check.certificate:
        cert = None if args.full else read_certificate(spec, check.certificate)
        for line in cert.lines() if cert else [f"certificate: {check.certificate}"]:
            print(line)
    if check.detail:
        print(check.detail)
    return 0 if check.ok else 1


# ---------------------------------------------------------------- list


def _list(args: argparse.Namespace) -> int:
    registry = load()
    for name, spec in registry.specs.items():
        print(
            f"{name}: {spec.source} — {plural(len(spec.rows), 'row')}, "
            f"{plural(len(spec.properties), 'property', 'properties')}"
        )
        for variant in spec.variants:
            print(f"  {name}:{variant.name} (violates {', '.join(variant.violates)})")
    for b in registry.broken.values():
        print(f"{b.module}: BROKEN — models/{b.module}.py: {b.error}")
        if args.traceback:
            print(b.traceback, end="", file=sys.stderr)
    return 1 if registry.broken else 0
