"""spec.py: the vocabulary's constructors, a Spec's lookups and derived forms, its refusals.

The other tests build specs and check what the engines make of them; these pin spec.py's
own contract on one small lamp: what `row`, `ignore`, `others` and the property, fairness
and liveness constructors build; the lookups and the fairness each property assumes; the
initial states, definedness, guards and `enabled()` expansion a Spec derives; what a
variant copies and what it drops; and each refusal's exact one-line message.
"""

from __future__ import annotations

import enum
import re
from dataclasses import replace
from types import MappingProxyType

import pytest

from models.kernel import FALSE
from models.kernel import TRUE
from models.kernel import AnyOf
from models.kernel import Bool
from models.kernel import Fairness
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Kind
from models.kernel import LiveKind
from models.kernel import Output
from models.kernel import Param
from models.kernel import Real
from models.kernel import Seq
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import add
from models.kernel import always
from models.kernel import append
from models.kernel import bound
from models.kernel import enabled
from models.kernel import eq
from models.kernel import eventually
from models.kernel import group_is
from models.kernel import head
from models.kernel import ignore
from models.kernel import implies
from models.kernel import infinitely_often
from models.kernel import is_in
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import never
from models.kernel import nxt
from models.kernel import or_
from models.kernel import others
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import row_is
from models.kernel import sometimes
from models.kernel import strong
from models.kernel import trigger_is
from models.kernel import var
from models.kernel import weak
from models.kernel.expr import And
from models.kernel.expr import Const
from models.kernel.expr import Env
from models.kernel.expr import Eq
from models.kernel.expr import Implies
from models.kernel.expr import In
from models.kernel.expr import Ite
from models.kernel.expr import Not
from models.kernel.expr import Or
from models.kernel.expr import Quant
from models.kernel.expr import Ref
from models.kernel.expr import evaluate
from models.kernel.layout import Layout
from models.kernel.spec import FairCase
from models.kernel.spec import bind


class Lamp(enum.Enum):
    OFF = "off"
    ON = "on"
    BROKEN = "broken"


class Other(enum.Enum):
    X = "x"


OFF, ON, BROKEN = Lamp
LAMP = Finite.of_enum(Lamp)
K = IntRange(1, 2)
SRC = "tests/test_spec.py"


def lamp(**changes: object) -> Spec:
    """A lamp pressed with a finger `k`, kicked to break it, fixed; `log` records presses."""
    fields: dict[str, object] = dict(
        name="lamp",
        source=SRC,
        control="lamp",
        vars=(
            Var("lamp", LAMP, OFF),
            Var("n", IntRange(0, 2), AnyOf(0, 1)),
            Var("log", Seq(K, 1), ()),
        ),
        triggers=(
            Trigger("press", (Param("k", K),), group="hand"),
            Trigger("kick", group="hand"),
            Trigger("fix", (Param("k", K),)),
        ),
        outputs=(Output("beep", Bool(), False),),
        rows=(
            row("on", "press", OFF, ON, guard=eq(param("k"), 1), sets={"n": 1}, cite="on"),
            ignore("press_two", "press", OFF, guard=eq(param("k"), 2), cite="two"),
            row("off", "press", ON, OFF, emits={"beep": True}, cite="off"),
            ignore("press_broken", "press", BROKEN, cite="broken"),
            row("kick", "kick", [OFF, ON], BROKEN, cite="kick"),
            ignore("kick_broken", "kick", BROKEN, cite="kick"),
            row("fix", "fix", BROKEN, OFF, sets={"log": append(var("log"), param("k"))}, cite="f"),
            ignore("fix_ok", "fix", others(BROKEN), cite="fix"),
        ),
        properties=(always("low", lt(var("n"), 2), cite="p"),),
        liveness=(eventually("lit", eq(var("lamp"), ON), cite="l", fair=[weak("kick")]),),
        fairness=(*weak("press"),),
        variants=(
            Variant("stuck", "never lights", "v", ("low",), remove=("on",)),
            Variant("dark", "lit is not promised", "v", ("lit",)),
        ),
    )
    fields.update(changes)
    return Spec(**fields)  # type: ignore[arg-type]


SPEC = lamp()
NO_CONTROL = replace(SPEC, control=None, rows=(), variants=())


def refused(message: str, **changes: object) -> None:
    """Building the lamp with `changes` is refused with exactly `message`."""
    with pytest.raises(SpecError) as err:
        lamp(**changes)
    assert str(err.value) == message


# ---------------------------------------------------------------- the constructors


