"""The README is enough, and stays true: its example spec and its sample outputs are tested.

- The first screen is a newcomer's, in order; its two commands are the
  Makefile's, the packages it says `make test` may install are the Makefile's,
  and its exit codes are the CLI's (`python -m models --help`).
- The `impl` example runs and prints what the README shows.
- The "Adding a spec" example (model, implementation, driver, conformance test)
  is taken from the README's text, built, verified, replayed and run in lockstep.
- Every `<!-- sample -->` output is what the current code prints
  (`python tests/readme_samples.py --update` rewrites them).
- Every relative link resolves inside a clone.
"""

from __future__ import annotations

import re
import subprocess
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
import readme_samples
from hypothesis import settings

from conformance.harness import COVERAGE
from models.cli import kit
from models.kernel.checks import verify

TEXT = readme_samples.README.read_text()
EXAMPLE = re.compile(r"<!-- readme-example: ([\w/]+)\.py -->\n```python\n(.*?)```\n", re.S)
OUTPUT = re.compile(r"<!-- readme-example-output: ([\w/]+)\.py -->\n```\n(.*?)```\n", re.S)


def example(path: str) -> str:
    found = {m.group(1): m.group(2) for m in EXAMPLE.finditer(TEXT)}
    assert path in found, f"README has no example {path}.py; it has {sorted(found)}"
    return found[path]


@pytest.fixture
def turnstile() -> Iterator[dict[str, Any]]:
    """The README's example as importable modules `models.turnstile` and `impl.turnstile`."""
    made: dict[str, Any] = {}
    for name in ("models/turnstile", "impl/turnstile", "conformance/drivers/turnstile"):
        dotted = name.replace("/", ".")
        module = types.ModuleType(dotted)
        sys.modules[dotted] = module  # `from models import turnstile` finds it here
        exec(compile(example(name), f"README.md:{name}.py", "exec"), module.__dict__)
        made[dotted] = module
    yield made
    for dotted in made:
        sys.modules.pop(dotted, None)
    for kind in COVERAGE.values():
        kind.pop("turnstile", None)


def test_the_example_spec_verifies_and_its_variant_fails(turnstile: dict[str, Any]) -> None:
    (spec,) = turnstile["models.turnstile"].SPECS
    report = verify(spec)
    assert report.ok, [(c.id, c.verdict, c.detail) for c in report.checks if not c.ok]
    assert {c.id for c in report.checks} >= {p.name for p in spec.properties}
    (variant,) = spec.variants
    faulty = verify(spec.with_variant(variant.name))
    assert faulty.ok  # its checks are expected to be violated, and are
    assert [c.verdict for c in faulty.checks if c.expected == "violate"] == ["violated"]


def test_the_example_driver_replays_every_row_and_runs_in_lockstep(
    turnstile: dict[str, Any],
) -> None:
    test = types.ModuleType("test_turnstile")
    source = example("conformance/test_turnstile")
    exec(compile(source, "README.md:conformance/test_turnstile.py", "exec"), test.__dict__)
    assert test.DRIVER is turnstile["conformance.drivers.turnstile"].DRIVER
    for row in turnstile["models.turnstile"].SPEC.rows:
        test.replay_row(test.DRIVER, row.name)
    small = settings(max_examples=30, stateful_step_count=20, derandomize=True, database=None)
    coverage = test.run_lockstep(test.DRIVER, small)  # what the README's test_lockstep runs
    assert coverage.hits  # and run_lockstep required every trigger to be driven
    assert callable(test.test_lockstep) and callable(test.test_replay_row_witness)


@pytest.mark.parametrize(
    "sample", readme_samples.samples(TEXT), ids=lambda s: s.command.removeprefix("python -m ")
)
def test_a_sample_output_is_what_the_code_prints(sample: readme_samples.Sample) -> None:
    now = readme_samples.produce(sample.command)
    assert readme_samples.normal(now) == readme_samples.normal(sample.shown), (
        "the README's sample is stale: run `.venv/bin/python tests/readme_samples.py --update`"
    )


def test_relative_links_resolve_in_a_clone() -> None:
    root = readme_samples.ROOT
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXT):
        if "://" not in target:
            assert (root / target).exists(), f"README links to {target}, not in the repository"
    assert "../shared/seeds" in TEXT and "SEEDS_DIR" in TEXT


def test_the_impl_example_prints_what_the_readme_shows() -> None:
    shown = {m.group(1): m.group(2) for m in OUTPUT.finditer(TEXT)}["examples/use_impl"]
    done = subprocess.run(
        [sys.executable, "-c", example("examples/use_impl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == shown


# The first screen: these sections, in this order, before the table of contents.
FIRST_SCREEN = (
    "# statecheck",
    "## Where the seeds live",
    "## The two commands",
    "## The command line: `python -m models`",
    "## Using `impl` as a library",
    "## Contents",
)


def _first_screen() -> str:
    at = [TEXT.index(f"\n{h}") if i else TEXT.index(h) for i, h in enumerate(FIRST_SCREEN)]
    assert at == sorted(at), "the first screen's sections are out of order"
    return TEXT[: at[-1]]


def test_the_first_screen_names_the_makefiles_two_commands_and_installs() -> None:
    screen = _first_screen()
    assert "SEEDS_DIR" in screen and "../shared/seeds" in screen
    makefile = (readme_samples.ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w.-]+):", makefile, re.M))
    commands = re.findall(r"^make (\w+)\s+#", screen, re.M)
    assert commands == ["test", "verify"] and set(commands) <= targets
    for command in commands:
        assert f"| `make {command}` | about " in screen, f"how long `make {command}` takes"
    # Every Debian package a `$(call needs,…)` line may install is named on the first screen.
    needs = re.findall(r"^\t\$\(call needs,[^,]*,([^,]*),", makefile, re.M)
    packages = {p for line in needs for p in line.split()}
    assert packages >= {"graphviz", "spin", "gcc", "chromium", "chromium-driver", "rustc"}
    missing = {p for p in packages if f"`{p}`" not in screen}
    assert not missing, f"the README does not say `make test` may install {missing}"


def test_the_first_screen_lists_the_clis_exit_codes() -> None:
    screen = _first_screen()
    table = screen.split("Exit codes, the same for every command:", 1)[1]
    in_readme = [int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)]
    helped = subprocess.run(
        [sys.executable, "-m", "models", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=readme_samples.ROOT,
    ).stdout
    in_help = [int(c) for c in re.findall(r"^\s+(\d+)\s{2,}", helped.split("Exit codes")[1], re.M)]
    assert in_readme == in_help == sorted({kit.OK, kit.FAILED, kit.USAGE, kit.INTERRUPTED})


def test_the_table_of_contents_lists_every_reference_section() -> None:
    contents, reference = TEXT.split("\n## Contents\n", 1)[1].split("\n## ", 1)
    listed = re.findall(r"^- \[([^\]]+)\]\(#([\w-]+)\)$", contents, re.M)
    sections = re.findall(r"^## (.+)$", "## " + reference, re.M)
    assert [title for title, _ in listed] == sections
    for title, anchor in listed:
        assert anchor == re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
