"""SPIN's side (`models/kernel/spin.py`) on small specs: how a result is held to the explorer,
a trail replayed on the oracle, the pan cache, pan's report read, and what it refuses.

The agreement over every spec and variant is `tests/test_spin.py` (`make test`); this file
runs SPIN only on the small specs of `tests/test_promela.py`, each a second or less.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest
import systems
from test_promela import OFF
from test_promela import ON
from test_promela import lamp
from test_promela import picky

from models.kernel import Spec
from models.kernel import always
from models.kernel import eq
from models.kernel import eventually
from models.kernel import infinitely_often
from models.kernel import le
from models.kernel import lt
from models.kernel import never
from models.kernel import param
from models.kernel import sometimes
from models.kernel import spin as spin_module
from models.kernel import var
from models.kernel import weak
from models.kernel.explore import explore
from models.kernel.promela import export
from models.kernel.spin import Seconds
from models.kernel.spin import SpinError
from models.kernel.spin import SpinMissing
from models.kernel.spin import SpinResult
from models.kernel.spin import SpinVerdict
from models.kernel.spin import compile_pan
from models.kernel.spin import disagreements
from models.kernel.spin import expected_verdict
from models.kernel.spin import explorer_verdict
from models.kernel.spin import find_deadlock
from models.kernel.spin import read_trail
from models.kernel.spin import replay_on_oracle
from models.kernel.spin import run_spin
from models.kernel.spin import spin_beyond
from models.kernel.spin import spin_liveness
from models.kernel.spin import tools_missing
from models.kernel.spin import transitions
from models.kernel.trace import Step
from models.kernel.trace import Trace

SPIN = pytest.mark.skipif(bool(tools_missing()), reason="SPIN needs spin and gcc: `make spin`")
INIT = MappingProxyType({"phase": OFF, "level": 1, "held": None})


def _step(row_name: str, trigger: str, state: dict[str, object], **params: object) -> Step:
    lit = row_name == "turn_on"
    return Step(
        row_name,
        trigger,
        MappingProxyType(params),
        MappingProxyType(state),
        MappingProxyType({"lit": lit}),
    )


TURN_ON = _step("turn_on", "switch", {"phase": ON, "level": 1, "held": None})
BRIGHTEN = _step("brighten", "dim", {"phase": ON, "level": 3, "held": None}, by=2)


def _lamp_run() -> tuple[Spec, SpinResult]:
    spec = lamp()
    return spec, run_spin(spec)


@SPIN
def test_spin_reads_every_verdict_and_trail_of_the_lamp() -> None:
    spec, result = _lamp_run()
    assert (result.spec, result.states, result.stored, result.transitions) == (
        "lamp-1",
        24,
        25,
        171,
    )
    assert {name: (v.kind, v.verdict) for name, v in result.verdicts.items()} == {
        "low-when-off": ("always", "proved"),
        "lit-while-off": ("never", "proved"),
        "bright": ("sometimes", "witnessed"),
        "lit-only-by-turn-on": ("always", "proved"),
        "off-after-knob": ("never", "violated"),
        "level-kept-off-dim": ("always", "proved"),
        "held-never-three": ("always", "violated"),
    }
    assert result.verdicts["bright"].trace == Trace(INIT, (TURN_ON, BRIGHTEN))
    held = result.verdicts["held-never-three"].trace
    assert held is not None and [s.row for s in held.steps] == ["hold_more"]
    assert held.init["held"] == 2
    assert result.verdicts["low-when-off"].trace is None
    # Without trails, the verdicts stand and nothing is read back.
    quiet = run_spin(spec, trails=False)
    assert {n: v.verdict for n, v in quiet.verdicts.items()} == {
        n: v.verdict for n, v in result.verdicts.items()
    }
    assert all(v.trace is None for v in quiet.verdicts.values())


@SPIN
def test_disagreements_name_each_way_spin_differs() -> None:
    spec, result = _lamp_run()
    graph = explore(spec)
    assert disagreements(spec, result, graph) == []

    def differ(**verdicts: SpinVerdict) -> list[str]:
        return disagreements(spec, replace(result, verdicts={**result.verdicts, **verdicts}), graph)

    assert disagreements(spec, replace(result, states=25), graph) == [
        "lamp-1: SPIN reaches 25 states (pan stored 25 - 1), the explorer 24"
    ]
    assert differ(**{"held-never-three": SpinVerdict("held-never-three", "always", "proved")}) == [
        "lamp-1 held-never-three: SPIN says proved, the explorer violated"
    ]
    unread = SpinVerdict("off-after-knob", "never", "violated")
    assert differ(**{"off-after-knob": unread}) == [
        "lamp-1 off-after-knob: SPIN's trail was not read back"
    ]
    # Every property is compared, after one that differs too.
    flipped = {
        name: SpinVerdict(name, "always", "proved")
        for name in ("off-after-knob", "held-never-three")
    }
    assert differ(**flipped) == [
        "lamp-1 off-after-knob: SPIN says proved, the explorer violated",
        "lamp-1 held-never-three: SPIN says proved, the explorer violated",
    ]
    unread_both = {
        "bright": SpinVerdict("bright", "sometimes", "witnessed"),
        "off-after-knob": SpinVerdict("off-after-knob", "never", "violated"),
    }
    assert differ(**unread_both) == [
        "lamp-1 bright: SPIN's trail was not read back",
        "lamp-1 off-after-knob: SPIN's trail was not read back",
    ]
    short = SpinVerdict("bright", "sometimes", "witnessed", Trace(INIT, (TURN_ON,)))
    assert differ(bright=short) == [
        "lamp-1 bright: SPIN's trail has 1 steps, the explorer's 2 (1 and 4 pan transitions)",
        "lamp-1 bright: SPIN's trail does not end where the property fails",
    ]
    wrong = _step("brighten", "dim", {"phase": ON, "level": 2, "held": None}, by=2)
    off = SpinVerdict("bright", "sometimes", "witnessed", Trace(INIT, (TURN_ON, wrong)))
    assert differ(bright=off) == [
        "lamp-1 bright: SPIN's trail is not a run of the spec: step 2: the oracle fires "
        "brighten to {'level': 3, 'held': None, 'phase': <Phase.ON: 'ON'>}"
    ]


def test_a_trace_that_is_no_run_of_the_oracle_says_where() -> None:
    spec = lamp()
    assert replay_on_oracle(spec, Trace(INIT, (TURN_ON, BRIGHTEN))) is None
    lit = MappingProxyType({"phase": ON, "level": 1, "held": None})
    assert replay_on_oracle(spec, Trace(lit, ())) == (
        "its initial state {'phase': <Phase.ON: 'ON'>, 'level': 1, 'held': None} "
        "is not an initial state of the spec"
    )
    far = _step("brighten", "dim", {"phase": ON, "level": 3, "held": None}, by=7)
    assert replay_on_oracle(spec, Trace(INIT, (TURN_ON, far))) == (
        "step 2 (brighten) cannot fire: trigger 'dim': by=7 is not in int 1..2"
    )
    other_row = replace(TURN_ON, row="turn_off")
    assert replay_on_oracle(spec, Trace(INIT, (other_row,))) == (
        "step 1: the oracle fires turn_on to {'level': 1, 'held': None, 'phase': <Phase.ON: 'ON'>}"
    )
    dark = replace(TURN_ON, outputs=MappingProxyType({"lit": False}))
    assert replay_on_oracle(spec, Trace(INIT, (dark,))) == (
        "step 1: the oracle emits {'lit': True}, SPIN {'lit': False}"
    )


def test_a_trace_costs_pan_one_transition_a_step_and_one_more_per_pick() -> None:
    spec = lamp()
    assert transitions(spec, Trace(INIT, ())) == 0
    assert transitions(spec, Trace(INIT, (TURN_ON,))) == 1
    assert transitions(spec, Trace(INIT, (TURN_ON, BRIGHTEN))) == 4


def test_the_expected_and_the_explorers_verdicts() -> None:
    spec = lamp()
    graph = explore(spec)
    props = {p.name: p for p in spec.properties}
    assert [expected_verdict(spec, p) for p in spec.properties] == [
        "proved",
        "proved",
        "witnessed",
        "proved",
        "proved",
        "proved",
        "proved",
    ]
    variant = replace(spec, expect_violated=("bright", "held-never-three"))
    assert expected_verdict(variant, props["bright"]) == "violated"
    assert expected_verdict(variant, props["held-never-three"]) == "violated"
    assert explorer_verdict(graph, props["low-when-off"]) == ("proved", None)
    verdict, hit = explorer_verdict(graph, props["bright"])
    assert verdict == "witnessed" and hit is not None and len(hit) == 2
    verdict, hit = explorer_verdict(graph, props["off-after-knob"])  # a step property
    assert verdict == "violated" and hit is not None
    assert [s.row for s in hit.steps] == ["dim_when_off"]
    never_two = sometimes("x-two", eq(var("x"), 2), cite="t")
    assert explorer_verdict(explore(picky()), never_two) == ("violated", None)


@SPIN
def test_pan_is_compiled_once_per_model_and_flags(tmp_path: Path) -> None:
    model = export(lamp())
    first, second = tmp_path / "b1", tmp_path / "b2"
    first.mkdir()
    second.mkdir()
    cache = tmp_path / "cache"
    pan, _, cached = compile_pan(model, first, cache=cache)
    assert not cached
    assert pan.parent.parent == cache and pan.name == "pan" and pan.exists()
    assert (pan.parent / "lamp-1.pml").read_text() == model.text
    assert compile_pan(model, second, cache=cache) == (pan, Seconds(), True)
    other, _, cached = compile_pan(model, second, cache=cache, cflags=("-O0",))
    assert not cached and other != pan and other.parent.parent == cache
    bare, _, cached = compile_pan(model, second, cache=None)
    assert (bare, cached) == (second / "pan", False)
    assert len(list(cache.iterdir())) == 2  # one pan per flags


def test_missing_tools_are_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    assert tools_missing() == ["spin", "gcc"]
    with pytest.raises(SpinMissing) as raised:
        compile_pan(export(lamp()), tmp_path, cache=None)
    assert str(raised.value) == (
        "spin and gcc not found: install SPIN with `make spin` (Debian: apt-get install spin gcc)"
    )
    model = tmp_path / "lamp-1.pml"
    model.write_text(export(lamp()).text)
    with pytest.raises(SpinMissing, match=r"^spin not found: install it with `make spin`$"):
        read_trail(lamp(), model, tmp_path / "lamp-1.pml.trail")


def test_a_trail_of_a_stale_model_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "lamp-1.pml"
    model.write_text(export(lamp()).text + "\n")
    with pytest.raises(SpinError) as raised:
        read_trail(lamp(), model, tmp_path / "lamp-1.pml.trail")
    assert str(raised.value) == (
        f"{model} is not the current export of 'lamp-1': re-export it with "
        f"`python -m models promela lamp-1 -o {model}` and rerun pan"
    )


def counter(**more: object) -> Spec:
    """x counts up to 2, where nothing is enabled: a deadlock after two steps."""
    return systems.counter(
        "counter",
        "tests/test_spin_small.py",
        2,
        count="x",
        guard=lt(var("x"), 2),
        totality="enabled-only",
        **more,  # type: ignore[arg-type]
    )


@SPIN
def test_a_deadlock_is_found_with_its_trail() -> None:
    dead = find_deadlock(counter())
    assert dead.found and dead.trace is not None
    assert [s.row for s in dead.trace.steps] == ["inc", "inc"]
    assert dead.trace.steps[-1].state == {"x": 2}
    # A terminal state is no deadlock.
    assert not find_deadlock(counter(terminal=eq(var("x"), 2))).found
    assert spin_beyond(counter()).verdicts == {"no-deadlock": "violated"}
    assert spin_beyond(counter(terminal=eq(var("x"), 2))).verdicts == {"no-deadlock": "proved"}
    assert spin_beyond(counter(check_deadlock=False)).verdicts == {}


def test_the_costs_add_up() -> None:
    assert Seconds(1.0, 2.0, 3.0, 4.0).total == 10.0
    assert Seconds().total == 0.0


@pytest.mark.parametrize(
    ("report", "nominal"),
    [
        # The nominal figure is read as pan prints it, not worked out from the others.
        ("97 states, stored\n\t      25 nominal states (stored-atomic)\n 70 atomic steps", 25),
        ("7 states, stored\n", 7),  # depth-first: no state inside an atomic step
        ("2000000 states, stored\n\t 1.9e+06 nominal states\n 123456 atomic steps", 1876544),
    ],
)
def test_the_nominal_state_count_is_read_exactly(report: str, nominal: int) -> None:
    assert spin_module._nominal(report) == nominal


def test_a_report_without_an_exact_figure_is_refused() -> None:
    with pytest.raises(SpinError, match="^pan's report rounds its state count: it cannot be"):
        spin_module._nominal("2000000 states, stored\n 1.9e+06 nominal states\n 1e+05 atomic steps")
    with pytest.raises(SpinError, match="^pan's report rounds its state count"):
        spin_module._nominal("2000000 states, stored\n 1.9e+06 nominal states\n")
    with pytest.raises(SpinError, match=r"^pan's report has no 'transitions' figure$"):
        spin_module._count("97 states, stored", "transitions")


@pytest.mark.parametrize(
    ("hint", "bits"), [(0, 16), (1, 16), (2**14, 16), (2**14 + 1, 17), (2**26, 28), (2**30, 28)]
)
def test_pans_hash_table_fits_the_states(hint: int, bits: int) -> None:
    assert spin_module._hash_bits(hint) == bits


@SPIN
def test_a_deadlock_search_checks_no_property() -> None:
    """The deadlock search runs with the no-property selector: `small` fails at x = 1, yet
    the search goes on to the deadlock at x = 2."""
    spec = counter(properties=(always("small", lt(var("x"), 1), cite="t"),))
    dead = find_deadlock(spec, cache=None)
    assert dead.found and dead.trace is not None and len(dead.trace) == 2
    alive = find_deadlock(counter(terminal=eq(var("x"), 2)), cache=None)
    assert not alive.found and alive.trace is None


@SPIN
def test_spin_beyond_decides_deadlock_and_each_liveness_property() -> None:
    spec = counter(
        fairness=weak("inc"),
        liveness=(
            eventually("top", eq(var("x"), 2), cite="t"),
            infinitely_often("again", eq(var("x"), 0), cite="t"),
        ),
    )
    assert spin_beyond(spec, cache=None).verdicts == {
        "no-deadlock": "violated",
        "top": "proved",
        "again": "violated",
    }


@SPIN
@pytest.mark.parametrize("cut", ["max search depth too small", "out of memory"])
@pytest.mark.parametrize("search", ["properties", "deadlock", "liveness"])
def test_a_truncated_search_is_an_error(
    monkeypatch: pytest.MonkeyPatch, search: str, cut: str
) -> None:
    """pan's own report of a search cut short (depth or memory) is refused, not read."""
    spec = counter(fairness=weak("inc"), liveness=(eventually("top", eq(var("x"), 2), cite="t"),))
    run = spin_module._run

    def pan_cut(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
        if Path(cmd[0]).name != "pan":
            return run(cmd, cwd, env)
        return f"pan: {cut}\nerror: the rest of the report"

    monkeypatch.setattr(spin_module, "_run", pan_cut)
    with pytest.raises(SpinError) as raised:
        if search == "properties":
            run_spin(spec)
        elif search == "deadlock":
            find_deadlock(spec)
        else:
            spin_liveness(spec, "top")
    assert str(raised.value) == f"pan's search was truncated: pan: {cut}"


class _Clock:
    """A clock that moves only when a tool runs: each kind of run costs a fixed time."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def _timed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`spin -a` costs 1 s, gcc 10, a pan search 100, a trail's replay 1000, on a fake clock."""
    clock = _Clock()
    monkeypatch.setattr(spin_module, "time", clock)
    run = spin_module._run

    def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
        out = run(cmd, cwd, env)
        clock.now += {"spin": 1.0, "gcc": 10.0}.get(cmd[0], 1000.0 if "-r" in cmd else 100.0)
        return out

    monkeypatch.setattr(spin_module, "_run", timed)


@SPIN
def test_run_spin_times_each_tool_and_says_when_pan_was_cached(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The lamp fails a safety property: a search of them all, one of none, one per property
    (9 in all), and 3 trails read back."""
    _timed(monkeypatch)
    first = run_spin(lamp(), cache=tmp_path)
    assert (first.seconds, first.cached) == (Seconds(1.0, 10.0, 900.0, 3000.0), False)
    assert len(list(tmp_path.iterdir())) == 1
    again = run_spin(lamp(), cache=tmp_path)
    assert (again.seconds, again.cached) == (Seconds(0.0, 0.0, 900.0, 3000.0), True)
    quiet = run_spin(lamp(), cache=tmp_path, trails=False)
    assert quiet.seconds == Seconds(0.0, 0.0, 900.0, 0.0)


@SPIN
def test_the_deadlock_and_liveness_searches_time_each_tool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _timed(monkeypatch)
    spec = counter(
        fairness=weak("inc"),
        liveness=(
            eventually("top", eq(var("x"), 2), cite="t"),
            infinitely_often("again", eq(var("x"), 0), cite="t"),
        ),
    )
    assert find_deadlock(spec, cache=None).seconds == Seconds(1.0, 10.0, 100.0, 1000.0)
    alive = find_deadlock(counter(terminal=eq(var("x"), 2)), cache=None)
    assert alive.seconds == Seconds(1.0, 10.0, 100.0, 0.0)
    assert spin_liveness(spec, "top", cache=None).seconds == Seconds(1.0, 10.0, 100.0, 0.0)
    # The deadlock search and two liveness searches, summed; each pan cached once compiled.
    assert spin_beyond(spec, cache=tmp_path).seconds == Seconds(3.0, 30.0, 300.0, 1000.0)
    assert len(list(tmp_path.iterdir())) == 3
    assert spin_beyond(spec, cache=tmp_path).seconds == Seconds(0.0, 0.0, 300.0, 1000.0)


def test_a_failed_command_is_named_with_the_last_five_lines_it_printed(tmp_path: Path) -> None:
    noisy = "for i in 1 2 3 4 5 6; do echo out$i; echo err$i >&2; done; exit 3"
    with pytest.raises(SpinError) as raised:
        spin_module._run(["sh", "-c", noisy], tmp_path)
    assert str(raised.value) == f"`sh -c {noisy}` failed: err2 / err3 / err4 / err5 / err6"
    # With nothing on stderr, stdout says why.
    with pytest.raises(SpinError) as raised:
        spin_module._run(["sh", "-c", "echo no pan.c; exit 1"], tmp_path)
    assert str(raised.value) == "`sh -c echo no pan.c; exit 1` failed: no pan.c"


def test_a_command_runs_where_and_with_the_selector_it_is_given(tmp_path: Path) -> None:
    env = spin_module._env(4)
    assert env == {**os.environ, "SC_PROP": "4"}
    out = spin_module._run(["sh", "-c", "pwd -P; echo $SC_PROP"], tmp_path, env)
    assert out == f"{tmp_path.resolve()}\n4\n"


@SPIN
def test_pan_is_cached_under_the_hash_of_its_model_and_flags(tmp_path: Path) -> None:
    model = export(lamp())
    key = hashlib.sha256((model.digest + "-O0 -DSAFETY -DNOREDUCE -DBFS").encode()).hexdigest()
    cache = tmp_path / "deep" / "cache"  # made with its parents
    pan, _, cached = compile_pan(model, tmp_path, cache=cache)
    assert (pan, cached) == (cache / key[:20] / "pan", False)
    assert sorted(p.name for p in pan.parent.iterdir()) == ["lamp-1.pml", "pan"]


@SPIN
def test_a_pan_another_run_is_caching_is_left_to_it(tmp_path: Path) -> None:
    """When the hash's directory appears before the staged copy is renamed to it, the copy
    is dropped: the cache holds that directory alone, as the other run leaves it."""
    model = export(lamp())
    learn = tmp_path / "learn"
    learn.mkdir()
    key = compile_pan(model, learn, cache=tmp_path / "first")[0].parent.name
    cache = tmp_path / "cache"
    (cache / key).mkdir(parents=True)
    (cache / key / "lamp-1.pml").write_text("being written")
    build = tmp_path / "build"
    build.mkdir()
    pan, _, cached = compile_pan(model, build, cache=cache)
    assert (pan, cached) == (cache / key / "pan", False)
    assert list(cache.iterdir()) == [cache / key]
    assert [p.name for p in (cache / key).iterdir()] == ["lamp-1.pml"]


@SPIN
def test_a_spec_that_deadlocks_has_its_properties_decided() -> None:
    """pan's property searches ignore invalid end states (`-E`): the counter deadlocks at
    x = 2, after `small` fails at x = 1."""
    spec = counter(properties=(always("small", lt(var("x"), 1), cite="t"),))
    small = run_spin(spec).verdicts["small"]
    assert small.verdict == "violated" and small.trace is not None
    assert [dict(s.state) for s in small.trace.steps] == [{"x": 1}]


@SPIN
def test_a_trail_is_read_back_from_paths_relative_to_here(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model = export(lamp())
    build, there = tmp_path / "build", tmp_path / "there"
    build.mkdir()
    there.mkdir()
    (there / "lamp-1.pml").write_text(model.text)
    pan, _, _ = compile_pan(model, build, cache=None)
    env = spin_module._env(model.selector("held-never-three"))
    spin_module._run([str(pan), "-m100", "-E", "-n", "-w16"], there, env)
    monkeypatch.chdir(tmp_path)
    trace, broken = read_trail(lamp(), Path("there/lamp-1.pml"), Path("there/lamp-1.pml.trail"))
    assert trace == run_spin(lamp()).verdicts["held-never-three"].trace
    assert broken == ["held-never-three"]


def _all_safe() -> Spec:
    """picky keeps x below 2: its `always` holds, one `sometimes` is reached, one is not."""
    return replace(
        picky(),
        properties=(
            always("below-two", lt(var("x"), 2), cite="t"),
            sometimes("x-two", eq(var("x"), 2), cite="t"),
            sometimes("x-one", eq(var("x"), 1), cite="t"),
        ),
    )


@SPIN
def test_one_search_proves_every_safety_property_when_none_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A search of every always/never, then one per `sometimes`: 3 searches, 1 trail."""
    _timed(monkeypatch)
    result = run_spin(_all_safe(), cache=tmp_path)
    assert (result.states, result.stored, result.transitions) == (2, 3, 20)
    one = Step(
        "set",
        "set",
        MappingProxyType({"v": 1}),
        MappingProxyType({"x": 1}),
        MappingProxyType({}),
    )
    assert result.verdicts == {
        "below-two": SpinVerdict("below-two", "always", "proved"),
        "x-two": SpinVerdict("x-two", "sometimes", "violated"),
        "x-one": SpinVerdict(
            "x-one", "sometimes", "witnessed", Trace(MappingProxyType({"x": 0}), (one,))
        ),
    }
    assert result.seconds == Seconds(1.0, 10.0, 300.0, 1000.0)
    # With no `sometimes`, that one search is all pan's time.
    safe = replace(picky(), properties=(always("below-two", lt(var("x"), 2), cite="t"),))
    assert run_spin(safe, cache=tmp_path).seconds == Seconds(1.0, 10.0, 100.0, 0.0)


def _overflow() -> Spec:
    """n counts past its range's top, 2, at the third step."""
    return systems.counter(
        "overflow",
        "tests/test_spin_small.py",
        2,
        properties=(always("small", le(var("n"), 2), cite="t"),),
    )


@SPIN
def test_an_update_that_leaves_its_range_is_named_by_pans_assertion() -> None:
    with pytest.raises(SpinError) as raised:
        run_spin(_overflow())
    assert str(raised.value) == (
        "overflow: an update leaves its variable's range: "
        "pan:1: assertion violated ((0<=(p_n+1))&&((p_n+1)<=2)) (at depth 3)"
    )


@SPIN
def test_run_spin_compiles_with_the_flags_it_is_given(tmp_path: Path) -> None:
    with pytest.raises(SpinError, match=r"^`gcc -DSAFETY --no-such-flag -w -o pan pan\.c` failed"):
        run_spin(lamp(), cache=tmp_path, cflags=("-DSAFETY", "--no-such-flag"))


@SPIN
def test_run_spin_leaves_nothing_where_it_is_called(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every pan search runs in a directory of its own: no trail is left here, even by a
    search that fails on an update out of range."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert run_spin(lamp(), cache=tmp_path / "cache").verdicts["held-never-three"].trace
    with pytest.raises(SpinError, match="leaves its variable's range"):
        run_spin(_overflow(), cache=tmp_path / "cache")
    # Nor by the deadlock search's trail or a liveness search's failure.
    spec = counter(
        fairness=weak("inc"), liveness=(infinitely_often("again", eq(var("x"), 0), cite="t"),)
    )
    assert spin_beyond(spec, cache=tmp_path / "cache").verdicts == {
        "no-deadlock": "violated",
        "again": "violated",
    }
    assert list(here.iterdir()) == []


def test_a_step_property_ends_bad_only_on_a_step_it_reads() -> None:
    """A step property reads the last step's parameters; a trace of no step has none."""
    by_two = never("by-two", eq(param("by"), 2), cite="t")
    spec = replace(lamp(), properties=(by_two,))
    assert spin_module._ends_bad(spec, by_two, Trace(INIT, (TURN_ON, BRIGHTEN)))
    by_one = _step("brighten", "dim", {"phase": ON, "level": 2, "held": None}, by=1)
    assert not spin_module._ends_bad(spec, by_two, Trace(INIT, (TURN_ON, by_one)))
    assert not spin_module._ends_bad(spec, by_two, Trace(INIT, ()))


@SPIN
def test_a_deadlock_pan_left_no_trail_for_is_found_without_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _timed(monkeypatch)
    timed = spin_module._run

    def no_trail(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
        out = timed(cmd, cwd, env)
        for trail in cwd.glob("*.trail"):
            trail.unlink()
        return out

    monkeypatch.setattr(spin_module, "_run", no_trail)
    dead = find_deadlock(counter(), cache=None)
    assert dead == spin_module.SpinDeadlock(True, None, Seconds(1.0, 10.0, 100.0, 0.0))


@SPIN
def test_a_liveness_report_without_an_error_count_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = counter(fairness=weak("inc"), liveness=(eventually("top", eq(var("x"), 2), cite="t"),))
    run = spin_module._run

    def pan_mute(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
        return run(cmd, cwd, env) if Path(cmd[0]).name != "pan" else "pan: no figures\n"

    monkeypatch.setattr(spin_module, "_run", pan_mute)
    with pytest.raises(SpinError) as raised:
        spin_liveness(spec, "top")
    assert str(raised.value) == "pan's report has no error count"
