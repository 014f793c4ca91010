"""Unit tests for `impl.mode`: the seed's tests ported, plus the doc's tables.

The admission table is checked exhaustively against an expectation written
from `docs/policy-take.md` §5, not from the implementation; the PolicyTake
walk is the seed's proptest oracle (§4) over all 32 policies.
"""

import itertools
from collections.abc import Callable
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from impl.mode import DEV_ENTRY
from impl.mode import TOOLS
from impl.mode import AdmissionRequirement
from impl.mode import AxCode
from impl.mode import AxError
from impl.mode import CatalogEntry
from impl.mode import LandingPolicy
from impl.mode import Lands
from impl.mode import Mode
from impl.mode import PolicyCell
from impl.mode import Produced
from impl.mode import Refused
from impl.mode import RunPolicy
from impl.mode import WriteLimit
from impl.mode import admits
from impl.mode import catalog_entry
from impl.mode import core_tools
from impl.mode import dev_entry
from impl.mode import in_some_core
from impl.mode import mode_admits
from impl.mode import policy_note

A = AdmissionRequirement
ALL_POLICIES = [
    RunPolicy(*combo) for combo in itertools.product(Mode, WriteLimit, A, LandingPolicy)
]


def work(admit: AdmissionRequirement) -> RunPolicy:
    return RunPolicy(Mode.WORK, WriteLimit.FULL, admit, LandingPolicy.ORDINARY)


# --- kernel enums and RunPolicy (§7) -----------------------------------------


def test_enums_have_the_kernel_strings_in_all_order() -> None:
    assert [m.value for m in Mode] == ["chat", "work"]
    assert [w.value for w in WriteLimit] == ["full", "create"]
    assert [a.value for a in A] == ["standing", "tested", "contract_kept", "double_validated"]
    assert [lp.value for lp in LandingPolicy] == ["ordinary", "experiment"]
    assert AxCode.GATE_DENIED.value == "E_GATE_DENIED"
    assert AxCode.OUTSIDE_WRITE_DOMAIN.value == "E_OUTSIDE_WRITE_DOMAIN"
    assert AxCode.INVALID_ARGS.value == "E_INVALID_ARGS"


def test_there_are_32_policies() -> None:
    assert len(set(ALL_POLICIES)) == 32


def test_run_policy_of_is_full_standing_ordinary() -> None:
    assert RunPolicy.of(Mode.CHAT) == RunPolicy(
        Mode.CHAT, WriteLimit.FULL, A.STANDING, LandingPolicy.ORDINARY
    )
    assert RunPolicy.of(Mode.WORK).mode is Mode.WORK


def test_run_policy_takes_wire_strings_and_rejects_what_the_kernel_rejects() -> None:
    policy = RunPolicy("work", "create", "tested", "experiment")
    assert policy.mode is Mode.WORK
    assert policy.write is WriteLimit.CREATE
    assert policy.admit is A.TESTED
    assert policy.landing is LandingPolicy.EXPERIMENT
    for bad in (
        ("plan_goal", "full", "standing", "ordinary"),
        ("chat", "none", "standing", "ordinary"),
        ("chat", "full", "none", "ordinary"),
        ("chat", "full", "standing", "merge"),
    ):
        with pytest.raises(ValueError):
            RunPolicy(*bad)


def test_run_policy_is_frozen() -> None:
    policy = RunPolicy.of(Mode.CHAT)
    with pytest.raises(AttributeError):
        policy.mode = Mode.WORK  # type: ignore[misc]


# --- PolicyTake: the seed's walk (§1, §4) -------------------------------------

Step = RunPolicy | Literal["wave", "call"]

policies = st.sampled_from(ALL_POLICIES)
steps: st.SearchStrategy[Step] = st.one_of(policies, st.just("wave"), st.just("call"))


def walk(start: RunPolicy, trace: list[Step]) -> None:
    """Each wave takes exactly the last arrival since the previous one (or
    nothing); each call sees the policy in force."""
    cell = PolicyCell(start)
    gate = cell.reader()
    in_force = start
    last_arrival: RunPolicy | None = None
    for step in trace:
        if step == "wave":
            taken = cell.take_at_wave()
            assert taken == last_arrival
            last_arrival = None
            in_force = in_force if taken is None else taken
        elif step == "call":
            assert gate.now() == in_force
        else:
            assert isinstance(step, RunPolicy)
            cell.arrive(step)
            last_arrival = step


