"""PolicyTake and merge admission (seed `mode.rs`, docs/policy-take.md): two specs.

`policy` is the run-policy cell of `PolicyTake.lean` (§8-62, runtime D28; doc
§1, §4). Its steps are `change(policy)` over all 32 policies, `wave` and
`call`, and its five rows are the Lean step table: change into an empty or a
held mailbox (the last arrival wins), wave/some, wave/none and call. The
ghost `wave_start` is the policy in force when the current wave began, and
`last_arrival` the last arrival since the last wave (the seed proptest's
`in_force` and `last_arrival`). The notes window is abstracted as §1's last
paragraph allows: its length, saturating at `CAP`, and its last note.

The cell never looks inside a policy: it stores, copies and hands back
whole policies, as the Lean model is generic in `P`. So it is checked under
the one-value abstraction of data independence. One policy is watched
(`WATCHED_POLICY`), and each slot records only whether it holds that policy
or another one; `change` still takes any of the 32, and its rows map the
arrival to WATCHED or OTHER.

- The concrete cell is checked too: `policy-concrete` is the same rows,
  properties and variant with every policy in every slot (2,145 states; one
  definition, `cell_vars`/`cell_rows`/`cell_outputs`, instantiated twice), and
  tests/test_policy_concrete.py holds both to the same verdicts. The
  abstraction stays because conformance drives it and its 15 states keep the
  diagram readable.
- Nothing is lost: the properties only compare policies, and x = y iff
  (x = w) ⇔ (y = w) for every w. No row treats two policies differently
  except by comparing them with w (conformance/test_policy.py checks that),
  so the check for one w is the check for every w, by renaming.
- The run starts under a policy other than the watched one; that suffices,
  since some w other than the start tells any two different policies apart.

`admission` is a decision table with one state and no variables, checked
over every input. `admits` takes the policy and what the run produced (1,728
inputs); its eight rows, one per outcome, follow `admits`/`admits_evidence`
in the seed's match order (§5). `mode_admits` takes the mode (all the gate
reads of the policy) and a tool name; its three rows follow `mode_admits`
(§6, D25). Properties cannot read parameters, so each row echoes its inputs
as outputs (`mode`, `landing`, …) for them. "The mode takes no part" is
checked by self-composition: each row also emits whether it would still
decide with only the mode flipped.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from typing import NamedTuple

from models.kernel import Bool
from models.kernel import Expr
from models.kernel import Finite
from models.kernel import IntRange
from models.kernel import Option
from models.kernel import Output
from models.kernel import Param
from models.kernel import Property
from models.kernel import Row
from models.kernel import Spec
from models.kernel import Trigger
from models.kernel import Var
from models.kernel import Variant
from models.kernel import add
from models.kernel import always
from models.kernel import and_
from models.kernel import eq
from models.kernel import implies
from models.kernel import is_in
from models.kernel import is_none
from models.kernel import is_some
from models.kernel import ite
from models.kernel import leads_to
from models.kernel import lt
from models.kernel import ne
from models.kernel import not_
from models.kernel import nxt
from models.kernel import or_
from models.kernel import out
from models.kernel import param
from models.kernel import row
from models.kernel import some
from models.kernel import sometimes
from models.kernel import trigger_is
from models.kernel import unchanged
from models.kernel import unwrap
from models.kernel import var
from models.kernel import weak
from models.kernel.expr import Const
from models.kernel.expr import Enabled
from models.kernel.expr import Ref
from models.kernel.expr import StepIs
from models.kernel.layout import Layout

# ---------------------------------------------------------------- the policy domain (§7)


class Mode(enum.Enum):
    CHAT = "chat"
    WORK = "work"


class WriteLimit(enum.Enum):
    FULL = "full"
    CREATE = "create"


class Requirement(enum.Enum):
    STANDING = "standing"
    TESTED = "tested"
    CONTRACT_KEPT = "contract_kept"
    DOUBLE_VALIDATED = "double_validated"


class Landing(enum.Enum):
    ORDINARY = "ordinary"
    EXPERIMENT = "experiment"


CHAT, WORK = Mode
FULL, CREATE = WriteLimit
STANDING, TESTED, CONTRACT_KEPT, DOUBLE_VALIDATED = Requirement
ORDINARY, EXPERIMENT = Landing


class Policy(NamedTuple):
    """A `RunPolicy`: the four choices a run is dispatched under (§7)."""

    mode: Mode
    write: WriteLimit
    admit: Requirement
    landing: Landing

    @property
    def label(self) -> str:
        return "/".join(field.value for field in self)


# Mode × WriteLimit × AdmissionRequirement × LandingPolicy, in the kernel's `ALL` order.
POLICIES = tuple(
    Policy(*combo) for combo in itertools.product(Mode, WriteLimit, Requirement, Landing)
)
POLICY = Finite("Policy", POLICIES, namer=lambda p: str(p.label))
MODE = Finite.of_enum(Mode)
WRITE = Finite.of_enum(WriteLimit)
REQUIREMENT = Finite.of_enum(Requirement)
LANDING = Finite.of_enum(Landing)

# ================================================================ policy: the cell


class Mailbox(enum.Enum):
    """Control: does an arrival wait in the cell (the seed's `arrived.is_some()`)?"""

    EMPTY = "empty"
    HELD = "held"


class Watch(enum.Enum):
    """A stored policy, seen through the one-value abstraction: the watched one or another."""

    WATCHED = "watched"
    OTHER = "other"


EMPTY, HELD = Mailbox
WATCHED, OTHER = Watch
WATCH = Finite.of_enum(Watch)

# Upstream's saved shrink (§4) starts at chat/full/standing/ordinary and changes to the same
# policy with landing experiment. Watching that arrival makes the checker's counterexample to
# eager reading the same trace.
UPSTREAM_START = Policy(CHAT, FULL, STANDING, ORDINARY)
WATCHED_POLICY = Policy(CHAT, FULL, STANDING, EXPERIMENT)

# The window's length is counted exactly up to CAP and read as "CAP or more" after that. Each
# step appends at most one note and says which in the `note` output, so the count per step is
# exact at every length. CAP = 2 is the least cap at which two takes differ from one.
CAP = 2


def watched(policy: Expr) -> Expr:
    """The abstraction of a concrete policy: WATCHED if it is the watched one, else OTHER."""
    return ite(eq(policy, WATCHED_POLICY), WATCHED, OTHER)


ONE_MORE_NOTE = ite(lt(var("notes"), CAP), add(var("notes"), 1), CAP)


def cell_vars(stored: Finite, start: object) -> tuple[Var, ...]:
    """The cell's variables, each slot holding a `stored` value (watched/other, or a policy)."""
    return (
        Var("mailbox", Finite.of_enum(Mailbox), EMPTY, doc="control: an arrival waits"),
        Var("in_force", stored, start, doc="the policy in force (seed `shared`)"),
        Var("pending", Option(stored), None, doc="the last arrival not yet taken (seed `arrived`)"),
        Var("wave_start", stored, start, doc="ghost: in force when the current wave began"),
        Var(
            "last_arrival", Option(stored), None, doc="ghost: the last arrival since the last wave"
        ),
        Var("notes", IntRange(0, CAP), 0, doc="window: notes appended, saturating at CAP"),
        Var("last_note", Option(stored), None, doc="window: the policy its last note names"),
    )


CELL_VARS = cell_vars(WATCH, OTHER)
EVERYTHING = tuple(v.name for v in CELL_VARS)


def cell_rows(arrival: Expr) -> tuple[Row, ...]:
    """The step table, with `arrival` what `change(policy)` stores (abstracted, or as is)."""
    return (
        row(
            "change_arrives",
            "change",
            EMPTY,
            HELD,
            sets={"pending": arrival, "last_arrival": arrival},
            cite="PolicyTake.lean step table, change p; mode.rs PolicyCell::arrive",
        ),
        row(
            "change_overrides",
            "change",
            HELD,
            HELD,
            sets={"pending": arrival, "last_arrival": arrival},
            cite="PolicyTake.lean step table, change p (last arrival wins); "
            "mode.rs arrive overwrites",
        ),
        row(
            "wave_takes_arrival",
            "wave",
            HELD,
            EMPTY,
            sets={
                "in_force": unwrap(var("pending")),
                "pending": None,
                "wave_start": unwrap(var("pending")),
                "last_arrival": None,
                "notes": ONE_MORE_NOTE,
                "last_note": var("pending"),
            },
            emits={"taken": var("pending"), "note": var("pending")},
            cite="PolicyTake.lean step table, wave/some p; mode.rs take_at_wave; "
            "policy-take.md §2 taking (1)-(3)",
        ),
        row(
            "wave_takes_nothing",
            "wave",
            EMPTY,
            # The wave still begins: the policy it is judged under is the one already in force.
            sets={"wave_start": var("in_force"), "last_arrival": None},
            cite="PolicyTake.lean step table, wave/none; "
            "mode.rs take_at_wave (nothing arrived: None)",
        ),
        row(
            "call_reads_in_force",
            "call",
            None,
            emits={"read": some(var("in_force"))},
            cite="PolicyTake.lean step table, call (enforced reads inForce); "
            "mode.rs PolicyReader::now",
        ),
    )


ARRIVAL = some(watched(param("policy")))
CONCRETE_ARRIVAL = some(param("policy"))
CELL_ROWS = cell_rows(ARRIVAL)


def cell_properties(arrival: Expr) -> tuple[Property, ...]:
    """The cell's requirements, with `arrival` what a change must store (as in `cell_rows`:
    the abstraction of the argument, or the argument itself). Only
    a-change-lands-in-the-mailbox reads it; every other property is the same expression in
    both cells."""
    return (
        always(
            "calls-read-the-wave-start",
            implies(trigger_is("call"), eq(out("read"), some(var("wave_start")))),
            cite="PolicyTake.lean a_wave_is_gated_by_the_policy_at_its_start, "
            "a_change_inside_a_wave_leaves_that_wave_alone; mode.rs walk (Step::Call)",
            doc="Every call of a wave reads the policy that was in force when the wave began.",
        ),
        always(
            "wave-takes-the-last-arrival",
            and_(
                implies(trigger_is("wave"), eq(out("taken"), var("last_arrival"))),
                eq(
                    nxt("in_force"),
                    ite(
                        and_(trigger_is("wave"), is_some(var("last_arrival"))),
                        unwrap(var("last_arrival")),
                        var("in_force"),
                    ),
                ),
            ),
            cite="PolicyTake.lean the_next_wave_takes_the_last_change, no_wave_keeps_the_policy; "
            "mode.rs walk (Step::Wave: taken == last_arrival.take())",
            doc="A wave hands back the last arrival since the previous wave, or nothing, and "
            "puts it in force; the policy in force changes at no other step.",
        ),
        always(
            "empty-wave-changes-nothing",
            implies(
                and_(trigger_is("wave"), is_none(var("pending"))),
                and_(unchanged(*EVERYTHING), is_none(out("taken")), is_none(out("note"))),
            ),
            cite="PolicyTake.lean step table, wave/none; no_change_appends_nothing; "
            "mode.rs take_at_wave (None, no note)",
        ),
        always(
            "calls-keep-the-mailslot",
            implies(trigger_is("call"), unchanged(*EVERYTHING)),
            cite="PolicyTake.lean calls_keep_the_mailslot",
            doc="A call consumes no arrival and changes nothing.",
        ),
        always(
            "the-window-only-grows",
            and_(
                eq(out("note"), out("taken")),
                eq(nxt("notes"), ite(is_some(out("note")), ONE_MORE_NOTE, var("notes"))),
                eq(nxt("last_note"), ite(is_some(out("note")), out("note"), var("last_note"))),
            ),
            cite="PolicyTake.lean step table, wave/some p (window ++ [note p]), "
            "the_window_only_grows; policy-take.md §2 taking (2), frozen prefix",
            doc="A step appends a note exactly when it takes a change, naming it, and the window "
            "after the step is the window before it plus that note: the old window is a prefix.",
        ),
        sometimes(
            "a-call-waits-out-an-arrival",
            and_(
                trigger_is("call"),
                is_some(var("pending")),
                ne(var("pending"), some(var("in_force"))),
            ),
            cite="PolicyTake.lean eager_reading_splits_a_wave (the change inside one wave)",
            doc="A call made while a different policy waits in the mailbox.",
        ),
        sometimes(
            "the-window-fills",
            eq(var("notes"), CAP),
            cite="PolicyTake.lean the_window_only_grows (the abstraction reaches its cap)",
        ),
        always(
            "a-change-lands-in-the-mailbox",
            implies(
                trigger_is("change"),
                and_(
                    eq(nxt("mailbox"), HELD),
                    eq(nxt("pending"), arrival),
                    eq(nxt("last_arrival"), arrival),
                    unchanged("in_force", "wave_start", "notes", "last_note"),
                ),
            ),
            cite="PolicyTake.lean step table, change p (pending := some p, last arrival wins); "
            "mode.rs PolicyCell::arrive (overwrites `arrived`, touches nothing else)",
            doc="Every change, whatever waits already, becomes the pending arrival and changes "
            "nothing in force. It reads the change's argument, which no row writes: so it also "
            "keeps the ghost `last_arrival` honest, which wave-takes-the-last-arrival reads.",
        ),
        always(
            "the-mailbox-is-held-iff-pending",
            eq(eq(var("mailbox"), HELD), is_some(var("pending"))),
            cite="policy-take.md §1 state (`pending : Option P`, the last arrival not yet taken); "
            "mode.rs PolicyCell (`arrived: Mutex<Option<RunPolicy>>`)",
            doc="The mailbox is held exactly while an arrival waits: a run starts with nothing "
            "pending, and nothing else marks the mailbox.",
        ),
        always(
            "a-last-note-iff-a-nonempty-window",
            eq(is_some(var("last_note")), ne(var("notes"), 0)),
            cite="policy-take.md §1 (for z3 the window is abstracted to its length plus its last "
            "note; it starts empty and is only ever appended to)",
            doc="The window's abstraction is consistent: the last note exists iff the window is "
            "non-empty, so a run starts with an empty window.",
        ),
    )


CELL_PROPERTIES = cell_properties(ARRIVAL)

EAGER_READING = Variant(
    "eager-reading",
    doc="Rejected design ①: tools read the mailbox. The gate uses the pending arrival "
    "if one waits, else the policy in force, so a change splits the wave it arrives in.",
    cite="PolicyTake.lean enforcedEager, eager_reading_splits_a_wave; policy-take.md §2 rejected ①",
    violates=("calls-read-the-wave-start",),
    replace={
        "call_reads_in_force": row(
            "call_reads_mailbox",
            "call",
            None,
            emits={"read": ite(is_some(var("pending")), var("pending"), some(var("in_force")))},
            cite="PolicyTake.lean enforcedEager",
        )
    },
)


# A wave that copies the arrival instead of taking it: `Option<RunPolicy>` is `Copy`, so
# `let taken = self.arrived?;` compiles where `self.arrived.take()?` was meant, and the
# mailbox is never emptied. Every wave takes the same change again.
COPIES_THE_ARRIVAL = Variant(
    "copies-the-arrival",
    doc="take_at_wave reads the arrival with `self.arrived?`, which copies a `Copy` option "
    "instead of taking it: the change is put in force but stays pending, so the mailbox never "
    "empties and every later wave takes it again (and appends a note for it).",
    cite="mode.rs take_at_wave (`self.arrived.take()?`); PolicyTake.lean step table, wave/some "
    "p (pending := none); policy-take.md §1 (a change is in force from the next wave on)",
    violates=("wave-takes-the-last-arrival", "a-change-is-in-force-at-a-wave-start"),
    replace={
        "wave_takes_arrival": row(
            "wave_copies_arrival",
            "wave",
            HELD,
            HELD,
            sets={
                "in_force": unwrap(var("pending")),
                "wave_start": unwrap(var("pending")),
                "last_arrival": None,
                "notes": ONE_MORE_NOTE,
                "last_note": var("pending"),
            },
            emits={"taken": var("pending"), "note": var("pending")},
            cite="mode.rs take_at_wave with `self.arrived?` (the arrival copied, not taken)",
        )
    },
)


def cell_outputs(stored: Finite) -> tuple[Output, ...]:
    return (
        Output("read", Option(stored), None, doc="the policy a call's gate saw"),
        Output("taken", Option(stored), None, doc="what take_at_wave handed back"),
        Output("note", Option(stored), None, doc="the note this step appends to the window"),
    )


# Liveness (issue 17), over any stored policy, so both cells share it. The only step that
# empties the mailbox is wave/some, which puts the waiting policy in force at that wave's start
# (safety checks that); the last arrival wins, so "its" is the one waiting when the wave comes.
CELL_LIVENESS = (
    leads_to(
        "a-change-is-in-force-at-a-wave-start",
        is_some(var("pending")),
        and_(is_none(var("pending")), eq(var("wave_start"), var("in_force"))),
        cite="policy-take.md §1 (a change is in force from the next wave on); PolicyTake.lean "
        "take_at_wave; mode.rs take_at_wave",
        fair=[weak("wave")],
        doc="Under weak fairness of waves, a waiting change is taken at a wave start and is "
        "in force for that wave; without it a run may stop with the change still waiting.",
    ),
)

POLICY_SPEC = Spec(
    name="policy",
    source="seeds/mode.rs PolicyCell (PolicyTake.lean §8-62, runtime D28)",
    doc=__doc__ or "",
    control="mailbox",
    vars=CELL_VARS,
    triggers=(
        Trigger("change", (Param("policy", POLICY),), doc="Step::Change: cell.arrive(policy)"),
        Trigger("wave", doc="Step::Wave: SafePoint::BeforeWave, cell.take_at_wave()"),
        Trigger("call", doc="Step::Call: a call of the wave asks its gate, reader.now()"),
    ),
    outputs=cell_outputs(WATCH),
    rows=CELL_ROWS,
    properties=CELL_PROPERTIES,
    liveness=CELL_LIVENESS,
    variants=(EAGER_READING, COPIES_THE_ARRIVAL),
    layout=Layout(updates=("in_force", "pending", "wave_start"), variables=True),
)

# The concrete cell: every slot holds one of the 32 policies, stored as it arrives, and the run
# starts under upstream's start policy. The same rows, properties and variant (one definition,
# instantiated twice). Both must give the same verdicts (tests/test_policy_concrete.py).
POLICY_CONCRETE_SPEC = replace(
    POLICY_SPEC,
    name="policy-concrete",
    source="seeds/mode.rs PolicyCell, every policy in every slot (PolicyTake.lean §8-62)",
    vars=cell_vars(POLICY, UPSTREAM_START),
    outputs=cell_outputs(POLICY),
    rows=cell_rows(CONCRETE_ARRIVAL),
    properties=cell_properties(CONCRETE_ARRIVAL),
)

# ================================================================ admission: the decision table


class Outcome(enum.Enum):
    """`Admission`: Lands, or one of the Lean `Refusal`s (§5)."""

    LANDS = "Lands"
    EXPERIMENT_NEVER_LANDS = "ExperimentNeverLands"
    TESTS_FAILED = "TestsFailed"
    NO_TESTS = "NoTests"
    CONTRACT_MOVED = "ContractMoved"
    WORSE_HELD_IN = "WorseHeldIn"
    FAILED_HELD_OUT = "FailedHeldOut"
    HALF_MISSING = "HalfMissing"


# §6 D25: the resident tools each mode runs. Two names in no core: `Edit`, because names
# match exactly, and `plan`, a dormant tool that is reached through `call`.
CORES: dict[Mode, tuple[str, ...]] = {
    CHAT: ("call", "describe", "read", "search", "status"),
    WORK: ("call", "describe", "edit", "exec", "read", "search", "status"),
}
IN_SOME_CORE = tuple(dict.fromkeys(name for mode in Mode for name in CORES[mode]))
TOOL_NAMES = ("call", "describe", "edit", "exec", "read", "search", "status")  # §7 tool names
TOOL = Finite("Tool", (*TOOL_NAMES, "Edit", "plan"))

POLICY_PARAMS = (
    Param("mode", MODE),
    Param("write", WRITE),
    Param("admit", REQUIREMENT),
    Param("landing", LANDING),
)
PRODUCED_PARAMS = (
    Param("tests_passed", Option(Bool())),
    Param("contract_moved", Bool()),
    Param("held_in", Option(Bool())),
    Param("held_out", Option(Bool())),
)


@dataclass(frozen=True)
class Decision:
    """One line of the admission table: when it decides, what it answers, where it comes from."""

    name: str
    guard: Expr
    outcome: Outcome
    cite: str


def _ordinary(requirement: Requirement, *rest: Expr) -> Expr:
    return and_(eq(param("landing"), ORDINARY), eq(param("admit"), requirement), *rest)


HELD_IN_NOT_FAILED = ne(param("held_in"), False)
HELD_OUT_NOT_FAILED = ne(param("held_out"), False)
BOTH_HELD = and_(eq(param("held_in"), True), eq(param("held_out"), True))

# One row per outcome, in the seed's match order: the landing first, then the requirement.
ADMITS_TABLE = (
    Decision(
        "experiment_never_lands",
        eq(param("landing"), EXPERIMENT),
        Outcome.EXPERIMENT_NEVER_LANDS,
        "mode.rs admits, LandingPolicy::Experiment arm; policy-take.md §5 (landing first)",
    ),
    Decision(
        "evidenced_lands",
        or_(
            _ordinary(STANDING),
            _ordinary(TESTED, eq(param("tests_passed"), True)),
            _ordinary(CONTRACT_KEPT, eq(param("contract_moved"), False)),
            _ordinary(DOUBLE_VALIDATED, BOTH_HELD),
        ),
        Outcome.LANDS,
        "mode.rs admits_evidence Lands arms (Standing; Tested Some(true); ContractKept unmoved; "
        "DoubleValidated (Some(true), Some(true))); policy-take.md §5 table, 'lands iff'",
    ),
    Decision(
        "tests_failed",
        _ordinary(TESTED, eq(param("tests_passed"), False)),
        Outcome.TESTS_FAILED,
        "mode.rs admits_evidence Tested Some(false); policy-take.md §5 table, Tested",
    ),
    Decision(
        "no_tests",
        _ordinary(TESTED, is_none(param("tests_passed"))),
        Outcome.NO_TESTS,
        "mode.rs admits_evidence Tested None; policy-take.md §5 table, Tested",
    ),
    Decision(
        "contract_moved",
        _ordinary(CONTRACT_KEPT, eq(param("contract_moved"), True)),
        Outcome.CONTRACT_MOVED,
        "mode.rs admits_evidence ContractKept moved; policy-take.md §5 table, ContractKept",
    ),
    Decision(
        "worse_held_in",
        _ordinary(DOUBLE_VALIDATED, eq(param("held_in"), False)),
        Outcome.WORSE_HELD_IN,
        "mode.rs admits_evidence (Some(false), _); policy-take.md §5 table, DoubleValidated",
    ),
    Decision(
        "failed_held_out",
        _ordinary(DOUBLE_VALIDATED, HELD_IN_NOT_FAILED, eq(param("held_out"), False)),
        Outcome.FAILED_HELD_OUT,
        "mode.rs admits_evidence (_, Some(false)); policy-take.md §5 table, DoubleValidated",
    ),
    Decision(
        "half_missing",
        _ordinary(DOUBLE_VALIDATED, HELD_IN_NOT_FAILED, HELD_OUT_NOT_FAILED, not_(BOTH_HELD)),
        Outcome.HALF_MISSING,
        "mode.rs admits_evidence `_` arm; policy-take.md §5 table, DoubleValidated",
    ),
)

# 08b15b7f (§9): Ordinary judged as Standing, whatever `policy.admit` says.
IGNORES_REQUIREMENT_TABLE = (
    ADMITS_TABLE[0],
    Decision(
        "ordinary_lands_as_standing",
        eq(param("landing"), ORDINARY),
        Outcome.LANDS,
        "policy-take.md §9, 08b15b7f admits: Ordinary judged as Standing",
    ),
)

# `other(mode)`: CHAT ↔ WORK, written so that every branch has a type (the last one is the mode).
OTHER_MODE = ite(eq(param("mode"), CHAT), WORK, ite(eq(param("mode"), WORK), CHAT, param("mode")))


def in_the_other_mode(expr: Expr) -> Expr:
    """`expr` with the `mode` parameter replaced by the other mode (self-composition)."""
    if expr == param("mode"):
        return OTHER_MODE
    if isinstance(expr, Const | Ref | StepIs | Enabled):
        return expr
    parts = dict(vars(expr))  # every other node is a dataclass of expressions and options
    for key, value in parts.items():
        if isinstance(value, Expr):
            parts[key] = in_the_other_mode(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], Expr):
            parts[key] = tuple(in_the_other_mode(v) for v in value)
    return type(expr)(**parts)


