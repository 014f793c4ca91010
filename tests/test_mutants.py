"""The model-mutant gate: generation (row and definition operators), the model layer against
`verify`, z3's confirmation of its kills, conformance (the sweep of every trigger in every
state), z3's equivalence proofs, the `vacuity` check, lockstep's zero-hit rule and the CLI.

tests/candidates/SPEC.OPERATORS.json lists, in order, the (operator, row, description) of
each mutant the row or definition operators make of a small spec below. After a deliberate
change to an operator, write them again from `[c[:3] for c in ...]` and read the diff
before committing it."""

from __future__ import annotations

import enum
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import settings
from systems import counter

import conformance.harness as harness
from conformance.harness import conformance_kill
from conformance.harness import drivers
from conformance.harness import run_lockstep
from models.cli import mutants as cli_mutants
from models.cli.main import main
from models.cli.registry import all_specs
from models.kernel import IntRange
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Variant
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eventually
from models.kernel import exists
from models.kernel import forall
from models.kernel import ge
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_in
from models.kernel import le
from models.kernel import lt
from models.kernel import mutants as kernel_mutants
from models.kernel import never
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import sometimes
from models.kernel import strong
from models.kernel import var
from models.kernel import weak
from models.kernel.checks import verify
from models.kernel.domains import Bool
from models.kernel.domains import Finite
from models.kernel.domains import Real
from models.kernel.domains import Value
from models.kernel.explore import explore
from models.kernel.expr import TRUE
from models.kernel.expr import And
from models.kernel.expr import Const
from models.kernel.expr import Env
from models.kernel.expr import Expr
from models.kernel.expr import Not
from models.kernel.expr import compiled
from models.kernel.expr import eq
from models.kernel.expr import nxt
from models.kernel.expr import out
from models.kernel.expr import total
from models.kernel.expr import trigger_is
from models.kernel.mutants import Baseline
from models.kernel.mutants import Kill
from models.kernel.mutants import candidates
from models.kernel.mutants import confirmed
from models.kernel.mutants import definition_candidates
from models.kernel.mutants import generate
from models.kernel.mutants import liveness_candidates
from models.kernel.mutants import model_kill
from models.kernel.mutants import mutant_graph
from models.kernel.mutants import same_fairness
from models.kernel.mutants import toothless
from models.kernel.smt import Equivalence
from models.kernel.smt import SolverLimit
from models.kernel.smt import prove_equivalent
from models.kernel.spec import AnyOf
from models.kernel.spec import Fairness
from models.kernel.spec import Kind
from models.kernel.spec import Output
from models.kernel.spec import Param
from models.kernel.spec import Property
from models.kernel.spec import Trigger
from models.kernel.spec import Var

SPECS = ("duplex", "wave", "policy", "admission")
OPERATORS = {
    "drop-guard",
    "drop-conjunct",
    "drop-update",
    "replace-update",
    "retarget",
    "drop-output",
    "swap-outputs",
    "replace-output",
    "move-to-ignore",
    "ignore-to-move",
    "widen-init",
    "change-init",
}
DEFINITION_OPERATORS = {
    "regroup",
    "guard-constant",
    "table-constant",
    "drop-set-entry",
    "reset-forgets",
    "init-each",
    "out-for-param",
    "param-for-out",
}


def _find(name: str, operator: str, row_name: str | None, detail: str = "") -> Spec:
    """One mutant, built from the candidates whatever the sample keeps."""
    for op, r, text, build in candidates(all_specs()[name])[0]:
        if op == operator and r == row_name and detail in text:
            return replace(build(), name=f"{name}-{op}")
    raise AssertionError(f"no {operator} mutant of {name} row {row_name} ({detail})")


def _defined(name: str, operator: str, detail: str) -> Spec:
    """One definition operator's mutant, whatever the sample keeps."""
    for op, _, text, build in definition_candidates(all_specs()[name]):
        if op == operator and detail in text:
            return replace(build(), name=f"{name}-{op}")
    raise AssertionError(f"no {operator} mutant of {name} ({detail})")


def test_generation_is_seeded_bounded_and_nested() -> None:
    for name in SPECS:
        spec = all_specs()[name]
        made = [(op, r, detail) for op, r, detail, _ in candidates(spec)[0]]
        assert made == [(op, r, detail) for op, r, detail, _ in candidates(spec)[0]]
        assert len(made) >= 20
        small, smaller = (
            generate(spec, limit=6, extra_limit=0, live_limit=0),
            generate(spec, limit=3, extra_limit=0, live_limit=0),
        )
        extra = len(definition_candidates(spec)) + len(liveness_candidates(spec))
        assert small.skipped == small.candidates - 6 == len(made) + extra - 6
        kinds = [(m.operator, m.row, m.detail) for m in small.mutants]
        assert {(m.operator, m.row, m.detail) for m in smaller.mutants} <= set(kinds)
        again = generate(spec, limit=6, extra_limit=0, live_limit=0).mutants
        assert kinds == [(m.operator, m.row, m.detail) for m in again]
        # The definition and liveness operators' samples are ranked apart: the row sample
        # does not move.
        both = generate(spec, limit=6, extra_limit=4, live_limit=3).mutants
        assert [(m.operator, m.row, m.detail) for m in both[:6]] == kinds
    used = {c[0] for n in SPECS for c in candidates(all_specs()[n])[0]}
    assert used == OPERATORS
    defined = {c[0] for n in SPECS for c in definition_candidates(all_specs()[n])}
    assert defined == DEFINITION_OPERATORS
    lively = {c[0] for n in SPECS for c in liveness_candidates(all_specs()[n])}
    assert lively == {"drop-fairness", "self-loop"}


def _lively(name: str, operator: str, detail: str, row_name: str | None = None) -> Spec:
    """One liveness operator's mutant, whatever the sample keeps."""
    for op, r, text, build in liveness_candidates(all_specs()[name]):
        if op == operator and detail in text and r == row_name:
            return replace(build(), name=f"{name}-{op}")
    raise AssertionError(f"no {operator} mutant of {name} ({detail})")


# Mutants only liveness can kill: the same steps as the original (z3 proves it), fewer fair
# runs; and a fair row that stays put, which safety cannot tell from a step that waits.
LIVE_ONLY = [
    ("wave", "drop-fairness", "weak(runner) dropped from the spec", None, "eventually-settles"),
    ("wave", "drop-fairness", "weak(time) dropped from the spec", None, "eventually-settles"),
    (
        "duplex",
        "drop-fairness",
        "weak(apply) dropped from a-turn-claim-in-overlap-is-answered",
        None,
        "a-turn-claim-in-overlap-is-answered",
    ),
    (
        "policy",
        "drop-fairness",
        "weak(wave) dropped from a-change-is-in-force-at-a-wave-start",
        None,
        "a-change-is-in-force-at-a-wave-start",
    ),
    ("wave", "self-loop", "stays", "late_spawn_abandoned", "eventually-stops-watching"),
]


@pytest.mark.parametrize(("name", "op", "detail", "row_name", "check"), LIVE_ONLY)
def test_a_liveness_operator_is_killed_by_a_confirmed_lasso(
    name: str, op: str, detail: str, row_name: str | None, check: str
) -> None:
    spec = all_specs()[name]
    base = Baseline(spec)
    mutant = _lively(name, op, detail, row_name)
    kill = model_kill(base, mutant)
    assert kill is not None and kill.check == check and confirmed(kill) is None
    # No safety or structural check sees it: with the liveness properties gone, it survives.
    assert model_kill(base, replace(mutant, liveness=(), variants=())) is None
    if op == "drop-fairness":  # the steps are the original's: only the fairness differs
        states = [base.graph.as_dict(i) for i in range(len(base.graph.states))]
        assert prove_equivalent(spec, mutant, states).equal
        assert not same_fairness(base, mutant)


