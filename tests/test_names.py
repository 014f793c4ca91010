"""Awkward names work in every face, or are refused when the spec is built (issue 16 §4).

One spec uses each awkward name as a variable, an output, a trigger, that
trigger's parameter, a row and a property: Python keywords and soft keywords,
`self` (it used to crash `python -m models spin` in `Oracle.fire`), the keyword
arguments of transitions' own methods, the locals the explorer's generated code
uses, Promela's reserved words and SPIN's internal names, and the words z3
prints in a certificate. Every face must handle it: the explorer and z3 (verify,
with the reachable-set cross-check and z3's confirmation of a witness), the
`transitions` oracle, Promela and SPIN (agreement with the explorer, the trail
read back), ITF written and read, check-trace, and the diagrams. A name that is
not an identifier, or a property named like a structural check, is refused.
"""

from __future__ import annotations

import enum
import json
import keyword

import pytest

from models.kernel import Bool
from models.kernel import Finite
from models.kernel import Output
from models.kernel import Param
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import ignore
from models.kernel import implies
from models.kernel import not_
from models.kernel import param
from models.kernel import row
from models.kernel import sometimes
from models.kernel import var
from models.kernel.checks import verify
from models.kernel.diagram import dot_source
from models.kernel.diagram import picture
from models.kernel.explore import explore
from models.kernel.itf import read_itf
from models.kernel.itf import to_itf
from models.kernel.mermaid import mermaid_source
from models.kernel.oracle import Oracle
from models.kernel.promela import export
from models.kernel.spec import STRUCTURAL_CHECKS
from models.kernel.spin import disagreements
from models.kernel.spin import run_spin
from models.kernel.spin import tools_missing
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import trace_to_log

AWKWARD = (
    *keyword.kwlist,
    *keyword.softkwlist,
    *("self", "cls", "model", "trigger", "trigger_name", "event", "state", "values"),
    *("s", "t", "i", "k", "n", "d", "v0", "p0", "K0", "u0", "sd", "push", "states"),
    *("index", "depth", "limit", "undefined", "out", "first", "bfs", "succ", "_bad"),
    *("init", "active", "proctype", "do", "od", "fi", "atomic", "d_step", "byte", "bit"),
    *("bool", "int", "chan", "mtype", "never", "skip", "run", "printf", "timeout", "go"),
    *("sel", "now", "_pid", "_nr_pr", "_last", "np_", "select", "ltl", "c_code", "len"),
    *("And", "Or", "Not", "Implies", "If", "Distinct", "inv", "true", "false"),
)


class Phase(enum.Enum):
    READY = "READY"
    SET = "SET"


PHASE = Finite.of_enum(Phase)


def awkward_spec(names: tuple[str, ...] = AWKWARD) -> Spec:
    """From READY, trigger `n` with argument `n` true sets variable `n`, emits output `n`
    and moves to SET; `reset` goes back: one state per name, plus READY."""
    rows = []
    for n in names:
        rows += [
            row(
                n,
                n,
                Phase.READY,
                Phase.SET,
                guard=param(n),
                sets={n: True},
                emits={n: True},
                cite="t",
            ),
            ignore(f"{n}_refused", n, Phase.READY, guard=not_(param(n)), cite="t"),
            ignore(f"{n}_when_set", n, Phase.SET, cite="t"),
        ]
    rows += [
        row("reset", "reset", Phase.SET, Phase.READY, sets={n: False for n in names}, cite="t"),
        ignore("reset_when_ready", "reset", Phase.READY, cite="t"),
    ]
    return Spec(
        name="awkward",
        source="tests/test_names.py",
        vars=(Var("phase", PHASE, Phase.READY), *(Var(n, Bool(), False) for n in names)),
        triggers=(*(Trigger(n, (Param(n, Bool()),)) for n in names), Trigger("reset")),
        rows=tuple(rows),
        outputs=tuple(Output(n, Bool(), False) for n in names),
        control="phase",
        properties=(
            *(always(n, implies(var(n), eq(var("phase"), Phase.SET)), cite="t") for n in names),
            sometimes("the-last-name-set", and_(var(names[-1])), cite="t"),
        ),
    )


# z3's transition relation grows with rows × variables: the names go in four specs.
CHUNKS = [AWKWARD[i::4] for i in range(4)]
SPECS = [awkward_spec(chunk) for chunk in CHUNKS]
GRAPHS = [explore(spec) for spec in SPECS]
WITNESSES = [g.path_to(g.first_state(var(c[-1])) or 0) for g, c in zip(GRAPHS, CHUNKS, strict=True)]
EACH = pytest.mark.parametrize("k", range(len(CHUNKS)))


