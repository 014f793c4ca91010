"""The SPIN commands: `promela` (export), `spin` (check and compare), `spin-trail` (read back).

`python -m models promela SPEC [--variant V] [-o FILE]` prints or writes the
spec's Promela model. `python -m models spin [SPEC ...]` runs SPIN's
exhaustive search on the specs (default: all, variants included) and compares
it with the explorer: states, every property's verdict and every trail;
`--explain CHECK` prints SPIN's trail for one property as numbered steps;
`--full` also decides `no-deadlock` and every liveness property with SPIN (each
its own export and compile) and compares them with `verify`'s checks;
`--json OUT` also writes each spec's agreement (the report's summary reads
reports/spin.json).
`python -m models spin-trail SPEC TRAIL` translates a trail from your own pan
run of the exported model (multi-core, swarm) into numbered steps.

Exit codes: 0 SPIN agrees (or the command did its job); 1 SPIN disagrees with
the explorer, or a trail is an `always`/`never` counterexample; 2 a usage or input error,
or SPIN/gcc missing or failing.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait
from functools import partial
from pathlib import Path
from typing import Any

from models.cli.kit import Output
from models.cli.kit import output_file
from models.cli.kit import positive_int
from models.cli.kit import settled
from models.cli.registry import expand
from models.cli.registry import lookup
from models.kernel.checks import Checker
from models.kernel.explore import explore
from models.kernel.promela import PromelaError
from models.kernel.promela import export
from models.kernel.spec import Spec
from models.kernel.spin import CACHE
from models.kernel.spin import SpinBeyond
from models.kernel.spin import SpinError
from models.kernel.spin import SpinResult
from models.kernel.spin import disagreements
from models.kernel.spin import read_trail
from models.kernel.spin import run_spin
from models.kernel.spin import spin_beyond
from models.kernel.trace import plural
from models.kernel.trace import render_trace


def add_parsers(sub: Any) -> None:
    """Register the three commands on `python -m models`'s subparsers."""
    p = sub.add_parser("promela", help="export a spec as a Promela model for SPIN")
    p.add_argument("spec", metavar="SPEC", help="a spec name, or SPEC:VARIANT")
    p.add_argument("--variant", metavar="V", help="export this variant of SPEC")
    p.add_argument(
        "-o", "--output", type=output_file, metavar="FILE", help="write here (default, -: stdout)"
    )
    p.set_defaults(run=_promela)

    p = sub.add_parser("spin", help="check the specs with SPIN and compare with the explorer")
    p.add_argument("specs", nargs="*", metavar="SPEC", help="spec names, or SPEC:VARIANT")
    p.add_argument("--explain", metavar="CHECK", help="print SPIN's trail for this property")
    p.add_argument(
        "--full",
        action="store_true",
        help="also decide no-deadlock and every liveness property with SPIN (each its own "
        "export and compile) and compare them with verify's checks",
    )
    p.add_argument("--jobs", type=positive_int, default=2, help="specs run at once (default: 2)")
    p.add_argument("--no-cache", action="store_true", help=f"recompile pan (cache: {CACHE})")
    p.add_argument(
        "--json",
        type=output_file,
        metavar="OUT",
        help="also write each spec's agreement as JSON (the report's summary reads "
        "reports/spin.json)",
    )
    p.set_defaults(run=_spin)

    p = sub.add_parser("spin-trail", help="print a pan trail of an exported spec as steps")
    p.add_argument("spec", metavar="SPEC")
    p.add_argument("trail", type=Path, metavar="TRAIL", help="the .trail file pan wrote")
    p.add_argument(
        "--model",
        type=Path,
        metavar="FILE",
        help="the exported model (default: TRAIL's name up to .pml)",
    )
    p.add_argument("--sources", action="store_true", help="cite each step's row source")
    p.set_defaults(run=_spin_trail)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _promela(args: argparse.Namespace) -> int:
    spec = lookup(f"{args.spec}:{args.variant}" if args.variant else args.spec)
    try:
        text = export(spec).text
    except PromelaError as err:
        return _fail(f"{spec.name} has no Promela form: {err}")
    output: Output = args.output or Output("-")
    output.write(text)
    if not output.to_stdout:
        print(f"wrote {output} ({len(text.splitlines())} lines)")
    return 0


