"""Liveness under fairness (issue 17): the three property forms, weak and strong fairness,
and the lasso counterexample, on specs small enough to know every run by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from models import duplex
from models import policy
from models import wave
from models.cli.main import main
from models.cli.report_cards import Sources
from models.cli.report_cards import card
from models.kernel import Bool
from models.kernel import IntRange
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import add
from models.kernel import and_
from models.kernel import eq
from models.kernel import eventually
from models.kernel import infinitely_often
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import not_
from models.kernel import nxt
from models.kernel import row
from models.kernel import strong
from models.kernel import sub
from models.kernel import var
from models.kernel import weak
from models.kernel.checks import Checker
from models.kernel.checks import CheckResult
from models.kernel.explore import explore
from models.kernel.itf import itf_text
from models.kernel.itf import read_itf
from models.kernel.liveness import Graph
from models.kernel.liveness import check_liveness
from models.kernel.trace import Trace
from models.kernel.tracecheck import check_trace


def _spec(
    rows: tuple[object, ...], triggers: tuple[str, ...], live: tuple[object, ...], **more: object
) -> Spec:
    return Spec(
        name="tiny",
        source="tests/test_liveness.py",
        vars=(Var("x", IntRange(0, 2), 0), Var("r", Bool(), False)),
        triggers=tuple(Trigger(t) for t in triggers),
        rows=rows,  # type: ignore[arg-type]
        liveness=live,  # type: ignore[arg-type]
        totality="enabled-only",
        check_deadlock=False,
        **more,  # type: ignore[arg-type]
    )


def _check(spec: Spec, name: str) -> CheckResult:
    return next(Checker(spec).run(name))


def _xs(trace: Trace | None) -> list[object]:
    assert trace is not None
    return [s["x"] for s in trace.states()]


GO = row("go", "go", None, guard=lt(var("x"), 2), sets={"x": add(var("x"), 1)}, cite="t")
# x flips between 0 and 1; `done` leaves for 2, enabled only at 1.
TICK = row("tick", "tick", None, guard=lt(var("x"), 2), sets={"x": sub(1, var("x"))}, cite="t")
DONE = row("done", "done", None, guard=eq(var("x"), 1), sets={"x": 2}, cite="t")
FINISHED = eventually("finished", eq(var("x"), 2), cite="t: the run finishes")


def test_without_fairness_a_run_may_stop_anywhere() -> None:
    spec = _spec((GO,), ("go",), (FINISHED,))
    check = _check(spec, "finished")
    assert (check.verdict, check.method, check.loop) == ("violated", "scc", 0)
    assert _xs(check.trace) == [0]  # stem of 0 steps, stutters forever in the initial state
    assert "stutters forever at step 0" in check.basis_text


def test_weak_fairness_makes_eventually_hold_exhaustively() -> None:
    spec = _spec((GO,), ("go",), (FINISHED,), fairness=weak("go"))
    check = _check(spec, "finished")
    assert (check.verdict, check.basis, check.states) == ("proved", "exhaustive", 3)


def test_a_violated_eventually_under_weak_fairness_gets_its_exact_lasso() -> None:
    spec = _spec((TICK, DONE), ("tick", "done"), (FINISHED,), fairness=weak("tick", "done"))
    check = _check(spec, "finished")
    assert check.verdict == "violated"
    # done is disabled at x=0 on the loop, so weak fairness lets tick cycle forever.
    assert _xs(check.trace) == [0, 1, 0] and check.loop == 0
    assert check.trace is not None and [s.row for s in check.trace.steps] == ["tick", "tick"]
    assert "loop back to step 0" in check.basis_text
    assert "weak(done): disabled on the loop" in check.detail


def test_strong_fairness_is_needed_where_the_step_is_only_intermittently_enabled() -> None:
    spec = _spec((TICK, DONE), ("tick", "done"), (FINISHED,), fairness=weak("tick"))
    refined = eventually("finished", eq(var("x"), 2), cite="t", fair=[strong("done")])
    assert _check(spec, "finished").verdict == "violated"
    held = _check(
        _spec((TICK, DONE), ("tick", "done"), (refined,), fairness=weak("tick")), "finished"
    )
    assert held.verdict == "proved"
    # Strong fairness of done alone is not enough: the run may stop at x=0.
    alone = _check(_spec((TICK, DONE), ("tick", "done"), (refined,)), "finished")
    assert (alone.verdict, _xs(alone.trace), alone.loop) == ("violated", [0], 0)


def test_a_cycle_past_the_goal_does_not_violate_eventually() -> None:
    # x goes 0 → 1 → 2 and rests at 2: a run passes x = 1 before it can stop outside it.
    passed = eventually("passes-one", eq(var("x"), 1), cite="t")
    spec = _spec((GO,), ("go",), (passed,), fairness=weak("go"))
    assert _check(spec, "passes-one").verdict == "proved"
    # Without fairness it may stop at 0, before the goal: the only lasso there is.
    bare = _check(_spec((GO,), ("go",), (passed,)), "passes-one")
    assert (bare.verdict, _xs(bare.trace), bare.loop) == ("violated", [0], 0)


def test_the_stem_stays_out_of_the_goal_once_inside_the_region() -> None:
    # From x=0 the short way to the stuck x=2 passes x = 1 (the goal); the stem must take
    # the long way round through r, never visiting x = 1.
    x, r = var("x"), var("r")
    up = row("up", "up", None, guard=and_(eq(x, 0), not_(r)), sets={"x": 1}, cite="t")
    down = row("down", "down", None, guard=eq(x, 1), sets={"x": 2}, cite="t")
    via = row("via", "via", None, guard=and_(eq(x, 0), not_(r)), sets={"r": True}, cite="t")
    hop = row("hop", "hop", None, guard=and_(eq(x, 0), r), sets={"x": 2}, cite="t")
    land = row("land", "land", None, guard=and_(eq(x, 2), r), sets={"r": False}, cite="t")
    passed = eventually("passes-one", eq(x, 1), cite="t")
    names = ("up", "down", "via", "hop", "land")
    spec = _spec((up, down, via, hop, land), names, (passed,), fairness=weak(*names))
    check = _check(spec, "passes-one")
    assert check.verdict == "violated" and check.trace is not None
    assert _xs(check.trace) == [0, 0, 2, 2] and check.loop == 3  # then stuck at x=2
    assert [s.row for s in check.trace.steps] == ["via", "hop", "land"]


def test_the_loop_visits_a_state_disabling_each_weak_constraint_it_does_not_take() -> None:
    # x=0 reaches 1 and 2 and back; `one` is enabled at 0 and 1, `two` at 0 and 2, both
    # leave for the goal r. A fair loop from 0 must visit 1 (two off) and 2 (one off).
    x, r = var("x"), var("r")
    right = row("right", "right", None, guard=eq(x, 0), sets={"x": 1}, cite="t")
    left = row("left", "left", None, guard=eq(x, 0), sets={"x": 2}, cite="t")
    back = row("back", "back", None, guard=not_(eq(x, 0)), sets={"x": 0}, cite="t")
    one = row("one", "one", None, guard=lt(x, 2), sets={"r": True}, cite="t")
    two = row("two", "two", None, guard=not_(eq(x, 1)), sets={"r": True}, cite="t")
    answered = eventually("answered", r, cite="t")
    names = ("right", "left", "back", "one", "two")
    spec = _spec((right, left, back, one, two), names, (answered,), fairness=weak("one", "two"))
    check = _check(spec, "answered")
    assert check.verdict == "violated" and check.trace is not None and check.loop == 0
    assert _xs(check.trace) == [0, 1, 0, 2, 0]
    assert [s.row for s in check.trace.steps] == ["right", "back", "left", "back"]
    assert "weak(one): disabled on the loop" in check.detail
    assert "weak(two): disabled on the loop" in check.detail


def test_one_graph_checks_properties_of_different_fairness_each_under_its_own() -> None:
    # The graph keeps per-fairness tables: the unfair property's must not serve the fair one.
    bare = eventually("bare", eq(var("x"), 2), cite="t")
    fair = eventually("fair", eq(var("x"), 2), cite="t", fair=weak("go"))
    graph = Graph(explore(_spec((GO,), ("go",), (bare, fair))))
    stops = check_liveness(graph, bare)
    assert not stops.holds and stops.fair_components == 2  # it may stop at x=0 or x=1
    assert check_liveness(graph, fair).holds


def test_a_fair_component_reached_only_through_the_goal_is_found() -> None:
    # x counts 0, 1, 2, then resets to 0 with r set and stops there: infinitely often x = 2
    # fails at that last state, which the search of the region from x=0 does not reach.
    x, r = var("x"), var("r")
    go = row("go", "go", None, guard=and_(lt(x, 2), not_(r)), sets={"x": add(x, 1)}, cite="t")
    reset = row(
        "reset", "reset", None, guard=and_(eq(x, 2), not_(r)), sets={"x": 0, "r": True}, cite="t"
    )
    often = infinitely_often("often", eq(x, 2), cite="t")
    spec = _spec((go, reset), ("go", "reset"), (often,), fairness=weak("go", "reset"))
    check = _check(spec, "often")
    assert check.verdict == "violated" and check.trace is not None
    assert _xs(check.trace) == [0, 1, 2, 0] and check.loop == 3


ASK = row("ask", "ask", None, guard=not_(var("r")), sets={"r": True}, cite="t")
SERVE = row("serve", "serve", None, guard=var("r"), sets={"r": False}, cite="t")
ANSWERED = leads_to("answered", var("r"), not_(var("r")), cite="t: a request is served")


def test_leads_to_needs_fairness_of_the_answer() -> None:
    unfair = _check(_spec((ASK, SERVE), ("ask", "serve"), (ANSWERED,)), "answered")
    assert unfair.verdict == "violated" and unfair.loop == 1
    assert unfair.trace is not None and [s.row for s in unfair.trace.steps] == ["ask"]
    fair = _spec((ASK, SERVE), ("ask", "serve"), (ANSWERED,), fairness=weak("serve"))
    assert _check(fair, "answered").verdict == "proved"


def test_infinitely_often() -> None:
    flip = row("flip", "flip", None, guard=lt(var("x"), 2), sets={"x": sub(1, var("x"))}, cite="t")
    often = infinitely_often("often-one", eq(var("x"), 1), cite="t")
    assert _check(_spec((flip,), ("flip",), (often,)), "often-one").verdict == "violated"
    fair = _spec((flip,), ("flip",), (often,), fairness=weak("flip"))
    assert _check(fair, "often-one").verdict == "proved"


STAY = row("go", "go", None, guard=lt(var("x"), 2), sets={"x": var("x")}, cite="t")


def test_a_variant_may_be_expected_to_violate_a_liveness_property() -> None:
    spec = _spec(
        (GO,),
        ("go",),
        (FINISHED,),
        fairness=weak("go"),
        variants=(Variant("stuck", "go stays put", "t", ("finished",), replace={"go": STAY}),),
    )
    variant = spec.with_variant("stuck")
    (check,) = list(Checker(variant).run())
    assert (check.verdict, check.expected, check.ok) == ("violated", "violate", True)
    # Weak fairness is met by taking go forever: a self-loop, loop back to step 0.
    assert (_xs(check.trace), check.loop) == ([0, 0], 0)


@pytest.mark.parametrize(
    ("live", "fairness", "message"),
    [
        (eventually("e", eq(var("x"), 2), cite=""), (), "no source citation"),
        (eventually("e", eq(nxt("x"), 2), cite="t"), (), "reads states only"),
        (eventually("e", eq(var("y"), 2), cite="t"), (), "unknown variable 'y'"),
        (eventually("e", eq(var("x"), 2), cite="t", fair=[weak("nope")]), (), "names no trigger"),
        (eventually("e", eq(var("x"), 2), cite="t"), weak("nope"), "spec fairness"),
        (eventually("determinism", eq(var("x"), 2), cite="t"), (), "structural check"),
    ],
)
def test_a_malformed_liveness_property_is_refused_at_build_time(
    live: object, fairness: tuple[object, ...], message: str
) -> None:
    with pytest.raises(SpecError, match=message):
        _spec((GO,), ("go",), (live,), fairness=fairness)


@pytest.mark.parametrize(
    ("form", "preds"),
    [
        (eventually, (eq(var("x"), 2),)),
        (leads_to, (eq(var("x"), 1), eq(var("x"), 2))),
        (infinitely_often, (eq(var("x"), 2),)),
    ],
)
def test_a_misspelt_liveness_option_is_refused_as_a_signature_would(
    form: Callable[..., object], preds: tuple[object, ...]
) -> None:
    # The constructors take their options as `**options`: a typo must not drop fairness.
    message = rf"^{form.__name__}\(\) got an unexpected keyword argument 'fiar'$"
    with pytest.raises(TypeError, match=message):
        form("e", *preds, cite="t", fiar=[weak("go")])


# ---------------------------------------------------------------- the seeds


def test_the_seeds_carry_their_liveness_verdicts() -> None:
    # wave settles under weak fairness of the runner and the clock, the adapter getting none.
    settles = _check(wave.SPEC, "eventually-settles")
    assert (settles.verdict, settles.basis, settles.states) == ("proved", "exhaustive", 98)
    answered = _check(duplex.SPEC, "a-turn-claim-in-overlap-is-answered")
    assert (answered.verdict, answered.basis) == ("proved", "sampled")
    assert "real variables' samples" in answered.basis_text
    in_force = _check(policy.POLICY_SPEC, "a-change-is-in-force-at-a-wave-start")
    assert (in_force.verdict, in_force.basis) == ("proved", "exhaustive")


def test_each_seed_property_needs_its_fairness() -> None:
    for spec, name in (
        (duplex.SPEC, "a-turn-claim-in-overlap-is-answered"),
        (policy.POLICY_SPEC, "a-change-is-in-force-at-a-wave-start"),
    ):
        bare = replace(spec, liveness=(replace(spec.live(name), fairness=()),))
        assert _check(bare, name).verdict == "violated"
    assert _check(replace(wave.SPEC, fairness=weak(wave.TIME)), "eventually-settles").loop == 0


def test_the_seeds_unbounded_ping_is_a_lasso() -> None:
    # transport.ts: `ping = await adapter.ping()` has no timeout: launched, it may wait forever.
    check = _check(wave.SPEC.with_variant("seed"), "eventually-settles")
    assert (check.verdict, check.expected, check.loop) == ("violated", "violate", 1)
    assert check.trace is not None and [s.row for s in check.trace.steps] == ["launch_pings"]
    assert check.trace.steps[0].state["phase"] is wave.Phase.PING


def test_a_lost_link_is_shown_by_its_lasso_as_not_promised() -> None:
    check = _check(duplex.SPEC, "a-turn-claim-outlives-a-lost-link")
    assert (check.verdict, check.expected, check.ok) == ("violated", "violate", True)
    assert check.trace is not None and check.loop == len(check.trace.steps)
    # A claim in Overlap, the heartbeat lost, and the link never restored: a fair stutter.
    assert [s.row for s in check.trace.steps][-2:] == [
        "onset_enters_overlap",
        "heartbeat_lost_degrades",
    ]
    assert check.trace.states()[-1]["state"] is duplex.State.DEGRADED
    assert "stutters forever at step 5" in check.basis_text and "on the the" not in check.basis_text
    assert "weak(apply): never enabled on the loop" in check.detail
    # Were the restore fair, the claim would outlive the loss: the witness rests on its absence.
    restored = replace(
        duplex.SPEC,
        fairness=weak("link_restored"),
        variants=(),
        liveness=(replace(duplex.SPEC.live(check.id), promised=True),),
    )
    assert _check(restored, check.id).verdict == "proved"


def test_a_backchannel_that_answers_in_overlap_is_a_liveness_only_fault() -> None:
    spec = duplex.SPEC.with_variant("backchannel-holds-overlap")
    check = _check(spec, "a-turn-claim-in-overlap-is-answered")
    assert (check.verdict, check.expected, check.basis) == ("violated", "violate", "trace")
    assert check.trace is not None and check.loop == len(check.trace.steps) - 1
    # The stem reaches Overlap; the loop is the Backchannel verdict, answered and taken forever.
    assert check.trace.steps[-1].row == "backchannel_holds_overlap"
    assert "weak(apply): taken on the loop" in check.detail
    # Every safety and structural check of the spec still holds on the faulty rows.
    full = replace(spec, properties=duplex.SPEC.properties, expect_violated=())
    assert [c.id for c in Checker(full).run() if not c.ok] == [check.id]


@pytest.mark.parametrize("spec", [policy.POLICY_SPEC, policy.POLICY_CONCRETE_SPEC])
def test_a_copied_arrival_is_never_taken_out_of_the_mailbox(spec: Spec) -> None:
    check = _check(spec.with_variant("copies-the-arrival"), "a-change-is-in-force-at-a-wave-start")
    assert (check.verdict, check.expected, check.basis) == ("violated", "violate", "trace")
    assert check.trace is not None
    rows = [s.row for s in check.trace.steps]
    assert rows[0] == "change_arrives" and set(rows[1:]) == {"wave_copies_arrival"}
    # The loop is one wave that puts the change in force yet leaves it pending, again and again.
    assert check.loop == len(rows) - 1
    last = check.trace.states()[-1]
    assert last["pending"] is not None and last["in_force"] == last["wave_start"]


# (spec, property, what explain says, whether the base spec's rows also produce the lasso's
# steps: the seed's stutter does, and duplex's loop is the seed's no-op step, state for state,
# since the fault is which step counts as an answer, not what a step does).
LASSOS = [
    ("wave:seed", "eventually-settles", "then stutters forever at step 1", True),
    ("duplex:backchannel-holds-overlap", "a-turn-claim-in-overlap-is-answered", "loop back", True),
    ("policy:copies-the-arrival", "a-change-is-in-force-at-a-wave-start", "loop back", False),
    ("policy-concrete:copies-the-arrival", "a-change-is-in-force-at-a-wave-start", "loop", False),
]


@pytest.mark.parametrize(("name", "prop", "said", "base"), LASSOS, ids=[x[0] for x in LASSOS])
def test_every_liveness_fault_prints_a_lasso_that_check_trace_accepts(
    name: str,
    prop: str,
    said: str,
    base: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    itf = tmp_path / "lasso.itf.json"
    assert main(["explain", name, prop, "--itf", str(itf)]) == 0
    assert said in capsys.readouterr().out
    text = json.loads(itf.read_text())

    def values(state: dict[str, object]) -> dict[str, object]:
        return {k: v for k, v in state.items() if k in text["vars"]}

    assert values(text["states"][-1]) == values(text["states"][text["loop"]])
    assert main(["check-trace", name, str(itf)]) == 0
    assert main(["check-trace", name.split(":")[0], str(itf)]) == (0 if base else 1)
    capsys.readouterr()


def test_explain_prints_the_lasso_and_check_trace_accepts_its_itf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    itf = tmp_path / "lasso.itf.json"
    assert main(["explain", "wave:seed", "eventually-settles", "--itf", str(itf)]) == 0
    out = capsys.readouterr().out
    assert "then stutters forever at step 1" in out and "launch_pings" in out
    assert json.loads(itf.read_text())["loop"] == 1
    assert main(["check-trace", "wave:seed", str(itf)]) == 0
    # A loop index whose state the last state does not repeat is refused: not a lasso.
    broken = json.loads(itf.read_text()) | {"loop": 0}
    itf.write_text(json.dumps(broken))
    assert main(["check-trace", "wave:seed", str(itf)]) == 2
    assert "not a lasso" in capsys.readouterr().err


def test_a_lasso_with_a_loop_round_trips_through_itf(tmp_path: Path) -> None:
    spec = _spec((TICK, DONE), ("tick", "done"), (FINISHED,), fairness=weak("tick", "done"))
    check = _check(spec, "finished")
    assert check.trace is not None
    text = itf_text(spec, check.trace, loop=check.loop)
    assert json.loads(text)["loop"] == 0
    log = read_itf(spec, text)
    assert check_trace(spec, log).ok


def test_the_report_card_shows_the_property_its_fairness_and_the_lasso(tmp_path: Path) -> None:
    spec = wave.SPEC.with_variant("seed")
    check = _check(spec, "eventually-settles")
    html = card(spec, check, Sources(tmp_path / "report.html"), None)
    assert "eventually phase = SETTLED" in html
    assert "Fairness: weak(runner), weak(time)." in html
    assert "stutters forever at step 1" in html
