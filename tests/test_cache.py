"""The result cache (models/cli/cache.py) is a convenience, never a source of truth.

On a copy of models/ in a temporary checkout: a rerun reuses `verify policy`'s results; one
row changed in the spec is checked again, its new verdict (a violation) is reported, not the
cached one, and it is not stored; the old result comes back with the row; a change to
another spec's module leaves policy's result cached, a change to the kernel does not;
`--no-cache` and STATECHECK_NO_CACHE=1 (make verify FRESH=1) bypass it. And a key
changes with every file it depends on, and with no other.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from models.cli import cache

ROOT = Path(__file__).resolve().parent.parent
CACHED = "(cached: nothing policy's checks read has changed)"
# wave_takes_arrival (HELD to EMPTY) puts the arrival in force ...
ROW = 'EMPTY,\n            sets={\n                "in_force": unwrap(var("pending")),'
SLIP = 'EMPTY,\n            sets={\n                "in_force": var("in_force"),'  # ... or not


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "models", tmp_path / "models", ignore=shutil.ignore_patterns("__py*"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def verify(checkout: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if k != "STATECHECK_NO_CACHE"}
    done = subprocess.run(
        [sys.executable, "-m", "models", "verify", "policy", "--jobs", "1", *args],
        cwd=checkout,
        env={**base, "PYTHONPATH": str(checkout), **(env or {})},
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout + done.stderr


def test_a_changed_row_is_checked_again_not_read_from_the_cache(checkout: Path) -> None:
    spec = checkout / "models" / "policy.py"
    stored = checkout / ".cache" / "verify"
    assert verify(checkout)[0] == 0
    status, out = verify(checkout)
    assert (
        status == 0 and CACHED in out and "(3 of them cached)" in out
    )  # policy and its two variants
    text = spec.read_text()
    assert text.count(ROW) == 1
    spec.write_text(text.replace(ROW, SLIP))
    before = sorted(stored.glob("verify-policy.*"))
    status, out = verify(checkout)
    assert status == 1 and "(cached" not in out, out
    assert "wave-takes-the-last-arrival: violated" in out
    assert sorted(stored.glob("verify-policy.*")) == before  # only passing results are stored
    spec.write_text(text)  # the row as it was: its passing result is still stored
    assert CACHED in verify(checkout)[1]
    # Exactly what a change touches: another spec's module, no; the kernel, yes.
    with (checkout / "models" / "duplex.py").open("a") as module:
        module.write("# another spec's module\n")
    assert CACHED in verify(checkout)[1]
    assert "(cached" not in verify(checkout, "--no-cache")[1]
    assert "(cached" not in verify(checkout, env={"STATECHECK_NO_CACHE": "1"})[1]
    with (checkout / "models" / "kernel" / "explore.py").open("a") as module:
        module.write("# the kernel every spec's checks run on\n")
    status, out = verify(checkout)
    assert status == 0 and "(cached" not in out


def test_a_key_reads_every_file_it_depends_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("b = 1\n")
    first = cache.key("phase", ["a"])
    assert cache.key("phase", ["a"]) == first
    (tmp_path / "b.py").write_text("b = 2\n")  # not a dependency
    assert cache.key("phase", ["a"]) == first
    (tmp_path / "a" / "x.py").write_text("x = 2\n")
    assert cache.key("phase", ["a"]) != first
    assert cache.key("other phase", ["a"]) != cache.key("phase", ["a"])
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "thorough")
    assert cache.key("phase", ["a"]) != cache.key("other", ["a"])
