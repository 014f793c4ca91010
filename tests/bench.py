"""`make bench`: time each part of `make verify` against its budget.

Budgets (issue 2): the whole gate under 60 s on a 2-core machine, the model
checks under 5 s. The machines are shared and noisy, so each part runs
`--repeat` times and the median is quoted, as a ratio of its budget.
Not a test: pytest does not collect this file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

PARTS: list[tuple[str, list[str], float | None]] = [
    ("model checks", [str(BIN / "python"), "-m", "models", "verify"], 5.0),
    ("mutant gate (fast)", [str(BIN / "python"), "-m", "models", "mutants", "--fast"], 8.0),
    ("pytest (ci profile)", [str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"], None),
    (
        "diagrams up to date",
        [str(BIN / "python"), "-m", "models", "diagram", "--check", "--render"],
        None,
    ),
    ("mypy --strict", [str(BIN / "mypy")], None),
    ("ruff", [str(BIN / "ruff"), "check", "."], None),
]
GATE_BUDGET = 60.0


def timed(command: list[str]) -> float:
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="runs per part (median quoted)")
    args = parser.parse_args()
    print(f"{'part':<22} {'median':>8} {'min':>8} {'max':>8}   budget")
    total = 0.0
    for name, command, budget in PARTS:
        runs = [timed(command) for _ in range(args.repeat)]
        median = statistics.median(runs)
        total += median
        quota = f"{median:.2f}s / {budget:.0f}s = {median / budget:.2f}×" if budget else "-"
        print(f"{name:<22} {median:7.2f}s {min(runs):7.2f}s {max(runs):7.2f}s   {quota}")
    print(
        f"{'whole gate (sum)':<22} {total:7.2f}s {'':>8} {'':>8}   "
        f"{total:.2f}s / {GATE_BUDGET:.0f}s = {total / GATE_BUDGET:.2f}×"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
