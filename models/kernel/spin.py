"""Run SPIN on a spec's Promela export, end to end, and read its answers back.

`run_spin(spec)` exports the spec (`promela.py`), runs `spin -a`, compiles
`pan` with gcc (`-DSAFETY -DNOREDUCE -DBFS`: safety only, no partial-order
reduction, breadth-first so every trail is a shortest one in pan's transitions,
see `transitions`) and runs it:
once with every `always`/`never` selected (when none fails, that one search
proves them all and counts the states; otherwise a search with nothing
selected counts them and each is searched alone), then once per other
property (`SC_PROP=k`, stopping at the first failed assertion), and
replays each failed property's trail (`pan -S -r`) into the project's
`Trace`. A compiled `pan` is cached under `.cache/spin/` by the hash of the
Promela text and the compiler flags, so an unchanged spec is not recompiled.

Verdicts: for `always`/`never` a failed assertion is a counterexample
(`violated`), none is `proved` (on the finite projection); for `sometimes`
the export asserts the negation, so a failure is the witness (`witnessed`)
and none means unreachable (`violated`). `states` is pan's stored-state
count less `promela.SETUP_STATES`, comparable with the explorer's count.
`read_trail` translates a trail from any pan run of the exported model
(say a multi-core one) with `spin -t`, for `python -m models spin-trail`.
`disagreements` compares a result with the explorer, for the agreement test.
`spin_beyond` decides what `verify` checks beside the properties: pan's deadlock
search (`find_deadlock`) and each liveness property (`spin_liveness`), each its own
export and compile (`python -m models spin --full`, and SPIN's side in `make bench`).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from pathlib import Path

from .domains import product_size
from .explore import Exploration
from .explore import initial_states
from .expr import Env
from .expr import evaluate
from .oracle import Oracle
from .oracle import OracleError
from .promela import PROPERTY_ENV
from .promela import SETUP_STATES
from .promela import Export
from .promela import export
from .spec import Kind
from .spec import Property
from .spec import Spec
from .trace import Trace

CACHE = Path(__file__).resolve().parents[2] / ".cache" / "spin"
CFLAGS = ("-O0", "-DSAFETY", "-DNOREDUCE", "-DBFS")  # -O0: gcc is most of SPIN's cost here
MAX_DEPTH = 10_000_000  # pan's default (-m10000) silently truncates deep searches


class SpinError(RuntimeError):
    """SPIN, gcc or pan failed, or pan's search was incomplete (the message says which)."""


class SpinMissing(SpinError):
    """`spin` or `gcc` is not installed."""


@dataclass(frozen=True)
class SpinVerdict:
    name: str
    kind: str
    verdict: str  # proved | witnessed | violated
    trace: Trace | None = None  # the shortest trail, read back, when the assertion failed


@dataclass(frozen=True)
class Seconds:
    spin: float = 0.0  # spin -a (0 when the cached pan was used)
    gcc: float = 0.0  # compiling pan (0 when cached)
    pan: float = 0.0  # every pan search
    trails: float = 0.0  # replaying trails

    @property
    def total(self) -> float:
        return self.spin + self.gcc + self.pan + self.trails


@dataclass(frozen=True)
class SpinResult:
    spec: str
    states: int  # reachable states, comparable with the explorer's (stored - SETUP_STATES)
    stored: int  # pan's `states, stored` (nominal: atomic intermediates excluded)
    transitions: int
    verdicts: dict[str, SpinVerdict] = field(default_factory=dict)
    seconds: Seconds = Seconds()
    cached: bool = False


def tools_missing() -> list[str]:
    return [tool for tool in ("spin", "gcc") if shutil.which(tool) is None]


def _env(selector: int) -> dict[str, str]:
    return {**os.environ, PROPERTY_ENV: str(selector)}


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=600
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise SpinError(f"`{' '.join(cmd)}` failed: " + " / ".join(tail))
    return done.stdout


