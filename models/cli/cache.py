"""The result cache of `make verify`: a phase's passing result, keyed by what its verdict reads.

A key is a SHA-256 over the phase's name, the content of every file it depends on (a spec's
module and the kernel for its model checks; impl/ and conformance/ too for its mutants; the
seeds for the differential; the whole tree for pytest), the environment variables that steer
it (HYPOTHESIS_PROFILE, SEEDS_DIR, REQUIRE_SEEDS, PYTHONHASHSEED), Python's version, every
installed distribution's version (pip freeze), and the system tools it runs (spin, gcc,
dot, rustc, node, chromium: each fingerprinted by path, size and modification time). A change
to any of them is a new key, so it invalidates exactly the results that read it.

The cache is a convenience, never a source of truth: only passing results are stored, a
hit replays the stored output marked as cached, and `--no-cache`, `STATECHECK_NO_CACHE=1`
(what `make verify FRESH=1` and the test suite set: a test may check a spec changed in
memory, which no key sees) or a checkout without pyproject.toml (an installed wheel)
bypasses it: nothing is read, nothing is written. It lives in `.cache/verify/`
(git-ignored), one file per phase and key, the newest MAX_ENTRIES kept. `verify` and
`mutants` cache per spec themselves; tests/gate.py caches the gate's other phases.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import sys
from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
DIR = ROOT / ".cache" / "verify"
ENV = ("HYPOTHESIS_PROFILE", "SEEDS_DIR", "REQUIRE_SEEDS", "PYTHONHASHSEED")
# What a walk of the tree skips: generated, or the cache itself.
SKIP = {
    ".git",
    ".venv",
    ".cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "__pycache__",
    "build",
    "reports",
    "mutants",
    "node_modules",
}
# Every spec's verdicts read the kernel and the command line that runs it.
MAX_ENTRIES = 1000  # results kept; the oldest go first
KERNEL: tuple[str | Path, ...] = ("models/__init__.py", "models/kernel", "models/cli")


def enabled(no_cache: bool = False) -> bool:
    """Whether to use the cache: not asked to bypass it, and in a source checkout."""
    if no_cache or os.environ.get("STATECHECK_NO_CACHE", "") not in ("", "0"):
        return False
    return (ROOT / "pyproject.toml").is_file()


def files(paths: Iterable[str | Path]) -> list[Path]:
    """The files under `paths` (relative to the checkout, or absolute), sorted."""
    found: set[Path] = set()
    for path in paths:
        top = ROOT / path
        if top.is_file():
            found.add(top)
            continue
        for here, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in SKIP and not d.endswith(".egg-info")]
            found.update(Path(here) / n for n in names if not n.endswith((".pyc", ".tmp")))
    return sorted(found)


def spec_modules(name: str) -> list[Path]:
    """The model module defining spec `name` (or `name:variant`), and every model module it
    imports, at any depth (the kernel and the command line are in KERNEL)."""
    import models
    from models.cli.registry import load

    base = name.partition(":")[0]
    owner = next(
        m for m in load().modules if base in {s.name for s in _module_specs(f"models.{m}")}
    )
    found: list[Path] = []
    todo = [Path(models.__file__).parent / f"{owner}.py"]
    while todo:
        path = todo.pop()
        if path in found or not path.is_file():
            continue
        found.append(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            todo += [ROOT / f"{t.replace('.', '/')}.py" for t in targets if t.startswith("models.")]
    return found


def _module_specs(module: str) -> tuple[Any, ...]:
    return tuple(getattr(sys.modules.get(module), "SPECS", ()))


@cache
def _distributions() -> str:
    return "\n".join(
        sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    )


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        return f"{name}: missing"
    stat = Path(found).resolve().stat()
    return f"{name}: {Path(found).resolve()} {stat.st_size} {stat.st_mtime_ns}"


def key(
    phase: str,
    deps: Iterable[str | Path],
    tools: Sequence[str] = (),
    *extra: str,
    env: Mapping[str, str] | None = None,
) -> str:
    """The phase's key: a hash of its name, deps' contents, environment (`env`, by default
    this process's) and tool versions."""
    env = os.environ if env is None else env
    digest = hashlib.sha256()

    def add(text: str) -> None:
        digest.update(text.encode() + b"\0")

    add(phase)
    add(sys.version)
    add(platform.machine())
    add(_distributions())
    for name in ENV:
        add(f"{name}={env.get(name, '')}")
    for tool in tools:
        add(_tool(tool))
    for text in extra:
        add(text)
    for path in files(deps):
        add(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path))
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _path(phase: str, digest: str) -> Path:
    return DIR / f"{phase.replace('/', '_')}.{digest[:40]}.json"


def get(phase: str, digest: str) -> dict[str, Any] | None:
    """The stored result of `phase` under `digest`, or None."""
    try:
        stored: dict[str, Any] = json.loads(_path(phase, digest).read_text())
    except (OSError, ValueError):
        return None
    return stored


def put(phase: str, digest: str, result: dict[str, Any]) -> None:
    """Store a passing result (written whole, or not at all); keep the newest MAX_ENTRIES."""
    try:
        DIR.mkdir(parents=True, exist_ok=True)
        path = _path(phase, digest)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(result))
        tmp.replace(path)
        stored = sorted(DIR.glob("*.json"), key=lambda f: f.stat().st_mtime)
        for old in stored[:-MAX_ENTRIES]:
            old.unlink(missing_ok=True)
    except OSError as err:  # a cache that cannot be written costs time, never a verdict
        print(f"cache: not stored ({err})", file=sys.stderr)