# The write limit is not echoed: no property reads it, and it takes no part (api.md).
ECHO_ADMITS = {
    p.name: param(p.name) for p in (*POLICY_PARAMS, *PRODUCED_PARAMS) if p.name != "write"
}
ECHO_GATE = {"mode": param("mode"), "tool": param("tool")}


def decision_rows(table: Sequence[Decision]) -> tuple[Row, ...]:
    """The `admits` rows of a table. `decides_in_other_mode` says whether the same row decides
    when only the mode is flipped: the mode takes no part exactly when it always does."""
    return tuple(
        row(
            d.name,
            "admits",
            None,
            guard=d.guard,
            emits={
                **ECHO_ADMITS,
                "outcome": d.outcome,
                "decides_in_other_mode": in_the_other_mode(d.guard),
            },
            cite=d.cite,
        )
        for d in table
    )


RUNS_IN_ITS_MODE = or_(*(and_(eq(param("mode"), m), is_in(param("tool"), *CORES[m])) for m in Mode))
IN_A_CORE = is_in(param("tool"), *IN_SOME_CORE)

GATE_ROWS = (
    row(
        "gate_passes_unjudged",
        "mode_admits",
        None,
        guard=not_(IN_A_CORE),
        emits={**ECHO_GATE, "allowed": True, "judged": False},
        cite="mode.rs mode_admits (!in_some_core(name) → Ok); policy-take.md §6",
    ),
    row(
        "gate_runs_core_tool",
        "mode_admits",
        None,
        guard=and_(IN_A_CORE, RUNS_IN_ITS_MODE),
        emits={**ECHO_GATE, "allowed": True, "judged": True},
        cite="mode.rs mode_admits (core_tools(policy.mode) contains it → Ok); §6 core_tools",
    ),
    row(
        "gate_denies",
        "mode_admits",
        None,
        guard=and_(IN_A_CORE, not_(RUNS_IN_ITS_MODE)),
        emits={**ECHO_GATE, "allowed": False, "judged": True},
        cite="mode.rs mode_admits → E_GATE_DENIED; policy-take.md §6",
    ),
)

