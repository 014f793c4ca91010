"""Run modes, the run-policy cell and admission: a hand port of `seeds/mode.rs`.

A run sits in one mode (chat or work) under one `RunPolicy`. This module says
which resident tools that mode may run, holds the policy in force for a run,
and decides whether what a run produced may land. It covers, in
`docs/policy-take.md`:

- §1/§4 the PolicyTake model: `PolicyCell` puts the last arrival in force at
  BeforeWave and nowhere else (`a_change_inside_a_wave_leaves_that_wave_alone`,
  `the_next_wave_takes_the_last_change`);
- §5 admission (`Mode.lean`: `lands_exactly_with_its_evidence`,
  `an_experiment_never_lands`);
- §6 D25 core tools and the mode gate;
- §7 the kernel enums, catalog rows and the policy note;
- §8 the `AxError` rendering.

The public names are fixed by `docs/api.md`. The prose is this project's own;
only the fragments the seed's tests pin are load-bearing.
"""

import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING
from typing import TypeAlias

from ._args import expect as _expect
from ._args import expect_optional_bool
from ._args import member

# --- §7 kernel enums: member order is the kernel's `ALL` order ---------------


class Mode(StrEnum):
    CHAT = "chat"
    WORK = "work"


class WriteLimit(StrEnum):
    FULL = "full"
    CREATE = "create"


class AdmissionRequirement(StrEnum):
    STANDING = "standing"
    TESTED = "tested"
    CONTRACT_KEPT = "contract_kept"
    DOUBLE_VALIDATED = "double_validated"


class LandingPolicy(StrEnum):
    ORDINARY = "ordinary"
    EXPERIMENT = "experiment"


# --- §8 errors ---------------------------------------------------------------


class AxCode(StrEnum):
    """The kernel error codes this module and its callers raise."""

    GATE_DENIED = "E_GATE_DENIED"
    OUTSIDE_WRITE_DOMAIN = "E_OUTSIDE_WRITE_DOMAIN"
    INVALID_ARGS = "E_INVALID_ARGS"


class AxError(Exception):
    """A refused action: what was refused, on what, and what to do instead."""

    def __init__(self, code: AxCode, action: str, subject: str, recovery: str) -> None:
        super().__init__(f"{code}: cannot {action} on {subject}")
        self.code = code
        self.action = action
        self.subject = subject
        self.recovery = recovery

    def __reduce__(self) -> tuple[type["AxError"], tuple[AxCode, str, str, str]]:
        # Pickle and copy by the constructor's arguments (Exception's default passes only
        # the message), so a refusal crosses a ProcessPoolExecutor.
        return (type(self), (self.code, self.action, self.subject, self.recovery))


# --- the run policy ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunPolicy:
    """The four choices a run is dispatched under (§7)."""

    # Annotated as the members they hold; the constructor also takes their wire strings
    # (`RunPolicy("chat", "full", "standing", "ordinary")`), and `__init__`'s signature says so.
    mode: Mode
    write: WriteLimit
    admit: AdmissionRequirement
    landing: LandingPolicy

    if TYPE_CHECKING:

        def __init__(
            self,
            mode: Mode | str,
            write: WriteLimit | str,
            admit: AdmissionRequirement | str,
            landing: LandingPolicy | str,
        ) -> None: ...

    def __post_init__(self) -> None:
        # Wire strings become members; a value the kernel rejects on input
        # ("plan_goal", "none", "merge") raises ValueError here, a non-string TypeError.
        object.__setattr__(self, "mode", member(self.mode, Mode, "mode"))
        object.__setattr__(self, "write", member(self.write, WriteLimit, "write"))
        object.__setattr__(self, "admit", member(self.admit, AdmissionRequirement, "admit"))
        object.__setattr__(self, "landing", member(self.landing, LandingPolicy, "landing"))

    @classmethod
    def of(cls, mode: Mode | str) -> "RunPolicy":
        """The default policy for `mode`: full writes, standing, ordinary."""
        return cls(mode, WriteLimit.FULL, AdmissionRequirement.STANDING, LandingPolicy.ORDINARY)


