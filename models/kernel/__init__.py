"""The modelling kernel: write a spec once, check it many ways.

`spec` holds the vocabulary; `expr` the guard language; `compose` builds one spec
from component specs joined by channels; `explore` (BFS over the `oracle`, a
transitions Machine), `smt` (z3) and `diagram` (graphviz) are the faces derived
from one spec; `checks` runs and cross-checks them.
"""

from .compose import Channel
from .compose import Delivery
from .compose import System
from .compose import channel
from .compose import compose
from .domains import Bool
from .domains import Domain
from .domains import Finite
from .domains import Func
from .domains import FuncValue
from .domains import IntRange
from .domains import Option
from .domains import Real
from .domains import Seq
from .domains import Set
from .expr import FALSE
from .expr import TRUE
from .expr import Expr
from .expr import add
from .expr import and_
from .expr import append
from .expr import at
from .expr import bound
from .expr import enabled
from .expr import eq
from .expr import exists
from .expr import forall
from .expr import func
from .expr import ge
from .expr import group_is
from .expr import gt
from .expr import head
from .expr import implies
from .expr import index
from .expr import is_in
from .expr import is_none
from .expr import is_some
from .expr import ite
from .expr import le
from .expr import length
from .expr import lt
from .expr import member
from .expr import ne
from .expr import not_
from .expr import nxt
from .expr import or_
from .expr import out
from .expr import param
from .expr import row_is
from .expr import set_add
from .expr import set_remove
from .expr import size
from .expr import some
from .expr import sub
from .expr import tail
from .expr import total
from .expr import trigger_is
from .expr import unchanged
from .expr import unwrap
from .expr import update
from .expr import var
from .spec import AnyOf
from .spec import Fairness
from .spec import Kind
from .spec import LiveKind
from .spec import Liveness
from .spec import Output
from .spec import Param
from .spec import Property
from .spec import Row
from .spec import Spec
from .spec import SpecError
from .spec import Totality
from .spec import Trigger
from .spec import Var
from .spec import Variant
from .spec import always
from .spec import eventually
from .spec import ignore
from .spec import infinitely_often
from .spec import leads_to
from .spec import never
from .spec import others
from .spec import row
from .spec import sometimes
from .spec import strong
from .spec import weak

__all__ = [
    "FALSE",
    "TRUE",
    "AnyOf",
    "Bool",
    "Channel",
    "Delivery",
    "Domain",
    "Expr",
    "Fairness",
    "Finite",
    "Func",
    "FuncValue",
    "IntRange",
    "Kind",
    "LiveKind",
    "Liveness",
    "Option",
    "Output",
    "Param",
    "Property",
    "Real",
    "Row",
    "Seq",
    "Set",
    "Spec",
    "SpecError",
    "System",
    "Totality",
    "Trigger",
    "Var",
    "Variant",
    "add",
    "always",
    "and_",
    "append",
    "at",
    "bound",
    "channel",
    "compose",
    "enabled",
    "eq",
    "eventually",
    "exists",
    "forall",
    "func",
    "ge",
    "group_is",
    "gt",
    "head",
    "ignore",
    "implies",
    "index",
    "infinitely_often",
    "is_in",
    "is_none",
    "is_some",
    "ite",
    "le",
    "leads_to",
    "length",
    "lt",
    "member",
    "ne",
    "never",
    "not_",
    "nxt",
    "or_",
    "others",
    "out",
    "param",
    "row",
    "row_is",
    "set_add",
    "set_remove",
    "size",
    "some",
    "sometimes",
    "strong",
    "sub",
    "tail",
    "total",
    "trigger_is",
    "unchanged",
    "unwrap",
    "update",
    "var",
    "weak",
]