def compile_pan(
    model: Export, build: Path, *, cache: Path | None = CACHE, cflags: Sequence[str] = CFLAGS
) -> tuple[Path, Seconds, bool]:
    """A `pan` binary for the model: from the cache when its text was compiled before.

    It is compiled in `build` (a directory the caller removes) and, with a cache, copied
    there under the hash of the model and the flags.
    """
    missing = tools_missing()
    if missing:
        raise SpinMissing(
            f"{' and '.join(missing)} not found: install SPIN with `make spin` "
            "(Debian: apt-get install spin gcc)"
        )
    key = hashlib.sha256((model.digest + " ".join(cflags)).encode()).hexdigest()[:20]
    if cache is not None and (cache / key / "pan").exists():
        return cache / key / "pan", Seconds(), True
    name = f"{model.spec.name.replace(':', '-')}.pml"
    (build / name).write_text(model.text)
    started = time.perf_counter()
    # -o2: SPIN would otherwise hide write-only variables (ghosts) from the state.
    _run(["spin", "-o2", "-a", name], build)
    compiled = time.perf_counter()
    _run(["gcc", *cflags, "-w", "-o", "pan", "pan.c"], build)
    seconds = Seconds(spin=compiled - started, gcc=time.perf_counter() - compiled)
    if cache is None:
        return build / "pan", seconds, False
    target = cache / key
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=target.parent))
    shutil.copy2(build / "pan", staged / "pan")
    (staged / name).write_text(model.text)
    try:
        staged.rename(target)  # atomic: a parallel run sees all of it or none
    except OSError:
        shutil.rmtree(staged, ignore_errors=True)  # another run cached it first
    return target / "pan", seconds, False


def _hash_bits(states_hint: int) -> int:
    return max(16, min(28, math.ceil(math.log2(max(states_hint, 1) * 4))))


def _search(pan: Path, cwd: Path, selector: int, bits: int) -> str:
    text = _run([str(pan), f"-m{MAX_DEPTH}", "-E", "-n", f"-w{bits}"], cwd, _env(selector))
    if "max search depth too small" in text or "out of memory" in text:
        raise SpinError(f"pan's search was truncated: {text.strip().splitlines()[0]}")
    return text


def _count(text: str, what: str) -> int:
    found = re.search(r"(\d+) " + what, text)
    if found is None:
        raise SpinError(f"pan's report has no {what!r} figure")
    return int(found.group(1))


def _nominal(report: str) -> int:
    """pan's stored states less those inside `atomic` steps (see `promela`'s docstring)."""
    stored = _count(report, "states, stored")
    if "nominal states" not in report:
        return stored  # a depth-first pan stores no state inside an atomic step
    nominal = re.search(r"(\S+) nominal states", report)
    if nominal and nominal.group(1).isdigit():
        return int(nominal.group(1))
    # pan prints the nominal figure with %g past 10^6: take the exact stored - atomic.
    atomic = re.search(r"(\S+) atomic steps", report)
    if atomic is None or not atomic.group(1).isdigit():
        raise SpinError("pan's report rounds its state count: it cannot be compared exactly")
    return stored - int(atomic.group(1))