@settings(deadline=None)
@given(start=policies, trace=st.lists(steps, max_size=24))
def test_policy_take_holds_on_every_trace(start: RunPolicy, trace: list[Step]) -> None:
    walk(start, trace)


def test_a_change_inside_a_wave_leaves_that_wave_alone() -> None:
    start = RunPolicy.of(Mode.WORK)
    tighter = RunPolicy(Mode.WORK, WriteLimit.CREATE, A.STANDING, LandingPolicy.ORDINARY)
    walk(start, ["call", tighter, "call"])


def test_upstream_shrink_of_the_write_through_variant() -> None:
    start = RunPolicy.of(Mode.CHAT)
    walk(
        start, [RunPolicy(Mode.CHAT, WriteLimit.FULL, A.STANDING, LandingPolicy.EXPERIMENT), "call"]
    )


def test_take_with_nothing_arrived_returns_none_and_changes_nothing() -> None:
    start = RunPolicy.of(Mode.CHAT)
    cell = PolicyCell(start)
    assert cell.take_at_wave() is None
    assert cell.reader().now() is start
    later = RunPolicy.of(Mode.WORK)
    cell.arrive(later)
    assert cell.take_at_wave() is later
    assert cell.take_at_wave() is None, "an arrival is taken once"
    assert cell.reader().now() is later


def test_the_last_arrival_wins_and_only_the_wave_puts_it_in_force() -> None:
    start = RunPolicy.of(Mode.CHAT)
    cell = PolicyCell(start)
    gate = cell.reader()
    first, second = ALL_POLICIES[5], ALL_POLICIES[9]
    cell.arrive(first)
    cell.arrive(second)
    assert gate.now() is start, "a reader never sees an untaken arrival"
    assert cell.take_at_wave() is second
    assert gate.now() is second
    assert cell.reader().now() is second, "every reader shares the one cell"


def test_take_returns_an_arrival_equal_to_the_policy_in_force() -> None:
    start = RunPolicy.of(Mode.WORK)
    cell = PolicyCell(start)
    cell.arrive(RunPolicy.of(Mode.WORK))
    assert cell.take_at_wave() == start


# --- admission (§5) ----------------------------------------------------------

Kind = Literal[
    "lands",
    "experiment_never_lands",
    "tests_failed",
    "no_tests",
    "contract_moved",
    "worse_held_in",
    "failed_held_out",
    "half_missing",
]
TRI: tuple[bool | None, ...] = (None, False, True)


def expected_kind(
    landing: LandingPolicy,
    admit: AdmissionRequirement,
    tests_passed: bool | None,
    contract_moved: bool,
    held_in: bool | None,
    held_out: bool | None,
) -> Kind:
    """The doc's table, written out independently of the implementation."""
    if landing == LandingPolicy.EXPERIMENT:
        return "experiment_never_lands"
    if admit == A.STANDING:
        return "lands"
    if admit == A.TESTED:
        if tests_passed is True:
            return "lands"
        return "tests_failed" if tests_passed is False else "no_tests"
    if admit == A.CONTRACT_KEPT:
        return "contract_moved" if contract_moved else "lands"
    if held_in is True and held_out is True:
        return "lands"
    if held_in is False:
        return "worse_held_in"
    if held_out is False:
        return "failed_held_out"
    return "half_missing"


def canonical_refusals() -> dict[Kind, Refused]:
    """One representative input per refusal kind, asked of the implementation."""
    refusals: dict[Kind, Refused] = {}
    cases: dict[Kind, tuple[RunPolicy, Produced]] = {
        "experiment_never_lands": (
            RunPolicy(Mode.WORK, WriteLimit.FULL, A.STANDING, LandingPolicy.EXPERIMENT),
            Produced(),
        ),
        "tests_failed": (work(A.TESTED), Produced(tests_passed=False)),
        "no_tests": (work(A.TESTED), Produced()),
        "contract_moved": (work(A.CONTRACT_KEPT), Produced(contract_moved=True)),
        "worse_held_in": (work(A.DOUBLE_VALIDATED), Produced(held_in=False)),
        "failed_held_out": (work(A.DOUBLE_VALIDATED), Produced(held_out=False)),
        "half_missing": (work(A.DOUBLE_VALIDATED), Produced()),
    }
    for kind, (policy, produced) in cases.items():
        verdict = admits(policy, produced)
        assert isinstance(verdict, Refused), kind
        refusals[kind] = verdict
    return refusals


