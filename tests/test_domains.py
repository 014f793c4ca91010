"""domains.py: what each domain holds, lists, names and refuses, taken one by one.

The specs in the other tests use these domains through every face; these pin each
domain's own contract: its members and their order, membership at the edges (a bound,
a length, a bool that is not an int), labels and descriptions, the refusals' messages,
the count without listing, the listing limit, and `FuncValue`'s equality and update.
"""

from __future__ import annotations

import enum
import math

import pytest

from models.kernel import domains
from models.kernel.domains import Bool
from models.kernel.domains import Domain
from models.kernel.domains import Finite
from models.kernel.domains import Func
from models.kernel.domains import FuncValue
from models.kernel.domains import IntRange
from models.kernel.domains import Option
from models.kernel.domains import Real
from models.kernel.domains import Seq
from models.kernel.domains import Set
from models.kernel.domains import all_assignments
from models.kernel.domains import count
from models.kernel.domains import is_data
from models.kernel.domains import product_size


class Msg(enum.Enum):
    A = "a"
    B = "b"


MSG = Finite.of_enum(Msg)
A, B = Msg.A, Msg.B


def test_a_finite_domain_refuses_no_values_a_repeat_and_a_shared_label() -> None:
    with pytest.raises(ValueError, match="^domain 'e' has no values$"):
        Finite("e", ())
    with pytest.raises(ValueError, match="^domain 'd' lists a value twice$"):
        Finite("d", (1, 2, 1))
    with pytest.raises(ValueError, match="^domain 'l' gives two values the same label$"):
        Finite("l", (1, "1"))
    assert Finite("one", (7,)).values == (7,)


def test_an_enum_domain_is_named_by_its_type_and_labels_by_member_name() -> None:
    msg = Finite.of_enum(Msg)
    assert msg.name == "Msg" and Finite.of_enum(Msg, "Letters").name == "Letters"
    assert msg.values == (A, B)
    assert [msg.label(v) for v in msg.values] == ["A", "B"]  # the name, not the value "a"
    assert MSG.describe() == "Msg (A, B)"
    assert MSG.is_finite and MSG.sample() == (A, B)


def test_membership_compares_the_type_too() -> None:
    small = Finite("small", (1, 2))
    assert small.contains(1) and small.contains(2)
    assert not small.contains(3)
    assert not small.contains(True)  # True == 1, but a bool is not the int 1
    assert Finite("one", (7,)).contains(7)
    assert not Finite("mixed", (1, 2.5)).contains(1.0)  # 1.0 == 1, and another float is there
    assert not small.contains([1])
    assert not MSG.contains("A") and MSG.contains(A)


def test_a_sequence_domain_of_enums_checks_length_and_element_type() -> None:
    cmds = Finite.of_sequences("Cmds", Msg, 2, [(), (A,), [A, B]])
    assert cmds.values == ((), (A,), (A, B))  # a list given is kept as a tuple
    assert [cmds.label(v) for v in cmds.values] == ["[]", "[A]", "[A,B]"]
    assert cmds.name == "Cmds"
    with pytest.raises(ValueError, match=r"^domain 'Cmds': \('A',\) is not a list of Msg$"):
        Finite.of_sequences("Cmds", Msg, 2, [("A",)])
    with pytest.raises(ValueError, match=r"is not a list of Msg$"):
        Finite.of_sequences("Cmds", Msg, 2, [(A, "B")])
    with pytest.raises(ValueError, match=r"is not a list of Msg$"):
        Finite.of_sequences("Cmds", Msg, 2, [(A, A, A)])


def test_a_long_finite_domain_is_described_by_its_first_eight_values() -> None:
    assert Finite("n", tuple(range(8))).describe() == "n (0, 1, 2, 3, 4, 5, 6, 7)"
    assert Finite("n", tuple(range(9))).describe() == "n (0, 1, 2, 3, 4, 5, 6, 7, …)"


def test_bool_holds_only_the_two_booleans() -> None:
    b = Bool()
    assert b.values == (False, True) and b.name == "bool"
    assert b.contains(False) and b.contains(True) and not b.contains(1) and not b.contains(0)
    assert (b.label(True), b.label(False)) == ("true", "false")
    assert b.describe() == "bool (false, true)"


