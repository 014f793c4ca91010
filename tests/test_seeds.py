"""The seed differential's framework: skip or fail on a missing seed, catch an unlisted
difference, a rejected log and a broken build; and the allow-list has teeth.

A fake plugin stands in for a compiled seed here, so these run without rustc; `make
seeds` (part of `make verify`) runs the real ones.
"""

from __future__ import annotations

import copy
import json
import types
from pathlib import Path
from typing import Any

import pytest

import conformance.seeds.__main__ as runner
import conformance.seeds.walks as walks
from conformance.seeds import Allowed
from conformance.seeds import BuildError
from conformance.seeds import Log
from conformance.seeds import SeedMissing
from conformance.seeds import Walk
from conformance.seeds import duplex as duplex_plugin
from conformance.seeds import rustc_build
from conformance.seeds import seed_path
from conformance.seeds._testing import seed_harness


class FakeHarness:
    def __init__(self, change: Any = None) -> None:
        self.change = change

    def run(self, walks: list[Walk]) -> list[Log]:
        logs = duplex_plugin.impl_logs(walks)
        return [self.change(copy.deepcopy(log)) if self.change else log for log in logs]


def fake_plugin(
    *, change: Any = None, build_error: Exception | None = None, allowed: tuple[Allowed, ...] = ()
) -> types.ModuleType:
    module = types.ModuleType("conformance.seeds.fake")
    module.SPEC = "duplex"  # type: ignore[attr-defined]
    module.SEED_FILE = "duplex.rs"  # type: ignore[attr-defined]
    module.SEED_VARIANT = None  # type: ignore[attr-defined]
    module.ALLOWED = allowed  # type: ignore[attr-defined]

    def build(seeds_dir: Path, build_dir: Path) -> FakeHarness:
        if build_error is not None:
            raise build_error
        return FakeHarness(change)

    module.build = build  # type: ignore[attr-defined]
    module.impl_logs = duplex_plugin.impl_logs  # type: ignore[attr-defined]
    return module


@pytest.fixture(autouse=True)
def few_walks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "RANDOM_WALKS", 30)
    monkeypatch.setattr(walks, "EDGE_LIMIT", 0)  # witnesses and random walks only: fast


def test_identical_logs_pass_and_counts_are_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.run_plugin(fake_plugin(), require=False) == "ok"
    out = capsys.readouterr().out
    assert "seeds fake: duplex.rs → duplex:" in out and "0 problems" in out
    assert "traces" in out and "steps" in out


def test_an_unlisted_difference_fails(capsys: pytest.CaptureFixture[str]) -> None:
    def drop_a_command(log: Log) -> Log:
        for line in log:
            if line.get("outputs", {}).get("commands") == ["MUTE", "CANCEL"]:
                line["outputs"]["commands"] = ["MUTE"]
        return log

    assert runner.run_plugin(fake_plugin(change=drop_a_command), require=False) == "failed"
    out = capsys.readouterr().out
    assert "no ALLOWED entry covers it" in out
    assert "REJECTED" in out  # and check-trace rejects the changed seed log on its own


def test_an_allowed_difference_is_counted_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    def narrow(log: Log) -> Log:
        for line in log:
            for part in ("args", "state", "outputs"):
                for key in ("value", "last_erl", "impulse_erl"):
                    v = line.get(part, {}).get(key)
                    if isinstance(v, float):
                        line[part][key] = duplex_plugin.f32(v)
        return log

    plugin = fake_plugin(change=narrow, allowed=duplex_plugin.ALLOWED)
    assert runner.run_plugin(plugin, require=False) == "ok"
    assert "erl-f32-narrowing ×" in capsys.readouterr().out


def test_an_allowed_entry_no_walk_needs_fails(capsys: pytest.CaptureFixture[str]) -> None:
    never = Allowed("never-seen", "a decision", lambda walk, seed, impl: False)
    assert runner.run_plugin(fake_plugin(allowed=(never,)), require=False) == "failed"
    assert "ALLOWED entry 'never-seen' covers no walk" in capsys.readouterr().out


def test_impl_failing_under_the_driver_is_a_failed_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plugin = fake_plugin()

    def broken(walks: list[Walk]) -> list[Log]:
        raise AssertionError("the driver saw 2 live subscriptions")

    plugin.impl_logs = broken  # type: ignore[attr-defined]
    assert runner.run_plugin(plugin, require=False) == "failed"
    out = capsys.readouterr().out
    assert "FAILED — driving impl: AssertionError: the driver saw 2 live subscriptions" in out


def test_impl_only_variables_are_checked_but_not_diffed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def unobserved(log: Log) -> Log:  # the seed cannot see `state`
        for line in log:
            (line["init"] if "init" in line else line["state"]).pop("state")
        return log

    plugin = fake_plugin(change=unobserved)
    assert runner.run_plugin(plugin, require=False) == "failed"
    assert "no ALLOWED entry covers it" in capsys.readouterr().out
    plugin.IMPL_ONLY = frozenset({"state"})  # type: ignore[attr-defined]
    assert runner.run_plugin(plugin, require=False) == "ok"
    assert "0 problems" in capsys.readouterr().out


