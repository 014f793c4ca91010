"""SPIN as the second engine: it must agree with the explorer on every spec and variant.

For each spec of `models.cli.registry.expand([])` SPIN's exhaustive search of the
Promela export must reach as many states as the explorer (pan's nominal
count less the one setup state, as `models/kernel/promela.py` documents),
give every property the verdict `verify` must report, and return trails as
short as the explorer's that are runs of the oracle. pan binaries are cached
under .cache/spin by the model's hash, so a warm run only searches.
"""

from __future__ import annotations

import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from systems import counter

from models.cli.main import main
from models.cli.registry import expand
from models.cli.registry import lookup
from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Param
from models.kernel import Real
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import gt
from models.kernel import ignore
from models.kernel import implies
from models.kernel import is_some
from models.kernel import le
from models.kernel import lt
from models.kernel import never
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import strong
from models.kernel import unwrap
from models.kernel import var
from models.kernel import weak
from models.kernel.checks import Checker
from models.kernel.explore import Exploration
from models.kernel.explore import explore
from models.kernel.promela import PROPERTY_ENV
from models.kernel.promela import SETUP_STATES
from models.kernel.promela import PromelaError
from models.kernel.promela import export
from models.kernel.spin import SpinBeyond
from models.kernel.spin import SpinError
from models.kernel.spin import SpinResult
from models.kernel.spin import SpinVerdict
from models.kernel.spin import compile_pan
from models.kernel.spin import disagreements
from models.kernel.spin import expected_verdict
from models.kernel.spin import find_deadlock
from models.kernel.spin import run_spin
from models.kernel.spin import spin_beyond
from models.kernel.spin import spin_liveness
from models.kernel.spin import tools_missing

SPECS = expand([])
pytestmark = pytest.mark.slow  # SPIN's exhaustive agreement: `make test`, not the gate

if tools_missing():
    pytest.fail(f"SPIN needs {tools_missing()}: run `make spin`", pytrace=False)


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[Spec, SpinResult, Exploration]]:
    def one(spec: Spec) -> tuple[Spec, SpinResult, Exploration]:
        return spec, run_spin(spec), explore(spec)

    # gcc and pan are subprocesses, so two threads keep both cores busy.
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {spec.name: got for spec, got in zip(SPECS, pool.map(one, SPECS), strict=True)}


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_spin_agrees_with_the_explorer(
    name: str, runs: dict[str, tuple[Spec, SpinResult, Exploration]]
) -> None:
    spec, result, graph = runs[name]
    assert disagreements(spec, result, graph) == []
    assert result.states == len(graph.states)
    assert result.stored == len(graph.states) + SETUP_STATES
    for prop in spec.properties:
        assert result.verdicts[prop.name].verdict == expected_verdict(spec, prop), prop.name


def test_every_variant_is_caught_by_spin(
    runs: dict[str, tuple[Spec, SpinResult, Exploration]],
) -> None:
    variants = [s for s in SPECS if s.expect_violated]
    assert variants, "no variants to check"
    for spec in variants:
        _, result, _ = runs[spec.name]
        for name in spec.expect_violated:
            if name in {p.name for p in spec.liveness}:
                continue  # test_spin_agrees_on_every_liveness_property checks it
            verdict = result.verdicts[name]
            assert verdict.verdict == "violated", name
            # A counterexample has a trace; a `sometimes` is violated by its absence (none).
            assert (verdict.trace is None) == (verdict.kind == "sometimes"), name


# Every liveness property of every spec and variant; then each seed property without its
# fairness (which must fail in both engines) and the tiny specs of tests/test_liveness.py.
LIVE = [(s.name, p.name) for s in SPECS for p in s.liveness]


def _unfair(name: str, prop: str) -> Spec:
    spec = lookup(name)
    one = (replace(spec.live(prop), fairness=()),)
    return replace(spec, fairness=(), liveness=one, variants=())


