"""The seed differential: the unmodified seed sources, compiled here, against the model and impl.

Each plugin module `conformance/seeds/<name>.py` defines:

- `SPEC: str` — the model spec its logs are checked against (impl's logs always are);
- `SEED_FILE: str` — the seed file under `SEEDS_DIR`;
- `SEED_VARIANT: str | None` — the variant of SPEC the seed's logs are checked
  against where the project deliberately departs from the seed (None: SPEC itself);
- `ALLOWED: tuple[Allowed, ...]` — the documented seed-vs-impl differences, each
  naming the decision it follows and a predicate over (walk, seed_log, impl_log);
  each must cover at least one walk (an entry nothing needs is stale);
- `build(seeds_dir, build_dir) -> Harness` — builds the seed's harness, raising
  `SeedMissing` or `BuildError` with a clear message; `Harness.run(walks)` runs many
  walks in one process;
- `impl_logs(walks) -> list[Log]` — the same walks through `impl`, same log shape;
- optionally `to_model(log) -> Log` — maps a log from the seed's concrete vocabulary
  onto the spec's (the policy spec's watched/other abstraction); identity when absent.
  Seed and impl logs are diffed before this mapping, so the diff sees concrete values;
- optionally `enabled(trigger, state) -> bool` — which triggers a random walk may take
  in a model state (a conformance driver's `enabled`); every trigger when absent.
- optionally `RANDOM_WALKS: int` — its count of random walks, where the runner's
  default (1,000) costs more than it finds;
- optionally `DIRECTED_WALKS: tuple[Walk, ...]` — hand-chosen edge cases the model's
  walks reach rarely, run and checked like the others;
- optionally `IMPL_ONLY: frozenset[str]` — state variables only impl's log observes
  (the seed gives no way to see them): check-trace checks them in impl's log, and they
  are left out of the seed-vs-impl diff.

Where the plugin has a SEED_VARIANT, the variant's row witnesses are walked too, so
the seed's own rows are each met.

A walk is `{"init": {...}, "steps": [{"trigger": str, "args": {...}}, ...]}` in the
spelling of check-trace; a log is a list of check-trace lines, the first `{"init": ...}`.
A compiled harness speaks the pipe protocol: one walk per line on stdin, one
`{"log": [...]}` (or `{"error": "..."}`) per line on stdout.

The seeds are read from `SEEDS_DIR` (default `../shared/seeds` from the repo root);
builds go to `.cache/seeds/`, cached by the hash of everything that goes into them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Protocol

ROOT = Path(__file__).resolve().parent.parent.parent
HERE = Path(__file__).resolve().parent
RUST = HERE / "rust"

Walk = dict[str, Any]
Log = list[dict[str, Any]]


class SeedMissing(Exception):
    """The seed source is not where SEEDS_DIR says."""


class BuildError(Exception):
    """The seed harness would not build (a tool is missing, or the compiler refused)."""


class HarnessError(Exception):
    """A built harness failed while running walks."""


@dataclass(frozen=True)
class Allowed:
    """A documented difference between the seed and impl, and where it is decided."""

    name: str
    decision: str  # the KB8 item, api.md sentence or doc section it follows
    applies: Callable[[Walk, Log, Log], bool]  # (walk, seed_log, impl_log): is this it?


class Harness(Protocol):
    def run(self, walks: list[Walk]) -> list[Log]: ...


def seeds_dir() -> Path:
    return Path(os.environ.get("SEEDS_DIR") or ROOT.parent / "shared" / "seeds")


def required() -> bool:
    """REQUIRE_SEEDS=1 (as .ci/run sets): a seed missing from SEEDS_DIR is a failure."""
    return os.environ.get("REQUIRE_SEEDS", "") not in ("", "0")


def build_dir() -> Path:
    return ROOT / ".cache" / "seeds"


def seed_path(seeds: Path, name: str) -> Path:
    path = seeds / name
    if not path.is_file():
        raise SeedMissing(f"{name} is not in SEEDS_DIR={seeds} (set SEEDS_DIR to your checkout)")
    return path


class ProcessHarness:
    """A compiled harness run once for all walks, over the pipe protocol."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = dict(env or {})  # set over the inherited environment

    def run(self, walks: list[Walk]) -> list[Log]:
        if not walks:
            return []
        process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **self.env},
        )
        assert process.stdin is not None and process.stdout is not None
        stdin = process.stdin

        def feed() -> None:  # a writer thread, so a full stdout pipe cannot deadlock us
            try:
                for walk in walks:
                    stdin.write(json.dumps(walk) + "\n")
            finally:
                stdin.close()

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        answers = [json.loads(line) for line in process.stdout]
        writer.join()
        stderr = process.stderr.read() if process.stderr else ""
        if process.wait() != 0 or len(answers) != len(walks):
            raise HarnessError(
                f"{Path(self.argv[0]).name} exited {process.returncode} after "
                f"{len(answers)} of {len(walks)} walks: {stderr.strip()[-500:]}"
            )
        logs: list[Log] = []
        for k, answer in enumerate(answers):
            if "error" in answer:
                raise HarnessError(f"walk {k}: the harness says {answer['error']}")
            logs.append(answer["log"])
        return logs