def test_fairness_decides_equivalence_when_the_steps_agree() -> None:
    # A move that changes nothing made an ignore row: the same steps, and under weak
    # fairness the same fair runs (a run in EMPTY meets weak(wave) by taking the no-op
    # wave, or by wave being disabled there: both stay put).
    spec = all_specs()["policy"]
    base = Baseline(spec)
    states = [base.graph.as_dict(i) for i in range(len(base.graph.states))]
    noop = next(r for r in spec.rows if r.name == "wave_takes_nothing")
    assert same_fairness(base, spec)
    silent = replace(noop, ignore=True, updates=MappingProxyType({}))
    quiet = replace(spec, rows=tuple(silent if r is noop else r for r in spec.rows))
    assert prove_equivalent(spec, quiet, states).equal  # its updates changed nothing
    assert same_fairness(base, quiet)
    # But a no-op move where a fair trigger also has a way out does change the fair runs:
    # duplex's Backchannel in Overlap made a move, as its variant does, answers the claim.
    duplex = all_specs()["duplex"]
    held = duplex.with_variant("backchannel-holds-overlap")
    answered = replace(duplex, rows=held.rows, variants=())
    base = Baseline(duplex)
    states = [base.graph.as_dict(i) for i in range(len(base.graph.states))]
    assert prove_equivalent(duplex, answered, states).equal
    assert not same_fairness(base, answered)
    assert model_kill(base, answered) is not None  # and liveness sees it


# The six single-point faults of issue 14's hand-made trial, as the definition operators make
# them, each with the check that kills it (the model layer, its counterexample confirmed by z3).
HAND_MADE = [
    (
        "duplex",
        "regroup",
        "trigger grant_agent in group observe",
        "verdicts-are-applied-observations-observed",
    ),
    ("wave", "regroup", "trigger recheck in group env", "runner-alone-before-spawn"),
    ("policy", "table-constant", "2 → 1 in (if notes < 2", "the-window-only-grows"),
    (
        "admission",
        "drop-set-entry",
        "read dropped from a set of 5",
        "the-gate-judges-core-tools-by-mode",
    ),
    (
        "admission",
        "param-for-out",
        "an-answer-echoes-its-question reads param admit",
        "an-answer-echoes-its-question demands nothing (z3)",
    ),
    (
        "policy",
        "reset-forgets",
        "last_arrival left out of the reset",
        "wave-takes-the-last-arrival",
    ),
    ("policy", "init-each", "in_force starts at WATCHED", "calls-read-the-wave-start"),
]


@pytest.mark.parametrize("name, operator, detail, check", HAND_MADE)
def test_the_hand_made_faults_are_generated_and_killed(
    name: str, operator: str, detail: str, check: str
) -> None:
    spec = all_specs()[name]
    mutant = _defined(name, operator, detail)
    kill = model_kill(Baseline(spec), mutant) or toothless(spec, mutant)
    assert kill is not None and kill.check == check
    assert confirmed(kill) is None


def test_a_variant_must_still_fail_under_a_definition_mutant() -> None:
    """A definition mutant keeps the spec's variants, and each must still violate what it
    declares: here the mutant's `arm` forgets to arm, so the variant's fault is unreachable."""
    armed, flag = Var("armed", Bool(), False), Var("flag", Bool(), False)
    arm = row("arm", "arm", None, sets={"armed": True}, cite="t")
    spec = Spec(
        name="armed",
        source="tests",
        vars=(armed, flag),
        triggers=(Trigger("arm"), Trigger("tick")),
        rows=(arm, row("tick", "tick", None, cite="t")),
        properties=(never("flag-never", eq(var("flag"), True), cite="t"),),
        variants=(
            Variant(
                "fires",
                doc="t",
                cite="t",
                violates=("flag-never",),
                replace={
                    "tick": row(
                        "tick", "tick", None, guard=var("armed"), sets={"flag": True}, cite="t"
                    )
                },
            ),
        ),
    )
    assert model_kill(Baseline(spec), replace(spec, name="same")) is None
    mutant = replace(spec, name="forgets", rows=(replace(arm, updates={}), spec.rows[1]))
    kill = model_kill(Baseline(spec), mutant)
    assert kill is not None and kill.check == "variant fires no longer violates flag-never"
    assert confirmed(kill) is None  # z3: the variant's reachable set holds no flag


