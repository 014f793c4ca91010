"""Every structural and semantic check of the kernel, made to fail with its counterexample.

A check that cannot fail proves nothing, and one that fails for the wrong
reason hides a kernel slip: so each test below builds a tiny spec that
breaks exactly one check and asserts the counterexample the check must give
(the rows, the trigger, the state, the trace's length and last step), not
merely a red verdict. The lamp spec (`lamp`) is small enough to know by hand:

    (OFF,0) -push-> (ON,1) -push-> (OFF,1) -push-> (ON,2) -push-> (OFF,2) -tick-> (DONE,2)

Covers models/kernel/checks.py (determinism, totality, no-deadlock,
terminal-absorbing, rows-fire, vacuity, reachable-set, always / never /
sometimes), the explorer's depths, the oracle's ignore rows, `<=` and
`unchanged()` in every engine.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Output
from models.kernel import Param
from models.kernel import Property
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import checks as checks_module
from models.kernel import eq
from models.kernel import exists
from models.kernel import forall
from models.kernel import ge
from models.kernel import gt
from models.kernel import ignore
from models.kernel import implies
from models.kernel import le
from models.kernel import lt
from models.kernel import never
from models.kernel import nxt
from models.kernel import param
from models.kernel import row
from models.kernel import sometimes
from models.kernel import trigger_is
from models.kernel import unchanged
from models.kernel import var
from models.kernel.checks import Checker
from models.kernel.checks import CheckResult
from models.kernel.checks import Method
from models.kernel.explore import explore
from models.kernel.expr import Env
from models.kernel.expr import evaluate
from models.kernel.oracle import NotEnabled
from models.kernel.oracle import NotTotal
from models.kernel.oracle import Oracle
from models.kernel.oracle import OracleError
from models.kernel.printer import show
from models.kernel.smt import Encoding
from models.kernel.smt import Found
from models.kernel.smt import SolverLimit
from models.kernel.smt import Unknown
from models.kernel.smt import check_reachable_sample
from models.kernel.smt import check_reachable_set
from models.kernel.trace import Step
from models.kernel.trace import Trace
from models.kernel.vacuity import premises
from models.kernel.vacuity import vacuous


class Mode(enum.Enum):
    OFF = "off"
    ON = "on"
    DONE = "done"


OFF, ON, DONE = Mode

# The lamp's rows, in spec order. The guarded ignore comes first, so an oracle that
# ignored ignore rows' guards would fire it in (OFF,0) instead of `push_on`.
PUSH_FULL = ignore("push_full", "push", OFF, guard=ge(var("n"), 2), cite="toy")
PUSH_ON = row(
    "push_on", "push", OFF, ON, guard=le(var("n"), 1), sets={"n": add(var("n"), 1)}, cite="toy"
)
PUSH_OFF = row("push_off", "push", ON, OFF, cite="toy")
PUSH_DONE = ignore("push_done", "push", DONE, cite="toy")
TICK_DONE = row("tick_done", "tick", OFF, DONE, guard=eq(var("n"), 2), cite="toy")
TICK_WAIT = ignore("tick_wait", "tick", OFF, guard=lt(var("n"), 2), cite="toy")
TICK_IDLE = ignore("tick_idle", "tick", (ON, DONE), cite="toy")
IS_DONE = eq(var("mode"), DONE)
ROWS = (PUSH_FULL, PUSH_ON, PUSH_OFF, PUSH_DONE, TICK_DONE, TICK_WAIT, TICK_IDLE)

# The reachable states in BFS order, each with its depth.
REACHABLE = [
    ((OFF, 0), 0),
    ((ON, 1), 1),
    ((OFF, 1), 2),
    ((ON, 2), 3),
    ((OFF, 2), 4),
    ((DONE, 2), 5),
]


def lamp(
    rows: Sequence[Row] = ROWS,
    *,
    properties: Sequence[Any] = (),
    terminal: Any = IS_DONE,
    n_init: int = 0,
) -> Spec:
    return Spec(
        name="lamp",
        source="tests/test_checks_teeth.py",
        control="mode",
        vars=(Var("mode", Finite.of_enum(Mode), OFF), Var("n", IntRange(0, 2), n_init)),
        triggers=(Trigger("push"), Trigger("tick")),
        rows=tuple(rows),
        properties=tuple(properties),
        terminal=terminal,
    )


def make(spec: Spec, method: Method = "spacer") -> Checker:
    """A checker whose z3 budgets no machine reaches on these specs: a verdict that rests on
    z3 finishing (a certificate, a disagreement) must not depend on the machine's speed."""
    return Checker(spec, method=method, timeout=600, certificates=600)


def run(spec: Spec, check: str) -> CheckResult:
    return next(make(spec).run(check))


