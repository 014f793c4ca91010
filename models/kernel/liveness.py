"""Liveness under fairness on the explorer's complete graph (issue 17 §2).

A run is an infinite sequence of steps in which stuttering is always allowed:
without fairness a run may stop anywhere. A property is violated when some
fair run stays, from some point on, in the region where its goal never comes
(`eventually p`: not p from the start; `p leads_to q`: not q from a p state
on; `infinitely_often p`: not p from some point on), restricted to the states a
run reaches staying in it from where it enters. As TLC does, the check
decomposes that region into strongly connected components (Tarjan, iterative)
and keeps a component when some cycle through it can be fair: for `weak(f)`,
f is taken inside it or disabled somewhere in it (the whole component is then
the best cycle); for `strong(f)`, f is taken inside it or never enabled in it,
else the states enabling f are removed and what is left is decomposed again
(the Emerson-Lei refinement). On a finite model this is a proof.

The counterexample is a lasso: the shortest stem (breadth-first) from an
initial state into a fair component, then a loop inside it that takes or
escapes every fairness constraint and returns; an empty loop means the run
stutters forever in its last state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress

from .explore import Exploration
from .expr import Expr
from .spec import FairCase
from .spec import LiveKind
from .spec import Liveness
from .spec import Spec
from .trace import Step
from .trace import Trace


@dataclass(frozen=True)
class Lasso:
    """A stem, then a loop: the trace's last state is its state `loop` again (when `loop`
    is the trace's length, the loop is empty: the run stutters there forever)."""

    trace: Trace
    loop: int
    fairness: tuple[str, ...]  # how each fairness constraint holds on the loop


@dataclass(frozen=True)
class LiveResult:
    holds: bool
    lasso: Lasso | None
    states: int
    fair_components: int  # fair components in the region where the goal never comes


Move = tuple[int, int, int, int]  # (firing, row, target, fairness bits it takes)


