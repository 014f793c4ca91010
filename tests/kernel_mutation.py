"""mutmut over models/kernel/, killed by the fast kernel tests (`make kernel-mutation`).

`make mutation` mutates impl/ with the [tool.mutmut] table of pyproject.toml;
this wrapper gives mutmut a second configuration without a second table: it
copies the tree mutmut needs into build/kernel-mutation (so the two runs keep
separate `mutants/` caches), points mutmut's configuration at the kernel
modules named on the command line (default: the ones holding the checks) and
the kernel tests below, runs it, and prints each module's kill rate from
mutmut's own results. mutmut 3 runs, per mutant, only the tests that call
the mutated function.

    python tests/kernel_mutation.py [MODULE ...] [--max-children N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "kernel-mutation"
# The modules holding the checks, in the order the issue asks for them.
DEFAULT = ["checks", "vacuity", "explore", "expr", "oracle"]
# The fast kernel tests (seconds, no SPIN, no browser): mutmut's killers.
KILLERS = [
    "tests/test_checks_teeth.py",
    "tests/test_random_specs.py",
    "tests/test_kernel.py",
    "tests/test_explore.py",
    "tests/test_expr_guards.py",
]
COPY = ["models", "tests", "conftest.py", "pyproject.toml"]


def _config(modules: list[str]) -> dict[str, Any]:
    return {
        "source_paths": ["models/kernel/"],
        "only_mutate": [f"models/kernel/{m}.py" for m in modules],
        "pytest_add_cli_args_test_selection": [k for k in KILLERS if (ROOT / k).exists()],
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q"],
        "also_copy": ["models", "tests", "conftest.py"],
    }


def _sync() -> None:
    """The sources, copied with their mtimes, so mutmut's cache sees what changed."""
    WORK.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source,
                WORK / name,
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"),
            )
        else:
            shutil.copy2(source, WORK / name)


def _rates(modules: list[str], survivors: bool) -> bool:
    """Each module's counts from mutmut's per-file results; True when all reach 90%."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    ok = True
    for m in modules:
        meta = WORK / "mutants" / "models" / "kernel" / f"{m}.py.meta"
        if not meta.exists():
            print(f"{m}.py: no results")
            ok = False
            continue
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        counts = Counter(status_by_exit_code[c] for c in codes.values())
        judged = counts["killed"] + counts["survived"] + counts["timeout"] + counts["no tests"]
        killed = counts["killed"] + counts["timeout"]
        rate = 100 * killed / judged if judged else 0.0
        ok = ok and rate >= 90 and not counts["not checked"]
        print(
            f"{m}.py: {killed}/{judged} killed ({rate:.1f}%), "
            + ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        )
        if survivors:
            for key, code in codes.items():
                if status_by_exit_code[code] == "survived":
                    print(get_diff_for_mutant(key, path=Path(f"models/kernel/{m}.py")))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=DEFAULT)
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--results", action="store_true", help="only print the rates")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    args = parser.parse_args()
    if not args.results:
        _sync()
    os.chdir(WORK)
    sys.path.insert(0, str(WORK))
    os.environ.setdefault("HYPOTHESIS_PROFILE", "mutation")

    import mutmut.configuration as configuration

    table = _config(args.modules)
    configuration._config_reader = lambda: lambda key, default: table.get(key, default)
    if not args.results:
        from mutmut.__main__ import _run

        _run([], args.max_children)
    return 0 if _rates(args.modules, args.survivors) else 1


if __name__ == "__main__":
    sys.exit(main())
