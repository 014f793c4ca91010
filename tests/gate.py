"""`make verify`: the merge gate's phases, side by side, each passing result cached.

Not a test: pytest does not collect this file. `phases()` lists what the gate runs, in the
order its output is shown; `tests/bench.py` times the same list. The phases are independent,
except the report, which reads what the model checks, the mutant gate, the seed differential
and pytest wrote, and the diagrams, which read the model checks' verdicts. The two longest,
pytest (one process) and the mutant gate (on the other cores), start first and have the
cores to themselves: a core shared among more processes would stretch pytest, which cannot
be split without paying each worker's start-up again, into the report's way. Once one of
them ends the rest run side by side, up to SLOTS processes' worth at a time (2 per core: a
phase's start-up and its last worker leave a core idle that another phase fills). Each
phase's output is shown whole, in order, once it ends; while any runs, a progress line
every PROGRESS_SECONDS says what each running phase has done out of its total, so the gate
is never silent for long.

The result cache (models/cli/cache.py): the model checks and the mutant gate cache per spec
themselves; every other phase is cached here, as a whole, under a hash of the files it reads,
its command and its tools. `--fresh` (`make verify FRESH=1`, what .ci/run runs) bypasses
the cache: nothing is read, nothing stored. pytest runs the suite without the `slow` and
`realtime` tests (SPIN agreement, the browser, the real-timer waves, a check that is a phase
here) over GATE_PATHS, the specs' conformance and impl's own tests: `make test` runs the
whole suite, the kernel's and the tools' tests too.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

from models.cli import cache  # noqa: E402

PY = str(BIN / "python")
CORES = os.cpu_count() or 1
# pytest-xdist workers for the gate, chosen by `make bench` on 2 cores (README, "Scale"):
# one process; workers each pay pytest's start-up and collection again.
WORKERS = int(os.environ.get("PYTEST_JOBS", "1"))
# The mutant gate's processes beside pytest's at the start: the cores pytest leaves.
MUTANT_JOBS = max(1, CORES - WORKERS)
GATE_TESTS = "not slow and not realtime"
# What the gate's pytest runs: the verdicts on the specs and `impl/` (conformance/, with its
# seed drivers, and impl's own tests). The kernel's and the tools' own tests are `make test`'s
# (which .ci/run runs too): a change to a spec or to impl/ does not need them to merge.
GATE_PATHS = (
    "conformance",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_impl_*.py")),
)
SLOTS = 2 * CORES
PROGRESS_SECONDS = 5.0
PY_FILES = ("models", "impl", "conformance", "tests", "conftest.py", "pyproject.toml")
TREE = (".",)  # the whole checkout (cache.SKIP leaves out what is generated)


@dataclass(frozen=True)
class Phase:
    """One step of the gate: its command, what it reads (for the cache), and how to show it."""

    name: str
    command: list[str]
    hint: str  # what to do when it fails
    deps: tuple[str | Path, ...] | None = None  # None: the command caches for itself
    tools: tuple[str, ...] = ()
    artifacts: tuple[str, ...] = ()  # files it writes, restored with a cached result
    weight: int = 1  # processes it keeps busy
    after: tuple[str, ...] = ()
    first: bool = False  # one of the longest: started at once, the rest wait for one to end
    progress: Callable[[str], str] | None = None  # its output so far → "n of m"
    shown: Callable[[str], str] = lambda text: text


def _seeds_dir() -> Path:
    from conformance.seeds import seeds_dir

    return seeds_dir()


def _count(pattern: str, total: str, what: str) -> Callable[[str], str]:
    def progress(text: str) -> str:
        found = re.findall(total, text)
        done = len(re.findall(pattern, text, re.MULTILINE))
        return f"{done} of {found[-1]} {what}" if found else ""

    return progress


def _pytest_progress(text: str) -> str:
    """Tests run (a character each on pytest's progress lines) of those selected."""
    total = re.findall(r"\[(\d+) items?\]|(\d+) selected|collected (\d+) items?(?! /)", text)
    lines = re.findall(r"^(?:\S+\.py )?([.FEsxX]+)\s*(?:\[\s*\d+%\])?$", text, re.MULTILINE)
    return f"{sum(map(len, lines))} of {''.join(total[-1])} tests" if total else ""


def _mutants_progress(text: str) -> str:
    """Per spec still being judged, its last `n of m judged`; and how many specs are done."""
    judged = dict(re.findall(r"^mutants: (\S+): (\d+ of \d+) judged", text, re.MULTILINE))
    done = re.findall(r"^(\S+): generated \d+", text, re.MULTILINE)
    parts = [f"{spec} {n} judged" for spec, n in judged.items() if spec not in done]
    return ", ".join([*parts, f"{len(done)} specs done"])


def _mutants_shown(text: str) -> str:
    (ROOT / "reports").mkdir(exist_ok=True)
    (ROOT / "reports" / "mutants.txt").write_text(text)
    return "".join(
        line
        for line in text.splitlines(keepends=True)
        if not line.startswith("  ") and not re.match(r"mutants: \S+: \d+ of \d+ judged", line)
    )


def pytest_command(workers: int) -> list[str]:
    """The gate's pytest: one process, or `workers` xdist workers."""
    parallel = ["-n", str(workers)] if workers > 1 else ["-p", "no:xdist"]
    # Not -q: the header says how many tests were selected, which the progress line shows.
    return [str(BIN / "pytest"), "-p", "no:cacheprovider", "-m", GATE_TESTS, *parallel, *GATE_PATHS]


def phases() -> list[Phase]:
    seeds = _seeds_dir()
    return [
        Phase(
            "model checks",
            [PY, "-m", "models", "verify", "--certificates", "1", "--json", "reports/verify.json"],
            "the model checks failed (above); reports/verify.json has the traces",
            weight=2,
            progress=_count(r"^\S+ — ", r"checking (\d+) specs?", "specs checked"),
        ),
        Phase(
            "mutant gate (fast)",
            [PY, "-m", "models", "mutants", "--fast", "--jobs", str(MUTANT_JOBS)]
            + ["--json", "reports/mutants.json"],
            "a model mutant survived (above); see reports/mutants.txt and reports/mutants.json",
            weight=MUTANT_JOBS,
            first=True,
            progress=_mutants_progress,
            shown=_mutants_shown,
        ),
        Phase(
            "seed differential",
            [PY, "-m", "conformance.seeds"],
            "the seed differential failed (above)",
            deps=("models", "impl", "conformance", seeds),
            tools=("rustc", "node", "gcc"),
            artifacts=("reports/seeds.json",),  # the report's seed figures
            weight=2,
            progress=_count(r"^seeds: \d+ of \d+ plugins done", r"seeds: (\d+) plugins", "done"),
        ),
        Phase(
            "pytest",
            pytest_command(WORKERS),
            "pytest failed (above)",
            deps=(*TREE, seeds),
            tools=("dot", "spin", "gcc", "rustc", "node"),
            artifacts=("reports/conformance.json",),
            weight=max(WORKERS, 1),
            first=True,
            progress=_pytest_progress,
        ),
        Phase(
            "diagrams are up to date",
            [PY, "-m", "models", "diagram", "--check", "--render"],
            "run 'make diagrams' and commit diagrams/*.dot and *.mmd",
            deps=("models", "diagrams", "tests/mermaid"),
            tools=("dot",),
            # The verdict marks come from the model checks' verify.json: started before it is
            # written, the phase would prove every spec again (results.py).
            after=("model checks",),
        ),
        Phase(
            "mypy --strict",
            [str(BIN / "mypy")],
            "mypy found type errors (above)",
            deps=PY_FILES,
        ),
        Phase(
            "ruff",
            [str(BIN / "ruff"), "check", "."],
            "ruff found problems; 'make format' fixes most",
            deps=PY_FILES,
        ),
        Phase(
            "ruff format",
            [str(BIN / "ruff"), "format", "--check", "."],
            "ruff found problems; 'make format' fixes most",
            deps=PY_FILES,
        ),
        Phase(
            "the verification report",
            [PY, "-m", "models", "report", "-o", "reports"],
            "the report found failing checks (above)",
            deps=(*TREE, seeds),  # it reads what the phases before it wrote from the tree
            tools=("dot",),
            artifacts=("reports/index.html",),
            after=("model checks", "mutant gate (fast)", "pytest", "seed differential"),
        ),
    ]


@dataclass
class Run:
    """A phase under way, or done."""

    phase: Phase
    key: str | None = None
    child: subprocess.Popen[bytes] | None = None
    out: bytearray = field(default_factory=bytearray)
    started: float = 0.0
    seconds: float = 0.0
    status: int | None = None  # None while it runs
    cached: bool = False

    @property
    def text(self) -> str:
        return self.out.decode(errors="replace")


def start(run: Run, fresh: bool, env: dict[str, str]) -> None:
    phase = run.phase
    run.started = time.monotonic()
    if phase.deps is not None:
        run.key = cache.key(f"gate-{phase.name}", phase.deps, phase.tools, *phase.command, env=env)
        stored = None if fresh else cache.get(f"gate-{phase.name}", run.key)
        if stored is not None:
            for name, content in stored["artifacts"].items():
                (ROOT / name).parent.mkdir(parents=True, exist_ok=True)
                (ROOT / name).write_text(content)
            run.out += stored["output"].encode()
            run.out += f"({phase.name}: cached, nothing it reads has changed)\n".encode()
            run.status, run.cached = 0, True
            return
    run.child = subprocess.Popen(
        phase.command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    os.set_blocking(run.child.stdout.fileno(), False)  # type: ignore[union-attr]


def poll(run: Run, fresh: bool) -> None:
    """Read what the phase printed so far; note its end (and cache a passing result)."""
    assert run.child is not None and run.child.stdout is not None
    while chunk := run.child.stdout.read():
        run.out += chunk
    status = run.child.poll()
    if status is None:
        return
    while chunk := run.child.stdout.read():
        run.out += chunk
    run.status, run.seconds = status, time.monotonic() - run.started
    phase = run.phase
    if status == 0 and run.key is not None and not fresh:
        artifacts = {a: (ROOT / a).read_text() for a in phase.artifacts if (ROOT / a).is_file()}
        cache.put(f"gate-{phase.name}", run.key, {"output": run.text, "artifacts": artifacts})


def gate(fresh: bool) -> int:
    began = time.monotonic()
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    # Bytecode is written (git-ignored __pycache__/), so that a warm run neither compiles the
    # modules again nor has pytest rewrite the test modules' asserts again in every worker.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if fresh:
        env["STATECHECK_NO_CACHE"] = "1"
    todo = phases()
    runs = {p.name: Run(p) for p in todo}
    order = [p.name for p in todo]
    mode = "fresh: no cached result is read" if fresh else "cached results reused (FRESH=1: none)"
    print(f"verify: {len(order)} phases, up to {SLOTS} processes at a time; {mode}", flush=True)
    shown = 0
    said = time.monotonic()
    firsts = [runs[p.name] for p in todo if p.first]
    while shown < len(order):
        busy = sum(r.phase.weight for r in runs.values() if r.child and r.status is None)
        leading = firsts and all(r.status is None for r in firsts)  # started, none ended yet
        for phase in sorted(todo, key=lambda p: not p.first):
            if leading and not phase.first:
                break  # the longest have the cores to themselves until one ends
            waits = [runs[a] for a in phase.after]
            if any(w.status is None for w in waits):
                continue
            if any(w.status != 0 for w in waits):  # what it reads failed: it is not run
                todo.remove(phase)
                runs[phase.name].status = -1
                continue
            if busy and busy + phase.weight > SLOTS:
                break  # in order: the mutant gate, the longest, first; then as listed
            todo.remove(phase)
            start(runs[phase.name], fresh, env)
            busy += phase.weight if runs[phase.name].child else 0
        for run in runs.values():
            if run.child is not None and run.status is None:
                poll(run, fresh)
        while shown < len(order) and runs[order[shown]].status is not None:
            show(shown + 1, len(order), runs[order[shown]])
            shown += 1
        running = [r for r in runs.values() if r.child is not None and r.status is None]
        if running and time.monotonic() - said >= PROGRESS_SECONDS:
            said = time.monotonic()
            print(f"   … {said - began:.0f}s: " + "; ".join(_doing(r) for r in running), flush=True)
        time.sleep(0.05)
    failed = [r for r in runs.values() if r.status not in (0, -1)]
    seconds = time.monotonic() - began
    reused = sum(r.cached for r in runs.values())
    if failed:
        show_failures(failed)
        print(f"verify: FAILED in {seconds:.1f}s: " + ", ".join(r.phase.name for r in failed))
        return 1
    print(
        f"verify: all green in {seconds:.1f}s ({reused} of {len(order)} phases cached); "
        f"the report is {ROOT / 'reports' / 'index.html'}"
    )
    return 0


def _doing(run: Run) -> str:
    done = run.phase.progress(run.text) if run.phase.progress else ""
    return f"{run.phase.name} {time.monotonic() - run.started:.0f}s" + (f", {done}" if done else "")


def show(n: int, total: int, run: Run) -> None:
    phase = run.phase
    if run.status == -1:
        print(f"== {n}/{total} {phase.name}: not run, a phase it reads failed", flush=True)
        return
    how = "cached" if run.cached else f"{run.seconds:.1f}s"
    if run.status != 0:  # a failure comes last: its output is shown after every other phase's
        print(f"== {n}/{total} {phase.name} ({how}): FAILED, its output follows at the end")
        return
    print(f"== {n}/{total} {phase.name} ({how})", flush=True)
    sys.stdout.write(phase.shown(run.text))
    sys.stdout.flush()


def show_failures(failed: list[Run]) -> None:
    """Each failed phase's whole output, last, so a failing test's summary closes the run."""
    for run in failed:
        print(f"== {run.phase.name}: FAILED", flush=True)
        sys.stdout.write(run.phase.shown(run.text))
        print(f"verify: {run.phase.name}: {run.phase.hint}")
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fresh", action="store_true", help="read no cached result")
    args = parser.parse_args()
    fresh = args.fresh or os.environ.get("STATECHECK_NO_CACHE", "") not in ("", "0")
    return gate(fresh)


if __name__ == "__main__":
    sys.exit(main())
