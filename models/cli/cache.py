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
(what `make verify FRESH=1` sets) or a checkout without pyproject.toml (an installed wheel)
bypasses it; a bypassed run still stores what passes. It lives in `.cache/verify/`
(git-ignored), one file per phase and key; a new result of a phase replaces its older ones.

`python -m models.cli.cache PHASE --dep PATH ... [--tool T ...] [--artifact FILE ...] -- CMD`
runs CMD as a cached phase (the Makefile's pytest, seeds, diagrams, mypy, ruff, report):
on a hit it prints the stored output and restores the artifacts (files CMD writes).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
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
KERNEL: tuple[str | Path, ...] = ("models/__init__.py", "models/kernel", "models/cli")


def enabled(no_cache: bool = False) -> bool:
    """Whether to read the cache: not asked to bypass it, and in a source checkout."""
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
    """Store a passing result, replacing the phase's older ones (written whole, or not at all)."""
    try:
        DIR.mkdir(parents=True, exist_ok=True)
        path = _path(phase, digest)
        for old in DIR.glob(f"{phase.replace('/', '_')}.*.json"):
            if old != path:
                old.unlink(missing_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(result))
        tmp.replace(path)
    except OSError as err:  # a cache that cannot be written costs time, never a verdict
        print(f"cache: not stored ({err})", file=sys.stderr)


# ---------------------------------------------------------------- a command as a cached phase


def _run(command: list[str]) -> tuple[int, str]:
    """Run `command`, passing its output through as it comes, and return it whole."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert child.stdout is not None
    chunks: list[bytes] = []
    while chunk := os.read(child.stdout.fileno(), 65536):
        sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
        chunks.append(chunk)
    return child.wait(), b"".join(chunks).decode(errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.cli.cache", description=__doc__)
    parser.add_argument("phase")
    parser.add_argument("--dep", action="append", default=[], help="a file or folder it reads")
    parser.add_argument("--tool", action="append", default=[], help="a system tool it runs")
    parser.add_argument("--artifact", action="append", default=[], help="a file it writes")
    parser.add_argument("--no-cache", action="store_true", help="run it, whatever is stored")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")
    digest = key(args.phase, args.dep, args.tool, *command)
    stored = get(args.phase, digest) if enabled(args.no_cache) else None
    if stored is not None:
        sys.stdout.write(stored["output"])
        for name, text in stored["artifacts"].items():
            (ROOT / name).parent.mkdir(parents=True, exist_ok=True)
            (ROOT / name).write_text(text)
        print(f"({args.phase}: cached, nothing it depends on changed; FRESH=1 runs it again)")
        return 0
    status, output = _run(command)
    if status == 0:
        artifacts = {a: (ROOT / a).read_text() for a in args.artifact if (ROOT / a).is_file()}
        put(args.phase, digest, {"output": output, "artifacts": artifacts})
    return status


if __name__ == "__main__":
    sys.exit(main())
