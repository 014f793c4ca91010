"""The mode.rs seed plugin for the `policy` spec: PolicyCell, seed vs model vs impl.mode.

The harness (rust/mode_main.rs, run as `policy`) compiles the unmodified mode.rs
with rustc alone, beside stubs of the `kernel` crate, `crate::catalog` and the tool
names. Both the seed and impl start under upstream's start policy and log concrete
policy labels: the calls' reads, what each wave took, the note appended, and the
policy in force after every step (the cell's mailbox is private to both, so it is
not observed: check-trace keeps every mailbox state consistent with the log).

Seed and impl are diffed on those concrete logs; `to_model` then maps each policy
onto the model's one-value abstraction (models/policy.py: WATCHED or OTHER) for
check-trace. No difference is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import impl.mode as i
from conformance.seeds import RUST
from conformance.seeds import Allowed
from conformance.seeds import Harness
from conformance.seeds import Log
from conformance.seeds import ProcessHarness
from conformance.seeds import Walk
from conformance.seeds import rustc_build
from conformance.seeds import seed_path as _seed_path
from models import policy as m

SPEC = "policy"
SEED_FILE = "mode.rs"
SEED_VARIANT: str | None = None
ALLOWED: tuple[Allowed, ...] = ()

START = m.UPSTREAM_START.label
WATCHED = m.WATCHED_POLICY.label


def mode_binary(seeds_dir: Path, build_dir: Path) -> Path:
    """The mode.rs harness binary (shared with the admission plugin; built once, cached)."""
    seed = _seed_path(seeds_dir, SEED_FILE)
    return rustc_build(
        "mode", RUST / "mode_main.rs", {"SEED": seed, "JSON": RUST / "json.rs"}, build_dir
    )


class _Started(ProcessHarness):
    """Every walk starts under upstream's start policy, the one the model's OTHER stands for."""

    def run(self, walks: list[Walk]) -> list[Log]:
        return super().run([{**w, "start": START} for w in walks])


def build(seeds_dir: Path, build_dir: Path) -> Harness:
    return _Started([str(mode_binary(seeds_dir, build_dir)), "policy"])


def _label(p: i.RunPolicy | None) -> str | None:
    if p is None:
        return None
    return f"{p.mode.value}/{p.write.value}/{p.admit.value}/{p.landing.value}"


def impl_logs(walks: list[Walk]) -> list[Log]:
    policies = {p.label: p for p in m.POLICIES}
    to_impl = {
        label: i.RunPolicy(
            i.Mode(p.mode.value),
            i.WriteLimit(p.write.value),
            i.AdmissionRequirement(p.admit.value),
            i.LandingPolicy(p.landing.value),
        )
        for label, p in policies.items()
    }
    noted = {i.policy_note(p): p for p in to_impl.values()}
    logs: list[Log] = []
    for walk in walks:
        cell = i.PolicyCell(to_impl[START])
        gate = cell.reader()
        log: Log = [{"init": {"in_force": _label(gate.now())}}]
        for step in walk["steps"]:
            args: dict[str, Any] = {}
            read = taken = note = None
            if step["trigger"] == "change":
                policy = to_impl[step["args"]["policy"]]
                cell.arrive(policy)
                args = {"policy": _label(policy)}
            elif step["trigger"] == "wave":
                got = cell.take_at_wave()
                taken = _label(got)
                if got is not None:
                    note = _label(noted[i.policy_note(got)])
            else:
                read = _label(gate.now())
            log.append(
                {
                    "trigger": step["trigger"],
                    "args": args,
                    "outputs": {"read": read, "taken": taken, "note": note},
                    "state": {"in_force": _label(gate.now())},
                }
            )
        logs.append(log)
    return logs


def _watch(value: Any) -> Any:
    if value is None:
        return None
    return m.WATCHED.name if value == WATCHED else m.OTHER.name


def to_model(log: Log) -> Log:
    """Concrete policies → the model's watched/other abstraction (arguments stay concrete)."""
    mapped: Log = []
    for line in log:
        if "init" in line:
            mapped.append({"init": {k: _watch(v) for k, v in line["init"].items()}})
            continue
        mapped.append(
            {
                **line,
                "outputs": {k: _watch(v) for k, v in line["outputs"].items()},
                "state": {k: _watch(v) for k, v in line["state"].items()},
            }
        )
    return mapped
