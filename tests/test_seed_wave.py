"""The transport.ts seed plugin (conformance/seeds/wave.py): the checks of its own that have
teeth, beside the runner's (`make seeds`: every log checked, every difference on ALLOWED,
every ALLOWED entry met by a walk).

- impl parses PERK_WAVE_TIMEOUT_MS as the seed's JS `Number()` does (wave-transport.md §5);
- check-trace rejects a seed log with one step changed, at that step;
- an ALLOWED entry recognises its own first difference, and no other entry does.

They run the compiled seed (`seed_harness`: skipped loudly without SEEDS_DIR's transport.ts,
failed under REQUIRE_SEEDS=1); `make test` installs the pinned tsc first (npm ci).
"""

from __future__ import annotations

import copy

import pytest

import conformance.seeds.__main__ as runner
from conformance.seeds import Walk
from conformance.seeds import wave as plugin
from conformance.seeds._testing import seed_harness
from conformance.seeds.walks import witness_walks
from models.cli.registry import lookup

SEED = lookup("wave:seed")

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


@pytest.fixture(scope="module")
def harness() -> plugin.TransportHarness:
    built = seed_harness(plugin)
    assert isinstance(built, plugin.TransportHarness)
    return built


def test_the_environment_timeout_is_parsed_as_the_seed_parses_it(
    harness: plugin.TransportHarness, monkeypatch: pytest.MonkeyPatch
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
    assert len(set(seeds)) > 5  # the texts reach more than the default


def _long_seed_walk() -> Walk:
    return next(w for w in witness_walks(SEED) if len(w["steps"]) >= 6)


def test_a_changed_seed_step_is_rejected_at_that_step(harness: plugin.TransportHarness) -> None:
    """The check has teeth: the seed's log is accepted; with one output changed it is not."""
    walk = _long_seed_walk()
    (log,) = harness.run([walk])
    assert runner.check_logs(SEED, [log], "seed") == (len(walk["steps"]), [])
    broken = copy.deepcopy(log)
    broken[3]["outputs"]["calls"] = ["STOP"]
    _, problems = runner.check_logs(SEED, [broken], "seed")
    assert len(problems) == 1 and "rejected by wave:seed" in problems[0]
    assert "REJECTED at step 3 (line 4)" in problems[0], problems[0]


def test_an_allowed_entry_names_its_own_difference_alone(
    harness: plugin.TransportHarness,
) -> None:
    """A ping answered with a non-WavePing: the seed takes it as a WavePing, impl as null;
    one ALLOWED entry, and only that one, recognises the difference."""
    walk: Walk = {
        "init": {},
        "steps": [
            {"trigger": "launch", "args": {"timeout": "GIVEN"}},
            {"trigger": "ping_replies", "args": {"answer": "MALFORMED"}},
        ],
    }
    (seed,) = harness.run([walk])
    (impl,) = plugin.impl_logs([walk])
    impl = runner._without(impl, plugin.IMPL_ONLY)
    assert plugin.first_difference(seed, impl) == 2
    names = [a.name for a in plugin.ALLOWED if a.applies(walk, seed, impl)]
    assert names == ["ping answers that are not a WavePing"]
    assert not [a.name for a in plugin.ALLOWED if a.applies(walk, seed, seed)]
