"""ITF both ways (models/kernel/itf.py): the fields Apalache and Quint read, the value forms
(#bigint, #set, #tup, #map, Quint's option variants), and each malformed trace refused with
a message naming the state and the field.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from letters import MSG
from letters import NODE
from letters import Msg

from models.kernel import Bool
from models.kernel import Finite
from models.kernel import Func
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Seq
from models.kernel import Set
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import row
from models.kernel.itf import ADR
from models.kernel.itf import itf_text
from models.kernel.itf import looks_like_itf
from models.kernel.itf import read_itf
from models.kernel.itf import to_itf
from models.kernel.itf import write_itf
from models.kernel.trace import Step
from models.kernel.trace import Trace
from models.kernel.tracecheck import Log
from models.kernel.tracecheck import LogStep
from models.kernel.tracecheck import TraceInputError

BIG = 2**53  # the first integer ITF writes as #bigint
HUGE = IntRange(BIG - 1, BIG, "Huge")
CMDS = Finite.of_sequences("Cmds", Msg, 2, [(), (Msg.A, Msg.B)])
FUNC = Func(NODE, Option(HUGE))
PAIR = Func(NODE, MSG)
BY_OPTION = Func(Option(MSG), Bool())
SPEC = Spec(
    name="itfy",
    source="tests/test_itf.py",
    vars=(
        Var("big", HUGE, BIG - 1),
        Var("q", Seq(MSG, 2), ()),
        Var("s", Set(MSG), frozenset()),
        Var("f", FUNC, FUNC.of(lambda n: None)),
        Var("o", Option(HUGE), None),
        Var("cmds", CMDS, ()),
        Var("qo", Seq(Option(MSG), 1), ()),
        Var("of", Option(PAIR), None),
        Var("fo", BY_OPTION, BY_OPTION.of(lambda k: False)),
    ),
    triggers=(Trigger("put", (Param("k", NODE), Param("v", HUGE), Param("w", Option(MSG)))),),
    outputs=(Output("out", HUGE, BIG - 1),),
    rows=(row("put_row", "put", None, cite="toy"),),
)
INIT = {
    "big": BIG - 1,
    "q": (),
    "s": frozenset(),
    "f": FUNC.of(lambda n: None),
    "o": None,
    "cmds": (),
    "qo": (),
    "of": None,
    "fo": BY_OPTION.of(lambda k: False),
}
AFTER = {
    "big": BIG,
    "q": (Msg.B, Msg.A),
    "s": frozenset({Msg.A, Msg.B}),
    "f": FUNC.of(lambda n: BIG if n == 1 else None),
    "o": BIG - 1,
    "cmds": (Msg.A, Msg.B),
    "qo": (Msg.A,),
    "of": PAIR.of(lambda n: Msg.B),
    "fo": BY_OPTION.of(lambda k: k is Msg.A),
}
TRACE = Trace(INIT, (Step("put_row", "put", {"k": 2, "v": BIG, "w": Msg.B}, AFTER, {"out": BIG}),))


def test_a_trace_is_written_with_the_fields_apalache_and_quint_read() -> None:
    itf = to_itf(SPEC, TRACE)
    assert itf["#meta"] == {
        "format": "ITF",
        "format-description": ADR,
        "source": "tests/test_itf.py",
        "spec": "itfy",
        "description": "",
        "generator": "statecheck",
    }
    assert itf["vars"] == [v.name for v in SPEC.vars] and "loop" not in itf
    bigint = {"#bigint": str(BIG)}
    assert itf["states"][1] == {
        "#meta": {"index": 1},
        "big": bigint,
        "q": ["B", "A"],
        "s": {"#set": ["A", "B"]},
        "f": {
            "#map": [
                [1, {"tag": "Some", "value": bigint}],
                [2, {"tag": "None", "value": {"#tup": []}}],
            ]
        },
        "o": {"tag": "Some", "value": BIG - 1},
        "cmds": ["A", "B"],
        "qo": [{"tag": "Some", "value": "A"}],
        "of": {"tag": "Some", "value": {"#map": [[1, "B"], [2, "B"]]}},
        "fo": {
            "#map": [
                [{"tag": "None", "value": {"#tup": []}}, False],
                [{"tag": "Some", "value": "A"}, True],
                [{"tag": "Some", "value": "B"}, False],
            ]
        },
        "mbt::actionTaken": "put_row",
        "mbt::nondetPicks": {"k": 2, "v": bigint, "w": {"tag": "Some", "value": "B"}},
        "statecheck::trigger": "put",
        "statecheck::outputs": {"out": bigint},
    }
    assert to_itf(SPEC, TRACE, loop=1)["loop"] == 1


def test_the_text_is_indented_json_and_reads_back_as_the_trace(tmp_path: Path) -> None:
    text = itf_text(SPEC, TRACE, description="why")
    assert text.startswith('{\n "#meta": {\n  "format": "ITF",') and text.endswith("}\n")
    assert json.loads(text)["#meta"]["description"] == "why"
    assert json.loads(itf_text(SPEC, TRACE))["#meta"]["description"] == ""
    step = LogStep(
        "put", {"k": 2, "v": BIG, "w": Msg.B}, {"out": BIG}, AFTER, row="put_row", place="states[1]"
    )
    assert read_itf(SPEC, text) == Log(INIT, (step,))
    path = tmp_path / "t.itf.json"
    assert write_itf(SPEC, TRACE, path, description="why") == path and path.read_text() == text
    write_itf(SPEC, TRACE, path, loop=1)
    assert json.loads(path.read_text())["loop"] == 1
    assert json.loads(path.read_text())["#meta"]["description"] == ""


def _doc() -> dict[str, Any]:
    return copy.deepcopy(to_itf(SPEC, TRACE))


def test_foreign_spellings_are_read() -> None:
    doc = _doc()
    last = doc["states"][1]
    last.update(
        {"q": {"#tup": ["B", "A"]}, "s": ["A", "B"], "cmds": {"#tup": ["A", "B"]}, "o": BIG - 1}
    )
    del last["statecheck::trigger"]  # the row names its trigger
    (step,) = read_itf(SPEC, json.dumps(doc)).steps
    assert step.trigger == "put" and step.row == "put_row" and step.state == AFTER
    doc["states"][0]["o"] = None
    doc["states"][0]["s"] = {"#set": []}
    assert read_itf(SPEC, json.dumps(doc)).init == INIT


def _refusal(change: Any) -> str:
    doc = _doc()
    text = change(doc)
    with pytest.raises(TraceInputError) as refused:
        read_itf(SPEC, text if isinstance(text, str) else json.dumps(doc))
    return str(refused.value)


def _set(path: str, value: Any) -> Any:
    def change(doc: dict[str, Any]) -> None:
        *keys, last = path.split("/")
        at: Any = doc
        for k in keys:
            at = at[int(k)] if k.isdigit() else at[k]
        at[int(last) if last.isdigit() else last] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: "{\n", "not JSON (line 2: Expecting property name enclosed in double quotes)"),
        (lambda doc: "[]", "not an ITF trace (no 'states' list)"),
        (_set("states", []), "ITF 'states' is empty"),
        (_set("states/0", 5), "states[0]: not an object"),
        (_set("states/1", 5), "states[1]: not an object"),
        (
            _set("states/1/mbt::nondetPicks", []),
            "states[1]: field 'mbt::nondetPicks' must be an object",
        ),
        (
            _set("states/1/statecheck::outputs", []),
            "states[1]: field 'statecheck::outputs' must be an object",
        ),
        (
            _set("states/1/big", {"#bigint": "12a"}),
            "states[1].big: #bigint must be a string of digits, got '12a'",
        ),
        (
            _set("states/1/big", {"#bigint": 12}),
            "states[1].big: #bigint must be a string of digits, got 12",
        ),
        (
            _set("states/1/big", {"#bigint": "9" * 5000}),
            "states[1].big: #bigint has too many digits",
        ),
        (_set("states/1/cmds", {"#tup": 5}), "states[1].cmds: #tup must be a list, got 5"),
        (_set("states/1/cmds", {"#set": "A"}), "states[1].cmds: #set must be a list, got 'A'"),
        (
            _set("states/1/q", [{"#bigint": "x"}]),
            "states[1].q: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/cmds", {"#tup": [{"#bigint": "x"}]}),
            "states[1].cmds: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/f", {"#map": [[{"#bigint": "x"}, None]]}),
            "states[1].f: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/f", {"#map": [[1, {"#bigint": "x"}], [2, None]]}),
            "states[1].f: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/o", {"tag": "Some", "value": {"#bigint": "x"}}),
            "states[1].o: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/mbt::nondetPicks/v", {"#bigint": "x"}),
            "states[1].mbt::nondetPicks.v: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/statecheck::outputs/out", {"#bigint": "x"}),
            "states[1].statecheck::outputs.out: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/0/big", {"#bigint": "x"}),
            "states[0].big: #bigint must be a string of digits, got 'x'",
        ),
        (
            _set("states/1/o", {"tag": "Nope", "value": 2}),
            "states[1].o: {'tag': 'Nope', 'value': 2} is not an integer in "
            "9007199254740991..9007199254740992",
        ),
        (_set("states/1/nope", 1), "states[1]: unknown variable 'nope'"),
        (
            _set("states/1/statecheck::outputs/nope", 1),
            "states[1]: statecheck::outputs: unknown output 'nope'",
        ),
        (
            _set("states/1/mbt::nondetPicks/zz", 1),
            "states[1]: mbt::nondetPicks: 'put' takes no argument 'zz'",
        ),
        (
            lambda doc: doc["states"][1].update(
                {"mbt::actionTaken": "zzz", "statecheck::trigger": None}
            ),
            "states[1]: unknown trigger 'zzz' (known: put)",
        ),
        (
            lambda doc: doc["states"][1].update(
                {"mbt::actionTaken": None, "statecheck::trigger": None}
            ),
            "states[1]: field 'mbt::actionTaken' is missing",
        ),
        (
            _set("states/1/f", {"#map": [[1, None]]}),
            "states[1].f: {'1': None} is not a function [Node -> Option[Huge]] "
            "(an object keyed 1, 2)",
        ),
        (
            _set("states/1/q", {"#set": 5}),
            "states[1].q: {'#set': 5} is not a list (sequences of Msg (A, B) up to 2 long)",
        ),
        (
            _set("states/1/big", {"#map": []}),
            "states[1].big: {'#map': []} is not an integer in 9007199254740991..9007199254740992",
        ),
        (
            _set("states/0/big", "x"),
            "states[0].big: 'x' is not an integer in 9007199254740991..9007199254740992",
        ),
        (
            lambda doc: doc["states"][1].pop("mbt::nondetPicks"),
            "states[1]: mbt::nondetPicks: missing argument 'k' of 'put'",
        ),
        (_set("loop", True), "'loop' must be a state index 0..1, got True"),
        (_set("loop", "1"), "'loop' must be a state index 0..1, got '1'"),
        (_set("loop", 2), "'loop' must be a state index 0..1, got 2"),
        (_set("loop", -1), "'loop' must be a state index 0..1, got -1"),
        (_set("loop", 0), "'loop' is 0 but states[1] is not states[0] again: not a lasso"),
    ],
)
def test_a_malformed_trace_is_refused_naming_where(change: Any, message: str) -> None:
    assert _refusal(change) == message


def test_an_itf_file_is_known_by_its_name_or_its_first_bytes() -> None:
    assert looks_like_itf(Path("run.itf.json"), "")
    assert looks_like_itf(Path("run.json"), '  \n {"#meta": {}}')
    assert not looks_like_itf(Path("run.json"), '{"trigger": "put"}')