def states_of(result: CheckResult) -> list[tuple[Any, ...]]:
    assert result.trace is not None, result
    return [(s["mode"], s["n"]) for s in result.trace.states()]


def rows_of(result: CheckResult) -> list[str]:
    assert result.trace is not None, result
    return [s.row for s in result.trace.steps]


SHORTEST = [s for s, _ in REACHABLE]  # the BFS path is the chain itself


# ---------------------------------------------------------------- the lamp is right


def test_the_lamp_passes_every_check_with_exact_figures() -> None:
    results = {r.id: r for r in make(lamp()).run()}
    assert {k: r.verdict for k, r in results.items()} == {
        "determinism": "proved",
        "totality": "proved",
        "no-deadlock": "proved",
        "terminal-absorbing": "proved",
        "rows-fire": "witnessed",
        "vacuity": "proved",
        "reachable-set": "proved",
    }
    # push_done first fires from (DONE,2), at depth 5: step 6.
    assert results["rows-fire"].bound == 6
    assert results["rows-fire"].detail == "all 7 rows fire, the last first at step 6"
    assert results["reachable-set"].certificate is not None
    assert results["reachable-set"].certificate.startswith("6 states: init ⊆ R")


def test_the_explorer_depth_is_the_length_of_the_shortest_path() -> None:
    graph = explore(lamp())
    assert [((s[0], s[1]), d) for s, d in zip(graph.states, graph.depth, strict=True)] == REACHABLE
    for i in range(len(graph.states)):
        assert graph.depth[i] == len(graph.path_to(i))
    assert graph.diameter == 5
    assert graph.edge_count == 12  # 6 states × 2 triggers, every one answered


def test_the_oracle_and_the_explorer_step_alike_through_guarded_ignore_rows() -> None:
    spec = lamp()
    graph = explore(spec)
    oracle = Oracle(spec)
    for i in range(len(graph.states)):
        for edge in graph.successors(i):
            oracle.load(graph.as_dict(i))
            fired = oracle.fire(edge.trigger)
            assert (fired.row, dict(fired.state)) == (edge.row, graph.as_dict(edge.target))
    oracle.reset()
    assert oracle.fire("push").row == "push_on"  # push_full's guard n ≥ 2 is false
    assert oracle.fire("push").row == "push_off"
    assert oracle.fire("push").row == "push_on"  # n ≤ 1 holds at n = 1
    oracle.load({"mode": OFF, "n": 2})
    assert oracle.fire("push").row == "push_full"


# ---------------------------------------------------------------- determinism


@pytest.mark.parametrize("adjacent", [True, False], ids=["adjacent", "non-adjacent"])
def test_two_overlapping_rows_break_determinism_at_the_shortest_state(adjacent: bool) -> None:
    again = row("push_again", "push", OFF, ON, guard=eq(var("n"), 1), cite="toy")
    at = ROWS.index(PUSH_ON) + 1 if adjacent else len(ROWS)
    rows = (*ROWS[:at], again, *ROWS[at:])
    result = run(lamp(rows), "determinism")
    assert result.verdict == "violated"
    assert result.detail == "rows 'push_on' and 'push_again' are both enabled"
    assert states_of(result) == SHORTEST[:3]  # (OFF,1), two steps in
    assert result.bound == 2


def test_rows_overlapping_only_in_unreachable_states_are_deterministic() -> None:
    # (ON,0) is type-correct but unreachable: only a reachability proof can tell.
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    result = run(lamp((*ROWS, odd)), "determinism")
    assert result.verdict == "proved"
    assert result.certificate is not None
    assert result.certificate.endswith(", 1 on every reachable state")


# ---------------------------------------------------------------- totality and deadlock


def test_a_trigger_without_a_row_in_a_reachable_state_breaks_totality() -> None:
    narrow = ignore("tick_wait", "tick", OFF, guard=lt(var("n"), 1), cite="toy")
    rows = tuple(narrow if r is TICK_WAIT else r for r in ROWS)
    result = run(lamp(rows), "totality")
    assert result.verdict == "violated"
    assert result.detail == "no row or ignore of 'tick' is enabled"
    assert states_of(result) == SHORTEST[:3]  # (OFF,1): n is 1, neither n = 2 nor n < 1


def test_a_reachable_state_with_only_ignore_rows_is_a_deadlock() -> None:
    result = run(lamp(terminal=None), "no-deadlock")
    assert result.verdict == "violated"
    assert result.detail == "a reachable non-terminal state enables only ignore rows"
    assert states_of(result) == SHORTEST
    assert rows_of(result)[-1] == "tick_done"


def test_a_terminal_state_that_moves_breaks_terminal_absorbing() -> None:
    # n = 2 first holds in (ON,2); push_off leaves it for (OFF,2).
    result = run(lamp(terminal=eq(var("n"), 2)), "terminal-absorbing")
    assert result.verdict == "violated"
    assert states_of(result) == SHORTEST[:5]
    assert rows_of(result)[-1] == "push_off"


