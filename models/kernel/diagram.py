"""The diagram face of a spec: graphviz DOT drawn from the rows and the explorer.

One diagram per view (say, duplex under AUDIO and under TEXT). Nodes are the
control values reachable in the view; edges are the rows that actually fire
there, so a diagram never shows a move the spec cannot make. The DOT text is
the committed artifact; SVG is rendered from it with graphviz's `dot`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import graphviz

from .domains import Value
from .explore import Exploration, explore
from .expr import TRUE, Const, Env, Expr, Ref, Some, evaluate, render
from .spec import Spec

_STYLES = ("solid", "dashed", "dotted", "bold")


class DotMissing(RuntimeError):
    """graphviz's `dot` executable is not installed."""


def views(spec: Spec) -> Mapping[str, Expr]:
    return spec.views or {"": TRUE}


def dot_source(spec: Spec, view: str, graph: Exploration | None = None) -> str:
    graph = graph or explore(spec)
    pred = views(spec)[view]
    control = spec.control
    domain = spec.control_domain
    inside = [i for i in range(len(graph.states)) if evaluate(pred, Env(pre=graph.as_dict(i)))]

    def node(i: int) -> str:
        if control is None or domain is None:
            return "run"
        return domain.label(graph.as_dict(i)[control])

    title = f"{spec.name}" + (f" ({view})" if view else "") + f"\n{spec.source}"
    dot = graphviz.Digraph(name=f"{spec.name}{'_' + view if view else ''}")
    dot.attr(label=title, labelloc="t", fontname="Helvetica", rankdir="LR")
    dot.attr("node", shape="box", style="rounded", fontname="Helvetica")
    dot.attr("edge", fontname="Helvetica", fontsize="10")
    nodes = sorted({node(i) for i in inside}, key=_order(spec))
    initial = {node(i) for i in inside if graph.depth[i] == 0}
    for name in nodes:
        dot.node(name, name, peripheries="2" if name in initial else "1")
    groups = sorted({t.group for t in spec.triggers})
    rows = {r.name: i for i, r in enumerate(spec.rows)}
    seen: set[tuple[str, str, str]] = set()
    inside_set = set(inside)
    drawn = []
    for edge in graph.edges:
        r = spec.row(edge.row)
        if r.ignore or edge.source not in inside_set:
            continue
        key = (node(edge.source), node(edge.target), r.name)
        if key not in seen:
            seen.add(key)
            drawn.append((rows[r.name], key, r))
    for _, (src, dst, name), r in sorted(drawn):
        emits = [f"{k}={render(v, _value_label)}" for k, v in r.outputs.items() if _plain(v)]
        label = r.trigger + (f" / {', '.join(emits)}" if emits else "")
        style = _STYLES[groups.index(spec.trigger(r.trigger).group) % len(_STYLES)]
        dot.edge(src, dst, label=label, style=style, tooltip=f"{name}: {r.cite}")
    if len(groups) > 1:
        legend = "\n".join(
            f"{_STYLES[i % len(_STYLES)]}: {g or '(no group)'}" for i, g in enumerate(groups)
        )
        dot.node("legend", legend, shape="note", style="", fontsize="9")
    return str(dot.source)


def _plain(output: Expr) -> bool:
    """A value or a state variable; echoed parameters and computed outputs would swamp an edge."""
    inner = output.arg if isinstance(output, Some) else output
    return isinstance(inner, Const) or (isinstance(inner, Ref) and inner.scope == "pre")


def _value_label(value: Value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_value_label(v) for v in value) + "]"
    return str(getattr(value, "name", value))


def _order(spec: Spec) -> Callable[[str], int]:
    domain = spec.control_domain
    labels = [domain.label(v) for v in domain.values or ()] if domain else []

    def key(name: str) -> int:
        return labels.index(name) if name in labels else len(labels)

    return key


def dot_files(spec: Spec, out: Path) -> dict[Path, str]:
    graph = explore(spec)
    return {
        out / (f"{spec.name}-{view}.dot" if view else f"{spec.name}.dot"): dot_source(
            spec, view, graph
        )
        for view in views(spec)
    }


def write_dot(spec: Spec, out: Path, *, dry_run: bool = False) -> dict[Path, str]:
    files = dot_files(spec, out)
    if not dry_run:
        out.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text)
    return files


def render_svg(source: str, path: Path) -> Path:
    try:
        svg = graphviz.pipe("dot", "svg", source.encode())
    except graphviz.ExecutableNotFound:
        raise DotMissing(
            "graphviz's `dot` is not installed: run `apt-get install graphviz` "
            "(or your system's equivalent), or `make diagrams`, which installs it"
        ) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(svg)
    return path
