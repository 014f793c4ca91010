"""mutmut over models/kernel/, killed by the fast kernel tests (`make kernel-mutation`).

`make mutation` mutates impl/ with the [tool.mutmut] table of pyproject.toml;
this wrapper gives mutmut a second configuration without a second table: it
copies the tree mutmut needs into .cache/kernel-mutation/MODULE, one fresh
copy per module named on the command line (default: the ones holding the
checks), so no run reuses another's stale coverage; points mutmut's
configuration at that module and the fast kernel tests below (and the module's
own, for one those four do not exercise: MODULE_KILLERS), runs it, and prints
the module's kill rate from mutmut's own results. mutmut 3 runs, per
mutant, only the tests that call the mutated function. The random-spec
cross-check (tests/test_random_specs.py) is left out: it calls nearly every
kernel function and takes tens of seconds, so every surviving mutant would
cost that much.

    python tests/kernel_mutation.py [MODULE ...] [--max-children N]
    python tests/kernel_mutation.py MODULE --rerun   # survivors again, with today's tests
        # (and the mutants a stopped run left; today's MODULE: every mutant of a function
        # changed since is judged again)
    python tests/kernel_mutation.py MODULE --results --survivors   # rates, survivors' diffs
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".cache" / "kernel-mutation"
# The modules holding the checks, in the order the issue asks for them.
DEFAULT = ["checks", "vacuity", "explore", "expr", "oracle"]
# The fast kernel tests (seconds, no SPIN, no browser): mutmut's killers.
KILLERS = [
    "tests/test_checks_teeth.py",
    "tests/test_kernel.py",
    "tests/test_explore.py",
    "tests/test_expr_guards.py",
]
# The drawing tests, less two that cannot run in the copy.
DIAGRAMS = [
    "tests/test_diagrams.py",
    # One runs `python -m models` in a child process, which mutmut's trampolines break;
    # the other reads README.md, which the copy leaves out. Neither calls the kernel's drawing.
    "--deselect=tests/test_diagrams.py::test_output_is_identical_across_hash_seeds",
    "--deselect=tests/test_diagrams.py::test_the_readmes_mermaid_block_is_the_committed_policy_diagram",
]
# A module the four files above do not exercise gets its own fast tests as killers too
# (never the slow ones: SPIN agreement, the browser, the random specs, the real-timer waves).
MODULE_KILLERS = {
    "checks": [
        "tests/test_checks.py",
        "tests/test_results.py",
        "tests/test_readable.py",
        "tests/test_liveness.py",
        "tests/test_compose.py",
        "--deselect=tests/test_compose.py::test_spin_agrees_on_the_pair",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
    ],
    "expr": [
        "tests/test_expr.py",
        "tests/test_printer.py",
        "tests/test_spec.py",
        "tests/test_domains.py",
        "tests/test_values.py",
        "tests/test_liveness.py",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
    ],
    "files": ["tests/test_files.py", "tests/test_bad_input.py", "tests/test_interrupt.py"],
    "trace": ["tests/test_results.py", "tests/test_readable.py"],
    "values": ["tests/test_values.py", "tests/test_data.py", "tests/test_tracecheck.py"],
    "printer": ["tests/test_printer.py", "tests/test_readable.py", "tests/test_data.py"],
    "mermaid": [*DIAGRAMS, "tests/test_names.py", "tests/test_system_views.py"],
    "sequence": ["tests/test_sequence.py", "tests/test_system_views.py", *DIAGRAMS],
    "diagram": [
        *DIAGRAMS,
        # Each view rendered by dot (14 cases): the committed .dot they render are compared
        # text for text in-process, and the CLI's SVG test renders one.
        "--deselect=tests/test_diagrams.py::"
        "test_each_view_renders_every_reachable_state_and_greys_the_rest",
        "--deselect=tests/test_diagrams.py::test_each_svg_fits_and_no_font_is_below_9pt",
        "tests/test_diagram_pictures.py",
        "tests/test_diagram_cli.py",
        "tests/test_system_views.py",
        "tests/test_contrast.py",
        # the diff CLI runs in a child process; this one calls `compare` here.
        "tests/test_diff.py::test_compare_marks_each_added_changed_removed_gained_and_lost_part",
    ],
    "itf": [
        "tests/test_itf.py",
        "tests/test_tracecheck.py",
        "tests/test_results.py",
        "tests/test_names.py",
        "tests/test_data.py",
        "tests/test_compose.py",
        "tests/test_liveness.py",
    ],
    "liveness": [
        "tests/test_liveness.py",
        "tests/test_compose.py::test_a_system_takes_liveness_under_fairness_of_a_channel",
        # TLC's recorded verdicts on the ported protocols (SPIN's agreement is left out).
        "tests/test_protocols.py::test_liveness_holds_as_tlc_recorded",
        "tests/test_protocols.py::test_a_fair_process_is_fair_per_process",
        # The model mutants' fairness comparison reads the graph's moves too.
        "tests/test_mutants.py::test_fairness_decides_equivalence_when_the_steps_agree",
        "tests/test_mutants.py::test_a_liveness_operator_is_killed_by_a_confirmed_lasso",
    ],
    "domains": [
        "tests/test_domains.py",
        "tests/test_values.py",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
        "tests/test_itf.py",
        "tests/test_printer.py",
    ],
    "spec": [
        "tests/test_spec.py",
        "tests/test_names.py",
        "--deselect=tests/test_names.py::test_spin_agrees_on_every_awkward_name",
        "tests/test_compose.py",
        "--deselect=tests/test_compose.py::test_spin_agrees_on_the_pair",
        "tests/test_liveness.py",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
        "tests/test_registry.py",
    ],
    "compose": [
        "tests/test_compose.py",
        "--deselect=tests/test_compose.py::test_spin_agrees_on_the_pair",
        "tests/test_system_views.py",
        "tests/test_model_adr068.py",
    ],
    "readable": ["tests/test_readable.py", "tests/test_data.py", "tests/test_policy_concrete.py"],
    "explore": [
        "tests/test_liveness.py",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
        # TLC's exact state counts and deadlocks on the ported protocols (SPIN left out).
        "tests/test_protocols.py::test_state_count_is_tlcs",
        "tests/test_protocols.py::test_deadlock_as_tlc_checks_it",
        "tests/test_protocols.py::test_invariants_and_bounds_have_teeth",
    ],
    "mutants": [
        "tests/test_mutants.py",
        # duplex's whole samples take 10-13 s a run; policy's, kept, make the same comparison.
        "--deselect=tests/test_mutants.py::"
        "test_the_model_layer_finds_what_a_search_of_the_whole_graph_finds[duplex]",
        "--deselect=tests/test_mutants.py::"
        "test_the_compiled_search_of_a_large_graph_kills_as_the_listed_edges_do[duplex]",
        # It imports the drivers in a child process, which mutmut's trampolines break.
        "--deselect=tests/test_mutants.py::"
        "test_the_gate_finds_every_driver_without_importing_a_test_file",
        "tests/test_data.py::test_mutants_of_the_new_constructs",
    ],
    "promela": [
        "tests/test_promela.py",
        # SPIN's searches of the committed models (5 s): the models' text is compared without.
        "--deselect=tests/test_promela.py::"
        "test_spin_decides_the_lamps_liveness_as_the_explorer_does",
        "--deselect=tests/test_promela.py::test_spin_agrees_on_the_small_specs",
        # SPIN on one small spec each (the agreement over every spec is left out).
        "tests/test_spin.py::test_promela_refuses_real_arithmetic",
        "tests/test_spin.py::test_codes_cover_every_domain_shape",
        "tests/test_spin.py::test_an_update_out_of_range_is_an_error_not_a_wrap",
        "tests/test_spin.py::test_promela_command_errors",
        "tests/test_names.py::test_promela_keeps_apart_arguments_whose_joined_names_coincide",
        "tests/test_data.py::test_spin_agrees",
    ],
    "spin": [
        # SPIN on one small spec each: properties, liveness, deadlock, a trail read back.
        "tests/test_spin_small.py",
        "tests/test_promela.py",
        "tests/test_spin.py::test_codes_cover_every_domain_shape",
        "tests/test_spin.py::test_an_update_out_of_range_is_an_error_not_a_wrap",
        "tests/test_spin.py::test_spin_trail_reads_back_an_outside_pan_run",
        "tests/test_spin.py::test_spin_json_is_what_the_reports_summary_reads",
        "tests/test_spin.py::test_a_ctrl_c_does_not_wait_for_the_searches_under_way",
        "tests/test_data.py::test_spin_agrees",
        "tests/test_compose.py::test_spin_agrees_on_the_pair",
    ],
    "tracecheck": [
        "tests/test_tracecheck.py",
        # It runs `python -m models` in a child process, which mutmut's trampolines break.
        "--deselect=tests/test_tracecheck.py::"
        "test_malformed_input_prints_no_traceback_from_the_command_line",
        "tests/test_itf.py",
        "tests/test_names.py",
        "tests/test_compose.py",
        "tests/test_liveness.py",
    ],
    "smt": [
        "tests/test_smt.py",
        "tests/test_checks.py",
        "tests/test_budget.py",
        "tests/test_exhaustive.py",
        "tests/test_data.py",
        "--deselect=tests/test_data.py::test_spin_agrees",
        "tests/test_liveness.py",
        "tests/test_protocols.py::test_every_fixture_translates_to_z3",
        "tests/test_protocols.py::test_verify_passes_every_fixture",
        # The mutant gate's equivalence proofs and confirmed kills. Left out: a test that
        # runs a child process, and the two searches of duplex's whole graph (6 s each;
        # their policy cases run the same code).
        "tests/test_mutants.py",
        "--deselect=tests/test_mutants.py::"
        "test_the_gate_finds_every_driver_without_importing_a_test_file",
        "--deselect=tests/test_mutants.py::"
        "test_the_model_layer_finds_what_a_search_of_the_whole_graph_finds[duplex]",
        "--deselect=tests/test_mutants.py::"
        "test_the_compiled_search_of_a_large_graph_kills_as_the_listed_edges_do[duplex]",
    ],
}
COPY = ["models", "tests", "diagrams", "conftest.py", "pyproject.toml"]


def _config(module: str) -> dict[str, Any]:
    return {
        "source_paths": ["models/kernel/"],
        "only_mutate": [f"models/kernel/{module}.py"],
        "pytest_add_cli_args_test_selection": KILLERS + MODULE_KILLERS.get(module, []),
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q"],
        "also_copy": ["models", "tests", "diagrams", "conftest.py"],
    }


def _fresh(work: Path) -> None:
    """A clean copy of the sources, so mutmut starts with no stale coverage or results."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in COPY:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", ".hypothesis")
            shutil.copytree(source, work / name, ignore=ignore)
        else:
            shutil.copy2(source, work / name)
    # tests/test_protocols.py reads the TLA+ protocols two levels above its file, which in
    # mutmut's mutants/ folder is this copy.
    if (ROOT.parent / "shared").is_dir():
        (work / "shared").symlink_to(ROOT.parent / "shared")