# `evidenced(required, produced)`: §5's "lands iff" column, written from the doc, not the rows.
EVIDENCED = or_(
    eq(out("admit"), STANDING),
    and_(eq(out("admit"), TESTED), eq(out("tests_passed"), True)),
    and_(eq(out("admit"), CONTRACT_KEPT), eq(out("contract_moved"), False)),
    and_(eq(out("admit"), DOUBLE_VALIDATED), eq(out("held_in"), True), eq(out("held_out"), True)),
)
ADMITS = trigger_is("admits")
# Mode.lean's order, from the doc's table (not the rows): landing, then the requirement's evidence.
FIRST_MISSING = ite(
    eq(out("landing"), EXPERIMENT),
    Outcome.EXPERIMENT_NEVER_LANDS,
    ite(
        eq(out("admit"), STANDING),
        Outcome.LANDS,
        ite(
            eq(out("admit"), TESTED),
            ite(
                eq(out("tests_passed"), True),
                Outcome.LANDS,
                ite(eq(out("tests_passed"), False), Outcome.TESTS_FAILED, Outcome.NO_TESTS),
            ),
            ite(
                eq(out("admit"), CONTRACT_KEPT),
                ite(out("contract_moved"), Outcome.CONTRACT_MOVED, Outcome.LANDS),
                ite(
                    eq(out("held_in"), False),
                    Outcome.WORSE_HELD_IN,
                    ite(
                        eq(out("held_out"), False),
                        Outcome.FAILED_HELD_OUT,
                        ite(
                            and_(eq(out("held_in"), True), eq(out("held_out"), True)),
                            Outcome.LANDS,
                            Outcome.HALF_MISSING,
                        ),
                    ),
                ),
            ),
        ),
    ),
)
GATE = trigger_is("mode_admits")

