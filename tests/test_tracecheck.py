"""check-trace: acceptance, rejection at the changed step, malformed input, ITF both ways.

The logs here are real: impl.duplex and impl.mode driven through model walks by the
seed framework's `driver_logs` / plugin `impl_logs`, and the model's own witnesses.
"""

from __future__ import annotations

import copy
import enum
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.drivers.duplex import DRIVER
from conformance.seeds import driver_logs
from conformance.seeds import duplex as duplex_plugin
from conformance.seeds import policy as policy_plugin
from conformance.seeds._testing import seed_harness
from conformance.seeds.walks import model_walks
from models import duplex
from models import policy
from models.cli.main import main
from models.cli.registry import expand
from models.cli.trace import itf_name
from models.kernel import Output
from models.kernel import Param
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import lt
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import var
from models.kernel.domains import Domain
from models.kernel.domains import Finite
from models.kernel.domains import IntRange
from models.kernel.domains import Option
from models.kernel.domains import Real
from models.kernel.explore import explore
from models.kernel.itf import read_itf
from models.kernel.itf import to_itf
from models.kernel.spec import AnyOf
from models.kernel.spec import Spec
from models.kernel.trace import Step
from models.kernel.trace import Trace
from models.kernel.tracecheck import Log
from models.kernel.tracecheck import LogStep
from models.kernel.tracecheck import TraceInputError
from models.kernel.tracecheck import _shortest_to
from models.kernel.tracecheck import check_stream
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import decode_step
from models.kernel.tracecheck import loads
from models.kernel.tracecheck import parse_jsonl
from models.kernel.tracecheck import parse_objects
from models.kernel.tracecheck import step_json
from models.kernel.tracecheck import stepper_for
from models.kernel.tracecheck import stream_jsonl
from models.kernel.tracecheck import trace_to_log
from models.kernel.values import decode

ROOT = Path(__file__).resolve().parent.parent


def _duplex_logs(n: int = 40) -> list[list[dict[str, Any]]]:
    walks = model_walks(duplex.SPEC, random_walks=n, length=12).walks
    return driver_logs(DRIVER, walks[-n:])


def _write(path: Path, log: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in log))
    return path


def test_every_row_witness_of_every_spec_is_accepted() -> None:
    for spec in expand([]):
        graph = explore(spec)
        for edge in graph.row_witnesses().values():
            verdict = check_trace(spec, trace_to_log(spec, graph.path_through(edge)))
            assert verdict.ok, (spec.name, edge.row, verdict.report())


def test_impl_logs_are_accepted_and_the_cli_says_so(tmp_path: Path) -> None:
    logs = _duplex_logs()
    for log in logs:
        assert check_trace(duplex.SPEC, parse_objects(duplex.SPEC, enumerate(log, 1))).ok
    assert main(["check-trace", "duplex", str(_write(tmp_path / "a.jsonl", logs[0]))]) == 0


def _other_value(domain: Domain, raw: Any) -> Any:
    """A different JSON value of the same domain."""
    value = decode(domain, raw)
    if isinstance(domain, Option):
        if value is None:
            inner = domain.inner
            return 0.25 if isinstance(inner, Real) else _label(inner, inner.values[0])  # type: ignore[index]
        return None
    if isinstance(domain, Real):
        return (value if value == value else 0.0) + 1.0
    assert isinstance(domain, Finite)
    other = next(v for v in domain.values if v != value)
    return _label(domain, other)


def _label(domain: Domain, value: Any) -> Any:
    from models.kernel.values import encode

    return encode(domain, value)


