"""`python -m models mutants`: the model-mutant gate (generation and judging in kernel/mutants.py).

Each spec's mutants are judged by the layers in order: the model layer (the
spec's own checks, on the explorer's graph), the conformance layer (the
spec's replay and lockstep tests against the mutated model, in-process; for a
spec of more than `harness.REPLAY_STATES` states, the row witnesses and the
changed rows' shallowest steps in place of every transition: the spec's line
`conformance layer on ...` names what runs and why), and
the seed layer (the seed's own logs, run once per spec, checked by
check-trace against the mutated model or mutated seed variant:
conformance/seeds/_mutants.py; a missing seed is a loud SKIPPED line, a
failure under REQUIRE_SEEDS=1). A model kill counts once z3 confirms it
(`kernel.mutants.confirmed`); one z3 does not confirm is a KERNEL DISAGREEMENT,
which fails the command. A changed property that still holds is killed if z3
finds it demands nothing (`toothless`) or it lets a row mutant through that
the original killed (`_teeth`). A mutant no layer kills is proved equivalent
with z3 (`smt.prove_equivalent`, and the same fair runs, `same_fairness`; for a
changed property, `smt.same_requirements`) or SURVIVED, which fails the command
(exit 1).

`--fast` (what `make verify` runs) judges every mutant of a smaller sample
(`FAST_LIMIT` row mutants, `FAST_EXTRA_LIMIT` definition mutants and
`FAST_LIVE_LIMIT` liveness mutants per spec)
with the model layer, runs conformance (replays only, no lockstep) on the
model layer's survivors, and the seed layer on those and on one in
`FAST_SHARE` of the rest. `--full` (`make
mutants`) runs every layer, lockstep included, on every mutant.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from models.cli import cache
from models.cli.kit import add_jobs
from models.cli.kit import output_file
from models.cli.kit import process_pool
from models.cli.kit import result_of
from models.cli.registry import UnknownSpec
from models.cli.registry import all_specs
from models.cli.registry import lookup
from models.kernel.mutants import EXTRA_LIMIT
from models.kernel.mutants import LIMIT
from models.kernel.mutants import LIVE_LIMIT
from models.kernel.mutants import Baseline
from models.kernel.mutants import Kill
from models.kernel.mutants import Mutant
from models.kernel.mutants import confirmed
from models.kernel.mutants import generate
from models.kernel.mutants import model_kill
from models.kernel.mutants import mutant_graph
from models.kernel.mutants import same_fairness
from models.kernel.mutants import toothless
from models.kernel.smt import absent
from models.kernel.smt import prove_equivalent
from models.kernel.smt import same_requirements
from models.kernel.spec import Spec
from models.kernel.trace import plural

FAST_LIMIT = 24  # mutants per spec under --fast (a subset of the --full sample)
FAST_EXTRA_LIMIT = 6  # and of the definition operators' (a subset of --full's)
FAST_LIVE_LIMIT = 4  # and of the liveness operators' (a subset of --full's)
# A mutant costs about one pass over the spec's reachable states, so a spec's sample shrinks
# to keep (mutants x states) within a budget: none of the seed specs is touched (the largest
# judged, duplex, is far below), while adr068 (14,276 states, 20-60 s a mutant under load)
# gets a sample that keeps `make verify` and CI's `make mutants` within their time.
FAST_STATE_BUDGET = 100_000  # --fast: (mutants x reachable states) per spec, at most
STATE_BUDGET = 400_000  # --full: the same
FAST_SHARE = 12  # --fast also runs the seed layer on one in this many model-killed mutants
LOCKSTEP_EXAMPLES = 10  # --full: the lockstep run's fixed budget per mutant
PROGRESS_SECONDS = 5  # a progress line (on standard error) at most this often


def add_parser(sub: Any) -> None:
    """Add the `mutants` subcommand to the CLI's subparsers."""
    p = sub.add_parser("mutants", help="generate model mutants and check every one is caught")
    p.add_argument("specs", nargs="*", metavar="SPEC", help="spec names (default: all)")
    p.add_argument(
        "--json", type=output_file, metavar="FILE", help="also write the report as JSON (-: stdout)"
    )
    add_jobs(p, "specs judged in parallel")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--fast",
        dest="full",
        action="store_false",
        help=f"{FAST_LIMIT} mutants per spec, conformance on the model's survivors (default)",
    )
    mode.add_argument(
        "--full",
        dest="full",
        action="store_true",
        help=f"up to {LIMIT} mutants per spec, every layer on every mutant",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="judge every spec's mutants again, whatever the result cache holds",
    )
    p.set_defaults(run=run, full=False)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    names = _names(args.specs)
    jobs = max(1, min(args.jobs, len(names)))
    mode = "full" if args.full else "fast"
    print(f"mutants ({mode}): {', '.join(names)} in {jobs} process(es)", flush=True)
    reports: list[dict[str, Any]] = []
    from conformance.seeds._mutants import SeedLayerError

    # A spec whose mutants all died (or were proved equivalent) is cached under a hash of
    # what judging them reads (cache.py): the spec, the kernel, impl/, conformance/, the seeds.
    use_cache = cache.enabled(args.no_cache)
    keys = {n: _cache_key(n, mode) for n in names} if use_cache else {}
    cached = {
        n: stored
        for n, k in keys.items()
        if use_cache and (stored := cache.get(f"mutants-{n}", k)) is not None
    }
    to_run = [n for n in names if n not in cached]
    jobs = max(1, min(jobs, len(to_run)))
    try:
        if jobs == 1:
            for name in names:
                if name in cached:
                    reports.append(_shown(cached[name], cached=True))
                else:  # streamed as judged
                    report = _judge_spec(name, args.full, stream=True)
                    reports.append(_store(report, keys[name] if use_cache else None, False))
        else:
            with process_pool(jobs) as pool:
                # The biggest spec first, so that it is not the last one started.
                by_size = sorted(to_run, key=lambda n: -len(all_specs()[n].rows))
                futures = {
                    name: pool.apply_async(_judge_spec, (name, args.full)) for name in by_size
                }
                for name in names:
                    if name in cached:
                        reports.append(_shown(cached[name], cached=True))
                    else:
                        report = result_of(futures[name])
                        reports.append(_store(report, keys[name] if use_cache else None, True))
    except SeedLayerError as err:
        print(f"mutants: FAILED: the seed layer cannot run: {err}")
        return 1
    ok = all(r["survived"] == 0 for r in reports)
    print(
        f"mutants: {'ok' if ok else 'FAILED'}: "
        f"{sum(r['survived'] for r in reports)} survived, {time.perf_counter() - started:.1f}s"
    )
    if args.json is not None:
        args.json.write(json.dumps({"ok": ok, "specs": reports}, indent=2) + "\n")
    return 0 if ok else 1