def _meta(module: str) -> Path:
    return Path("mutants") / "models" / "kernel" / f"{module}.py.meta"


def _unkilled(codes: dict[str, int | None]) -> list[str]:
    from mutmut.stats import status_by_exit_code

    # "not checked": the mutants a stopped run left, judged now with today's tests.
    judge = ("survived", "no tests", "not checked")
    return [k for k, c in codes.items() if status_by_exit_code[c] in judge]


def _changed(old: Path, new: Path) -> list[str]:
    """The functions and methods of `new` that differ from (or are not in) `old`, named as
    mutmut names their mutants: `x_name`, `xǁClassǁname`."""

    def functions(path: Path) -> dict[str, str]:
        found = {}
        for top in ast.parse(path.read_text()).body:
            if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef):
                found[f"x_{top.name}"] = ast.dump(top)
            elif isinstance(top, ast.ClassDef):
                for f in top.body:
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
                        found[f"xǁ{top.name}ǁ{f.name}"] = ast.dump(f)
        return found

    before = functions(old)
    return [name for name, body in functions(new).items() if before.get(name) != body]


def _keep_earlier(module: str, earlier: dict[str, int | None]) -> None:
    """mutmut forgets the mutants a rerun skipped: their earlier verdicts go back in."""
    from mutmut.stats import status_by_exit_code

    meta = json.loads(_meta(module).read_text())
    codes = meta["exit_code_by_key"]
    for key, code in earlier.items():
        if status_by_exit_code[codes.get(key)] == "not checked":
            codes[key] = code
    _meta(module).write_text(json.dumps(meta, indent=4))