def run_spin(
    spec: Spec,
    *,
    trails: bool = True,
    cache: Path | None = CACHE,
    cflags: Sequence[str] = CFLAGS,
    states_hint: int | None = None,
) -> SpinResult:
    """SPIN's exhaustive search of `spec`: state count, one verdict per property, trails.

    `cache=None` compiles afresh (an end-to-end timing); `cflags` must keep `-DBFS` for
    shortest trails; `states_hint` sizes pan's hash table (default: the product of the
    variables' domains, capped at 2^18).
    """
    model = export(spec)
    hint = states_hint or min(product_size(v.domain for v in spec.vars), 1 << 18)
    bits = _hash_bits(hint)
    verdicts: dict[str, SpinVerdict] = {}
    pan_seconds = trail_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="statecheck-spin-") as work:
        build, cwd = Path(work) / "build", Path(work) / "run"
        build.mkdir()
        cwd.mkdir()
        pan, seconds, cached = compile_pan(model, build, cache=cache, cflags=cflags)
        started = time.perf_counter()
        # One search proves every always/never when none fails, and counts the states;
        # otherwise a search with nothing selected counts them, and each is run alone.
        report = _search(pan, cwd, model.every_safety_property, bits)
        all_safe = "assertion violated" not in report
        if not all_safe:
            for stale in cwd.glob("*.trail"):
                stale.unlink()
            report = _search(pan, cwd, model.no_property, bits)
            if "errors: 0" not in report:
                # Only the range assertions are unconditional (see `promela`).
                first = next((ln for ln in report.splitlines() if "violated" in ln), report[:200])
                raise SpinError(f"{spec.name}: an update leaves its variable's range: {first}")
        stored = _nominal(report)
        transitions = _count(report, "transitions")
        for k, prop in enumerate(model.properties, start=1):
            if all_safe and prop.kind is not Kind.SOMETIMES:
                verdicts[prop.name] = SpinVerdict(prop.name, str(prop.kind), "proved")
                continue
            text = _search(pan, cwd, k, bits)
            pan_seconds += time.perf_counter() - started
            hit = "assertion violated" in text
            if prop.kind is Kind.SOMETIMES:
                verdict = "witnessed" if hit else "violated"
            else:
                verdict = "violated" if hit else "proved"
            trace = None
            trail = next(cwd.glob("*.trail"), None)
            if trail is not None:
                if hit and trails:
                    replay = time.perf_counter()
                    # The replay re-runs the model's C code: it needs the same selector.
                    out = _run([str(pan), "-S", "-r", trail.name, "-w10"], cwd, _env(k))
                    trace = model.read_steps(out.splitlines())
                    trail_seconds += time.perf_counter() - replay
                trail.unlink()
            verdicts[prop.name] = SpinVerdict(prop.name, str(prop.kind), verdict, trace)
            started = time.perf_counter()
        pan_seconds += time.perf_counter() - started
    return SpinResult(
        spec.name,
        stored - SETUP_STATES,
        stored,
        transitions,
        verdicts,
        Seconds(seconds.spin, seconds.gcc, pan_seconds, trail_seconds),
        cached,
    )


@dataclass(frozen=True)
class SpinDeadlock:
    """pan's search for invalid end states: a reachable non-terminal state where no
    trigger can fire, as the kernel's no-deadlock check defines it."""

    found: bool
    trace: Trace | None = None  # the shortest path to it, read back
    seconds: Seconds = Seconds()  # spin -a, gcc, pan and the trail, as `run_spin` times them


def find_deadlock(spec: Spec, *, cache: Path | None = CACHE) -> SpinDeadlock:
    """SPIN's deadlock verdict: the export (terminal states may stutter) searched by pan
    without `-E`, checking no property; a deadlock's trail is read back."""
    model = export(spec, terminal_loop=True)
    bits = _hash_bits(min(product_size(v.domain for v in spec.vars), 1 << 18))
    with tempfile.TemporaryDirectory(prefix="statecheck-spin-") as work:
        build, cwd = Path(work) / "build", Path(work) / "run"
        build.mkdir()
        cwd.mkdir()
        pan, built, _ = compile_pan(model, build, cache=cache)
        env = _env(model.no_property)
        started = time.perf_counter()
        text = _run([str(pan), f"-m{MAX_DEPTH}", "-n", f"-w{bits}"], cwd, env)
        searched = time.perf_counter() - started
        if "max search depth too small" in text or "out of memory" in text:
            raise SpinError(f"pan's search was truncated: {text.strip().splitlines()[0]}")
        seconds = replace(built, pan=searched)
        if re.search(r"pan:\d+: invalid end state", text) is None:
            return SpinDeadlock(False, seconds=seconds)
        trail = next(cwd.glob("*.trail"), None)
        if trail is None:
            return SpinDeadlock(True, seconds=seconds)
        started = time.perf_counter()
        out = _run([str(pan), "-S", "-r", trail.name, "-w10"], cwd, env)
        seconds = replace(seconds, trails=time.perf_counter() - started)
        return SpinDeadlock(True, model.read_steps(out.splitlines()), seconds)


