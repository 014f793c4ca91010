"""How a spec's diagram is arranged: presentation hints a spec may declare.

Hints never add a node or an edge: what is drawn still comes from the rows and
the explorer's reachable graph (diagram.py). They say what the rows cannot: who
decides a trigger where the docs name a decider other than its group (duplex's
edge reflex), which states are provisional, how states cluster (wave's front
and back half, each its own picture), which output splits a terminal state into
outcome arms, and which outputs and updates are worth printing on an edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

from .domains import Value


@dataclass(frozen=True)
class Layout:
    # trigger -> who decides it, where that is not its group (the legend names both)
    deciders: Mapping[str, str] = field(default_factory=dict)
    # group (or decider) -> its meaning in the legend
    meanings: Mapping[str, str] = field(default_factory=dict)
    # control values drawn as provisional
    provisional: tuple[Value, ...] = ()
    # (title, control values) drawn in one box
    clusters: tuple[tuple[str, tuple[Value, ...]], ...] = ()
    # (output, control value): that state is drawn once per value of the output it is entered with
    arms: tuple[str, Value] | None = None
    # outputs printed on edges (None: every constant or state-valued one)
    edge_outputs: tuple[str, ...] | None = None
    # variables whose updates are printed on edges
    updates: tuple[str, ...] = ()
    # list the variables and their docs in a note (a ghost variable, say)
    variables: bool = False
    # edges carry the trigger and a footnote number; guards and outputs go in a table beside
    footnotes: bool = False
    # graphviz rank direction: LR (left to right) or TB (top to bottom)
    rankdir: str = "LR"
    # draw each of the first clusters as a picture of its own, named by these suffixes
    # (wave: front, back): one picture of ~45 footnoted edges is not readable at normal zoom
    split: tuple[str, ...] = ()