def test_an_int_range_is_inclusive_at_both_ends() -> None:
    r = IntRange(2, 4)
    assert r.values == (2, 3, 4) and r.name == "int"
    assert r.contains(2) and r.contains(4)
    assert not r.contains(1) and not r.contains(5)
    assert not r.contains(True) and not r.contains(2.0) and not r.contains("3")
    assert r.label(3) == "3" and r.describe() == "int 2..4"
    assert IntRange(5, 5).values == (5,)
    with pytest.raises(ValueError, match=r"^int range 5\.\.4 is empty$"):
        IntRange(5, 4)
    for lo, hi, bad in [(0, 2.5, "2.5"), (False, 1, "False"), ("0", 1, "'0'")]:
        with pytest.raises(ValueError, match=f"^an int range's bounds are integers, got {bad}$"):
            IntRange(lo, hi)  # type: ignore[arg-type]


def test_a_real_is_any_number_but_a_bool_and_is_explored_at_its_samples() -> None:
    r = Real((0.5, 2))
    assert r.values is None and not r.is_finite
    assert r.sample() == (0.5, 2) and r.describe() == "real"
    assert r.contains(3) and r.contains(-1.25) and not r.contains(True) and not r.contains("1")
    assert [r.label(v) for v in (0.5, 3, 1e20)] == ["0.5", "3", "1e+20"]
    # Two values a trace tells apart never read alike: the shortest text that reads back.
    assert [r.label(v) for v in (0.4999999, 1 / 3, 123456789.5)] == [
        "0.4999999",
        "0.3333333333333333",
        "123456789.5",
    ]
    for bad in [(), (math.inf,), (1.0, math.nan), (True,)]:
        with pytest.raises(ValueError, match="^a real domain needs a non-empty sample of finite"):
            Real(bad)


def test_an_option_is_none_or_its_inner_value() -> None:
    node = IntRange(1, 2, "Node")
    o = Option(node)
    assert o.name == "Option[Node]" and Option(node, "Maybe").name == "Maybe"
    assert o.values == (None, 1, 2) and o.sample() == (None, 1, 2)
    assert o.contains(None) and o.contains(2) and not o.contains(3)
    assert (o.label(None), o.label(1)) == ("none", "1")
    assert o.describe() == "Option[Node] (none, 1, 2)"
    real = Option(Real((0.5,)))
    assert real.values is None and real.sample() == (None, 0.5)
    assert real.describe() == "Option[real]"
    with pytest.raises(ValueError, match="^options do not nest$"):
        Option(o)


def test_assignments_are_every_combination_in_declaration_order() -> None:
    named = [("a", IntRange(0, 1)), ("b", Option(Bool()))]
    assert list(all_assignments(named)) == [
        {"a": a, "b": b} for a in (0, 1) for b in (None, False, True)
    ]
    assert product_size(d for _, d in named) == 6
    assert product_size([Real((0.5, 1.5, 2.5))]) == 3 and product_size([]) == 1


