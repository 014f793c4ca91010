"""The small alphabet the data tests share: two messages and two nodes.

`tests/test_data.py` builds its mailbox over them and `tests/test_itf.py` its ITF
values, so one change of the alphabet reaches both.
"""

from __future__ import annotations

import enum

from models.kernel import Finite
from models.kernel import IntRange


class Msg(enum.Enum):
    A = "A"
    B = "B"


MSG = Finite.of_enum(Msg, "Msg")
NODE = IntRange(1, 2, "Node")
