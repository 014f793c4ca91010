"""The mode.rs seed plugin for the `admission` spec: `admits` and `mode_admits`.

The harness (rust/mode_main.rs, run as `admission`) answers each step with the
outcome `admits` gave (a refusal is named by the canonical input of its line in
policy-take.md §5, so no refusal text is copied), or with whether `mode_admits`
allowed the tool and whether the tool is in some core (`in_some_core`). impl.mode
is asked the same through conformance/drivers/admission.py's helpers. Only those outputs
are logged: the model's echo outputs are the inputs, which a log does not repeat.
No difference is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import impl.mode as i
from conformance.seeds import Allowed
from conformance.seeds import Harness
from conformance.seeds import Log
from conformance.seeds import ProcessHarness
from conformance.seeds import Walk
from conformance.seeds.policy import mode_binary

SPEC = "admission"
SEED_FILE = "mode.rs"
SEED_VARIANT: str | None = None
ALLOWED: tuple[Allowed, ...] = ()


def build(seeds_dir: Path, build_dir: Path) -> Harness:
    return ProcessHarness([str(mode_binary(seeds_dir, build_dir)), "admission"])


def impl_logs(walks: list[Walk]) -> list[Log]:
    from conformance.drivers.admission import gate_allows
    from conformance.drivers.admission import outcome_of

    logs: list[Log] = []
    for walk in walks:
        log: Log = [{"init": {}}]
        for step in walk["steps"]:
            a = step["args"]
            outputs: dict[str, Any]
            if step["trigger"] == "admits":
                policy = i.RunPolicy(
                    i.Mode(a["mode"].lower()),
                    i.WriteLimit(a["write"].lower()),
                    i.AdmissionRequirement(a["admit"].lower()),
                    i.LandingPolicy(a["landing"].lower()),
                )
                produced = i.Produced(
                    a["tests_passed"], a["contract_moved"], a["held_in"], a["held_out"]
                )
                outputs = {"outcome": outcome_of(i.admits(policy, produced)).name}
            else:
                policy = i.RunPolicy.of(i.Mode(a["mode"].lower()))
                outputs = {
                    "allowed": gate_allows(policy, a["tool"]),
                    "judged": i.in_some_core(a["tool"]),
                }
            log.append({"trigger": step["trigger"], "args": a, "outputs": outputs})
        logs.append(log)
    return logs