def test_the_erl_allowance_covers_f32_narrowing_and_nothing_else() -> None:
    walk: Walk = {"init": {"payload": "AUDIO"}, "steps": []}
    impl = [{"trigger": "erl", "args": {"value": 0.49999999}, "state": {"last_erl": 0.49999999}}]
    seed = [{"trigger": "erl", "args": {"value": 0.5}, "state": {"last_erl": 0.5}}]
    assert duplex_plugin.only_erl_narrowed(walk, seed, impl)
    off = [{"trigger": "erl", "args": {"value": 0.4}, "state": {"last_erl": 0.4}}]
    assert not duplex_plugin.only_erl_narrowed(walk, off, impl)
    other = [{"trigger": "erl", "args": {"value": 0.5}, "state": {"last_erl": 0.5, "x": 1}}]
    assert not duplex_plugin.only_erl_narrowed(walk, other, impl)
    assert duplex_plugin.only_erl_narrowed(
        walk, [{"state": {"last_erl": "inf"}}], [{"state": {"last_erl": 1e39}}]
    )


def test_a_missing_seed_is_loud_and_skipped_unless_required(
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing = fake_plugin(build_error=SeedMissing("duplex.rs is not in SEEDS_DIR=/nowhere"))
    assert runner.run_plugin(missing, require=False) == "skipped"
    out = capsys.readouterr().out
    assert "!! seeds fake: SKIPPED" in out and "SEEDS_DIR" in out
    assert runner.run_plugin(missing, require=True) == "failed"
    assert "FAILED" in capsys.readouterr().out


def test_a_build_error_fails(capsys: pytest.CaptureFixture[str]) -> None:
    plugin = fake_plugin(build_error=BuildError("rustc refused"))
    assert runner.run_plugin(plugin, False) == "failed"
    assert "FAILED to build — rustc refused" in capsys.readouterr().out


def test_seed_path_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(SeedMissing, match="SEEDS_DIR="):
        seed_path(tmp_path, "duplex.rs")


def test_rustc_refusal_is_a_build_error_naming_the_error(tmp_path: Path) -> None:
    main = tmp_path / "main.rs"
    main.write_text('#[path = "@SEED@"]\nmod seed;\nfn main() {}\n')
    seed = tmp_path / "broken.rs"
    seed.write_text("fn broken( {\n")
    with pytest.raises(BuildError, match="rustc could not build broken from .*: error"):
        rustc_build("broken", main, {"SEED": seed}, tmp_path / "build")
    built = [p for p in (tmp_path / "build").glob("broken-*") if p.suffix != ".rs"]
    assert not built  # nothing half-built is cached


def test_every_plugin_module_has_the_interface() -> None:
    for plugin in runner.plugins([]):
        assert isinstance(plugin.SPEC, str) and isinstance(plugin.SEED_FILE, str)
        assert plugin.SEED_VARIANT is None or isinstance(plugin.SEED_VARIANT, str)
        assert all(isinstance(a, Allowed) and a.decision for a in plugin.ALLOWED)
        assert callable(plugin.build) and callable(plugin.impl_logs)
        assert isinstance(getattr(plugin, "RANDOM_WALKS", 1), int)
        assert isinstance(getattr(plugin, "DIRECTED_WALKS", ()), tuple)
        assert isinstance(getattr(plugin, "IMPL_ONLY", frozenset()), frozenset)


def test_random_walks_take_only_the_triggers_a_plugin_enables() -> None:
    from models import duplex

    def no_grants(trigger: str, state: Any) -> bool:
        return not (trigger == "grant_user" and state["state"] is duplex.OVERLAP)

    generated = walks.model_walks(duplex.SPEC, random_walks=200, length=20, enabled=no_grants)
    random_part = generated.walks[-200:]
    steps = [s["trigger"] for w in random_part for s in w["steps"]]
    assert "grant_user" in steps and len(steps) > 1000
    logs = duplex_plugin.impl_logs(random_part)
    for log in logs:
        for before, line in zip(log, log[1:], strict=False):
            before_state = before["state"] if "state" in before else before["init"]
            assert not (line["trigger"] == "grant_user" and before_state["state"] == "OVERLAP")


def test_an_unknown_plugin_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        runner.main(["nope"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "no seed plugin 'nope'; known: " in err and "duplex" in err  # the wave plugin joins


def test_the_seed_narrows_a_just_below_floor_erl_to_the_floor() -> None:
    """The documented decision, observed: duplex.rs holds 0.49999999 as 0.5, impl does not."""
    harness = seed_harness(duplex_plugin)
    walk: Walk = {
        "init": {"payload": "AUDIO"},
        "steps": [{"trigger": "erl", "args": {"value": 0.49999999}}],
    }
    (seed,) = harness.run([walk])
    (impl,) = duplex_plugin.impl_logs([walk])
    assert seed[1]["state"]["last_erl"] == 0.5 and impl[1]["state"]["last_erl"] == 0.49999999
    assert duplex_plugin.only_erl_narrowed(walk, seed, impl)


def test_without_seed_sources_the_run_is_loud_and_green_unless_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SEEDS_DIR", str(tmp_path))
    monkeypatch.delenv("REQUIRE_SEEDS", raising=False)
    monkeypatch.setattr(runner, "REPORT", tmp_path / "seeds.json")  # not the real reports/
    assert runner.main([]) == 0
    figures = json.loads((tmp_path / "seeds.json").read_text())["specs"]
    assert figures["duplex"] == {"plugin": "duplex", "status": "skipped", "summary": "skipped"}
    out = capsys.readouterr().out
    assert f"plugins SKIPPED: SEEDS_DIR={tmp_path} does not hold their seed sources" in out
    assert "!! seeds duplex: SKIPPED" in out and "!! seeds policy: SKIPPED" in out
    monkeypatch.setenv("REQUIRE_SEEDS", "1")
    assert runner.main(["duplex"]) == 1
    assert "seeds duplex: FAILED (REQUIRE_SEEDS=1)" in capsys.readouterr().out
