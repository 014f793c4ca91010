"""What changed between two versions of a model, row by row (issue 19).

`snapshot.row_text` reads a row as a reviewer compares it (trigger, from, guard,
to, sets, emits, each in the spec's own vocabulary: `readable.show`); `row_changes`
names the rows added, removed and changed between two specs with those fields
side by side. A variant's header on the report page (what it changes against
its base spec) and `python -m models diff` (two git revisions) both print it.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from models.cli.snapshot import row_text
from models.kernel.spec import Spec

FIELDS = ("trigger", "from", "guard", "to", "sets", "emits", "kind")


Change = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class RowChange:
    row: str
    change: Change
    before: Mapping[str, str] | None  # None: the row is added
    after: Mapping[str, str] | None  # None: the row is removed

    def fields(self) -> list[str]:
        """The fields that differ (every field of an added or removed row)."""
        if self.before is None or self.after is None:
            return list(FIELDS)
        return [f for f in FIELDS if self.before.get(f) != self.after.get(f)]


def row_changes(
    before: Mapping[str, Mapping[str, str]], after: Mapping[str, Mapping[str, str]]
) -> list[RowChange]:
    """Rows (name: `row_text`) added, removed and changed, in `after`'s order then the removed."""
    found = []
    for name, now in after.items():
        was = before.get(name)
        if was is None:
            found.append(RowChange(name, "added", None, now))
        elif dict(was) != dict(now):
            found.append(RowChange(name, "changed", was, now))
    found += [RowChange(n, "removed", was, None) for n, was in before.items() if n not in after]
    return found


def rows_of(spec: Spec) -> dict[str, dict[str, str]]:
    return {r.name: row_text(spec, r) for r in spec.rows}


def changes_html(changes: Sequence[RowChange], before: str, after: str) -> str:
    """The changes side by side: per row, the fields that differ (all of an added or
    removed row), as `before` and `after` have them."""
    if not changes:
        return "<p>no row changed</p>"
    lines = []
    for c in changes:
        cells = []
        for side, other, tag in ((c.before, c.after, "del"), (c.after, c.before, "ins")):
            if side is None:
                cells.append("<td></td>")
                continue
            parts = []
            for f in c.fields():
                v = _e(side.get(f, ""))
                shown = f"<{tag}>{v}</{tag}>" if other is None or other.get(f) != side.get(f) else v
                parts.append(f'<div><span class="field">{f}</span> {shown}</div>')
            cells.append(f"<td>{''.join(parts)}</td>")
        lines.append(
            f'<tr class="change-{c.change}"><td><b>{_e(c.row)}</b></td>'
            f"<td>{_sign(c.change)} {c.change}</td>{''.join(cells)}</tr>"
        )
    return (
        '<table class="changes"><colgroup><col style="width:20%"><col style="width:9%">'
        '<col style="width:35.5%"><col style="width:35.5%"></colgroup>'
        f"<thead><tr><th>row</th><th>change</th><th>{_e(before)}</th><th>{_e(after)}</th>"
        "</tr></thead><tbody>" + "".join(lines) + "</tbody></table>"
    )


def _sign(change: Change) -> str:
    return {"added": "+", "removed": "−", "changed": "~"}[change]


def _e(s: str) -> str:
    return html.escape(str(s), quote=True)
