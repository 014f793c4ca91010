"""`make bench`: the engines side by side, the scaling families, and verify's budget.

Not a test: pytest does not collect this file. The machines are shared and
noisy, so every figure is the median of `--repeat` runs (at least 5) with the
noise shown as min–max, and the things a ratio compares are run alternately,
round by round, never one batch after the other.

Four parts (`--part`, default all):

- `engines`: per spec, each engine on its own — the explorer (BFS over the
  compiled rows), witness confirmation (the explorer's path for every
  `sometimes`, checked step by step by z3), k-induction and Spacer (every
  `always`/`never`) — and the whole `python -m models verify SPEC` process,
  as ratios of that end-to-end time.
- `scaling`: the generated families of `tests/families.py` from 10^2 to 10^6
  reachable states. Each run is a fresh process (`--end-to-end`) that builds
  the spec, explores it and decides one safety property and one `sometimes`;
  it reports explore time, states/s and its peak memory (VmHWM), beside
  SPIN end to end on the same family.
- `protocols` (issue 16 §6): the classic protocol fixtures of
  `tests/protocols/` and the two-phase-commit family `transaction_commit(n)`
  of `tests/families.py` (288 states at n=3 to 1.7 M at n=8, up to
  `--largest`), each as a user meets it: a fresh process that builds the spec
  and runs every check `verify` runs (default budgets, certificate search
  included), against SPIN deciding the same verdicts end to end, nothing
  cached, as `python -m models spin --full` runs it: the properties (`spin -a`,
  `gcc` with `spin.CFLAGS`, every `pan` search, trails read back), pan's
  deadlock search where the spec checks deadlock, and one liveness search per
  liveness property (`spin.spin_beyond`: each its own export and compile). Also
  against the plain `spin` command's share alone (the properties) and pan's
  searches alone, all in the same rounds, as ratios; with our peak memory.
- `gate`: every phase `make verify` runs (tests/gate.py), each alone, against
  its own budget where an issue gave one and as a share of the gate's 20 s;
  the whole gate warm (`--fresh`) against 20 s and cached against 5 s; the
  gate's pytest in one process against 2 and 3 xdist workers, as ratios;
  then two figures outside the gate: diagrams + report under 5 s
  (issue 10) and check-trace on a 100k-step log under 5 s (issue 8). A step
  that fails is still timed and flagged `FAILED`.

Parts run alone with `--part`; the whole bench takes about 15 minutes
(`--largest 2000000` adds duplex4, 1.68 M states: 7 minutes more).

SPIN side by side (issue 9 §3–4): `spin_end_to_end` exports a spec to
Promela and runs SPIN on it end to end with nothing cached (`spin -a`,
`gcc -O2` with `-DSAFETY -DNOREDUCE -DBFS`, every `pan` search, the trails
replayed), timed by `run_spin`'s own clocks, so the Python export is not
counted against SPIN. Every SPIN run is held to ours: its reachable-state
count and every verdict must match (`engines`: the explorer's graph and
`spin.disagreements`, every variant included, as `verify SPEC` runs them;
`scaling`: the fresh process's state count and its two verdicts, on the
family exported with just those two properties). A mismatch prints a
`SPIN DISAGREES` line and makes the bench exit 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import gate  # noqa: E402
from families import counters  # noqa: E402
from families import duplex_product  # noqa: E402
from families import transaction_commit  # noqa: E402

from models.cli.registry import expand  # noqa: E402
from models.cli.registry import load  # noqa: E402
from models.kernel import Kind  # noqa: E402
from models.kernel import Spec  # noqa: E402
from models.kernel.checks import Checker  # noqa: E402
from models.kernel.checks import verify  # noqa: E402
from models.kernel.explore import explore  # noqa: E402
from models.kernel.expr import Not  # noqa: E402
from models.kernel.smt import Budget  # noqa: E402
from models.kernel.smt import Encoding  # noqa: E402
from models.kernel.smt import Engines  # noqa: E402
from models.kernel.spin import CFLAGS as SPIN_COMMAND_CFLAGS  # noqa: E402
from models.kernel.spin import SpinResult  # noqa: E402
from models.kernel.spin import disagreements  # noqa: E402
from models.kernel.spin import run_spin  # noqa: E402
from models.kernel.spin import spin_beyond  # noqa: E402
from models.kernel.spin import tools_missing  # noqa: E402

PY = str(BIN / "python")
# Every phase of `make verify` (tests/gate.py's list, so the two never drift), with the budget
# an issue gave it (None: no budget of its own, only the gate's).
BUDGETS = {"model checks": 5.0, "mutant gate (fast)": 8.0, "seed differential": 8.0}
PARTS: list[tuple[str, list[str], float | None]] = [
    (p.name, p.command, BUDGETS.get(p.name)) for p in gate.phases()
]
GATE_BUDGET = 20.0  # issue 14: warm `make verify` on an unchanged tree
CACHED_BUDGET = 5.0  # issue 14: the rerun that finds every result cached
GATE = [PY, str(ROOT / "tests" / "gate.py")]
WORKERS = (1, 2, 3)  # the gate's pytest, timed in one process and on N xdist workers

# family: (builder, sizes k, reachable states at k, the safety property and the `sometimes`
# decided end to end)
FAMILIES: dict[
    str, tuple[Callable[[int], Spec], tuple[int, ...], Callable[[int], int], tuple[str, str]]
] = {
    "counters": (
        counters,
        (2, 3, 4, 5, 6),
        lambda k: 10**k,
        ("counters-stay-in-range", "all-at-top"),
    ),
    "duplex": (
        duplex_product,
        (1, 2, 3, 4),
        lambda k: 36**k,
        ("text-never-overlap_0", "every-copy-overlaps"),
    ),
}


SPIN_CFLAGS = ("-O2", "-DSAFETY", "-DNOREDUCE", "-DBFS")  # -DBFS: shortest trails, as ours
MISMATCHES: list[str] = []  # every disagreement between SPIN and us, for the exit status
FAILED: list[str] = []  # every protocol whose `verify` process failed, for the exit status


def spin_end_to_end(spec: Spec, *, states_hint: int | None = None) -> SpinResult | None:
    """SPIN on `spec` end to end, compiled afresh (`spin -a`, `gcc -O2`, `pan`, trails).

    None when SPIN or gcc is missing (`make spin` installs them): the columns print `-`."""
    if tools_missing():
        return None
    return run_spin(spec, cache=None, cflags=SPIN_CFLAGS, states_hint=states_hint)


def disagree(found: Sequence[str]) -> None:
    """Say loudly that SPIN and we differ, and remember it for the exit status."""
    for line in found:
        if line not in MISMATCHES:
            MISMATCHES.append(line)
            print(f"!!! SPIN DISAGREES: {line}", flush=True)


def _spin_on(specs: Sequence[Spec]) -> Callable[[], float | None]:
    """SPIN end to end on a spec and its variants (what `verify SPEC` checks), held to ours."""
    graphs = {s.name: explore(s) for s in specs}

    def run() -> float | None:
        total = 0.0
        for s in specs:
            result = spin_end_to_end(s, states_hint=len(graphs[s.name].states))
            if result is None:
                return None
            disagree(disagreements(s, result, graphs[s.name]))
            total += result.seconds.total
        return total

    return run


# ---------------------------------------------------------------- measuring


def stats(runs: Sequence[float]) -> tuple[float, float, float]:
    return statistics.median(runs), min(runs), max(runs)


def noise(runs: Sequence[float]) -> str:
    median, lo, hi = stats(runs)
    return f"{median * 1000:8.1f} ms ({lo * 1000:.1f}–{hi * 1000:.1f})"


def round_ratio(a: Sequence[float], b: Sequence[float]) -> str:
    """a/b per alternated round: the median and its min–max, the noise a ratio carries."""
    if not a or len(a) != len(b):
        return ratio(a, b)
    median, lo, hi = stats([x / y for x, y in zip(a, b, strict=True)])
    return f"{median:.3g}× ({lo:.3g}–{hi:.3g})"


def ratio(a: Sequence[float] | None, b: Sequence[float] | None) -> str:
    if not a or not b:
        return "-"
    return f"{statistics.median(a) / statistics.median(b):.3g}×"


def alternate(
    contenders: dict[str, Callable[[], float | None]], repeat: int
) -> dict[str, list[float]]:
    """Each contender once per round, round after round: load drifts hit all alike."""
    runs: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            seconds = run()
            if seconds is not None:
                runs[name].append(seconds)
    return runs


def run_timed(
    command: list[str], cached: bool = False, extra: Mapping[str, str] | None = None
) -> tuple[float, str | None]:
    """Wall seconds of one command, and why it failed (None when it exited 0). It reads no
    cached result unless `cached`; `extra` adds to its environment."""
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    env["STATECHECK_NO_CACHE"] = "" if cached else "1"
    env.update(extra or {})
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode == 0:
        return seconds, None
    tail = (done.stdout.strip().splitlines() or done.stderr.strip().splitlines() or [""])[-1]
    return seconds, f"exit {done.returncode}: {tail[:70]}"


def timed(command: list[str]) -> float:
    seconds, failed = run_timed(command)
    if failed:
        sys.exit(f"bench: {' '.join(command)} failed ({failed})")
    return seconds


# ---------------------------------------------------------------- engines, per spec


def _engines(spec: Spec) -> Engines:
    return Engines(Encoding(spec), Budget(60))  # fresh: nothing learnt carries over a run


def _explorer(spec: Spec) -> Callable[[], float]:
    def run() -> float:
        return explore(spec).seconds

    return run


def _confirmation(spec: Spec) -> Callable[[], float | None]:
    graph = explore(spec)
    wanted = [p for p in spec.properties if p.kind is Kind.SOMETIMES]
    traces = []
    for p in wanted:
        if p.over_steps:
            edge = graph.first_edge(p.pred)
            traces.append((p, None if edge is None else graph.path_through(edge)))
        else:
            i = graph.first_state(p.pred)
            traces.append((p, None if i is None else graph.path_to(i)))
    found = [(p, t) for p, t in traces if t is not None]
    if not found:
        return lambda: None

    def run() -> float:
        z3 = _engines(spec)
        started = time.perf_counter()
        for p, trace in found:
            z3.confirm(trace, p.pred, step=p.over_steps)
        return time.perf_counter() - started

    return run


def _safety(spec: Spec, engine: str) -> Callable[[], float | None]:
    wanted = [p for p in spec.properties if p.kind is not Kind.SOMETIMES]
    if not wanted:
        return lambda: None

    def run() -> float:
        z3 = _engines(spec)
        started = time.perf_counter()
        for p in wanted:
            if engine == "spacer":
                z3.spacer(p.bad, step=p.over_steps)
            else:
                z3.k_induction(Not(p.bad), step=p.over_steps, max_k=12)
        return time.perf_counter() - started

    return run


def bench_engines(repeat: int) -> None:
    print("\n== engines per spec: median (min–max) of", repeat, "alternated runs")
    print(
        f"{'spec':<16} {'ours end to end (verify)':>28} {'explorer':>8} {'confirm':>8} "
        f"{'k-ind':>8} {'spacer':>8} {'SPIN end to end':>28} {'ours/SPIN per round':>22}"
    )
    print(
        f"{'':<16} {'':>28} (engines as ratios of our end to end; "
        "SPIN on the spec and its variants)"
    )
    registry = load()
    for module, broken in registry.broken.items():
        print(f"{module:<16} skipped: models/{module}.py is broken ({broken.error[:60]})")
    for name, spec in registry.specs.items():
        command = [str(BIN / "python"), "-m", "models", "verify", name, "--jobs", "1"]
        runs = alternate(
            {
                "e2e": lambda c=command: timed(c),  # type: ignore[misc]
                "explorer": _explorer(spec),
                "confirm": _confirmation(spec),
                "k-induction": _safety(spec, "k-induction"),
                "spacer": _safety(spec, "spacer"),
                "spin": _spin_on(expand([name], registry)),
            },
            repeat,
        )
        e2e = runs["e2e"]
        spin = noise(runs["spin"]) if runs["spin"] else "-"
        print(
            f"{name:<16} {noise(e2e):>28} {ratio(runs['explorer'], e2e):>8} "
            f"{ratio(runs['confirm'], e2e):>8} {ratio(runs['k-induction'], e2e):>8} "
            f"{ratio(runs['spacer'], e2e):>8} {spin:>28} {round_ratio(e2e, runs['spin']):>22}",
            flush=True,
        )


# ---------------------------------------------------------------- scaling


def end_to_end(family: str, k: int) -> dict[str, object]:
    """One scaling run, in this (fresh) process: build, explore, decide two properties."""
    build, _, _, (safety, witness) = FAMILIES[family]
    started = time.perf_counter()
    spec = build(k)
    checker = Checker(spec)
    verdicts = [next(checker.run(only=name)) for name in (safety, witness)]
    return {
        "states": len(checker.graph.states),
        "edges": checker.graph.edge_count,
        "depth": checker.graph.diameter,
        "explore": checker.graph.seconds,
        "check": time.perf_counter() - started,
        "peak_mb": peak_mb(),
        "ok": all(v.ok for v in verdicts),
        "verdicts": {v.id: v.verdict for v in verdicts},
    }


def peak_mb() -> float:
    """This process's peak resident memory, in MB.

    `VmHWM` belongs to the process's address space, which `exec` replaces; `ru_maxrss`
    would carry over the bench's own peak through the fork."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _process(family: str, k: int, report: list[dict[str, Any]]) -> float:
    command = [sys.executable, __file__, "--end-to-end", family, str(k)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench: {family} k={k} failed:\n{done.stderr[-2000:]}")
    report.append(json.loads(done.stdout))
    return seconds


def _spin_family(spec: Spec, states: int, ours: list[dict[str, Any]]) -> Callable[[], float | None]:
    """SPIN end to end on the family exported with only the two properties we decide."""

    def run() -> float | None:
        result = spin_end_to_end(spec, states_hint=states)
        if result is None:
            return None
        mine = ours[-1]  # the run just before, in the same round
        found = []
        if result.states != mine["states"]:
            found.append(f"{spec.name}: SPIN reaches {result.states} states, we {mine['states']}")
        for prop, verdict in mine["verdicts"].items():
            if result.verdicts[prop].verdict != verdict:
                found.append(
                    f"{spec.name} {prop}: SPIN says {result.verdicts[prop].verdict}, we {verdict}"
                )
        disagree(found)
        return result.seconds.total

    return run


def bench_scaling(repeat: int, largest: int) -> None:
    print("\n== scaling: one fresh process per run; median (min–max) of", repeat, "alternated runs")
    print(
        f"{'family':<14} {'states':>9} {'edges':>10} {'depth':>5} {'explore':>26} "
        f"{'states/s':>10} {'peak MB':>8} {'ours end to end (process)':>28} "
        f"{'SPIN end to end':>28} {'ours/SPIN per round':>22}"
    )
    for family, (build, sizes, size, decided) in FAMILIES.items():
        for k in (k for k in sizes if size(k) <= largest):
            reports: list[dict[str, Any]] = []
            spec = build(k)
            two = dataclasses.replace(
                spec, properties=tuple(p for p in spec.properties if p.name in decided)
            )
            runs = alternate(
                {
                    "ours": lambda f=family, k=k, r=reports: _process(f, k, r),  # type: ignore[misc]
                    "spin": _spin_family(two, size(k), reports),
                },
                repeat,
            )
            first = reports[0]
            explored = [float(r["explore"]) for r in reports]
            rate = int(first["states"]) / statistics.median(explored)
            peak = max(float(r["peak_mb"]) for r in reports)
            spin = noise(runs["spin"]) if runs["spin"] else "-"
            print(
                f"{spec.name:<14} {first['states']:>9} {first['edges']:>10} {first['depth']:>5} "
                f"{noise(explored):>26} {rate:>10.0f} {peak:>8.0f} {noise(runs['ours']):>28} "
                f"{spin:>28} {round_ratio(runs['ours'], runs['spin']):>22}"
                + ("" if all(r["ok"] for r in reports) else "   VERDICTS WRONG")
                + ("" if peak <= 2048 else "   OVER 2 GB"),
                flush=True,
            )


# ---------------------------------------------------------------- protocols (issue 16 §6)

TCOMMIT_SIZES = (3, 4, 5, 6, 7, 8)  # 288, 1,568, 8,832, 50,816, 296,448, 1,745,408 states
TCOMMIT_STATES = {3: 288, 4: 1568, 5: 8832, 6: 50816, 7: 296448, 8: 1745408}


def protocol_names(largest: int) -> list[str]:
    """Every protocol fixture of tests/protocols/ (where present), then the tcommit family."""
    names = [f"protocol:{spec.name}" for spec in _fixtures()]
    return names + [f"tcommit:{n}" for n in TCOMMIT_SIZES if TCOMMIT_STATES[n] <= largest]


def protocol_spec(name: str) -> Spec:
    kind, _, which = name.partition(":")
    if kind == "tcommit":
        return transaction_commit(int(which))
    return next(spec for spec in _fixtures() if spec.name == which)


def _fixtures() -> list[Spec]:
    """The specs of tests/protocols/ (`FIXTURES`), found by looking: none before they land."""
    if not (ROOT / "tests" / "protocols" / "__init__.py").exists():
        return []
    return [f.spec for f in importlib.import_module("protocols").FIXTURES]


def verify_one(name: str) -> dict[str, object]:
    """`verify` on one protocol, in this (fresh) process: every check, default budgets."""
    report = verify(protocol_spec(name))
    return {
        "states": len(report.exploration.states),
        "ok": report.ok,
        "verdicts": {c.id: c.verdict for c in report.checks},
        "uncertified": sum("no certificate" in c.basis_text for c in report.checks),
        "peak_mb": peak_mb(),
    }


def _verify_process(name: str, report: list[dict[str, Any]]) -> float:
    command = [sys.executable, __file__, "--verify-one", name]
    # As a user runs it: Python's bytecode cache on (a sandbox may turn it off).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ProtocolFailed(f"{name}: verify's process exited {done.returncode}: {last[:120]}")
    report.append(json.loads(done.stdout))
    return seconds


class ProtocolFailed(Exception):
    """A protocol's `verify` process failed: its row says so and the bench exits 1."""


def _spin_command(
    spec: Spec, ours: list[dict[str, Any]], pan: list[float], safety: list[float]
) -> Callable[[], float]:
    """SPIN deciding what our `verify` decides, compiled afresh each time, as
    `python -m models spin --full` runs it: the properties (`run_spin`, the plain `spin`
    command's share, noted apart), then pan's deadlock search where the spec checks
    deadlock and one liveness search per liveness property (`spin_beyond`); pan's share
    noted apart too."""

    def run() -> float:
        mine = ours[-1]  # the run just before, in the same round
        result = run_spin(
            spec, cache=None, cflags=SPIN_COMMAND_CFLAGS, states_hint=int(mine["states"])
        )
        found = []
        if result.states != mine["states"]:
            found.append(f"{spec.name}: SPIN reaches {result.states} states, we {mine['states']}")
        beyond = spin_beyond(spec, cache=None)
        said = {name: v.verdict for name, v in result.verdicts.items()} | beyond.verdicts
        for prop, spin_verdict in said.items():
            if spin_verdict != mine["verdicts"][prop]:
                found.append(
                    f"{spec.name} {prop}: SPIN says {spin_verdict}, we {mine['verdicts'][prop]}"
                )
        disagree(found)
        pan.append(result.seconds.pan + beyond.seconds.pan)
        safety.append(result.seconds.total)
        return result.seconds.total + beyond.seconds.total

    return run


def bench_protocols(repeat: int, largest: int) -> None:
    print(
        "\n== protocols: `verify` (every check, a fresh process) against SPIN deciding the same"
        f" verdicts; median (min–max) of {repeat} alternated rounds"
    )
    if tools_missing():
        print("SPIN or gcc missing (`make spin`): only our side is timed")
    print(
        f"{'protocol':<22} {'states':>9} {'ours end to end':>26} {'SPIN end to end':>26} "
        f"{'ours/SPIN per round':>22} {'pan alone':>10} {'ours/pan':>9} "
        f"{'ours/SPIN safety':>16} {'peak MB':>8} {'no cert.':>8}"
    )
    for name in protocol_names(largest):
        spec = protocol_spec(name)
        reports: list[dict[str, Any]] = []
        pan: list[float] = []
        safety: list[float] = []
        contenders: dict[str, Callable[[], float | None]] = {
            "ours": lambda n=name, r=reports: _verify_process(n, r),  # type: ignore[misc]
        }
        if not tools_missing():
            contenders["spin"] = _spin_command(spec, reports, pan, safety)
        try:
            runs = alternate(contenders, repeat)
        except ProtocolFailed as failed:
            FAILED.append(str(failed))
            print(f"{spec.name:<22} FAILED: {failed}", flush=True)
            continue
        first = reports[0]
        peak = max(float(r["peak_mb"]) for r in reports)
        spin = noise(runs["spin"]) if runs.get("spin") else "-"
        print(
            f"{spec.name:<22} {first['states']:>9} {noise(runs['ours']):>26} {spin:>26} "
            f"{round_ratio(runs['ours'], runs.get('spin', [])):>22} "
            f"{statistics.median(pan) if pan else float('nan'):>9.2f}s "
            f"{ratio(runs['ours'], pan):>9} {round_ratio(runs['ours'], safety):>16} "
            f"{peak:>8.0f} {first['uncertified']:>8}"
            + ("" if all(r["ok"] for r in reports) else "   VERDICTS WRONG")
            + ("" if peak <= 1024 else "   OVER 1 GB"),
            flush=True,
        )


# ---------------------------------------------------------------- the gate's budget


def bench_gate(repeat: int) -> None:
    """Every phase of `make verify` alone, round after round (a failing one is timed and
    flagged); then the whole gate, warm (fresh) and cached; then pytest's workers."""
    print("\n== make verify, phase by phase (each alone, fresh): median (min–max) of", repeat)
    print(f"{'phase':<24} {'median':>8} {'min':>8} {'max':>8}   {'of 20 s':>7}   budget")
    failures: dict[str, str] = {}

    def step(
        name: str, command: list[str], cached: bool = False, jobs: int | None = None
    ) -> Callable[[], float]:
        extra = None if jobs is None else {"PYTEST_JOBS": str(jobs)}

        def run() -> float:
            seconds, failed = run_timed(command, cached, extra)
            if failed:
                failures[name] = failed
            return seconds

        return run

    runs = alternate({name: step(name, command) for name, command, _ in PARTS}, repeat)
    total = 0.0
    for name, _, budget in PARTS:
        median, lo, hi = stats(runs[name])
        total += median
        quota = f"{median:.2f}s / {budget:.0f}s = {median / budget:.2f}×" if budget else "-"
        flag = f"   FAILED ({failures[name]})" if name in failures else ""
        print(
            f"{name:<24} {median:7.2f}s {lo:7.2f}s {hi:7.2f}s   {median / GATE_BUDGET:6.1%}"
            f"   {quota}{flag}",
            flush=True,
        )
    print(f"{'phases one by one (sum)':<24} {total:7.2f}s   {total / GATE_BUDGET:.2f}× of 20 s")
    # The gate's pytest workers are chosen inside the whole gate, where the other phases
    # share the cores, not by its pytest alone (bench_workers).
    other = 2 if gate.WORKERS == 1 else 1
    alt = f"warm, pytest on {other}"
    print("the whole gate (tests/gate.py: phases side by side), alternated:")
    whole = alternate(
        {
            "warm": step("warm", [*GATE, "--fresh"]),
            alt: step(alt, [*GATE, "--fresh"], jobs=other),
            "cached": step("cached", GATE, cached=True),  # after a passing warm run
        },
        repeat,
    )
    for name, budget in (("warm", GATE_BUDGET), (alt, GATE_BUDGET), ("cached", CACHED_BUDGET)):
        median, lo, hi = stats(whole[name])
        flag = f"   FAILED ({failures[name]})" if name in failures else ""
        share = f"   {round_ratio(whole[name], whole['warm'])} of warm" if name == alt else ""
        print(
            f"{'make verify, ' + name:<24} {median:7.2f}s {lo:7.2f}s {hi:7.2f}s   {'':>7}"
            f"   {median:.2f}s / {budget:.0f}s = {median / budget:.2f}×{flag}{share}",
            flush=True,
        )
    bench_workers(repeat)
    print("not in the gate:")
    diagrams_and_report(repeat)
    bench_check_trace(repeat)


def bench_workers(repeat: int) -> None:
    """The gate's pytest in one process against N xdist workers, alternated round by round."""
    commands = {n: gate.pytest_command(n) for n in WORKERS}
    runs = alternate({str(n): lambda c=c: timed(c) for n, c in commands.items()}, repeat)  # type: ignore[misc]
    print(f"the gate's pytest on {os.cpu_count()} CPUs (make verify uses {gate.WORKERS}):")
    for n in WORKERS:
        median, lo, hi = stats(runs[str(n)])
        share = round_ratio(runs[str(n)], runs["1"])
        label = "one process" if n == 1 else f"{n} workers"
        print(f"{'  pytest, ' + label:<24} {median:7.2f}s {lo:7.2f}s {hi:7.2f}s   {share} of one")


def diagrams_and_report(repeat: int) -> None:
    """Issue 10: rendering every diagram and the report takes under 5 s (given verify.json)."""
    run_timed(
        [PY, "-m", "models", "verify", "--certificates", "1", "--json", "reports/verify.json"]
    )
    failed: set[str] = set()
    runs = []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(repeat):
            total = 0.0
            for command in (
                [PY, "-m", "models", "diagram", "--render", "--out", out],
                [PY, "-m", "models", "report", "-o", out],
            ):
                seconds, why = run_timed(command)
                total += seconds
                if why:
                    failed.add(f"{command[3]} {why}")
            runs.append(total)
    median, lo, hi = stats(runs)
    flag = f"   FAILED ({'; '.join(sorted(failed))})" if failed else ""
    print(
        f"{'diagrams + report':<22} {median:7.2f}s {lo:7.2f}s {hi:7.2f}s   {'':>7}"
        f"   {median:.2f}s / 5s = {median / 5:.2f}×{flag}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (at least 5)")
    parser.add_argument(
        "--part",
        choices=("engines", "scaling", "protocols", "gate"),
        action="append",
        help="default: all",
    )
    parser.add_argument(
        "--largest",
        type=int,
        default=10**6,
        help="skip family sizes above this many states (duplex4, 1.68 M states, takes 7 minutes "
        "more: --largest 2000000)",
    )
    parser.add_argument("--end-to-end", nargs=2, metavar=("FAMILY", "K"), help=argparse.SUPPRESS)
    parser.add_argument("--verify-one", metavar="PROTOCOL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.end_to_end:
        family, k = args.end_to_end
        print(json.dumps(end_to_end(family, int(k))))
        return 0
    if args.verify_one:
        print(json.dumps(verify_one(args.verify_one)))
        return 0
    if args.repeat < 5:
        parser.error("--repeat must be at least 5: a median of fewer runs is noise")
    parts = args.part or ["engines", "scaling", "protocols", "gate"]
    print(f"bench: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    if "engines" in parts:
        bench_engines(args.repeat)
    if "scaling" in parts:
        bench_scaling(args.repeat, args.largest)
    if "protocols" in parts:
        bench_protocols(args.repeat, args.largest)
    if "gate" in parts:
        bench_gate(args.repeat)
    if FAILED:
        print(f"\nbench: {len(FAILED)} protocol(s) failed to verify (the FAILED lines above)")
    if MISMATCHES:
        print(f"\nbench: SPIN and we disagree {len(MISMATCHES)} time(s) (the !!! lines above)")
    return 1 if FAILED or MISMATCHES else 0


def bench_check_trace(repeat: int, steps: int = 100_000, budget: float = 5.0) -> None:
    """Issue 8: a 100,000-step duplex log is checked in under 5 s (not part of the gate)."""
    from logs import duplex_log

    log = duplex_log(ROOT / ".cache" / "bench" / "duplex-100k.jsonl", steps)
    command = [str(BIN / "python"), "-m", "models", "check-trace", "duplex", str(log)]
    median, lo, hi = stats([timed(command) for _ in range(repeat)])
    name = f"check-trace {steps // 1000}k"
    print(
        f"{name:<22} {median:7.2f}s {lo:7.2f}s {hi:7.2f}s   {'':>7}"
        f"   {median:.2f}s / {budget:.0f}s = {median / budget:.2f}×"
    )
    bench_check_trace_memory()


def bench_check_trace_memory(megabytes: int = 50, budget_mb: float = 200.0) -> None:
    """Issue 20: check-trace of a 50 MB log stays under 200 MB, because it streams the log:
    its peak beside a log a tenth the size shows that memory does not grow with the length."""
    from logs import duplex_log
    from logs import peak_mb

    sample = duplex_log(ROOT / ".cache" / "bench" / "duplex-sample.jsonl", 1000)
    per_step = sample.stat().st_size // 1001  # an init line and 1,000 steps
    sizes = {}
    for mb in (megabytes // 10, megabytes):
        log = duplex_log(ROOT / ".cache" / "bench" / f"duplex-{mb}mb.jsonl", mb * 2**20 // per_step)
        command = [str(BIN / "python"), "-m", "models", "check-trace", "duplex", str(log)]
        peak, code = peak_mb(command)
        if code != 0:
            sys.exit(f"bench: check-trace of {log} exited {code}")
        sizes[mb] = (log.stat().st_size / 2**20, peak)
    (small_mb, small_peak), (big_mb, big_peak) = sizes.values()
    print(
        f"{'check-trace memory':<22} {big_peak:7.0f} MB peak for a {big_mb:.0f} MB log "
        f"({small_peak:.0f} MB for {small_mb:.0f} MB: {big_peak / small_peak:.2f}×)"
        f"   {big_peak:.0f} / {budget_mb:.0f} MB = {big_peak / budget_mb:.2f}×"
    )


if __name__ == "__main__":
    sys.exit(main())
