"""`python -m models diff BASE HEAD` on a commit pair made here (issue 19).

A scratch git repository holds this checkout's kernel and command line and one
small spec, `lamp`. The second commit retargets one row (`kick` goes to BROKEN,
not SPARE) and adds one (`fix`). The diff must name exactly those two rows, the
states gained (BROKEN) and lost (SPARE), the verdicts that changed, and mark them
on HEAD's diagram.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from models.kernel.diagram import compare
from models.kernel.diagram import picture
from models.kernel.spec import Spec

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"

LAMP = '''"""A lamp, for the diff test."""

import enum

from models.kernel import Finite, Spec, Trigger, Var, eq, never, row, sometimes, var


class Lamp(enum.Enum):
    OFF = "OFF"
    ON = "ON"
    SPARE = "SPARE"
    BROKEN = "BROKEN"


OFF, ON, SPARE, BROKEN = Lamp.OFF, Lamp.ON, Lamp.SPARE, Lamp.BROKEN

SPEC = Spec(
    name="lamp",
    source="tests/test_diff.py",
    control="state",
    vars=(Var("state", Finite.of_enum(Lamp), OFF),),
    triggers=(Trigger("switch"), Trigger("kick")),
    rows=(
        row("switch_on", "switch", OFF, ON, cite="t"),
        row("switch_off", "switch", ON, OFF, cite="t"),
        row("kick", "kick", (OFF, ON), KICKED, cite="t"),
        row("spare_back", "switch", SPARE, OFF, cite="t"),
        ADDED
    ),
    properties=(
        never("never-broken", eq(var("state"), BROKEN), cite="t"),
        sometimes("can-be-on", eq(var("state"), ON), cite="t"),
    ),
)
SPECS = (SPEC,)
'''


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    ignore = shutil.ignore_patterns("__pycache__")
    for part in ("kernel", "cli"):
        shutil.copytree(ROOT / "models" / part, repo / "models" / part, ignore=ignore)
    for name in ("__init__.py", "__main__.py"):
        shutil.copy(ROOT / "models" / name, repo / "models" / name)
    lamp = repo / "models" / "lamp.py"
    lamp.write_text(LAMP.replace("KICKED", "SPARE").replace("        ADDED\n", ""))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "lamp")
    fix = '        row("fix", "switch", BROKEN, OFF, cite="t"),\n'
    lamp.write_text(LAMP.replace("KICKED", "BROKEN").replace("        ADDED\n", fix))
    _git(repo, "commit", "-qam", "kick breaks the lamp; fix repairs it")
    return repo


def test_diff_names_the_rows_states_and_verdicts_that_changed(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, "-m", "models", "diff", "HEAD~1", "HEAD", "-o", "out"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    rows = [
        line.split()[2]
        for line in out.splitlines()
        if line.startswith(("  ~ row", "  + row", "  − row"))
    ]
    assert rows == ["kick", "fix"], out
    assert "  ~ row kick (changed)" in out and "  + row fix (added)" in out
    assert "      to       SPARE  →  BROKEN" in out
    assert "reachable states gained: 1\n      state=BROKEN" in out
    assert "reachable states lost: 1\n      state=SPARE" in out
    verdicts = {
        line.split()[1].rstrip(":"): line.split(": ", 1)[1]
        for line in out.splitlines()
        if line.startswith("  verdict ")
    }
    assert verdicts["never-broken"] == "proved → violated"
    assert verdicts["rows-fire"] == "witnessed → violated"  # spare_back never fires now
    assert "can-be-on" not in verdicts

    svg = ET.parse(repo / "out" / "lamp.diff.svg").getroot()
    marked: dict[str, list[str]] = {}
    for g in svg.iter(f"{SVG}g"):
        classes = (g.get("class") or "").split()
        for change in ("added", "changed", "removed", "gained", "lost"):
            if change in classes:
                title = g.find(f"{SVG}title")
                text = " ".join(t.text or "" for t in g.iter(f"{SVG}text"))
                text += " " + " ".join(  # the tooltip names the rows
                    a.get("{http://www.w3.org/1999/xlink}title") or "" for a in g.iter(f"{SVG}a")
                )
                marked.setdefault(change, []).append(
                    f"{title.text if title is not None else ''} {text}"
                )
    assert any("fix" in m and "+ added" in m for m in marked["added"]), marked
    assert any("kick" in m and "BROKEN" in m for m in marked["added"]), marked
    assert any("SPARE" in m and "− removed" in m for m in marked["removed"]), marked
    assert [m.split()[0] for m in marked["gained"]] == ["s_BROKEN"], marked
    assert [m.split()[0] for m in marked["lost"]] == ["s_SPARE"], marked


def test_an_unknown_revision_is_a_one_line_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "models", "diff", "nosuchrev"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr == "error: unknown git revision 'nosuchrev'\n"


def test_report_baseline_puts_the_diff_on_the_page(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "models", "report", "--baseline", "HEAD~1", "-o", "out"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
    )
    # HEAD's lamp breaks: the report still writes the page, and exits 1 for the checks.
    assert done.returncode == 1 and "lamp never-broken" in done.stdout, done.stderr
    page = (repo / "out" / "index.html").read_text()
    section = page.split('<section id="changes"', 1)[1].split("</section>", 1)[0]
    assert "Changes against HEAD~1" in section
    rows = re.findall(r'<tr class="change-(\w+)"><td><b>([^<]+)</b>', section)
    assert rows == [("changed", "kick"), ("added", "fix")]
    assert "1 reachable states gained" in section and "state=BROKEN" in section
    assert "<td>never-broken</td><td>proved</td><td>violated</td>" in section
    assert re.search(r'class="edge[^"]* added"', section)  # HEAD's diagram, marked
    assert 'class="node state gained"' in section


def _lamp(kicked: str, added: str) -> Spec:
    """LAMP built in this process, so mutation testing sees the drawing called."""
    scope: dict[str, Any] = {}
    exec(LAMP.replace("KICKED", kicked).replace("        ADDED\n", added), scope)
    spec: Spec = scope["SPEC"]
    return spec


def test_compare_marks_each_added_changed_removed_gained_and_lost_part() -> None:
    fix = '        row("fix", "switch", BROKEN, OFF, cite="t"),\n'
    base, head = picture(_lamp("SPARE", "")), picture(_lamp("BROKEN", fix))
    out = compare(base, head, {"kick"})
    assert [(a.id, a.src, a.dst, a.rows, a.lines, a.change) for a in out.arrows] == [
        ("e0", "s_OFF", "s_ON", ("switch_on",), ("switch",), ""),
        ("e1", "s_ON", "s_OFF", ("switch_off",), ("switch",), ""),
        ("e2", "s_OFF", "s_BROKEN", ("kick",), ("kick",), "added"),
        ("e3", "s_ON", "s_BROKEN", ("kick",), ("kick",), "added"),
        ("e4", "s_SPARE", "s_OFF", ("spare_back",), ("switch",), ""),
        ("e5", "s_BROKEN", "s_OFF", ("fix",), ("switch",), "added"),
        ("removed2", "s_OFF", "s_SPARE", ("kick",), ("kick",), "removed"),
        ("removed3", "s_ON", "s_SPARE", ("kick",), ("kick",), "removed"),
    ]
    assert [(n.id, n.change, n.greyed) for n in out.nodes] == [
        ("s_OFF", "", False),
        ("s_ON", "", False),
        ("s_SPARE", "lost", True),
        ("s_BROKEN", "gained", False),
    ]
    # A row on an edge both revisions have is "changed"; the rest of the picture is kept.
    same = compare(base, base, {"switch_on"})
    assert [(a.id, a.change) for a in same.arrows] == [
        ("e0", "changed"),
        ("e1", ""),
        ("e2", ""),
        ("e3", ""),
        ("e4", ""),
    ]
    assert [n.change for n in same.nodes] == ["", "", "", ""]