def test_a_sequence_lists_every_bounded_tuple_shortest_first() -> None:
    q = Seq(MSG, 2)
    assert q.name == "Seq[Msg, 2]" and Seq(MSG, 1, "Q").name == "Q"
    assert q.values == ((), (A,), (B,), (A, A), (A, B), (B, A), (B, B))
    assert q.values is q.values  # listed once
    assert q.is_finite and is_data(q) and count(q) == 7
    assert q.contains(()) and q.contains((B, A))
    assert not q.contains((A, A, A)) and not q.contains([A]) and not q.contains((A, "B"))
    assert q.label((A, B)) == "<<A, B>>" and q.label(()) == "<<>>"
    assert q.describe() == "sequences of Msg (A, B) up to 2 long"
    assert Seq(MSG, 1).values == ((), (A,), (B,))
    with pytest.raises(ValueError, match="^a sequence needs max_len >= 1, got 0$"):
        Seq(MSG, 0)
    with pytest.raises(ValueError, match="^a sequence needs max_len >= 1, got 1.5$"):
        Seq(MSG, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^a sequence needs a finite domain, got real$"):
        Seq(Real((1.0,)), 2)


def test_a_function_lists_every_total_map_over_its_index() -> None:
    node = IntRange(1, 2, "Node")
    f = Func(node, Bool())
    assert f.name == "[Node -> bool]" and Func(node, Bool(), "F").name == "F"
    assert f.keys == (1, 2)
    assert [tuple(v.items()) for v in f.values] == [
        ((1, x), (2, y)) for x in (False, True) for y in (False, True)
    ]
    assert f.is_finite and is_data(f) and count(f) == 4
    on = f.of({1: True, 2: False})
    assert on == f.of(lambda k: k == 1) and on[1] is True and on[2] is False
    assert f.contains(on)
    assert not f.contains(FuncValue((1, 3), (True, False)))  # other keys
    assert not f.contains(FuncValue((1, 2), (True, 0)))  # a value outside bool
    assert not f.contains({1: True, 2: False})
    assert f.label(on) == "[1 |-> true, 2 |-> false]"
    assert f.describe() == "functions [Node -> bool]"
    with pytest.raises(ValueError, match="^a function's index needs a finite domain, got real$"):
        Func(Real((1.0,)), Bool())
    with pytest.raises(ValueError, match="^a function's value needs a finite domain, got real$"):
        Func(node, Real((1.0,)))


def test_a_set_lists_every_subset_smallest_first_in_element_order() -> None:
    s = Set(MSG)
    assert s.name == "Set[Msg]" and Set(MSG, "S").name == "S"
    assert s.values == (frozenset(), frozenset({A}), frozenset({B}), frozenset({A, B}))
    assert s.is_finite and is_data(s) and count(s) == 4
    assert s.contains(frozenset({B})) and not s.contains({B}) and not s.contains(frozenset({1}))
    assert s.ordered(frozenset({B, A})) == [A, B]
    assert s.label(frozenset({B, A})) == "{A, B}" and s.label(frozenset()) == "{}"
    assert s.describe() == "sets of Msg (A, B)"
    with pytest.raises(ValueError, match="^a set needs a finite domain, got real$"):
        Set(Real((1.0,)))


def test_count_agrees_with_the_listing_without_making_it() -> None:
    node = IntRange(1, 3, "Node")
    finite: list[Domain] = [
        Seq(MSG, 3),
        Seq(Seq(MSG, 1), 2),
        Func(node, Set(MSG)),
        Func(IntRange(1, 1), Option(MSG)),
        Set(node),
        Option(node),
        Option(Seq(MSG, 1)),
        MSG,
        Bool(),
    ]
    for d in finite:
        assert count(d) == len(d.sample()), d.name
    assert count(Real((1.0,))) is None and count(Option(Real((1.0,)))) is None
    assert not any(is_data(d) for d in [MSG, Bool(), node, Option(node), Real((1.0,))])


def test_a_data_domain_lists_up_to_the_limit_and_refuses_beyond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(domains, "_MAX_ENUMERATED", 7)
    assert len(Seq(MSG, 2).values) == 7  # exactly the limit: listed
    with pytest.raises(ValueError, match="^Seq\\[Msg, 3\\] has 15 values, too many to list$"):
        _ = Seq(MSG, 3).values
    monkeypatch.setattr(domains, "_MAX_ENUMERATED", 8)
    assert len(Func(IntRange(1, 3), Bool()).values) == 8
    assert len(Set(IntRange(1, 3)).values) == 8
    with pytest.raises(ValueError, match=r"^\[int -> bool\] has 16 values, too many to list$"):
        _ = Func(IntRange(1, 4), Bool()).values
    with pytest.raises(ValueError, match=r"^Set\[int\] has 2\^4 values, too many to list$"):
        _ = Set(IntRange(1, 4)).values


def test_a_function_value_is_compared_by_keys_and_values_and_updated_by_key() -> None:
    f = FuncValue((1, 2, 3), ("x", "y", "z"))
    assert f == FuncValue((1, 2, 3), ("x", "y", "z")) and hash(f) == hash(("x", "y", "z"))
    assert f != FuncValue((1, 2, 3), ("x", "y", "w"))
    assert f != FuncValue((4, 5, 6), ("x", "y", "z"))  # same values (and hash), other keys
    assert f != ("x", "y", "z")
    assert (f[1], f[2], f[3]) == ("x", "y", "z")
    assert f.set(1, "a").vals == ("a", "y", "z")
    assert f.set(2, "b").vals == ("x", "b", "z")
    assert f.set(3, "c") == FuncValue((1, 2, 3), ("x", "y", "c"))
    assert f.vals == ("x", "y", "z")  # the update made a new value
    assert list(f.items()) == [(1, "x"), (2, "y"), (3, "z")]
    assert repr(f) == "{1: 'x', 2: 'y', 3: 'z'}"
    with pytest.raises(KeyError):
        f[4]
    fresh = (object(), object())  # keys no earlier value had: their index is built here
    g = FuncValue(fresh, ("p", "q"))
    assert (g[fresh[0]], g[fresh[1]]) == ("p", "q") and g.set(fresh[1], "r")[fresh[1]] == "r"