ADMISSION_PROPERTIES = (
    always(
        "lands-exactly-with-its-evidence",
        implies(
            ADMITS,
            eq(eq(out("outcome"), Outcome.LANDS), and_(eq(out("landing"), ORDINARY), EVIDENCED)),
        ),
        cite="Mode.lean lands_exactly_with_its_evidence; policy-take.md §5",
        doc="admits(policy, produced) = Lands ⇔ landing = Ordinary ∧ evidenced(admit, produced).",
    ),
    always(
        "an-experiment-never-lands",
        implies(
            and_(ADMITS, eq(out("landing"), EXPERIMENT)),
            eq(out("outcome"), Outcome.EXPERIMENT_NEVER_LANDS),
        ),
        cite="Mode.lean an_experiment_never_lands; policy-take.md §5 (Experiment always refused)",
        doc="An experiment gets the one fixed refusal, whatever it produced.",
    ),
    always(
        "the-mode-takes-no-part",
        implies(ADMITS, out("decides_in_other_mode")),
        cite="policy-take.md §5 (the mode takes no part); mode.rs admits doc",
        doc="Flip only the mode, and the same row, so the same outcome, decides.",
    ),
    always(
        "chat-never-runs-edit-or-exec",
        implies(
            and_(GATE, eq(out("mode"), CHAT), is_in(out("tool"), "edit", "exec")),
            not_(out("allowed")),
        ),
        cite="policy-take.md §6 (edit/exec in chat are refused before touching anything); "
        "mode.rs a_chat_run_is_refused_an_edit_and_the_disk_is_untouched",
    ),
    always(
        "a-tool-in-no-core-is-never-judged",
        implies(
            and_(GATE, not_(is_in(out("tool"), *TOOL_NAMES))),
            and_(out("allowed"), not_(out("judged"))),
        ),
        cite="policy-take.md §6 (a dormant tool reached via call is not judged here); "
        "mode.rs mode_admits",
    ),
    always(
        "an-answer-echoes-its-question",
        and_(
            implies(ADMITS, and_(*(eq(out(name), param(name)) for name in ECHO_ADMITS))),
            implies(GATE, and_(*(eq(out(name), param(name)) for name in ECHO_GATE))),
        ),
        cite="api.md (admits(policy, produced) and mode_admits(policy, name) answer about the "
        "policy and evidence they are given)",
        doc="The echoed inputs are the arguments of the call, read from the trigger, which no "
        "row writes: this keeps the echo outputs honest, so every property that reads them "
        "(the ones below and above) judges the question that was really asked.",
    ),
    always(
        "refusals-name-first-missing-evidence",
        implies(ADMITS, eq(out("outcome"), FIRST_MISSING)),
        cite="Mode.lean admits (Experiment first, then the requirement's evidence in order: "
        "Tested tests, ContractKept contract, DoubleValidated held-in then held-out); "
        "policy-take.md §5 table",
        doc="The answer is Lands, or the refusal naming the first piece of evidence missing, "
        "in the order Mode.lean checks them, computed from the echoed inputs.",
    ),
    always(
        "the-gate-judges-core-tools-by-mode",
        implies(
            GATE,
            and_(
                eq(out("judged"), is_in(out("tool"), *IN_SOME_CORE)),
                eq(
                    out("allowed"),
                    or_(
                        not_(out("judged")),
                        *(and_(eq(out("mode"), m), is_in(out("tool"), *CORES[m])) for m in Mode),
                    ),
                ),
            ),
        ),
        cite="policy-take.md §6 (mode_admits: a tool in no core passes unjudged; a core tool "
        "runs only in a mode whose core lists it); mode.rs mode_admits, core_tools",
    ),
    # Witnesses for the outcomes the match order makes subtle; rows-fire witnesses the rest.
    sometimes(
        "outcome-lands",
        and_(ADMITS, eq(out("outcome"), Outcome.LANDS)),
        cite="policy-take.md §5 table, 'lands iff' column",
    ),
    sometimes(
        "lean-example-no-tests",
        and_(
            ADMITS,
            eq(out("landing"), ORDINARY),
            eq(out("admit"), TESTED),
            is_none(out("tests_passed")),
            eq(out("contract_moved"), False),
            is_none(out("held_in")),
            is_none(out("held_out")),
            eq(out("outcome"), Outcome.NO_TESTS),
        ),
        cite="Mode.lean example (Ordinary, Tested, all none) → NoTests; policy-take.md §5",
    ),
    sometimes(
        "outcome-failed-held-out",
        and_(ADMITS, eq(out("outcome"), Outcome.FAILED_HELD_OUT)),
        cite="policy-take.md §5 table, DoubleValidated (held-in not failed, held-out failed)",
    ),
    sometimes(
        "outcome-half-missing",
        and_(ADMITS, eq(out("outcome"), Outcome.HALF_MISSING)),
        cite="policy-take.md §5 table, DoubleValidated (neither failed, one half missing)",
    ),
)