def test_row_builds_its_sources_updates_and_outputs() -> None:
    r = row("r", "t", OFF, ON, guard=eq(var("n"), 0), sets={"n": 1}, emits={"b": True}, cite="c")
    assert (r.name, r.trigger, r.source, r.target) == ("r", "t", (OFF,), ON)
    assert r.guard == eq(var("n"), 0) and (r.cite, r.ignore, r.doc) == ("c", False, "")
    assert isinstance(r.updates, MappingProxyType) and dict(r.updates) == {"n": Const(1)}
    assert isinstance(r.outputs, MappingProxyType) and dict(r.outputs) == {"b": Const(True)}
    assert row("r", "t", [OFF, ON], cite="c", doc="d").source == (OFF, ON)
    assert row("r", "t", {OFF}, cite="c").source == (OFF,)
    assert row("r", "t", frozenset({ON}), cite="c").source == (ON,)
    bare = row("r", "t", None, cite="c")
    assert (bare.source, bare.target, bare.guard, bare.doc) == (None, None, TRUE, "")
    assert dict(bare.updates) == {} and dict(bare.outputs) == {}
    assert row("r", "t", 0, cite="c", doc="d").doc == "d"


def test_ignore_builds_a_row_that_changes_nothing() -> None:
    r = ignore("i", "t", (OFF, ON), guard=eq(param("k"), 2), cite="c", doc="d")
    assert (r.name, r.trigger, r.source, r.target) == ("i", "t", (OFF, ON), None)
    assert (r.guard, r.cite, r.ignore, r.doc) == (eq(param("k"), 2), "c", True, "d")
    assert dict(r.updates) == {} and dict(r.outputs) == {}
    assert ignore("i", "t", None, cite="c").source is None
    assert ignore("i", "t", BROKEN, cite="c").source == (BROKEN,)


def test_others_lists_every_other_member_of_the_one_enum() -> None:
    assert others(BROKEN) == (OFF, ON)
    assert others(OFF, BROKEN) == (ON,)
    for bad in [(), (OFF, Other.X)]:
        with pytest.raises(SpecError) as err:
            others(*bad)
        assert str(err.value) == "others() needs one or more members of one enum"


def test_a_variable_starts_at_its_value_or_any_of_several() -> None:
    assert Var("n", K, 1).inits == (1,)
    assert Var("n", K, AnyOf(2, 1)).inits == (2, 1)
    assert AnyOf(1, 2).values == (1, 2)


def test_properties_know_their_kind_their_bad_states_and_their_steps() -> None:
    p = eq(var("n"), 1)
    a, s, n = (
        always("a", p, cite="c", doc="d"),
        sometimes("s", p, cite="c"),
        never("n", p, cite="c"),
    )
    assert (a.kind, s.kind, n.kind) == (Kind.ALWAYS, Kind.SOMETIMES, Kind.NEVER)
    assert (a.name, a.pred, a.cite, a.doc, s.doc, n.doc) == ("a", p, "c", "d", "", "")
    assert always("a", p, cite="c").doc == ""
    assert a.bad == Not(p) and s.bad == p and n.bad == p
    assert a.as_written == p and replace(a, written=TRUE).as_written == TRUE
    assert not a.over_steps and always("x", eq(nxt("n"), 1), cite="c").over_steps
    assert never("n", p, cite="c", doc="d").doc == "d" and sometimes("s", p, cite="c", doc="d").doc


def test_fairness_is_one_constraint_per_name_and_prints_as_declared() -> None:
    assert weak("a", "b") == (Fairness("weak", "a"), Fairness("weak", "b"))
    assert strong("a", each="k") == (Fairness("strong", "a", "k"),)
    assert str(Fairness("weak", "press")) == "weak(press)"
    assert str(Fairness("strong", "press", "k")) == "strong(press for each k)"


def test_the_liveness_constructors_build_their_kind_and_flatten_fairness() -> None:
    p, q = eq(var("n"), 1), eq(var("n"), 2)
    e = eventually("e", p, cite="c", fair=[weak("a"), Fairness("strong", "b")], doc="d")
    assert (e.name, e.kind, e.pred, e.then, e.cite) == ("e", LiveKind.EVENTUALLY, p, None, "c")
    assert e.fairness == (Fairness("weak", "a"), Fairness("strong", "b"))
    assert (e.doc, e.promised) == ("d", True)
    lt_ = leads_to("l", p, q, cite="c", promised=False)
    assert (lt_.kind, lt_.pred, lt_.then, lt_.fairness, lt_.doc) == (
        LiveKind.LEADS_TO,
        p,
        q,
        (),
        "",
    )
    assert lt_.promised is False
    i = infinitely_often("i", p, cite="c")
    assert (i.kind, i.pred, i.then, i.promised) == (LiveKind.INFINITELY_OFTEN, p, None, True)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (eventually, "eventually() got an unexpected keyword argument 'fiar'"),
        (infinitely_often, "infinitely_often() got an unexpected keyword argument 'fiar'"),
    ],
)
def test_a_misspelt_liveness_option_is_refused_by_its_name(build: object, message: str) -> None:
    with pytest.raises(TypeError) as err:
        build("x", TRUE, cite="c", fiar=(), zz=1)  # type: ignore[operator]
    assert str(err.value) == message