def _spin(args: argparse.Namespace) -> int:
    specs = expand(args.specs)
    if args.explain:
        if len(args.specs) != 1:
            return _fail("--explain needs exactly one SPEC")
        specs = [lookup(args.specs[0])]
        if args.explain not in {p.name for p in specs[0].properties}:
            known = ", ".join(p.name for p in specs[0].properties)
            return _fail(f"spec {specs[0].name!r} has no property {args.explain!r}; its: {known}")
    cache = None if args.no_cache else CACHE

    def one(spec: Spec) -> tuple[SpinResult, SpinBeyond | None, list[str]]:
        result = run_spin(spec, cache=cache)
        wrong = disagreements(spec, result, explore(spec))
        if not args.full:
            return result, None, wrong
        return result, spin_beyond(spec, cache=cache), wrong

    failures: list[str] = []
    checked = 0
    agreement: list[dict[str, Any]] = []
    # gcc and pan are subprocesses: threads are enough to keep two cores busy.
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = [pool.submit(one, spec) for spec in specs]
        for spec, future in zip(specs, futures, strict=True):
            settled(partial(wait, [future]), future.done)
            result, beyond, wrong = future.result()
            if beyond is not None:
                wrong += _beyond_disagreements(spec, beyond)
            _print_result(spec, result, beyond, wrong)
            failures += wrong
            checked += len(result.verdicts) + (len(beyond.verdicts) if beyond else 0)
            agreement.append(_agreement(spec, result, wrong))
    except PromelaError as err:
        return _fail(f"no Promela form: {err}")
    except SpinError as err:
        return _fail(str(err))
    finally:
        # On a Ctrl-C or an error no search starts; one under way ends with its own SIGINT
        # (a terminal sends it to gcc and pan too).
        pool.shutdown(wait=False, cancel_futures=True)
    if args.explain:
        verdict = result.verdicts[args.explain]
        print(f"\n{args.explain}: {verdict.verdict} by SPIN")
        if verdict.trace is None:
            print("no trail: SPIN found no state or step where it fails")
        else:
            for line in render_trace(specs[0], verdict.trace, sources=True):
                print(line)
    print()
    if args.json is not None:
        args.json.write(json.dumps({"specs": agreement}, indent=2) + "\n")
    if failures:
        print(f"spin: DISAGREES with the explorer in {len(failures)} places:")
        for text in failures:
            print(f"  {text}")
        return 1
    what = "verdicts (properties, no-deadlock, liveness)" if args.full else "properties"
    print(f"spin: agrees with the explorer on {len(specs)} specs and {checked} {what}")
    return 0


def _agreement(spec: Spec, result: SpinResult, wrong: list[str]) -> dict[str, Any]:
    """One spec's line of --json: states, properties, and where SPIN disagrees."""
    summary = (
        f"agrees: {result.states} states, {plural(len(result.verdicts), 'property', 'properties')}"
        if not wrong
        else f"DISAGREES in {plural(len(wrong), 'place')}"
    )
    return {
        "name": spec.name,
        "states": result.states,
        "properties": len(result.verdicts),
        "disagreements": wrong,
        "summary": summary,
    }


def _beyond_disagreements(spec: Spec, beyond: SpinBeyond) -> list[str]:
    """`verify`'s checks of the same names, run here, in the main thread: z3 is not safe
    to share between the pool's threads."""
    checker = Checker(spec)
    ours = {name: next(checker.run(name)).verdict for name in beyond.verdicts}
    return [
        f"{spec.name} {name}: SPIN says {said}, verify {ours[name]}"
        for name, said in beyond.verdicts.items()
        if said != ours[name]
    ]


def _print_result(
    spec: Spec, result: SpinResult, beyond: SpinBeyond | None, wrong: list[str]
) -> None:
    s = result.seconds
    how = "cached pan" if result.cached else f"spin -a {s.spin:.2f}s, gcc {s.gcc:.2f}s"
    print(
        f"{spec.name}: {result.states} states (pan stored {result.stored} less the setup state), "
        f"{result.transitions} transitions; {how}, pan {s.pan:.2f}s, trails {s.trails:.2f}s",
        flush=True,
    )
    for prop in spec.properties:
        v = result.verdicts[prop.name]
        trail = "" if v.trace is None else f"trail of {plural(len(v.trace), 'step')}"
        mark = "  ✗" if any(f" {prop.name}:" in w for w in wrong) else ""
        print(f"  {prop.kind:<10} {prop.name:<40} {v.verdict:<9} {trail}{mark}")
    if beyond is None or not beyond.verdicts:
        return
    b = beyond.seconds
    print(f"  then spin -a {b.spin:.2f}s, gcc {b.gcc:.2f}s, pan {b.pan:.2f}s for:")
    for name, said in beyond.verdicts.items():
        kind = "structural" if name == "no-deadlock" else str(spec.live(name).kind)
        mark = "  ✗" if any(f" {name}:" in w for w in wrong) else ""
        print(f"  {kind:<10} {name:<40} {said:<9}{mark}")


def _spin_trail(args: argparse.Namespace) -> int:
    spec = lookup(args.spec)
    trail: Path = args.trail
    # pan names a trail after the model: m.pml.trail, or m.pml.cpu1_trail from a multi-core run.
    stem, dot, _ = trail.name.partition(".pml")
    model: Path = args.model or trail.with_name(stem + dot if dot else trail.stem)
    for path in (trail, model):
        if not path.is_file():
            return _fail(f"{path} does not exist")
    try:
        trace, broken = read_trail(spec, model, trail)
    except (SpinError, PromelaError) as err:
        return _fail(str(err))
    except UnicodeDecodeError:
        return _fail(f"{model} or {trail} is not text: name the exported .pml and its .trail")
    if not broken:
        print(f"{spec.name}: the trail ends where no property fails, {len(trace)} steps:")
    for name in broken:
        prop = spec.prop(name)
        meaning = "a witness of" if prop.kind == "sometimes" else "a counterexample to"
        print(f"{spec.name}: SPIN's trail is {meaning} {prop.kind} {name} ({prop.cite})")
    if broken:
        print(f"{len(trace)} steps:")
    for line in render_trace(spec, trace, sources=args.sources):
        print(line)
    fails = [n for n in broken if spec.prop(n).kind != "sometimes"]
    return 1 if fails else 0
