"""`python -m models diff BASE [HEAD] [-o DIR]`: what a model change changes, semantically.

BASE and HEAD are git revisions of this repository (HEAD: the working tree when
not given). Each revision's `models/` is read by a Python of its own
(snapshot.py, on a `git archive` of it), so the two never share a module. Per
spec and variant it prints the rows added, removed and changed with their
fields side by side (model_diff.py), the reachable states gained and lost, and
the verdicts that changed; `-o DIR` also writes `DIR/SPEC.diff.svg`, HEAD's
picture with added and changed edges thick and flagged, removed ones dotted and
struck, a gained state bold and a lost one dotted (`diagram.compare`: never by
colour alone). `report --baseline BASE` puts the same on the report page.

Exit codes: 0 the diff is printed (whether or not anything changed); 2 a wrong
command (an unknown revision, a revision without models/).
"""

from __future__ import annotations

import argparse
import html
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.cli.kit import UsageError
from models.cli.kit import output_dir
from models.cli.model_diff import RowChange
from models.cli.model_diff import changes_html
from models.cli.model_diff import row_changes
from models.kernel.diagram import Arrow
from models.kernel.diagram import Node
from models.kernel.diagram import Picture
from models.kernel.diagram import compare
from models.kernel.diagram import dot_source
from models.kernel.diagram import render
from models.kernel.diagram import write

ROOT = Path(__file__).resolve().parent.parent.parent
SNAPSHOT = Path(__file__).resolve().with_name("snapshot.py")
SHOWN_STATES = 12  # states gained or lost listed by name; the rest are counted


def add_diff(sub: Any) -> None:
    p = sub.add_parser(
        "diff",
        help="what changed in the models between two git revisions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("base", metavar="BASE", help="a git revision (a commit, branch or tag)")
    p.add_argument("head", nargs="?", metavar="HEAD", help="default: the working tree")
    p.add_argument("-o", "--out", type=output_dir, help="write SPEC.diff.svg here")
    p.set_defaults(run=run)


@dataclass(frozen=True)
class SpecDiff:
    name: str
    status: str  # "changed", "added" (only in HEAD), "removed" (only in BASE)
    rows: tuple[RowChange, ...]
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    verdicts: tuple[tuple[str, str, str], ...]  # (check, before, after); "-" when absent
    picture: Picture | None  # HEAD's picture marked against BASE's

    @property
    def changed(self) -> bool:
        return bool(self.status != "changed" or self.rows or self.gained or self.lost)


def run(args: argparse.Namespace) -> int:
    before, after = snapshot(args.base), snapshot(args.head)
    found = diff(before, after)
    head = args.head or "the working tree"
    print(f"diff {args.base} → {head}: " + summary(found))
    for d in found:
        if not (d.changed or d.verdicts):
            continue
        for line in text(d):
            print(line)
        if args.out is not None and d.picture is not None:
            path = args.out / f"{d.name.replace(':', '.')}.diff.svg"
            write(path, render(dot_source(d.picture), "svg"))
            print(f"  diagram: {path}")
    return 0


def snapshot(rev: str | None) -> dict[str, Any]:
    """One revision's models as data (snapshot.py, run on that revision's tree)."""
    if rev is None:
        return _run_snapshot(ROOT)
    git = ["git", "-C", str(ROOT)]
    check = subprocess.run(
        [*git, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], capture_output=True
    )
    if check.returncode != 0:
        raise UsageError(f"unknown git revision {rev!r}")
    archive = subprocess.run([*git, "archive", rev, "models"], capture_output=True)
    if archive.returncode != 0:
        raise UsageError(f"revision {rev!r} has no models/ directory")
    with tempfile.TemporaryDirectory(prefix="statecheck-diff-") as tree:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tree, filter="data")
        return _run_snapshot(Path(tree))


