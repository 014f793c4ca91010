"""`python -m conformance.seeds [NAME ...]` (`make seeds`): run the seed differential.

For every plugin in conformance/seeds/ (or those named): build the seed's harness,
generate walks from the model, run them through the seed and through impl, check
every log with check-trace (the seed's against SEED_VARIANT, impl's against SPEC),
diff seed against impl and apply the plugin's ALLOWED list, each entry of which
must cover at least one walk. Prints, per seed, the counts of traces and steps
checked and of each allowed difference.

Each plugin's summary line is also written to reports/seeds.json for the report.

Exit 0 when every log is accepted and every difference is allowed; 1 otherwise; 2 for
an unknown plugin name. A
seed missing from SEEDS_DIR is reported loudly and skipped, unless REQUIRE_SEEDS=1
(set by .ci/run), under which it fails. A harness that will not build fails.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import multiprocessing
import os
import pkgutil
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import as_completed
from pathlib import Path
from types import ModuleType
from typing import Literal

import conformance.seeds as framework
from conformance.seeds import BuildError
from conformance.seeds import HarnessError
from conformance.seeds import Log
from conformance.seeds import SeedMissing
from conformance.seeds import Walk
from conformance.seeds.walks import model_walks
from conformance.seeds.walks import witness_walks
from models.cli.kit import collect_less
from models.cli.registry import lookup
from models.kernel.spec import Spec
from models.kernel.tracecheck import TraceInputError
from models.kernel.tracecheck import check_trace
from models.kernel.tracecheck import parse_objects

NOT_PLUGINS = {"walks"}  # and the private modules, `_*`
Status = Literal["ok", "skipped", "failed"]
REPORT = Path("reports/seeds.json")  # the report's summary reads each spec's line
RANDOM_WALKS = 1000  # per seed plugin (a plugin's own RANDOM_WALKS wins): a few thousand in all
LENGTH = 24


def plugins(names: list[str]) -> list[ModuleType]:
    found = [
        m.name
        for m in pkgutil.iter_modules(framework.__path__)
        if not m.name.startswith("_") and m.name not in NOT_PLUGINS
    ]
    unknown = [n for n in names if n not in found]
    if unknown:
        print(f"error: no seed plugin {unknown[0]!r}; known: {', '.join(found)}", file=sys.stderr)
        raise SystemExit(2)
    return [importlib.import_module(f"conformance.seeds.{n}") for n in names or found]


def check_logs(spec: Spec, logs: list[Log], who: str) -> tuple[int, list[str]]:
    """Check each log; return the steps checked and one message per rejected log."""
    steps = 0
    problems: list[str] = []
    for k, log in enumerate(logs):
        try:
            parsed = parse_objects(spec, enumerate(log, start=1))
        except TraceInputError as err:
            problems.append(f"{who} log {k} is malformed: {err}")
            continue
        verdict = check_trace(spec, parsed, explain=False)
        steps += len(parsed.steps)
        if not verdict.ok:
            report = check_trace(spec, parsed).report()
            problems.append(f"{who} log {k} rejected by {spec.name}:\n    " + "\n    ".join(report))
    return steps, problems


def run_plugin(plugin: ModuleType, require: bool) -> Status:
    name = plugin.__name__.rsplit(".", 1)[1]
    started = time.perf_counter()
    spec = lookup(plugin.SPEC)
    seed_spec = lookup(f"{plugin.SPEC}:{plugin.SEED_VARIANT}") if plugin.SEED_VARIANT else spec
    try:
        harness = plugin.build(framework.seeds_dir(), framework.build_dir())
    except SeedMissing as err:
        banner = "FAILED (REQUIRE_SEEDS=1)" if require else "SKIPPED"
        print(f"!! seeds {name}: {banner} — {err}")
        return "failed" if require else "skipped"
    except BuildError as err:
        print(f"seeds {name}: FAILED to build — {err}")
        return "failed"
    built = time.perf_counter() - started
    print(f"seeds: {name}: harness built in {built:.1f}s", file=sys.stderr, flush=True)
    enabled = getattr(plugin, "enabled", None)
    count = getattr(plugin, "RANDOM_WALKS", RANDOM_WALKS)
    generated = model_walks(spec, random_walks=count, length=LENGTH, enabled=enabled)
    walks, kinds = list(generated.walks), dict(generated.kinds)
    if seed_spec is not spec:  # the seed's own rows, each met
        walks += witness_walks(seed_spec)
        kinds[f"{seed_spec.name} row witnesses"] = len(walks) - len(generated.walks)
    directed = list(getattr(plugin, "DIRECTED_WALKS", ()))
    if directed:
        walks += directed
        kinds["directed walks"] = len(directed)
    try:
        seed_logs = harness.run(walks)
    except HarnessError as err:
        print(f"seeds {name}: FAILED — the seed harness: {err}")
        return "failed"
    try:
        impl_logs = plugin.impl_logs(walks)
    except Exception as err:  # a driver's Mismatch, or impl raising: a failed check, one line
        print(f"seeds {name}: FAILED — driving impl: {type(err).__name__}: {err}")
        return "failed"
    to_model = getattr(plugin, "to_model", lambda log: log)
    seed_steps, problems = check_logs(seed_spec, [to_model(log) for log in seed_logs], "seed")
    impl_steps, impl_problems = check_logs(spec, [to_model(log) for log in impl_logs], "impl")
    problems += impl_problems
    allowed: Counter[str] = Counter()
    impl_only: frozenset[str] = getattr(plugin, "IMPL_ONLY", frozenset())
    for k, (walk, seed, impl) in enumerate(zip(walks, seed_logs, impl_logs, strict=True)):
        impl = _without(impl, impl_only)
        if seed == impl:
            continue
        why = next((a.name for a in plugin.ALLOWED if a.applies(walk, seed, impl)), None)
        if why is None:
            problems.append(
                f"walk {k}: seed and impl differ, and no ALLOWED entry covers it:\n"
                + _first_difference(walk, seed, impl)
            )
        else:
            allowed[why] += 1
    for entry in plugin.ALLOWED:  # an entry no walk needs is stale, or the walks lost it
        if not allowed[entry.name]:
            problems.append(f"ALLOWED entry {entry.name!r} covers no walk: stale or unreached")
    seconds = time.perf_counter() - started
    shown = ", ".join(f"{n} {k}" for k, n in kinds.items())
    variant = f" (seed against {seed_spec.name})" if seed_spec is not spec else ""
    print(
        f"seeds {name}: {plugin.SEED_FILE} → {spec.name}{variant}: {len(walks)} walks ({shown}); "
        f"checked {2 * len(walks)} traces, {seed_steps} seed + {impl_steps} impl steps; "
        f"{sum(allowed.values())} allowed differences"
        + (" (" + ", ".join(f"{k} ×{n}" for k, n in allowed.items()) + ")" if allowed else "")
        + f"; {len(problems)} problems; {seconds:.1f}s (build {built:.1f}s)"
    )
    for text in problems[:5]:
        print("  " + text)
    if len(problems) > 5:
        print(f"  … and {len(problems) - 5} more")
    return "failed" if problems else "ok"


def _write_figures(figures: dict[str, dict[str, str]]) -> None:
    """reports/seeds.json, each spec's seed figures for the report's summary (whole or none)."""
    path = REPORT
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"specs": figures}, indent=2) + "\n")
        tmp.replace(path)
    except OSError as err:  # the figures are extra: the differential's verdict stands
        print(f"seeds: could not write {path}: {err.strerror}")


def _run_named(name: str, require: bool) -> tuple[Status, str]:
    """One plugin, by name, with its report captured (for a worker process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run_plugin(importlib.import_module(f"conformance.seeds.{name}"), require)
    return status, out.getvalue()


def _without(log: Log, names: frozenset[str]) -> Log:
    """`log` without the state variables `names` (what only impl's log observes)."""
    if not names:
        return log
    keep = ("init", "state")
    return [
        {
            k: {n: v for n, v in x.items() if n not in names} if k in keep else x
            for k, x in line.items()
        }
        for line in log
    ]


def _first_difference(walk: Walk, seed: Log, impl: Log) -> str:
    for k, (a, b) in enumerate(zip(seed, impl, strict=False)):
        if a != b:
            return (
                f"    walk: {json.dumps(walk)[:300]}\n    line {k + 1}\n"
                f"      seed: {json.dumps(a)}\n      impl: {json.dumps(b)}"
            )
    return f"    the logs differ in length: seed {len(seed)}, impl {len(impl)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.seeds", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help="seed plugins (default: all)")
    parser.add_argument(
        "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="plugins run in parallel"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    require = framework.required()
    chosen = [p.__name__.rsplit(".", 1)[1] for p in plugins(args.names)]
    print(f"seeds: SEEDS_DIR={framework.seeds_dir()}" + (" (REQUIRE_SEEDS=1)" if require else ""))
    print(f"seeds: {len(chosen)} plugins: {', '.join(chosen)}", flush=True)
    results: list[Status] = []
    figures: dict[str, dict[str, str]] = {}
    # The drivers' harness (hypothesis, trio) is imported once here, before the fork, so
    # that the workers share it rather than each importing it again.
    importlib.import_module("conformance.harness")
    # The plugins are independent: run them side by side, print each one's lines in order.
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        futures = [pool.submit(_run_named, name, require) for name in chosen]
        for done, _ in enumerate(as_completed(futures), start=1):  # progress, as each ends
            print(f"seeds: {done} of {len(futures)} plugins done", file=sys.stderr, flush=True)
        for name, future in zip(chosen, futures, strict=True):
            status, text = future.result()
            print(text, end="", flush=True)
            results.append(status)
            spec = importlib.import_module(f"conformance.seeds.{name}").SPEC
            head = next((line for line in text.splitlines() if f"seeds {name}:" in line), "")
            summary = head.split(": ", 1)[-1] if status == "ok" else status
            figures[spec] = {"plugin": name, "status": status, "summary": summary}
    _write_figures(figures)
    skipped = results.count("skipped")
    if skipped:
        print("!!" + "!" * 78)
        print(
            f"!! seeds: {skipped} of {len(results)} seed plugins SKIPPED: SEEDS_DIR="
            f"{framework.seeds_dir()} does not hold their seed sources."
        )
        print("!! Set SEEDS_DIR to the directory holding duplex.rs, mode.rs and transport.ts;")
        print("!! .ci/run sets REQUIRE_SEEDS=1, under which a missing seed fails.")
        print("!!" + "!" * 78)
    failed = results.count("failed")
    if failed:
        print(f"seeds: FAILED — {failed} of {len(results)} seed plugins")
        return 1
    seconds = time.perf_counter() - started
    ran = results.count("ok")
    print(f"seeds: ok — {ran} of {len(results)} seed plugins ran and passed in {seconds:.1f}s")
    return 0


if __name__ == "__main__":
    collect_less()
    sys.exit(main())