class PolicyCell:
    """The policy in force for one run (§4, runtime D28).

    One writer (the driver loop) and many readers (the write gates). An
    arrival waits until `take_at_wave`, so every call of one wave is judged
    under the policy in force when the wave began.
    """

    def __init__(self, start: RunPolicy) -> None:
        _expect(start, RunPolicy, "start")
        # Rust's `&mut self` made the writer unique; here a lock does.
        self._lock = threading.Lock()
        # One attribute holding a frozen value: a reader's load is atomic.
        self._in_force = start
        self._arrived: RunPolicy | None = None

    def reader(self) -> "PolicyReader":
        """A read-only view of the policy in force, for a write gate."""
        return PolicyReader(self)

    def arrive(self, policy: RunPolicy) -> None:
        """A change reached the run; it waits for BeforeWave, a later one overrides it."""
        _expect(policy, RunPolicy, "policy")
        with self._lock:
            self._arrived = policy

    def take_at_wave(self) -> RunPolicy | None:
        """At BeforeWave: put the last arrival in force and return it for the note.

        `None`, and nothing changes, when nothing arrived. An arrival equal to
        the policy in force is still returned: the User asked, so the note goes.
        """
        with self._lock:
            taken, self._arrived = self._arrived, None
            if taken is not None:
                self._in_force = taken
            return taken


class PolicyReader:
    """What a write gate holds: the policy in force, never an untaken arrival."""

    def __init__(self, cell: PolicyCell) -> None:
        _expect(cell, PolicyCell, "cell")
        self._cell = cell

    def now(self) -> RunPolicy:
        """The policy in force now; asked once per write."""
        return self._cell._in_force


def policy_note(policy: RunPolicy) -> str:
    """The note appended after a wave that took a change.

    It is the only place the write limit is spelled to the model, so the
    frozen prefix and tool descriptions keep their bytes (§2).
    """
    _expect(policy, RunPolicy, "policy")
    return (
        f"The User has set a new policy for this run, in force from the next tool call:"
        f" mode {policy.mode.value}, write {policy.write.value},"
        f" admission {policy.admit.value}, landing {policy.landing.value}."
    )


# --- §5 admission ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Produced:
    """What a run has to show for itself.

    `None` means "never measured" and is not `False` ("measured and failed"):
    treating them alike would let an unchecked run pass as a checked one.
    """

    tests_passed: bool | None = None
    contract_moved: bool = False
    held_in: bool | None = None
    held_out: bool | None = None

    def __post_init__(self) -> None:
        # `admits` reads these as truth values: "no" or 0 must not pass for a verdict.
        expect_optional_bool(self.tests_passed, "tests_passed")
        _expect(self.contract_moved, bool, "contract_moved")
        expect_optional_bool(self.held_in, "held_in")
        expect_optional_bool(self.held_out, "held_out")


@dataclass(frozen=True, slots=True)
class Lands:
    """What was produced may be merged."""


@dataclass(frozen=True, slots=True)
class Refused:
    """What was produced may not be merged: why, and what to do instead."""

    because: str
    alternative: str


Admission: TypeAlias = Lands | Refused

# The seven refusals of the Lean `Refusal` type, one fixed value each.
_EXPERIMENT_NEVER_LANDS = Refused(
    because="this run was dispatched as an experiment, and an experiment merges nothing",
    alternative="note what the experiment showed, then ask for the work again"
    " with the ordinary landing",
)
_TESTS_FAILED = Refused(
    because="the asset's own test run did not pass",
    alternative="repair the asset or its test, then offer the change again",
)
_NO_TESTS = Refused(
    because="there are no tests of the asset's own to vouch for it",
    alternative="add a test that would fail if the asset broke, run it, and offer the change again",
)
_CONTRACT_MOVED = Refused(
    because="the change moved the asset's observable contract",
    alternative="renovate behind the contract as it stands, or ask for the work again"
    " under double_validated with held-out evidence",
)
_WORSE_HELD_IN = Refused(
    because="the change made things worse on the held-in evidence",
    alternative="rework it: a change that loses ground where it was built is not adopted",
)
_FAILED_HELD_OUT = Refused(
    because="the change did not hold up on the held-out evidence",
    alternative="a gain seen only where it was built is fitting, not ability;"
    " rework it and measure again",
)
_HALF_MISSING = Refused(
    because="one of the two validation runs was never made",
    alternative="measure on both the held-in and the held-out sets; confidence adopts nothing",
)


def admits(policy: RunPolicy, produced: Produced) -> Admission:
    """Whether what a run produced may land under the policy it ran with.

    The landing is asked first, then the requirement; the mode and write
    limit take no part (`lands_exactly_with_its_evidence`).
    """
    _expect(policy, RunPolicy, "policy")
    _expect(produced, Produced, "produced")
    if policy.landing is LandingPolicy.EXPERIMENT:
        return _EXPERIMENT_NEVER_LANDS
    match policy.admit:
        case AdmissionRequirement.STANDING:
            # The building's own checks were made where they are made.
            return Lands()
        case AdmissionRequirement.TESTED:
            if produced.tests_passed is None:
                return _NO_TESTS
            return Lands() if produced.tests_passed else _TESTS_FAILED
        case AdmissionRequirement.CONTRACT_KEPT:
            return _CONTRACT_MOVED if produced.contract_moved else Lands()
        case AdmissionRequirement.DOUBLE_VALIDATED:
            # The seed's match order: a held-in failure outranks a held-out one,
            # and either outranks a missing half.
            if produced.held_in is False:
                return _WORSE_HELD_IN
            if produced.held_out is False:
                return _FAILED_HELD_OUT
            return Lands() if produced.held_in and produced.held_out else _HALF_MISSING