def _tiny() -> list[Spec]:
    from test_liveness import DONE
    from test_liveness import FINISHED
    from test_liveness import GO
    from test_liveness import TICK
    from test_liveness import _spec

    strong_done = replace(FINISHED, fairness=strong("done"))
    return [
        _spec((GO,), ("go",), (FINISHED,)),
        _spec((GO,), ("go",), (FINISHED,), fairness=weak("go")),
        _spec((TICK, DONE), ("tick", "done"), (FINISHED,), fairness=weak("tick", "done")),
        _spec((TICK, DONE), ("tick", "done"), (strong_done,), fairness=weak("tick")),
        _spec((TICK, DONE), ("tick", "done"), (strong_done,)),
    ]


def _agree(spec: Spec, prop: str) -> bool:
    ours = next(Checker(spec).run(prop)).verdict == "proved"
    spin = spin_liveness(spec, prop).holds
    assert spin == ours, f"{spec.name} {prop}: SPIN says {spin}, the explorer {ours}"
    return ours


def test_spin_agrees_on_every_liveness_property() -> None:
    assert LIVE, "no liveness property to compare"
    verdicts = [_agree(lookup(name), prop) for name, prop in LIVE]
    assert True in verdicts and False in verdicts  # both answers are compared
    for name, prop in LIVE:
        if lookup(name).live(prop).fairness or lookup(name).fairness:
            assert not _agree(_unfair(name, prop), prop), (name, prop)
    assert [_agree(spec, "finished") for spec in _tiny()] == [False, True, False, True, False]


def test_disagreements_are_reported(
    runs: dict[str, tuple[Spec, SpinResult, Exploration]],
) -> None:
    spec, result, graph = runs["wave:seed"]
    name = spec.expect_violated[0]
    wrong = replace(
        result,
        states=result.states + 1,
        verdicts={**result.verdicts, name: SpinVerdict(name, "always", "proved")},
    )
    found = disagreements(spec, wrong, graph)
    assert len(found) == 2
    assert "SPIN reaches" in found[0] and f"{name}: SPIN says proved" in found[1]
    trace = result.verdicts[name].trace
    assert trace is not None
    short = replace(trace, steps=trace.steps[:-1])
    cut = {**result.verdicts, name: SpinVerdict(name, "always", "violated", short)}
    assert any(
        "steps, the explorer's" in f
        for f in disagreements(spec, replace(result, verdicts=cut), graph)
    )


def test_promela_refuses_real_arithmetic() -> None:
    real = Real(samples=(0.0, 1.0))
    spec = Spec(
        name="drift",
        source="tests/test_spin.py",
        vars=(Var("x", real, 0.0),),
        triggers=(Trigger("move", (Param("by", real),)),),
        rows=(row("move", "move", None, sets={"x": add(var("x"), param("by"))}, cite="t"),),
    )
    with pytest.raises(PromelaError, match="real arithmetic"):
        export(spec)


def test_spin_trail_reads_back_an_outside_pan_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = lookup("duplex")
    model = tmp_path / "duplex.pml"
    assert main(["promela", "duplex", "-o", str(model)]) == 0
    assert model.read_text() == export(spec).text
    build = tmp_path / "build"
    build.mkdir()
    pan, _, _ = compile_pan(export(spec), build)
    k = export(spec).selector("grant-user-in-overlap")
    subprocess.run(
        [str(pan), "-m100000", "-E", "-n", "-w16"],
        cwd=tmp_path,
        env={**os.environ, PROPERTY_ENV: str(k)},
        check=True,
        capture_output=True,
    )
    capsys.readouterr()
    assert main(["spin-trail", "duplex", str(tmp_path / "duplex.pml.trail")]) == 0
    out = capsys.readouterr().out
    assert "SPIN's trail is a witness of sometimes grant-user-in-overlap" in out
    assert "5 steps:" in out
    assert " 5  grant_user_takes_floor" in out and "out: commands=[MUTE,CANCEL]" in out
    model.write_text(model.read_text() + "\n")
    assert main(["spin-trail", "duplex", str(tmp_path / "duplex.pml.trail")]) == 2
    assert "not the current export" in capsys.readouterr().err