def test_the_seven_refusals_are_distinct_and_say_what_the_seed_pins() -> None:
    refusals = canonical_refusals()
    assert len({r.because for r in refusals.values()}) == 7
    assert len({r.alternative for r in refusals.values()}) == 7
    assert all(r.because and r.alternative for r in refusals.values())
    assert "no tests" in refusals["no_tests"].because
    assert "did not pass" in refusals["tests_failed"].because
    assert "no tests" not in refusals["tests_failed"].because, "not the untested sentence"
    assert "double_validated" in refusals["contract_moved"].alternative
    assert "held-out" in refusals["failed_held_out"].because
    assert "held-out" not in refusals["worse_held_in"].because
    assert "held-out" not in refusals["half_missing"].because


def test_the_whole_admission_table() -> None:
    refusals = canonical_refusals()
    count = 0
    for mode, write, admit, landing, tests, moved, held_in, held_out in itertools.product(
        Mode, WriteLimit, A, LandingPolicy, TRI, (False, True), TRI, TRI
    ):
        policy = RunPolicy(mode, write, admit, landing)
        produced = Produced(tests, moved, held_in, held_out)
        kind = expected_kind(landing, admit, tests, moved, held_in, held_out)
        want = Lands() if kind == "lands" else refusals[kind]
        assert admits(policy, produced) == want, (policy, produced, kind)
        count += 1
    assert count == 4 * 432, "every mode and write limit over the 432 inputs"


def test_lands_exactly_with_its_evidence() -> None:
    landed = [
        (admit, tests, moved, held_in, held_out)
        for admit, tests, moved, held_in, held_out in itertools.product(
            A, TRI, (False, True), TRI, TRI
        )
        if admits(work(admit), Produced(tests, moved, held_in, held_out)) == Lands()
    ]
    # standing: all 54; tested: 18 with tests True; contract_kept: 27 unmoved;
    # double_validated: 6 with both halves True.
    assert len(landed) == 54 + 18 + 27 + 6


def test_a_work_run_without_the_evidence_it_chose_does_not_land() -> None:
    verdict = admits(work(A.TESTED), Produced())
    assert isinstance(verdict, Refused)
    assert "no tests" in verdict.because


def test_standing_adds_nothing_in_either_mode() -> None:
    for mode in Mode:
        assert admits(RunPolicy.of(mode), Produced()) == Lands()


def test_tested_wants_the_asset_proven_and_says_which_way_it_failed() -> None:
    failed = admits(work(A.TESTED), Produced(tests_passed=False))
    assert isinstance(failed, Refused)
    assert "did not pass" in failed.because
    assert admits(work(A.TESTED), Produced(tests_passed=True)) == Lands()


def test_contract_kept_refuses_a_renovation_that_moved_the_contract() -> None:
    assert admits(work(A.CONTRACT_KEPT), Produced()) == Lands()
    moved = admits(work(A.CONTRACT_KEPT), Produced(contract_moved=True))
    assert isinstance(moved, Refused)
    assert "double_validated" in moved.alternative


def test_double_validated_takes_nothing_on_confidence_in_the_seed_order() -> None:
    policy = work(A.DOUBLE_VALIDATED)
    refusals = canonical_refusals()
    assert admits(policy, Produced(held_in=True, held_out=True)) == Lands()
    for missing in (Produced(held_in=True), Produced(held_out=True), Produced()):
        assert admits(policy, missing) == refusals["half_missing"]
    # A held-in failure outranks a held-out failure, which outranks a gap.
    assert admits(policy, Produced(held_in=False, held_out=False)) == refusals["worse_held_in"]
    assert admits(policy, Produced(held_in=False)) == refusals["worse_held_in"]
    assert admits(policy, Produced(held_in=None, held_out=False)) == refusals["failed_held_out"]
    regressed = admits(policy, Produced(held_in=True, held_out=False))
    assert regressed == refusals["failed_held_out"]
    assert isinstance(regressed, Refused)
    assert "held-out" in regressed.because