class Graph:
    """The explorer's graph with, per move, the fairness constraints it takes; built once
    per spec for all its liveness properties.

    The checks read lists indexed by state (its distinct successors; per fairness the
    bits it enables and its moves taking some), not a tuple per move and dicts per search:
    on ReadersWriters' 21,527 states those cost most of the time. The lasso, built only
    for a violation, reads the moves as tuples (`moves`)."""

    def __init__(self, g: Exploration) -> None:
        self.g = g
        self.spec = g.spec
        code = g.code
        self.n = len(g.states)
        self.rows = len(code.rows)
        self.trigger_of = [f.trigger for f in code.firings]
        self.params_of = [f.params for f in code.firings]
        self.ignore = [r.ignore for r in code.rows]
        # Per state where its edges start; per edge `firing * rows + row` and its target.
        self.starts, self.codes, self.targets = g.move_table()
        starts, targets = self.starts, self.targets
        # Where a state steps to, each state once and itself left out: all that reachability
        # and the components read.
        self.succ: list[list[int]] = []
        for i in range(self.n):
            out = set(targets[starts[i] : starts[i + 1]])
            out.discard(i)
            self.succ.append(list(out))
        self.initial = [i for i in range(self.n) if g.depth[i] == 0]
        self._fair: dict[tuple[FairCase, ...], tuple[list[int], list[list[tuple[int, int]]]]] = {}
        self._moves: dict[tuple[FairCase, ...], list[list[Move]]] = {}

    def holds(self, pred: Expr) -> list[bool]:
        return self.g.state_mask(pred)

    def _bits(self, fairness: Sequence[FairCase]) -> dict[int, int]:
        """Per move code present, the fairness constraints a move of it takes."""
        bits_of: dict[int, int] = {}
        for c in set(self.codes):
            k, r = divmod(c, self.rows)
            bits = 0
            if not self.ignore[r]:
                for b, f in enumerate(fairness):
                    if self.trigger_of[k] in f.triggers and (
                        f.param is None or self.params_of[k][f.param] == f.value
                    ):
                        bits |= 1 << b
            bits_of[c] = bits
        return bits_of

    def fair(self, fairness: Sequence[FairCase]) -> tuple[list[int], list[list[tuple[int, int]]]]:
        """Per state the fairness bits it enables, and its moves that take some, as
        (target, bits); once per fairness (a fixture's properties often share theirs)."""
        cases = tuple(fairness)
        if cases in self._fair:
            return self._fair[cases]
        bits_of = self._bits(fairness)
        starts, codes, targets = self.starts, self.codes, self.targets
        enabled: list[int] = []
        taking: list[list[tuple[int, int]]] = []
        for i in range(self.n):
            on = 0
            out: list[tuple[int, int]] = []
            for e in range(starts[i], starts[i + 1]):
                bits = bits_of[codes[e]]
                if bits:
                    on |= bits
                    out.append((targets[e], bits))
            enabled.append(on)
            taking.append(out)
        self._fair[cases] = enabled, taking
        return enabled, taking

    def moves(self, fairness: Sequence[FairCase]) -> tuple[list[list[Move]], list[int]]:
        """Per state its moves with the fairness bits each takes, and the bits enabled."""
        cases = tuple(fairness)
        enabled = self.fair(cases)[0]
        if cases not in self._moves:
            bits_of, rows, starts = self._bits(cases), self.rows, self.starts
            flat = [
                (c // rows, c % rows, t, bits_of[c])
                for c, t in zip(self.codes, self.targets, strict=True)
            ]
            self._moves[cases] = [flat[starts[i] : starts[i + 1]] for i in range(self.n)]
        return self._moves[cases], enabled


# A state's Tarjan number when it is not being decomposed, or no longer on the stack: larger
# than any number given, so one comparison both skips it and keeps it out of `low`.
_DONE = 1 << 62


def _components(
    members: Sequence[int], succ: list[list[int]], index: list[int], low: list[int]
) -> list[list[int]]:
    """Tarjan's strongly connected components of the subgraph on `members`, iteratively.
    On entry `index` is -1 for the members and `_DONE` for every other state; on return
    `_DONE` for all (so no reset is needed). `low` is scratch, sized like the graph."""
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in members:
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        work: list[tuple[int, Iterator[int]]] = [(root, iter(succ[root]))]
        while work:
            v, out = work[-1]
            least = low[v]
            for w in out:
                x = index[w]
                if x < 0:
                    low[v] = least
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    work.append((w, iter(succ[w])))
                    break
                if x < least:
                    least = x
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if least < low[parent]:
                        low[parent] = least
                if least == index[v]:
                    w = stack.pop()
                    index[w] = _DONE
                    component = [w]
                    while w != v:
                        w = stack.pop()
                        index[w] = _DONE
                        component.append(w)
                    found.append(component)
                else:
                    low[v] = least
    return found


def check_liveness(graph: Graph, p: Liveness, *, spec: Spec | None = None) -> LiveResult:
    """`p` on the graph, under `spec`'s fairness (default: the graph's spec; another spec
    must have the same rows and triggers, as a fairness refinement does)."""
    spec = graph.spec if spec is None else spec
    fairness = spec.fair_cases(p)
    enabled, taking = graph.fair(fairness)
    weak_bits = sum(1 << b for b, f in enumerate(fairness) if f.kind == "weak")
    strong_bits = sum(1 << b for b, f in enumerate(fairness) if f.kind == "strong")
    n, succ = graph.n, graph.succ
    region = [not x for x in graph.holds(p.pred if p.then is None else p.then)]
    if p.kind is LiveKind.LEADS_TO:
        trigger = graph.holds(p.pred)
        enter = [region[i] and trigger[i] for i in range(n)]
    else:
        enter = region

    # Only the part of the region a run can stay in from where it enters: from an initial
    # state for `eventually` (a state past a goal state violates nothing), from a p state
    # for `leads_to`, anywhere for `infinitely_often` (so the whole region).
    if p.kind is LiveKind.EVENTUALLY:
        seeds = [i for i in graph.initial if region[i]]
    elif p.kind is LiveKind.LEADS_TO:
        seeds = list(compress(range(n), enter))
    else:
        seeds = []
    stays = list(region) if p.kind is LiveKind.INFINITELY_OFTEN else [False] * n
    for i in seeds:
        stays[i] = True
    while seeds:
        v = seeds.pop()
        for t in succ[v]:
            if region[t] and not stays[t]:
                stays[t] = True
                seeds.append(t)

    # The fair components of that part of the region, each with its member set. Lists
    # sized like the graph, not dicts: `mark` tells the component being judged.
    fair: dict[int, frozenset[int]] = {}
    pending = [list(compress(range(n), stays))]
    index, low, mark = [_DONE] * n, [0] * n, [0] * n
    count = judged = 0
    every = weak_bits | strong_bits
    while pending:
        members = pending.pop()
        for v in members:
            index[v] = -1
        for comp in _components(members, succ, index, low):
            if len(comp) == 1:
                # Most components are one state (ReadersWriters: 11,417 of 11,418): fair
                # when every constraint it enables is taken by a move that stays there.
                v = comp[0]
                on = every & enabled[v]
                for t, bits in taking[v] if on else ():
                    if t == v:
                        on &= ~bits
                if not on:
                    count += 1
                    fair[v] = frozenset(comp)
                continue
            judged += 1
            for v in comp:
                mark[v] = judged
            taken = 0
            any_on, all_on = 0, -1
            for v in comp:
                any_on |= enabled[v]
                all_on &= enabled[v]
                for t, bits in taking[v]:
                    if mark[t] == judged:
                        taken |= bits
            unfair_strong = strong_bits & any_on & ~taken
            if unfair_strong:
                rest = [v for v in comp if not enabled[v] & unfair_strong]
                if rest:
                    pending.append(rest)
                continue
            if every & all_on & ~taken:
                continue
            count += 1
            frozen = frozenset(comp)
            for v in comp:
                fair[v] = frozen
    if not fair:
        return LiveResult(True, None, n, 0)
    adj, _ = graph.moves(fairness)
    lasso = _lasso(graph, p, fairness, adj, enabled, region, enter, fair)
    return LiveResult(False, lasso, n, count)


def _lasso(
    graph: Graph,
    p: Liveness,
    fairness: Sequence[FairCase],
    adj: list[list[Move]],
    enabled: list[int],
    region: list[bool],
    enter: list[bool],
    fair: dict[int, frozenset[int]],
) -> Lasso:
    # Breadth-first over (state, phase): phase 1 once the run is in the region for good.
    Node = tuple[int, int]
    parent: dict[Node, tuple[Node, int, int] | None] = {}
    queue: deque[Node] = deque()
    # Before phase 1 the run may enter the region and leave it again (`leads_to`,
    # `infinitely_often`): their fair component may lie past a goal state.
    phases = (1,) if p.kind is LiveKind.EVENTUALLY else (1, 0)
    for i in graph.initial:
        for node in [(i, f) for f in phases if f == 0 or enter[i]]:
            if node not in parent:
                parent[node] = None
                queue.append(node)
    end: Node | None = None
    while queue:
        node = queue.popleft()
        u, phase = node
        if phase == 1 and u in fair:
            end = node
            break
        for k, r, t, _ in adj[u]:
            if phase == 1 and not region[t]:
                continue
            for nxt in ((t, 1),) if phase == 1 else [(t, f) for f in phases if f == 0 or enter[t]]:
                if nxt not in parent:
                    parent[nxt] = (node, k, r)
                    queue.append(nxt)
    assert end is not None, "a fair component is reachable by construction"
    stem: list[tuple[int, int, int, int]] = []  # (source, firing, row, target)
    node = end
    while (back := parent[node]) is not None:
        prev, k, r = back
        stem.append((prev[0], k, r, node[0]))
        node = prev
    stem.reverse()
    start = end[0]
    loop, how = _loop(start, fair[start], fairness, adj, enabled)
    g = graph.g
    steps: list[Step] = [g.step(g.edge_of(*move)) for move in (*stem, *loop)]
    trace = Trace(g.as_dict(node[0]), tuple(steps))
    return Lasso(trace, len(stem), how)


def _loop(
    start: int,
    comp: frozenset[int],
    fairness: Sequence[FairCase],
    adj: list[list[Move]],
    enabled: list[int],
) -> tuple[list[tuple[int, int, int, int]], tuple[str, ...]]:
    """A cycle from `start` inside `comp` that takes every constraint taken in it and visits
    a state disabling each weak one not taken: the component's fairness, on one loop."""
    taken = 0
    for v in comp:
        for _, _, t, bits in adj[v]:
            if t in comp:
                taken |= bits
    need_take = taken
    need_off = 0
    how: list[str] = []
    for b, f in enumerate(fairness):
        name = f.label
        if taken >> b & 1:
            how.append(f"{name}: taken on the loop")
        elif any(enabled[v] >> b & 1 for v in comp):
            need_off |= 1 << b
            how.append(f"{name}: disabled on the loop")
        else:
            how.append(f"{name}: never enabled on the loop")
    path: list[tuple[int, int, int, int]] = []
    at = start
    need_off &= enabled[at]  # a constraint disabled where the loop starts is escaped there
    while need_take or need_off:
        # The nearest move taking a needed constraint, or state disabling one.
        prev: dict[int, tuple[int, int, int] | None] = {at: None}
        queue = deque([at])
        goal: tuple[int, tuple[int, int, int] | None] | None = None
        while queue and goal is None:
            v = queue.popleft()
            if need_off & ~enabled[v]:
                goal = (v, None)
                break
            for k, r, t, bits in adj[v]:
                if t not in comp:
                    continue
                if bits & need_take:
                    goal = (v, (k, r, t))
                    break
                if t not in prev:
                    prev[t] = (v, k, r)
                    queue.append(t)
        assert goal is not None, "the component is strongly connected"
        v, last = goal
        leg = _moves_to(v, prev)
        if last is not None:
            leg.append((v, *last))
        for move in leg:
            bits = next(b for k, r, t, b in adj[move[0]] if (k, r, t) == move[1:])
            need_take &= ~bits
            need_off &= enabled[move[3]]
        at = leg[-1][3] if leg else v
        path += leg
    if path and at != start:
        path += _path(at, start, comp, adj)
    return path, tuple(how)


def _path(
    a: int, b: int, comp: frozenset[int], adj: list[list[Move]]
) -> list[tuple[int, int, int, int]]:
    prev: dict[int, tuple[int, int, int] | None] = {a: None}
    queue = deque([a])
    while queue:
        v = queue.popleft()
        if v == b:
            break
        for k, r, t, _ in adj[v]:
            if t in comp and t not in prev:
                prev[t] = (v, k, r)
                queue.append(t)
    return _moves_to(b, prev)


def _moves_to(
    w: int, prev: dict[int, tuple[int, int, int] | None]
) -> list[tuple[int, int, int, int]]:
    """The moves from a breadth-first search's root to `w`, read back along `prev`."""
    leg: list[tuple[int, int, int, int]] = []
    while (back := prev[w]) is not None:
        leg.append((back[0], back[1], back[2], w))
        w = back[0]
    leg.reverse()
    return leg