def test_promela_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["promela", "wave", "--variant", "nope"]) == 2
    (tmp_path / "f").write_text("")
    assert main(["promela", "duplex", "-o", str(tmp_path / "f" / "d.pml")]) == 2
    assert "f is not a directory" in capsys.readouterr().err
    # -o makes a missing directory, as every output flag does (models/cli/kit.py).
    assert main(["promela", "duplex", "-o", str(tmp_path / "missing" / "d.pml")]) == 0
    assert (tmp_path / "missing" / "d.pml").read_text().startswith("/*")


def _odd_domains() -> Spec:
    """Options of a range that does not start at 0, reals, sums: the codes' corner cases."""
    level = IntRange(2, 5)
    erl = Real(samples=(0.5, 0.25))
    return Spec(
        name="odd",
        source="tests/test_spin.py",
        vars=(
            Var("held", Option(level), None),
            Var("last", Option(erl), None),
            Var("flag", Option(Bool()), AnyOf(None, True)),
        ),
        triggers=(
            Trigger("hold", (Param("at", level),)),
            Trigger("raise_"),
            Trigger("hear", (Param("value", erl),)),
        ),
        rows=(
            row("hold", "hold", None, sets={"held": some(param("at"))}, cite="t"),
            row(
                "raise_it",
                "raise_",
                None,
                guard=and_(is_some(var("held")), lt(unwrap(var("held")), 4)),
                sets={"held": some(add(unwrap(var("held")), 2)), "flag": some(False)},
                cite="t",
            ),
            ignore(
                "raise_ignored",
                "raise_",
                None,
                guard=not_(and_(is_some(var("held")), lt(unwrap(var("held")), 4))),
                cite="t",
            ),
            row("hear", "hear", None, sets={"last": some(param("value"))}, cite="t"),
        ),
        properties=(
            sometimes("reaches-four", eq(var("held"), some(4)), cite="t"),
            never(
                "loud-and-high",
                and_(eq(var("last"), some(0.5)), eq(var("held"), some(4))),
                cite="t",
            ),
            always(
                "low-first", implies(is_some(var("last")), gt(unwrap(var("last")), 0.3)), cite="t"
            ),
        ),
    )


def test_codes_cover_every_domain_shape() -> None:
    spec = _odd_domains()
    codec = export(spec).codec
    for v in spec.vars:
        for value in v.domain.sample():
            assert codec.decode(v.domain, codec.encode(v.domain, value)) == value
    result, graph = run_spin(spec), explore(spec)
    # held × last × flag, less flag=false with held=none (a raise needs a held level).
    assert result.states == len(graph.states) == 5 * 3 * 3 - 3
    assert disagreements(spec, result, graph) == []
    verdicts = {name: v.verdict for name, v in result.verdicts.items()}
    assert verdicts == {
        "reaches-four": "witnessed",
        "loud-and-high": "violated",
        "low-first": "violated",
    }


def test_an_update_out_of_range_is_an_error_not_a_wrap() -> None:
    spec = counter(
        "overflow",
        "tests/test_spin.py",
        2,
        properties=(always("small", le(var("n"), 2), cite="t"),),
    )
    with pytest.raises(SpinError, match="leaves its variable's range"):
        run_spin(spec)


def test_spin_json_is_what_the_reports_summary_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from models.cli import report_figures
    from models.cli.results import SpecResults
    from models.kernel.checks import verify

    out = tmp_path / "spin.json"
    assert main(["spin", "policy", "--json", str(out)]) == 0
    capsys.readouterr()
    written = json.loads(out.read_text())["specs"]
    assert [s["name"] for s in written] == [
        "policy",
        "policy:eager-reading",
        "policy:copies-the-arrival",
    ]
    assert written[0]["disagreements"] == [] and written[0]["states"] == 15
    monkeypatch.setattr(report_figures, "SPIN", out)
    spec = lookup("policy")
    page = report_figures.summary_html(spec, SpecResults.of(verify(spec)), "15", None, None)
    assert "agrees: 15 states, 10 properties" in page