def test_an_experiment_lands_nothing_however_well_it_went() -> None:
    excellent = Produced(tests_passed=True, contract_moved=False, held_in=True, held_out=True)
    verdicts = {
        admits(RunPolicy(mode, write, admit, LandingPolicy.EXPERIMENT), produced)
        for mode, write, admit in itertools.product(Mode, WriteLimit, A)
        for produced in (excellent, Produced())
    }
    assert len(verdicts) == 1, "one fixed refusal"
    assert isinstance(verdicts.pop(), Refused)


def test_mode_and_write_take_no_part() -> None:
    for admit, landing, tests, moved, held_in, held_out in itertools.product(
        A, LandingPolicy, TRI, (False, True), TRI, TRI
    ):
        produced = Produced(tests, moved, held_in, held_out)
        verdicts = {
            admits(RunPolicy(mode, write, admit, landing), produced)
            for mode, write in itertools.product(Mode, WriteLimit)
        }
        assert len(verdicts) == 1, (admit, landing, produced)


def test_produced_defaults_mean_nothing_was_measured() -> None:
    assert Produced() == Produced(None, False, None, None)


# --- D25: core tools and the mode gate (§6) -----------------------------------


def test_core_tools_are_exact_and_ordered() -> None:
    assert core_tools(Mode.CHAT) == ("call", "describe", "read", "search", "status")
    assert core_tools(Mode.WORK) == (
        "call",
        "describe",
        "edit",
        "exec",
        "read",
        "search",
        "status",
    )
    assert core_tools(Mode.WORK) == TOOLS


def test_in_some_core_is_the_union_and_matches_exactly() -> None:
    for name in TOOLS:
        assert in_some_core(name), name
    for name in ("Edit", "EXEC", "plan", "", "edit "):
        assert not in_some_core(name), name


def test_chat_refuses_edit_and_exec_with_the_gate_code() -> None:
    chat = RunPolicy.of(Mode.CHAT)
    for name in ("edit", "exec"):
        with pytest.raises(AxError) as caught:
            mode_admits(chat, name)
        err = caught.value
        assert err.code is AxCode.GATE_DENIED
        assert err.action == f"run {name}"
        assert err.subject == f"{name} does not run in chat mode"
        assert "conversation" in err.recovery
        assert "work mode" in err.recovery
        assert str(err) == f"E_GATE_DENIED: cannot run {name} on {name} does not run in chat mode"


def test_chat_admits_its_own_core_and_work_admits_every_tool() -> None:
    for policy in ALL_POLICIES:
        for name in core_tools(policy.mode):
            mode_admits(policy, name)
    for policy in ALL_POLICIES:
        if policy.mode is Mode.WORK:
            for name in TOOLS:
                mode_admits(policy, name)


def test_the_gate_does_not_judge_tools_outside_every_core() -> None:
    for policy in ALL_POLICIES:
        for name in ("Edit", "EXEC", "plan", "fetch"):
            mode_admits(policy, name)


def test_ax_error_renders_code_action_subject() -> None:
    err = AxError(AxCode.OUTSIDE_WRITE_DOMAIN, "edit work/a.md", "an existing file", "create one")
    assert isinstance(err, Exception)
    assert str(err) == "E_OUTSIDE_WRITE_DOMAIN: cannot edit work/a.md on an existing file"
    assert err.recovery == "create one"


# --- policy note and catalog (§7) ---------------------------------------------


def test_policy_note_is_one_sentence_naming_the_four_values() -> None:
    for policy in ALL_POLICIES:
        note = policy_note(policy)
        for needle in (
            f"mode {policy.mode.value}",
            f"write {policy.write.value}",
            f"admission {policy.admit.value}",
            f"landing {policy.landing.value}",
        ):
            assert needle in note, (needle, note)
        assert "\n" not in note
        assert note.endswith(".")
        assert note.count(".") == 1
        assert "User" in note
    assert len({policy_note(p) for p in ALL_POLICIES}) == 32