def test_every_awkward_name_is_in_a_spec_that_builds_and_explores() -> None:
    assert sorted(n for c in CHUNKS for n in c) == sorted(AWKWARD)
    for chunk, graph, witness in zip(CHUNKS, GRAPHS, WITNESSES, strict=True):
        assert len(graph.states) == len(chunk) + 1
        assert len(witness) == 1 and witness.steps[0].row == chunk[-1]


@EACH
def test_verify_checks_every_awkward_name(k: int) -> None:
    report = verify(SPECS[k], certificates=0.001)  # the certificates are not the point here
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    checks = {c.id: c for c in report.checks}
    assert checks["reachable-set"].basis == "cross-check"  # z3 read every name's encoding
    assert checks["the-last-name-set"].basis_text == "trace of 1 step, confirmed by z3"


@pytest.mark.parametrize("name", AWKWARD)
def test_the_oracle_fires_a_trigger_and_parameter_of_each_name(name: str) -> None:
    oracle = Oracle(next(s for s, c in zip(SPECS, CHUNKS, strict=True) if name in c))
    fired = oracle.fire(name, **{name: True})
    assert (fired.row, fired.state[name], fired.outputs[name]) == (name, True, True)
    assert oracle.fire("reset").state[name] is False


@EACH
def test_itf_and_check_trace_carry_every_awkward_name(k: int) -> None:
    spec, witness = SPECS[k], WITNESSES[k]
    log = read_itf(spec, json.dumps(to_itf(spec, witness)))
    assert check_trace(spec, log).ok
    assert check_trace(spec, trace_to_log(spec, witness)).ok


@EACH
def test_the_diagrams_draw_every_awkward_name(k: int) -> None:
    pic = picture(SPECS[k], graph=GRAPHS[k])
    dot, mermaid = dot_source(pic), mermaid_source(pic)
    assert all(name in dot and name in mermaid for name in CHUNKS[k])


@pytest.mark.skipif(bool(tools_missing()), reason="SPIN or gcc missing: `make spin`")
@EACH
def test_spin_agrees_on_every_awkward_name(k: int) -> None:
    result = run_spin(SPECS[k])
    assert disagreements(SPECS[k], result, GRAPHS[k]) == []
    assert result.verdicts["the-last-name-set"].trace == WITNESSES[k]


@pytest.mark.parametrize(
    ("where", "build"),
    [
        ("variable 'two words'", lambda: _one(var_name="two words")),
        ("variable '1st'", lambda: _one(var_name="1st")),
        ("variable 'café'", lambda: _one(var_name="café")),
        ("trigger 'go-on'", lambda: _one(trigger="go-on")),
        ("parameter of trigger 't' 'a.b'", lambda: _one(param_name="a.b")),
        ("row 'r#1'", lambda: _one(row_name="r#1")),
        ("output 'o!'", lambda: _one(output="o!")),
        ("property '-starts-with-a-hyphen'", lambda: _one(prop="-starts-with-a-hyphen")),
    ],
)
def test_a_name_no_face_can_use_is_refused_naming_it(where: str, build: object) -> None:
    with pytest.raises(SpecError, match=f"{where.replace('.', '[.]')} is not a name"):
        build()  # type: ignore[operator]


@pytest.mark.parametrize("name", STRUCTURAL_CHECKS)
def test_a_property_named_like_a_structural_check_is_refused(name: str) -> None:
    with pytest.raises(SpecError, match=f"property '{name}' has the name of a structural check"):
        _one(prop=name)


def _one(
    *,
    var_name: str = "b",
    trigger: str = "t",
    param_name: str = "p",
    row_name: str = "r",
    output: str = "o",
    prop: str = "holds",
) -> Spec:
    return Spec(
        name="one",
        source="tests/test_names.py",
        vars=(Var(var_name, Bool(), False),),
        triggers=(Trigger(trigger, (Param(param_name, Bool()),)),),
        rows=(row(row_name, trigger, None, cite="t"),),
        outputs=(Output(output, Bool(), False),),
        properties=(always(prop, eq(var(var_name), var(var_name)), cite="t"),),
    )


def test_promela_keeps_apart_arguments_whose_joined_names_coincide() -> None:
    # Trigger `a_b`'s parameter `c` and trigger `a`'s `b_c` were both `a_a_b_c` in Promela.
    spec = Spec(
        name="joined",
        source="tests/test_names.py",
        vars=(Var("x", Bool(), False),),
        triggers=(Trigger("a_b", (Param("c", Bool()),)), Trigger("a", (Param("b_c", Bool()),))),
        rows=(
            row("set", "a_b", None, sets={"x": param("c")}, cite="t"),
            row("clear", "a", None, sets={"x": param("b_c")}, cite="t"),
        ),
    )
    declared = [
        line.split()[1] for line in export(spec).text.splitlines() if line.startswith("bit a")
    ]
    assert len(declared) == len(set(declared)) == 2, declared
