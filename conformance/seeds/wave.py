"""The transport.ts seed plugin: the wave runner, seed vs the `wave` model vs impl.waves.

The harness (transport/harness.ts) drives the UNMODIFIED seed `transport.ts` from SEEDS_DIR
under a virtual clock with a scripted adapter, one walk per stdin line, in ONE node process;
both are compiled with tsc (TypeScript 5 and @types/node 20, pinned in
`transport/package.json` + `package-lock.json`, installed by `make seeds` with `npm ci`).
Each walk's log is a list of check-trace lines of the `wave` model: the seed's are checked
against `wave:seed` (the seed's own behaviour), impl's (through conformance/drivers/wave.py's
driver) against `wave`, whose rows are the fixes impl makes (api.md's KB8 close, issue 8 §3).

impl alone observes `reaping` (a watch still on a late spawn): the seed's JS cannot list its
pending promises, so the variable is in `IMPL_ONLY`, checked by check-trace in impl's log and
left out of the diff. Every other difference is named in `ALLOWED`: each entry cites the
decision impl follows (an api.md sentence, a KB8 item, impl/waves.py's docstring for issue 8
§3) and recognises the walk's FIRST differing step; after it the two runs are in different
states by design. `DIRECTED_WALKS` add answers where none is pending, events in the instants
and late ones after settling, which the model's walks reach rarely.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.seeds import Allowed
from conformance.seeds import BuildError
from conformance.seeds import HarnessError
from conformance.seeds import Log
from conformance.seeds import ProcessHarness
from conformance.seeds import Walk
from conformance.seeds import driver_logs
from conformance.seeds import seed_path
from models.kernel.domains import Value

SPEC = "wave"
SEED_FILE = "transport.ts"
SEED_VARIANT = "seed"
IMPL_ONLY = frozenset({"reaping"})
# A walk through impl.waves drives an asyncio loop: 500 random walks (the model's 63 row
# witnesses, the seed's 64 and the directed walks besides) meet every ALLOWED entry in about half
# the time 1,000 take; 300 meet them all too.
RANDOM_WALKS = 500

TRANSPORT = Path(__file__).resolve().parent / "transport"
TSC_FLAGS = ("--target", "es2022", "--module", "commonjs", "--strict", "--types", "node")
# The seed's env variable is cleared for the walks: they are about a given or the default timeout.
WALK_ENV = {"PERK_WAVE_TIMEOUT_MS": ""}

# ---------------------------------------------------------------- building and running


def _tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BuildError(f"'{name}' is missing: install the {package} package (make node)")
    return found


def build(seeds_dir: Path, build_dir: Path) -> TransportHarness:
    """tsc over the seed (where it lies, unedited) and the harness; cached by their hash."""
    seed = seed_path(seeds_dir, SEED_FILE)
    node = _tool("node", "nodejs")
    tsc = TRANSPORT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        raise BuildError(
            f"{tsc} is missing: run `make seeds` (npm ci in {TRANSPORT}, from package-lock.json)"
        )
    harness = TRANSPORT / "harness.ts"
    digest = hashlib.sha256()
    for part in (seed, harness, TRANSPORT / "package-lock.json"):
        digest.update(part.read_bytes())
    out = build_dir / f"transport-{digest.hexdigest()[:16]}"
    if not (out / "harness.js").exists():
        print(
            f"seeds: building the transport harness with tsc (a few seconds; cached in {build_dir})"
        )
        # tsc emits beside each other what it compiles together: the seed is copied byte for
        # byte, as `./transport` is what harness.ts requires. Built apart, then renamed into
        # place, so nothing half-built is ever cached.
        work = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        shutil.rmtree(work, ignore_errors=True)
        (work / "src").mkdir(parents=True)
        shutil.copyfile(seed, work / "src" / SEED_FILE)
        shutil.copyfile(harness, work / "src" / "harness.ts")
        done = subprocess.run(
            [str(tsc), *TSC_FLAGS, "--typeRoots", str(TRANSPORT / "node_modules" / "@types")]
            + ["--outDir", str(work / "out"), str(work / "src" / "harness.ts")]
            + [str(work / "src" / SEED_FILE)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            first = (done.stdout + done.stderr).strip().splitlines()[:1]
            raise BuildError(f"tsc could not build {seed} with the harness: {' '.join(first)}")
        with contextlib.suppress(OSError):  # another process built it first: the same
            (work / "out").replace(out)
        shutil.rmtree(work, ignore_errors=True)
    return TransportHarness([node, str(out / "harness.js")], env=WALK_ENV)


class TransportHarness(ProcessHarness):
    """The framework's pipe harness, with the seed's environment-timeout probe."""

    def env_timeouts(self, texts: Sequence[str | None]) -> list[float]:
        """The effective timeout the seed derives from each PERK_WAVE_TIMEOUT_MS text (None:
        unset), read from its spawn params (wave-transport.md §5)."""
        lines = "".join(json.dumps({"env": t}) + "\n" for t in texts)
        done = subprocess.run(self.argv, input=lines, capture_output=True, text=True)
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        if done.returncode != 0 or len(answers) != len(texts):
            raise HarnessError(f"the transport harness probe failed: {done.stderr.strip()}")
        return [float(answer["timeout_ms"]) for answer in answers]


# ---------------------------------------------------------------- impl's logs and walks


def impl_logs(walks: list[Walk]) -> list[Log]:
    """The walks through impl.waves by conformance/drivers/wave.py's driver, with the
    environment timeout unset as for the seed."""
    from conformance.drivers.wave import DRIVER

    saved = os.environ.pop("PERK_WAVE_TIMEOUT_MS", None)
    try:
        return driver_logs(DRIVER, walks)
    finally:
        if saved is not None:
            os.environ["PERK_WAVE_TIMEOUT_MS"] = saved


def enabled(trigger: str, state: Mapping[str, Value]) -> bool:
    """What the driver can ask impl in a model state (the lockstep test's choice)."""
    from conformance.drivers.wave import DRIVER

    return DRIVER.enabled(trigger, state)


def _step(trigger: str, **args: str) -> dict[str, Any]:
    return {"trigger": trigger, "args": args}


# Answers where none is pending, events in the instants, and late ones after settling.
_FRONT = [_step("launch", timeout="GIVEN"), _step("ping_replies", answer="ADVERTISED")]
_SUBSCRIBED = [*_FRONT, _step("recheck"), _step("subscribe", answer="SUBSCRIBED")]
DIRECTED_WALKS: tuple[Walk, ...] = tuple(
    {"init": {}, "steps": steps}
    for steps in (
        [*_FRONT, _step("ping_replies", answer="NULL"), _step("deadline"), _step("abort")],
        [*_FRONT, _step("recheck"), _step("ping_replies", answer="RAISES")]
        + [_step("completion", of="OWN")],
        [*_SUBSCRIBED, _step("completion", of="NULL"), _step("spawn_replies", answer="NULL")],
        [*_SUBSCRIBED, _step("spawn_replies", answer="HANDLE")]
        + [_step("spawn_replies", answer="RAISES")],
        [*_SUBSCRIBED, _step("spawn_replies", answer="HANDLE")]
        + [_step("completion", of="OWN_FAILED_PARTIAL")]
        + [_step("read_replies", state="PARTIAL", value="SCALAR"), _step("completion", of="OWN")],
    )
)


def first_difference(seed_log: Log, impl_log: Log) -> int | None:
    """The first step (1-based line) whose outputs or observations differ, or None."""
    for n, (a, b) in enumerate(zip(seed_log[1:], impl_log[1:], strict=True), start=1):
        if a["outputs"] != b["outputs"] or a["state"] != b["state"]:
            return n
    return None


# ---------------------------------------------------------------- the allow-list


def _at(predicate: Callable[[dict[str, Any], dict[str, Any], dict[str, Any], Walk], bool]) -> Any:
    """A predicate on the first differing step: (step, seed line, impl line, walk)."""

    def applies(walk: Walk, seed_log: Log, impl_log: Log) -> bool:
        n = first_difference(seed_log, impl_log)
        return n is not None and predicate(walk["steps"][n - 1], seed_log[n], impl_log[n], walk)

    return applies


def _step_is(trigger: str, **args: Any) -> Callable[[dict[str, Any]], bool]:
    def test(step: dict[str, Any]) -> bool:
        given = step.get("args", {})
        return step["trigger"] == trigger and all(
            given.get(k) in (v if isinstance(v, tuple) else (v,)) for k, v in args.items()
        )

    return test


def _result_is(line: dict[str, Any], *results: str) -> bool:
    """The line settles with one of `results`."""
    return bool(line["outputs"].get("result") in results)


def _seed_idle(line: dict[str, Any]) -> bool:
    outputs = line["outputs"]
    return bool(outputs.get("calls") == [] and outputs.get("result") == "NO_RESULT")


def _earlier(walk: Walk, step: dict[str, Any], test: Callable[[dict[str, Any]], bool]) -> bool:
    steps = list(walk["steps"])
    return any(test(s) for s in steps[: steps.index(step)])


IMPL_DOC = "impl/waves.py module docstring"
ALLOWED: tuple[Allowed, ...] = (
    Allowed(
        "ping answers that are not a WavePing",
        f"api.md `ping() -> WavePing | None`; {IMPL_DOC}: such an answer counts as null "
        "(the seed checks only `ping === null`)",
        _at(lambda step, s, i, w: _step_is("ping_replies", answer="MALFORMED")(step)),
    ),
    Allowed(
        "spawn answers that are not a WaveRunHandle",
        f"api.md `spawn(...) -> WaveRunHandle`; {IMPL_DOC}: spawn-failed at once (the seed "
        "waits for its timeout with no handle, then calls stop(null))",
        _at(lambda step, s, i, w: _step_is("spawn_replies", answer=("NULL", "MALFORMED"))(step)),
    ),
    Allowed(
        "a null completion is ignored",
        f"api.md `handler: Callable[[WaveCompletion], None]`; {IMPL_DOC}: a completion that is "
        "not a WaveCompletion is ignored (the seed buffers it and F5's find throws on it)",
        _at(
            lambda step, s, i, w: (
                step["trigger"] == "spawn_replies"
                and _result_is(s, "SPAWN_FAILED", "REJECTED")
                and _earlier(w, step, _step_is("completion", of="NULL"))
            )
        ),
    ),
    Allowed(
        "only a TerminalOutcome marks a native partial",
        f"api.md `terminal_outcome: TerminalOutcome | None`; {IMPL_DOC}: a terminal_outcome that "
        "is not a TerminalOutcome counts as absent (the seed takes any value but undefined, "
        "and throws on null)",
        _at(
            lambda step, s, i, w: (
                step["trigger"] == "read_replies"
                and i["outputs"].get("detail") == "RUN_ENDED"
                and _earlier(
                    w, step, _step_is("completion", of=("OWN_NULL_OUTCOME", "OWN_BAD_OUTCOME"))
                )
            )
        ),
    ),
    Allowed(
        "on_complete raising",
        "api.md KB8 close: `on_complete` raising → unavailable, spawn never called "
        "(wave-transport.md §8 KB8(a))",
        _at(lambda step, s, i, w: _step_is("subscribe", answer="RAISES")(step)),
    ),
    Allowed(
        "an unsubscribe that raises",
        "api.md KB8 close: an unsubscribe that raises is swallowed (wave-transport.md §8 KB8(b))",
        _at(
            lambda step, s, i, w: (
                _result_is(s, "REJECTED")
                and _earlier(w, step, _step_is("subscribe", answer="UNSUBSCRIBE_RAISES"))
            )
        ),
    ),
    Allowed(
        "an answer that is not a WaveAggregate",
        "api.md KB8 close: a read_aggregate that returns something that is not a "
        "WaveAggregate settles as aggregate-unreadable",
        _at(lambda step, s, i, w: _step_is("read_fails", how="MALFORMED")(step)),
    ),
    Allowed(
        "the stop grace",
        "api.md KB8 close: a stop unfinished after WAVE_STOP_GRACE_MS is abandoned "
        "(wave-transport.md §8 KB8(c))",
        _at(
            lambda step, s, i, w: (
                step["trigger"] == "deadline"
                and _seed_idle(s)
                and i["outputs"].get("detail", "").endswith("_STOP_ABANDONED")
            )
        ),
    ),
    Allowed(
        "the read deadline",
        "api.md KB8 close: a read_aggregate unfinished within the effective timeout settles "
        "as aggregate-unreadable",
        _at(
            lambda step, s, i, w: (
                step["trigger"] == "deadline"
                and _seed_idle(s)
                and _result_is(i, "AGGREGATE_UNREADABLE")
            )
        ),
    ),
    Allowed(
        "the ping and spawn deadlines",
        f"issue 8 §3; {IMPL_DOC}: a ping or spawn unanswered within the effective timeout, or "
        "within the stop grace once aborted, settles (unavailable, spawn-failed or cancelled)",
        _at(
            lambda step, s, i, w: (
                step["trigger"] == "deadline"
                and _seed_idle(s)
                and _result_is(i, "UNAVAILABLE", "SPAWN_FAILED", "CANCELLED")
            )
        ),
    ),
    Allowed(
        "task cancellation",
        f"{IMPL_DOC} (issue 3's decision): cancelling the task is an abort that is re-raised; "
        "JS has no task cancellation",
        _at(lambda step, s, i, w: step["trigger"] == "cancel" and _seed_idle(s)),
    ),
)