def _flips(spec: Spec, log: list[dict[str, Any]]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """Every (step, field, log with that one observed field changed)."""
    found = []
    for k, line in enumerate(log):
        if "init" in line:
            continue
        for part in ("outputs", "state"):
            for name, raw in line.get(part, {}).items():
                domain = spec.output(name).domain if part == "outputs" else spec.var(name).domain
                changed = copy.deepcopy(log)
                changed[k][part][name] = _other_value(domain, raw)
                found.append((k, f"{part}.{name}", changed))
    return found


def _seed_duplex_log() -> list[dict[str, Any]]:
    """The longest of a few duplex.rs logs (the harness is cached by `make seeds`)."""
    harness = seed_harness(duplex_plugin)
    walks = model_walks(duplex.SPEC, random_walks=40, length=12).walks[-40:]
    return max(harness.run(walks), key=len)


@pytest.mark.parametrize("which", ["duplex", "duplex-seed", "policy"])
def test_changing_any_one_observed_field_is_rejected_at_that_step(which: str) -> None:
    if which == "duplex":
        spec: Spec = duplex.SPEC
        log = max(_duplex_logs(), key=len)
    elif which == "duplex-seed":
        spec = duplex.SPEC
        log = _seed_duplex_log()
    else:
        spec = policy.POLICY_SPEC
        walks = model_walks(spec, random_walks=20, length=12).walks[-20:]
        log = policy_plugin.to_model(max(policy_plugin.impl_logs(walks), key=len))
    flips = _flips(spec, log)
    assert len(flips) >= 2 * (len(log) - 1)
    for k, field, changed in flips:
        verdict = check_trace(spec, parse_objects(spec, enumerate(changed, 1)))
        assert not verdict.ok, f"step {k} {field} changed and still accepted"
        assert verdict.step == k and verdict.line == k + 1, (field, verdict.report())


def test_a_rejection_reports_step_line_observed_allowed_and_the_shortest_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[dict[str, Any]] = [
        {"init": {"payload": "AUDIO"}},
        {"trigger": "vad_onset", "args": {}, "state": {"state": "LISTENING"}},
        {"trigger": "smart_turn_eou", "args": {}},
        {"trigger": "grant_agent", "args": {}},
        {"trigger": "vad_onset", "args": {}},
        {"trigger": "grant_user", "args": {}, "outputs": {"commands": ["CANCEL", "MUTE"]}},
    ]
    out = tmp_path / "v.json"
    assert (
        main(
            ["check-trace", "duplex", str(_write(tmp_path / "r.jsonl", lines)), "--json", str(out)]
        )
        == 1
    )
    text = capsys.readouterr().out
    assert (
        "REJECTED at step 5 (line 6): no step the model allows here has the observed "
        "outputs.commands" in text
    )
    assert "row grant_user_takes_floor" in text and "commands=[MUTE,CANCEL]" in text
    assert "shortest model trace to the last consistent state (4 steps)" in text
    report = json.loads(out.read_text())
    assert report["ok"] is False and report["step"] == 5 and len(report["prefix"]) == 5


def test_partial_observation_keeps_every_consistent_state() -> None:
    # Without the payload, both stay possible until a Backchannel (audio only) is observed.
    steps = [
        LogStep("vad_onset", {}),
        LogStep("smart_turn_eou", {}),
        LogStep("grant_agent", {}),
    ]
    assert check_trace(duplex.SPEC, steps).consistent == 2
    seen = [*steps, LogStep("backchannel", {}, state={"state": duplex.BACKCHANNEL})]
    verdict = check_trace(duplex.SPEC, seen)
    assert verdict.ok and verdict.consistent == 1


MALFORMED = [
    ("{not json", "line 1: not JSON"),
    ('{"trigger": "jump", "args": {}}', "line 1: unknown trigger 'jump'"),
    ('{"trigger": "erl", "args": {}}', "line 1: args: missing argument 'value'"),
    ('{"trigger": "erl", "args": {"value": "high"}}', "line 1: args.value: 'high' is not a number"),
    ('{"trigger": "vad_onset", "args": {}, "state": {"mood": 1}}', "unknown variable 'mood'"),
    ('{"trigger": "vad_onset", "args": {}, "outputs": {"beep": 1}}', "unknown output 'beep'"),
    ('{"trigger": "vad_onset", "args": {}, "state": {"state": "ASLEEP"}}', "state.state: 'ASLEEP'"),
    ('{"trigger": "vad_onset", "args": {}}\n{"init": {}}', "line 2: unknown field 'init'"),
    ("[1, 2]", "line 1: a step must be a JSON object"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_input_is_exit_2_naming_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text + "\n")
    assert main(["check-trace", "duplex", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_malformed_input_prints_no_traceback_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"trigger": "erl", "args": {"value": true}}\n')
    done = subprocess.run(
        [sys.executable, "-m", "models", "check-trace", "duplex", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and "line 1: args.value" in done.stderr


def test_a_missing_file_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-trace", "duplex", "/nonexistent/log.jsonl"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_seed_variant_is_chosen_with_variant(tmp_path: Path) -> None:
    # The eager-reading variant's counterexample is a behaviour of the variant, not the spec.
    spec = policy.POLICY_SPEC.with_variant("eager-reading")
    graph = explore(spec)
    edge = graph.first_edge(spec.properties[0].bad)
    assert edge is not None
    log = trace_to_log(spec, graph.path_through(edge))
    path = tmp_path / "eager.itf.json"
    path.write_text(json.dumps(to_itf(spec, graph.path_through(edge))))
    assert main(["check-trace", "policy", str(path), "--variant", "eager-reading"]) == 0
    assert main(["check-trace", "policy", str(path)]) == 1
    assert check_trace(spec, log).ok


def test_itf_round_trip_of_every_trace_verify_writes(tmp_path: Path) -> None:
    """Witnesses and counterexamples, written by `verify --itf-dir`, read back and accepted."""
    names = ["duplex", "policy"]  # (all specs: measured by hand, see the closing note)
    report = tmp_path / "report.json"
    itf = tmp_path / "itf"
    assert (
        main(["verify", *names, "--jobs", "1", "--itf-dir", str(itf), "--json", str(report)]) == 0
    )
    specs = {s.name: s for s in expand(names)}
    expected = {
        itf_name(specs[s["name"]], c["id"])
        for s in json.loads(report.read_text())["specs"]
        for c in s["checks"]
        if c["trace"] is not None
    }
    written = sorted(itf.glob("*.itf.json"))
    assert {p.name for p in written} == expected and len(written) > 15
    assert any(".eager-reading." in p.name for p in written)  # counterexamples too
    for path in written:
        obj = json.loads(path.read_text())
        spec = specs[obj["#meta"]["spec"]]
        assert obj["vars"] == [v.name for v in spec.vars]
        assert [s["#meta"]["index"] for s in obj["states"]] == list(range(len(obj["states"])))
        verdict = check_trace(spec, read_itf(spec, path.read_text()))
        assert verdict.ok, (path.name, verdict.report())
        assert main(["check-trace", spec.name, str(path)]) == 0


def test_explain_writes_itf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "w.itf.json"
    assert main(["explain", "duplex", "reach-overlap-audio", "--itf", str(path)]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    obj = json.loads(path.read_text())
    assert obj["states"][-1]["state"] == "OVERLAP"
    assert obj["states"][1]["mbt::actionTaken"] in {r.name for r in duplex.SPEC.rows}
    assert check_trace(duplex.SPEC, read_itf(duplex.SPEC, path.read_text())).ok


def test_a_malformed_itf_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.itf.json"
    path.write_text(json.dumps({"#meta": {}, "vars": [], "states": [{"state": "IDLE"}, {}]}))
    assert main(["check-trace", "duplex", str(path)]) == 2
    assert "states[1]: field 'mbt::actionTaken' is missing" in capsys.readouterr().err
    with pytest.raises(TraceInputError, match="not an ITF trace"):
        read_itf(duplex.SPEC, "[]")


def test_jsonl_reads_command_lists_and_label_strings_alike() -> None:
    a = '{"trigger": "vad_onset", "args": {}, "outputs": {"commands": []}}'
    b = '{"trigger": "vad_onset", "args": {}, "outputs": {"commands": "[]"}}'
    assert parse_jsonl(duplex.SPEC, [a]) == parse_jsonl(duplex.SPEC, [b])


def test_a_foreign_itf_naming_triggers_and_quint_options_is_read() -> None:
    """As Quint writes it: no statecheck fields, the action is the trigger, options as variants."""
    none = {"tag": "None", "value": {"#tup": []}}
    states = [
        {"#meta": {"index": 0}, "state": "IDLE", "payload": "AUDIO", "last_erl": none},
        {
            "#meta": {"index": 1},
            "state": "IDLE",
            "payload": "AUDIO",
            "last_erl": {"tag": "Some", "value": 0.5},
            "mbt::actionTaken": "erl",
            "mbt::nondetPicks": {"value": 0.5},
        },
    ]
    text = json.dumps({"#meta": {"format": "ITF"}, "vars": ["state"], "states": states})
    assert check_trace(duplex.SPEC, read_itf(duplex.SPEC, text)).ok
    states[1]["last_erl"] = none
    assert not check_trace(duplex.SPEC, read_itf(duplex.SPEC, json.dumps({"states": states}))).ok


def test_an_initial_state_the_model_cannot_start_in_is_rejected_at_step_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "i.jsonl", [{"init": {"state": "LISTENING"}}])
    assert main(["check-trace", "duplex", str(path)]) == 1
    assert "REJECTED at step 0 (line 1): no initial state" in capsys.readouterr().out


# ---------------------------------------------------------------- the rejection, exactly


class At(enum.Enum):
    A = "A"
    B = "B"
    C = "C"


N = IntRange(0, 3, "N")
REAL = Real((0.25,))


# Built afresh where it is checked: mutmut forks each mutant's tests from a process that
# has run them, whose `stepper_for` cache already holds the steppers of specs built at import.
# Two initial states (n is 0 or 1: `init` drops the 2 its `inits` allow), rows that read n
# into an output, two rows of one trigger, and a trigger with no row in A (enabled-only).
def _toy_spec() -> Spec:
    return Spec(
        name="toy",
        source="tests/test_tracecheck.py",
        vars=(
            Var("at", Finite.of_enum(At, "At"), At.A),
            Var("n", N, AnyOf(0, 1, 2)),
            Var("x", Option(REAL), None),
        ),
        triggers=(
            Trigger("go", (Param("k", N),)),
            Trigger("put", (Param("v", REAL),)),
            Trigger("peek"),
            Trigger("stop"),
        ),
        outputs=(Output("got", N, 0), Output("echo", Option(REAL), None)),
        rows=(
            row(
                "go_a", "go", At.A, At.B, sets={"n": param("k")}, emits={"got": var("n")}, cite="t"
            ),
            row("go_b", "go", At.B, At.A, cite="t"),
            row(
                "put_any",
                "put",
                None,
                sets={"x": some(param("v"))},
                emits={"echo": some(param("v"))},
                cite="t",
            ),
            row("peek", "peek", At.A, emits={"got": var("n")}, cite="t"),
            row("peek_too", "peek", None, At.C, emits={"got": 3}, cite="t"),
            row("stop_b", "stop", At.B, At.C, cite="t"),
        ),
        control="at",
        init=lt(var("n"), 2),
        totality="enabled-only",
    )


TOY = _toy_spec()  # for reading logs
INIT_0 = {"action": "init", "args": {}, "state": {"at": "A", "n": 0, "x": None}, "outputs": {}}


def _toy(lines: list[dict[str, Any]], explain: bool = True) -> tuple[list[str], dict[str, Any]]:
    spec = _toy_spec()
    log = parse_jsonl(spec, [json.dumps(line) for line in lines])
    verdict = check_trace(spec, log) if explain else check_trace(spec, log, explain=False)
    return verdict.report(), verdict.to_json()


def _allowed(row: str, n: int, got: int, at: str = "A") -> dict[str, Any]:
    return {
        "row": row,
        "state": {"at": at, "n": n, "x": None},
        "outputs": {"got": got, "echo": None},
    }


def test_an_accepted_log_reports_its_steps_and_consistent_states() -> None:
    assert _toy([{"trigger": "go", "args": {"k": 2}}]) == (
        ["check-trace toy: accepted — 1 step, 1 consistent model state at the end"],
        {"spec": "toy", "ok": True, "steps": 1, "consistent": 1},
    )
    assert _toy([]) == (
        ["check-trace toy: accepted — 0 steps, 2 consistent model states at the end"],
        {"spec": "toy", "ok": True, "steps": 0, "consistent": 2},
    )


@pytest.mark.parametrize("n", [2, 3])  # 2 is in n's inits but not `init`; 3 is in neither
def test_an_impossible_initial_state_is_reported_exactly(n: int) -> None:
    reason = f'no initial state of the model has the observed initial values {{"n": {n}}}'
    assert _toy([{"init": {"n": n}}]) == (
        [f"check-trace toy: REJECTED at step 0 (line 1): {reason}"],
        {
            "spec": "toy",
            "ok": False,
            "steps": 0,
            "consistent": 0,
            "step": 0,
            "line": 1,
            "reason": reason,
            "observed": None,
            "allowed": [],
        },
    )
    verdict = check_trace(_toy_spec(), Log({"n": n}, ()))
    assert verdict.line is None and "(in memory)" in verdict.report()[0]


def test_a_trigger_no_row_answers_is_reported_with_the_shortest_trace_and_the_real_used() -> None:
    lines = [{"trigger": "put", "args": {"v": 0.6}}, {"trigger": "stop", "args": {}}]
    reason = "no row of 'stop' is enabled in any consistent state"
    report, obj = _toy(lines)
    assert report == [
        f"check-trace toy: REJECTED at step 2 (line 2): {reason}",
        '  observed: {"trigger": "stop", "args": {}}',
        "  the model allows no step of this trigger here",
        "  shortest model trace to the last consistent state (1 step):",
        "     0  init     at=A n=0 x=none",
        "     1  put_any  put(v=0.6)  x none→0.6   out: echo=0.6",
    ]
    put = {"at": "A", "n": 0, "x": 0.6}
    rejected = {
        "spec": "toy",
        "ok": False,
        "steps": 1,
        "consistent": 2,
        "step": 2,
        "line": 2,
        "reason": reason,
        "observed": {"trigger": "stop", "args": {}},
        "allowed": [],
    }
    assert obj == {
        **rejected,
        "prefix": [
            INIT_0,
            {
                "action": "put_any",
                "args": {"v": 0.6},
                "state": put,
                "outputs": {"got": 0, "echo": 0.6},
            },
        ],
    }
    assert _toy(lines, explain=False) == (report[:3], rejected)


def test_a_row_that_is_not_enabled_is_reported_with_every_step_the_model_allows() -> None:
    report, obj = _toy([{"trigger": "go", "args": {"k": 2}, "row": "go_b"}])
    assert report == [
        "check-trace toy: REJECTED at step 1 (line 1): row 'go_b' is not enabled here",
        '  observed: {"trigger": "go", "args": {"k": 2}, "row": "go_b"}',
        "  the model allows here:",
        "    row go_a: → at=B n=2 x=none",  # its output is the default: not shown
        "    row go_a: → at=B n=2 x=none   out: got=1",
        "  shortest model trace to the last consistent state (0 steps):",
        "     0  init  at=A n=0 x=none",
    ]
    assert obj["allowed"] == [_allowed("go_a", 2, 0, "B"), _allowed("go_a", 2, 1, "B")]
    assert obj["prefix"] == [INIT_0] and obj["observed"]["row"] == "go_b"


def test_a_field_no_allowed_step_of_the_observed_row_has_is_named() -> None:
    # peek_too emits got=3, but the log says peek fired: only peek's steps count.
    step = {"trigger": "peek", "args": {}, "row": "peek", "outputs": {"got": 3}}
    report, obj = _toy([step])
    assert report[0] == (
        "check-trace toy: REJECTED at step 1 (line 1): "
        "no step the model allows here has the observed outputs.got"
    )
    assert report[1:7] == [
        '  observed: {"trigger": "peek", "args": {}, "outputs": {"got": 3}, "row": "peek"}',
        "  the model allows here:",
        "    row peek: → at=A n=0 x=none",
        "    row peek_too: → at=C n=0 x=none   out: got=3",
        "    row peek: → at=A n=1 x=none   out: got=1",
        "    row peek_too: → at=C n=1 x=none   out: got=3",
    ]
    assert obj["observed"] == step and obj["allowed"] == [
        _allowed("peek", 0, 0),
        _allowed("peek_too", 0, 3, "C"),
        _allowed("peek", 1, 1),
        _allowed("peek_too", 1, 3, "C"),
    ]


def test_the_unmatched_fields_are_named_in_order_outputs_then_state() -> None:
    step = {"trigger": "go", "args": {"k": 2}, "outputs": {"got": 3}, "state": {"n": 1, "at": "B"}}
    report, obj = _toy([step])
    assert obj["reason"] == "no step the model allows here has the observed outputs.got, state.n"
    assert report[1] == "  observed: " + json.dumps(step)
    assert obj["steps"] == 0 and obj["consistent"] == 2 and obj["step"] == 1


def test_observed_values_each_allowed_but_never_together_are_said_so() -> None:
    step = {"trigger": "peek", "args": {}, "outputs": {"got": 1}, "state": {"n": 0}}
    report, obj = _toy([step])
    assert obj["reason"] == "no step the model allows here has all the observed values together"
    assert report[0].endswith(obj["reason"]) and len(obj["allowed"]) == 4


def test_step_json_writes_every_observed_part_and_reads_back() -> None:
    step = {
        "trigger": "put",
        "args": {"v": 0.6},
        "outputs": {"echo": 0.6, "got": 0},
        "state": {"x": 0.6, "n": 1},
        "row": "put_any",
    }
    (parsed,) = parse_jsonl(TOY, [json.dumps(step)]).steps
    assert step_json(TOY, parsed) == step
    assert step_json(TOY, LogStep("peek", {})) == {"trigger": "peek", "args": {}}
    assert check_trace(_toy_spec(), [parsed]).ok


def test_a_step_built_in_memory_or_read_from_an_itf_place_is_located_so() -> None:
    at = check_trace(_toy_spec(), [LogStep("stop", {})]).report()[0]
    assert at.startswith("check-trace toy: REJECTED at step 1 (in memory): ")
    placed = check_trace(_toy_spec(), [LogStep("stop", {}, place="states[1]")]).report()[0]
    assert placed.startswith("check-trace toy: REJECTED at step 1 (states[1]): ")


TOY_MALFORMED = [
    (['{"trigger": "go", "trigger": "go", "args": {"k": 1}}'], "line 1: duplicate key 'trigger'"),
    (['{"trigger": "peek", "args": {}, "args": {}}'], "line 1: duplicate key 'args'"),
    (["[" * 100_000], "line 1: nested too deeply to read"),
    (['{"trigger": "peek"}', '{"x": 1%s}' % ("0" * 5000)], "line 2: not readable JSON (Exceeds"),
    (['{"trigger": "go"}'], "line 1: args: missing argument 'k' of 'go'"),
    (['{"args": {}}'], "line 1: field 'trigger' is missing or not a string"),
    (['{"trigger": 5}'], "line 1: field 'trigger' is missing or not a string"),
    (['{"trigger": "jump"}'], "line 1: unknown trigger 'jump' (known: go, put, peek, stop)"),
    (['{"trigger": "go", "args": []}'], "line 1: field 'args' must be an object"),
    (
        ['{"trigger": "go", "args": {"k": 1, "z": 2, "a": 3}}'],
        "line 1: args: 'go' takes no argument 'a'",
    ),
    (['{"trigger": "go", "args": {"k": 9}}'], "line 1: args.k: 9 is not an integer in 0..3"),
    (['{"trigger": "peek", "outputs": []}'], "line 1: outputs: must be an object"),
    (
        ['{"trigger": "peek", "outputs": {"got": 9}}'],
        "line 1: outputs.got: 9 is not an integer in 0..3",
    ),
    (['{"trigger": "peek", "outputs": {"n": 1}}'], "line 1: outputs: unknown output 'n'"),
    (['{"trigger": "peek", "state": {"got": 1}}'], "line 1: state: unknown variable 'got'"),
    (['{"trigger": "peek", "state": {"n": 9}}'], "line 1: state.n: 9 is not an integer in 0..3"),
    (['{"trigger": "peek", "state": 3}'], "line 1: state: must be an object"),
    (['{"trigger": "peek", "row": "go_a"}'], "line 1: row 'go_a' is no row of trigger 'peek'"),
    (['{"trigger": "peek", "row": 7}'], "line 1: row 7 is no row of trigger 'peek'"),
    (['{"trigger": "peek", "b": 1, "a": 2}'], "line 1: unknown field 'a'"),
    (
        ['{"trigger": "peek"}', '{"init": {}}'],
        "line 2: unknown field 'init' (an init line must come first)",
    ),
    (['{"init": {}, "x": 1, "b": 2}'], "line 1: unknown field 'b'"),
    (['{"init": []}'], "line 1: init: must be an object"),
    (['{"init": {"n": 9}}'], "line 1: init.n: 9 is not an integer in 0..3"),
    (["", "  ", '{"trigger": "peek"}', "5"], "line 4: a step must be a JSON object"),
    (['{"trigger": "peek"}', "{bad"], "line 2: not JSON (Expecting property name enclosed in"),
]


@pytest.mark.parametrize(("lines", "message"), TOY_MALFORMED)
def test_each_malformed_line_is_refused_naming_its_line_and_field(
    lines: list[str], message: str
) -> None:
    with pytest.raises(TraceInputError) as err:
        parse_jsonl(TOY, lines)
    assert str(err.value).startswith(message), str(err.value)
    if not message.endswith(("(Exceeds", " in")):
        assert str(err.value) == message


def test_loads_names_the_line_only_when_asked() -> None:
    for text, plain, lined in [
        ('{\n"a": ]', "not JSON (Expecting value)", "not JSON (line 2: Expecting value)"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'", "duplicate key 'a'"),
    ]:
        for lines, message in [(False, plain), (True, lined)]:
            with pytest.raises(TraceInputError) as err:
                loads(text, lines=lines)
            assert str(err.value) == message
    assert loads('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}


def test_a_log_is_read_with_its_init_line_and_line_numbers_past_blank_lines() -> None:
    lines = ["", '{"init": {"n": 1}}', "", '{"trigger": "go", "args": {"k": 3}}']
    assert parse_jsonl(TOY, lines) == Log({"n": 1}, (LogStep("go", {"k": 3}, line=4),), 2)
    init, init_line, steps = stream_jsonl(TOY, [*lines, "{bad"])
    assert (init, init_line, next(steps)) == ({"n": 1}, 2, LogStep("go", {"k": 3}, line=4))
    with pytest.raises(TraceInputError, match="^line 5: not JSON"):
        next(steps)
    assert parse_jsonl(TOY, []) == Log({}, ()) and stream_jsonl(TOY, [])[:2] == ({}, 0)
    # No init line: the first step is a step.
    assert parse_jsonl(TOY, ['{"trigger": "peek"}']) == Log({}, (LogStep("peek", {}, line=1),))
    # Built without a line number, a step keeps its place.
    step = decode_step(TOY, {"trigger": "peek", "row": "peek"}, "states[3]")
    assert step == LogStep("peek", {}, row="peek", place="states[3]")


def test_a_model_trace_becomes_a_fully_observed_log() -> None:
    state = {"at": At.B, "n": 2, "x": None}
    trace = Trace(
        {"at": At.A, "n": 1, "x": None},
        (Step("go_a", "go", {"k": 2}, state, {"got": 1, "echo": None}),),
    )
    log = trace_to_log(TOY, trace)
    assert log == Log(
        {"at": At.A, "n": 1, "x": None},
        (LogStep("go", {"k": 2}, {"got": 1, "echo": None}, state, "go_a"),),
    )
    assert check_trace(_toy_spec(), log).ok
    # Every part of it is observed: the output and the row each decide.
    (step,) = log.steps
    wrong = [
        LogStep("go", {"k": 2}, {"got": 0, "echo": None}, state, "go_a"),
        LogStep("go", {"k": 2}, step.outputs, state, "go_b"),
    ]
    for other in wrong:
        assert not check_trace(_toy_spec(), Log(log.init, (other,))).ok


def test_the_shortest_trace_takes_a_second_row_of_a_firing_whose_first_is_seen() -> None:
    # From A, peek's first row stays in A (already seen); its second, peek_too, reaches C.
    lines = [
        {"trigger": "peek", "args": {}, "outputs": {"got": 3}},
        {"trigger": "go", "args": {"k": 1}},
    ]
    report, obj = _toy(lines)
    assert report[3:] == [
        "  shortest model trace to the last consistent state (1 step):",
        "     0  init      at=A n=0 x=none",
        "     1  peek_too  peek()  at A→C   out: got=3",
    ]
    after = {"at": "C", "n": 0, "x": None}
    assert obj["prefix"] == [
        INIT_0,
        {"action": "peek_too", "args": {}, "state": after, "outputs": {"got": 3, "echo": None}},
    ]


class Digit(enum.Enum):
    D0, D1, D2, D3, D4, D5, D6, D7, D8, D9 = range(10)


def _wide_spec() -> Spec:
    """Ten initial states, each a member of an enum (enums do not order: only their repr does)."""
    digit = Finite.of_enum(Digit, "Digit")
    return Spec(
        name="wide",
        source="tests/test_tracecheck.py",
        vars=(Var("d", digit, AnyOf(*reversed(Digit))),),
        triggers=(Trigger("poke"),),
        outputs=(Output("seen", digit, Digit.D0),),
        rows=(row("poke_any", "poke", None, emits={"seen": var("d")}, cite="t"),),
    )


def test_a_rejection_lists_the_steps_of_the_first_eight_consistent_states() -> None:
    verdict = check_trace(
        _wide_spec(), [LogStep("poke", {}, state={"d": Digit.D0}, outputs={"seen": Digit.D1})]
    )
    assert verdict.consistent == 10 and verdict.reason == (
        "no step the model allows here has all the observed values together"
    )
    assert [a.state["d"] for a in verdict.allowed] == list(Digit)[:8]
    assert verdict.report()[3:5] == [
        "    row poke_any: → d=D0",
        "    row poke_any: → d=D1   out: seen=D1",
    ]


def test_one_stepper_per_spec_object() -> None:
    spec = _toy_spec()
    stepper = stepper_for(spec)
    assert stepper_for(spec) is stepper and stepper_for(_toy_spec()) is not stepper
    assert stepper.names == ["at", "n", "x"] and stepper.control == 0
    assert stepper.as_dict((At.A, 1, None)) == {"at": At.A, "n": 1, "x": None}
    steps = list(stepper.successors((At.A, 1, None), "go", {"k": 3}))
    assert [(r.name, after, outputs) for r, after, outputs in steps] == [
        ("go_a", (At.B, 3, None), {"got": 1, "echo": None})
    ]
    assert list(stepper.successors((At.C, 1, None), "go", {"k": 3})) == []


def test_the_shortest_trace_search_stops_at_its_budget_of_states() -> None:
    spec = _toy_spec()
    stepper = stepper_for(spec)
    goal = {(At.C, 0, None)}  # one step from the first of the two initial states
    assert _shortest_to(spec, stepper, {}, {}, goal, budget=2) is None
    found = _shortest_to(spec, stepper, {}, {}, goal, budget=3)
    assert found is not None and [s.row for s in found.steps] == ["peek_too"]


@pytest.mark.parametrize(
    "seen",
    [{"row": "peek_too"}, {"outputs": {"got": 3}}, {"state": {"at": "C"}}],
    ids=["row", "output", "state"],
)
def test_a_step_matching_only_the_second_row_of_its_trigger_is_accepted(
    seen: dict[str, Any],
) -> None:
    # peek's first row stays in A and emits n; only the second, peek_too, fits.
    assert _toy([{"trigger": "peek", "args": {}, **seen}]) == (
        ["check-trace toy: accepted — 1 step, 2 consistent model states at the end"],
        {"spec": "toy", "ok": True, "steps": 1, "consistent": 2},
    )


def test_every_output_that_differs_from_its_default_is_shown_for_an_allowed_step() -> None:
    lines = [
        {"trigger": "erl", "args": {"value": 0.5}},
        {"trigger": "vad_onset", "args": {}, "outputs": {"impulse": "BACKCHANNEL"}},
    ]
    log = parse_jsonl(duplex.SPEC, [json.dumps(line) for line in lines])
    report = check_trace(duplex.SPEC, log, explain=False).report()
    assert report[2:] == [
        "  the model allows here:",
        "    row onset_claims_idle: → state=LISTENING payload=AUDIO last_erl=0.5"
        "   out: impulse=TURN_CLAIM impulse_erl=0.5",
        "    row onset_claims_idle: → state=LISTENING payload=TEXT last_erl=0.5"
        "   out: impulse=TURN_CLAIM impulse_erl=0.5",
    ]


def test_the_shortest_trace_tries_every_value_of_an_optional_argument() -> None:
    # An option's sample starts with None: the pool must still take the values after it.
    maybe = Option(N)
    spec = Spec(
        name="opt",
        source="tests/test_tracecheck.py",
        vars=(Var("y", maybe, None),),
        triggers=(Trigger("set", (Param("v", maybe),)), Trigger("halt")),
        rows=(row("set_y", "set", None, sets={"y": param("v")}, cite="t"),),
        totality="enabled-only",
    )
    verdict = check_trace(spec, [LogStep("set", {"v": 2}), LogStep("halt", {})])
    assert verdict.reason == "no row of 'halt' is enabled in any consistent state"
    assert verdict.prefix == Trace({"y": None}, (Step("set_y", "set", {"v": 2}, {"y": 2}, {}),))


def test_a_stream_checked_with_no_init_line_locates_a_bad_start_in_memory() -> None:
    verdict = check_stream(_toy_spec(), {"n": 3}, iter([]))
    assert verdict.step == 0 and verdict.line is None
    assert verdict.report()[0].startswith("check-trace toy: REJECTED at step 0 (in memory): ")


def _two_reals() -> Spec:
    """`put` sets lo first, then hi: a goal can hold a real the log set long before."""
    real = Option(REAL)
    return Spec(
        name="two",
        source="tests/test_tracecheck.py",
        vars=(Var("lo", real, None), Var("hi", real, None)),
        triggers=(Trigger("put", (Param("v", REAL),)), Trigger("halt")),
        rows=(
            row(
                "put_lo",
                "put",
                None,
                guard=is_none(var("lo")),
                sets={"lo": some(param("v"))},
                cite="t",
            ),
            row(
                "put_hi",
                "put",
                None,
                guard=is_some(var("lo")),
                sets={"hi": some(param("v"))},
                cite="t",
            ),
        ),
        totality="enabled-only",
    )


def test_the_shortest_trace_remembers_the_latest_16_distinct_values_of_each_parameter() -> None:
    halt = LogStep("halt", {})
    # 0.5, then 0.75 seventeen times: two distinct values, both remembered.
    repeated = [LogStep("put", {"v": 0.5}), *[LogStep("put", {"v": 0.75})] * 17, halt]
    verdict = check_trace(_two_reals(), repeated)
    assert verdict.prefix is not None
    assert [s.params["v"] for s in verdict.prefix.steps] == [0.5, 0.75]
    # 0.5, then sixteen other values: 0.5 is forgotten, and the model trace is not found.
    distinct = [
        LogStep("put", {"v": 0.5}),
        *[LogStep("put", {"v": 1.0 + i}) for i in range(16)],
        halt,
    ]
    assert check_trace(_two_reals(), distinct).prefix is None
    assert check_trace(_two_reals(), [distinct[0], *distinct[2:]]).prefix is not None