def test_an_unconfirmed_kill_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A slip in the kernel's evaluator (here: `not` read as the identity) makes the model
    layer claim kills the spec does not deserve; z3's replay refuses each one, and the
    command fails with a kernel disagreement instead of counting them."""
    original = compiled

    def slipped(expr: Expr) -> Callable[[Env], Value]:
        return original(expr.arg if isinstance(expr, Not) else expr)

    monkeypatch.setattr(kernel_mutants, "compiled", slipped)
    spec = all_specs()["policy"]
    # The same property, written anew: the model layer tests it everywhere.
    first = spec.properties[0]
    same = replace(first, pred=And((first.pred,)), written=None)
    mutant = replace(spec, name="policy-same", properties=(same, *spec.properties[1:]))
    kill = model_kill(Baseline(spec), mutant)
    assert kill is not None and kill.check == first.name
    problem = confirmed(kill)
    assert problem is not None and problem.startswith("z3 replay")
    monkeypatch.setattr(cli_mutants, "_driver", lambda name: None)
    monkeypatch.setattr(cli_mutants, "FAST_LIMIT", 3)
    monkeypatch.setattr(cli_mutants, "FAST_EXTRA_LIMIT", 0)
    assert main(["mutants", "policy", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "KERNEL DISAGREEMENT" in out and "mutants: FAILED" in out


def test_the_unmutated_spec_is_not_killed() -> None:
    for name in SPECS:
        spec = all_specs()[name]
        same = replace(spec, name=f"{name}-same", variants=())
        assert model_kill(Baseline(spec), same) is None
        if name in ("duplex", "policy"):  # the others' replays take longer; the gate runs them
            assert conformance_kill(drivers()[name], same) is None


def test_the_model_layer_agrees_with_verify() -> None:
    """The explorer-graph judge kills exactly the mutants that `verify` (z3) rejects."""
    spec = all_specs()["policy"]
    base = Baseline(spec)
    for mutant in generate(spec, limit=3, extra_limit=0).mutants:
        report = verify(mutant.spec)
        # reachable-set compares the kernel's two engines, not the model: leave it out.
        failed = [c.id for c in report.checks if not c.ok and c.id != "reachable-set"]
        kill = model_kill(base, mutant.spec)
        assert (kill is None) == (not failed), (mutant.id, mutant.detail, failed, kill)
        if kill is not None:
            assert kill.check in failed


def test_swapping_mute_and_cancel_is_caught_with_its_counterexample() -> None:
    mutant = _find("duplex", "swap-outputs", "grant_user_takes_floor")
    kill = model_kill(Baseline(all_specs()["duplex"]), mutant)
    assert kill is not None and kill.check == "grant-user-mutes-then-cancels"
    assert kill.trace_length == 5  # onset, EOU, grant agent, onset (Overlap), then the grant
    found = conformance_kill(drivers()["duplex"], mutant)
    assert found is not None and found[0].startswith("replay")


def test_equivalence_is_proved_or_refused_by_z3() -> None:
    spec = all_specs()["admission"]
    states = [Baseline(spec).graph.as_dict(0)]
    # The experiment row fires only when landing is EXPERIMENT: echoing the constant is the same.
    same = _find("admission", "replace-output", "experiment_never_lands", "landing := EXPERIMENT")
    assert prove_equivalent(spec, same, states).equal
    different = _find("admission", "drop-guard", "evidenced_lands")
    verdict = prove_equivalent(spec, different, states)
    assert not verdict.equal and "admits step differs" in verdict.detail


def test_a_property_reading_an_argument_is_checked_by_z3_and_the_explorer() -> None:
    mutant = _find("admission", "replace-output", "evidenced_lands", "mode := ")
    report = verify(mutant, only="an-answer-echoes-its-question")
    (check,) = report.checks
    assert check.verdict == "violated" and check.trace is not None and len(check.trace) == 1


def test_vacuity_names_an_unreachable_antecedent() -> None:
    flag = Var("flag", Bool(), False)
    spec = Spec(
        name="vacuous",
        source="tests",
        vars=(flag,),
        triggers=(Trigger("tick"),),
        rows=(row("tick_keeps", "tick", None, cite="tests"),),
        properties=(
            always(
                "flag-stays",
                implies(eq(var("flag"), True), eq(nxt("flag"), True)),
                cite="tests",
            ),
            always("ticks-keep-it", implies(trigger_is("tick"), eq(nxt("flag"), False)), cite="t"),
        ),
    )
    results = {r.id: r for r in verify(spec).checks}
    assert results["vacuity"].verdict == "violated"
    assert "flag-stays" in results["vacuity"].detail
    assert "ticks-keep-it" not in results["vacuity"].detail
    assert results["flag-stays"].verdict == "proved"  # true, and proves nothing


def test_the_sweep_fires_every_trigger_in_every_state_ignore_rows_included() -> None:
    driver = drivers()["duplex"]
    coverage = harness.Coverage(driver.spec)
    assert harness.sweep(driver, coverage) > len(driver.spec.rows)
    assert not coverage.missing  # every row, every ignore row among them
    # A fault that turns an action into a no-op: the implementation still acts there.
    mutant = _find("duplex", "move-to-ignore", "grant_user_takes_floor")
    with pytest.raises(harness.Mismatch):
        harness.sweep(harness.against(driver, mutant))


def test_a_lockstep_row_never_hit_fails_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "TARGETED_RUNS", 0)
    monkeypatch.setattr(harness, "sweep", lambda driver, coverage=None: 0)  # random runs only
    monkeypatch.setitem(
        harness.COVERAGE["lockstep"], "duplex", harness.Coverage(all_specs()["duplex"])
    )
    # Enough to drive every trigger, too little to reach every row without targeting.
    short = settings(max_examples=30, stateful_step_count=10, derandomize=True, database=None)
    with pytest.raises(AssertionError, match="lockstep never fired rows"):
        run_lockstep(drivers()["duplex"], short)
    monkeypatch.setattr(harness, "TARGETED_RUNS", 3)
    coverage = harness.Coverage(all_specs()["duplex"])
    monkeypatch.setitem(harness.COVERAGE["lockstep"], "duplex", coverage)
    run_lockstep(drivers()["duplex"], short)  # the targeted runs reach the rest
    assert not coverage.missing


def test_mutants_cli_reports_in_the_issue_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "m.json"
    assert main(["mutants", "policy", "--jobs", "1", "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert "policy: generated" in out and "policy: seed layer" in out
    data = json.loads(report.read_text())
    assert data["ok"] is True
    (spec,) = data["specs"]
    assert set(spec) == {
        "name",
        "generated",
        "skipped",
        "killed",
        "equivalent",
        "survived",
        "disagreements",
        "model_kill_rate",
        "mutants",
    }
    assert set(spec["killed"]) == {"model", "conformance", "seed"}
    for m in spec["mutants"]:
        assert set(m) == {"id", "operator", "row", "killed_by", "verdict"}
        assert m["verdict"] in ("killed", "equivalent")
        for kill in m["killed_by"]:
            assert set(kill) == {"layer", "check", "trace_length"}


def test_mutants_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "nosuch"]) == 2
    assert "unknown spec 'nosuch'" in capsys.readouterr().err
    assert main(["mutants", "policy:eager-reading"]) == 2
    assert "is a variant" in capsys.readouterr().err


def test_a_survivor_fails_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli_mutants, "model_kill", lambda base, spec: None)
    monkeypatch.setattr(cli_mutants, "_driver", lambda name: None)
    monkeypatch.setattr(
        cli_mutants, "prove_equivalent", lambda *args: Equivalence(False, "not proved")
    )
    assert main(["mutants", "policy", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "SURVIVED" in out and "mutants: FAILED" in out


@pytest.mark.parametrize("name", ["duplex", "policy"])
def test_the_model_layer_finds_what_a_search_of_the_whole_graph_finds(name: str) -> None:
    """The model layer tests unchanged properties on new states and steps only: on every
    sampled mutant it names the first broken property, with the shortest counterexample,
    that the explorer's own compiled searches find on the mutant's whole graph."""
    spec = all_specs()[name]
    base = Baseline(spec)
    broken = 0
    for mutant in generate(spec, limit=16).mutants:
        graph, kill = mutant_graph(base, mutant.spec), model_kill(base, mutant.spec)
        if graph is None:
            continue  # a row leaves its domain: the explorer refuses it, so does the layer
        expected: tuple[str, int | None] | None = None
        for p in mutant.spec.properties:
            pred = p.pred if p.kind is Kind.SOMETIMES else p.bad
            if p.over_steps:
                edge = graph.first_edge(pred)
                hit = None if edge is None else graph.depth[edge.source] + 1
            else:
                i = graph.first_state(pred)
                hit = None if i is None else graph.depth[i]
            if p.kind is Kind.SOMETIMES and hit is None:
                expected = (p.name, None)  # no witness
            elif p.kind is not Kind.SOMETIMES and hit is not None:
                expected = (p.name, hit)
            if expected is not None:
                break
        if kill is not None and kill.check == "determinism":
            continue  # decided first: the graph is the mutant's only under determinism
        if expected is not None:
            broken += 1
            assert kill is not None and (kill.check, kill.trace_length) == expected
        else:
            assert kill is None or kill.check not in {p.name for p in spec.properties}
    assert broken >= 8, name


@pytest.mark.parametrize("name", ["duplex", "policy"])
def test_the_compiled_search_of_a_large_graph_kills_as_the_listed_edges_do(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above COMPILED_EDGES the model layer runs the explorer's compiled searches of the
    whole graph instead of evaluating the new states and edges it lists: on every sampled
    mutant both name the same check with the same counterexample length, and z3 confirms
    the compiled path's kills."""
    spec = all_specs()[name]
    base = Baseline(spec)
    mutants = [m.spec for m in generate(spec, limit=10).mutants]
    listed = [model_kill(base, m) for m in mutants]
    monkeypatch.setattr(kernel_mutants, "COMPILED_EDGES", 0)
    searched = [model_kill(base, m) for m in mutants]
    assert searched == listed  # a Kill compares by layer, check and length
    kills = [k for k in searched if k is not None]
    assert len({k.check for k in kills}) >= 5, name  # several kinds of check
    assert [confirmed(k) for k in kills] == [None] * len(kills)


def test_the_seed_layer_checks_the_seed_against_the_mutant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conformance.seeds import policy as plugin
    from conformance.seeds._mutants import SeedLayer
    from conformance.seeds._mutants import SeedLayerError
    from conformance.seeds._testing import seed_harness

    seed_harness(plugin)  # a visible skip without the seed (a failure under REQUIRE_SEEDS=1)
    layer = SeedLayer.open(all_specs()["policy"])
    assert isinstance(layer, SeedLayer) and len(layer) > 20
    assert layer.kill(all_specs()["policy"]) is None  # open() has checked this too
    # A change that no longer lands in the mailbox: the seed's logs show it does.
    mutant = _find("policy", "move-to-ignore", "change_arrives")
    found = layer.kill(mutant, all_specs()["policy"])
    assert found is not None and found[0].startswith("check-trace of policy seed walk")
    monkeypatch.setenv("SEEDS_DIR", "/nowhere")
    monkeypatch.delenv("REQUIRE_SEEDS", raising=False)  # .ci/run sets it; here: the loud skip
    skipped = SeedLayer.open(all_specs()["policy"])
    assert isinstance(skipped, str) and "SEEDS_DIR=/nowhere" in skipped
    monkeypatch.setenv("REQUIRE_SEEDS", "1")
    with pytest.raises(SeedLayerError, match="REQUIRE_SEEDS=1"):
        SeedLayer.open(all_specs()["policy"])


def test_wave_mutants_meet_the_seed_through_the_mutated_seed_variant() -> None:
    from conformance.seeds._mutants import SeedLayer

    spec = all_specs()["wave"]
    seed_variant = spec.with_variant("seed")
    # A row the seed variant replaces: the seed does something else there by design.
    replaced = next(r for r in spec.rows if r not in seed_variant.rows)
    layer = SeedLayer(plugin="wave", variant="seed", logs=())
    mutant = _find("wave", "move-to-ignore", replaced.name)
    assert layer.target(mutant, spec).rows == seed_variant.rows
    # Any other row: its mutation is in the seed variant the logs are checked against.
    same = next(r for r in spec.rows if r in seed_variant.rows and r.guard != TRUE)
    target = layer.target(_find("wave", "drop-guard", same.name), spec)
    assert target.row(same.name).guard == TRUE
    assert target.rows != seed_variant.rows