def test_deadlock_and_liveness_searches_say_what_they_cost() -> None:
    """`make bench` counts these on SPIN's side: compiled afresh, each reports its spin -a,
    gcc and pan time, and `spin_beyond` sums them."""
    spec = lookup("duplex")
    live = spin_liveness(spec, spec.liveness[0].name, cache=None)
    dead = find_deadlock(spec, cache=None)
    for seconds in (live.seconds, dead.seconds):
        assert seconds.spin > 0 and seconds.gcc > 0 and seconds.pan > 0
        assert seconds.total == seconds.spin + seconds.gcc + seconds.pan + seconds.trails
    beyond = spin_beyond(spec, cache=None)
    assert list(beyond.verdicts) == ["no-deadlock", *(p.name for p in spec.liveness)]
    assert beyond.seconds.gcc > 0 and beyond.seconds.pan > 0  # compiled afresh, searched
    variant = spin_beyond(lookup("duplex:backchannel-holds-overlap")).verdicts
    assert variant == {"a-turn-claim-in-overlap-is-answered": "violated"}  # as it expects


def test_spin_full_compares_deadlock_and_liveness_with_verify(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`spin --full`: SPIN's no-deadlock and liveness verdicts beside the properties, each
    held to verify's check of the same name; a difference is a disagreement (exit 1)."""
    assert main(["spin", "duplex", "--full"]) == 0
    out = capsys.readouterr().out
    base, variant = out.split("duplex:backchannel-holds-overlap:")
    assert "  structural no-deadlock" in base and "proved" in base.split("no-deadlock")[1]
    assert "structural no-deadlock" not in variant  # a variant checks no structural check

    def said(text: str) -> dict[str, str]:
        return {ln.split()[1]: ln.split()[2] for ln in text.splitlines() if "leads-to" in ln}

    assert said(base) == {
        "a-turn-claim-in-overlap-is-answered": "proved",
        "a-turn-claim-outlives-a-lost-link": "violated",
    }
    assert said(variant) == {"a-turn-claim-in-overlap-is-answered": "violated"}
    assert (
        "agrees with the explorer on 2 specs and 40 verdicts (properties, no-deadlock, liveness)"
        in out
    )

    import models.cli.spin as command

    def flipped(spec: Spec, *, cache: Path | None) -> SpinBeyond:
        said = spin_beyond(spec, cache=cache)
        wrong = {k: "violated" if v == "proved" else "proved" for k, v in said.verdicts.items()}
        return replace(said, verdicts=wrong)

    monkeypatch.setattr(command, "spin_beyond", flipped)
    assert main(["spin", "duplex", "--full"]) == 1
    out = capsys.readouterr().out
    assert "duplex no-deadlock: SPIN says violated, verify proved" in out
    assert "duplex a-turn-claim-outlives-a-lost-link: SPIN says proved, verify violated" in out


def test_a_ctrl_c_does_not_wait_for_the_searches_under_way(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`spin` on policy's specs, two searches at a time: a Ctrl-C that lands while the other
    search runs stops the command at once (exit 130); no search is waited for."""
    import models.cli.spin as command

    second, released = threading.Event(), threading.Event()
    ended: list[str] = []

    def search(spec: Spec, *, cache: Path | None) -> SpinResult:
        if spec.name == "policy":
            second.wait(120)
            raise KeyboardInterrupt
        second.set()
        released.wait(120)  # under way until the command has returned
        ended.append(spec.name)
        raise RuntimeError("released")

    monkeypatch.setattr(command, "run_spin", search)
    try:
        assert main(["spin", "policy", "--jobs", "2"]) == 130
        assert ended == []
    finally:
        released.set()
    assert capsys.readouterr().err.strip() == "interrupted"
