"""One revision's models as data, for `python -m models diff` (diff.py).

`diff` runs this file in a separate Python whose `models` package is the other
revision's tree (`git archive`), so it imports nothing from `models.cli`, only
that revision's kernel and registry. It prints JSON: per spec (variants too)
its rows read as a reviewer compares them (`row_text`), its reachable states as
text, its checks' verdicts, and its first picture's states and edges.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any


def row_text(spec: Any, r: Any) -> dict[str, str]:
    """A row's fields as text, in the spec's vocabulary (`readable.show`)."""
    from models.kernel.printer import show

    domain = spec.control_domain

    def value(v: object) -> str:
        return str(domain.label(v)) if domain is not None else str(v)

    return {
        "trigger": r.trigger,
        "from": "any" if r.source is None else ", ".join(value(v) for v in r.source),
        "guard": show(spec, r.guard),
        "to": "stays" if r.target is None else value(r.target),
        "sets": ", ".join(f"{k} := {show(spec, e)}" for k, e in r.updates.items()) or "-",
        "emits": ", ".join(f"{k} = {show(spec, e)}" for k, e in r.outputs.items()) or "-",
        "kind": "ignore" if r.ignore else "row",
    }


def snapshot(verdicts: bool = True) -> dict[str, Any]:
    from models.kernel.checks import verify
    from models.kernel.diagram import picture
    from models.kernel.diagram import views
    from models.kernel.explore import explore

    registry = _registry().load()
    found: dict[str, Any] = {}
    for base in registry.specs.values():
        for spec in [base, *(base.with_variant(v.name) for v in base.variants)]:
            graph = explore(spec)
            names = [v.name for v in spec.vars]
            labels = [v.domain.label for v in spec.vars]
            states = sorted(
                " ".join(f"{n}={f(x)}" for n, f, x in zip(names, labels, s, strict=True))
                for s in graph.states
            )
            pic = picture(spec, next(iter(views(spec))), graph)  # the first view, whole
            found[spec.name] = {
                "source": spec.source,
                "rows": {r.name: row_text(spec, r) for r in spec.rows},
                "states": states,
                "verdicts": {c.id: c.verdict for c in verify(spec).checks} if verdicts else {},
                "picture": {
                    "name": pic.name,
                    "title": pic.title,
                    "rankdir": pic.rankdir,
                    "clusters": pic.clusters,
                    "nodes": [
                        {
                            "id": n.id,
                            "label": n.label,
                            "kind": n.kind,
                            "initial": n.initial,
                            "greyed": n.greyed,
                            "cluster": n.cluster,
                        }
                        for n in pic.nodes
                    ],
                    "arrows": [
                        {
                            "id": a.id,
                            "src": a.src,
                            "dst": a.dst,
                            "rows": list(a.rows),
                            "lines": list(a.lines),
                            "decider": a.decider,
                            "tooltip": a.tooltip,
                            "greyed": a.greyed,
                        }
                        for a in pic.arrows
                    ],
                },
            }
    return {"specs": found, "broken": sorted(registry.broken)}


def _registry() -> Any:
    """The revision's registry module (it moved into models/cli/ with the command line)."""
    try:
        return importlib.import_module("models.cli.registry")
    except ImportError:
        return importlib.import_module("models.registry")


if __name__ == "__main__":
    json.dump(snapshot(verdicts="--no-verdicts" not in sys.argv), sys.stdout)