# ---------------------------------------------------------------- lookups and derived forms


def test_lookups_find_by_name_and_refuse_an_unknown_one() -> None:
    assert SPEC.var("n").name == "n" and SPEC.trigger("kick").group == "hand"
    assert SPEC.row("off").target == OFF and SPEC.prop("low").kind is Kind.ALWAYS
    assert SPEC.live("lit").kind is LiveKind.EVENTUALLY and SPEC.output("beep").default is False
    for look in (SPEC.var, SPEC.trigger, SPEC.row, SPEC.prop, SPEC.live, SPEC.output):
        with pytest.raises(KeyError) as err:
            look("nope")
        assert err.value.args == ("nope",)
    assert SPEC.control_domain == LAMP and NO_CONTROL.control_domain is None
    assert [r.name for r in SPEC.rows_of("press")] == ["on", "press_two", "off", "press_broken"]
    assert SPEC.group_of("press") == "hand" and SPEC.group_of("fix") == ""


def test_a_property_keeps_the_stronger_fairness_of_a_name_listed_twice() -> None:
    lit = SPEC.live("lit")
    assert SPEC.fairness_of(lit) == (Fairness("weak", "press"), Fairness("weak", "kick"))
    both = eventually("b", TRUE, cite="c", fair=[strong("press"), weak("kick"), strong("kick")])
    assert SPEC.fairness_of(both) == (Fairness("strong", "press"), Fairness("strong", "kick"))
    # The stronger kind wins in either order.
    down = eventually("d", TRUE, cite="c", fair=[strong("kick"), weak("kick")])
    assert SPEC.fairness_of(down) == (Fairness("weak", "press"), Fairness("strong", "kick"))
    twice = eventually("t", TRUE, cite="c", fair=[weak("press")])
    assert SPEC.fairness_of(twice) == (Fairness("weak", "press"),)
    per = eventually("p", TRUE, cite="c", fair=[weak("press", each="k")])
    assert SPEC.fairness_of(per) == (Fairness("weak", "press"), Fairness("weak", "press", "k"))


def test_fairness_names_a_trigger_or_every_trigger_of_its_group() -> None:
    assert SPEC.fairness_triggers(Fairness("weak", "hand")) == {"press", "kick"}
    assert SPEC.fairness_triggers(Fairness("weak", "fix")) == {"fix"}
    assert SPEC.fairness_triggers(Fairness("weak", "nope")) == frozenset()


def test_a_spec_reading_every_scope_it_may_builds() -> None:
    spec = lamp(
        properties=(
            always(
                "echo",
                implies(trigger_is("press"), or_(eq(out("beep"), True), lt(param("k"), 2))),
                cite="c",
            ),
            always("steps", implies(eq(nxt("lamp"), BROKEN), lt(var("n"), 2)), cite="c"),
        ),
        views={"lit": eq(var("lamp"), ON)},
        terminal=eq(var("lamp"), BROKEN),
        fairness=(*weak("hand"), *strong("fix", each="k"), *weak("press", each="k")),
        liveness=(leads_to("back", eq(var("lamp"), BROKEN), eq(var("lamp"), OFF), cite="c"),),
        variants=(),
    )
    assert [p.name for p in spec.properties] == ["echo", "steps"]
    assert spec.views == {"lit": eq(var("lamp"), ON)}
    assert [str(f) for f in spec.fairness] == [
        "weak(hand)",
        "strong(fix for each k)",
        "weak(press for each k)",
    ]


def test_a_renamed_spec_is_the_same_spec_under_another_name() -> None:
    spec = lamp()
    copy = spec.renamed("lamp-001")
    assert (copy.name, spec.name) == ("lamp-001", "lamp")
    assert replace(copy, name="lamp") == spec
    # Nothing derived again: the expanded properties are the original's own objects.
    assert copy.properties is spec.properties and copy.rows is spec.rows