def rustc_build(name: str, main: Path, substitutions: dict[str, Path], build: Path) -> Path:
    """Compile a harness with `rustc` alone; the binary is cached by the hash of its inputs.

    `main` is a template in which each `@KEY@` becomes the absolute path given, so the
    seed is compiled where it lies, unmodified and uncopied.
    """
    rustc = shutil.which("rustc")
    if rustc is None:
        raise BuildError("rustc is missing: install the rustc package (apt-get install rustc)")
    version = subprocess.run([rustc, "--version"], capture_output=True, text=True).stdout
    text = main.read_text()
    digest = hashlib.sha256(version.encode() + text.encode())
    for key, path in sorted(substitutions.items()):
        text = text.replace(f"@{key}@", str(path.resolve()))
        digest.update(path.read_bytes())
    binary = build / f"{name}-{digest.hexdigest()[:16]}"
    if binary.exists():
        return binary
    build.mkdir(parents=True, exist_ok=True)
    print(f"seeds: building the {name} harness with rustc (a few seconds; cached in {build})")
    # Per-process names: two plugins of one seed may build it at once (they run in parallel).
    source = binary.with_name(f"{binary.name}.{os.getpid()}.rs")
    source.write_text(text)
    tmp = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")
    done = subprocess.run(
        [rustc, "--edition", "2021", "-O", "--crate-name", "harness", "-o", str(tmp), str(source)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
        first = errors[0] if errors else done.stderr.strip()[-300:]
        raise BuildError(f"rustc could not build {name} from {source}: {first}")
    tmp.replace(binary)  # nothing half-built is ever cached
    source.unlink()  # kept only when rustc refused it, for the error message
    return binary


def driver_logs(driver: Any, walks: list[Walk]) -> list[Log]:
    """Walks through `impl` by a conformance driver (conformance/harness.py `Driver`), logged
    as check-trace lines: every output, and the variables the driver can observe."""
    from models.kernel.tracecheck import decode_step
    from models.kernel.tracecheck import decode_vars
    from models.kernel.values import encode

    spec = driver.spec
    logs: list[Log] = []
    for walk in walks:
        init = decode_vars(spec, walk["init"], "walk init")
        impl = driver.start(init)
        try:
            log: Log = [{"init": _encode_vars(spec, driver.observe(impl))}]
            for raw in walk["steps"]:
                step = decode_step(spec, raw, "walk step")
                outputs = driver.fire(impl, step.trigger, step.args)
                params = {p.name: p.domain for p in spec.trigger(step.trigger).params}
                log.append(
                    {
                        "trigger": step.trigger,
                        "args": {k: encode(params[k], v) for k, v in step.args.items()},
                        "outputs": {
                            k: encode(spec.output(k).domain, v) for k, v in outputs.items()
                        },
                        "state": _encode_vars(spec, driver.observe(impl)),
                    }
                )
        finally:
            driver.close(impl)
        logs.append(log)
    return logs


def _encode_vars(spec: Any, values: Any) -> dict[str, Any]:
    from models.kernel.values import encode

    return {k: encode(spec.var(k).domain, v) for k, v in values.items()}
