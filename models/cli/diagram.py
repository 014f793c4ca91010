"""`python -m models diagram`: draw the specs, check the committed drawings, overlay a trace.

    diagram [SPEC ...] [--render] [--check]        every view to diagrams/ (.dot, .mmd, .svg)
    diagram SPEC [--variant V] [--view VIEW] [--trace CHECK]
                 [--format dot|svg|png|mermaid] [-o FILE]   one picture, to FILE or stdout

The side panel's verdicts come from `models/cli/results.py`: the fresh
reports/verify.json of the last `make verify`, or the checks run now.
`--trace CHECK` runs that one check and draws its witness or counterexample as
a numbered path over the whole view (a view drawn in parts, wave's two halves, is
one picture here); a variant's counterexample is drawn over the variant's rows,
and a lasso's loop is dashed, its last step labelled `↺ to step k`. A system's
(compose.py) trace is a message-sequence chart instead, a lifeline per
component: Mermaid `sequenceDiagram` by default, or `--format svg`.
Exit codes: 0 written (or up to date), 1 a committed drawing is stale, 2 a wrong
command (unknown spec, variant, view or check, or a check with no trace).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.cli.kit import Beside
from models.cli.kit import Output
from models.cli.kit import UsageError
from models.cli.kit import add_jobs
from models.cli.kit import clip
from models.cli.kit import forked_map
from models.cli.kit import output_dir
from models.cli.kit import output_file
from models.cli.registry import load as load_specs
from models.cli.registry import lookup
from models.cli.results import findings
from models.cli.results import load
from models.kernel.checks import Checker
from models.kernel.diagram import Mark
from models.kernel.diagram import Picture
from models.kernel.diagram import dot_source
from models.kernel.diagram import overlay
from models.kernel.diagram import picture
from models.kernel.diagram import pictures
from models.kernel.diagram import render
from models.kernel.diagram import trace_marks
from models.kernel.diagram import views
from models.kernel.diagram import write
from models.kernel.explore import Exploration
from models.kernel.mermaid import mermaid_source
from models.kernel.mermaid import sequence_source
from models.kernel.readable import why
from models.kernel.sequence import chart
from models.kernel.sequence import sequence_svg
from models.kernel.spec import Spec
from models.kernel.trace import Trace
from models.kernel.trace import plural

FORMATS = ("dot", "svg", "png", "mermaid")


class Refused(UsageError):
    """A diagram command that cannot be carried out as asked (exit 2)."""


def add_diagram(sub: Any) -> None:
    p = sub.add_parser(
        "diagram",
        help="draw each spec view (DOT, Mermaid, SVG), or one picture with a trace",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("specs", nargs="*", metavar="SPEC")
    p.add_argument("--variant", metavar="V", help="draw the spec's faulty variant V")
    p.add_argument("--view", metavar="VIEW", help="one view of a spec with several (duplex: audio)")
    p.add_argument("--trace", metavar="CHECK", help="draw CHECK's witness or counterexample")
    p.add_argument("--format", choices=FORMATS, help="one picture in this format")
    p.add_argument("-o", "--output", type=output_file, metavar="FILE", help="one picture to FILE")
    p.add_argument(
        "--out", type=output_dir, default="diagrams", help="directory (default: diagrams)"
    )
    p.add_argument("--check", action="store_true", help="fail if a committed .dot/.mmd is stale")
    p.add_argument("--render", action="store_true", help="also render .svg with graphviz's dot")
    add_jobs(p, "processes drawing the specs; the drawings are the same for any number")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # A refusal and an OS error on a file are one-line exit-2 errors (models/cli/kit.py).
    if args.variant or args.view or args.trace or args.format or args.output:
        return _one(args)
    return _all(args)


def _all(args: argparse.Namespace) -> int:
    registry = load_specs()
    # A broken spec module is reported, and the other specs are still drawn (exit 1).
    broken = [b for m, b in registry.broken.items() if not args.specs or m in args.specs]
    named = [n for n in args.specs if n.partition(":")[0] not in registry.broken]
    if args.specs and not named:
        specs = []
    else:
        specs = [lookup(n, registry) for n in named] if named else list(registry.specs.values())
    for b in broken:
        print(f"error: models/{b.module}.py is broken, not drawn: {b.error}", file=sys.stderr)
    results, origin = load(specs)

    def drawn(spec: Spec) -> list[_Drawing]:
        pics = pictures(spec, findings(results[spec.name]))
        # graphviz lays each picture out beside, while the next is drawn.
        svgs = [Beside(render, dot_source(pic), "svg") if args.render else None for pic in pics]
        return [
            _Drawing(
                pic.name,
                dot_source(pic),
                mermaid_source(pic),
                None if svg is None else svg.result(),
            )
            for pic, svg in zip(pics, svgs, strict=True)
        ]

    every = [
        d for now in forked_map(drawn, specs, args.jobs, cost=lambda s: len(s.rows)) for d in now
    ]
    stale: list[Path] = []
    for d in every:
        files = {args.out / f"{d.name}.dot": d.dot, args.out / f"{d.name}.mmd": d.mermaid}
        for path, text in files.items():
            if args.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(path)
            else:
                write(path, text)
                print(f"wrote {path}")
    for d in every:
        if d.svg is not None:
            write(args.out / f"{d.name}.svg", d.svg)
            if not args.check:
                print(f"wrote {args.out / f'{d.name}.svg'}")
    orphans: list[Path] = []
    if args.check and not args.specs:
        # A drawing no spec draws any more (a renamed or split view) is stale too.
        names = {f"{d.name}.{ext}" for d in every for ext in ("dot", "mmd")}
        found = (p for ext in ("dot", "mmd") for p in sorted(args.out.glob(f"*.{ext}")))
        orphans = [p for p in found if p.name not in names]
    if stale or orphans:
        for path in stale:
            print(f"stale diagram: {path} (run `make diagrams` and commit it)", file=sys.stderr)
        for path in orphans:
            print(f"stale diagram: {path} (no spec draws it: delete it)", file=sys.stderr)
        return 1
    if args.check:
        print(f"diagrams: up to date (verdicts: {origin})")
    return 1 if broken else 0


@dataclass(frozen=True)
class _Drawing:
    """One view's files, as text: what a drawing process hands back."""

    name: str
    dot: str
    mermaid: str
    svg: bytes | None