# --- §6 D25: core tools and the mode gate ------------------------------------

CALL = "call"
DESCRIBE = "describe"
EDIT = "edit"
EXEC = "exec"
READ = "read"
SEARCH = "search"
STATUS = "status"
TOOLS: tuple[str, ...] = (CALL, DESCRIBE, EDIT, EXEC, READ, SEARCH, STATUS)

# `call` and `describe` are the two doors to dormant tools, so every mode has
# them; `status` is where the city prompt sends every resident. Chat answers
# and reads; work also edits and runs commands.
_CORES: dict[Mode, tuple[str, ...]] = {
    Mode.CHAT: (CALL, DESCRIBE, READ, SEARCH, STATUS),
    Mode.WORK: TOOLS,
}

_GATE_RECOVERY = "answer in the conversation, or ask the User to switch this run to work mode"


def core_tools(mode: Mode | str) -> tuple[str, ...]:
    """The resident tools a run in `mode` (a Mode or its string) may run, in catalog order."""
    return _CORES[member(mode, Mode, "mode")]


def in_some_core(name: str) -> bool:
    """Whether `name` travels in every request: the tool table is the union of
    the cores, so a mode change leaves the sent bytes alone (D25)."""
    _expect(name, str, "name")
    return any(name in core for core in _CORES.values())


def mode_admits(policy: RunPolicy, name: str) -> None:
    """Refuse, before it does anything, a core tool the mode in force does not run.

    A tool in no core is reached through `call` and is not judged here.
    """
    _expect(policy, RunPolicy, "policy")
    _expect(name, str, "name")
    if in_some_core(name) and name not in core_tools(policy.mode):
        raise AxError(
            AxCode.GATE_DENIED,
            f"run {name}",
            f"{name} does not run in {policy.mode.value} mode",
            _GATE_RECOVERY,
        )


# --- §7 catalog rows ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One catalog row: a resident one-liner and the text a read expands to."""

    name: str
    disclosure: str
    expansion: str
    # Text this build holds has no document behind it to change, so no hash.
    hash: str | None = None
    package: str | None = None


DEV_ENTRY = "dev"

# Progressive disclosure: a run sees only its own mode's row.
_MODE_ENTRIES: dict[Mode, CatalogEntry] = {
    Mode.CHAT: CatalogEntry(
        name="mode:chat",
        disclosure="chat mode: you are in a conversation with the User;"
        " reply to what they said, in the language they used",
        expansion="Answer in the conversation itself. Begin work, plans or dispatches"
        " only when the User asks for them.",
    ),
    Mode.WORK: CatalogEntry(
        name="mode:work",
        disclosure="work mode: carry the task through to its stated goal,"
        " then report that the goal is met",
        expansion="If the task asks for a plan first, write the plan down before changing"
        " anything, then follow it. Finish by reporting what you did and the evidence"
        " that the goal is met.",
    ),
}

# The one row that tells a run this city's own code may change: without it
# the capability is never learnt, and so never used. One resident line, the
# discipline behind the expansion.
_DEV = CatalogEntry(
    name=DEV_ENTRY,
    disclosure="open this entry before you change this city's own code, SPECs or tools",
    expansion="Each component of this city keeps its SPEC beside it, at"
    " `crates/<crate>/<crate>-SPEC.md`. Before changing anything, read the SPEC, then the"
    " code, then the tests beside the code, in that order. If the code is to differ from"
    " the SPEC, the SPEC is changed first, with the reason.\n\n"
    "The User decides what a change must show before it is merged:\n"
    "- tested: the asset's own tests were run and passed.\n"
    "- contract_kept: the asset's observable contract stayed where it was.\n"
    "- double_validated: the change holds on held-in and on held-out evidence.\n"
    "The User also decides where it lands: ordinary work is merged the building's own way,"
    " while an experiment works in a tree of its own and nothing in it is merged.\n\n"
    "Next: say which evidence this work needs and why, then wait for the User to dispatch"
    " it with that requirement. Naming a requirement does not supply its evidence.",
)


def catalog_entry(mode: Mode | str) -> CatalogEntry:
    """The catalog row for `mode` (a Mode or its string); the chat row is all chat mode says."""
    return _MODE_ENTRIES[member(mode, Mode, "mode")]


def dev_entry() -> CatalogEntry:
    """The row that opens the developer discipline."""
    return _DEV