def test_fair_cases_are_one_per_constraint_or_per_value_of_each() -> None:
    per = eventually("p", TRUE, cite="c", fair=[strong("fix", each="k")])
    assert SPEC.fair_cases(per) == (
        FairCase("weak", "weak(press)", frozenset({"press"})),
        FairCase("strong", "strong(fix, k=1)", frozenset({"fix"}), "k", 1),
        FairCase("strong", "strong(fix, k=2)", frozenset({"fix"}), "k", 2),
    )


def test_the_initial_states_are_the_product_where_init_holds() -> None:
    assert SPEC.initial_states() == [
        {"lamp": OFF, "n": 0, "log": ()},
        {"lamp": OFF, "n": 1, "log": ()},
    ]
    assert lamp(init=eq(var("n"), 1)).initial_states() == [{"lamp": OFF, "n": 1, "log": ()}]


def test_a_row_that_can_fail_fires_only_where_it_is_defined() -> None:
    fix, on = SPEC.row("fix"), SPEC.row("on")
    assert SPEC.defined(on) is None and SPEC.row_guard(on) == on.guard
    when = SPEC.defined(fix)
    assert when is not None
    # `log` holds one press at most: the append is defined only while it is empty.
    for log, ok in [((), True), ((1,), False)]:
        state = {"lamp": BROKEN, "n": 0, "log": log}
        assert evaluate(when, Env(pre=state, params={"k": 2})) is ok
    assert SPEC.row_guard(fix) == And((when, TRUE))
    assert SPEC.source_expr(fix) == In(Ref("pre", "lamp"), (BROKEN,))
    assert SPEC.step_guard(fix) == And((In(Ref("pre", "lamp"), (BROKEN,)), And((when, TRUE))))
    assert SPEC.source_expr(row("any", "fix", None, cite="c")) == TRUE
    assert NO_CONTROL.source_expr(on) == TRUE


def test_a_row_reading_a_sequence_parameter_is_defined_where_it_is_non_empty() -> None:
    # The spec is built here, so its definedness is derived under the test.
    load = row("load", "load", None, guard=eq(head(param("s")), 1), cite="c")
    loaded = lamp(
        triggers=(*SPEC.triggers, Trigger("load", (Param("s", Seq(K, 1)),))),
        rows=(*SPEC.rows, load),
    )
    head_defined = loaded.defined(load)
    assert head_defined is not None
    for s, ok in [((), False), ((2,), True)]:
        assert evaluate(head_defined, Env(pre=SPEC.initial_states()[0], params={"s": s})) is ok
    assert loaded.defined(loaded.row("fix")) == SPEC.defined(SPEC.row("fix"))


def test_arguments_are_every_assignment_and_some_of_them_is_a_disjunction() -> None:
    assert SPEC.param_assignments("press") == [{"k": 1}, {"k": 2}]
    assert SPEC.param_assignments("kick") == [{}]
    assert SPEC.for_some_arguments("press", eq(param("k"), 1)) == Or((Const(True), Const(False)))
    assert SPEC.for_some_arguments("press", eq(var("n"), 1)) == eq(var("n"), 1)


def test_enabled_expands_into_the_non_ignore_rows_guards_with_their_arguments() -> None:
    on, off = SPEC.step_guard(SPEC.row("on")), SPEC.step_guard(SPEC.row("off"))
    assert SPEC.expand(enabled("press")) == Or(
        (bind(on, {"k": 1}), bind(on, {"k": 2}), bind(off, {}))
    )
    assert bind(on, {"k": 2}) == And((In(Ref("pre", "lamp"), (OFF,)), Const(False)))
    assert SPEC.expand(enabled()) == FALSE
    nested = Not(Implies(enabled("kick"), TRUE))
    kick = SPEC.step_guard(SPEC.row("kick"))
    assert SPEC.expand(nested) == Not(Implies(Or((kick,)), TRUE))
    prop = lamp(properties=(always("p", enabled("kick"), cite="c"),), variants=()).prop("p")
    assert prop.pred == Or((kick,)) and prop.as_written == enabled("kick")
    term = lamp(terminal=enabled("kick")).terminal
    assert term == Or((kick,))