# Specs the gate leaves out unless named: policy-concrete is policy's one definition
# (`cell_rows`, `cell_properties`) with every policy in every slot, so a mutant of that table
# is already judged on policy; tests/test_policy_concrete.py holds the two to the same
# verdicts, and its 2,145 states and 72,930 edges cost a second a mutant.
LEFT_OUT = {"policy-concrete": "policy"}


def _cache_key(name: str, mode: str) -> str:
    from conformance.seeds import seeds_dir

    deps = [*cache.KERNEL, *cache.spec_modules(name), "impl", "conformance", seeds_dir()]
    return cache.key(f"mutants-{mode}-{name}", deps, ("rustc", "node", "gcc"))


def _store(report: dict[str, Any], key: str | None, shown: bool) -> dict[str, Any]:
    """Cache a spec's report under `key` when no mutant survived; print it unless streamed."""
    if key is not None and report["survived"] == 0:
        cache.put(f"mutants-{report['name']}", key, report)
    return _shown(report) if shown else {k: v for k, v in report.items() if k != "_text"}


def _shown(report: dict[str, Any], *, cached: bool = False) -> dict[str, Any]:
    """Print a report's text; return the report without it."""
    print(report["_text"], end="", flush=True)
    if cached:
        print(f"{report['name']}: cached, nothing its mutants' judges read has changed")
    return {k: v for k, v in report.items() if k != "_text"}


def _names(requested: list[str]) -> list[str]:
    if not requested:
        return [name for name in all_specs() if name not in LEFT_OUT]
    for name in requested:
        if ":" in name:
            raise UnknownSpec(f"{name!r} is a variant: mutants are made from a spec itself")
        lookup(name)
    return requested


def _mode(full: bool) -> tuple[int, int, int]:
    """The mode's row, definition and liveness sample sizes."""
    return (
        (LIMIT, EXTRA_LIMIT, LIVE_LIMIT)
        if full
        else (FAST_LIMIT, FAST_EXTRA_LIMIT, FAST_LIVE_LIMIT)
    )