ADMITS_IGNORES_REQUIREMENT = Variant(
    "admits-ignores-requirement",
    doc="08b15b7f: admits(&RunPolicy, …) judged Ordinary as Standing, ignoring policy.admit, "
    "so every ordinary run landed.",
    cite="policy-take.md §9, commit 08b15b7f (fixed in e133ffb1)",
    violates=("lands-exactly-with-its-evidence",),
    remove=tuple(d.name for d in ADMITS_TABLE),
    add=decision_rows(IGNORES_REQUIREMENT_TABLE),
)

ADMISSION_SPEC = Spec(
    name="admission",
    source="seeds/mode.rs admits, mode_admits (Mode.lean §8-54, runtime D25)",
    doc=__doc__ or "",
    vars=(),
    triggers=(
        Trigger(
            "admits",
            (*POLICY_PARAMS, *PRODUCED_PARAMS),
            doc="admits(policy, produced): may what a run produced land?",
        ),
        Trigger(
            "mode_admits",
            # The gate reads only `policy.mode` (mode.rs `core_tools(policy.mode)`).
            (Param("mode", MODE), Param("tool", TOOL)),
            doc="mode_admits(policy, name), of which the gate reads only policy.mode",
        ),
    ),
    outputs=(
        # Echoes of the inputs, for the properties; on the other trigger's steps they hold
        # their defaults and mean nothing (every property names its trigger).
        Output("mode", MODE, CHAT),
        Output("admit", REQUIREMENT, STANDING),
        Output("landing", LANDING, ORDINARY),
        Output("tests_passed", Option(Bool()), None),
        Output("contract_moved", Bool(), False),
        Output("held_in", Option(Bool()), None),
        Output("held_out", Option(Bool()), None),
        Output("tool", TOOL, "call"),
        Output("outcome", Option(Finite.of_enum(Outcome)), None, doc="what admits answered"),
        Output(
            "decides_in_other_mode", Bool(), False, doc="the same row decides in the other mode"
        ),
        Output("allowed", Bool(), False, doc="mode_admits returned Ok"),
        Output("judged", Bool(), False, doc="the gate judged the tool (it is in some core)"),
    ),
    rows=(*decision_rows(ADMITS_TABLE), *GATE_ROWS),
    properties=ADMISSION_PROPERTIES,
    variants=(ADMITS_IGNORES_REQUIREMENT,),
)

SPECS = (POLICY_SPEC, POLICY_CONCRETE_SPEC, ADMISSION_SPEC)