def test_enabled_is_expanded_inside_every_connective() -> None:
    e = enabled("kick")
    x = SPEC.expand(e)
    n = Ref("pre", "n")
    cases = [
        (Eq(e, TRUE), Eq(x, TRUE)),
        (Eq(TRUE, e), Eq(TRUE, x)),
        (And((TRUE, e)), And((TRUE, x))),
        (Or((e, FALSE)), Or((x, FALSE))),
        (Implies(TRUE, e), Implies(TRUE, x)),
        (Implies(e, TRUE), Implies(x, TRUE)),
        (Not(e), Not(x)),
        (Ite(e, TRUE, FALSE), Ite(x, TRUE, FALSE)),
        (Ite(TRUE, e, FALSE), Ite(TRUE, x, FALSE)),
        (Ite(TRUE, FALSE, e), Ite(TRUE, FALSE, x)),
        (Quant("all", "i", K, e), Quant("all", "i", K, x)),
        (add(n, 1), add(n, 1)),
        (bound("i"), bound("i")),
        (trigger_is("kick"), trigger_is("kick")),
    ]
    for before, after in cases:
        assert SPEC.expand(before) == after


def test_bind_folds_a_test_of_constants_and_keeps_an_open_one() -> None:
    assert bind(eq(param("k"), 1), {"k": 1}) == Const(True)
    assert bind(is_in(param("k"), 2), {"k": 1}) == Const(False)
    assert bind(lt(param("k"), var("n")), {"k": 1}) == lt(Const(1), var("n"))
    assert bind(add(param("k"), 1), {"k": 2}) == add(Const(2), Const(1))


# ---------------------------------------------------------------- variants


def test_a_variant_changes_its_rows_and_keeps_only_what_it_violates() -> None:
    on2 = row("on", "press", OFF, ON, guard=eq(param("k"), 2), cite="v")
    extra = row("kick2", "kick", BROKEN, OFF, cite="v")
    base = lamp(
        init=eq(var("n"), 0),
        totality="enabled-only",
        check_deadlock=False,
        terminal=eq(var("lamp"), BROKEN),
        views={"lit": eq(var("lamp"), ON)},
        layout=Layout(provisional=(BROKEN,)),
        variants=(
            Variant(
                "v",
                "its doc",
                "v",
                ("low",),
                replace={"on": on2},
                add=(extra,),
                remove=("press_two",),
            ),
        ),
    )
    v = base.with_variant("v")
    assert v.name == "lamp:v" and v.source == SRC and v.doc == "its doc"
    assert [r.name for r in v.rows] == [
        "on",
        "off",
        "press_broken",
        "kick",
        "kick_broken",
        "fix",
        "fix_ok",
        "kick2",
    ]
    assert v.row("on") == on2 and v.expect_violated == ("low",)
    assert [p.name for p in v.properties] == ["low"] and v.liveness == ()
    assert v.terminal is None and v.variants == ()
    assert (v.vars, v.triggers, v.outputs, v.control) == (
        base.vars,
        base.triggers,
        base.outputs,
        base.control,
    )
    assert (v.init, v.totality, v.check_deadlock, v.fairness) == (
        eq(var("n"), 0),
        "enabled-only",
        False,
        base.fairness,
    )
    assert v.views == {"lit": eq(var("lamp"), ON)} and v.layout == Layout(provisional=(BROKEN,))
    assert v.system is None
    dark = SPEC.with_variant("dark")
    assert dark.properties == () and [p.name for p in dark.liveness] == ["lit"]


def test_an_unknown_variant_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(SpecError) as err:
        SPEC.with_variant("nope")
    assert str(err.value) == "spec 'lamp' has no variant 'nope' (known: stuck, dark)"
    with pytest.raises(SpecError) as err:
        lamp(variants=()).with_variant("nope")
    assert str(err.value) == "spec 'lamp' has no variant 'nope' (known: none)"


# ---------------------------------------------------------------- refusals, message by message


def _with_row(r: object) -> dict[str, object]:
    return {"rows": (*SPEC.rows, r)}


