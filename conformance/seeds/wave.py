"""The transport.ts seed differential: the seed's own code, the `wave` model and impl.waves.

The plugin `python -m conformance.seeds` loads for the wave spec (issue 8 §2). It builds the
UNMODIFIED seed `transport.ts` read from SEEDS_DIR with tsc (TypeScript 5 and @types/node 20,
pinned in `conformance/seeds/transport/package.json` + `package-lock.json`, installed with
`npm ci`) together with `conformance/seeds/transport/harness.ts`, which drives the seed under a
virtual clock with a scripted adapter, one JSON walk per stdin line, in ONE node process. Each
walk's log is a list of check-trace lines of the `wave` model: the seed's logs are checked
against `wave:seed`, impl's (through conformance/test_waves.py's driver) against `wave`.

Every difference between the seed's log and impl's is either none or named in `ALLOWED`: each
entry cites the decision impl follows (an api.md sentence, a KB8 item, impl/waves.py's
docstring for issue 8 §3) and recognises the walk's first differing step by a predicate over
(walk, seed_log, impl_log). Walks are compared up to that first difference: after it the two
runs are in different states by design. The ERL and the Rust seeds are the other plugins'.

Until the framework's check-trace lands here, `consistent_prefix` checks a log against a model
the way check-trace does (the set of model states consistent with the log so far).
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.kernel.explore import Exploration, explore
from models.kernel.spec import Spec

SPEC = "wave"
SEED_FILE = "transport.ts"
SEED_VARIANT = "seed"

Walk = Mapping[str, Any]  # {"init": {...}, "steps": [{"trigger": str, "args": {...}}, ...]}
Log = list[dict[str, Any]]  # check-trace lines; line 0 is {"init": {...}}

HERE = Path(__file__).resolve().parent / "transport"
TSC_FLAGS = ("--target", "es2022", "--module", "commonjs", "--strict", "--types", "node")


@dataclass(frozen=True)
class Allowed:
    """One documented difference between the seed and impl (the framework's own class will
    replace this one: same fields)."""

    name: str
    decision: str
    matches: Callable[[Walk, Log, Log], bool]


class BuildError(RuntimeError):
    """The harness could not be built: the message names what is missing."""


# ---------------------------------------------------------------- building and running


def _tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BuildError(f"'{name}' is missing: install the {package} package (apt-get install)")
    return found


def build(seeds_dir: Path, build_dir: Path) -> Harness:
    """Compile the seed (as it is) and the harness with tsc into `build_dir`."""
    seed = Path(seeds_dir) / SEED_FILE
    if not seed.is_file():
        raise BuildError(f"{seed} not found: set SEEDS_DIR to a checkout holding {SEED_FILE}")
    node = _tool("node", "nodejs")
    tsc = HERE / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        npm = _tool("npm", "npm")
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True
        )
    src, out = Path(build_dir) / "src", Path(build_dir) / "out"
    harness = HERE / "harness.ts"
    digest = hashlib.sha256(seed.read_bytes() + harness.read_bytes()).hexdigest()
    stamp = Path(build_dir) / "stamp"
    if not (stamp.exists() and stamp.read_text() == digest and (out / "harness.js").exists()):
        src.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(seed, src / SEED_FILE)  # byte for byte: the seed is never edited
        shutil.copyfile(harness, src / "harness.ts")
        types = HERE / "node_modules" / "@types"
        done = subprocess.run(
            [str(tsc), *TSC_FLAGS, "--typeRoots", str(types), "--outDir", str(out)]
            + [str(src / "harness.ts"), str(src / SEED_FILE)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise BuildError(f"tsc failed on {seed}:\n{done.stdout}{done.stderr}")
        stamp.write_text(digest)
    return Harness(node, out / "harness.js")


@dataclass(frozen=True)
class Harness:
    node: str
    script: Path

    def run(self, walks: Sequence[Walk]) -> list[Log]:
        """Every walk through one node process; one log per walk, in order."""
        lines = "".join(json.dumps(dict(w)) + "\n" for w in walks)
        done = subprocess.run(
            [self.node, str(self.script)],
            input=lines,
            capture_output=True,
            text=True,
            env={**os.environ, "PERK_WAVE_TIMEOUT_MS": ""},  # DEFAULT means the 900000 default
        )
        if done.returncode != 0:
            raise RuntimeError(f"the transport harness failed: {done.stderr.strip()}")
        logs = [json.loads(line)["log"] for line in done.stdout.splitlines() if line.strip()]
        if len(logs) != len(walks):
            raise RuntimeError(f"the transport harness answered {len(logs)} of {len(walks)} walks")
        return logs

    def env_timeouts(self, texts: Sequence[str | None]) -> list[float]:
        """The effective timeout the seed derives from each PERK_WAVE_TIMEOUT_MS text (None:
        unset), read from its spawn params (wave-transport.md §5)."""
        lines = "".join(json.dumps({"env": t}) + "\n" for t in texts)
        done = subprocess.run(
            [self.node, str(self.script)], input=lines, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(f"the transport harness failed: {done.stderr.strip()}")
        return [float(json.loads(line)["timeout_ms"]) for line in done.stdout.splitlines()]


# ---------------------------------------------------------------- impl's logs


def encode(value: Any) -> Any:
    """A model value spelled as in the --json report: enum names, lists, null, numbers."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    return value