def read_trail(spec: Spec, model_file: Path, trail_file: Path) -> tuple[Trace, list[str]]:
    """A trail from any pan run of `spec`'s export, as a trace, and the properties it breaks.

    `spin -t` replays it (pan's own `-r` would need the binary and its selector); the
    model file must be the current export of the spec, or the codes would be misread.
    The properties named are those whose bad state or step the trail ends in.
    """
    model = export(spec)
    if model_file.read_text() != model.text:
        raise SpinError(
            f"{model_file} is not the current export of {spec.name!r}: re-export it with "
            f"`python -m models promela {spec.name} -o {model_file}` and rerun pan"
        )
    if tools_missing():
        raise SpinMissing("spin not found: install it with `make spin`")
    out = _run(
        ["spin", "-t", "-k", str(trail_file.resolve()), model_file.name],
        model_file.resolve().parent,
    )
    trace = model.read_steps(out.splitlines())
    return trace, [p.name for p in spec.properties if _ends_bad(spec, p, trace)]


@dataclass(frozen=True)
class SpinBeyond:
    """SPIN's verdicts on what `verify` decides beside the properties: `no-deadlock` (pan's
    deadlock search, when the spec checks deadlock) and each liveness property, with
    what they cost together (each is its own export and compile)."""

    verdicts: dict[str, str]  # check id: proved | violated
    seconds: Seconds


def spin_beyond(spec: Spec, *, cache: Path | None = CACHE) -> SpinBeyond:
    """pan's deadlock search and one acceptance-cycle search per liveness property, as
    `verify`'s checks of the same names decide them (a variant has no `no-deadlock`)."""
    verdicts: dict[str, str] = {}
    costs: list[Seconds] = []
    if spec.check_deadlock and not spec.expect_violated:
        dead = find_deadlock(spec, cache=cache)
        verdicts["no-deadlock"] = "violated" if dead.found else "proved"
        costs.append(dead.seconds)
    for p in spec.liveness:
        live = spin_liveness(spec, p.name, cache=cache)
        verdicts[p.name] = "proved" if live.holds else "violated"
        costs.append(live.seconds)
    total = Seconds(
        sum(c.spin for c in costs),
        sum(c.gcc for c in costs),
        sum(c.pan for c in costs),
        sum(c.trails for c in costs),
    )
    return SpinBeyond(verdicts, total)


# ---------------------------------------------------------------- agreement with the explorer


def expected_verdict(spec: Spec, prop: Property) -> str:
    """What `verify` must report for a property when the spec is right."""
    if prop.name in spec.expect_violated:
        return "violated"
    return "witnessed" if prop.kind is Kind.SOMETIMES else "proved"


def explorer_verdict(graph: Exploration, prop: Property) -> tuple[str, Trace | None]:
    """The explorer's verdict on its complete graph, with its shortest trace to `bad`."""
    if prop.over_steps:
        edge = graph.first_edge(prop.bad)
        hit = None if edge is None else graph.path_through(edge)
    else:
        i = graph.first_state(prop.bad)
        hit = None if i is None else graph.path_to(i)
    if prop.kind is Kind.SOMETIMES:
        return ("witnessed" if hit is not None else "violated"), hit
    return ("violated" if hit is not None else "proved"), hit


def replay_on_oracle(spec: Spec, trace: Trace) -> str | None:
    """Why SPIN's trace is not a run of the spec's oracle, or None when it is one."""
    if dict(trace.init) not in initial_states(spec):
        return f"its initial state {dict(trace.init)} is not an initial state of the spec"
    oracle = Oracle(spec)
    before = trace.init
    for i, step in enumerate(trace.steps, start=1):
        oracle.load(before)
        try:
            fired = oracle.fire(step.trigger, **step.params)
        except OracleError as err:
            return f"step {i} ({step.row}) cannot fire: {err}"
        if fired.row != step.row or dict(fired.state) != dict(step.state):
            return f"step {i}: the oracle fires {fired.row} to {dict(fired.state)}"
        if dict(fired.outputs) != dict(step.outputs):
            return f"step {i}: the oracle emits {dict(fired.outputs)}, SPIN {dict(step.outputs)}"
        before = step.state
    return None