def test_chat_is_one_line_about_the_conversation() -> None:
    entry = catalog_entry(Mode.CHAT)
    assert entry.name == "mode:chat"
    assert "convers" in entry.disclosure
    assert "\n" not in entry.disclosure, "one line"
    assert entry.expansion, "a read of the entry says something"
    assert catalog_entry(Mode.WORK).name == "mode:work"


def test_catalog_rows_carry_no_hash_or_package() -> None:
    work_entry = catalog_entry(Mode.WORK)
    assert "\n" not in work_entry.disclosure
    assert work_entry.expansion and work_entry.disclosure != catalog_entry(Mode.CHAT).disclosure
    for entry in (catalog_entry(Mode.CHAT), work_entry, dev_entry()):
        assert entry.hash is None
        assert entry.package is None
    assert CatalogEntry("n", "d", "e") == CatalogEntry("n", "d", "e", None, None)


def test_dev_entry_is_one_line_opening_the_discipline() -> None:
    entry = dev_entry()
    assert DEV_ENTRY == "dev"
    assert entry.name == DEV_ENTRY
    assert "\n" not in entry.disclosure
    for word in ("SPEC", "tested", "contract_kept", "double_validated", "held-out", "experiment"):
        assert word in entry.expansion, word


# --- argument types ----------------------------------------------------------


def test_public_doors_reject_the_wrong_types_by_name() -> None:
    policy = RunPolicy.of(Mode.CHAT)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: PolicyCell("chat"), "start must be RunPolicy, got str"),  # type: ignore[arg-type]
        (lambda: admits("chat", Produced()), "policy must be RunPolicy, got str"),  # type: ignore[arg-type]
        (lambda: admits(policy, None), "produced must be Produced, got NoneType"),  # type: ignore[arg-type]
        (lambda: mode_admits(None, "edit"), "policy must be RunPolicy, got NoneType"),  # type: ignore[arg-type]
        (lambda: mode_admits(policy, 3), "name must be str, got int"),  # type: ignore[arg-type]
        (lambda: core_tools(1), "mode must be Mode or str, got int"),  # type: ignore[arg-type]
        (lambda: catalog_entry(None), "mode must be Mode or str, got NoneType"),  # type: ignore[arg-type]
        (lambda: in_some_core(b"edit"), "name must be str, got bytes"),  # type: ignore[arg-type]
        (lambda: RunPolicy(1, "full", "standing", "ordinary"), "mode must be Mode or str, got int"),  # type: ignore[arg-type]
        (lambda: Produced(tests_passed="yes"), "tests_passed must be bool or None, got str"),  # type: ignore[arg-type]
        (lambda: Produced(contract_moved=None), "contract_moved must be bool, got NoneType"),  # type: ignore[arg-type]
        (lambda: Produced(held_in=1), "held_in must be bool or None, got int"),  # type: ignore[arg-type]
        (lambda: Produced(held_out=0.0), "held_out must be bool or None, got float"),  # type: ignore[arg-type]
        (lambda: policy_note(Produced()), "policy must be RunPolicy, got Produced"),  # type: ignore[arg-type]
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value) == message


def test_a_mode_may_be_given_by_its_wire_string_as_in_run_policy() -> None:
    assert core_tools("chat") == core_tools(Mode.CHAT)
    assert catalog_entry("work") == catalog_entry(Mode.WORK)
    assert RunPolicy("chat", "full", "standing", "ordinary") == RunPolicy.of(Mode.CHAT)
    for call in (lambda: core_tools("plan"), lambda: RunPolicy.of("plan")):
        with pytest.raises(ValueError) as caught:
            call()
        assert str(caught.value) == "mode must be one of 'chat', 'work', got 'plan'"


def test_a_rejected_arrival_leaves_the_cell_alone() -> None:
    cell = PolicyCell(RunPolicy.of(Mode.CHAT))
    with pytest.raises(TypeError) as caught:
        cell.arrive(RunPolicy.of(Mode.WORK).mode)  # type: ignore[arg-type]
    assert str(caught.value) == "policy must be RunPolicy, got Mode"
    assert cell.take_at_wave() is None