# ---------------------------------------------------------------- rows fire, vacuity


def test_a_dead_ignore_row_is_reported_by_name() -> None:
    ghost = ignore("push_ghost", "push", ON, guard=eq(var("n"), 0), cite="toy")
    rows = (PUSH_FULL, PUSH_ON, ghost, *ROWS[2:])
    result = run(lamp(rows), "rows-fire")
    assert result.verdict == "violated"
    assert result.detail == "rows that never fire: push_ghost"


def _premises() -> list[Property]:
    """Two premises over states and two over steps; one of each is never reachable."""
    return [
        always(
            "on-at-zero",
            implies(and_(eq(var("mode"), ON), eq(var("n"), 0)), eq(var("n"), 1)),
            cite="t",
        ),
        always("live", implies(eq(var("mode"), ON), ge(var("n"), 1)), cite="t"),
        always(
            "tick-turns-on",
            implies(
                and_(trigger_is("tick"), eq(var("mode"), OFF), eq(nxt("mode"), ON)),
                eq(var("n"), 0),
            ),
            cite="t",
        ),
        always(
            "tick-done",
            implies(and_(trigger_is("tick"), eq(nxt("mode"), DONE)), le(var("n"), 2)),
            cite="t",
        ),
    ]


def test_a_premise_no_reachable_state_or_step_meets_is_vacuous() -> None:
    props = _premises()
    result = run(lamp(properties=props), "vacuity")
    assert result.verdict == "violated"
    assert result.detail == (
        "on-at-zero: the premise mode = ON ∧ n = 0 is never reachable; "
        "tick-turns-on: the premise trigger is tick ∧ mode = OFF ∧ mode' = ON "
        "is never reachable"
    )
    # Each says whether its premise is over states or steps: the mutant gate asks z3 for
    # the one or the other to confirm it absent.
    spec = lamp(properties=props)
    found = vacuous(spec, explore(spec))
    assert [(v.prop, v.step) for v in found] == [("on-at-zero", False), ("tick-turns-on", True)]


def test_vacuity_searches_its_premises_in_one_pass_per_kind_not_one_search_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = lamp(properties=_premises())
    graph = explore(spec)

    def searched(*args: object) -> None:
        raise AssertionError("searched alone")

    monkeypatch.setattr(graph.code, "state_test", searched)
    monkeypatch.setattr(graph.code, "step_test", searched)
    found = vacuous(spec, graph)
    assert [(v.prop, v.step) for v in found] == [("on-at-zero", False), ("tick-turns-on", True)]


def test_the_checker_searches_every_property_in_one_pass_per_kind_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = lamp(properties=[*_premises(), always("below-2", lt(var("n"), 2), cite="t")])
    names = [p.name for p in spec.properties]
    expected = [next(make(spec).run(name)) for name in names]
    assert [r.verdict for r in expected] == ["proved"] * 4 + ["violated"]
    checker = make(spec)
    code = checker.graph.code
    batches: list[tuple[str, int]] = []

    def searched(*args: object) -> None:
        raise AssertionError("searched alone")

    for kind in ("state", "step"):
        batch = getattr(code, f"{kind}_tests")

        def counted(preds: Sequence[Any], kind: str = kind, batch: Any = batch) -> Any:
            batches.append((kind, len(preds)))
            return batch(preds)

        monkeypatch.setattr(code, f"{kind}_tests", counted)
        monkeypatch.setattr(code, f"{kind}_test", searched)
    found = [next(checker.run(name)) for name in names]
    assert batches == [("state", 3), ("step", 2)]
    assert [(r.verdict, r.detail, r.trace) for r in found] == [
        (r.verdict, r.detail, r.trace) for r in expected
    ]


# ---------------------------------------------------------------- reachable set


def _tree(spec: Spec) -> tuple[list[dict[str, Any]], list[Any]]:
    g = explore(spec)
    states = [g.as_dict(i) for i in range(len(g.states))]
    tree = [(g.as_dict(e.source), g.step(e)) for e in g.parent if e is not None]
    return states, tree


def test_the_reachable_set_check_finds_a_state_the_explorer_missed() -> None:
    spec = lamp()
    enc = Encoding(spec)
    states, tree = _tree(spec)
    assert check_reachable_set(enc, states, tree).equal
    missing = check_reachable_set(enc, states[:-1], tree[:-1])
    assert not missing.equal
    assert missing.detail == (
        "z3 steps from {'mode': <Mode.OFF: 'off'>, 'n': 2} by row tick_done to "
        "{'mode': <Mode.DONE: 'done'>, 'n': 2}, which the explorer never reached"
    )
    no_init = check_reachable_set(enc, states[1:], tree[1:])
    assert not no_init.equal and no_init.detail.startswith("z3 has an initial state")
    bogus = (states[0], Step("push_off", "push", {}, states[1], {}))  # push_off is not from OFF
    made_up = check_reachable_set(enc, states, [*tree, bogus])
    assert not made_up.equal and "--push_off-->" in made_up.detail