def _limits(full: bool, states: int) -> tuple[int, int, int]:
    """The sample sizes for a spec of `states` reachable states: each scaled down alike so
    that (mutants x states) stays within the mode's budget, at least one of each. A smaller
    limit keeps a subset of the larger sample (`kernel.mutants._ranked`)."""
    limits = _mode(full)
    share = (STATE_BUDGET if full else FAST_STATE_BUDGET) / (max(states, 1) * sum(limits))
    if share >= 1:
        return limits
    a, b, c = (max(1, int(n * share)) for n in limits)
    return a, b, c


def _scaled(full: bool, limits: tuple[int, int, int]) -> str:
    if limits == _mode(full):
        return ""
    shown = "/".join(map(str, limits)), "/".join(map(str, _mode(full)))
    return f"; a sample of {shown[0]} of {shown[1]} (row/definition/liveness), by the state budget"


def _judge_spec(name: str, full: bool, *, stream: bool = False) -> dict[str, Any]:
    """One spec's mutants, judged; the report's dict (plus its text under `_text`)."""
    spec = all_specs()[name]
    lines: list[str] = []

    def say(line: str) -> None:
        if stream:
            print(line, flush=True)
        lines.append(line)

    base = Baseline(spec)
    limits = _limits(full, len(base.graph.states))
    generation = generate(spec, limit=limits[0], extra_limit=limits[1], live_limit=limits[2])
    say(
        f"{name}: {len(generation.mutants)} mutants generated, {generation.skipped} skipped "
        f"(of {generation.candidates} candidates; {generation.invalid} the vocabulary refuses)"
        + _scaled(full, limits)
    )
    states = [base.graph.as_dict(i) for i in range(len(base.graph.states))]
    driver = _driver(name)
    original = None
    if driver is not None:
        from conformance.harness import REPLAY_STATES
        from conformance.harness import layers

        lockstep = LOCKSTEP_EXAMPLES if full else 0
        which = "every mutant" if full else "the model layer's survivors"
        say(f"{name}: conformance layer on {which}: {layers(len(states), lockstep)}")
        if len(states) <= REPLAY_STATES:  # the new-step replay's; beyond, it is not run
            original = _original_steps(base)
    else:
        say(f"{name}: conformance layer: no driver in conformance/drivers/ drives this spec")
    seed = _seed_layer(spec, say)
    rows: list[dict[str, Any]] = []
    killed = {"model": 0, "conformance": 0, "seed": 0}
    equivalent = survived = disagreed = 0
    # Which check killed each mutant at the model layer, for `_teeth`.
    first_kill: dict[str, tuple[Mutant, str]] = {}
    said = time.monotonic()
    for n, mutant in enumerate(generation.mutants):
        if time.monotonic() - said >= PROGRESS_SECONDS:  # never silent for long
            said = time.monotonic()
            total = len(generation.mutants)
            print(f"mutants: {name}: {n} of {total} judged", file=sys.stderr, flush=True)
        kills: list[Kill] = []
        model = model_kill(base, mutant.spec)
        if model is None and mutant.spec.properties != spec.properties:
            model = toothless(spec, mutant.spec) or _teeth(base, mutant.spec, first_kill.values())
        if model is not None:
            problem = confirmed(model)
            if problem is not None:
                disagreed += 1
                say(f"  {_line(mutant)}  KERNEL DISAGREEMENT: model: {model.check}: {problem}")
                rows.append(_row(mutant, [], "disagreement"))
                continue
            kills.append(model)
            first_kill[mutant.id] = (mutant, model.check)
        if driver is not None and (full or model is None):
            from conformance.harness import conformance_kill

            graph = mutant_graph(base, mutant.spec)
            if graph is not None:  # else the model layer has killed it: the oracle refuses it
                found = conformance_kill(
                    driver,
                    mutant.spec,
                    original=original,
                    graph=graph,
                    lockstep_examples=LOCKSTEP_EXAMPLES if full else 0,
                )
                if found is not None:
                    kills.append(Kill("conformance", *found))
        if seed is not None and (full or not kills or n % FAST_SHARE == 0):
            found = seed.kill(mutant.spec, spec)
            if found is not None:
                kills.append(Kill("seed", *found))
        for kill in kills:
            killed[kill.layer] += 1
        if kills:
            verdict = "killed"
            shown = ", ".join(f"{k.layer}: {k.check}{_length(k)}" for k in kills)
        elif _equivalent(spec, mutant.spec, states) and same_fairness(base, mutant.spec):
            verdict, shown = "equivalent", "equivalent (proved)"
            equivalent += 1
        else:
            verdict, shown = "survived", "SURVIVED"
            survived += 1
        say(f"  {_line(mutant)}  {shown}")
        rows.append(_row(mutant, kills, verdict))
    judged = len(generation.mutants) - equivalent
    rate = killed["model"] / judged if judged else 1.0
    say(
        f"{name}: generated {len(generation.mutants)}, killed model {killed['model']} "
        f"conformance {killed['conformance']} seed {killed['seed']}, equivalent {equivalent}, "
        f"survived {survived}, model kill rate {killed['model']}/{judged} = {100 * rate:.1f}%"
        + (f", KERNEL DISAGREEMENTS {disagreed}" if disagreed else "")
    )
    report: dict[str, Any] = {
        "name": name,
        "generated": len(generation.mutants),
        "skipped": generation.skipped,
        "killed": killed,
        "equivalent": equivalent,
        "survived": survived + disagreed,
        "disagreements": disagreed,
        "model_kill_rate": round(rate, 4),
        "mutants": rows,
    }
    report["_text"] = "".join(line + "\n" for line in lines)
    return report


