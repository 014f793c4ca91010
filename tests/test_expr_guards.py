"""The guard language refuses Python's own operators, and `sub` counts down.

`guard=a and b` used to keep only `b` silently; now an expression has no truth
value and the error names the functions to use. Integer arithmetic errors name
the variable and the value.
"""

from __future__ import annotations

import pytest

from models.kernel import IntRange
from models.kernel import Spec
from models.kernel import SpecError
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import gt
from models.kernel import ignore
from models.kernel import le
from models.kernel import lt
from models.kernel import never
from models.kernel import row
from models.kernel import sometimes
from models.kernel import sub
from models.kernel import var
from models.kernel.checks import verify
from models.kernel.printer import show

A, B = eq(var("n"), 1), eq(var("n"), 2)


def test_python_and_or_not_if_on_an_expression_name_the_function_to_use() -> None:
    for use in (lambda: A and B, lambda: A or B, lambda: not A, lambda: 1 if A else 0):
        with pytest.raises(TypeError, match=r"use and_\(a, b\), or_\(a, b\), not_\(a\), ite"):
            use()


def counter(*rows: object, lo: int = 0, hi: int = 3, **more: object) -> Spec:
    fields: dict[str, object] = dict(
        name="counter",
        source="tests/test_expr_guards.py",
        vars=(Var("n", IntRange(lo, hi), lo),),
        triggers=(Trigger("up"), Trigger("down")),
        rows=rows
        or (
            row(
                "up",
                "up",
                None,
                None,
                guard=lt(var("n"), hi),
                sets={"n": add(var("n"), 1)},
                cite="toy",
            ),
            ignore("up_at_top", "up", None, guard=eq(var("n"), hi), cite="toy"),
            row(
                "down",
                "down",
                None,
                None,
                guard=gt(var("n"), lo),
                sets={"n": sub(var("n"), 1)},
                cite="toy",
            ),
            ignore("down_at_bottom", "down", None, guard=eq(var("n"), lo), cite="toy"),
        ),
        properties=(
            always("in-range", and_(le(var("n"), hi), le(lo, var("n"))), cite="toy"),
            never("below", lt(var("n"), lo), cite="toy"),
            sometimes("back-down", and_(eq(var("n"), hi - 1)), cite="toy"),
        ),
    )
    fields.update(more)
    return Spec(**fields)  # type: ignore[arg-type]


def test_sub_counts_down_and_z3_and_the_explorer_agree() -> None:
    report = verify(counter(lo=5, hi=9))  # sub(n, 1) with 1 outside 5..9 is still an offset
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    graph = report.exploration
    # Every value of 5..9, n - 5 steps up from 5: the set and the depths, not only a count.
    assert {s[0]: graph.depth[i] for i, s in enumerate(graph.states)} == {
        n: n - 5 for n in range(5, 10)
    }
    assert show(None, sub(var("n"), 1)) == "n - 1"


def test_a_decrement_below_the_range_is_caught_naming_variable_and_value() -> None:
    spec = counter(
        row("down", "down", None, None, sets={"n": sub(var("n"), 1)}, cite="toy"),
        row(
            "up", "up", None, None, guard=lt(var("n"), 3), sets={"n": add(var("n"), 1)}, cite="toy"
        ),
        ignore("up_at_top", "up", None, guard=eq(var("n"), 3), cite="toy"),
    )
    with pytest.raises(Exception, match=r"row 'down' sets 'n' to -1, outside"):
        verify(spec)


@pytest.mark.parametrize(
    ("guard", "message"),
    [
        (lt(var("n"), 7), r"n < 7: 7 is not in int 0\.\.3"),
        (eq(add(var("n"), True), 1), r"n \+ true: True is not an integer"),
    ],
)
def test_domain_errors_name_the_expression_and_the_value(guard: object, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        counter(
            row("up", "up", None, None, guard=guard, cite="toy"),  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("cite", ["", "   ", "\t\n"])
def test_a_blank_cite_is_refused(cite: str) -> None:
    with pytest.raises(SpecError, match="row 'up': no source citation"):
        counter(row("up", "up", None, None, cite=cite))
    with pytest.raises(SpecError, match="property 'p': no source citation"):
        counter(properties=(always("p", eq(var("n"), 0), cite=cite),))