@pytest.mark.parametrize("up_to", [6, 3], ids=["whole", "sampled"])
def test_the_reachable_set_check_runs_against_the_spec_not_the_graph(
    up_to: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Up to FULL_SET_CHECK_UP_TO states the whole set is checked, past it a sample. The
    # explorer's graph of another start (n = 1) misses (OFF,0): z3 must say so either way.
    monkeypatch.setattr(checks_module, "FULL_SET_CHECK_UP_TO", up_to)
    right = run(lamp(), "reachable-set")
    assert right.certificate is not None
    whole = right.certificate.startswith("6 states: init ⊆ R, R closed under T")
    assert whole == (up_to == 6), right.certificate
    checker = make(lamp())
    checker.graph = explore(lamp(n_init=1))
    result = checker.check_reachable_set()
    assert (result.verdict, result.method, result.bound) == ("unknown", "bfs", 3)
    assert (result.kind, result.cite) == ("structural", CITES["reachable-set"])
    assert result.detail.startswith("z3 and the explorer disagree: z3 has an initial state")


def test_the_sampled_reachable_set_check_finds_a_wrong_successor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checks_module, "FULL_SET_CHECK_UP_TO", 2)
    assert run(lamp(), "reachable-set").verdict == "proved"
    spec = lamp()
    enc = Encoding(spec)
    g = explore(spec)
    initial = [g.as_dict(0)]
    sample = [(g.as_dict(i), [g.step(e) for e in g.successors(i)]) for i in range(len(g.states))]
    assert check_reachable_sample(enc, initial, len(g.states), sample).equal
    # (OFF,2) without its tick step: z3 has a step the explorer lacks.
    cut = [(s, steps[:1]) if s == {"mode": OFF, "n": 2} else (s, steps) for s, steps in sample]
    assert not check_reachable_sample(enc, initial, len(g.states), cut).equal
    late = check_reachable_sample(enc, [g.as_dict(1)], len(g.states), sample)
    assert not late.equal and "initial state the explorer lacks" in late.detail


# ---------------------------------------------------------------- always, never, sometimes


