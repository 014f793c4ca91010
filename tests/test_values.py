"""values.py: a spec value's JSON spelling, read back, and the messages for a wrong one.

The round trips through real specs are in test_data.py and test_tracecheck.py; these pin
the edges: clipping, numbers and booleans kept apart, NaN and the infinities, the label
tables built per domain, and what a refusal says.
"""

from __future__ import annotations

import enum
import math
from typing import Any
from typing import NamedTuple

import pytest

from models.kernel.domains import Bool
from models.kernel.domains import Finite
from models.kernel.domains import Func
from models.kernel.domains import IntRange
from models.kernel.domains import Real
from models.kernel.domains import Seq
from models.kernel.values import BadValue
from models.kernel.values import clip
from models.kernel.values import decode
from models.kernel.values import encode
from models.kernel.values import same
from models.kernel.values import shown


class Cmd(enum.Enum):
    MUTE = "Mute"
    CANCEL = "Cancel"


class Rec(NamedTuple):
    a: Cmd
    b: Cmd

    @property
    def label(self) -> str:
        return f"{self.a.name}/{self.b.name}"


def refusal(domain: Any, raw: Any) -> str:
    with pytest.raises(BadValue) as refused:
        decode(domain, raw)
    return str(refused.value)


def test_echoed_input_is_clipped_to_80_characters() -> None:
    assert clip("x" * 80) == "x" * 80
    assert clip("x" * 81) == "x" * 79 + "…"
    assert shown("y" * 200) == repr("y" * 200)[:79] + "…"
    assert shown(10**5000) == "a number of over 4300 digits"


def test_numbers_and_booleans_keep_their_kind() -> None:
    real = Real(samples=(1.0,))
    assert type(encode(real, 3)) is int and type(encode(real, 2.5)) is float
    assert [encode(real, v) for v in (math.inf, -math.inf)] == ["inf", "-inf"]
    assert decode(real, "inf") == math.inf and decode(real, "-inf") == -math.inf
    assert math.isnan(decode(real, "nan"))
    assert refusal(real, 10**400) == clip(repr(10**400)) + " is beyond a double's range"
    assert refusal(real, True) == "True is not a number"
    assert refusal(Bool(), 1) == "1 is not a boolean (true or false)"
    small = IntRange(0, 3)
    assert decode(small, 3) == 3
    assert refusal(small, 9) == "9 is not an integer in 0..3"
    assert refusal(small, True) == "True is not an integer in 0..3"


def test_same_is_equality_with_nan_equal_and_booleans_apart() -> None:
    nan = float("nan")
    assert same(nan, nan) and same(1, 1.0) and same(2.0, 2)
    assert not same(nan, 1.0) and not same(1.0, nan)
    assert not same(True, 1) and not same(1, True) and not same(1, 2.0)


def test_a_command_list_is_a_list_of_labels_both_ways() -> None:
    commands = Finite.of_sequences("Commands", Cmd, 2, [(), (Cmd.MUTE, Cmd.CANCEL)])
    both = (Cmd.MUTE, Cmd.CANCEL)
    assert encode(commands, both) == ["MUTE", "CANCEL"]
    assert decode(commands, ["MUTE", "CANCEL"]) == both
    assert decode(commands, "[MUTE,CANCEL]") == both  # the report's label string
    assert decode(commands, []) == ()


def test_a_record_or_a_tuple_of_numbers_is_one_label_not_a_list() -> None:
    records = Finite("records", (Rec(Cmd.MUTE, Cmd.CANCEL),), namer=lambda r: r.label)
    assert encode(records, Rec(Cmd.MUTE, Cmd.CANCEL)) == "MUTE/CANCEL"
    pairs = Finite("pairs", ((1, 2), (3, 4)))
    assert encode(pairs, (1, 2)) == "(1, 2)" and decode(pairs, "(1, 2)") == (1, 2)
    assert refusal(pairs, ["1", "2"]).startswith("['1', '2'] is not a value of pairs")


def test_a_member_spelled_as_itself_is_read_and_a_stranger_is_named() -> None:
    numbers = Finite("numbers", tuple(range(1, 10)))
    assert decode(numbers, 2) == 2
    assert refusal(numbers, 0) == "0 is not a value of numbers (1, 2, 3, 4, 5, 6, 7, 8, …)"
    eight = Finite("eight", tuple(range(1, 9)))
    assert refusal(eight, 0) == "0 is not a value of eight (1, 2, 3, 4, 5, 6, 7, 8)"
    blank = Finite("blank", ("", "a"))
    assert refusal(blank, [1]) == "[1] is not a value of blank (, a)"


def test_data_of_the_wrong_shape_is_refused_saying_the_shape() -> None:
    func = Func(IntRange(0, 1), Bool(), name="F")
    assert list(decode(func, {"0": True, "1": False}).items()) == [(0, True), (1, False)]
    assert refusal(func, {"0": True}) == "{'0': True} is not a function F (an object keyed 0, 1)"
    assert refusal(func, [True]) == "[True] is not a function F (an object keyed 0, 1)"
    seq = Seq(Bool(), 1, name="S")
    assert refusal(seq, "x") == f"'x' is not a list ({seq.describe()})"
    assert refusal(seq, [True, True]) == f"[True, True] is longer than 1 ({seq.describe()})"