def _rate(module: str, survivors: bool) -> bool:
    """The module's counts from mutmut's results (in the current directory); True at ≥ 90%."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    meta = _meta(module)
    if not meta.exists():
        print(f"{module}.py: no results")
        return False
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    counts = Counter(status_by_exit_code[c] for c in codes.values())
    judged = counts["killed"] + counts["survived"] + counts["timeout"] + counts["no tests"]
    killed = counts["killed"] + counts["timeout"]
    rate = 100 * killed / judged if judged else 0.0
    print(
        f"{module}.py: {killed}/{judged} killed ({rate:.1f}%), "
        + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    )
    if survivors:
        for key, code in codes.items():
            if status_by_exit_code[code] == "survived":
                print(get_diff_for_mutant(key, path=Path(f"models/kernel/{module}.py")))
    return rate >= 90 and not counts["not checked"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=DEFAULT)
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--results", action="store_true", help="only print the rates")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    parser.add_argument(
        "--rerun", action="store_true", help="the last run's survivors again, with today's tests"
    )
    args = parser.parse_args()
    os.environ.setdefault("HYPOTHESIS_PROFILE", "mutation")
    if args.results or args.rerun:
        return 0 if all([_one(m, args) for m in args.modules]) else 1
    if len(args.modules) == 1:
        return 0 if _one(args.modules[0], args) else 1
    # mutmut keeps per-process state: each module in a process of its own.
    failed = [
        m
        for m in args.modules
        if subprocess.call(
            [sys.executable, __file__, m, f"--max-children={args.max_children}"]
            + ["--survivors"] * args.survivors
        )
    ]
    return 1 if failed else 0


def _one(module: str, args: argparse.Namespace) -> bool:
    work = WORK / module
    if not args.results and not args.rerun:
        _fresh(work)
    elif not work.exists():
        print(f"{module}.py: not run")
        return False
    os.chdir(work)
    sys.path.insert(0, str(work))
    import mutmut.configuration as configuration

    table = _config(module)
    configuration._config_reader = lambda: lambda key, default: table.get(key, default)
    if not args.results:
        from mutmut.__main__ import _run

        names: list[str] = []
        earlier: dict[str, int | None] = {}
        if args.rerun:
            # mutmut collects coverage for the tests it has not seen, then retries these.
            shutil.copytree(ROOT / "tests", work / "tests", dirs_exist_ok=True)
            earlier = json.loads(_meta(module).read_text())["exit_code_by_key"]
            names = _unkilled(earlier)
            # A function of the module changed since (a fix): today's source, and every
            # mutant of that function judged again (mutmut numbers them afresh).
            source = Path("models") / "kernel" / f"{module}.py"
            for changed in _changed(source, ROOT / source):
                prefix = f"models.kernel.{module}.{changed}__mutmut_"
                earlier = {k: c for k, c in earlier.items() if not k.startswith(prefix)}
                names.append(prefix + "*")
            shutil.copy2(ROOT / source, source)
            if not names:
                return _rate(module, args.survivors)
        try:
            _run(names, args.max_children)
        except SystemExit as stop:  # mutmut exits after its run; the rate is still to print
            if stop.code:
                raise
        finally:
            # Also when the rerun is stopped part way: mutmut cleared the earlier verdicts.
            if earlier:
                _keep_earlier(module, earlier)
    return _rate(module, args.survivors)


if __name__ == "__main__":
    sys.exit(main())
