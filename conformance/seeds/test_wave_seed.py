"""The transport.ts seed differential, checked here until `python -m conformance.seeds` runs it.

Walks: every row witness of `wave` and of `wave:seed`, then random walks over the fixed
model's graph (seeded). Each walk runs through the compiled, unmodified seed (one node
process) and through impl.waves; the seed's log must be one `wave:seed` explains, impl's one
`wave` explains, and where they differ the first difference must be an `ALLOWED` decision.
Where SEEDS_DIR holds no transport.ts (or node is missing) the test says so and is skipped,
unless REQUIRE_SEEDS=1 (`make seed-transport`, run by .ci/run).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.seeds import wave as plugin
from models import wave as m
from models.kernel.explore import Exploration, explore

ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))
RANDOM_WALKS = 400
WALK_LENGTH = 12

FIXED = m.SPEC
SEED = m.SPEC.with_variant(plugin.SEED_VARIANT)
FIXED_GRAPH = explore(FIXED)
SEED_GRAPH = explore(SEED)


def _walk_of(graph: Exploration, edges: list[Any]) -> dict[str, Any]:
    return {
        "init": {},
        "steps": [
            {"trigger": e.trigger, "args": {k: plugin.encode(v) for k, v in e.params.items()}}
            for e in edges
        ],
    }


def _witness_walks(graph: Exploration) -> list[dict[str, Any]]:
    walks = []
    for edge in graph.row_witnesses().values():
        path: list[Any] = [edge]
        while (parent := graph.parent[path[0].source]) is not None:
            path.insert(0, parent)
        walks.append(_walk_of(graph, path))
    return walks


def _random_walks(graph: Exploration, n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: dict[int, list[Any]] = {}
    for edge in graph.edges:
        out.setdefault(edge.source, []).append(edge)
    walks = []
    for _ in range(n):
        state, path = 0, []
        for _ in range(rng.randint(3, WALK_LENGTH)):
            edges = out.get(state)
            if not edges:
                break
            edge = rng.choice(edges)
            path.append(edge)
            state = edge.target
        walks.append(_walk_of(graph, path))
    return walks


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> plugin.Harness:
    try:
        return plugin.build(SEEDS_DIR, ROOT / "build" / "seeds" / "transport")
    except plugin.BuildError as error:  # no seed, or no node: said loudly, failed under CI
        message = f"the transport.ts seed run is skipped: {error}"
        if os.environ.get("REQUIRE_SEEDS") == "1":
            pytest.fail(message)
        pytest.skip(message)


def _step(trigger: str, **args: str) -> dict[str, Any]:
    return {"trigger": trigger, "args": args}


# Answers where none is pending, events in the instants, and late ones after settling.
FRONT = [_step("launch", timeout="GIVEN"), _step("ping_replies", answer="ADVERTISED")]
SUBSCRIBED = [*FRONT, _step("recheck"), _step("subscribe", answer="SUBSCRIBED")]
EDGE_WALKS: list[dict[str, Any]] = [
    {"init": {}, "steps": steps}
    for steps in (
        [*FRONT, _step("ping_replies", answer="NULL"), _step("deadline"), _step("abort")],
        [
            *FRONT,
            _step("recheck"),
            _step("ping_replies", answer="RAISES"),
            _step("completion", of="OWN"),
        ],
        [*SUBSCRIBED, _step("completion", of="NULL"), _step("spawn_replies", answer="NULL")],
        [
            *SUBSCRIBED,
            _step("spawn_replies", answer="HANDLE"),
            _step("spawn_replies", answer="RAISES"),
        ],
        [
            *SUBSCRIBED,
            _step("spawn_replies", answer="HANDLE"),
            _step("completion", of="OWN_FAILED_PARTIAL"),
            _step("read_replies", state="PARTIAL", value="SCALAR"),
            _step("completion", of="OWN"),
        ],
    )
]


def test_the_seed_and_impl_agree_or_differ_as_decided(harness: plugin.Harness) -> None:
    walks = EDGE_WALKS + _witness_walks(FIXED_GRAPH) + _witness_walks(SEED_GRAPH)
    walks += _random_walks(FIXED_GRAPH, RANDOM_WALKS, seed=20261201)
    seed_logs = harness.run(walks)
    impl_logs = plugin.impl_logs(walks)
    rejected = []
    differences: Counter[str] = Counter()
    for walk, seed_log, impl_log in zip(walks, seed_logs, impl_logs, strict=True):
        at = plugin.consistent_prefix(SEED, seed_log, SEED_GRAPH)
        if at is not None:
            rejected.append(f"wave:seed rejects the seed's step {at}: {seed_log[at]}")
        at = plugin.consistent_prefix(FIXED, impl_log, FIXED_GRAPH)
        if at is not None:
            rejected.append(f"wave rejects impl's step {at}: {impl_log[at]}")
        why = plugin.unexplained(walk, seed_log, impl_log)
        if why is not None:
            rejected.append(f"unlisted difference: {why}")
        for allowed in plugin.ALLOWED:
            if allowed.matches(walk, seed_log, impl_log):
                differences[allowed.name] += 1
                break
    assert not rejected, "\n".join(rejected[:10])
    steps = sum(len(w["steps"]) for w in walks)
    print(f"transport.ts: {len(walks)} walks, {steps} steps; differences {dict(differences)}")
    # Every allowed difference is one the walks meet (an entry nothing needs is stale).
    assert set(differences) == {a.name for a in plugin.ALLOWED}, set(differences)


ENV_TEXTS = [
    None,
    "",
    "  20 ",
    "+20",
    "020",
    "1e3",
    ".5",
    "5.",
    "0x10",
    "0X1f",
    "0b101",
    "0o17",
    "1_000",
    "\uff12\uff10",
    "20ms",
    "inf",
    "Infinity",
    "nan",
    "1e400",
    "0",
    "-5",
    "1e10",
    "0x",
    "-0x10",
    "\t7\n",
]


def test_the_environment_timeout_is_parsed_as_the_seed_parses_it(
    harness: plugin.Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PERK_WAVE_TIMEOUT_MS through JS `Number()` (the seed) and impl's port of it."""
    from impl import waves

    seeds = harness.env_timeouts(ENV_TEXTS)
    ours = []
    for text in ENV_TEXTS:
        if text is None:
            monkeypatch.delenv("PERK_WAVE_TIMEOUT_MS", raising=False)
        else:
            monkeypatch.setenv("PERK_WAVE_TIMEOUT_MS", text)
        ours.append(waves._env_timeout_ms())
    assert dict(zip(map(repr, ENV_TEXTS), ours, strict=True)) == dict(
        zip(map(repr, ENV_TEXTS), seeds, strict=True)
    )


def test_a_changed_seed_step_is_caught(harness: plugin.Harness) -> None:
    """The check has teeth: a seed log with one output flipped is rejected at that step."""
    (walk,) = [w for w in _witness_walks(SEED_GRAPH) if len(w["steps"]) >= 6][:1]
    (log,) = harness.run([walk])
    assert plugin.consistent_prefix(SEED, log, SEED_GRAPH) is None
    broken = [dict(line) for line in log]
    broken[3] = {**broken[3], "outputs": {**broken[3]["outputs"], "calls": ["STOP"]}}
    assert plugin.consistent_prefix(SEED, broken, SEED_GRAPH) == 3