def impl_logs(walks: Sequence[Walk]) -> list[Log]:
    """Drive impl.waves through the conformance driver, one log per walk."""
    from conformance import test_waves as t
    from conformance.harness import Mismatch
    from models import wave as m

    params = {t.name: {p.name: p.domain for p in t.params} for t in m.SPEC.triggers}
    logs: list[Log] = []
    saved = os.environ.pop("PERK_WAVE_TIMEOUT_MS", None)
    try:
        for walk in walks:
            run = t.DRIVER.start({})
            log: Log = [{"init": {}}]
            try:
                for step in walk["steps"]:
                    trigger, args = step["trigger"], step.get("args", {})
                    decoded = {k: _decode(params[trigger][k], v) for k, v in args.items()}
                    try:
                        outputs = t.DRIVER.fire(run, trigger, decoded)
                        state = t.DRIVER.observe(run)
                    except Mismatch as error:
                        outputs, state = {"mismatch": str(error)}, {}
                    log.append(
                        {
                            "trigger": trigger,
                            "args": dict(args),
                            "outputs": {k: encode(v) for k, v in outputs.items()},
                            "state": {k: encode(v) for k, v in state.items()},
                        }
                    )
            finally:
                t.DRIVER.close(run)
            logs.append(log)
    finally:
        if saved is not None:
            os.environ["PERK_WAVE_TIMEOUT_MS"] = saved
    return logs


def _decode(domain: Any, name: Any) -> Any:
    for value in domain.values:
        if encode(value) == name:
            return value
    raise ValueError(f"{name!r} is not a value of {domain}")


# ---------------------------------------------------------------- checking a log


def consistent_prefix(spec: Spec, log: Log, graph: Exploration | None = None) -> int | None:
    """The first line (1-based step) no model state explains, or None when all are (the set of
    states consistent with the log so far must never become empty, as check-trace has it)."""
    graph = graph or explore(spec)
    out: dict[int, list[Any]] = {}
    for edge in graph.edges:
        out.setdefault(edge.source, []).append(edge)
    states = {i for i in range(len(graph.states)) if graph.depth[i] == 0}
    for n, line in enumerate(log[1:], start=1):
        after: set[int] = set()
        for s in states:
            for e in out.get(s, ()):
                if e.trigger != line["trigger"] or _encode_params(e.params) != line["args"]:
                    continue
                if any(encode(e.outputs.get(k)) != v for k, v in line["outputs"].items()):
                    continue
                target = graph.as_dict(e.target)
                if any(encode(target.get(k)) != v for k, v in line["state"].items()):
                    continue
                after.add(e.target)
        if not after:
            return n
        states = after
    return None


def _encode_params(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: encode(v) for k, v in params.items()}


def first_difference(seed_log: Log, impl_log: Log) -> int | None:
    """The first line whose outputs or shared observations differ, or None."""
    for n, (a, b) in enumerate(zip(seed_log, impl_log, strict=True)):
        if n == 0:
            continue
        shared = a["state"].keys() & b["state"].keys()
        if a["outputs"] != b["outputs"] or any(a["state"][k] != b["state"][k] for k in shared):
            return n
    return None


# ---------------------------------------------------------------- the allow-list


def _at(predicate: Callable[[dict[str, Any], dict[str, Any], dict[str, Any], Walk], bool]) -> Any:
    """A predicate on the first differing step: (step, seed line, impl line, walk)."""

    def matches(walk: Walk, seed_log: Log, impl_log: Log) -> bool:
        n = first_difference(seed_log, impl_log)
        return n is not None and predicate(walk["steps"][n - 1], seed_log[n], impl_log[n], walk)

    return matches


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


def unexplained(walk: Walk, seed_log: Log, impl_log: Log) -> str | None:
    """None when the logs agree or an allowed decision explains their first difference;
    else a one-line description of the difference."""
    n = first_difference(seed_log, impl_log)
    if n is None or any(a.matches(walk, seed_log, impl_log) for a in ALLOWED):
        return None
    return f"step {n} ({walk['steps'][n - 1]}): seed {seed_log[n]} / impl {impl_log[n]}"
