"""A long duplex log for check-trace, and a child's peak memory: shared by tests/bench.py
(the 100k-step time and the 50 MB memory figures) and tests/test_trace_memory.py."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

from models.duplex import SPEC
from models.kernel.tracecheck import LogStep
from models.kernel.tracecheck import step_json
from models.kernel.tracecheck import stepper_for


def duplex_log(path: Path, steps: int, seed: int = 100) -> Path:
    """A random walk of the duplex model, every variable and output observed, as JSON Lines."""
    rnd, stepper = random.Random(seed), stepper_for(SPEC)
    state = (SPEC.var("state").inits[0], rnd.choice(SPEC.var("payload").inits), None)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        out.write(json.dumps({"init": {"payload": state[1].name}}) + "\n")
        for _ in range(steps):
            trigger = rnd.choice(SPEC.triggers)
            args = {p.name: rnd.choice((0.25, 0.75, 0.3)) for p in trigger.params}
            _, state, outputs = next(iter(stepper.successors(state, trigger.name, args)))
            seen = LogStep(trigger.name, args, outputs, stepper.as_dict(state))
            out.write(json.dumps(step_json(SPEC, seen)) + "\n")
    return path


def peak_mb(command: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """Run `command`; its peak resident memory in MB (the kernel's count) and exit code."""
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.stderr is not None:
        child.stderr.close()
    return usage.ru_maxrss / 1024, child.returncode