def disagreements(spec: Spec, result: SpinResult, graph: Exploration) -> list[str]:
    """Every way SPIN's answer differs from the explorer's (empty when they agree).

    States are compared as the module docstring of `promela` says; verdicts per
    property; a trail must be as short as the explorer's shortest trace in pan's
    transitions (`transitions`) and no shorter in steps, be a run of the oracle
    and end in the property's bad state or step.
    """
    found: list[str] = []
    if result.states != len(graph.states):
        found.append(
            f"{spec.name}: SPIN reaches {result.states} states "
            f"(pan stored {result.stored} - {SETUP_STATES}), the explorer {len(graph.states)}"
        )
    for prop in spec.properties:
        spin = result.verdicts[prop.name]
        ours, hit = explorer_verdict(graph, prop)
        where = f"{spec.name} {prop.name}"
        if spin.verdict != ours:
            found.append(f"{where}: SPIN says {spin.verdict}, the explorer {ours}")
            continue
        if hit is None:
            continue
        if spin.trace is None:
            found.append(f"{where}: SPIN's trail was not read back")
            continue
        ours_cost, spin_cost = transitions(spec, hit), transitions(spec, spin.trace)
        if len(spin.trace) < len(hit) or spin_cost > ours_cost:
            found.append(
                f"{where}: SPIN's trail has {len(spin.trace)} steps, the explorer's "
                f"{len(hit)} ({spin_cost} and {ours_cost} pan transitions)"
            )
        wrong = replay_on_oracle(spec, spin.trace)
        if wrong:
            found.append(f"{where}: SPIN's trail is not a run of the spec: {wrong}")
        elif not _ends_bad(spec, prop, spin.trace):
            found.append(f"{where}: SPIN's trail does not end where the property fails")
    return found


def transitions(spec: Spec, trace: Trace) -> int:
    """What a trace costs pan's breadth-first search: a trigger with m parameters takes
    m + 2 transitions (the `atomic` step's `go`, one per pick, the `d_step`), one without
    takes 1. pan minimises this, the explorer the number of steps: so SPIN's trail is never
    shorter than the explorer's, nor costs more, and the two are equal when no step on
    either has parameters."""
    params = [len(spec.trigger(s.trigger).params) for s in trace.steps]
    return sum(m + 2 if m else 1 for m in params)


def _ends_bad(spec: Spec, prop: Property, trace: Trace) -> bool:
    states = trace.states()
    if not prop.over_steps:
        return bool(evaluate(prop.bad, Env(pre=states[-1])))
    if not trace.steps:
        return False
    last = trace.steps[-1]
    env = Env(
        pre=states[-2],
        post=last.state,
        params=last.params,
        outputs=last.outputs,
        trigger=last.trigger,
        row=last.row,
        group=spec.group_of(last.trigger),
    )
    return bool(evaluate(prop.bad, env))


# Liveness: acceptance cycles of the `ltl` claim, depth-first (nested search), with no
# partial-order reduction. Not `-f`: SPIN's weak fairness is among processes, and the export
# is one process; the kernel's fairness is over triggers, so it is in the formula itself.
LIVE_CFLAGS = ("-O0", "-DNOREDUCE")


@dataclass(frozen=True)
class SpinLive:
    """SPIN's verdict on one liveness property, and what it cost (spin -a, gcc, pan)."""

    holds: bool  # pan found no acceptance cycle
    seconds: Seconds = Seconds()


def spin_liveness(spec: Spec, name: str, *, cache: Path | None = CACHE) -> SpinLive:
    """SPIN's verdict on one liveness property: its own export (the claim and the `fired`
    bookkeeping its fairness reads), compiled and searched for acceptance cycles."""
    model = export(spec, live=spec.live(name))
    bits = _hash_bits(min(product_size(v.domain for v in spec.vars), 1 << 18))
    with tempfile.TemporaryDirectory(prefix="statecheck-spin-") as work:
        build, cwd = Path(work) / "build", Path(work) / "run"
        build.mkdir()
        cwd.mkdir()
        pan, built, _ = compile_pan(model, build, cache=cache, cflags=LIVE_CFLAGS)
        env = _env(model.no_property)
        started = time.perf_counter()
        text = _run([str(pan), "-a", f"-m{MAX_DEPTH}", "-E", "-n", f"-w{bits}"], cwd, env)
        searched = time.perf_counter() - started
        if "max search depth too small" in text or "out of memory" in text:
            raise SpinError(f"pan's search was truncated: {text.strip().splitlines()[0]}")
        errors = re.search(r"errors: (\d+)", text)
        if errors is None:
            raise SpinError("pan's report has no error count")
        return SpinLive(errors.group(1) == "0", replace(built, pan=searched))
