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
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

PARTS: list[tuple[str, list[str], float | None]] = [
    ("model checks", [str(BIN / "python"), "-m", "models", "verify"], 5.0),
    ("pytest (ci profile)", [str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"], None),
    (
        "diagrams up to date",
        [str(BIN / "python"), "-m", "models", "diagram", "--check", "--render"],
        None,
    ),
    ("seed differential", [str(BIN / "python"), "-m", "conformance.seeds"], 8.0),
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


def diagrams_and_report(repeat: int) -> None:
    """Issue 10: rendering every diagram and the report takes under 5 s (given verify.json)."""
    python = str(BIN / "python")
    timed([python, "-m", "models", "verify", "--json", "reports/verify.json"])  # the verdicts
    with tempfile.TemporaryDirectory() as out:
        runs = [
            timed([python, "-m", "models", "diagram", "--render", "--out", out])
            + timed([python, "-m", "models", "report", "-o", out])
            for _ in range(repeat)
        ]
    median = statistics.median(runs)
    print(
        f"{'diagrams + report':<22} {median:7.2f}s {min(runs):7.2f}s {max(runs):7.2f}s   "
        f"{median:.2f}s / 5s = {median / 5:.2f}×"
    )


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
    diagrams_and_report(args.repeat)
    print(
        f"{'whole gate (sum)':<22} {total:7.2f}s {'':>8} {'':>8}   "
        f"{total:.2f}s / {GATE_BUDGET:.0f}s = {total / GATE_BUDGET:.2f}×"
    )
    bench_check_trace(args.repeat)
    return 0


def bench_check_trace(repeat: int, steps: int = 100_000, budget: float = 5.0) -> None:
    """Issue 8: a 100,000-step duplex log is checked in under 5 s (not part of the gate)."""
    import json
    import random

    sys.path.insert(0, str(ROOT))
    from models.duplex import SPEC
    from models.kernel.tracecheck import LogStep, step_json, stepper_for

    rnd, stepper = random.Random(100), stepper_for(SPEC)
    state = (SPEC.var("state").inits[0], rnd.choice(SPEC.var("payload").inits), None)
    lines = [json.dumps({"init": {"payload": state[1].name}})]
    for _ in range(steps):
        trigger = rnd.choice(SPEC.triggers)
        args = {p.name: rnd.choice((0.25, 0.75, 0.3)) for p in trigger.params}
        _, state, outputs = next(iter(stepper.successors(state, trigger.name, args)))
        seen = LogStep(trigger.name, args, outputs, stepper.as_dict(state))
        lines.append(json.dumps(step_json(SPEC, seen)))
    log = ROOT / "build" / "bench" / "duplex-100k.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("\n".join(lines) + "\n")
    command = [str(BIN / "python"), "-m", "models", "check-trace", "duplex", str(log)]
    median = statistics.median(timed(command) for _ in range(repeat))
    name = f"check-trace {steps // 1000}k"
    print(f"{name:<22} {median:7.2f}s {'':>8} {'':>8}   {median / budget:.2f}× of {budget:.0f}s")


if __name__ == "__main__":
    sys.exit(main())