def test_the_gate_finds_every_driver_without_importing_a_test_file() -> None:
    """The drivers live in conformance/drivers/: the gate never imports a pytest test module
    (which would run its module-level code and could import pytest fixtures)."""
    code = (
        "import sys; from conformance.harness import drivers; found = drivers(); "
        "print(sorted(found)); print(sorted(m for m in sys.modules if '.test_' in m))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines() == [str(sorted((*SPECS, "adr068"))), "[]"]


@pytest.mark.parametrize("full", [False, True])
def test_a_large_specs_sample_shrinks_to_the_state_budget_and_a_small_ones_does_not(
    full: bool,
) -> None:
    mode = cli_mutants._mode(full)
    budget = cli_mutants.STATE_BUDGET if full else cli_mutants.FAST_STATE_BUDGET
    assert cli_mutants._limits(full, 159) == mode  # wave's size: the whole sample
    assert cli_mutants._scaled(full, mode) == ""
    states = 14_276  # adr068's
    limits = cli_mutants._limits(full, states)
    assert all(1 <= n <= m for n, m in zip(limits, mode, strict=True)) and limits != mode
    assert sum(limits) * states <= budget
    assert "by the state budget" in cli_mutants._scaled(full, limits)


def test_a_plain_run_judges_adr068_fast_and_full() -> None:
    assert "adr068" in cli_mutants._names([])
    assert "policy-concrete" not in cli_mutants._names([])  # policy's table, judged there
    assert cli_mutants._names(["adr068"]) == ["adr068"]


def test_the_adr068_conformance_layer_kills_the_daemon_starting_in_listening() -> None:
    """The mutant of adr068's --full sample that no property of the loop kills (none speaks
    of its start): the loop's driver (conformance/drivers/adr068.py) plays the daemon by
    impl.duplex, which starts Idle, so the first row witness replayed fails at its start."""
    mutant = _defined("adr068", "init-each", "daemon_state starts at LISTENING for IDLE")
    found = conformance_kill(drivers()["adr068"], mutant)
    assert found is not None and found[0].startswith("replay ")


def test_a_large_specs_conformance_layer_replays_the_changed_rows_and_names_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above REPLAY_STATES the transition replay (one replay per reachable step) is not run:
    the changed rows' shallowest steps are, and `layers` says so; below, nothing changes."""
    assert (
        harness.layers(36, 10)
        == "row witnesses, every transition, new steps, lockstep (10 examples)"
    )
    said = harness.layers(14_276, 0)
    assert "transition and new-step replays not run: 14,276 states > REPLAY_STATES" in said
    # A changed update no row witness shows (erl_update's witness reads 0.25, the very value
    # the mutant writes), which the transition replay kills on a small spec.
    mutant = _find("duplex", "replace-update", "erl_update", "last_erl := 0.25")
    driver = drivers()["duplex"]
    assert conformance_kill(driver, mutant) == ("transition replay erl_update", 1)
    monkeypatch.setattr(harness, "REPLAY_STATES", 0)  # duplex's 36 states count as large
    assert conformance_kill(driver, mutant) == ("changed row replay erl_update", 1)
    monkeypatch.setattr(harness, "CHANGED_ROW_STEPS", 0)
    assert conformance_kill(driver, mutant) is None  # the row witnesses alone miss it


def _counter(
    init_n: int = 0, inc_below: int = 3, extra: tuple[Row, ...] = (), init_flag: bool = False
) -> Spec:
    """A counter to 3 that raises a flag at 2 (`up`), and four faulty variants, one for each
    kind of property a variant can be declared to violate."""
    n, flag = var("n"), var("flag")
    inc = row("inc", "inc", None, guard=lt(n, inc_below), sets={"n": add(n, 1)}, cite="t")
    up = row("up", "up", None, guard=eq(n, 2), sets={"flag": True}, cite="t")
    wait = row("wait", "wait", None, cite="t")
    return Spec(
        name="counter",
        source="tests",
        vars=(Var("n", IntRange(0, 3), init_n), Var("flag", Bool(), init_flag)),
        triggers=(Trigger("inc"), Trigger("up"), Trigger("wait")),
        rows=(inc, up, wait, *extra),
        properties=(
            sometimes("up-fires", trigger_is("up"), cite="t"),
            sometimes("flag-seen", eq(flag, True), cite="t"),
            always("up-at-two", implies(trigger_is("up"), eq(n, 2)), cite="t"),
            never("flag-early", and_(eq(flag, True), lt(n, 2)), cite="t"),
        ),
        liveness=(eventually("reaches-three", eq(n, 3), cite="t"),),
        fairness=weak("inc"),
        variants=(
            Variant("blind", doc="t", cite="t", violates=("up-fires", "flag-seen"), remove=("up",)),
            Variant(
                "early",
                doc="t",
                cite="t",
                violates=("flag-early",),
                replace={
                    "inc": row(
                        "inc",
                        "inc",
                        None,
                        guard=lt(n, 3),
                        sets={"n": add(n, 1), "flag": True},
                        cite="t",
                    )
                },
            ),
            Variant(
                "anytime",
                doc="t",
                cite="t",
                violates=("up-at-two", "flag-early"),
                replace={"up": row("up", "up", None, sets={"flag": True}, cite="t")},
            ),
            Variant(
                "stuck",
                doc="t",
                cite="t",
                violates=("reaches-three",),
                replace={"inc": replace(inc, guard=lt(n, 1))},
            ),
        ),
    )


def test_a_variant_no_longer_violating_is_named_with_its_first_saved_property() -> None:
    """Each variant, applied to a mutant, must still violate every property it declares: the
    first in order that now holds names the kill, and z3 confirms it on the variant (the
    witness replayed, or the property's absence over the variant's whole reachable set)."""
    spec = _counter()
    base = Baseline(spec)
    for v in spec.variants:
        assert kernel_mutants._variant(base, spec, v.name) is None, v.name
    n = var("n")
    raising_wait = row("wait", "wait", None, guard=eq(n, 2), sets={"flag": True}, cite="t")
    late_up = row("up_late", "up", None, guard=eq(n, 3), cite="t")
    flagged = _counter(init_flag=True)
    clearing_inc = row(
        "inc", "inc", None, guard=lt(n, 3), sets={"n": add(n, 1), "flag": False}, cite="t"
    )
    mutants = [
        # `wait` at 2 raises the flag too: with `up` gone, up-fires stays violated and
        # flag-seen is witnessed three steps in.
        ("blind", replace(spec, rows=(*spec.rows[:2], raising_wait)), "flag-seen"),
        # A late `up` at 3: the step up-fires looks for.
        ("blind", _counter(extra=(late_up,)), "up-fires"),
        # Starting at 2, the early flag comes at 3 only.
        ("early", _counter(init_n=2), "flag-early"),
        # Starting with the flag, which the first `inc` clears: witnessed at the start.
        ("blind", replace(flagged, rows=(clearing_inc, *flagged.rows[1:])), "flag-seen"),
        # Held at 2, `up` fires nowhere else.
        ("anytime", _counter(init_n=2, inc_below=2), "up-at-two"),
        # Starting at 2, `up` still fires at 3, but the flag is never early.
        ("anytime", _counter(init_n=2), "flag-early"),
        # Starting at 3, the stuck counter is there already.
        ("stuck", _counter(init_n=3), "reaches-three"),
    ]
    for variant, mutant, saved in mutants:
        kill = kernel_mutants._variant(base, mutant, variant)
        assert kill == Kill("model", f"variant {variant} no longer violates {saved}", None)
        assert kill is not None and kill.confirm is not None and confirmed(kill) is None


def test_a_variant_that_outgrows_the_bound_gets_no_verdict() -> None:
    """A variant's graph is explored within the mutant's bound: past it, the variant's
    verdict is not the mutant's to give (here it would be flag-seen's witness)."""
    spec = _counter()
    base = Baseline(spec)
    m = var("m")
    counting = row(
        "wait", "wait", None, guard=lt(m, 2000), sets={"m": add(m, 1), "flag": True}, cite="t"
    )
    grown = replace(
        spec,
        vars=(*spec.vars, Var("m", IntRange(0, 2000), 0)),
        rows=(*spec.rows[:2], counting),
    )
    assert kernel_mutants._bound(base) < 2001
    assert kernel_mutants._variant(base, grown, "blind") is None
    small = replace(grown, vars=(*spec.vars, Var("m", IntRange(0, 2000), 1999)))
    kill = kernel_mutants._variant(base, small, "blind")
    assert kill == Kill("model", "variant blind no longer violates flag-seen", None)


def test_a_property_changed_to_demand_nothing_is_toothless_and_one_with_teeth_is_not() -> None:
    n = var("n")

    def spec(moves: Expr, reached: Expr) -> Spec:
        return counter(
            "steps",
            "tests",
            3,
            guard=lt(n, 3),
            properties=(
                always("inc-moves", implies(trigger_is("inc"), moves), cite="t"),
                sometimes("reaches-three", reached, cite="t"),
            ),
        )

    original = spec(ge(nxt("n"), 1), eq(n, 3))
    # n' ≤ 3 holds of every step of its domain, whatever the rows do.
    kill = toothless(original, spec(le(nxt("n"), 3), eq(n, 3)))
    assert kill == Kill("model", "inc-moves demands nothing (z3)", None)
    assert kill is not None and confirmed(kill) is None
    assert toothless(original, spec(ge(nxt("n"), 2), eq(n, 3))) is None  # still a demand
    # A demand added beside the original's: the original's is still there.
    assert toothless(original, spec(and_(ge(nxt("n"), 1), le(nxt("n"), 3)), eq(n, 3))) is None
    # A witness asked for is no demand: a `sometimes` made trivial is the model layer's.
    assert toothless(original, spec(ge(nxt("n"), 1), le(n, 3))) is None


def test_flipping_a_quantifier_changes_that_quantifier_alone() -> None:
    n = var("n")
    every = forall("k", IntRange(0, 1), lambda k: le(k, n))
    some = exists("k", IntRange(0, 1), lambda k: le(k, n))
    inc = row("inc", "inc", None, guard=and_(is_in(n, 0, 1), every), sets={"n": 2}, cite="t")
    hold = row("hold", "hold", None, guard=implies(eq(n, 2), some), cite="t")
    spec = Spec(
        name="quantified",
        source="tests",
        vars=(Var("n", IntRange(0, 2), 0),),
        triggers=(Trigger("inc"), Trigger("hold")),
        rows=(inc, hold),
    )
    flips = [c for c in candidates(spec)[0] if c[0] == "flip-quantifier"]
    assert [c[1:3] for c in flips] == [("inc", "∀k becomes ∃"), ("hold", "∃k becomes ∀")]
    assert flips[0][3]().rows == (replace(inc, guard=and_(is_in(n, 0, 1), some)), hold)
    assert flips[1][3]().rows == (inc, replace(hold, guard=implies(eq(n, 2), every)))


def test_a_table_constant_is_changed_in_outputs_too() -> None:
    n = var("n")
    spec = counter(
        "outputs",
        "tests",
        2,
        guard=lt(n, 2),
        emits={"low": lt(n, 1)},
        outputs=(Output("low", Bool(), False),),
    )
    inc = spec.row("inc")
    (change,) = [c for c in definition_candidates(spec) if c[2] == "1 → 2 in n < 1 (1 row)"]
    assert change[3]().rows == (replace(inc, outputs=MappingProxyType({"low": lt(n, 2)})),)


def test_the_graph_model_kill_explored_is_reused_for_that_mutant_only() -> None:
    base = Baseline(_counter())
    mutant, other = _counter(init_n=2), _counter(init_n=2)
    model_kill(base, mutant)
    assert base.last is not None and base.last[0] is mutant
    assert mutant_graph(base, mutant) is base.last[1]
    fresh = mutant_graph(base, other)  # equal, but another spec: explored afresh
    assert fresh is not None and fresh is not base.last[1]
    assert len(fresh.states) == len(base.last[1].states) == 4


def _dial(*rows: Row, props: tuple[Property, ...] = ()) -> Spec:
    """A dial counting to 3 (`inc`, ignored at the top) that `reset` puts back to 0."""
    n = var("n")
    base_rows = (
        row("inc_up", "inc", None, guard=lt(n, 3), sets={"n": add(n, 1)}, cite="t"),
        ignore("inc_top", "inc", None, guard=eq(n, 3), cite="t"),
        row("reset", "reset", None, sets={"n": 0}, cite="t"),
    )
    changed = {r.name: r for r in rows}
    return Spec(
        name="dial",
        source="tests",
        vars=(Var("n", IntRange(0, 3), 0),),
        triggers=(Trigger("inc"), Trigger("reset")),
        rows=(
            *(changed.pop(r.name, r) for r in base_rows),
            *changed.values(),
        ),
        properties=(sometimes("reaches-three", eq(n, 3), cite="t"), *props),
    )


@pytest.mark.parametrize("compiled_above", [kernel_mutants.COMPILED_EDGES, 0])
def test_each_check_of_the_model_layer_kills_with_the_counterexample_z3_confirms(
    compiled_above: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One mutant per check of the model layer, each killed by that check with its
    shortest counterexample (steps to the bad state or step; None where the kill is an
    absence), and each kill confirmed by z3 on the mutant: on the listed edges of a small
    graph, and by the compiled searches of a large one."""
    monkeypatch.setattr(kernel_mutants, "COMPILED_EDGES", compiled_above)
    n = var("n")
    base = Baseline(_dial())
    assert model_kill(base, _dial()) is None
    unreachable = and_(eq(n, 0), eq(n, 1))
    mutants = [
        # Two rows of `inc` at 1.
        (
            _dial(row("inc_jump", "inc", None, guard=eq(n, 1), sets={"n": 3}, cite="t")),
            "determinism",
            2,
        ),
        # `inc`'s two rows both at every count, with `reset` (one row) asked about first.
        (
            replace(
                _dial(ignore("inc_top", "inc", None, guard=le(n, 3), cite="t")),
                triggers=(Trigger("reset"), Trigger("inc")),
            ),
            "determinism",
            1,
        ),
        # Counting stops at 2: no witness of 3.
        (
            _dial(row("inc_up", "inc", None, guard=lt(n, 2), sets={"n": add(n, 1)}, cite="t")),
            "reaches-three",
            None,
        ),
        # `inc` has no row at the top.
        (replace(_dial(), rows=_dial().rows[::2]), "totality", 4),
        # `reset` ignored: at the top nothing moves.
        (_dial(ignore("reset", "reset", None, cite="t")), "no-deadlock", 3),
        # A row of `reset` never enabled.
        (_dial(row("reset_never", "reset", None, guard=unreachable, cite="t")), "rows-fire", None),
        # A property whose antecedent no state meets.
        (
            _dial(props=(always("vacuous", implies(unreachable, eq(n, 2)), cite="t"),)),
            "vacuity",
            None,
        ),
        # A step antecedent no step meets: `reset` never lands on 1.
        (
            _dial(
                props=(
                    always(
                        "vacuous-step",
                        implies(and_(trigger_is("reset"), eq(nxt("n"), 1)), eq(n, 2)),
                        cite="t",
                    ),
                )
            ),
            "vacuity",
            None,
        ),
    ]
    for mutant, check, length in mutants:
        kill = model_kill(base, mutant)
        assert kill == Kill("model", check, length), check
        assert kill is not None and confirmed(kill) is None, check
    # Counting past the top: the explorer refuses the step, and z3 finds the update too.
    past = _dial(row("inc_up", "inc", None, guard=le(n, 3), sets={"n": add(n, 1)}, cite="t"))
    kill = model_kill(base, past)
    assert kill is not None and kill.check.startswith("explorer (") and kill.trace_length is None
    assert kill.layer == "model"
    assert confirmed(kill) is None
    # On the dial as it is, no update leaves its domain: z3 says so, were it asked.
    assert kernel_mutants._leaves_domain(_dial()) == (
        "z3 finds no update leaving its domain within 12 steps"
    )


def _cycle(fairness: tuple[Fairness, ...], *, backwards: bool = False, stays: bool = True) -> Spec:
    """`go` turns x round 0 → 1 → 2 → 0 (or backwards); `tick` stays put at 1 (a no-op
    move, or an ignore row) and is ignored elsewhere."""
    x = var("x")
    pairs = ((0, 2), (2, 1), (1, 0)) if backwards else ((0, 1), (1, 2), (2, 0))
    turns = [row(f"go_{a}", "go", None, guard=eq(x, a), sets={"x": b}, cite="t") for a, b in pairs]
    at_one = eq(x, 1)
    tick = (
        row("tick_stays", "tick", None, guard=at_one, cite="t")
        if stays
        else ignore("tick_stays", "tick", None, guard=at_one, cite="t")
    )
    return Spec(
        name="cycle",
        source="tests",
        vars=(Var("x", IntRange(0, 2), 0),),
        triggers=(Trigger("go"), Trigger("tick")),
        rows=(*turns, tick, ignore("tick_idle", "tick", None, guard=not_(at_one), cite="t")),
        liveness=(eventually("visits-one", at_one, cite="t"),),
        fairness=fairness,
    )


def test_fair_runs_differ_by_a_moving_step_and_under_strong_fairness_by_a_stay() -> None:
    # Under weak fairness a no-op move and an ignore row are met alike (by staying put).
    weakly = weak("go", "tick")
    assert same_fairness(Baseline(_cycle(weakly)), _cycle(weakly, stays=False))
    # The same states, each enabling the same: only the moves between them differ.
    assert not same_fairness(Baseline(_cycle(weakly)), _cycle(weakly, backwards=True))
    # Strongly fair `tick`: the move that stays is a step a fair run may be owed.
    strongly = (*weak("go"), *strong("tick"))
    assert not same_fairness(Baseline(_cycle(strongly)), _cycle(strongly, stays=False))
    assert same_fairness(Baseline(_cycle(strongly)), _cycle(strongly))


def test_a_kill_without_a_counterexample_is_confirmed_only_outside_the_model_layer() -> None:
    assert confirmed(Kill("conformance", "replay inc", 2)) is None
    assert confirmed(Kill("model", "reaches-three", None)) == "no counterexample to replay"

    def undecided() -> str | None:
        raise SolverLimit("z3-replay", "rlimit")

    assert confirmed(Kill("model", "x", 1, undecided)) == "z3 could not decide: rlimit"


def test_z3s_confirmation_names_the_rows_it_finds_where_the_evaluator_claimed_otherwise() -> None:
    """The confirmations the model layer hands z3, asked about states where the kill would be
    wrong: each says what z3 finds there instead."""
    spec = replace(_dial(), rows=_dial().rows[::2])  # `inc` has no row at the top
    g = explore(spec)
    view = kernel_mutants._View(Baseline(_dial()), spec, g)
    zero, top = g.index[(0,)], g.index[(3,)]
    assert view._both(zero, "inc", {}, lambda k: k > 1, "two rows")() == (
        "z3 finds ['inc_up'] of inc enabled, not two rows"
    )
    assert view._both(top, "inc", {}, lambda k: k > 1, "two rows")() == (
        "z3 finds no row of inc enabled, not two rows"
    )
    assert view._both(zero, "inc", {}, lambda k: k == 1, "one")() is None
    assert view._stuck(zero)() == "z3 finds ['inc_up'] of inc enabled in the deadlocked state"
    # A terminal state is no deadlock: z3 does not reach a non-terminal state there.
    ending = kernel_mutants._View(Baseline(spec), replace(spec, terminal=eq(var("n"), 3)), g)
    said = ending._stuck(top)()
    assert said is not None and said.startswith("z3 replay")
    assert ending._stuck(zero)() is not None


def test_a_step_out_of_a_terminal_state_is_killed_with_its_step() -> None:
    n = var("n")

    def spec(top: Row) -> Spec:
        return Spec(
            name="ends",
            source="tests",
            vars=(Var("n", IntRange(0, 2), 0),),
            triggers=(Trigger("inc"),),
            rows=(row("inc_up", "inc", None, guard=lt(n, 2), sets={"n": add(n, 1)}, cite="t"), top),
            terminal=eq(n, 2),
        )

    base = Baseline(spec(ignore("inc_top", "inc", None, guard=eq(n, 2), cite="t")))
    restart = spec(row("inc_top", "inc", None, guard=eq(n, 2), sets={"n": 0}, cite="t"))
    kill = model_kill(base, restart)
    assert kill == Kill("model", "terminal-absorbing", 3)
    assert kill is not None and confirmed(kill) is None
    # The terminal predicate itself changed: a step the original takes leaves it now.
    kill = model_kill(base, replace(base.spec, terminal=eq(n, 1), check_deadlock=False))
    assert kill == Kill("model", "terminal-absorbing", 2)
    assert kill is not None and confirmed(kill) is None


def test_a_lasso_kill_counts_its_steps() -> None:
    """Without weak fairness the dial may wait at 0 forever: a lasso of no steps."""
    n = var("n")
    live = (eventually("tops-out", eq(n, 3), cite="t"),)
    base = Baseline(replace(_dial(), liveness=live, fairness=weak("inc")))
    kill = model_kill(base, replace(_dial(), liveness=live))
    assert kill == Kill("model", "tops-out", 0)
    assert kill is not None and confirmed(kill) is None


def test_fairness_is_the_same_without_liveness_and_differs_with_other_constraints() -> None:
    assert same_fairness(Baseline(_dial()), _dial(ignore("reset", "reset", None, cite="t")))
    weakly, strongly = weak("go", "tick"), (*weak("go"), *strong("tick"))
    assert not same_fairness(Baseline(_cycle(weakly)), _cycle(strongly))


def test_a_mutant_past_the_bound_has_no_graph() -> None:
    spec = _counter()
    m = var("m")
    counting = row("wait", "wait", None, guard=lt(m, 2000), sets={"m": add(m, 1)}, cite="t")
    grown = replace(
        spec, vars=(*spec.vars, Var("m", IntRange(0, 2000), 0)), rows=(*spec.rows[:2], counting)
    )
    assert mutant_graph(Baseline(spec), grown) is None
    assert model_kill(Baseline(spec), grown) is None  # no model verdict past the bound


def test_an_update_leaving_its_domain_is_found_after_updates_that_cannot_leave() -> None:
    n = var("n")
    past = row("inc", "inc", None, guard=le(n, 3), sets={"flag": True, "n": add(n, 1)}, cite="t")
    assert kernel_mutants._leaves_domain(replace(_counter(), rows=(past,), variants=())) is None
    # A real variable's sum has no domain to leave; an argument's step is read with its trigger.
    w = var("w")
    weigh = row("weigh", "weigh", None, sets={"w": add(w, 0.5)}, cite="t")
    jump = row("jump", "jump", None, guard=le(n, 3), sets={"n": add(n, param("k"))}, cite="t")
    spec = Spec(
        name="jumps",
        source="tests",
        vars=(Var("w", Real(samples=(0.0,)), 0.0), Var("n", IntRange(0, 3), 0)),
        triggers=(Trigger("weigh"), Trigger("jump", (Param("k", IntRange(1, 2)),))),
        rows=(weigh, jump),
    )
    assert kernel_mutants._leaves_domain(spec) is None


def test_generation_numbers_its_mutants_and_counts_the_refused() -> None:
    spec = all_specs()["policy"]
    made = generate(spec, limit=5, extra_limit=3, live_limit=2)
    ids = [f"policy-{i:03d}" for i in range(1, len(made.mutants) + 1)]
    assert [m.id for m in made.mutants] == ids
    assert [m.spec.name for m in made.mutants] == ids
    wave = generate(all_specs()["wave"], limit=5, extra_limit=3, live_limit=2)
    assert (made.invalid, wave.invalid) == (0, 1)  # wave has faults its types refuse
    assert generate(all_specs()["wave"], limit=5).invalid == 3
    again = generate(spec, limit=5, extra_limit=3, live_limit=2)
    assert [(m.operator, m.detail) for m in again.mutants] == [
        (m.operator, m.detail) for m in made.mutants
    ]
    other = generate(spec, limit=5, extra_limit=3, live_limit=2, seed=7)
    assert [(m.operator, m.detail) for m in other.mutants] == [
        (m.operator, m.detail)
        for m in generate(spec, limit=5, extra_limit=3, live_limit=2, seed=7).mutants
    ]
    assert [m.detail for m in other.mutants] != [m.detail for m in made.mutants]
    # The seed picks the row operators' sample too, not only the ranked extras.
    rows_only = {"extra_limit": 0, "live_limit": 0}
    assert [m.detail for m in generate(spec, limit=5, seed=7, **rows_only).mutants] != [
        m.detail for m in generate(spec, limit=5, **rows_only).mutants
    ]


def _listed(name: str) -> list[tuple[str, str | None, str]]:
    """The mutants tests/candidates/NAME.json lists: (operator, row or None, description)."""
    listed = json.loads((Path(__file__).parent / "candidates" / f"{name}.json").read_text())
    return [(operator, row_name, detail) for operator, row_name, detail in listed]


def _golden() -> Spec:
    """A spec with something for every generation operator but `retarget` and
    `ignore-to-move` (no control variable) and `flip-quantifier` (tested above)."""
    n, on = var("n"), var("on")
    mode = param("mode")
    return Spec(
        name="golden",
        source="tests",
        vars=(
            Var("n", IntRange(0, 2), 0),
            Var("on", Bool(), False),
            Var("lvl", IntRange(0, 2), AnyOf(0, 1)),
        ),
        triggers=(
            Trigger("set", (Param("mode", IntRange(0, 2)),), group="user"),
            Trigger("tick", group="env"),
        ),
        outputs=(Output("mode", IntRange(0, 2), 0), Output("beep", Bool(), False)),
        rows=(
            row(
                "set_mode",
                "set",
                None,
                guard=and_(lt(n, 2), is_in(mode, 0, 1)),
                sets={"n": add(n, 1), "on": True},
                emits={"mode": mode, "beep": True},
                cite="t",
            ),
            row(
                "tick_reset", "tick", None, guard=eq(on, True), sets={"n": 0, "on": False}, cite="t"
            ),
            ignore("tick_idle", "tick", None, guard=eq(on, False), cite="t"),
        ),
        properties=(always("echo", implies(trigger_is("set"), eq(out("mode"), mode)), cite="t"),),
        liveness=(eventually("resets", eq(n, 0), cite="t"),),
        fairness=weak("tick"),
        totality="enabled-only",
    )


def test_every_operator_names_each_mutant_it_makes_of_a_small_spec() -> None:
    spec = _golden()
    assert [c[:3] for c in definition_candidates(spec)] == _listed("golden.definition")
    assert [c[:3] for c in candidates(spec)[0]] == _listed("golden.rows")
    assert [c[:3] for c in liveness_candidates(spec)] == [
        ("drop-fairness", None, "weak(tick) dropped from the spec"),
        ("self-loop", "tick_reset", "stays where it was"),
    ]


def test_each_operator_builds_the_spec_it_names() -> None:
    spec = _golden()
    n, on, mode = var("n"), var("on"), param("mode")
    set_mode, tick_reset, tick_idle = spec.rows

    def built(found: list[kernel_mutants.Candidate], detail: str, of: str = "set_mode") -> Spec:
        (build,) = [c[3] for c in found if c[2] == detail and c[1] in (None, of)]
        return build()

    extra, rows, live = definition_candidates(spec), candidates(spec)[0], liveness_candidates(spec)
    assert built(extra, "trigger set in group env").trigger("set").group == "env"
    assert built(extra, "n < 2 → 0 (1 row)").row("set_mode").guard == and_(
        lt(n, 0), is_in(mode, 0, 1)
    )
    flipped = built(extra, "on = true → false (1 row)", "tick_reset")
    assert flipped.row("tick_reset").guard == eq(on, False)
    assert built(extra, "0 dropped from a set of 2 (1 row)").row("set_mode").guard == and_(
        lt(n, 2), is_in(mode, 1)
    )
    forgets = built(extra, "n left out of the reset (1 row)", "tick_reset")
    assert forgets.row("set_mode") == set_mode  # it does not reset n
    assert dict(forgets.row("tick_reset").updates) == {"on": Const(False)}
    assert built(extra, "lvl starts at 2 for 0").var("lvl").init == AnyOf(2, 1)
    assert built(extra, "lvl no longer starts at 0").var("lvl").init == 1
    assert built(extra, "lvl starts at 2 for 1").var("lvl").init == AnyOf(0, 2)
    assert built(extra, "lvl no longer starts at 1").var("lvl").init == 0
    assert built(extra, "on starts at true for false").var("on").init is True
    (echo,) = built(extra, "echo reads param mode for out mode").properties
    assert echo.pred == implies(trigger_is("set"), eq(mode, mode))
    (echo,) = built(extra, "echo reads out mode for param mode").properties
    assert echo.pred == implies(trigger_is("set"), eq(out("mode"), out("mode")))
    assert built(rows, "conjunct 1 of the guard dropped").row("set_mode").guard == And(
        (is_in(mode, 0, 1),)
    )
    assert built(rows, "conjunct 2 of the guard dropped").row("set_mode").guard == And((lt(n, 2),))
    assert built(rows, "guard dropped").row("set_mode").guard == TRUE
    quiet = built(rows, "turned into an ignore row").row("set_mode")
    assert quiet.ignore and not quiet.updates and not quiet.outputs
    assert dict(built(rows, "update of on dropped").row("set_mode").updates) == {"n": add(n, 1)}
    assert built(rows, "n := 2").row("set_mode").updates["n"] == Const(2)
    assert built(rows, "beep := false").row("set_mode").outputs["beep"] == Const(False)
    assert "beep" not in built(rows, "output beep dropped").row("set_mode").outputs
    assert built(rows, "n may also start at 1").var("n").init == AnyOf(0, 1)
    assert built(rows, "n starts at 1").var("n").init == 1
    assert built(live, "weak(tick) dropped from the spec").fairness == ()
    assert not built(live, "stays where it was", "tick_reset").row("tick_reset").updates
    assert built(rows, "guard dropped").rows[1:] == (tick_reset, tick_idle)
    assert built(rows, "guard dropped").variants == ()


@pytest.mark.parametrize("compiled_above", [kernel_mutants.COMPILED_EDGES, 0])
def test_a_changed_property_is_tested_everywhere_and_a_changed_row_on_its_steps(
    compiled_above: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernel_mutants, "COMPILED_EDGES", compiled_above)
    n = var("n")
    zeroes = always("reset-zeroes", implies(trigger_is("reset"), eq(nxt("n"), 0)), cite="t")
    base = Baseline(_dial(props=(always("n-small", le(n, 3), cite="t"), zeroes)))
    # The same states and steps as the original's: only the property changed, at 3.
    tighter = _dial(props=(always("n-small", le(n, 2), cite="t"), zeroes))
    assert model_kill(base, tighter) == Kill("model", "n-small", 3)
    # `reset` lands on 1: its steps are new, the first from the start.
    ones = _dial(
        row("reset", "reset", None, sets={"n": 1}, cite="t"),
        props=(always("n-small", le(n, 3), cite="t"), zeroes),
    )
    kill = model_kill(base, ones)
    assert kill == Kill("model", "reset-zeroes", 1)
    assert kill is not None and confirmed(kill) is None


def test_the_control_operators_retarget_each_row_and_move_each_ignore_row() -> None:
    stage = Finite("Stage", ("IDLE", "BUSY", "DONE"))
    start = row("start", "go", "IDLE", "BUSY", cite="t")
    spec = Spec(
        name="stages",
        source="tests",
        control="stage",
        vars=(Var("stage", stage, "IDLE"),),
        triggers=(Trigger("go"), Trigger("poke"), Trigger("reset"), Trigger("hold")),
        rows=(
            start,
            row("finish", "go", "BUSY", "DONE", cite="t"),
            ignore("done_go", "go", "DONE", cite="t"),
            row("poke_busy", "poke", "BUSY", cite="t"),
            ignore("poke_else", "poke", ("IDLE", "DONE"), cite="t"),
            row("reset_any", "reset", None, "IDLE", cite="t"),
            row("hold_any", "hold", None, cite="t"),
        ),
        totality="enabled-only",
    )
    found = candidates(spec)[0]
    assert [c[:3] for c in found] == _listed("stages.rows")
    (retarget,) = [c[3] for c in found if c[1:3] == ("start", "target DONE")]
    assert retarget().row("start") == replace(start, target="DONE")
    (move,) = [c[3] for c in found if c[1:3] == ("done_go", "moves to IDLE")]
    moved = move().row("done_go")
    assert (moved.ignore, moved.target) == (False, "IDLE")


class Cmd(enum.Enum):
    A = 1
    B = 2


def test_outputs_are_swapped_and_reversed_and_a_one_conjunct_guard_is_only_dropped() -> None:
    """An output at its default is not dropped (that changes nothing), a guard of one
    conjunct is only dropped whole, a sum is no quantifier to flip, an initial predicate is
    dropped, and a trigger with no group is moved to the other and back."""
    n = var("n")
    cmds = Finite.of_sequences("cmds", Cmd, 2, [(), (Cmd.A,), (Cmd.A, Cmd.B), (Cmd.B, Cmd.A)])
    emits = {"beep": False, "on": True, "off": False, "cmds": (Cmd.A, Cmd.B)}
    summed = le(total("k", IntRange(0, 1), lambda k: k), 1)
    spec = Spec(
        name="plain",
        source="tests",
        vars=(Var("n", IntRange(0, 1), 0),),
        triggers=(Trigger("tick"), Trigger("tock", group="env")),
        outputs=(
            Output("beep", Bool(), False),
            Output("on", Bool(), False),
            Output("off", Bool(), False),
            Output("cmds", cmds, ()),
        ),
        rows=(
            row("tick", "tick", None, guard=And((eq(n, 0),)), emits=emits, cite="t"),
            row("tock", "tock", None, guard=summed, cite="t"),
        ),
        init=le(n, 0),
        totality="enabled-only",
    )
    found = candidates(spec)[0]
    assert [c[:3] for c in found] == _listed("plain.rows")
    outputs = {c[2]: c[3]().row("tick").outputs for c in found if c[0] == "swap-outputs"}
    assert outputs["items of cmds reversed"]["cmds"] == Const((Cmd.B, Cmd.A))
    swapped = outputs["outputs beep and on swapped"]
    assert (swapped["beep"], swapped["on"], swapped["off"]) == (
        Const(True),
        Const(False),
        Const(False),
    )
    (dropped,) = [c[3] for c in found if c[0] == "drop-init"]
    assert dropped().init is None
    assert [c[2] for c in definition_candidates(spec) if c[0] == "regroup"] == [
        "trigger tick in group env",
        "trigger tock in group (none)",
    ]


def test_z3_refuses_a_kill_whose_path_or_absence_the_mutant_does_not_have() -> None:
    """Each check's confirmation asked of a spec other than the one its graph was explored
    from: z3 replays the path, or looks for the step, in the spec it is given."""
    n = var("n")
    dial = _dial()
    g = explore(dial)
    two = g.index[(2,)]
    # A dial that stops at 1: the path to 2 is no path of it.
    short = _dial(row("inc_up", "inc", None, guard=lt(n, 1), sets={"n": add(n, 1)}, cite="t"))
    said = kernel_mutants._View(Baseline(dial), short, g)._both(two, "inc", {}, bool, "any")()
    assert said is not None and said.startswith("z3 replay")
    # The graph of a dial without `inc_top`, judged for the dial that has it.
    holed = explore(replace(dial, rows=dial.rows[::2]))
    kill = kernel_mutants._View(Baseline(dial), dial, holed).totality()
    assert kill == Kill("model", "totality", 4)
    assert kill is not None and confirmed(kill) == ("z3 finds ['inc_top'] of inc enabled, not none")
    # A second `reset` row the graph never fired, though z3 finds it.
    again = _dial(row("reset_again", "reset", None, guard=eq(n, 1), sets={"n": 0}, cite="t"))
    kill = kernel_mutants._View(Baseline(dial), again, g).rows_fire()
    assert kill == Kill("model", "rows-fire", None)
    assert kill is not None and confirmed(kill) == "z3 finds what the explorer did not: {'n': 1}"


def test_a_mutant_past_the_bound_has_no_fair_runs_to_compare() -> None:
    weakly = weak("go", "tick")
    spec = _cycle(weakly)
    m = var("m")
    counting = row("tick_counts", "tick", None, guard=lt(m, 2000), sets={"m": add(m, 1)}, cite="t")
    grown = replace(
        spec,
        vars=(*spec.vars, Var("m", IntRange(0, 2000), 0)),
        rows=(*spec.rows[:3], counting),
    )
    assert not same_fairness(Baseline(spec), grown)


def test_a_shared_constant_is_changed_in_every_row_and_named_by_the_spec_s_labels() -> None:
    """A comparison two rows share is one mutant of both (no row named); a long expression
    is named by its first 40 characters; values by their domain's labels; a set of one
    entry has none to drop."""
    level = Finite("Level", (1, 2, 3), namer=lambda v: ("LOW", "MID", "HIGH")[v - 1])
    lvl, count = var("level"), var("count")
    shared = le(count, 2)
    long = and_(lt(count, 3), eq(lvl, 2), is_in(lvl, 1), ge(count, 0), le(count, 3))
    spec = Spec(
        name="tables",
        source="tests",
        vars=(Var("count", IntRange(0, 3), 0), Var("level", level, 1)),
        triggers=(Trigger("up"), Trigger("down")),
        rows=(
            row("up", "up", None, guard=shared, sets={"count": add(count, 1)}, cite="t"),
            row("down", "down", None, guard=shared, cite="t"),
            row("raise", "up", None, guard=long, sets={"level": 3}, cite="t"),
        ),
        totality="enabled-only",
    )
    found = definition_candidates(spec)
    assert [c[:3] for c in found] == _listed("tables.definition")
    (both,) = [c[3] for c in found if c[2] == "2 → 1 in count ≤ 2 (2 rows)"]
    assert [r.guard for r in both().rows[:2]] == [le(count, 1)] * 2


def test_two_unchanged_rows_both_enabled_in_a_new_state_break_determinism() -> None:
    flag = var("flag")

    def spec(start: bool) -> Spec:
        return Spec(
            name="flags",
            source="tests",
            vars=(Var("flag", Bool(), start),),
            triggers=(Trigger("t"),),
            rows=(
                row("a", "t", None, guard=flag, cite="t"),
                row("b", "t", None, guard=flag, cite="t"),
                row("c", "t", None, guard=not_(flag), cite="t"),
            ),
        )

    kill = model_kill(Baseline(spec(False)), spec(True))
    assert kill == Kill("model", "determinism", 1)
    assert kill is not None and confirmed(kill) is None


def test_a_determinism_kill_z3_does_not_see_names_the_rows_it_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The evaluator slipped (the jump's guard read as true everywhere): the model layer
    claims two rows of `inc` at 0, and z3, finding one, refuses the kill."""
    n = var("n")
    jump = row("inc_jump", "inc", None, guard=eq(n, 1), sets={"n": 3}, cite="t")
    mutant = _dial(jump)
    slip = mutant.step_guard(mutant.row("inc_jump"))
    original = compiled

    def slipped(expr: Expr) -> Callable[[Env], Value]:
        return (lambda env: True) if expr == slip else original(expr)

    monkeypatch.setattr(kernel_mutants, "compiled", slipped)
    kill = model_kill(Baseline(_dial()), mutant)
    assert kill == Kill("model", "determinism", 1)
    assert kill is not None and confirmed(kill) == (
        "z3 finds ['inc_up'] of inc enabled, not two rows"
    )