REFUSALS: list[tuple[dict[str, object], str]] = [
    (
        {"vars": (*SPEC.vars, Var("9n", K, 1))},
        "spec 'lamp': variable '9n' is not a name every face can use: "
        "use ASCII letters, digits and _, not starting with a digit",
    ),
    (
        {"properties": (always("-p", TRUE, cite="c"),)},
        "spec 'lamp': property '-p' is not a name every face can use: "
        "use ASCII letters, digits, _ and -, not starting with -",
    ),
    (
        {"vars": (*SPEC.vars, Var("n", K, 1))},
        "spec 'lamp': duplicate variable 'n'",
    ),
    (
        {"triggers": (*SPEC.triggers, Trigger("kick"))},
        "spec 'lamp': duplicate trigger 'kick'",
    ),
    (
        {"liveness": (eventually("low", TRUE, cite="c"),)},
        "spec 'lamp': duplicate property 'low'",
    ),
    (
        {"outputs": (*SPEC.outputs, Output("beep", Bool(), True))},
        "spec 'lamp': duplicate output 'beep'",
    ),
    (
        {"triggers": (Trigger("press", (Param("k", K), Param("k", K))), *SPEC.triggers[1:])},
        "spec 'lamp': duplicate parameter of trigger 'press' 'k'",
    ),
    ({"source": " \t"}, "spec 'lamp': no source file named"),
    (
        {"vars": (*SPEC.vars, Var("m", range(2), 0))},  # type: ignore[arg-type]
        "variable 'm': domain must be a Domain (Finite, Bool, IntRange, Option, Real), got range",
    ),
    (
        {"vars": (*SPEC.vars, Var("w", Real((1.0,)), 1.0)), "control": "w"},
        "spec 'lamp': control variable 'w' must be finite",
    ),
    (
        {
            "triggers": (*SPEC.triggers, Trigger("weigh", (Param("kg", Real((1.0,))),))),
            "rows": (*SPEC.rows, row("r", "weigh", None, guard=lt(param("kg"), 2.0), cite="c")),
        },
        "row 'r': a guard may not test the real parameter 'kg'",
    ),
    (
        _with_row(replace(ignore("r", "kick", OFF, cite="c"), target=ON)),
        "row 'r': an ignore row changes nothing and emits nothing",
    ),
    (
        _with_row(replace(ignore("r", "kick", OFF, cite="c"), outputs={"beep": TRUE})),
        "row 'r': an ignore row changes nothing and emits nothing",
    ),
    (
        _with_row(replace(ignore("r", "kick", OFF, cite="c"), updates={"n": Const(1)})),
        "row 'r': an ignore row changes nothing and emits nothing",
    ),
    (
        {"properties": (always("totality", TRUE, cite="c"),)},
        "spec 'lamp': property 'totality' has the name of a structural check (determinism, "
        "totality, no-deadlock, well-defined, terminal-absorbing, rows-fire, vacuity, "
        "reachable-set)",
    ),
    (
        {"triggers": (*SPEC.triggers, Trigger("poke", (Param("a b", K),)))},
        "spec 'lamp': parameter of trigger 'poke' 'a b' is not a name every face can use: "
        "use ASCII letters, digits and _, not starting with a digit",
    ),
    (
        _with_row(row("a-b", "kick", OFF, cite="c")),
        "spec 'lamp': row 'a-b' is not a name every face can use: "
        "use ASCII letters, digits and _, not starting with a digit",
    ),
    (
        {"outputs": (Output(3, Bool(), False),)},  # type: ignore[arg-type]
        "spec 'lamp': output 3 is not a name every face can use: "
        "use ASCII letters, digits and _, not starting with a digit",
    ),
    (
        {"triggers": (*SPEC.triggers, Trigger("é"))},
        "spec 'lamp': trigger 'é' is not a name every face can use: "
        "use ASCII letters, digits and _, not starting with a digit",
    ),
    (
        {"liveness": (eventually(7, TRUE, cite="c"),)},  # type: ignore[arg-type]
        "spec 'lamp': property 7 is not a name every face can use: "
        "use ASCII letters, digits, _ and -, not starting with -",
    ),
    (
        {"properties": (always("p", trigger_is("fly"), cite="c"),)},
        "property 'p': unknown trigger 'fly'",
    ),
    (
        {"properties": (always("p", row_is("on", "fly"), cite="c"),)},
        "property 'p': unknown row 'fly'",
    ),
    (
        {"properties": (always("p", group_is("hand", "foot"), cite="c"),)},
        "property 'p': unknown group 'foot'",
    ),
    (
        {"properties": (always("p", enabled("kick", "fly"), cite="c"),)},
        "property 'p': enabled() names unknown trigger 'fly'",
    ),
    (
        {"outputs": (Output("beep", range(2), 0),)},  # type: ignore[arg-type]
        "output 'beep': domain must be a Domain (Finite, Bool, IntRange, Option, Real), got range",
    ),
    (
        _with_row(row("g", "kick", None, guard=1, cite="c")),  # type: ignore[arg-type]
        "row 'g': guard must be an expression, got 1",
    ),
    ({"control": "nope"}, "spec 'lamp': control variable 'nope' is not declared"),
    (
        {"vars": (Var("lamp", LAMP, AnyOf(OFF, 7)), *SPEC.vars[1:])},
        "variable 'lamp': initial value 7 is not in Lamp (OFF, ON, BROKEN)",
    ),
    (
        {"outputs": (Output("beep", Bool(), 3),)},
        "output 'beep': default 3 is not in bool (false, true)",
    ),
    (
        _with_row(row("r", "kick", OFF, cite=" ")),
        "row 'r': no source citation (cite the ADR row or seed line it ports)",
    ),
    (_with_row(row("r", "fly", OFF, cite="c")), "row 'r': unknown trigger 'fly'"),
    (
        {"control": None, "rows": (row("r", "kick", None, OFF, cite="c"),)},
        "row 'r': has a target but the spec declares no control variable",
    ),
    (
        {"control": None, "rows": (row("r", "kick", OFF, cite="c"),)},
        "row 'r': has a source but the spec declares no control variable",
    ),
    (
        _with_row(row("r", "kick", 5, cite="c")),
        "row 'r': source 5 is not a state (states: Lamp (OFF, ON, BROKEN))",
    ),
    (
        _with_row(row("r", "kick", OFF, 5, cite="c")),
        "row 'r': target 5 is not a state (states: Lamp (OFF, ON, BROKEN))",
    ),
    (
        _with_row(row("r", "kick", OFF, guard=eq(param("k"), 1), cite="c")),
        "row 'r' guard: unknown parameter 'k'",
    ),
    (
        _with_row(row("r", "kick", OFF, sets={"m": 1}, cite="c")),
        "row 'r': updates unknown variable 'm'",
    ),
    (
        _with_row(row("r", "kick", OFF, sets={"n": True}, cite="c")),
        "row 'r' update of 'n': True is not in int 0..2",
    ),
    (
        _with_row(row("r", "kick", OFF, sets={"lamp": ON}, cite="c")),
        "row 'r': sets the control variable 'lamp'; use the row's target",
    ),
    (
        _with_row(row("r", "kick", OFF, emits={"honk": True}, cite="c")),
        "row 'r': emits unknown output 'honk'",
    ),
    (
        _with_row(row("r", "kick", OFF, emits={"beep": 2}, cite="c")),
        "row 'r' output 'beep': 2 is not in bool (false, true)",
    ),
    (
        {"properties": (always("p", TRUE, cite=""),)},
        "property 'p': no source citation",
    ),
    (
        {
            "triggers": (*SPEC.triggers, Trigger("poke", (Param("k", Bool()),))),
            "properties": (always("p", eq(param("k"), 1), cite="c"),),
        },
        "property 'p': parameter 'k' has different domains in two triggers",
    ),
    (
        {"properties": (always("p", eq(var("m"), 1), cite="c"),)},
        "property 'p': unknown variable 'm'",
    ),
    (
        {"properties": (always("p", eq(out("honk"), 1), cite="c"),)},
        "property 'p': unknown output 'honk'",
    ),
    (
        _with_row(row("r", "kick", OFF, guard=var("n"), cite="c")),
        "row 'r' guard: needs bool (false, true), got int 0..2",
    ),
    (
        _with_row(row("r", "kick", OFF, sets={"n": var("log")}, cite="c")),
        "row 'r' update of 'n': needs int 0..2, got sequences of int 1..2 up to 1 long",
    ),
    (
        _with_row(row("r", "kick", OFF, emits={"beep": var("n")}, cite="c")),
        "row 'r' output 'beep': needs bool (false, true), got int 0..2",
    ),
    # The explorer cannot compile a step's name or enabled() in a row: refused when built.
    (
        _with_row(row("r", "kick", OFF, guard=row_is("r"), cite="c")),
        "row 'r' guard: row_is() may be used only in a property",
    ),
    (
        _with_row(row("r", "kick", OFF, sets={"n": trigger_is("kick")}, cite="c")),
        "row 'r' update of 'n': trigger_is() may be used only in a property",
    ),
    (
        _with_row(row("r", "kick", OFF, emits={"beep": enabled("kick")}, cite="c")),
        "row 'r' output 'beep': enabled() may be used only in a property",
    ),
    ({"init": enabled("kick")}, "initial predicate: enabled() may be used only in a property"),
    (
        {"properties": (always("p", eq(param("j"), 1), cite="c"),)},
        "property 'p': unknown parameter 'j'",
    ),
    (
        {"properties": (sometimes("p", eq(append(var("log"), 1), ()), cite="c"),)},
        "property 'p': head, tail, append and index can be undefined; a property may not "
        "use them (test length() and use a quantifier over positions instead)",
    ),
    (
        {"fairness": ("press",)},
        "spec fairness: 'press' is not weak(...) or strong(...)",
    ),
    (
        {"fairness": (Fairness("fair", "press"),)},  # type: ignore[arg-type]
        "spec fairness: Fairness(kind='fair', name='press', each=None) is not weak(...) "
        "or strong(...)",
    ),
    ({"fairness": weak("nope")}, "spec fairness: weak('nope') names no trigger or group"),
    (
        {"fairness": strong("hand", each="k")},
        "spec fairness: strong(hand for each k): every trigger it names needs the "
        "parameter 'k', of one domain",
    ),
    (
        {
            "triggers": (*SPEC.triggers, Trigger("poke", (Param("k", Bool()),), group="hand")),
            "fairness": weak("hand", each="k"),
        },
        "spec fairness: weak(hand for each k): every trigger it names needs the "
        "parameter 'k', of one domain",
    ),
    (
        {
            "triggers": (
                *SPEC.triggers[:2],
                Trigger("fix", (Param("k", K),), group="mend"),
                Trigger("poke", (Param("k", Bool()),), group="mend"),
            ),
            "fairness": weak("mend", each="k"),
        },
        "spec fairness: weak(mend for each k): every trigger it names needs the "
        "parameter 'k', of one domain",
    ),
    (
        {"fairness": weak("kick", each="k")},
        "spec fairness: weak(kick for each k): every trigger it names needs the "
        "parameter 'k', of one domain",
    ),
    (
        {
            "triggers": (*SPEC.triggers, Trigger("weigh", (Param("kg", Real((1.0,))),))),
            "fairness": weak("weigh", each="kg"),
        },
        "spec fairness: weak(weigh for each kg): 'kg' has no finite domain",
    ),
    (
        {"liveness": (always("q", TRUE, cite="c"),)},
        "property 'q': liveness holds eventually(), leads_to() or infinitely_often()",
    ),
    ({"liveness": (eventually("q", TRUE, cite=" "),)}, "property 'q': no source citation"),
    (
        {"liveness": (eventually("q", TRUE, cite="c", fair=[weak("nope")]),)},
        "property 'q': weak('nope') names no trigger or group",
    ),
    (
        {"liveness": (eventually("q", None, cite="c"),)},  # type: ignore[arg-type]
        "property 'q': must be an expression, got None",
    ),
    (
        {"liveness": (leads_to("q", None, TRUE, cite="c"),)},  # type: ignore[arg-type]
        "property 'q': must be an expression, got None",
    ),
    (
        {"liveness": (leads_to("q", TRUE, 1, cite="c"),)},  # type: ignore[arg-type]
        "property 'q' (its consequent): must be an expression, got 1",
    ),
    (
        {"liveness": (eventually("q", eq(nxt("n"), 1), cite="c"),)},
        "property 'q': a liveness property reads states only",
    ),
    (
        {"liveness": (leads_to("q", TRUE, enabled("kick"), cite="c"),)},
        "property 'q' (its consequent): a liveness property reads states only",
    ),
    (
        {"liveness": (eventually("q", eq(bound("x"), 1), cite="c"),)},
        "property 'q': 'x' is not bound by an enclosing forall or exists",
    ),
    (
        {"liveness": (eventually("q", eq(append(var("log"), 1), ()), cite="c"),)},
        "property 'q': head, tail, append and index can be undefined",
    ),
    ({"terminal": eq(nxt("n"), 1)}, "terminal predicate: post 'n' cannot be used here"),
    (
        {"init": eq(var("n"), 2)},
        "spec 'lamp': no initial state satisfies the initial predicate",
    ),
    (
        {"totality": "some"},
        "spec 'lamp': totality must be 'explicit' or 'enabled-only', got 'some'",
    ),
    ({"views": {"v": eq(var("m"), 1)}}, "view 'v': unknown variable 'm'"),
    (
        {"variants": (Variant("v", "d", " ", ("low",)),)},
        "variant 'v': no source citation",
    ),
    (
        {"variants": (Variant("v", "d", "c", ("nope",)),)},
        "variant 'v': violates unknown property 'nope'",
    ),
    (
        {"variants": (Variant("v", "d", "c", ("lit",), remove=("nope",)),)},
        "variant 'v': changes unknown row 'nope'",
    ),
    (
        {"variants": (Variant("v", "d", "c", ("low",), replace={"nope": SPEC.row("on")}),)},
        "variant 'v': changes unknown row 'nope'",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), REFUSALS, ids=[re.sub(r"\W+", "-", m)[:60] for _, m in REFUSALS]
)
def test_a_malformed_spec_is_refused_with_its_one_line_message(
    change: dict[str, object], message: str
) -> None:
    refused(message, **change)