@pytest.mark.parametrize(
    ("prop", "verdict", "path"),
    [
        (always("n-bounded", le(var("n"), 2), cite="t"), "proved", None),
        (always("n-small", lt(var("n"), 2), cite="t"), "violated", 4),
        (always("n-le-one", le(var("n"), 1), cite="t"), "violated", 4),
        (never("done", eq(var("mode"), DONE), cite="t"), "violated", 6),
        (never("on-at-zero", and_(eq(var("mode"), ON), eq(var("n"), 0)), cite="t"), "proved", None),
        (sometimes("done", eq(var("mode"), DONE), cite="t"), "witnessed", 6),
        (
            sometimes("on-twice", and_(eq(var("mode"), ON), gt(var("n"), 1)), cite="t"),
            "witnessed",
            4,
        ),
        (
            sometimes("on-at-zero", and_(eq(var("mode"), ON), eq(var("n"), 0)), cite="t"),
            "violated",
            None,
        ),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_state_properties_get_the_right_verdict_and_shortest_trace(
    prop: Any, verdict: str, path: int | None
) -> None:
    methods: tuple[Method, ...] = ("spacer", "k-induction")
    for method in methods:
        result = next(make(lamp(properties=[prop]), method=method).run(prop.name))
        assert result.verdict == verdict, (method, result.detail)
        if path is None:
            assert result.trace is None and result.certificate
        else:
            assert states_of(result) == SHORTEST[:path]


def test_unchanged_holds_only_when_the_value_stays() -> None:
    assert evaluate(unchanged("n"), Env(pre={"n": 1}, post={"n": 1})) is True
    assert evaluate(unchanged("n"), Env(pre={"n": 1}, post={"n": 2})) is False
    assert (
        evaluate(unchanged("mode", "n"), Env(pre={"mode": ON, "n": 1}, post={"mode": OFF, "n": 1}))
        is False
    )
    props = [
        always("tick-keeps-n", implies(trigger_is("tick"), unchanged("n")), cite="t"),
        always("push-keeps-mode", implies(trigger_is("push"), unchanged("mode")), cite="t"),
    ]
    results = {r.id: r for r in make(lamp(properties=props)).run()}
    assert results["tick-keeps-n"].verdict == "proved"
    moved = results["push-keeps-mode"]
    assert moved.verdict == "violated" and rows_of(moved) == ["push_on"]


@pytest.mark.parametrize(
    ("op", "cases"),
    [
        (le, {(0, 1): True, (1, 1): True, (2, 1): False}),
        (lt, {(0, 1): True, (1, 1): False, (2, 1): False}),
        (ge, {(0, 1): False, (1, 1): True, (2, 1): True}),
        (gt, {(0, 1): False, (1, 1): False, (2, 1): True}),
    ],
)
def test_comparisons_at_the_boundary(op: Any, cases: dict[tuple[int, int], bool]) -> None:
    for (a, b), want in cases.items():
        assert evaluate(op(var("a"), b), Env(pre={"a": a})) is want, (a, b)


def test_le_at_its_boundary_in_the_oracle() -> None:
    # push_on's guard n ≤ 1 holds at n = 1: with `<=` read as `<`, push in (OFF,1)
    # would find no row at all.
    oracle = Oracle(lamp())
    oracle.load({"mode": OFF, "n": 1})
    assert oracle.fire("push").row == "push_on"
    oracle.load({"mode": OFF, "n": 2})
    assert oracle.fire("push").row == "push_full"
    oracle = Oracle(lamp(rows=ROWS[1:]))
    oracle.load({"mode": OFF, "n": 2})
    with pytest.raises(NotTotal):
        oracle.fire("push")


def test_a_state_premise_of_a_step_property_needs_a_step_from_that_state() -> None:
    # Without push_done and with tick_idle only in ON, (DONE,2) is reachable but has no step:
    # the premise of a step property that holds only there is vacuous.
    idle = ignore("tick_idle", "tick", ON, cite="toy")
    rows = [r for r in ROWS if r not in (PUSH_DONE, TICK_IDLE)] + [idle]
    prop = always("done-keeps-n", implies(eq(var("mode"), DONE), unchanged("n")), cite="t")
    result = run(lamp(rows, properties=[prop]), "vacuity")
    assert result.verdict == "violated"
    assert result.detail == "done-keeps-n: the premise mode = DONE is never reachable"


# ---------------------------------------------------------------- what each result says


CITES = {
    "determinism": "kernel: no two rows of one trigger at once",
    "totality": "kernel: every trigger has a row or an ignore (totality: explicit)",
    "no-deadlock": "kernel: a non-ignore row is enabled in every non-terminal state "
    "(totality: explicit)",
    "terminal-absorbing": "kernel: terminal states are absorbing",
    "rows-fire": "kernel: every row (ignore rows too) can fire",
    "vacuity": "kernel: every antecedent of an implication is reachable",
    "reachable-set": "kernel: z3 and the explorer agree",
}


def test_each_structural_result_names_its_kind_cite_basis_and_bound() -> None:
    live = always("on-means-used", implies(eq(var("mode"), ON), ge(var("n"), 1)), cite="t")
    results = {r.id: r for r in make(lamp(properties=[live])).run()}
    for check, cite in CITES.items():
        assert (results[check].kind, results[check].cite) == ("structural", cite), check
        assert results[check].expected == "hold"
    assert (results["rows-fire"].method, results["rows-fire"].bound) == ("bfs", 6)
    vacuity = results["vacuity"]
    assert (vacuity.method, vacuity.bound) == ("bfs", 5)
    assert vacuity.certificate == "all 1 antecedents hold on some reachable state or step"
    reach = results["reachable-set"]
    assert (reach.method, reach.bound) == ("bfs", 5)
    terminal = results["terminal-absorbing"]
    assert terminal.method in ("spacer", "k-induction") and terminal.certificate
    assert terminal.bound is not None or terminal.method == "spacer"


def test_failed_structural_results_keep_their_basis_and_bound() -> None:
    moved = run(lamp(terminal=eq(var("n"), 2)), "terminal-absorbing")
    assert (moved.method, moved.bound, moved.basis) == ("bfs", 4, "trace")
    assert moved.basis_text == "trace of 4 steps, confirmed by z3"
    ghost = ignore("push_ghost", "push", ON, guard=eq(var("n"), 0), cite="toy")
    dead = run(lamp((PUSH_FULL, PUSH_ON, ghost, *ROWS[2:])), "rows-fire")
    assert (dead.method, dead.bound, dead.cite) == ("bfs", 6, CITES["rows-fire"])
    props = [always("n-zero", implies(eq(var("n"), 0), TRUE_N), cite="t")]
    empty = run(lamp(properties=props), "vacuity")
    assert (empty.verdict, empty.method, empty.bound) == ("proved", "bfs", 5)
    props = [always("x", implies(and_(eq(var("mode"), ON), eq(var("n"), 0)), TRUE_N), cite="t")]
    vacuous = run(lamp(properties=props), "vacuity")
    assert (vacuous.verdict, vacuous.method, vacuous.bound) == ("violated", "bfs", None)
    for check in ("determinism", "totality"):
        assert run(lamp((*ROWS, row("again", "push", OFF, ON, cite="t"))), check).kind == (
            "structural"
        )


TRUE_N = le(var("n"), 2)


def test_the_explorer_and_z3_must_agree() -> None:
    # The explorer decides a finite model; z3 certifies or confirms. A graph that is not
    # the spec's (here: another spec's) must turn the verdict into `unknown`.
    moving = row("tick_idle", "tick", (ON, DONE), OFF, cite="toy")  # DONE moves
    checker = make(lamp())
    checker.graph = explore(lamp([moving if r is TICK_IDLE else r for r in ROWS]))
    result = checker.check_terminal()
    assert result.verdict == "unknown", result
    assert result.detail == (
        "z3-confirm gave up on terminal-absorbing: the last step (tick_idle) is not the target"
    )
    # z3 reaches DONE in five steps, a graph that never does: a disagreement.
    prop = never("done", eq(var("mode"), DONE), cite="t")
    never_done = [r for r in ROWS if r not in (TICK_DONE, TICK_WAIT)]
    checker = make(lamp(properties=[prop]))
    checker.graph = explore(lamp([*never_done, ignore("tick_wait", "tick", OFF, cite="t")]))
    disagree = checker.check_property(prop)
    assert disagree.verdict == "unknown"
    assert disagree.detail.startswith(
        "z3 and the explorer disagree: z3 found a trace of 5 steps, the explorer nothing"
    )


def test_a_sampled_reachable_set_result_says_how_much_it_sampled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checks_module, "FULL_SET_CHECK_UP_TO", 2)
    result = run(lamp(), "reachable-set")
    assert (result.verdict, result.method, result.bound) == ("proved", "bfs", 5)
    assert result.certificate is not None
    assert result.certificate.startswith("sampled 6 of 6 states")


def test_a_certificate_z3_cannot_give_leaves_the_search_standing_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prop = always("n-bounded", le(var("n"), 2), cite="t")
    checker = make(lamp(properties=[prop]))
    monkeypatch.setattr(checker, "_prove", lambda *a, **k: Unknown("spacer", "no invariant"))
    result = checker.check_property(prop)
    assert (result.verdict, result.method, result.basis, result.states) == (
        "proved",
        "bfs",
        "exhaustive",
        6,
    )
    assert result.detail == "no certificate within budget (spacer: no invariant)"
    assert result.basis_text == "exhaustive search, 6 states, no certificate within budget"


def test_a_set_check_z3_gives_up_on_stands_on_the_search_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def give_up(*args: object, **kwargs: object) -> None:
        raise SolverLimit("reachable-set", "out of time")

    monkeypatch.setattr(checks_module, "check_reachable_set", give_up)
    result = run(lamp(), "reachable-set")
    assert (result.verdict, result.kind, result.basis, result.states) == (
        "proved",
        "structural",
        "exhaustive",
        6,
    )
    assert result.basis_text == "exhaustive search, 6 states, not cross-checked by z3"
    assert "out of time" in result.detail


# ---------------------------------------------------------------- the oracle's contract


def test_the_oracle_reports_what_it_fired_with_outputs_and_arguments() -> None:
    spec = Spec(
        name="bell",
        source="tests/test_checks_teeth.py",
        vars=(Var("n", IntRange(0, 2), AnyOf(0, 1)), Var("on", Bool(), False)),
        triggers=(Trigger("ring", (Param("loud", Bool()),)), Trigger("hush")),
        outputs=(Output("sound", Bool(), False), Output("count", IntRange(0, 2), 0)),
        rows=(
            row(
                "ring",
                "ring",
                None,
                sets={"n": add(var("n"), 1), "on": True},
                emits={"sound": param("loud")},
                cite="t",
            ),
            row("hush", "hush", None, sets={"on": False}, emits={"count": var("n")}, cite="t"),
        ),
    )
    oracle = Oracle(spec)  # no control variable: one machine state
    assert oracle.state == {"n": 0, "on": False}
    fired = oracle.fire("ring", loud=True)
    assert (fired.row, fired.trigger, dict(fired.params)) == ("ring", "ring", {"loud": True})
    assert dict(fired.state) == {"n": 1, "on": True}
    assert dict(fired.outputs) == {"sound": True, "count": 0}  # count: its default
    hushed = oracle.fire("hush")
    assert dict(hushed.outputs) == {"sound": False, "count": 1}
    assert dict(hushed.state) == {"n": 1, "on": False}
    oracle.reset({"n": 1})
    assert oracle.state == {"n": 1, "on": False}
    oracle.fire("ring", loud=False)
    with pytest.raises(OracleError, match=r"row 'ring' sets 'n' to 3, outside int 0\.\.2"):
        oracle.fire("ring", loud=False)
    with pytest.raises(OracleError, match=r"state lacks \['on'\]"):
        oracle.load({"n": 0})
    with pytest.raises(OracleError, match=r"trigger 'hush' takes \[\], got \['loud'\]"):
        oracle.fire("hush", loud=True)


def test_the_oracle_fires_rows_from_their_sources_only() -> None:
    oracle = Oracle(lamp())
    assert oracle.state == {"mode": OFF, "n": 0}
    assert oracle.fire("tick").row == "tick_wait"
    assert oracle.fire("push").state["mode"] is ON
    assert oracle.fire("tick").row == "tick_idle"
    oracle.load({"mode": DONE, "n": 2})
    assert (oracle.fire("push").row, oracle.fire("tick").row) == ("push_done", "tick_idle")
    assert oracle.state == {"mode": DONE, "n": 2}
    with pytest.raises(NotTotal, match=r"no row of 'tick' is enabled in \{'n': 0, 'mode'"):
        Oracle(lamp([r for r in ROWS if r is not TICK_WAIT])).fire("tick")


# ---------------------------------------------------------------- z3's reading of a trace


def test_z3_confirms_a_real_trace_and_refuses_each_kind_of_bad_one() -> None:
    spec = lamp()
    z3 = make(spec).z3
    graph = explore(spec)
    done = graph.path_to(len(graph.states) - 1)  # the five steps to (DONE,2)
    at_done = eq(var("mode"), DONE)
    assert isinstance(z3.confirm(done, at_done, step=False), Found)
    late = z3.confirm(Trace(done.steps[0].state, done.steps[1:]), at_done, step=False)
    assert isinstance(late, Unknown) and late.reason.startswith("the trace's first state")
    short = z3.confirm(Trace(done.init, done.steps[:-1]), at_done, step=False)
    assert isinstance(short, Unknown)
    assert short.reason == "the trace's last state is not the target"
    wrong = replace(done.steps[1], row="push_on")  # push_off's step, named push_on
    forged = z3.confirm(
        Trace(done.init, (done.steps[0], wrong, *done.steps[2:])), at_done, step=False
    )
    assert (
        isinstance(forged, Unknown) and forged.reason == "step 2 (push_on) is not a z3 transition"
    )
    via_tick = and_(trigger_is("tick"), eq(nxt("mode"), DONE))
    assert isinstance(z3.confirm(done, via_tick, step=True), Found)
    via_push = and_(trigger_is("push"), eq(nxt("mode"), DONE))
    missed = z3.confirm(done, via_push, step=True)
    assert isinstance(missed, Unknown)
    assert missed.reason == "the last step (tick_done) is not the target"


def _case_certificate(easy: int, total: int, hard: int) -> str:
    verb = "holds" if easy == 1 else "hold"
    cases = "case" if total == 1 else "cases"
    return f"{easy} of {total} {cases} {verb} in every state (k=0), {hard} on every reachable state"


@pytest.mark.parametrize("method", ["spacer", "k-induction"])
def test_each_proved_structural_check_gives_its_method_bound_and_certificate(
    method: Method,
) -> None:
    got = {r.id: (r.method, r.bound, r.certificate) for r in make(lamp(), method=method).run()}
    assert got["determinism"] == ("k-induction", 0, _case_certificate(9, 9, 0))
    assert got["totality"] == ("k-induction", 0, _case_certificate(2, 2, 0))
    assert got["no-deadlock"] == ("k-induction", 0, _case_certificate(1, 1, 0))
    assert got["terminal-absorbing"][:2] == ("k-induction", 0)
    # One case needs reachability: the method proving it, no bound.
    odd = row("push_odd", "push", ON, OFF, guard=eq(var("n"), 0), cite="toy")
    result = next(make(lamp((*ROWS, odd)), method=method).run("determinism"))
    assert (result.method, result.bound) == (method, None)
    assert result.certificate == _case_certificate(12, 13, 1)


def test_each_property_result_gives_its_basis_and_what_it_means() -> None:
    props = [
        sometimes("via-tick", and_(trigger_is("tick"), eq(nxt("mode"), DONE)), cite="t"),
        sometimes(
            "tick-on", and_(trigger_is("tick"), eq(var("mode"), OFF), eq(nxt("mode"), ON)), cite="t"
        ),
        always("n-bounded", le(var("n"), 2), cite="t"),
    ]
    got = {r.id: r for r in make(lamp(properties=props)).run()}
    witness = got["via-tick"]
    assert (witness.verdict, witness.method, witness.bound, witness.basis) == (
        "witnessed",
        "bfs",
        5,
        "trace",
    )
    assert witness.detail == "trace of 5 steps, each confirmed by z3"
    assert rows_of(witness)[-1] == "tick_done"
    never_seen = got["tick-on"]
    assert (never_seen.verdict, never_seen.basis, never_seen.states) == (
        "violated",
        "exhaustive",
        6,
    )
    assert never_seen.detail == "never reachable: no reachable state or step is it"
    assert never_seen.certificate == "0-inductive: no step from any type-correct state breaks it"
    proved = got["n-bounded"]
    assert (proved.verdict, proved.method, proved.basis) == ("proved", "spacer", "exhaustive")
    assert proved.certificate == "inv: Not(n >= 3)"
    assert proved.basis_text == "exhaustive search, 6 states, and a z3 certificate"
    for r in got.values():
        assert r.expected == "hold" and (r.kind == "structural" or r.cite == "t")


def test_determinism_reads_the_triggers_arguments() -> None:
    # Two rows of ring overlap only when loud is true: the case needs ring's argument.
    def bell(quiet_guard: Any) -> Spec:
        return Spec(
            name="bell",
            source="tests/test_checks_teeth.py",
            vars=(Var("n", IntRange(0, 1), 0),),
            triggers=(Trigger("ring", (Param("loud", Bool()),)),),
            rows=(
                row("ring_loud", "ring", None, guard=param("loud"), sets={"n": 1}, cite="t"),
                row("ring_quiet", "ring", None, guard=quiet_guard, sets={"n": 0}, cite="t"),
            ),
        )

    overlap = run(bell(eq(var("n"), 0)), "determinism")
    assert overlap.verdict == "violated"
    assert overlap.detail == "rows 'ring_loud' and 'ring_quiet' are both enabled"
    assert overlap.bound == 0
    apart = run(bell(eq(param("loud"), False)), "determinism")
    assert apart.verdict == "proved"


def test_an_enabled_only_spec_refuses_a_trigger_with_no_enabled_row_as_not_enabled() -> None:
    rows = [r for r in ROWS if r is not TICK_WAIT]  # tick does nothing in (OFF, n < 2)
    explicit = Oracle(lamp(rows))
    with pytest.raises(NotTotal, match="the spec is not total here") as total:
        explicit.fire("tick")
    assert not isinstance(total.value, NotEnabled)
    enabled_only = Oracle(replace(lamp(rows), totality="enabled-only"))
    with pytest.raises(NotEnabled) as refused:
        enabled_only.fire("tick")
    assert (
        str(refused.value) == "no row of 'tick' is enabled in {'n': 0, 'mode': <Mode.OFF: 'off'>}"
    )
    assert enabled_only.fire("push").row == "push_on"  # an enabled row still fires


def test_a_premise_inside_quantifiers_is_closed_over_the_variables_it_reads() -> None:
    # For all k: (n = k ∧ ON) ⇒ …  is vacuous only if no k ever makes the premise true.
    k_range, j_range = IntRange(0, 2), IntRange(0, 1)
    props = [
        always(
            "on-used",
            forall(
                "k",
                k_range,
                lambda k: implies(and_(eq(var("n"), k), eq(var("mode"), ON)), ge(k, 1)),
            ),
            cite="t",
        ),
        always(
            "done-early",
            forall(
                "j",
                j_range,
                lambda j: forall(
                    "k",
                    k_range,
                    lambda k: implies(
                        and_(eq(var("n"), k), eq(var("mode"), DONE), lt(k, 2)), eq(var("n"), 0)
                    ),
                ),
            ),
            cite="t",
        ),
        never(
            "mixed",
            exists(
                "j",
                j_range,
                lambda j: forall(
                    "k",
                    k_range,
                    lambda k: implies(and_(eq(var("n"), k), eq(k, j)), eq(var("mode"), DONE)),
                ),
            ),
            cite="t",
        ),
    ]
    # A connective between the quantifier and the implication binds nothing.
    inside_and = forall(
        "k", k_range, lambda k: and_(implies(eq(var("n"), k), ge(var("n"), 0)), le(var("n"), 2))
    )
    props.append(always("under-and", inside_and, cite="t"))
    spec = lamp(properties=props)
    assert [(name, step, show(None, p)) for name, step, p in premises(spec)] == [
        ("on-used", False, "∃k ∈ int: n = k ∧ mode = ON"),
        ("done-early", False, "∃k ∈ int: n = k ∧ mode = DONE ∧ k < 2"),
        ("mixed", False, "∃j ∈ int: ∃k ∈ int: n = k ∧ k = j"),
        ("under-and", False, "∃k ∈ int: n = k"),
    ]
    result = run(spec, "vacuity")
    assert result.verdict == "violated"
    assert result.detail == (
        "done-early: the premise ∃k ∈ int: n = k ∧ mode = DONE ∧ k < 2 is never reachable"
    )