def _row(mutant: Mutant, kills: list[Kill], verdict: str) -> dict[str, Any]:
    return {
        "id": mutant.id,
        "operator": mutant.operator,
        "row": mutant.row,
        "killed_by": [
            {"layer": k.layer, "check": k.check, "trace_length": k.trace_length} for k in kills
        ],
        "verdict": verdict,
    }


def _equivalent(original: Spec, mutant: Spec, states: list[dict[str, Any]]) -> bool:
    """z3's proof that the mutant changes nothing: the same steps from every reachable state
    (`prove_equivalent`), or, for a changed property, the same demands of any step given the
    other properties (`same_requirements`). A trigger moved to another group changes what
    the properties read of the same steps: neither proof clears it."""
    if mutant.triggers != original.triggers:
        return False
    if mutant.properties != original.properties:
        return same_requirements(original, mutant).equal
    return prove_equivalent(original, mutant, states).equal


def _teeth(base: Baseline, mutant: Spec, judged: Any) -> Kill | None:
    """A changed property that still holds is killed if it lets through a row mutant that
    the original property killed: under it, the gate would have a survivor."""
    changed = {p.name for p in mutant.properties} - {
        p.name for p in mutant.properties if p in base.spec.properties
    }
    for other, check in judged:
        if check not in changed:
            continue
        under = replace(other.spec, properties=mutant.properties, triggers=mutant.triggers)
        if model_kill(base, under) is None:
            graph = mutant_graph(base, under)
            if graph is None:
                continue
            p = under.prop(check)
            states = [graph.as_dict(i) for i in range(len(graph.states))]
            # z3: the changed property's counterexample really is gone from that mutant.
            confirm = partial(absent, under, states, p.bad, step=p.over_steps)
            return Kill("model", f"{check} lets {other.id} through", None, confirm)
    return None


def _seed_layer(spec: Spec, say: Callable[[str], None]) -> Any:
    """The spec's seed layer (None when it has no seed, or its seed is missing: said loudly)."""
    from conformance.seeds._mutants import SeedLayer

    layer = SeedLayer.open(spec)
    if layer is None:
        say(f"{spec.name}: seed layer: no seed plugin checks this spec")
    elif isinstance(layer, str):
        say(f"!! {spec.name}: seed layer SKIPPED, {layer} (under REQUIRE_SEEDS=1 this fails)")
        return None
    else:
        against = f"{spec.name}:{layer.variant}, mutated" if layer.variant else "the mutant"
        say(f"{spec.name}: seed layer: {len(layer)} logs of seed {layer.plugin} vs {against}")
    return layer


def _original_steps(base: Baseline) -> set[tuple[Any, ...]]:
    from conformance.harness import edge_keys

    return edge_keys(base.graph)


def _driver(name: str) -> Any:
    # Imported here: the conformance harness needs hypothesis and the impl package.
    from conformance.harness import drivers

    return drivers().get(name)


def _line(m: Mutant) -> str:
    where = m.row or (
        "(initial state)"
        if "init" in m.operator
        else "(fairness)"
        if m.operator == "drop-fairness"
        else "(definition)"
    )
    return f"{m.id:<14} {m.operator:<15} {where:<40} {m.detail:<38}"


def _length(kill: Kill) -> str:
    return "" if kill.trace_length is None else f" (trace of {plural(kill.trace_length, 'step')})"
