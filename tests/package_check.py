"""The package as a user gets it: a wheel built from a clean copy, installed apart from the tree.

Run by `make package-check` (about 15 s, so not part of `make verify`); the
file name keeps it out of the default pytest collection.

- the wheel builds with no warnings and ships `impl/py.typed`;
- `mypy --strict` on a user's script checks against the installed library's
  annotations (a script with a type error is caught, so the types are read);
- `import impl` exposes `impl.duplex`, `impl.ecc`, `impl.edge`, `impl.mode`, `impl.waves`;
- `python -m models` works from the install, away from the source tree;
- a plain install requires nothing: the verifier's dependencies are the `verify` extra,
  the test tools (hypothesis, pytest) the `test` extra; `impl` runs with the standard
  library alone, and `python -m models` without its extra says which to install;
- `python -m build` runs from the repo root (no cache folder shadows the package).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from models.cli.registry import expand
from models.kernel.checks import Checker

ROOT = Path(__file__).resolve().parent.parent

USER_SCRIPT = """
import impl
from impl.duplex import DuplexChannel, PayloadKind, VadOnset
from impl.mode import Mode, RunPolicy, core_tools

channel = DuplexChannel(PayloadKind.AUDIO)
impulse, commands = channel.observe(VadOnset())
tools: tuple[str, ...] = core_tools(RunPolicy.of(Mode.WORK).mode)
# The wire strings the constructors take at run time type-check too.
wired = RunPolicy("chat", "full", "standing", "ordinary"), RunPolicy.of("work")
modules = (impl.duplex, impl.ecc, impl.edge, impl.mode, impl.waves)
print(channel.state.name, len(tools), len(commands), [m.__name__ for m in modules])
"""

EXPECTED = "LISTENING 7 0 ['impl.duplex', 'impl.ecc', 'impl.edge', 'impl.mode', 'impl.waves']"

WRONG_SCRIPT = """
from impl.duplex import DuplexChannel, PayloadKind

state: int = DuplexChannel(PayloadKind.TEXT).state
"""


def run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def own_warnings(output: str) -> list[str]:
    # This machine's pip configuration names index directories that may be absent;
    # pip's complaint about them is the machine's, not the package's.
    return [
        line
        for line in output.splitlines()
        if "warn" in line.lower() and not line.startswith("WARNING: Location 'file://")
    ]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean copy of the tree, its wheel, and a venv with only that wheel installed."""
    base = tmp_path_factory.mktemp("package")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    clone = base / "clone"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    output = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", base, ".", cwd=clone)
    # The install's own requirements: only extras, and the test tools in none but `test`
    # and `verify` (the mutant gate drives hypothesis).
    assert own_warnings(output) == []
    (wheel,) = base.glob("statecheck-*.whl")
    assert "impl/py.typed" in zipfile.ZipFile(wheel).namelist()

    venv = base / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=base)
    python = venv / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", wheel, cwd=base)
    # The dependencies (z3, transitions, ...) come from this venv: point the new one at them.
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=base)
    (Path(site.strip()) / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv


def test_mypy_strict_checks_a_user_script_against_the_installed_wheel(installed: Path) -> None:
    work = installed.parent / "user"
    work.mkdir()
    (work / "good.py").write_text(USER_SCRIPT)
    (work / "wrong.py").write_text(WRONG_SCRIPT)
    mypy: list[str | Path] = [Path(sys.executable).parent / "mypy", "--strict", "--no-incremental"]
    python: list[str | Path] = ["--python-executable", installed / "bin" / "python"]
    assert "Success" in run(*mypy, *python, "good.py", cwd=work)
    wrong = subprocess.run(
        [str(a) for a in (*mypy, *python, "wrong.py")], cwd=work, capture_output=True, text=True
    )
    assert wrong.returncode == 1
    assert 'Incompatible types in assignment (expression has type "DuplexState"' in wrong.stdout
    out = run(installed / "bin" / "python", "good.py", cwd=work)
    assert out.strip() == EXPECTED


def test_python_m_models_runs_from_the_install(installed: Path) -> None:
    work = installed.parent / "elsewhere"
    work.mkdir()
    python = installed / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import models, impl; print(models.__file__, impl.__file__)"
    where = run(python, "-c", code, cwd=work)
    assert str(ROOT) not in where and str(installed) in where
    out = run(python, "-m", "models", "verify", "admission", "--jobs", "1", cwd=work, env=env)
    # admission and its variant, every check as the source tree counts them
    checks = sum(len(Checker(spec).check_ids()) for spec in expand(["admission"]))
    assert f"verify: ok — {checks} checks on 2 specs" in out
    run(python, "-m", "models", "diagram", "duplex", "--out", "d", cwd=work, env=env)
    assert (work / "d" / "duplex-audio.dot").read_text().startswith("digraph")


def test_a_plain_install_is_the_library_alone(installed: Path) -> None:
    (wheel,) = installed.parent.glob("statecheck-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires), requires
    # (the distribution's name, the extra it belongs to) for each requirement
    named = {
        (re.split(r"[<>=\[; ]", line.split(":", 1)[1].strip())[0], line.split('extra == "')[1][:-1])
        for line in requires
    }
    assert {extra for name, extra in named if name in ("hypothesis", "pytest")} <= {
        "test",
        "verify",
    }
    assert {"z3-solver", "transitions", "graphviz"} <= {n for n, e in named if e == "verify"}
    # A venv with the wheel and nothing else: impl works, the verifier names its extra.
    bare = installed.parent / "bare"
    run(sys.executable, "-m", "venv", "--without-pip", bare, cwd=installed.parent)
    python = bare / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", wheel, cwd=bare)
    work = installed.parent / "bare-user"
    work.mkdir()
    (work / "good.py").write_text(USER_SCRIPT)
    out = run(python, "good.py", cwd=work)
    assert out.strip() == EXPECTED
    done = subprocess.run(
        [python, "-m", "models", "list"], cwd=work, capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "error: python -m models needs z3-solver, transitions, graphviz: "
        "pip install 'statecheck[verify]' (a plain install is the impl library alone)\n"
    )


def test_python_m_build_runs_from_the_repo_root() -> None:
    """The caches live in .cache/, so no `build/` folder of ours shadows the `build` package."""
    out = run(sys.executable, "-m", "build", "--version", cwd=ROOT)
    assert out.startswith("build 1."), out