def _run_snapshot(tree: Path) -> dict[str, Any]:
    # runpy keeps sys.path[0] the tree (a script's own folder would shadow the stdlib).
    code = f"import runpy; runpy.run_path({str(SNAPSHOT)!r}, run_name='__main__')"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise UsageError(f"cannot read the models of {tree}: {last}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def diff(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[SpecDiff]:
    """Per spec in either revision (HEAD's order, then those only in BASE)."""
    was, now = before["specs"], after["specs"]
    names = [*now, *(n for n in was if n not in now)]
    found = []
    for name in names:
        a, b = was.get(name), now.get(name)
        status = "added" if a is None else "removed" if b is None else "changed"
        rows = row_changes(a["rows"] if a else {}, b["rows"] if b else {})
        states_a, states_b = set(a["states"] if a else ()), set(b["states"] if b else ())
        checks = [*(b["verdicts"] if b else {}), *(c for c in (a["verdicts"] if a else {}))]
        verdicts = []
        for c in dict.fromkeys(checks):
            old = (a["verdicts"] if a else {}).get(c, "-")
            new = (b["verdicts"] if b else {}).get(c, "-")
            if old != new:
                verdicts.append((c, old, new))
        picture = None
        if b is not None:
            head = picture_of(b["picture"], b["source"])
            base = picture_of(a["picture"], a["source"]) if a else _empty(head)
            picture = compare(base, head, {r.row for r in rows})
            picture.title = f"{head.title}: changes against the base revision"
        found.append(
            SpecDiff(
                name,
                status,
                tuple(rows),
                tuple(sorted(states_b - states_a)),
                tuple(sorted(states_a - states_b)),
                tuple(verdicts),
                picture,
            )
        )
    return found


def _empty(pic: Picture) -> Picture:
    """An empty picture: a spec new in HEAD is all added."""
    return Picture(pic.name, pic.title, pic.source, rankdir=pic.rankdir)


def picture_of(data: Mapping[str, Any], source: str) -> Picture:
    """A snapshot's picture skeleton (states and edges) as a `Picture` to draw."""
    pic = Picture(data["name"], data["title"], source, rankdir=data["rankdir"])
    pic.clusters = [(c[0], c[1]) for c in data["clusters"]]
    pic.nodes = [
        Node(
            n["id"],
            n["label"],
            n["kind"],
            n["initial"],
            greyed=n.get("greyed", False),
            cluster=n["cluster"],
        )
        for n in data["nodes"]
    ]
    pic.arrows = [
        Arrow(
            a["id"],
            a["src"],
            a["dst"],
            tuple(a["rows"]),
            tuple(a["lines"]),
            a["decider"],
            a["tooltip"],
            a.get("greyed", False),
        )
        for a in data["arrows"]
    ]
    return pic


def summary(found: Sequence[SpecDiff]) -> str:
    touched = [d for d in found if d.changed or d.verdicts]
    if not touched:
        return "no spec changed"
    return ", ".join(
        f"{d.name} ({len(d.rows)} rows, +{len(d.gained)}/−{len(d.lost)} states, "
        f"{len(d.verdicts)} verdicts)"
        for d in touched
    )


def text(d: SpecDiff) -> list[str]:
    """One spec's diff as printed lines."""
    sign = {"added": "+", "removed": "−", "changed": "~"}
    lines = [f"{d.name}" + ("" if d.status == "changed" else f" ({d.status} spec)")]
    for r in d.rows:
        lines.append(f"  {sign[r.change]} row {r.row} ({r.change})")
        for f in r.fields():
            old = "" if r.before is None else r.before.get(f, "")
            new = "" if r.after is None else r.after.get(f, "")
            lines.append(f"      {f:8} {old or '·'}  →  {new or '·'}")
    for what, states in (("gained", d.gained), ("lost", d.lost)):
        if states:
            lines.append(f"  reachable states {what}: {len(states)}")
            lines += [f"      {s}" for s in states[:SHOWN_STATES]]
            if len(states) > SHOWN_STATES:
                lines.append(f"      … and {len(states) - SHOWN_STATES} more")
    for check, old, new in d.verdicts:
        lines.append(f"  verdict {check}: {old} → {new}")
    return lines


def diff_html(found: Sequence[SpecDiff], base: str, head: str) -> str:
    """The report's section for `report --baseline BASE`: each changed spec's diff."""
    parts = [
        f'<section id="changes" class="changes"><h2>Changes against {_e(base)}</h2>'
        f"<p>{_e(summary(found))}. On the diagrams, an added or changed edge is thick and "
        "flagged (<b>+ added</b>, <b>~ changed</b>), a removed one dotted and struck "
        "(<b>− removed</b>); a gained state is bold (<b>+</b>), a lost one dotted (<b>−</b>).</p>"
    ]
    for d in found:
        if not (d.changed or d.verdicts):
            continue
        parts.append(f"<h3>{_e(d.name)}</h3>" + changes_html(d.rows, base, head))
        for what, states in (("gained", d.gained), ("lost", d.lost)):
            if states:
                listed = "".join(f"<li><code>{_e(s)}</code></li>" for s in states)
                parts.append(
                    f"<details><summary>{len(states)} reachable states {what}</summary>"
                    f"<ul>{listed}</ul></details>"
                )
        if d.verdicts:
            rows = "".join(
                f"<tr><td>{_e(c)}</td><td>{_e(o)}</td><td>{_e(n)}</td></tr>"
                for c, o, n in d.verdicts
            )
            parts.append(
                '<table class="changes"><thead><tr><th>check</th>'
                f"<th>{_e(base)}</th><th>{_e(head)}</th></tr></thead><tbody>{rows}</tbody></table>"
            )
        if d.picture is not None:
            svg = render(dot_source(d.picture), "svg").decode()
            svg = svg[svg.index("<svg") :]
            prefix = "diff-" + "".join(ch if ch.isalnum() else "-" for ch in d.name) + "-"
            svg = svg.replace(' id="', f' id="{prefix}')
            parts.append(f'<figure class="diagram">{svg}</figure>')
    return "".join(parts) + "</section>"


def _e(s: str) -> str:
    return html.escape(str(s), quote=True)