def _one(args: argparse.Namespace) -> int:
    if len(args.specs) != 1:
        raise Refused("--variant, --view, --trace, --format and -o draw one spec: name exactly one")
    name = args.specs[0] + (f":{args.variant}" if args.variant else "")
    spec = lookup(name)
    fmt = _format_of(args.output, args.format)
    results, _ = load([spec])
    found = findings(results[spec.name])
    title = ""
    path: list[Mark] | None = None
    loop: int | None = None
    graph: Exploration | None = None
    if args.trace:
        trace, title, loop, graph = _trace(spec, args.trace)
        if spec.system is not None:
            return _sequence(args, spec, trace, title)
        path = trace_marks(spec, trace)
    view = (
        args.view
        if args.view is not None
        else _view_of(spec, path_init=trace.init if args.trace else None)
    )
    if view not in views(spec):
        known = ", ".join(v for v in views(spec) if v) or "none"
        raise Refused(f"spec {spec.name!r} has no view {view!r} (its views: {known})")
    # The whole view (one picture, even if split), on the checks' exploration when they ran.
    pic = picture(spec, view, graph, findings=found)
    if path is not None:
        pic = overlay(pic, path, title, loop)
    data = _format(pic, fmt)
    (args.output or Output("-")).write(data)
    if args.output is not None and not args.output.to_stdout:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _sequence(args: argparse.Namespace, spec: Spec, trace: Trace, title: str) -> int:
    """A system's trace as a message-sequence chart (sequence.py): Mermaid by default, or
    SVG; a state picture has no one place for a step that moves several machines."""
    to_stdout = args.output is None or args.output.to_stdout
    fmt = _format_of(args.output, args.format or ("mermaid" if to_stdout else None))
    if fmt not in ("mermaid", "svg"):
        raise Refused(
            f"{spec.name!r} is a system: its trace is a sequence chart, drawn as mermaid or svg"
        )
    prop = next((p for p in spec.properties if p.name == args.trace), None)
    fails = why(spec, prop, trace) if prop is not None and title.startswith("counter") else None
    drawn = chart(spec, trace, f"{spec.name}: {title}", fails or "")
    data = sequence_source(drawn) if fmt == "mermaid" else sequence_svg(drawn)
    (args.output or Output("-")).write(data)
    if not to_stdout:
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


SUFFIXES = {"dot": "dot", "gv": "dot", "svg": "svg", "png": "png", "mmd": "mermaid"}


def _format_of(output: Output | None, asked: str | None) -> str:
    """The format: `--format`, else the file's extension; a mismatch is refused."""
    if output is None or output.to_stdout:
        return asked or "dot"
    suffix = output.path.suffix.lstrip(".").lower()
    implied = SUFFIXES.get(suffix)
    if asked is not None and implied not in (None, asked):
        raise Refused(f"--format {asked} does not match {output} (a .{suffix} file is {implied})")
    if asked is None and implied is None:
        known = ", ".join(f".{s}" for s in SUFFIXES)
        raise Refused(
            f"cannot tell the format of {clip(str(output))}: name it {known}, or give --format"
        )
    return asked or implied or "dot"


def _format(pic: Picture, fmt: str) -> str | bytes:
    if fmt == "mermaid":
        return mermaid_source(pic)
    source = dot_source(pic)
    return source if fmt == "dot" else render(source, fmt)


def _trace(spec: Spec, check_id: str) -> tuple[Trace, str, int | None, Exploration]:
    """The check's trace, its title, for a lasso the step its loop goes back to, and the
    exploration the checks ran on (the picture is drawn on it, not on a second one)."""
    checker = Checker(spec)
    known = checker.check_ids()
    if check_id not in known:
        raise Refused(
            f"spec {spec.name!r} has no check {check_id!r}; its checks: {', '.join(known)}"
        )
    result = next(checker.run(check_id))
    if result.trace is None:
        raise Refused(
            f"check {check_id!r} of {spec.name!r} is {result.verdict} with no trace to draw "
            "(only witnesses and counterexamples have one)"
        )
    what = {"witnessed": "witness", "violated": "counterexample"}.get(result.verdict, "trace")
    steps = plural(len(result.trace), "step")
    lasso = "" if result.loop is None else ", a lasso"
    title = f"{what} of {check_id}: {result.verdict}, {steps}{lasso}"
    return result.trace, title, result.loop, checker.graph


def _view_of(spec: Spec, path_init: Any) -> str:
    """The view a trace starts in; without a trace, the only view (or an error)."""
    names = list(views(spec))
    if path_init is not None:
        from models.kernel.expr import Env
        from models.kernel.expr import evaluate

        for name, pred in views(spec).items():
            if evaluate(pred, Env(pre=path_init)):
                return name
    if len(names) == 1:
        return names[0]
    raise Refused(f"spec {spec.name!r} has views {', '.join(names)}: pick one with --view")
